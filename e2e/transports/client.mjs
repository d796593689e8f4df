// An MCP client on mrtr's Node binding: the `greet` tool's two-round call in one transport mode,
// over node:http, recorded as HTTP entries (conformance/FORMAT.md, "check with HTTP entries").
//
//   node e2e/transports/client.mjs --mode MODE --url URL --record FILE [--name Ada] [--style formal]
//                                  [--snapshot FILE]
//
// With --snapshot, the client stops at the first question as a host that restarts would: it writes
// the operation's snapshot to FILE, prints `{"snapshot": FILE}` and exits 0, for another process
// (e2e/transports/restore.py, on the Python binding) to go on from it.
//
// Every call is one mrtr `Operation`, driven by the package's `runOperation` over this file's
// node:http exchange: in `2026-07-28` it carries every round (each retry under a new id), in the
// other modes the server requests on the call's stream; either way each question gets the canned
// answer of each field it asks, through the same `onInput`. The call is an `McpClient`'s, as a user
// writes it: in the `2025-11-25`-based modes it initializes first.
//
// The recording (JSON Lines): each request the client sends is a client entry; each response's
// head, event blocks (decoded with mrtr's `SseDecoder`, `data` as the JSON it carried) or JSON
// body, and its end are server entries with the same `exchange`; `at` is milliseconds since start.
//
// Prints one JSON line `{"text", "violations", "served"}` and exits 0 when the call completed with
// no violation reported by the machine; 1 otherwise.
import http from 'node:http'
import { appendFileSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { McpClient, Operation, runOperation, SseDecoder } from '../../bindings-node/index.mjs'
import { jsonOrText, recordedBlock } from '../recording.mjs'

const { values: args } = parseArgs({
  options: {
    mode: { type: 'string' },
    url: { type: 'string' },
    record: { type: 'string' },
    name: { type: 'string', default: 'Ada' },
    style: { type: 'string', default: 'formal' },
    'timeout-ms': { type: 'string', default: '30000' },
    snapshot: { type: 'string' },
  },
})
const MODES = ['2026-07-28', '2025-11-25', 'sep-1858', 'sep-1335']
if (!MODES.includes(args.mode) || !args.url || !args.record) {
  console.error('usage: node client.mjs --mode 2026-07-28|2025-11-25|sep-1858|sep-1335 --url URL --record FILE')
  process.exit(2)
}
const MRTR = args.mode === '2026-07-28'
const PROTOCOL = MRTR ? '2026-07-28' : '2025-11-25'
const ANSWERS = { name: args.name, style: args.style }
const CONFIG = {
  mode: args.mode,
  url: args.url,
  headers: { 'mcp-protocol-version': PROTOCOL },
  // A stream cut before any retry was sent is resumed after this wait.
  defaultRetryMs: 100,
}


// ------------------------------------------------------------------ the recording

const t0 = performance.now()
const now = () => Math.floor(performance.now() - t0)
writeFileSync(args.record, '')
const record = (from, at, http) => appendFileSync(args.record, JSON.stringify({ from, at, http }) + '\n')
const json = jsonOrText
const recorded = recordedBlock
let exchanges = 0
const served = [] // [exchange, x-served-by], in order of the response heads

// ------------------------------------------------------------------ one HTTP exchange

/**
 * Sends `request` (`{method, url, headers, body}`) and reports its response through
 * `on.head(status, headers, at)`, `on.body(chunk, at)`, `on.end(at)` (once, also when the
 * connection is cut or fails), recording both sides.
 */
function exchange(request, on) {
  const id = `x${++exchanges}`
  const body = request.body === undefined ? null : Buffer.from(JSON.stringify(request.body))
  record('client', now(), {
    exchange: id,
    method: request.method,
    url: request.url,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  })
  const headers = { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) }
  // agent: false: a connection per request (so a round-robin proxy alternates between servers).
  const req = http.request(request.url, { method: request.method, headers, agent: false })
  let ended = false
  const end = (at = now()) => {
    if (ended) return
    ended = true
    on.end(at)
  }
  req.on('error', () => end())
  req.on('response', (res) => {
    const fields = Object.fromEntries(
      Object.entries(res.headers).map(([n, v]) => [n, Array.isArray(v) ? v.join(', ') : String(v)]),
    )
    served.push([id, fields['x-served-by'] ?? null])
    const at = now()
    record('server', at, { exchange: id, status: res.statusCode, headers: fields })
    // The recording's view of the body: event blocks, or one JSON body at the end.
    const stream = /^text\/event-stream\b/i.test(fields['content-type'] ?? '') ? new SseDecoder() : null
    const chunks = []
    const blocks = () => [...stream.events()].map(recorded)
    on.head(res.statusCode, fields, at)
    res.on('data', (chunk) => {
      const at = now()
      if (stream) {
        stream.feed(chunk)
        const events = blocks()
        if (events.length) record('server', at, { exchange: id, events })
      } else chunks.push(chunk)
      on.body(chunk, at)
    })
    const finish = () => {
      if (ended) return
      const at = now()
      const entry = { exchange: id }
      if (stream) {
        stream.finish()
        const events = blocks()
        if (events.length) entry.events = events
      } else if (chunks.length) entry.body = json(Buffer.concat(chunks).toString('utf8'))
      record('server', at, { ...entry, end: true })
      end(at)
    }
    res.on('end', finish)
    res.on('error', finish) // the connection was cut mid-response ("aborted")
    res.on('close', finish)
  })
  if (body) req.write(body)
  req.end()
}

