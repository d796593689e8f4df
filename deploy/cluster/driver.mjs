// The cluster's load driver (issue #14): N concurrent `plan` operations on mrtr's client machines
// (Node binding), spread over the modes, against one URL (a balancer, or one instance).
//
//   node deploy/cluster/driver.mjs --url http://127.0.0.1:PORT --operations N [--concurrency C] \
//     --modes mrtr,tasks,sep-1858,sep-1335,legacy --record DIR --out RESULTS.json --deadline-ms 30000 \
//     [--hedge-ms MS] [--max-hedges N]
//
// Operation n of a mode is `<mode>-<n>` (n from 1): `tools/call plan {op, rounds}` at `${url}/mcp/${mode}`,
// rounds alternating 2, 3. At most C run at once (all N by default). Each answers as a user would (elicitation `name` -> "Ada",
// `ok` -> true; sampling -> "sunny"; roots -> file:///trips) and completes when the tool's text is
// `planned <op> for Ada: sunny (1 roots)`.
// Every call is one mrtr `Operation` (Node binding) driven over this driver's recorded node:http exchange
// (by `runOperation`, or in the mrtr mode by mrtrOp), answering every question through `answer`:
// - mrtr (2026-07-28): the operation sends the call, builds each retry and hedges each round; this driver runs
//   it itself (mrtrOp), to cut a hedged round's losing copies.
// - tasks (2026-07-28 + Tasks extension): `tools/call` declaring the extension; the operation follows
//   the task (`tasks/get` every pollIntervalMs, `tasks/update` for each input_required round).
// - sep-1858, sep-1335, legacy (2025-11-25): `initialize`, `notifications/initialized`, then the call is one
//   operation in that mode (the questions off the stream, the answers POSTed, streams resumed).
//
// Faults (a connection refused or cut; 502/504 from the balancer, 503 from an instance without its store)
// are the operation's to handle, as the protocol allows, never by restarting a call whose questions were
// answered: what reached no instance goes again after a backoff (50 ms doubling to 1 s, never sooner
// than a Retry-After):
// - mrtr, tasks: the same JSON-RPC request again under a new id (sealed state replays on any instance;
//   a final request retried gets the committed response; tasks/get and tasks/update are repeatable);
// - the SSE modes: the same HTTP request (a carrier POST, an answers POST, a resuming GET); a stream cut
//   after its head is resumed (Last-Event-ID / the rel="stream" URL). Only a call that fails before any
//   question was answered is started again (new id).
// At --deadline-ms from its start an unfinished operation is lost; its connections are dropped.
//
// Hedged rounds (mrtr mode, --hedge-ms > 0, the default 50): the operation's own (mrtr::client::Operation's
// `hedgeAfterMs`, `maxHedges`): a round whose copies have no response head `hedgeAfterMs` after it went is sent
// again to the URL (the balancer picks an instance) under a new JSON-RPC id, at most --max-hedges (default 6)
// copies on top of the first; the first response wins, a `state-replayed` refusal is no answer while another
// copy may still give one. This driver does the HTTP and picks `hedgeAfterMs` when an operation starts: the
// 95th percentile of the last 200 round times of this run (request to response head, every copy that got
// one from an instance), at least --hedge-ms (1000 ms, at least --hedge-ms, until 50 were seen). The copies
// race; once a round has its answer (when the next round goes, or the operation is done) the driver cuts the
// losing copies still open and tells the operation (handleEnd). Every copy is recorded as its own exchange (a
// cut one: its request, and its response as far as it came).
//
// Records: DIR/<op>.jsonl, every HTTP exchange of the operation in the HTTP-entry format (as
// e2e/transports/client.mjs writes it, bodies only when JSON; `at` in ms since the driver's start), each
// checkable alone:
// `mrtr check FILE --protocol 2026-07-28`, or `--protocol 2025-11-25 [--transport sep-1858|sep-1335]`.
// RESULTS.json: {"t0": epoch ms, "ops": [{op, mode, started, finished, ok, rounds, attempts, hedges,
// servedBy, error?, violations?}]}, times in ms since t0; `rounds`: the tool's rounds answered; `attempts`:
// 1 + the requests re-sent after a fault; `hedges`: the copies of rounds sent by hedging; `servedBy`: the
// x-served-by values seen, in order of first sight.
// Prints one summary line per mode. Exits 0 whatever the outcomes: the script judges.
import http from 'node:http'
import { mkdirSync, writeFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { jsonOrText, recordedBlock } from '../../e2e/recording.mjs'

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    operations: { type: 'string', default: '200' },
    modes: { type: 'string', default: 'mrtr,tasks,sep-1858,sep-1335,legacy' },
    record: { type: 'string' },
    out: { type: 'string' },
    concurrency: { type: 'string' },
    'deadline-ms': { type: 'string', default: '30000' },
    'hedge-ms': { type: 'string', default: '50' },
    'max-hedges': { type: 'string', default: '6' },
  },
})
const MODES = ['mrtr', 'tasks', 'sep-1858', 'sep-1335', 'legacy']
const modes = args.modes.split(',').filter(Boolean)
if (!args.url || !args.record || !args.out || !modes.length || modes.some((m) => !MODES.includes(m))) {
  console.error(`usage: node driver.mjs --url URL --operations N [--concurrency C] --modes ${MODES.join(',')} --record DIR --out RESULTS.json [--deadline-ms MS]`)
  process.exit(2)
}

