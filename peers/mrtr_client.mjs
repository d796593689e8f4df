// An MCP client on mrtr's Node binding (bindings-node): runs every scenario against a server, as
// peers/py_client.py and peers/ts_client.mjs do with the official SDKs.
//
//   node peers/mrtr_client.mjs URL PROTOCOL            # 2026-07-28 or 2025-11-25
//   node peers/mrtr_client.mjs URL 2026-07-28 --break request-state
//
// It declares elicitation (form and url), sampling and roots, answers every ask with the same answers
// as the SDK clients (a URL-mode elicitation with an accept), and checks each result; on 2026-07-28
// requests that declare less (nothing; form elicitation only) must be refused with -32021 where the
// server cannot serve them. The scenarios after the first ones run as peers/run lists them in
// PEER_SCENARIOS (all by default), each to its end.
// Every call is one mrtr `Operation`, driven by the package's `runOperation` over this file's
// node:http exchange, with one `onInput` for every question in both protocols:
// - 2026-07-28: the operation validates each response, reports each `input_required` round and
//   sends each retry (a new id, the `inputResponses`, the exact `requestState`), each POST with the
//   `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` fields mirroring its body.
// - 2025-11-25: `initialize`, `notifications/initialized` (202), the `Mcp-Session-Id` kept when the
//   server gives one; the server's requests arrive on the call's POST stream, each answer is POSTed
//   back (202), and the operation reports every transport violation. A session is ended with DELETE.
// With `--break request-state` it retries a call with a requestState other than the one it was given
// (the `Client` machine's retry, its requestState replaced): the one fault mrtr must then report.
// Exit status 0 when every scenario got its expected answer; 1 with the reason on stderr otherwise.
import http from 'node:http'
import { Client, Operation, SseDecoder, mirroredFields, runOperation } from '../bindings-node/index.mjs'

const MRTR = '2026-07-28'
const LEGACY = '2025-11-25'
const ANSWERS = { units: 'celsius', date: '2026-12-01', seat: '12A', focus: 'tests', topic: 'mrtr' }
const CLIENT_INFO = { name: 'mrtr-peer', version: '1.0.0' }
const CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} }
const NO_CAPABILITIES = {}
const FORM_ONLY = { elicitation: { form: {} } }
const SIGN_IN = 'https://example.com/sign-in'
const MAX_STEPS = 20
// The scenarios beyond the first ones that this pairing runs (peers/run sets PEER_SCENARIOS; all by default).
const EXTRA = ['reserve', 'sign_in', 'no_capability', 'form_only']
const extra = new Set(process.env.PEER_SCENARIOS === undefined ? EXTRA : process.env.PEER_SCENARIOS.split(',').filter(Boolean))

const [url, protocol, ...rest] = process.argv.slice(2)
const broken = rest.length === 2 && rest[0] === '--break' && rest[1] === 'request-state'
if (!url || ![MRTR, LEGACY].includes(protocol) || (rest.length && !broken) || (broken && protocol !== MRTR)) {
  console.error('usage: node peers/mrtr_client.mjs URL 2026-07-28|2025-11-25 [--break request-state (2026-07-28 only)]')
  process.exit(2)
}

class Failure extends Error {}
const fail = (message) => {
  throw new Failure(message)
}

// ------------------------------------------------------------------ the answers a user gives

/** The result answering one server request / input request (`{method, params}`). */
function resultFor(request) {
  switch (request.method) {
    case 'elicitation/create': {
      if (request.params?.mode === 'url') {
        if (request.params.url !== SIGN_IN || request.params.message !== 'Sign in') fail(`an unexpected URL elicitation: ${JSON.stringify(request)}`)
        return { action: 'accept' }
      }
      const keys = Object.keys(request.params?.requestedSchema?.properties ?? {})
      const missing = keys.filter((k) => !(k in ANSWERS))
      if (missing.length) fail(`no answer for the elicitation of ${missing.join(', ')}: ${JSON.stringify(request)}`)
      return { action: 'accept', content: Object.fromEntries(keys.map((k) => [k, ANSWERS[k]])) }
    }
    case 'sampling/createMessage':
      return { role: 'assistant', content: { type: 'text', text: 'short' }, model: 'm-1' }
    case 'roots/list':
      return { roots: [{ uri: 'file:///work', name: 'work' }] }
    case 'ping':
      return {}
    default:
      return null
  }
}