// ------------------------------------------------------------------ one call: an mrtr Operation

/** The canned answer to a question (an elicitation: each field it asks). */
function answerTo(question) {
  if (question.method !== 'elicitation/create') throw new Error(`${question.method} is not supported`)
  const keys = Object.keys(question.params?.requestedSchema?.properties ?? {})
  return { action: 'accept', content: Object.fromEntries(keys.map((k) => [k, ANSWERS[k] ?? 'yes'])) }
}

const violations = []

/** Runs `request` through an Operation to its end: its JSON-RPC response, or throws its failure. */
function call(request) {
  // Under 2026-07-28 the machine adds the header fields that mirror the body (Mcp-Method, Mcp-Name).
  const operation = new Operation(CONFIG, request, now())
  const onInput = args.snapshot ? () => stopHere(operation) : answerTo
  return runOperation(operation, { exchange, now, onInput, onEvent })
}

/** The host stops at a question: the operation's snapshot to the file, and the process ends. */
function stopHere(operation) {
  writeFileSync(args.snapshot, JSON.stringify(operation.snapshot(now())))
  console.log(JSON.stringify({ snapshot: args.snapshot, violations, served }))
  process.exit(violations.length === 0 ? 0 : 1)
}

// ------------------------------------------------------------------ the conversation

const textOf = (response) => response?.result?.content?.[0]?.text
const onEvent = (e) => e.type === 'violation' && violations.push(`${e.rule}: ${e.message}`)

/**
 * The call as a user writes it: one McpClient over this file's recording exchange. Its session writes
 * the request (a 2026-07-28 `_meta`, or in the 2025-11-25-based modes the `initialize` handshake first,
 * then the agreed version and the server's session id on every request).
 */
function greet() {
  const client = new McpClient(CONFIG.url, {
    mode: args.mode,
    capabilities: { elicitation: { form: {} } },
    clientInfo: { name: 'mrtr-e2e-client', version: '1.0.0' },
    exchange,
    defaultRetryMs: CONFIG.defaultRetryMs,
  })
  return client.request('tools/call', { name: 'greet', arguments: {} }, { now, onInput: answerTo, onEvent })
}

/** The restart scenario's first half: a raw Operation, stopped at its first question by `stopHere`. */
function greetUntilTheQuestion() {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': PROTOCOL,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  }
  return call({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet', arguments: {}, _meta: meta } })
}

const deadline = setTimeout(() => {
  console.log(JSON.stringify({ error: `timed out after ${args['timeout-ms']} ms`, violations, served }))
  process.exit(1)
}, Number(args['timeout-ms']))
try {
  const response = await (args.snapshot ? greetUntilTheQuestion() : greet())
  const text = textOf(response)
  console.log(JSON.stringify({ text, violations, served }))
  process.exitCode = text && violations.length === 0 && !response.error ? 0 : 1
} catch (e) {
  console.log(JSON.stringify({ error: String(e?.message ?? e), violations, served }))
  process.exitCode = 1
}
clearTimeout(deadline)
