// The client the official MCP conformance suite tests: a stateless
// `2026-07-28` MCP client over Streamable HTTP whose requests are each one
// mrtr `Operation` (Node binding), driven by `runOperation` over fetch: it
// validates every response, asks `onInput` each question, and sends each retry
// (new id, the `inputResponses`, the exact `requestState`, the header fields
// that mirror the body), and on `UnsupportedProtocolVersion` (-32022) sends
// the request again under a version both sides speak (`versions`). What is
// here is the per-request `_meta`, the choice of version after discovery, and
// the answers a scripted user gives.
//
// It discovers the server, lists its tools and calls every one of them at
// once (arguments made from each tool's input schema), answering every
// elicitation, sampling and roots request it is asked.
//
//   node client.mjs [ignored…] URL
import { Operation, runOperation } from '../../bindings-node/index.mjs'

const VERSIONS = ['2026-07-28'] // what this client (and mrtr's default protocol) speaks
const CLIENT_INFO = { name: 'mrtr-official-conformance-client', version: '0.1.0' }
const CAPABILITIES = { roots: { listChanged: true }, sampling: {}, elicitation: {} }
const MAX_STEPS = 20

const url = process.argv[process.argv.length - 1]
let version = VERSIONS[0]
let nextId = 1

function meta() {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
    'io.modelcontextprotocol/clientCapabilities': CAPABILITIES,
  }
}

/** What the scripted user gives for an elicitation form: a value of each property's type. */
function fillForm(schema) {
  const content = {}
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop.default !== undefined) content[key] = prop.default
    else if (Array.isArray(prop.enum) && prop.enum.length) content[key] = prop.enum[0]
    else if (prop.type === 'boolean') content[key] = true
    else if (prop.type === 'number' || prop.type === 'integer') content[key] = 1
    else content[key] = 'conformance'
  }
  return content
}

/** The answer to one input request (elicitation, sampling, roots). */
function answerOne(request) {
  switch (request.method) {
    case 'elicitation/create':
      return { action: 'accept', content: fillForm(request.params?.requestedSchema) }
    case 'sampling/createMessage':
      return { role: 'assistant', content: { type: 'text', text: 'A sampled answer.' }, model: 'scripted', stopReason: 'endTurn' }
    case 'roots/list':
      return { roots: [{ uri: 'file:///tmp/mrtr-conformance', name: 'conformance root' }] }
    default:
      throw new Error(`cannot answer an input request for ${request.method}`)
  }
}

/** Arguments for a tool, made from its input schema. */
function argumentsFor(schema) {
  const args = {}
  let n = 1
  for (const [key, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop.type === 'number' || prop.type === 'integer') args[key] = n++
    else if (prop.type === 'boolean') args[key] = true
    else if (prop.type === 'string') args[key] = 'conformance'
  }
  return args
}

/**
 * Runs `requests` (method + params, without id or _meta) together, each as one
 * Operation; resolves to their final responses, in order.
 */
function run(requests) {
  return Promise.all(
    requests.map(({ method, params }) => {
      const message = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta() } }
      const config = { mode: '2026-07-28', url, maxRounds: MAX_STEPS, versions: VERSIONS }
      const operation = new Operation(config, message, Math.floor(performance.now()))
      return runOperation(operation, { onInput: answerOne })
    }),
  )
}

/** One request (a -32022 refusal is answered by the operation: `versions`). */
async function request(method, params = {}) {
  const [response] = await run([{ method, params }])
  return response
}

function check(response, what) {
  if (response.error) throw new Error(`${what}: ${response.error.code} ${response.error.message}`)
  return response.result
}

const discovered = check(await request('server/discover'), 'server/discover')
if (!discovered.supportedVersions?.includes(version)) {
  const common = VERSIONS.find((v) => discovered.supportedVersions?.includes(v))
  if (!common) throw new Error('the server supports none of our versions')
  version = common
}
const { tools = [] } = check(await request('tools/list'), 'tools/list')
const calls = tools.map((tool) => ({ method: 'tools/call', params: { name: tool.name, arguments: argumentsFor(tool.inputSchema) } }))
const results = await run(calls)
tools.forEach((tool, i) => {
  const r = results[i]
  const out = r.error ? `error ${r.error.code}: ${r.error.message}` : (r.result?.content ?? []).map((c) => c.text ?? c.type).join(' ')
  console.log(`${tool.name}: ${out}`)
})