const BINDING = new URL('../../bindings-node/index.mjs', import.meta.url).href
const { Operation, SseDecoder, runOperation } = await import(BINDING)

const MRTR = '2026-07-28'
const LEGACY = '2025-11-25'
const TRANSPORT = { mrtr: MRTR, tasks: MRTR, 'sep-1858': 'sep-1858', 'sep-1335': 'sep-1335', legacy: LEGACY }
const TASKS = 'io.modelcontextprotocol/tasks'
const CLIENT_INFO = { name: 'mrtr-cluster-driver', version: '1.0.0' }
const CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} }
const ELICITED = { name: 'Ada', ok: true }
const SAMPLED = { role: 'assistant', content: { type: 'text', text: 'sunny' }, model: 'm' }
const ROOTS = { roots: [{ uri: 'file:///trips' }] }
// An HTTP status meaning no instance could serve the request now: the balancer found none alive (502,
// 504), or the instance could not reach its store (503). Worth sending again.
const UNREACHED = new Set([502, 503, 504])

const t0 = Date.now()
const start = performance.now()
const now = () => Math.floor(performance.now() - start)
const backoff = (attempt) => Math.min(1000, 50 * 2 ** attempt)
mkdirSync(args.record, { recursive: true })

// ------------------------------------------------------------------ one operation's bookkeeping

let nextId = 1
class Lost extends Error {}
class Op {
  constructor(mode, n) {
    this.mode = mode
    this.id = `${mode}-${n}`
    this.rounds = n % 2 === 1 ? 2 : 3
    this.url = `${args.url.replace(/\/$/, '')}/mcp/${mode}`
    this.lines = [] // the recording, written once at the end (no synchronous I/O under load)
    this.exchanges = 0
    this.resent = 0
    this.hedges = 0 // copies of a round sent by hedging (not counted in `resent`)
    this.asked = new Set() // the tool's rounds whose questions were answered
    this.served = new Set()
    this.violations = []
    this.session = null
    this.retryMs = 0 // the last SSE `retry` the server sent
    this.notBefore = 0 // when a Retry-After lets the next re-send go
    this.over = false // the deadline passed: start nothing more
    this.requests = new Set() // in flight, to drop at the deadline
    this.timers = new Set()
    this.lost = new Promise((_, reject) => (this.lose = () => reject(new Lost('deadline'))))
    this.lost.catch(() => {})
  }
  /** The wait before re-sending after `attempt` faults: growing, and never sooner than the server asked. */
  delay(attempt) {
    return Math.max(backoff(attempt), this.retryMs, this.notBefore - now())
  }
  /** A JSON-RPC id unique in the whole run (each retry, re-send and hedged copy takes a new one), so that
   * no two requests in flight share one, whatever a server derives from it. */
  fresh() {
    return nextId++
  }
  record(from, http) {
    this.lines.push(JSON.stringify({ from, at: now(), http }))
  }
  after(ms, fn, ...args) {
    if (this.over) return null
    const timer = setTimeout(() => (this.timers.delete(timer), this.over || fn(...args)), ms)
    this.timers.add(timer)
    return timer
  }
  sleep(ms) {
    return new Promise((resolve) => this.after(ms, resolve))
  }
  cancel(timer) {
    clearTimeout(timer)
    this.timers.delete(timer)
  }
  /** The deadline: drop every connection and timer; the operation's promise rejects with Lost. */
  expire() {
    this.over = true
    for (const req of this.requests) req.destroy()
    for (const timer of this.timers) clearTimeout(timer)
    this.lose()
  }
}