// ------------------------------------------------------------------ one HTTP exchange (node:http)

/**
 * Sends `request` (`{method, url, headers, body}`, body a JSON value) and reports its response
 * through `on.head(status, headers)`, `on.body(chunk)` and `on.end()` (once, also when the
 * connection is cut or fails: then `on.end(error)`).
 */
function exchange(request, on) {
  const body = request.body === undefined ? null : Buffer.from(JSON.stringify(request.body))
  const headers = { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) }
  const req = http.request(request.url, { method: request.method, headers, agent: false })
  let ended = false
  const end = (error) => {
    if (ended) return
    ended = true
    on.end(error)
  }
  req.on('error', (error) => end(error))
  req.on('response', (res) => {
    const fields = Object.fromEntries(
      Object.entries(res.headers).map(([n, v]) => [n, Array.isArray(v) ? v.join(', ') : String(v)]),
    )
    on.head(res.statusCode, fields)
    res.on('data', (chunk) => on.body(chunk))
    res.on('end', () => end())
    res.on('error', (error) => end(error))
    res.on('close', () => end())
  })
  if (body) req.write(body)
  req.end()
}

/** One request, its whole response: `{status, headers, body}` (body as text). */
function roundTrip(request) {
  return new Promise((resolve, reject) => {
    let status = 0
    let fields = {}
    const chunks = []
    exchange(request, {
      head: (s, h) => ((status = s), (fields = h)),
      body: (chunk) => chunks.push(chunk),
      end: (error) =>
        error && !status
          ? reject(new Failure(`${request.method} ${request.url}: ${error.message}`))
          : resolve({ status, headers: fields, body: Buffer.concat(chunks).toString('utf8') }),
    })
  })
}

const text = (response, what) => {
  if (response.error) fail(`${what}: error ${response.error.code}: ${response.error.message}`)
  const content = response.result?.content
  if (!Array.isArray(content) || typeof content[0]?.text !== 'string') fail(`${what}: no text content in ${JSON.stringify(response)}`)
  return content[0].text
}

function expectEqual(what, got, want) {
  if (got !== want) fail(`${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`)
  console.log(`ok   ${what}: ${JSON.stringify(got)}`)
}

// ------------------------------------------------------------------ 2026-07-28 (the broken client: the Client machine by hand)

const machine = new Client({ protocol: MRTR })
let nextId = 1

/** POSTs one 2026-07-28 request; the JSON-RPC response to it (JSON body or event stream), as text, and the status. */
async function post(message) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...mirroredFields(message), // MCP-Protocol-Version, Mcp-Method, Mcp-Name, as mrtr reads them off the body
  }
  const res = await roundTrip({ method: 'POST', url, headers, body: message })
  if (/^text\/event-stream\b/i.test(res.headers['content-type'] ?? '')) {
    const stream = new SseDecoder({ protocol: MRTR })
    stream.feed(res.body)
    stream.finish()
    for (const event of stream.events()) {
      if (!event.data?.trim()) continue
      let parsed
      try {
        parsed = JSON.parse(event.data)
      } catch {
        fail(`${message.method} (id ${message.id}): an event that is not JSON: ${event.data.slice(0, 200)}`)
      }
      if (parsed.id === message.id && ('result' in parsed || 'error' in parsed)) return { status: res.status, text: event.data }
    }
    fail(`${message.method} (id ${message.id}): HTTP ${res.status}, no response on the event stream`)
  }
  if (!res.body.trim()) fail(`${message.method} (id ${message.id}): HTTP ${res.status} with an empty body`)
  return { status: res.status, text: res.body }
}

const meta = (capabilities = CAPABILITIES) => ({
  'io.modelcontextprotocol/protocolVersion': MRTR,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
})

