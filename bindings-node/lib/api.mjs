// The JavaScript API of mrtr, one source for both packages: the npm package
// `mrtr` (the napi addon) and `mrtr-wasm` (WebAssembly, for browsers and
// Node), whose build copies this file beside its own backend.mjs.
//
// A backend (./backend.mjs) is the Rust side: the same functions and classes
// in both packages (bindings-node/src/lib.rs, bindings-wasm/src/lib.rs), each
// a line over the core's facade. It takes JSON text (a string or UTF-8 bytes)
// and answers JSON text, and throws an Error whose `code` is a rule id. This
// module decides nothing either: it converts (objects to JSON text and back),
// builds the tables and the error classes from the core's catalogue, and hands
// the backend random bytes when it seals (no function of the API takes a
// nonce, but the test-only __sealWithNonceForTestVectors, which works only over
// a backend built with the cargo feature test-vectors, never a released one).
// Message and object arguments, bindings included, may be given as objects or
// as their JSON text (a string, a Uint8Array or an ArrayBuffer, parsed in Rust
// from the bytes, so its numbers stay exact); ids and requestState are values.
import native, { platformBytes } from './backend.mjs'
import * as api from './api.mjs'

const catalogue = JSON.parse(native.catalogue())
const table = (rows) => Object.freeze(Object.fromEntries(rows.map((r) => [r.key, r.value])))

// ---------------------------------------------------------------- tables

/** Every rule of the core's catalogue, in catalogue order. */
export const RULES = Object.freeze(
  catalogue.rules.map(({ key, id, number, area, code, source }) =>
    Object.freeze({ key, id, number, area, code, source }),
  ),
)
const RULE_BY_ID = new Map(RULES.map((r) => [r.id, r]))
/** Rule ids by the core's variant name: `Rule.RetryIdReused === 'retry-id-reused'`. */
export const Rule = Object.freeze(Object.fromEntries(RULES.map((r) => [r.key, r.id])))
/** Protocol names: `Protocol.V2026_07_28 === '2026-07-28'` (the default). */
export const Protocol = table(catalogue.protocols)
/** Task statuses: `TaskStatus.InputRequired === 'input_required'`. */
export const TaskStatus = table(catalogue.taskStatuses)
/** What `classify` says a message is: `Kind.InputRequired === 'input_required'`. */
export const Kind = table(catalogue.kinds)
/** The core's default `Limits`. */
export const defaultLimits = Object.freeze(catalogue.defaultLimits)
// `classify`'s code holds positions in the core's Kind::ALL and ResultType::ALL: the order of these lists.
const KINDS = catalogue.kinds.map((k) => k.value)
const RESULT_TYPES = [null, ...catalogue.resultTypes.map((t) => t.value)]

// ---------------------------------------------------------------- errors

/**
 * Every failure: `.rule` (the rule id), `.code` (the JSON-RPC code a peer answers with, or null) and
 * `.data` (the members of the error's `data` a refusal carries, as -32021's `requiredCapabilities`, or null).
 */
export class MrtrError extends Error {
  constructor(rule, message, options) {
    super(message, options)
    this.rule = rule
    this.code = RULE_BY_ID.get(rule)?.code ?? null
    this.data = options?.data ?? null
  }
}
Object.defineProperty(MrtrError.prototype, 'name', { value: 'MrtrError', writable: true, configurable: true })

/** One subclass per area of the catalogue, named `<Title>Error`. */
const CLASS_BY_AREA = Object.fromEntries(
  catalogue.areas.map(({ name, title }) => {
    const C = { [`${title}Error`]: class extends MrtrError {} }[`${title}Error`]
    Object.defineProperty(C.prototype, 'name', { value: C.name, writable: true, configurable: true })
    return [name, C]
  }),
)
const byTitle = Object.fromEntries(Object.values(CLASS_BY_AREA).map((C) => [C.name, C]))
export const { ProtocolError, RetryError, StateError, TaskError, AssociationError, TransportError } = byTitle
export const { UsageError, PanicError } = byTitle

/** The MrtrError subclass of `rule`'s area. */
export function errorClassFor(rule) {
  const r = RULE_BY_ID.get(rule)
  if (!r) throw usage(`not a rule id: ${rule}`)
  return CLASS_BY_AREA[r.area]
}

const fail = (rule, message, options) => new (errorClassFor(rule))(rule, message, options)
const usage = (message) => new UsageError(Rule.UsageInvalidArgument, message)

/** What the backend threw, as this API's class. */
function translate(e) {
  if (e instanceof MrtrError) return e
  if (typeof e?.code === 'string' && RULE_BY_ID.has(e.code)) {
    // After a panic the wasm backend starts a fresh instance at once, so that
    // objects of the trapped one fail their instance check from now on.
    if (e.code === Rule.InternalPanic) native.__wbg_reset_state?.()
    return fail(e.code, e.message)
  }
  if (typeof WebAssembly === 'object' && e instanceof WebAssembly.RuntimeError) {
    native.__wbg_reset_state?.() // a trap that is no panic: out of memory, a stack overflow
    return fail(Rule.InternalPanic, `mrtr aborted: ${e.message}`, { cause: e })
  }
  if (e instanceof Error && /stale object from previous Wasm instance/.test(e.message)) {
    return fail(Rule.InternalPanic, 'this object belonged to an instance that panicked; make a new one', { cause: e })
  }
  // The backend's own argument checks (napi's InvalidArg, StringExpected, …).
  return typeof e?.code === 'string' ? usage(e.message) : e
}

function call(f) {
  try {
    return f()
  } catch (e) {
    throw translate(e)
  }
}

/** What a backend's check answered: nothing (null, undefined), or its refusal as JSON text, thrown with its `data`. */
function refused(answer) {
  if (answer === null || answer === undefined) return
  const { rule, message, data } = JSON.parse(answer)
  throw fail(rule, message, { data })
}

// ---------------------------------------------------------------- conversion

/** A JS value as JSON text: too deep to write is over the depth bound, anything else JSON cannot hold a misuse. */
function json(value, what) {
  let s
  try {
    s = JSON.stringify(value)
  } catch (e) {
    if (e instanceof RangeError) throw fail(Rule.LimitExceeded, `${what} is too deep: ${e.message}`)
    throw usage(`${what} is not JSON: ${e.message}`)
  }
  if (s === undefined) throw usage(`${what} is not JSON: ${typeof value}`)
  return s
}

/** A message or object argument: JSON text as is, anything else stringified. */
function text(value, what) {
  if (typeof value === 'string' || value instanceof Uint8Array) return value
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  return json(value, what)
}

/** An optional argument: null and undefined are absent. */
const optional = (value, convert, what) => (value === undefined || value === null ? undefined : convert(value, what))
/** Options (`{protocol, limits, maxRounds}`) as JSON text for the facade, which reads and checks them. */
const settings = (value) => optional(value, json, 'the options')

function string(value, what) {
  if (typeof value !== 'string') throw usage(`${what} is a string`)
  return value
}

/** A non-negative integer (a handle, a time, a key id). */
function whole(value, what) {
  if (!Number.isSafeInteger(value) || value < 0) throw usage(`${what} is a non-negative integer`)
  return value
}

/** Bytes: a Uint8Array, or hex text. */
function bytes(value, what) {
  if (value instanceof Uint8Array) return value
  if (typeof value === 'string' && /^(?:[0-9a-fA-F]{2})*$/.test(value)) {
    return Uint8Array.from(value.match(/../g) ?? [], (h) => parseInt(h, 16))
  }
  throw usage(`${what} is a Uint8Array or hex text`)
}

const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
/** Random bytes for a seal, from the platform's CSPRNG: the backends have no random source of their own. */
const entropy = () => globalThis.crypto.getRandomValues(new Uint8Array(32))

// ---------------------------------------------------------------- operations