// ------------------------------------------------------------------ one HTTP exchange, recorded

const json = jsonOrText
const recorded = recordedBlock

/**
 * Sends `request` ({method, url, headers, body}) for `op` and reports its response through
 * `on.head(status, fields)`, `on.body(chunk)` and once `on.end({status, cut})` (`status` null when no
 * response came; `cut` when the connection dropped before the response's end), recording both sides.
 */
function exchange(op, request, on) {
  if (op.over) return null
  const id = `x${++op.exchanges}`
  const body = request.body === undefined ? null : Buffer.from(JSON.stringify(request.body))
  const { method, url } = request
  op.record('client', { exchange: id, method, url, headers: request.headers, ...(body ? { body: request.body } : {}) })
  const headers = { ...request.headers, ...(body ? { 'content-length': String(body.length) } : {}) }
  // A connection per request, as a client behind a TCP round robin needs to reach each instance in turn.
  const req = http.request(request.url, { method: request.method, headers, agent: false })
  op.requests.add(req)
  let status = null
  let ended = false
  let finish = null // once a response came: records its end, then ends
  const end = (cut) => {
    if (ended) return
    ended = true
    op.requests.delete(req)
    if (!op.over) on.end({ status, cut })
  }
  req.on('error', () => (finish ? finish(true) : end(true)))
  req.on('response', (res) => {
    const fields = Object.fromEntries(Object.entries(res.headers).map(([n, v]) => [n, Array.isArray(v) ? v.join(', ') : String(v)]))
    status = res.statusCode
    if (fields['x-served-by']) op.served.add(fields['x-served-by'])
    if (fields['mcp-session-id']) op.session ??= fields['mcp-session-id']
    if (/^\d+$/.test(fields['retry-after'] ?? '')) op.notBefore = now() + 1000 * Number(fields['retry-after'])
    op.record('server', { exchange: id, status, headers: fields })
    // The recording's view of the body: event blocks as they come, or one JSON body at the end.
    const stream = /^text\/event-stream\b/i.test(fields['content-type'] ?? '') ? new SseDecoder() : null
    const chunks = []
    const blocks = () =>
      [...stream.events()].map((block) => {
        if (block.retry !== undefined) op.retryMs = block.retry
        return recorded(block)
      })
    on.head(status, fields)
    res.on('data', (chunk) => {
      if (stream) {
        stream.feed(chunk)
        const events = blocks()
        if (events.length) op.record('server', { exchange: id, events })
      } else chunks.push(chunk)
      if (!op.over) on.body(chunk)
    })
    finish = (cut) => {
      if (ended) return
      const entry = { exchange: id, end: true }
      if (stream) {
        stream.finish()
        const events = blocks()
        if (events.length) entry.events = events
      } else if (chunks.length && /^application\/json\b/i.test(fields['content-type'] ?? '')) {
        // Only a JSON body is a message; a balancer's HTML error page is left out (its status tells).
        entry.body = json(Buffer.concat(chunks).toString('utf8'))
      }
      op.record('server', entry)
      end(cut)
    }
    res.on('end', () => finish(false))
    res.on('error', () => finish(true))
    res.on('close', () => finish(!res.complete))
  })
  if (body) req.write(body)
  req.end()
  return req
}

// ------------------------------------------------------------------ hedged rounds, stalled exchanges: the core's