/** Feeds one response to the machine; a response it refuses is a failure named by its rule. */
function deliver(message, reply) {
  try {
    machine.handleResponse(reply.text)
  } catch (e) {
    fail(`${message.method} (id ${message.id}): mrtr refused the response (${e.rule ?? e.name}: ${e.message}): ${reply.text.slice(0, 400)}`)
  }
}

/** The answer to one question, or the failure of the scenario that asked what no user answers. */
function onInput(question) {
  const result = resultFor(question)
  if (result === null) fail(`cannot answer an input request for ${question.method}`)
  return result
}

/**
 * Runs `requests` (`{method, params}`, without id or _meta) together, each as one Operation, until
 * each is done: their final responses and the input_required rounds each took, in order. Each
 * request declares `capabilities` (every one the client has, by default).
 */
function run(requests, capabilities = CAPABILITIES) {
  const t0 = performance.now()
  const now = () => Math.floor(performance.now() - t0)
  return Promise.all(
    requests.map(async ({ method, params }) => {
      const request = { jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: meta(capabilities) } }
      const operation = new Operation({ mode: MRTR, url, maxRounds: MAX_STEPS }, request, now())
      let rounds = 0
      const onEvent = (e) => {
        if (e.type === 'inputRequired') rounds++
        else if (e.type === 'violation') fail(`${method} (id ${request.id}): ${e.rule}: ${e.message}`)
      }
      try {
        return { response: await runOperation(operation, { exchange, now, onInput, onEvent }), rounds }
      } catch (e) {
        throw e instanceof Failure ? e : new Failure(`${method} (id ${request.id}): ${e.rule ?? e.name}: ${e.message}`)
      }
    }),
  )
}

const tool = (name, args) => ({ method: 'tools/call', params: { name, arguments: args } })

// ------------------------------------------------------------------ 2025-11-25

let session = null
const violations = []
const legacyHeaders = () => ({ 'mcp-protocol-version': LEGACY, ...(session ? { 'mcp-session-id': session } : {}) })

/**
 * Runs `request` as an Operation in 2025-11-25 mode to its end: its JSON-RPC response and the
 * server requests it answered (their methods). `headers`: sent with each of its HTTP requests.
 */
async function call(request, headers = legacyHeaders()) {
  const t0 = performance.now()
  const now = () => Math.floor(performance.now() - t0)
  const operation = new Operation({ mode: LEGACY, url, headers }, request, now())
  const asked = []
  const answer = (question) => {
    asked.push(question.method) // ping is answered by the operation itself
    return onInput(question)
  }
  const onEvent = (e) => e.type === 'violation' && violations.push(`${request.method} (id ${request.id}): ${e.rule}: ${e.message}`)
  // The session id comes on the response head of initialize.
  const seeing = (sent, on) =>
    exchange(sent, {
      ...on,
      head: (status, fields) => {
        if (request.method === 'initialize' && fields['mcp-session-id']) session = fields['mcp-session-id']
        on.head(status, fields)
      },
    })
  try {
    const response = await runOperation(operation, { exchange: seeing, now, onInput: answer, onEvent })
    return { response, asked }
  } catch (e) {
    throw e instanceof Failure ? e : new Failure(`${request.method} (id ${request.id}): ${e.rule ?? e.name}: ${e.message}`)
  }
}