/** Classifies and validates one raw message (the hot path: one crossing, no JSON back). */
export function classify(message, options) {
  const t = text(message, 'the message')
  const o = settings(options)
  let s
  try {
    s = native.classify(t, o)
  } catch (e) {
    throw translate(e)
  }
  // Packed by the core (mrtr::facade::classify_packed): a code, `<length>:<method>`, the id.
  const c = s.charCodeAt(0)
  let at = 1
  let method = null
  if (c & 64) {
    const colon = s.indexOf(':', 1)
    at = colon + 1 + Number(s.slice(1, colon))
    method = s.slice(colon + 1, at)
  }
  const id = c & 128 ? Number(s.slice(at)) : c & 256 ? s.slice(at) : null
  return { kind: KINDS[c & 7], id, method, resultType: RESULT_TYPES[(c >> 3) & 3], resultTypePresent: (c & 32) !== 0 }
}

/** Checks a whole conversation: the violations, in transcript order. */
export function check(transcript, config) {
  const t = text(transcript, 'the transcript')
  const c = settings(config)
  return JSON.parse(call(() => native.check(t, c)))
}

/** The incremental checker: `handle` one entry at a time, read `violations()`. */
export class Checker {
  #native
  constructor(config) {
    const c = settings(config)
    this.#native = call(() => new native.Checker(c))
  }
  handle(entry) {
    const t = text(entry, 'the entry')
    call(() => this.#native.handle(t))
  }
  violations() {
    return JSON.parse(call(() => this.#native.violations()))
  }
}

/** Builds the retry of `request` answering `result` with `inputResponses`, under the new `id`. */
export function retry(request, result, inputResponses, id, options) {
  const args = [
    text(request, 'the request'),
    text(result, 'the result'),
    text(inputResponses ?? {}, 'inputResponses'),
    json(id, 'the id'),
    settings(options),
  ]
  return JSON.parse(call(() => native.retry(...args)))
}

/** Builds the `tasks/update` request answering an `input_required` task (Tasks extension, 2026-07-28). */
export function taskUpdate(getRequest, getResponse, inputResponses, id, options) {
  const args = [
    text(getRequest, 'the tasks/get request'),
    text(getResponse, 'the tasks/get response'),
    text(inputResponses ?? {}, 'inputResponses'),
    json(id, 'the id'),
    settings(options),
  ]
  return JSON.parse(call(() => native.taskUpdate(...args)))
}

/** Answers `request` with `input_required`: `inputRequests` and/or `requestState` (null or undefined: absent). */
export function respond(request, inputRequests, requestState, options) {
  const args = [
    text(request, 'the request'),
    optional(inputRequests, text, 'inputRequests'),
    optional(requestState, json, 'requestState'),
    settings(options),
  ]
  return JSON.parse(call(() => native.respond(...args)))
}

/** Reads what `request` carries against what this server `needs`: `{responses, missing, ignored, requestState}`. */
export function resume(request, needs, options) {
  const args = [text(request, 'the request'), text(needs ?? {}, 'needs'), settings(options)]
  return JSON.parse(call(() => native.resume(...args)))
}

/** `from` may become `to`? Returns `to`, or throws a TaskError (`task-status-invalid`, `task-transition-invalid`). */
export function taskTransition(from, to) {
  const args = [string(from, 'from'), string(to, 'to')]
  return call(() => native.taskTransition(...args))
}

/**
 * The client's retry machine (sans-IO). Inputs: `send`, `handleResponse`,
 * `answer`; after each, drain `pollTransmit()` (messages to send, in order),
 * then `pollEvent()`.
 */
export class Client {
  #native
  constructor(config) {
    const c = settings(config)
    this.#native = call(() => new native.Client(c))
  }
  /** Starts `request`; returns its handle. */
  send(request) {
    const t = text(request, 'the request')
    return call(() => this.#native.send(t))
  }
  /** Takes a response message from the server (JSON text is read by the core's byte path). */
  handleResponse(response) {
    const t = text(response, 'the response')
    call(() => this.#native.handleResponse(t))
  }
  /** Answers the input requests of `handle` and queues the retry under the new `id`. */
  answer(handle, inputResponses, id) {
    const args = [whole(handle, 'a handle'), text(inputResponses ?? {}, 'inputResponses'), json(id, 'the id')]
    call(() => this.#native.answer(...args))
  }
  /** Gives up on `handle`. */
  abandon(handle) {
    const h = whole(handle, 'a handle')
    call(() => this.#native.abandon(h))
  }
  /** The next message to send, or null. */
  pollTransmit() {
    const t = call(() => this.#native.pollTransmit())
    return t == null ? null : JSON.parse(t)
  }
  /** The next event (`inputRequired`, `retryNow`, `done`), or null. */
  pollEvent() {
    const t = call(() => this.#native.pollEvent())
    return t == null ? null : JSON.parse(t)
  }
  /** Drains `pollTransmit()`. */
  *transmits() {
    for (let m = this.pollTransmit(); m !== null; m = this.pollTransmit()) yield m
  }
  /** Drains `pollEvent()`. */
  *events() {
    for (let e = this.pollEvent(); e !== null; e = this.pollEvent()) yield e
  }
}

// ---------------------------------------------------------------- transports

/** Bytes of a body or a stream: a Uint8Array (a Buffer), an ArrayBuffer, or text (its UTF-8). */
function chunk(value, what) {
  if (typeof value === 'string' || value instanceof Uint8Array) return value
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  throw usage(`${what} is a Uint8Array or a string`)
}

/**
 * Header fields as JSON text for the facade, which reads and checks them: a
 * plain object `{name: value}` (null and undefined: none). Anything else (a
 * fetch `Headers`, a `Map`) would stringify to `{}` and lose every field.
 */
function headerFields(value) {
  if (value === undefined || value === null) return undefined
  const proto = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined
  if (proto !== Object.prototype && proto !== null) {
    throw usage('header fields are a plain object {name: value} (from a fetch Headers: Object.fromEntries(headers))')
  }
  return json(value, 'the header fields')
}

const parsed = (t) => (t == null ? null : JSON.parse(t))

/**
 * The incremental event-stream (`text/event-stream`) decoder: `feed` bytes in
 * any chunking, `finish` at the end of the stream, and drain `pollEvent()`:
 * each block as `{event, data, id, retry}` (only the fields it set), blocks
 * without `data` included. An unreadable block (a line that is not UTF-8, a
 * block over `limits.maxMessageBytes`) throws its MrtrError from `pollEvent`;
 * the next call goes on with the next block.
 */
export class SseDecoder {
  #native
  constructor(options) {
    const o = settings(options)
    this.#native = call(() => new native.SseDecoder(o))
  }
  /** Decodes the next bytes of the stream. */
  feed(bytes) {
    const b = chunk(bytes, 'a chunk')
    call(() => this.#native.feed(b))
  }
  /** Ends the stream (an unterminated last block is discarded). */
  finish() {
    call(() => this.#native.finish())
  }
  /** The next block, or null; throws the MrtrError of an unreadable block. */
  pollEvent() {
    return parsed(call(() => this.#native.pollEvent()))
  }
  /** Drains `pollEvent()` (an unreadable block ends the iteration with its error). */
  *events() {
    for (let e = this.pollEvent(); e !== null; e = this.pollEvent()) yield e
  }
}

/** Writes one block (`{event, data, id, retry}`, each optional) as event-stream text. */
export function sseEncode(event) {
  const t = text(event, 'the event')
  return call(() => native.sseEncode(t))
}

/** The backend object of each HTTP machine (HttpCall, Operation), kept out of the public surface. */
const MACHINE = new WeakMap()
/** The backend call `f(machine)` of `self`, its errors as this API's. */
const onMachine = (self, f) => call(() => f(MACHINE.get(self)))

/**
 * What the two HTTP machines share: the inputs of each exchange (head, body bytes, end), timeouts,
 * and the drain (`pollTransmit()`, then `pollEvent()`, then `pollTimeout()`).
 */
class HttpMachine {
  /** Wraps the backend object `make()` builds. */
  constructor(make) {
    MACHINE.set(this, call(make))
  }
  /** The status and header fields (`{name: value}`) of the response to `exchange`. */
  handleHead(exchange, status, headers, now) {
    const args = [whole(exchange, 'an exchange'), whole(status, 'a status'), headerFields(headers), whole(now, 'now')]
    onMachine(this, (m) => m.handleHead(...args))
  }
  /** Bytes of the body of the response to `exchange` (a Uint8Array, or text), in any chunking. */
  handleBody(exchange, bytes, now) {
    const args = [whole(exchange, 'an exchange'), chunk(bytes, 'a body chunk'), whole(now, 'now')]
    onMachine(this, (m) => m.handleBody(...args))
  }
  /** The response to `exchange` ended (closed by the server, or cut). */
  handleEnd(exchange, now) {
    const args = [whole(exchange, 'an exchange'), whole(now, 'now')]
    onMachine(this, (m) => m.handleEnd(...args))
  }
  /** The time `pollTimeout()` named came. */
  handleTimeout(now) {
    const t = whole(now, 'now')
    onMachine(this, (m) => m.handleTimeout(t))
  }
  /** The next HTTP request to send (`{exchange, method, url, headers, body}`), or null. */
  pollTransmit() {
    return parsed(onMachine(this, (m) => m.pollTransmit()))
  }
  /** The next event, or null. */
  pollEvent() {
    return parsed(onMachine(this, (m) => m.pollEvent()))
  }
  /** When (ms) to call `handleTimeout`, or null. */
  pollTimeout() {
    return onMachine(this, (m) => m.pollTimeout()) ?? null
  }
  /** Drains `pollTransmit()`. */
  *transmits() {
    for (let r = this.pollTransmit(); r !== null; r = this.pollTransmit()) yield r
  }
  /** Drains `pollEvent()`. */
  *events() {
    for (let e = this.pollEvent(); e !== null; e = this.pollEvent()) yield e
  }
}

/**
 * The client machine of one JSON-RPC call over HTTP (sans-IO), in any mode
 * (`2026-07-28`, `2025-11-25`, `sep-1858`, `sep-1335`). Inputs: the response
 * head, body bytes and end of each exchange, timeouts, and the host's answers
 * to server requests, each with the time (ms). After each, drain
 * `pollTransmit()` (HTTP requests to send), then `pollEvent()` (`serverRequest`,
 * `message`, `violation`, and last `response` or `failed`), then read
 * `pollTimeout()`.
 */
export class HttpCall extends HttpMachine {
  /** Starts `request` under `config` (`{mode, url, headers, protocol, limits, maxEvents, …}`) at `now` (ms). */
  constructor(config, request, now) {
    const args = [json(config, "the call's configuration"), text(request, 'the request'), whole(now, 'now')]
    super(() => new native.HttpCall(...args))
  }
  /** The host's JSON-RPC response to a server request this call reported. */
  answer(response, now) {
    const args = [text(response, 'the answer'), whole(now, 'now')]
    onMachine(this, (m) => m.answer(...args))
  }
  /** Whether the call is over (its response or its failure was reported). */
  isDone() {
    return onMachine(this, (m) => m.isDone())
  }
  /** `isDone()`. */
  get done() {
    return this.isDone()
  }
}

/**
 * One client operation over HTTP in any transport mode (`mrtr::client::Operation`): the rounds of
 * `2026-07-28` (each retry under a new id, with the answers and the exact `requestState`) or the
 * server requests on a call's stream (`2025-11-25`, `sep-1858`, `sep-1335`), each question answered
 * the same way, `answer(key, result)`. Drain after every input: `transmits()`, then `events()`
 * (`inputRequired`, `message`, `violation`, and last `done` or `failed`; an answer given there is an
 * input: drain again), then `pollTimeout()`. `runOperation` does it over real HTTP. Node only for
 * now: the wasm package leaves it out (bindings-wasm/README.md).
 */
export class Operation extends HttpMachine {
  /** Starts `request` under `config` (an `HttpCall` configuration plus `maxRounds`, `maxResends`, …) at `now` (ms). */
  constructor(config, request, now) {
    if (typeof native.Operation !== 'function') throw usage('this backend has no Operation')
    const args = [json(config, "the operation's configuration"), text(request, 'the request'), whole(now, 'now')]
    super(() => new native.Operation(...args))
  }
  /** Answers the question `key` of an `inputRequired` event with `result` (`{action, content}`, …). */
  answer(key, result, now) {
    if (typeof key !== 'string') throw usage('a question key is a string')
    const args = [key, text(result, 'the answer'), whole(now, 'now')]
    onMachine(this, (m) => m.answer(...args))
  }
  /** Whether the final event was taken and no exchange is open: the operation may be dropped. */
  isDrained() {
    return onMachine(this, (m) => m.isDrained())
  }
  /** `isDrained()`. */
  get drained() {
    return this.isDrained()
  }
  /**
   * What the operation knows (a plain object), to go on from with `Operation.restore` after the host
   * restarts, in this process or another, in JavaScript or another language: not the configuration
   * (give it again), nor the open exchanges (the round they carried goes again under a new id).
   */
  snapshot(now) {
    const t = whole(now, 'now')
    return JSON.parse(onMachine(this, (m) => m.snapshot(t)))
  }
  /** The operation of `snapshot` under `config` (as the constructor reads it) at `now`. */
  static restore(config, snapshot, now) {
    if (typeof native.Operation !== 'function') throw usage('this backend has no Operation')
    const args = [json(config, "the operation's configuration"), text(snapshot, 'the snapshot'), whole(now, 'now')]
    const op = Object.create(Operation.prototype)
    MACHINE.set(op, call(() => native.Operation.restore(...args)))
    return op
  }
}

/**
 * The HTTP exchange of `runOperation` over `fetch` (the platform's by default): sends `request`
 * (`{method, url, headers, body}`) and reports its response through `on.head(status, headers)`,
 * `on.body(chunk)` as the bytes come, and `on.end()` once, also when the connection fails or is cut.
 */
export function fetchExchange(fetchImpl = globalThis.fetch) {
  return (request, on) => {
    let ended = false
    const end = () => ended || ((ended = true), on.end())
    const init = { method: request.method, headers: request.headers }
    if (request.body !== undefined) init.body = JSON.stringify(request.body)
    ;(async () => {
      const res = await fetchImpl(request.url, init)
      on.head(res.status, Object.fromEntries(res.headers))
      if (res.body) for await (const chunk of res.body) on.body(chunk)
    })().then(end, end)
  }
}

/**
 * Drives `operation` to its end over HTTP, in the documented drain order: `exchange(request, on)`
 * sends each HTTP request it asks for (`fetchExchange()` by default; `on.head(status, headers)`,
 * `on.body(chunk)`, `on.end()`); `onInput(question, key)` answers each question (`{method, params}`),
 * sync or async; `onEvent(event)` hears every event but the last (`inputRequired` before its questions
 * are asked, violations, messages); `now()` is the clock in ms. Resolves with the final JSON-RPC response (a result, or an error the server answered) once
 * the operation is drained; rejects with the failure's MrtrError, or what `onInput` threw.
 */
export function runOperation(operation, { exchange = fetchExchange(), onInput, onEvent = () => {}, now } = {}) {
  const clock = now ?? (() => Math.floor(performance.now()))
  return new Promise((resolve, reject) => {
    let timer = null
    let outcome = null
    let stopped = false
    const stop = (error) => {
      stopped = true
      clearTimeout(timer)
      reject(error)
    }
    const answer = (key, result) => {
      if (stopped) return
      try {
        operation.answer(key, result, clock())
      } catch (e) {
        return stop(e)
      }
      pump()
    }
    const ask = (question, key) => {
      Promise.resolve()
        .then(() => onInput(question, key))
        .then((result) => answer(key, result), stop)
    }
    const pump = () => {
      if (stopped) return
      for (const request of operation.transmits()) send(request)
      for (const e of operation.events()) {
        if (e.type === 'done' || e.type === 'failed') {
          outcome = e
          continue
        }
        onEvent(e)
        if (e.type === 'inputRequired') for (const [key, question] of Object.entries(e.requests)) ask(question, key)
      }
      clearTimeout(timer)
      const due = operation.pollTimeout()
      timer = due === null ? null : setTimeout(wake, Math.max(0, due - clock()), due)
      if (!outcome || !operation.drained) return
      stopped = true
      clearTimeout(timer)
      if (outcome.type === 'done') resolve(outcome.response)
      else reject(fail(outcome.rule, outcome.message))
    }
    const wake = (due) => {
      const t = clock()
      if (t < due) return (timer = setTimeout(wake, due - t, due)) // a timer may fire a little early
      operation.handleTimeout(t)
      pump()
    }
    const guarded = (f) => (...args) => {
      if (stopped) return
      try {
        f(...args)
      } catch (e) {
        return stop(e) // the machine refused an input: a bug in the host or in mrtr
      }
      pump()
    }
    const send = (request) =>
      exchange(request, {
        head: guarded((status, headers) => operation.handleHead(request.exchange, status, headers, clock())),
        body: guarded((chunk) => operation.handleBody(request.exchange, chunk, clock())),
        end: guarded(() => operation.handleEnd(request.exchange, clock())),
      })
    pump()
  })
}

/**
 * A client's session: what it declares once (`{protocol, capabilities, clientInfo, firstId}`), and the
 * requests it makes from that, each under a fresh id with the `_meta` its protocol wants on every request
 * (in `2026-07-28`: the protocol version, the capabilities, the client's name).
 */
export class Session {
  #native
  constructor(config = {}) {
    if (typeof native.Session !== 'function') throw usage('this backend has no Session')
    const c = json(config, "the session's configuration")
    this.#native = call(() => new native.Session(c))
  }
  /** The request of `method` with `params` (an object, or none) under the next id. */
  request(method, params) {
    const args = [string(method, 'the method'), optional(params, text, 'the params')]
    return JSON.parse(call(() => this.#native.request(...args)))
  }
  /** The `tools/call` request of the tool `name` with `args`. */
  callTool(name, args) {
    const a = [string(name, 'the name'), optional(args, text, 'the arguments')]
    return JSON.parse(call(() => this.#native.callTool(...a)))
  }
  /** The `prompts/get` request of the prompt `name` with `args`. */
  getPrompt(name, args) {
    const a = [string(name, 'the name'), optional(args, text, 'the arguments')]
    return JSON.parse(call(() => this.#native.getPrompt(...a)))
  }
  /** The `resources/read` request of `uri`. */
  readResource(uri) {
    const u = string(uri, 'the uri')
    return JSON.parse(call(() => this.#native.readResource(u)))
  }
  /** The `initialize` request where the protocol has that handshake (`2025-11-25`), else null. */
  initialize() {
    return parsed(call(() => this.#native.initialize()))
  }
  /** The `notifications/initialized` notification. */
  initialized() {
    return JSON.parse(call(() => this.#native.initialized()))
  }
}

/** A JSON-RPC error the server answered a request with: `.code`, `.data`, and the whole `.response`. */
export class ResponseError extends Error {
  constructor(response) {
    super(response?.error?.message ?? 'the server answered with an error')
    this.code = response?.error?.code ?? null
    this.data = response?.error?.data ?? null
    this.response = response
  }
}
Object.defineProperty(ResponseError.prototype, 'name', { value: 'ResponseError', writable: true, configurable: true })

/**
 * An MCP client over HTTP, in one line a call: `await client.callTool('weather', {city}, {onInput})`. The
 * session writes each request (a fresh id, the `_meta` of what the client declares once); an `Operation`
 * carries it to its final response in `mode`, asking `onInput(question, key)` whatever the server needs
 * on the way. `options`: the session's `protocol`, `capabilities`, `clientInfo`; the operation's `mode`
 * (default `2026-07-28`), `headers`, `maxRounds`, … ; `exchange` (default `fetchExchange()`).
 */
export class McpClient {
  #session
  #config
  #exchange
  #ready = null
  constructor(url, { protocol, capabilities, clientInfo, firstId, exchange, mode = '2026-07-28', ...config } = {}) {
    this.#session = new Session({ protocol: protocol ?? (mode === '2026-07-28' ? undefined : '2025-11-25'), capabilities, clientInfo, firstId })
    this.#config = { ...config, mode, url: string(url, 'the url'), headers: { ...config.headers } }
    this.#exchange = exchange ?? fetchExchange()
  }
  /** Carries the request of `method` with `params` to its final JSON-RPC response (a result, or an error). */
  request(method, params, options = {}) {
    return this.#send((session) => session.request(method, params), options)
  }
  /** The result of the tool `name` on `args`; throws ResponseError when the server answers with an error. */
  callTool(name, args, options) {
    return this.#result((session) => session.callTool(name, args), options)
  }
  /** The prompt `name` with `args`. */
  getPrompt(name, args, options) {
    return this.#result((session) => session.getPrompt(name, args), options)
  }
  /** The contents of the resource `uri`. */
  readResource(uri, options) {
    return this.#result((session) => session.readResource(uri), options)
  }
  /** The final response to the request `build(session)` writes, once the handshake (if any) is done. */
  async #send(build, options = {}) {
    // One handshake for every request; one that failed is tried again by the next request.
    this.#ready ??= this.#handshake(options).catch((e) => {
      this.#ready = null
      throw e
    })
    await this.#ready
    return this.#carry(build(this.#session), options)
  }
  /** Every tool the server lists, following `nextCursor` page by page. */
  listTools(options) {
    return this.#list('tools/list', 'tools', options)
  }
  /** Every prompt the server lists. */
  listPrompts(options) {
    return this.#list('prompts/list', 'prompts', options)
  }
  /** Every resource the server lists. */
  listResources(options) {
    return this.#list('resources/list', 'resources', options)
  }
  async #list(method, field, options) {
    const all = []
    let cursor
    do {
      const params = cursor === undefined ? undefined : { cursor }
      const page = await this.#result((session) => session.request(method, params), options)
      all.push(...(page[field] ?? []))
      cursor = typeof page.nextCursor === 'string' ? page.nextCursor : undefined
    } while (cursor !== undefined)
    return all
  }
  async #result(build, options) {
    const response = await this.#send(build, options)
    if ('error' in response) throw new ResponseError(response)
    return response.result
  }
  #carry(request, { onInput = refuseInput, onEvent, now } = {}, exchange = this.#exchange) {
    const clock = now ?? (() => Math.floor(performance.now()))
    const operation = new Operation(this.#config, request, clock())
    return runOperation(operation, { exchange, onInput, onEvent, now: clock })
  }
  /**
   * Where the protocol settles the client at the start (`2025-11-25`): `initialize`, then
   * `notifications/initialized`; every later request carries the version agreed and the server's
   * `Mcp-Session-Id`, if it gave one.
   */
  async #handshake(options) {
    const init = this.#session.initialize()
    if (init === null) return
    let sessionId = null
    const watching = (request, on) =>
      this.#exchange(request, { ...on, head: (status, headers) => ((sessionId ??= headers['mcp-session-id'] ?? null), on.head(status, headers)) })
    const response = await this.#carry(init, options, watching)
    if ('error' in response) throw new ResponseError(response)
    const headers = this.#config.headers
    headers['mcp-protocol-version'] = string(response.result?.protocolVersion ?? init.params.protocolVersion, 'the protocol version')
    if (sessionId !== null) headers['mcp-session-id'] = sessionId
    const post = { method: 'POST', url: this.#config.url, body: this.#session.initialized() }
    post.headers = { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    await new Promise((resolve) => this.#exchange(post, { head() {}, body() {}, end: resolve }))
  }
}

/** The default `onInput`: the client answers no question it was not given a way to answer. */
function refuseInput(question) {
  throw usage(`the server asked ${question?.method}, and the call has no onInput to answer it`)
}

/**
 * A server's response stream in a mode, for the continuation `key` (the
 * host's name of the call's state), numbering event ids `<key>.<n>` from
 * `first`. Write with `message`, `retry` and `ask`; `take()` the text.
 */
export class ServerStream {
  #native
  constructor(mode, key, first) {
    const args = [string(mode, 'mode'), string(key, 'key'), whole(first, 'first')]
    this.#native = call(() => new native.ServerStream(...args))
  }
  /** The response head's fields (`{name: value}`), with the `rel="stream"` Link to `streamUrl` under SEP-1335. */
  head(streamUrl) {
    const u = optional(streamUrl, string, 'streamUrl')
    return JSON.parse(call(() => this.#native.head(u)))
  }
  /** Writes a JSON-RPC message as an event; returns its id. */
  message(message) {
    const t = text(message, 'the message')
    return call(() => this.#native.message(t))
  }
  /** Writes a `retry` block; returns its id. */
  retry(ms) {
    const m = whole(ms, 'retry')
    return call(() => this.#native.retry(m))
  }
  /** Writes the mode's sequence asking for `requests` (`retryMs`: SEP-1335's `retry`); returns the last id. */
  ask(requests, retryMs) {
    const args = [text(requests, 'the requests'), whole(retryMs, 'retryMs')]
    return call(() => this.#native.ask(...args))
  }
  /** The event-stream text written since the last `take()`. */
  take() {
    return call(() => this.#native.take())
  }
}

/**
 * What an incoming HTTP request asks (`{type: 'call' | 'messages' | 'answers' | 'resume', …}`):
 * `headers` a plain object, `body` its bytes, its text or its JSON value (null or undefined: none, as for a GET).
 */
export function readHttpRequest(mode, method, url, headers, body, options) {
  const args = [
    string(mode, 'mode'),
    string(method, 'method'),
    string(url, 'url'),
    headerFields(headers),
    body === undefined || body === null ? new Uint8Array(0) : text(body, 'the body'),
    settings(options),
  ]
  return JSON.parse(call(() => native.readHttpRequest(...args)))
}

/** The `rel="stream"` URL of the continuation `key` at `endpoint`. */
export function streamUrl(endpoint, key) {
  const args = [string(endpoint, 'endpoint'), string(key, 'key')]
  return call(() => native.streamUrl(...args))
}

/**
 * (2026-07-28, Streamable HTTP) The header fields that mirror `request`'s body, for a client that POSTs it
 * itself (`HttpCall` adds them on its own): `{'mcp-protocol-version', 'mcp-method', 'mcp-name'}`, each
 * where the body has its value (`mcp-name`: `params.name`, `params.uri` or `params.taskId`, by method).
 */
export function mirroredFields(request) {
  const t = text(request, 'the request')
  return JSON.parse(call(() => native.mirroredFields(t)))
}

/** The -32602 answer to a server request that came outside any call in flight, or null (nothing to answer). */
export function unassociatedReply(request) {
  const t = text(request, 'the request')
  return parsed(call(() => native.unassociatedReply(t)))
}

// ---------------------------------------------------------------- sealed state

function keyArgs(key) {
  const k = key ?? {}
  return [
    whole(k.id, 'a key id'),
    string(k.algorithm, "a key's algorithm"),
    optional(k.secret, bytes, "a key's secret"),
    optional(k.master, bytes, "a key's master secret"),
  ]
}

/** Refuses an options object with a key this API does not read: a misspelt guard or context never passes silently. */
function fields(value, allowed, what) {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object') throw usage(`${what} is an object`)
  for (const k of Object.keys(value)) {
    if (!allowed.includes(k)) throw usage(`${what} has no field ${JSON.stringify(k)} (${allowed.join(', ')})`)
  }
  return value
}

/**
 * A binding as JSON text for the facade, which reads and checks it: text (a
 * string or bytes) as it is, so that its numbers stay exact; an object
 * (`{subject | anonymous: true, protocol, method, target, params | paramsDigest}`)
 * stringified, a `paramsDigest` given as bytes in hex.
 */
function bindingText(binding) {
  if (binding !== null && typeof binding === 'object' && binding.paramsDigest instanceof Uint8Array) {
    return json({ ...binding, paramsDigest: hex(binding.paramsDigest) }, 'the binding')
  }
  return text(binding, 'the binding')
}

/** Who a call is for: `{subject}` (the authenticated principal) or `{anonymous: true}`; the core refuses neither and both. */
function subjectOf(who, what) {
  if (who === null || typeof who !== 'object') throw usage(`${what} names {subject} (the authenticated principal) or {anonymous: true}`)
  const anonymous = who.anonymous ?? false
  if (typeof anonymous !== 'boolean') throw usage('anonymous is a boolean')
  return [optional(who.subject, string, 'subject'), anonymous]
}

/** A label as bytes: text (UTF-8) or bytes. */
const label = (value, what) => (typeof value === 'string' || value instanceof Uint8Array ? value : string(value, what))
const token = (t) => (typeof t === 'string' || t instanceof Uint8Array ? t : string(t, 'the token'))
const payload = (p) => (typeof p === 'string' || p instanceof Uint8Array ? p : json(p, 'the payload'))

/**
 * Calls `f` with the replay guard for the backend: the host's function
 * `(stateId, expiry) => boolean`, run synchronously by the core. The backend
 * fails closed when it throws or answers anything but a boolean (the state
 * is refused), and the guard's own exception reaches the caller as it was.
 */
function guarded(guard, f) {
  if (guard === undefined || guard === null) return call(() => f(undefined))
  if (typeof guard !== 'function') throw usage('a guard is a function (stateId, expiry) => boolean')
  let thrown = null
  const js = (stateId, expiry) => {
    let first
    try {
      first = guard(stateId, expiry)
    } catch (e) {
      thrown = { e }
      throw e
    }
    if (typeof first !== 'boolean') {
      thrown = { e: usage('a guard answers true (a first use) or false, synchronously: not a promise') }
      throw thrown.e
    }
    return first
  }
  try {
    return f(js)
  } catch (e) {
    if (thrown) throw thrown.e
    throw translate(e)
  }
}

/** SHA-256 of the canonical JSON of a request's `params` (every param but `inputResponses`, `requestState`, `_meta`; numbers exact from text). */
export function paramsDigest(params) {
  const t = text(params, 'the params')
  return call(() => native.paramsDigest(t))
}

/** The binding of `request` for `{subject}` or `{anonymous: true}`: `{subject | anonymous, protocol, method, target, paramsDigest}`. */
export function bindingFor(request, who, protocol) {
  const args = [text(request, 'the request'), ...subjectOf(who, 'bindingFor'), optional(protocol, string, 'protocol')]
  const b = JSON.parse(call(() => native.bindingFor(...args)))
  return { ...b, paramsDigest: platformBytes(bytes(b.paramsDigest)) }
}

/** What anyone can read off a token without a key (nothing of it authenticated): `{stateId, keyId, algorithm, expiry}`. */
export function inspect(sealed) {
  const t = token(sealed)
  return JSON.parse(call(() => native.inspect(t)))
}

/** The backend's ring of each KeyRing, for SealedRounds and the test vectors (kept off the public object). */
const rings = new WeakMap()

/** Keys by id (AES-256-GCM, XChaCha20-Poly1305): seals with the current one, opens with any. */
export class KeyRing {
  #native
  /**
   * A ring holding `current` (`{id, algorithm, secret}` or `{id, algorithm, master}`), which seals.
   * `options`: `{context}`, the deployment label every token is sealed and opened under (text or
   * bytes, at most 64 bytes), and `{sealBudget}`, the seals each key may make in this process.
   */
  constructor(current, options) {
    const k = keyArgs(current)
    const o = fields(options, ['context', 'sealBudget'], 'the ring options')
    const context = optional(o.context, label, 'context')
    const budget = optional(o.sealBudget, whole, 'sealBudget')
    this.#native = call(() => {
      const ring = new native.KeyRing(...k)
      if (context !== undefined) ring.setContext(context)
      if (budget !== undefined) ring.setSealBudget(budget)
      return ring
    })
    rings.set(this, this.#native)
  }
  /** Adds a key that opens tokens (replacing one with the same id). */
  add(key) {
    const k = keyArgs(key)
    call(() => this.#native.add(...k))
  }
  /** Makes the key with `id` the sealing key; false if the ring lacks it. */
  setCurrent(id) {
    const i = whole(id, 'a key id')
    return call(() => this.#native.setCurrent(i))
  }
  /** Drops the key with `id` (not the current one); false if it could not. */
  remove(id) {
    const i = whole(id, 'a key id')
    return call(() => this.#native.remove(i))
  }
  /** The bound on a token's length, checked before any decoding. */
  setMaxTokenBytes(max) {
    const m = whole(max, 'a token bound')
    call(() => this.#native.setMaxTokenBytes(m))
  }
  /** How many seals the key `id` has made in this process (null: the ring lacks it). */
  seals(id) {
    const i = whole(id, 'a key id')
    return call(() => this.#native.seals(i)) ?? null
  }
  /** Seals `data` bound to `binding`, expiring `ttl` s after `now` (s since the epoch), with a fresh random nonce. */
  seal(binding, now, ttl, data) {
    const args = [bindingText(binding), whole(now, 'now'), whole(ttl, 'ttl'), payload(data), entropy()]
    return call(() => this.#native.seal(...args))
  }
  /** Opens `token` for `binding` at `now`, single-use under `{guard}`: `{payload, stateId, expiry}`, or a StateError. */
  open(sealed, binding, now, options) {
    const { guard } = fields(options, ['guard'], 'the open options')
    const args = [token(sealed), bindingText(binding), whole(now, 'now')]
    const o = guarded(guard, (g) => this.#native.open(...args, g))
    return { payload: platformBytes(o.payload), stateId: o.stateId, expiry: o.expiry }
  }
}

/**
 * Test vectors only: seals with the caller's `nonce`. It works only over a
 * backend built with the cargo feature `test-vectors` (the corpus runner's);
 * a released package has no such backend function and throws a UsageError. A
 * nonce used twice under one AES-GCM key gives its forgery power away.
 */
export function __sealWithNonceForTestVectors(ring, binding, now, ttl, data, nonce) {
  if (!rings.has(ring)) throw usage('the ring is a KeyRing')
  if (typeof native.sealWithNonceForTestVectors !== 'function') {
    throw usage('this build of mrtr seals with random nonces only: test vectors need the cargo feature test-vectors')
  }
  const r = rings.get(ring)
  const args = [bindingText(binding), whole(now, 'now'), whole(ttl, 'ttl'), payload(data), bytes(nonce, 'the nonce')]
  return call(() => native.sealWithNonceForTestVectors(r, ...args))
}

/** The backend's ring and the settings (JSON text) of each SealedRounds, for runTool. */
const deployments = new WeakMap()

/** The JSON text of a call (`{subject | anonymous: true, now}`) and its guard. */
function callOf(who) {
  if (who === undefined || who === null) throw usage('the call is {subject | anonymous: true, now}')
  const { guard, ...c } = fields(who, ['subject', 'anonymous', 'now', 'guard'], 'the call')
  return [json(c, 'the call'), guard]
}

/**
 * A server's rounds with sealed state: the answers of earlier rounds travel in the sealed `requestState`.
 * Built once per deployment (`{ring, ttl = 300, protocol, limits, pinAnswers = true}`); the subject,
 * the clock and the replay guard come with each call.
 */
export class SealedRounds {
  #ring
  #settings
  constructor(settings) {
    const { ring, ...rest } = settings ?? {}
    if (!rings.has(ring)) throw usage('SealedRounds needs a KeyRing as `ring`')
    for (const k of ['subject', 'anonymous', 'now', 'guard']) {
      if (Object.hasOwn(rest, k)) throw usage(`${k} comes with each call: resume(request, needs, {subject | anonymous, now, guard})`)
    }
    this.#ring = rings.get(ring)
    this.#settings = json(rest, 'the settings')
    deployments.set(this, [this.#ring, this.#settings])
  }
  /**
   * This request's answers plus the sealed earlier ones, for `{subject | anonymous: true, now, guard}`:
   * `{answers, missing, ignored, data, round, stateId, expiry}`.
   */
  resume(request, needs, who) {
    const [c, guard] = callOf(who)
    const args = [text(request, 'the request'), text(needs ?? {}, 'needs'), this.#settings, c]
    return JSON.parse(guarded(guard, (g) => this.#ring.resumeRound(...args, g)))
  }
  /** Asks what `round` misses and seals what it has (and `data`), for `{subject | anonymous: true, now}`: the `input_required` response. */
  respond(request, round, needs, data, who) {
    const [c] = callOf(who)
    const args = [
      text(request, 'the request'),
      json(round, 'the round'),
      text(needs ?? {}, 'needs'),
      optional(data, json, 'data'),
      this.#settings,
      c,
      entropy(),
    ]
    return JSON.parse(call(() => this.#ring.respondRound(...args)))
  }
}

// ---------------------------------------------------------------- the server's builders

/**
 * What every request must pass before a server acts on it: its `_meta` (`request-meta-missing`), its
 * HTTP header fields when given (`{headers}`, a plain object; none: it did not come over HTTP,
 * `request-header-mismatch`), then a protocol version among `supported` (`protocol-version-unsupported`,
 * -32022, whose `.data` lists them). Throws the refusal, a ProtocolError; `options`: `{headers, protocol, limits}`.
 */
export function checkRequest(request, supported, options) {
  const { headers, ...o } = fields(options, ['headers', 'protocol', 'limits'], 'the checkRequest options')
  const args = [text(request, 'the request'), headerFields(headers), json(supported, 'the supported versions'), settings(o)]
  refused(call(() => native.checkRequest(...args)))
}

/** The client capabilities `questions` (`{key: input request}`) need that `request` did not declare (one `ClientCapabilities` object), or null. */
export function missingCapabilities(request, questions, options) {
  const args = [text(request, 'the request'), text(questions, 'the questions'), settings(options)]
  return parsed(call(() => native.missingCapabilities(...args)))
}

/** Throws `request-capability-missing` (-32021, `.data.requiredCapabilities` naming them) unless `request` declared every capability `questions` need. */
export function requireCapabilities(request, questions, options) {
  const args = [text(request, 'the request'), text(questions, 'the questions'), settings(options)]
  refused(call(() => native.requireCapabilities(...args)))
}

/** Throws `request-capability-missing` (-32021) unless `request` declared every capability of `required` (a `ClientCapabilities` object, such as an extension). */
export function requireDeclared(request, required, options) {
  const args = [text(request, 'the request'), text(required, 'the required capabilities'), settings(options)]
  refused(call(() => native.requireDeclared(...args)))
}

/**
 * The final response to `request` with `result`: `resultType: "complete"`, `ttlMs: 0` when `request` is a
 * retry (its result must not be cached), and for a cacheable result that names no caching hints the safe
 * ones its schema requires (`ttlMs: 0`, `cacheScope: "private"`). `options`: `{protocol, limits}`.
 */
export function complete(request, result, options) {
  const args = [text(request, 'the request'), text(result, 'the result'), settings(options)]
  return JSON.parse(call(() => native.complete(...args)))
}

/** The response to `request` that starts the task of `record` (a task record: `taskId`, `status`, `createdAt`, `lastUpdatedAt`, `ttlMs`, …). */
export function taskCreated(request, record, options) {
  const args = [text(request, 'the request'), text(record, 'the task record'), settings(options)]
  return JSON.parse(call(() => native.taskCreated(...args)))
}

/** The complete answer to the `tasks/get` `request` for the task of `record`: the fields its status carries. */
export function taskGetResponse(request, record, options) {
  const args = [text(request, 'the request'), text(record, 'the task record'), settings(options)]
  return JSON.parse(call(() => native.taskGetResponse(...args)))
}

// ---------------------------------------------------------------- await-style tools

const parseRequest = (value) => {
  if (typeof value === 'string') return JSON.parse(value)
  if (value instanceof Uint8Array || value instanceof ArrayBuffer) return JSON.parse(new TextDecoder().decode(value))
  return value
}
/** A promise that never settles: what an unanswered ask gives the tool (it is dropped, never resumed). */
const never = () => new Promise(() => {})

/** The questions a tool asks, built by the core (input requests, as `ctx.ask` takes them). */
const questions = Object.freeze({
  /** A form elicitation: `message`, the answer shaped by `requestedSchema`. */
  elicit: (message, requestedSchema) => {
    const args = [string(message, 'the message'), text(requestedSchema, 'the requested schema')]
    return JSON.parse(call(() => native.questionElicit(...args)))
  },
  /** A sampling request with these params (`messages`, `maxTokens`, …). */
  sample: (params) => {
    const p = text(params, 'the sampling params')
    return JSON.parse(call(() => native.questionSample(p)))
  },
  /** A request for the client's roots. */
  roots: () => JSON.parse(call(() => native.questionRoots())),
})

/**
 * What a tool run by `runTool` asks with. Each ask is answered at once from
 * what the conversation holds (this request's `inputResponses`, the sealed
 * answers of earlier rounds), or never: the first unanswered ask ends the
 * round, and the tool is dropped where it waits (its promise never settles,
 * so no `catch` or `finally` of the tool runs, and nothing after the ask).
 * Every ask made before the runner takes over (all of `askAll`, or of a
 * `Promise.all` over asks) goes into the round.
 */
class ToolContext {
  #run
  #text
  #protocol
  /** The request, as parsed. */
  request
  /** The question builders: `ctx.q.elicit(message, schema)`, `ctx.q.sample(params)`, `ctx.q.roots()`. */
  q = questions
  constructor(run, request, text, protocol) {
    this.#run = run
    this.request = request
    this.#text = text
    this.#protocol = protocol
  }
  /**
   * Whether the request declared every client capability `questions` need (mode-aware:
   * `elicitation.url`, `sampling.tools`): ask only what it allows.
   */
  allows(...questions) {
    const asked = Object.fromEntries(questions.map((q, i) => [i, q]))
    return missingCapabilities(this.#text, asked, { protocol: this.#protocol }) === null
  }
  /**
   * Throws `request-capability-missing` (-32021, `.data.requiredCapabilities` naming them) unless the
   * request declared every capability `questions` need: for a tool that cannot work without them.
   */
  require(...questions) {
    const asked = Object.fromEntries(questions.map((q, i) => [i, q]))
    requireCapabilities(this.#text, asked, { protocol: this.#protocol })
  }
  /** How many rounds came before this request (0 on a first request). */
  get round() {
    return this.#run.replay.round()
  }
  /** The id of the sealed state this request carried (lower-case hex: the key of a single-use store), or null. */
  get stateId() {
    return this.#run.state?.stateId ?? null
  }
  /** That state's expiry (seconds since the epoch), or null. */
  get expiry() {
    return this.#run.state?.expiry ?? null
  }
  /** The data the last round kept (null if none); assign it to keep something else for the next round. */
  get data() {
    return this.#run.data
  }
  set data(value) {
    this.#run.data = value
  }
  /** Asks `question` (an input request: `ctx.q.…`), under `{key}` or the key of its order (q1, q2, …): its answer. */
  ask(question, options) {
    let key
    try {
      key = fields(options, ['key'], 'the ask options').key
    } catch (e) {
      return this.#run.fail(e)
    }
    return this.#run.ask(question, key)
  }
  /** Asks every question in one round: their answers, in order. */
  askAll(...questions) {
    return Promise.all(questions.map((q) => this.ask(q)))
  }
  /** Asks the user through a form (`{action, content}`). */
  elicit(message, requestedSchema) {
    return this.#run.build(() => questions.elicit(message, requestedSchema))
  }
  /** Asks the client's model (`{role, content, model, stopReason}`). */
  sample(params) {
    return this.#run.build(() => questions.sample(params))
  }
  /** Asks the client's roots (`{roots}`). */
  roots() {
    return this.#run.build(() => questions.roots())
  }
}

/** One run of a tool: the backend's replay, what is missing, and how the round ended. */
class ToolRun {
  missing = 0
  failure = null
  closed = false
  #end
  constructor(replay) {
    this.replay = replay
    this.state = parsed(call(() => replay.state()))
    this.data = parsed(call(() => replay.data()))
    /** Settles when the round is over: at the first unanswered ask, or the first failure. */
    this.ended = new Promise((end) => (this.#end = end))
  }
  /** Asks `question` (built by `make`): a misuse or a refusal ends the run, thrown by `runTool`, never by the tool's await. */
  build(make) {
    let q
    try {
      q = make()
    } catch (e) {
      return this.fail(e)
    }
    return this.ask(q)
  }
  ask(question, key) {
    if (this.closed) return never()
    let answer
    try {
      const t = text(question, 'the question')
      const k = optional(key, string, 'the key')
      answer = call(() => this.replay.ask(t, k))
    } catch (e) {
      return this.fail(e)
    }
    if (answer != null) return Promise.resolve(JSON.parse(answer))
    this.missing += 1
    this.#end()
    return never()
  }
  fail(e) {
    this.failure ??= { e }
    this.#end()
    return never()
  }
}

const SETTINGS = ['ttl', 'protocol', 'limits', 'pinAnswers', 'maxRounds']

/** runTool's options: the backend's ring, the settings and the call as JSON text, and the guard. */
function deployment(options) {
  const allowed = ['rounds', 'ring', ...SETTINGS, 'subject', 'anonymous', 'now', 'guard']
  const { rounds, ring, subject, anonymous, now, guard, ...settings } = fields(options, allowed, 'the runTool options')
  const c = json({ subject, anonymous, now: whole(now, 'now') }, 'the call')
  if (rounds !== undefined) {
    if (!deployments.has(rounds)) throw usage('`rounds` is a SealedRounds')
    if (ring !== undefined || Object.keys(settings).length) throw usage('the settings are in `rounds`, or given in its place: not both')
    return [...deployments.get(rounds), c, guard]
  }
  if (!rings.has(ring)) throw usage('runTool needs a SealedRounds as `rounds`, or a KeyRing as `ring`')
  return [rings.get(ring), json(settings, 'the settings'), c, guard]
}

/**
 * Runs an await-style `tool` (`async (args, ctx) => result`) on a `tools/call`
 * `request`, statelessly: the answers of earlier rounds travel in the sealed
 * `requestState`, and each request replays the tool from the top. Returns
 * the JSON-RPC response: `input_required` asking every question still
 * unanswered (with `ctx.data` sealed), or the tool's result as the `complete`
 * response. `options`: the deployment's settings, a `SealedRounds` as
 * `rounds` (or its settings in its place: `{ring, ttl = 300, protocol, limits,
 * pinAnswers = true, maxRounds = 10}`), and the call's (`{subject | anonymous:
 * true, now, guard}`). A refusal (a bad or replayed state, an answer that
 * does not fit, the round cap, a bad question) rejects with its MrtrError,
 * which `errorResponse` turns into the response to send; what the tool throws
 * rejects as it was.
 *
 * Code before an ask runs again on every round, so it must be free of side
 * effects: do them after the last ask, and pass a guard so that the final
 * round runs once.
 */
export async function runTool(tool, request, options) {
  if (typeof tool !== 'function') throw usage('a tool is a function (args, ctx) => result')
  const [r, s, c, guard] = deployment(options)
  const t = text(request, 'the request')
  const replay = guarded(guard, (g) => r.startToolReplay(t, s, c, g))
  const played = await play(tool, replay, parseRequest(request), t, JSON.parse(s).protocol)
  if (played.missing) {
    const data = optional(played.data, json, 'data')
    return JSON.parse(call(() => replay.inputRequired(r, data, entropy())))
  }
  const result = text(played.result, "the tool's result")
  return JSON.parse(call(() => replay.complete(result)))
}

/**
 * Runs `tool` once over the backend's `replay` of `request` (`t` its JSON text, `protocol` the one
 * `ctx.allows` and `ctx.require` read it under): `{missing: true, data}` when it stopped at an ask
 * without an answer, else `{missing: false, result}`. A refusal at an ask is thrown even when the tool
 * caught it; what the tool throws is thrown as it was. Shared by `runTool` and `BridgedCall`.
 */
async function play(tool, replay, request, t, protocol) {
  const run = new ToolRun(replay)
  const ctx = new ToolContext(run, request, t, protocol)
  const args = request?.params?.arguments
  const object = args !== null && typeof args === 'object' && !Array.isArray(args)
  const finished = (async () => tool(object ? args : {}, ctx))().then(
    (result) => ({ result }),
    (error) => ({ error }),
  )
  const outcome = await Promise.race([finished, run.ended])
  run.closed = true
  if (run.failure) throw run.failure.e
  if (run.missing > 0) return { missing: true, data: run.data }
  if ('error' in outcome) throw outcome.error
  return { missing: false, result: outcome.result }
}

/** The clock of a BridgedCall without one: milliseconds, monotonic. */
const monotonic = () => Math.floor(performance.now())

/**
 * The legacy bridge: one `2025-11-25` call of the same await-style `tool` `runTool` serves, whose
 * questions reach the client as server requests on the call's event stream (each associated with the
 * call, SEP-2260), over the core's bridge. Iterate `stream()` and write each text to the call's
 * `text/event-stream` response; route every JSON-RPC response the client POSTs to one of `pending` to
 * `deliver`. Each round replays the tool from the answers collected so far, as `runTool` does; a refusal
 * in the tool, a round unanswered after `roundTimeoutMs`, or a tool still asking after `maxRounds` ends
 * the call with its error response. `options`: `{key, maxRounds, roundTimeoutMs, clock}` (the event ids'
 * key, random by default; the core's defaults, 10 rounds and 300 000 ms; a clock in ms, monotonic by default).
 *
 * The call lives in this instance's memory, on the open stream: the design the multi-round texts
 * replace, here so that one handler serves both generations of clients.
 */
export class BridgedCall {
  #tool
  #request
  #text
  #clock
  #bridge
  #wake = null
  constructor(tool, request, options) {
    if (typeof tool !== 'function') throw usage('a tool is a function (args, ctx) => result')
    const { key, maxRounds, roundTimeoutMs, clock } = fields(options, ['key', 'maxRounds', 'roundTimeoutMs', 'clock'], 'the bridge options')
    if (clock !== undefined && typeof clock !== 'function') throw usage('a clock is a function () => milliseconds')
    this.#tool = tool
    this.#clock = clock ?? monotonic
    this.#text = text(request, 'the request')
    this.#request = parseRequest(request)
    const args = [
      this.#text,
      key === undefined ? hex(globalThis.crypto.getRandomValues(new Uint8Array(8))) : string(key, 'key'),
      json({ maxRounds, roundTimeoutMs }, 'the bridge options'),
    ]
    this.#bridge = call(() => new native.ToolBridge(...args))
  }
  /** The ids (as text) of the server requests waiting for the client's answers. */
  get pending() {
    return call(() => this.#bridge.pending())
  }
  /** Whether the call's final response (or error) was written. */
  get done() {
    return call(() => this.#bridge.isDone())
  }
  /**
   * A JSON-RPC response the client POSTed to one of `pending`. An answer that does not fit its question
   * throws `retry-input-response-invalid` (answer that POST with its error; the round still waits); a
   * response to no pending request `usage-out-of-turn`.
   */
  deliver(response) {
    const args = [text(response, 'the response'), this.#now()]
    if (call(() => this.#bridge.handleAnswer(...args))) this.#wake?.()
  }
  /** The event-stream text of the call, in order, until its final response. */
  async *stream() {
    while (!this.done) {
      if (this.pending.length > 0) await this.#wait()
      else await this.#round()
      for (let t = call(() => this.#bridge.pollWrite()); t != null; t = call(() => this.#bridge.pollWrite())) yield t
    }
  }
  #now() {
    return whole(this.#clock(), 'the clock')
  }
  async #round() {
    const replay = call(() => this.#bridge.replay())
    let played
    try {
      played = await play(this.#tool, replay, this.#request, this.#text, Protocol.V2025_11_25)
    } catch (e) {
      if (!(e instanceof MrtrError)) throw e
      const data = optional(e.data, json, 'the error data')
      return call(() => this.#bridge.refuse(e.rule, e.message, data))
    }
    if (!played.missing) {
      const result = text(played.result, "the tool's result")
      return call(() => this.#bridge.complete(result))
    }
    try {
      const now = this.#now()
      call(() => this.#bridge.ask(replay, now))
    } catch (e) {
      if (!this.done) throw e // past the round cap, the bridge ended the call with that error's response
    }
  }
  /** Waits for the round's answers (`deliver`) until its deadline, then lets the bridge end an unanswered round. */
  async #wait() {
    const deadline = call(() => this.#bridge.pollTimeout())
    if (deadline === null || deadline === undefined) return
    let timer
    const late = await new Promise((resolve) => {
      this.#wake = () => resolve(false)
      timer = setTimeout(resolve, Math.max(0, deadline - this.#now()), true)
    })
    clearTimeout(timer)
    this.#wake = null
    if (late) {
      const now = this.#now()
      call(() => this.#bridge.handleTimeout(now))
    }
  }
}

/**
 * The JSON-RPC error response to the request `id` for `error` (an MrtrError,
 * or `{rule, message, data?}`, `data` the members of the error's `data`):
 * `{response, status}`, the HTTP status a transport sends it with.
 */
export function errorResponse(id, error) {
  if (error === null || typeof error !== 'object' || typeof error.rule !== 'string') {
    throw usage('errorResponse takes an MrtrError, or {rule, message}')
  }
  const args = [json(id ?? null, 'the id'), error.rule, string(error.message ?? '', 'the message')]
  if (error.data != null) args.push(json(error.data, 'the error data'))
  return JSON.parse(call(() => native.errorResponse(...args)))
}

/** Test-only: panics inside the backend (`trap`: traps past the panic hook, wasm only); it throws a PanicError. */
export function __panicForTests(trap = false) {
  call(() => (trap ? native.__abortForTests() : native.__panicForTests()))
}

/** The whole API as one object: `import mrtr from 'mrtr'`. */
export default api