// Hedging is the operation's (mrtr::client::Operation, `hedgeAfterMs`, `maxHedges`): a round whose copies
// have no response head `hedgeAfterMs` after it went is sent again under a new id, the first response wins
// (mrtr rounds; tasks: the call, tasks/get, tasks/update). The SEP modes give a stalled exchange up after
// `stallMs` instead (resumed, or sent again; the wait doubles with each give-up in a row). This driver only
// picks the wait for each new operation, from the exchange times of its own mode in this run.
const hedgeFloor = Number(args['hedge-ms']) // 0: no hedging
const maxHedges = Number(args['max-hedges'])
const HEDGE_QUANTILE = 0.95
const HEDGE_WINDOW = 200 // the last round times kept
const HEDGE_WARMUP = 20 // exchange times of the mode seen before the quantile is used
// hedgeAfterMs until then (at least --hedge-ms): cautious, as the first rounds to answer are the fastest, and
// a copy of a round in a burst of first requests only adds to the queue it waits in.
const HEDGE_START_MS = 1000
// Per mode, how long (ms) its last exchanges took from their request to their response head: every copy
// that got a head from an instance (not a balancer's 502/504 nor a 503), whether or not it won. One that
// never got a head (it hung, and was cut) is not in it, so a hang does not raise the wait.
const roundTimes = new Map()

/** The wait of an operation of `mode` starting now: the 95th percentile of the mode's last HEDGE_WINDOW
 * exchange times, at least --hedge-ms (HEDGE_START_MS, at least --hedge-ms, until HEDGE_WARMUP were seen). */
function hedgeAfterMs(mode) {
  const times = roundTimes.get(mode) ?? []
  if (times.length < HEDGE_WARMUP) return jittered(Math.max(hedgeFloor, HEDGE_START_MS))
  const sorted = [...times].sort((a, b) => a - b)
  return jittered(Math.max(hedgeFloor, sorted[Math.floor(HEDGE_QUANTILE * (sorted.length - 1))]))
}

/** `ms` give or take a quarter. Operations that waited the same time would send their copies in step: behind
 * a plain round robin the same operations' copies would then reach the same (hung) instance every time. */
function jittered(ms) {
  return Math.round(ms * (0.75 + 0.5 * Math.random()))
}

/** The hedging of an operation of `mode` starting now (none with --hedge-ms 0). */
function hedged(mode) {
  return hedgeFloor > 0 ? { hedgeAfterMs: hedgeAfterMs(mode), maxHedges } : {}
}

function roundTime(mode, ms) {
  if (!roundTimes.has(mode)) roundTimes.set(mode, [])
  const times = roundTimes.get(mode)
  times.push(ms)
  if (times.length > HEDGE_WINDOW) times.shift()
}

// ------------------------------------------------------------------ the user's answers

/** The tool's round a question belongs to (1 the name, 2 sampling and roots, 3 the confirmation). */
function roundOf(question) {
  if (question.method !== 'elicitation/create') return 2
  return 'ok' in (question.params?.requestedSchema?.properties ?? {}) ? 3 : 1
}

/** The result answering one question ({method, params}), or null for a method this client lacks. */
function answer(op, question) {
  const result = (() => {
    switch (question.method) {
      case 'elicitation/create': {
        const keys = Object.keys(question.params?.requestedSchema?.properties ?? {})
        if (!keys.every((k) => k in ELICITED)) return { action: 'decline' }
        return { action: 'accept', content: Object.fromEntries(keys.map((k) => [k, ELICITED[k]])) }
      }
      case 'sampling/createMessage':
        return SAMPLED
      case 'roots/list':
        return ROOTS
      case 'ping':
        return {}
      default:
        return null
    }
  })()
  if (result && question.method !== 'ping') op.asked.add(roundOf(question))
  return result
}

const answers = (op, inputRequests) => Object.fromEntries(Object.entries(inputRequests).map(([k, q]) => [k, answer(op, q)]))

// ------------------------------------------------------------------ one JSON-RPC call: an mrtr Operation

// What the operation does after a fault: up to this many tries of a request in a row, waiting 50 ms
// doubling to 1 s (never sooner than a Retry-After) when a request reached no instance.
// `plan` asks before any effect (and `initialize` has none), so every first request here is harmless
// twice (`idempotent`): without it the operation would neither hedge it nor send it again once an
// instance may have taken it (a 502 from the killed one, a cut), and those calls would fail.
const RESENDS = { maxResends: 20, backoffMs: 50, backoffMaxMs: 1000, idempotent: true }

