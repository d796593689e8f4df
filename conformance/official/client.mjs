// The client the official MCP conformance suite tests: a stateless
// `2026-07-28` MCP client over Streamable HTTP whose requests all go through
// mrtr's `Client` machine (Node binding): it validates every response,
// surfaces `input_required` rounds as events, and builds each retry (new id,
// the `inputResponses`, the exact `requestState`, nothing carried over to any
// other request). What is here is the transport (POSTs whose header fields
// mrtr's `mirroredFields` reads off each body, JSON or SSE answers), the per-request
// `_meta`, version selection on `UnsupportedProtocolVersion`, and the answers
// a scripted user gives.
//
// It discovers the server, lists its tools and calls every one of them at
// once (arguments made from each tool's input schema), answering every
// elicitation, sampling and roots request it is asked.
//
//   node client.mjs [ignored…] URL
import { Client, mirroredFields } from '../../bindings-node/index.mjs'

const VERSIONS = ['2026-07-28'] // what this client (and mrtr's default protocol) speaks
const CLIENT_INFO = { name: 'mrtr-official-conformance-client', version: '0.1.0' }
const CAPABILITIES = { roots: { listChanged: true }, sampling: {}, elicitation: {} }
const MAX_STEPS = 20

const url = process.argv[process.argv.length - 1]
let version = VERSIONS[0]
let nextId = 1
const machine = new Client({ protocol: VERSIONS[0] })

/** POSTs one message; the JSON-RPC response to it (from a JSON body or an SSE stream). */
async function post(message) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': version,
    ...mirroredFields(message), // the header fields that mirror the body (Mcp-Method, Mcp-Name…), as mrtr reads them
  }
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) })
  const body = await res.text()
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    // The last JSON-RPC response with our id on the stream; notifications are skipped.
    const datas = body.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).filter(Boolean)
    for (const data of datas.reverse()) {
      const parsed = JSON.parse(data)
      if (parsed.id === message.id && ('result' in parsed || 'error' in parsed)) return data
    }
    throw new Error(`no response to ${message.method} (id ${message.id}) on the SSE stream`)
  }
  return body
}

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
 * Runs `requests` (method + params, without id or _meta) together through the
 * machine until each is done; resolves to their final responses, in order.
 */
async function run(requests) {
  const handles = requests.map(({ method, params }) =>
    machine.send({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta() } }),
  )
  const done = new Map()
  for (let step = 0; step < MAX_STEPS && done.size < handles.length; step++) {
    const outgoing = [...machine.transmits()]
    const replies = await Promise.all(outgoing.map(post))
    for (const reply of replies) machine.handleResponse(reply) // raw text: validated by the core
    for (const event of machine.events()) {
      if (event.type === 'done') done.set(event.handle, event.response)
      else if (event.type === 'inputRequired') {
        const answers = Object.fromEntries(Object.entries(event.inputRequests).map(([k, r]) => [k, answerOne(r)]))
        machine.answer(event.handle, answers, nextId++)
      } else machine.answer(event.handle, null, nextId++) // retryNow
    }
  }
  return handles.map((h) => {
    if (!done.has(h)) throw new Error('a request did not finish')
    return done.get(h)
  })
}

/** One request; on UnsupportedProtocolVersion (-32022) picks a version both sides speak and sends it again. */
async function request(method, params = {}) {
  const [response] = await run([{ method, params }])
  const err = response.error
  if (err?.code === -32022 && Array.isArray(err.data?.supported)) {
    const common = VERSIONS.find((v) => err.data.supported.includes(v))
    if (!common) throw new Error(`no protocol version in common with the server (${err.data.supported.join(', ')})`)
    version = common
    return (await run([{ method, params }]))[0]
  }
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