/** A notification: one POST, 202 expected. */
async function notify(method) {
  const headers = { ...legacyHeaders(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const res = await roundTrip({ method: 'POST', url, headers, body: { jsonrpc: '2.0', method } })
  if (res.status !== 202) fail(`${method}: expected HTTP 202, got ${res.status} ${res.body.slice(0, 200)}`)
}

// ------------------------------------------------------------------ the scenarios

async function scenarios2026() {
  const [paris] = await run([tool('get_weather', { location: 'Paris' })])
  expectEqual('get_weather Paris', text(paris.response, 'get_weather Paris'), 'Paris: 22 degrees celsius')
  const [trip] = await run([tool('book_trip', { destination: 'Rome' })])
  expectEqual('book_trip Rome', text(trip.response, 'book_trip Rome'), 'Rome on 2026-12-01, seat 12A')
  expectEqual('book_trip Rome: input_required rounds', trip.rounds, 2)
  const [summary] = await run([tool('summarize', { text: 'a long text' })])
  expectEqual('summarize', text(summary.response, 'summarize'), 'summary: short')
  const [roots] = await run([tool('list_roots', {})])
  expectEqual('list_roots', text(roots.response, 'list_roots'), 'file:///work')
  // Two calls to one tool in flight at once, each retried with its own state.
  const [oslo, lima] = await run([tool('get_weather', { location: 'Oslo' }), tool('get_weather', { location: 'Lima' })])
  expectEqual('get_weather Oslo (parallel)', text(oslo.response, 'get_weather Oslo'), 'Oslo: 22 degrees celsius')
  expectEqual('get_weather Lima (parallel)', text(lima.response, 'get_weather Lima'), 'Lima: 22 degrees celsius')
  const [prompt] = await run([{ method: 'prompts/get', params: { name: 'review', arguments: { pr: '12' } } }])
  if (prompt.response.error) fail(`prompts/get review: error ${prompt.response.error.code}: ${prompt.response.error.message}`)
  const said = prompt.response.result?.messages?.[0]?.content?.text
  if (typeof said !== 'string' || !said.includes('tests')) fail(`prompts/get review: expected a message on "tests", got ${JSON.stringify(prompt.response)}`)
  console.log(`ok   prompts/get review: ${JSON.stringify(said)}`)
  const [notes] = await run([{ method: 'resources/read', params: { uri: 'notes://today' } }])
  if (notes.response.error) fail(`resources/read notes://today: error ${notes.response.error.code}: ${notes.response.error.message}`)
  expectEqual('resources/read notes://today', notes.response.result?.contents?.[0]?.text, 'notes on mrtr')
  // The scenarios after the first ones each run to their end: a failure is reported after all of them.
  const failures = []
  const scenario = async (name, body) => {
    if (!extra.has(name)) return
    try {
      await body()
    } catch (e) {
      if (!(e instanceof Failure)) throw e
      failures.push(e.message)
    }
  }
  await scenario('reserve', async () => {
    // Load shedding: a round with a requestState and no inputRequests, retried at once.
    const [reserved] = await run([tool('reserve', { table: '7' })])
    expectEqual('reserve', text(reserved.response, 'reserve'), 'table 7 reserved')
  })
  await scenario('sign_in', async () => {
    const [signed] = await run([tool('sign_in', {})])
    expectEqual('sign_in (URL elicitation)', text(signed.response, 'sign_in'), 'signed in')
  })
  // Requests that declare less: the server must refuse what it cannot serve without a capability (-32021).
  await scenario('no_capability', async () => {
    const [bare] = await run([tool('get_weather', { location: 'Paris' })], NO_CAPABILITIES)
    refused('get_weather without capabilities', bare.response, 'elicitation')
  })
  await scenario('form_only', async () => {
    const [sampled] = await run([tool('summarize', { text: 'a long text' })], FORM_ONLY)
    refused('summarize with form elicitation only', sampled.response, 'sampling')
    const [paris] = await run([tool('get_weather', { location: 'Paris' })], FORM_ONLY)
    expectEqual('get_weather with form elicitation only', text(paris.response, 'get_weather'), 'Paris: 22 degrees celsius')
  })
  if (failures.length) fail(failures.join('\n'))
}

/** A -32021 (MissingRequiredClientCapability) whose data.requiredCapabilities names `capability`. */
function refused(what, response, capability) {
  const error = response.error
  if (error?.code !== -32021) fail(`${what}: expected error -32021, got ${JSON.stringify(response)}`)
  if (!error.data?.requiredCapabilities?.[capability]) fail(`${what}: data.requiredCapabilities does not name ${capability}: ${JSON.stringify(error)}`)
  console.log(`ok   ${what}: -32021 naming ${capability}`)
}

/** A retry with a requestState other than the one it was given: the machine's retry, its state replaced. */
async function brokenRetry() {
  const first = { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'get_weather', arguments: { location: 'Paris' }, _meta: meta() } }
  const handle = machine.send(first)
  const [message] = [...machine.transmits()]
  deliver(message, await post(message))
  const [event] = [...machine.events()]
  if (event?.type !== 'inputRequired') fail(`get_weather Paris: expected input_required, got ${JSON.stringify(event)}`)
  const answers = Object.fromEntries(Object.entries(event.inputRequests).map(([k, r]) => [k, resultFor(r)]))
  machine.answer(handle, answers, nextId++)
  const [retry] = [...machine.transmits()]
  retry.params.requestState = 'not-the-state-it-was-given'
  const reply = await post(retry) // the server may refuse it, or answer: the proxy judges
  machine.abandon(handle)
  console.log(`sent a retry with a requestState it was not given; HTTP ${reply.status}: ${reply.text.slice(0, 200)}`)
}

async function scenarios2025() {
  const init = await call(
    {
      jsonrpc: '2.0',
      id: nextId++,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: CAPABILITIES, clientInfo: CLIENT_INFO },
    },
    {}, // no MCP-Protocol-Version before one is agreed
  )
  if (init.response.error) fail(`initialize: error ${init.response.error.code}: ${init.response.error.message}`)
  expectEqual('initialize: protocolVersion', init.response.result?.protocolVersion, LEGACY)
  await notify('notifications/initialized')
  const request = (name, args) => ({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name, arguments: args } })
  const paris = await call(request('get_weather', { location: 'Paris' }))
  expectEqual('get_weather Paris', text(paris.response, 'get_weather Paris'), 'Paris: 22 degrees celsius')
  const trip = await call(request('book_trip', { destination: 'Rome' }))
  expectEqual('book_trip Rome', text(trip.response, 'book_trip Rome'), 'Rome on 2026-12-01, seat 12A')
  expectEqual('book_trip Rome: server requests', trip.asked.length, 2)
  const summary = await call(request('summarize', { text: 'a long text' }))
  expectEqual('summarize', text(summary.response, 'summarize'), 'summary: short')
  const roots = await call(request('list_roots', {}))
  expectEqual('list_roots', text(roots.response, 'list_roots'), 'file:///work')
  // Two calls to one tool in flight at once, each answered on its own stream.
  const [oslo, lima] = await Promise.all([
    call(request('get_weather', { location: 'Oslo' })),
    call(request('get_weather', { location: 'Lima' })),
  ])
  expectEqual('get_weather Oslo (parallel)', text(oslo.response, 'get_weather Oslo'), 'Oslo: 22 degrees celsius')
  expectEqual('get_weather Lima (parallel)', text(lima.response, 'get_weather Lima'), 'Lima: 22 degrees celsius')
  if (extra.has('reserve')) {
    const reserved = await call(request('reserve', { table: '7' }))
    expectEqual('reserve', text(reserved.response, 'reserve'), 'table 7 reserved')
  }
  if (extra.has('sign_in')) {
    const signed = await call(request('sign_in', {}))
    expectEqual('sign_in (URL elicitation)', text(signed.response, 'sign_in'), 'signed in')
  }
  if (violations.length) fail(`the server broke the transport:\n  ${violations.join('\n  ')}`)
  if (session) {
    const res = await roundTrip({ method: 'DELETE', url, headers: legacyHeaders() })
    if (res.status >= 300 && res.status !== 405) fail(`DELETE of the session: HTTP ${res.status}`)
  }
}

const deadline = setTimeout(() => {
  console.error(`mrtr client (${protocol}): timed out after 60 s`)
  process.exit(1)
}, 60_000)
try {
  await (broken ? brokenRetry() : protocol === MRTR ? scenarios2026() : scenarios2025())
  console.log(broken ? 'done (broken on purpose)' : `every scenario got its expected answer (${protocol})`)
} catch (e) {
  console.error(`mrtr client (${protocol}${broken ? ', --break request-state' : ''}): FAIL: ${e instanceof Failure ? e.message : e?.stack ?? e}`)
  process.exitCode = 1
}
clearTimeout(deadline)