/**
 * Runs `message` as one Operation to its final JSON-RPC response, over this driver's recorded exchange.
 * The operation sends each retry and follows each task, re-sends what a fault cut or what reached no
 * instance, and begins a stream mode's call again only while no question was answered.
 */
function operate(op, config, message) {
  const operation = new Operation({ ...config, ...RESENDS }, message, now())
  const seen = new Set() // a request seen before (but its id) was sent again
  const send = (request, on) => {
    const { id, ...rest } = request.body ?? {}
    const key = `${request.method} ${request.url} ${JSON.stringify(rest)}`
    if (seen.has(key) && rest.method !== 'tasks/get') op.resent++
    seen.add(key)
    const sent = now()
    const head = (status, headers) => {
      if (!UNREACHED.has(status)) roundTime(op.mode, now() - sent)
      on.head(status, headers)
    }
    const req = exchange(op, request, { ...on, head })
    return () => req?.destroy() // what runOperation calls to cut an exchange the operation abandoned
  }
  const onInput = (question) => {
    const result = answer(op, question)
    if (result === null) throw new Error(`no answer for ${question.method}`)
    return result
  }
  const onEvent = (e) => e.type === 'violation' && op.violations.push(`${e.rule}: ${e.message}`)
  return runOperation(operation, { exchange: send, onInput, onEvent, now })
}

const plan = (op, id, meta) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'plan', arguments: { op: op.id, rounds: op.rounds }, ...(meta ? { _meta: meta } : {}) },
})
const meta = (capabilities = CAPABILITIES) => ({
  'io.modelcontextprotocol/protocolVersion': MRTR,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': capabilities,
})
const mrtrConfig = (op) => ({ mode: MRTR, url: op.url, headers: { 'mcp-protocol-version': MRTR } })
const refused = (what, response) => new Error(`${what}: error ${response.error.code}: ${response.error.message}`)

// ------------------------------------------------------------------ the modes

/**
 * MRTR: one Operation sends the call and each retry, re-sends what a fault cut, and hedges each round (with
 * --hedge-ms > 0: `hedgeAfterMs` from hedgeAfterMs(), `maxHedges` from --max-hedges). This driver runs it in
 * the documented drain order itself (not with runOperation, which resolves only once every exchange ended)
 * and cuts the exchanges whose answer no longer matters: when a new round goes, the open copies of earlier
 * rounds (a hedged round's losers); once the operation is done, every open one. Each is cut, then
 * `handleEnd`ed.
 */
function mrtrOp(op) {
  const operation = new Operation({ ...mrtrConfig(op), ...RESENDS, ...hedged(op.mode) }, plan(op, op.fresh(), meta()), now())
  return new Promise((resolve, reject) => {
    const open = new Map() // exchange number -> {req, round (its request without the id), sent (ms)}
    const seen = new Set() // rounds sent before
    let timer = null
    let outcome = null
    let stopped = false
    const stop = (error) => {
      if (stopped) return
      stopped = true
      clearTimeout(timer)
      for (const n of [...open.keys()]) {
        try {
          cut(n)
        } catch {} // the operation is given up: what it says of a cut no longer matters
      }
      if (error) reject(error)
    }
    op.lost.catch(() => stop()) // the deadline: run() reports it
    const guarded = (f) => {
      if (stopped) return
      try {
        f()
        pump()
      } catch (e) {
        stop(e) // the machine refused an input: a bug here or in mrtr
      }
    }
    /** Cuts the open exchange `n` and tells the operation it ended. */
    const cut = (n) => {
      const x = open.get(n)
      if (!x) return
      open.delete(n)
      x.req?.destroy()
      operation.handleEnd(n, now())
    }
    const send = (request) => {
      const round = JSON.stringify({ ...request.body, id: undefined })
      const copies = [...open.values()].filter((x) => x.round === round).length
      if (copies > 0) op.hedges++ // a copy of the round while another is in flight: a hedge
      else if (seen.has(round)) op.resent++ // the round again after a fault
      seen.add(round)
      // A new round: the copies of the earlier one still open lost (its answer came from another).
      for (const [n, x] of [...open]) if (x.round !== round) cut(n)
      const x = { req: null, round, sent: now() }
      open.set(request.exchange, x)
      x.req = exchange(op, request, {
        head: (status, headers) =>
          guarded(() => {
            if (!open.has(request.exchange)) return
            if (!UNREACHED.has(status)) roundTime(op.mode, now() - x.sent)
            operation.handleHead(request.exchange, status, headers, now())
          }),
        body: (chunk) => guarded(() => open.has(request.exchange) && operation.handleBody(request.exchange, chunk, now())),
        end: () =>
          guarded(() => {
            if (!open.delete(request.exchange)) return
            operation.handleEnd(request.exchange, now())
          }),
      })
    }
    const pump = () => {
      for (let again = true; again && !stopped; ) {
        again = false
        for (let request; (request = operation.pollTransmit()); ) send(request)
        for (let e; (e = operation.pollEvent()); ) {
          if (e.type === 'done' || e.type === 'failed') outcome = e
          else if (e.type === 'violation') op.violations.push(`${e.rule}: ${e.message}`)
          else if (e.type === 'inputRequired') {
            for (const [key, question] of Object.entries(e.requests)) {
              const result = answer(op, question)
              if (result === null) throw new Error(`no answer for ${question.method}`)
              operation.answer(key, result, now())
            }
            again = true // an answer is an input: drain the transmits again
          }
        }
      }
      if (stopped) return
      if (outcome) {
        // Done: the exchanges still open (a final round's losing copies) are cut, which drains the operation.
        for (const n of [...open.keys()]) cut(n)
        while (operation.pollEvent());
        if (!operation.drained) return stop(new Error('the operation is over but not drained'))
        stopped = true
        clearTimeout(timer)
        if (outcome.type === 'done') resolve(outcome.response)
        else reject(new Error(`${outcome.rule}: ${outcome.message}`))
        return
      }
      clearTimeout(timer)
      const due = operation.pollTimeout()
      timer = due === null ? null : setTimeout(wake, Math.max(0, due - now()), due)
    }
    const wake = (due) => {
      const t = now()
      if (t < due) return (timer = setTimeout(wake, due - t, due)) // a timer may fire a little early
      guarded(() => operation.handleTimeout(t))
    }
    guarded(() => {})
  })
}

/** Tasks: the call creates a task; the operation polls it and answers each input_required with tasks/update.
 * Hedged as MRTR rounds are: the call (a second task would ask and wait, with no effect), each `tasks/get`
 * (a read) and each `tasks/update` (the open round's keys only). */
function tasksOp(op) {
  const declared = meta({ ...CAPABILITIES, extensions: { [TASKS]: {} } })
  return operate(op, { ...mrtrConfig(op), taskPollMs: 100, ...hedged(op.mode) }, plan(op, op.fresh(), declared))
}

/** SEP-1858, SEP-1335, 2025-11-25: initialize, then the call as one operation in the mode. */
async function streamOp(op) {
  const mode = TRANSPORT[op.mode]
  const init = {
    jsonrpc: '2.0',
    id: op.fresh(),
    method: 'initialize',
    params: { protocolVersion: LEGACY, capabilities: CAPABILITIES, clientInfo: CLIENT_INFO },
  }
  // The SEP modes give a stalled exchange up (stallMs: a resume or a POST of answers goes again, a stream
  // resumes from its last event, the call's POST begins again): a hung instance holds nothing of the call.
  // Not the legacy mode: its call lives on the instance that holds its stream.
  const stall = op.mode === 'legacy' || hedgeFloor === 0 ? {} : { stallMs: hedgeAfterMs(op.mode) }
  // No MCP-Protocol-Version before one is agreed (as peers/mrtr_client.mjs).
  const ready = await operate(op, { mode, url: op.url, headers: {}, ...stall }, init)
  if (ready.error) throw refused('initialize', ready)
  const headers = { 'mcp-protocol-version': LEGACY, ...(op.session ? { 'mcp-session-id': op.session } : {}) }
  await notify(op, headers, 'notifications/initialized', stall.stallMs ?? 0)
  return operate(op, { mode, url: op.url, headers, defaultRetryMs: 100, ...stall }, plan(op, op.fresh()))
}

/** A notification: one POST (202 expected), sent again while it reaches no instance, or (stallMs > 0)
 * once it had no answer for stallMs (cut: a hung instance; a notification is harmless twice). */
async function notify(op, headers, method, stallMs = 0) {
  const body = { jsonrpc: '2.0', method }
  const all = { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  for (let attempt = 0; ; attempt++) {
    const status = await new Promise((resolve) => {
      let timer = null
      const done = (r) => {
        clearTimeout(timer)
        resolve(r.status)
      }
      const req = exchange(op, { method: 'POST', url: op.url, headers: all, body }, { head: () => clearTimeout(timer), body() {}, end: done })
      if (req && stallMs > 0) timer = setTimeout(() => req.destroy(), stallMs)
    })
    if (status !== null && !UNREACHED.has(status)) {
      if (status !== 202) throw new Error(`${method}: HTTP ${status}, expected 202`)
      return
    }
    op.resent++
    await op.sleep(op.delay(attempt))
  }
}

const RUN = { mrtr: mrtrOp, tasks: tasksOp, 'sep-1858': streamOp, 'sep-1335': streamOp, legacy: streamOp }

// ------------------------------------------------------------------ the run

const expected = (op) => `planned ${op.id} for Ada: sunny (1 roots)`

async function run(op) {
  const started = now()
  let outcome = {}
  try {
    const response = await Promise.race([RUN[op.mode](op), op.lost])
    const text = response.result?.content?.[0]?.text
    if (response.error) outcome.error = `error ${response.error.code}: ${response.error.message}`
    else if (text !== expected(op)) outcome.error = `unexpected result: ${JSON.stringify(response.result).slice(0, 300)}`
    outcome.ok = !outcome.error
  } catch (e) {
    outcome = { ok: false, error: e instanceof Lost ? `lost at the deadline` : String(e?.message ?? e) }
  }
  op.over = true
  const result = {
    op: op.id,
    mode: op.mode,
    started,
    finished: now(),
    ok: outcome.ok,
    rounds: op.asked.size,
    attempts: 1 + op.resent,
    hedges: op.hedges,
    servedBy: [...op.served],
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(op.violations.length ? { violations: op.violations } : {}),
  }
  await writeFile(`${args.record}/${op.id}.jsonl`, op.lines.length ? op.lines.join('\n') + '\n' : '')
  return result
}

const counts = Object.fromEntries(modes.map((m) => [m, 0]))
const ops = Array.from({ length: Number(args.operations) }, (_, i) => {
  const mode = modes[i % modes.length]
  return new Op(mode, ++counts[mode])
})
// At most `concurrency` operations in flight (all of them by default); each has --deadline-ms from its
// own start. Progress goes to stdout as `progress <completed> <total>` lines, for scripts/cluster to time
// its faults by.
const concurrency = Math.max(1, Number(args.concurrency ?? ops.length))
const results = new Array(ops.length)
let next = 0
let settled = 0
const progress = () => console.log(`progress ${settled} ${ops.length}`)
const ticker = setInterval(progress, 200)
async function worker() {
  while (next < ops.length) {
    const i = next++
    const op = ops[i]
    const deadline = setTimeout(() => op.over || op.expire(), Number(args['deadline-ms']))
    results[i] = await run(op)
    clearTimeout(deadline)
    settled += 1
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, ops.length) }, worker))
clearInterval(ticker)
progress()
// hedgeAfterMs: what an operation starting at the end would get.
const hedging = { hedgeMs: hedgeFloor, maxHedges, hedgeAfterMs: hedgeFloor > 0 ? hedgeAfterMs() : null }
writeFileSync(args.out, JSON.stringify({ t0, hedging, ops: results }, null, 1) + '\n')

const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0)
for (const mode of modes) {
  const mine = results.filter((r) => r.mode === mode)
  const done = mine.filter((r) => r.ok)
  const ms = done.map((r) => r.finished - r.started).sort((a, b) => a - b)
  const resent = mine.reduce((n, r) => n + r.attempts - 1, 0)
  const hedges = mine.reduce((n, r) => n + r.hedges, 0)
  const failed = mine.length - done.length
  console.log(`${mode}: started ${mine.length}, completed ${done.length}, failed ${failed}, p50 ${pct(ms, 50)} ms, `
    + `p99 ${pct(ms, 99)} ms, re-sent ${resent}, hedged ${hedges}`)
}
process.exit(0)
