'use strict'
// mrtr for Node: the JavaScript face of the native addon (native.cjs).
//
// Thin by design: the addon does every rule; this file only converts (objects
// to JSON text and back), builds the tables (Rule, Protocol, TaskStatus, Kind)
// from the core's catalogues, and turns the addon's coded errors into the
// MrtrError classes. Message and object arguments may be given as objects or
// as JSON text (a string or a Uint8Array/Buffer, parsed in Rust from the
// bytes); ids and requestState are always values.

const native = require('./native.cjs')

// ---------------------------------------------------------------- tables

/** Every rule of the core's catalogue, in catalogue order. */
const RULES = Object.freeze(
  native.__rules().map((r) =>
    Object.freeze({ key: r.key, id: r.id, number: r.number, code: r.code ?? null, source: r.source }),
  ),
)
const RULE_BY_ID = new Map(RULES.map((r) => [r.id, r]))

const table = (rows) => Object.freeze(Object.fromEntries(rows.map((r) => [r.key, r.value])))
/** Rule ids by the core's variant name: `Rule.RetryIdReused === 'retry-id-reused'`. */
const Rule = Object.freeze(Object.fromEntries(RULES.map((r) => [r.key, r.id])))
/** Protocol names: `Protocol.V2026_07_28 === '2026-07-28'` (the default). */
const Protocol = table(native.__protocols())
/** Task statuses: `TaskStatus.InputRequired === 'input_required'`. */
const TaskStatus = table(native.__taskStatuses())
/** What `classify` says a message is: `Kind.InputRequired === 'input_required'`. */
const Kind = table(native.__kinds())
const KIND_BY_CODE = native.__kinds().map((r) => r.value)
const RESULT_TYPE_BY_CODE = [null, ...native.__resultTypes().map((r) => r.value)]
/** The core's default `Limits`. */
const defaultLimits = Object.freeze(native.__defaultLimits())

// ---------------------------------------------------------------- errors

/** A core error: `.rule` is the rule id, `.code` the JSON-RPC error code a peer answers with (or null). */
class MrtrError extends Error {
  constructor(rule, message, options) {
    super(message, options)
    this.rule = rule
    this.code = RULE_BY_ID.get(rule)?.code ?? null
  }
}
/** Envelope, results, input requests and responses, limits: every rule of no other area. */
class ProtocolError extends MrtrError {}
/** `retry-*`: the client's retry rules. */
class RetryError extends MrtrError {}
/** `state-*`: sealed `requestState`. */
class StateError extends MrtrError {}
/** `task-*`: tasks. */
class TaskError extends MrtrError {}
/** `server-request-*`: server requests and their association with client requests. */
class AssociationError extends MrtrError {}
/** `sse-*`: the SSE multi-turn transports. */
class TransportError extends MrtrError {}
/** A Rust panic inside the addon, caught at the boundary (a bug in mrtr, never a bad input). */
class PanicError extends Error {
  constructor(message) {
    super(message)
    this.code = 'MRTR_PANIC'
  }
}
for (const C of [MrtrError, ProtocolError, RetryError, StateError, TaskError, AssociationError, TransportError, PanicError]) {
  Object.defineProperty(C.prototype, 'name', { value: C.name, writable: true, configurable: true })
}

/** Rule id prefixes and the class of their area; a rule matching none is a ProtocolError. */
const AREAS = Object.freeze([
  ['retry-', RetryError],
  ['state-', StateError],
  ['task-', TaskError],
  ['server-request-', AssociationError],
  ['sse-', TransportError],
])

/** The MrtrError subclass of `rule`'s area. */
function errorClassFor(rule) {
  if (!RULE_BY_ID.has(rule)) throw new TypeError(`not a rule id: ${rule}`)
  for (const [prefix, C] of AREAS) if (rule.startsWith(prefix)) return C
  return ProtocolError
}

function fail(rule, message) {
  const C = errorClassFor(rule)
  return new C(rule, message)
}

/** The addon's coded error as the wrapper's class. */
function translate(e) {
  const code = e?.code
  if (typeof code !== 'string') return e
  if (RULE_BY_ID.has(code)) return fail(code, e.message)
  if (code === 'MRTR_PANIC') return new PanicError(e.message)
  // ERR_MRTR_ARG, or napi's own codes (InvalidArg, StringExpected, …): an
  // argument of the wrong type.
  const t = new TypeError(e.message)
  t.code = code
  return t
}

function call(f) {
  try {
    return f()
  } catch (e) {
    throw translate(e)
  }
}

// ---------------------------------------------------------------- conversion

/** A JS value as JSON text; what JSON cannot hold is a ProtocolError. */
function json(value, what) {
  let s
  try {
    s = JSON.stringify(value)
  } catch (e) {
    // Too deep for the stack or too long for a string: over a bound. A cycle,
    // a BigInt: not JSON.
    const rule = e instanceof RangeError ? 'limit-exceeded' : 'jsonrpc-invalid'
    throw fail(rule, `${what} is not JSON: ${e.message}`)
  }
  if (s === undefined) throw fail('jsonrpc-invalid', `${what} is not JSON: ${typeof value}`)
  return s
}

/** A message or object argument: JSON text as is, anything else stringified. */
function text(value, what) {
  if (typeof value === 'string' || value instanceof Uint8Array) return value
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  return json(value, what)
}

/** An optional argument: null and undefined are absent. */
function optional(value, convert, what) {
  return value === undefined || value === null ? undefined : convert(value, what)
}

const parse = (s) => JSON.parse(s)
const opts = (o) => o ?? {}

// ---------------------------------------------------------------- operations

/** Classifies and validates one raw message. */
function classify(message, options) {
  const o = opts(options)
  const t = text(message, 'the message')
  // [code, method, id]: kind (bits 0-2), result type (bits 3-4), resultType on the wire (bit 5).
  const [code, method, id] = call(() => native.classify(t, o.protocol, o.limits))
  return {
    kind: KIND_BY_CODE[code & 7],
    id,
    method,
    resultType: RESULT_TYPE_BY_CODE[(code >> 3) & 3],
    resultTypePresent: (code & 32) !== 0,
  }
}

/** Checks a whole conversation: the violations, in transcript order. */
function check(transcript, config) {
  const t = text(transcript, 'the transcript')
  return parse(call(() => native.check(t, config)))
}

/** The incremental checker: `handle` one entry at a time, read `violations()`. */
class Checker {
  #native
  constructor(config) {
    this.#native = call(() => new native.NativeChecker(config))
  }
  handle(entry) {
    const t = text(entry, 'the entry')
    call(() => this.#native.handle(t))
  }
  violations() {
    return parse(call(() => this.#native.violations()))
  }
}

/** Builds the retry of `request` answering `result` with `inputResponses`, under the new `id`. */
function retry(request, result, inputResponses, id, options) {
  const o = opts(options)
  const args = [
    text(request, 'the request'),
    text(result, 'the result'),
    text(inputResponses ?? {}, 'inputResponses'),
    json(id, 'the id'),
  ]
  return parse(call(() => native.retry(...args, o.protocol, o.limits)))
}

/** Builds the `tasks/update` request answering an `input_required` task (Tasks extension, 2026-07-28). */
function taskUpdate(getRequest, getResponse, inputResponses, id, options) {
  const o = opts(options)
  const args = [
    text(getRequest, 'the tasks/get request'),
    text(getResponse, 'the tasks/get response'),
    text(inputResponses ?? {}, 'inputResponses'),
    json(id, 'the id'),
  ]
  return parse(call(() => native.taskUpdate(...args, o.limits)))
}

/** Answers `request` with `input_required`: `inputRequests` and/or `requestState` (null or undefined: absent). */
function respond(request, inputRequests, requestState, options) {
  const o = opts(options)
  const r = text(request, 'the request')
  const i = optional(inputRequests, text, 'inputRequests')
  const s = optional(requestState, json, 'requestState')
  return parse(call(() => native.respond(r, i, s, o.protocol, o.limits)))
}

/** Reads what `request` carries against what this server `needs`: `{responses, missing, ignored, requestState}`. */
function resume(request, needs, options) {
  const o = opts(options)
  const r = text(request, 'the request')
  const n = text(needs ?? {}, 'needs')
  return parse(call(() => native.resume(r, n, o.protocol, o.limits)))
}

/** `from` may become `to`? Returns `to`, or throws a TaskError (`task-status-invalid`, `task-transition-invalid`). */
function taskTransition(from, to) {
  return call(() => native.__taskTransition(String(from), String(to)))
}

/**
 * The client's retry machine (sans-IO). Inputs: `send`, `handleResponse`,
 * `answer`; after each, drain `pollTransmit()` (messages to send, in order),
 * then `pollEvent()`.
 */
class Client {
  #native
  constructor(config) {
    const c = opts(config)
    this.#native = call(() => new native.NativeClient(c.protocol, c.maxRounds, c.limits))
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
    const r = text(inputResponses ?? {}, 'inputResponses')
    const i = json(id, 'the id')
    call(() => this.#native.answer(handle, r, i))
  }
  /** Gives up on `handle`. */
  abandon(handle) {
    call(() => this.#native.abandon(handle))
  }
  /** The next message to send, or null. */
  pollTransmit() {
    const t = call(() => this.#native.pollTransmit())
    return t === null ? null : parse(t)
  }
  /** The next event (`inputRequired`, `retryNow`, `done`), or null. */
  pollEvent() {
    const t = call(() => this.#native.pollEvent())
    return t === null ? null : parse(t)
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

// ---------------------------------------------------------------- sealed state

const bytes = (b) => (typeof b === 'string' ? Buffer.from(b, 'hex') : b)

function keyInput(key) {
  const k = opts(key)
  return { id: k.id, algorithm: k.algorithm, secret: optional(k.secret, bytes), master: optional(k.master, bytes) }
}

function bindingInput(binding) {
  const b = opts(binding)
  return {
    subject: b.subject ?? '',
    protocol: b.protocol,
    method: b.method,
    target: b.target,
    paramsDigest: optional(b.paramsDigest, bytes),
    arguments: optional(b.arguments, json, 'arguments'),
  }
}

const payloadText = (p) => (typeof p === 'string' || p instanceof Uint8Array ? p : json(p, 'the payload'))

/** SHA-256 of the canonical JSON of `salient` (a request's `arguments`). */
function paramsDigest(salient) {
  const t = text(salient, 'the salient params')
  return call(() => native.paramsDigest(t))
}

/** The binding of `request` for `subject`: `{subject, protocol, method, target, paramsDigest}`. */
function bindingFor(request, subject, protocol) {
  const t = text(request, 'the request')
  const b = parse(call(() => native.bindingFor(t, subject ?? '', protocol)))
  return { ...b, paramsDigest: Buffer.from(b.paramsDigest, 'hex') }
}

/** The addon's ring of each KeyRing, for SealedRounds (kept off the public object). */
const ringNatives = new WeakMap()

/** Keys by id (AES-256-GCM, XChaCha20-Poly1305): seals with the current one, opens with any. */
class KeyRing {
  #native
  /** A ring holding `current` (`{id, algorithm, secret}` or `{id, algorithm, master}`), which seals. */
  constructor(current) {
    const k = keyInput(current)
    this.#native = call(() => new native.NativeKeyRing(k))
    ringNatives.set(this, this.#native)
  }
  /** Adds a key that opens tokens (replacing one with the same id). */
  add(key) {
    const k = keyInput(key)
    call(() => this.#native.add(k))
  }
  /** Makes the key with `id` the sealing key; false if the ring lacks it. */
  setCurrent(id) {
    return call(() => this.#native.setCurrent(id))
  }
  /** Drops the key with `id` (not the current one); false if it could not. */
  remove(id) {
    return call(() => this.#native.remove(id))
  }
  /** The bound on a token's length, checked before any decoding. */
  setMaxTokenBytes(max) {
    call(() => this.#native.setMaxTokenBytes(max))
  }
  /** Seals `payload` bound to `binding`, expiring `ttl` s after `now` (s since the epoch); `nonce` for test vectors only. */
  seal(binding, now, ttl, payload, nonce) {
    const b = bindingInput(binding)
    const p = payloadText(payload)
    const n = optional(nonce, bytes)
    return call(() => this.#native.seal(b, now, ttl, p, n))
  }
  /** Opens `token` for `binding` at `now`: the payload (a Buffer), or a StateError. */
  open(token, binding, now) {
    const b = bindingInput(binding)
    return call(() => this.#native.open(token, b, now))
  }
}

function roundsInput(o) {
  return { subject: o.subject ?? '', now: o.now, ttl: o.ttl, protocol: o.protocol, limits: o.limits }
}

/** A server's rounds with sealed state: the answers of earlier rounds travel in the sealed `requestState`. */
class SealedRounds {
  #ring
  #options
  /** `{ring, subject, now, ttl = 300, protocol, limits}`. */
  constructor(options) {
    const o = opts(options)
    if (!(o.ring instanceof KeyRing)) throw new TypeError('SealedRounds needs a KeyRing as `ring`')
    this.#ring = o.ring
    this.#options = roundsInput(o)
  }
  /** This request's answers plus the sealed earlier ones: `{answers, missing, ignored, data}`. */
  resume(request, needs) {
    const r = text(request, 'the request')
    const n = text(needs ?? {}, 'needs')
    return parse(call(() => ringNatives.get(this.#ring).resumeRound(r, n, this.#options)))
  }
  /** Asks what `round` misses and seals what it has (and `data`): the `input_required` response. */
  respond(request, round, needs, data) {
    const r = text(request, 'the request')
    const d = optional(data, json, 'data')
    const rd = json(round, 'the round')
    const n = text(needs ?? {}, 'needs')
    return parse(call(() => ringNatives.get(this.#ring).respondRound(r, rd, n, d, this.#options)))
  }
}

/** Test-only: panics inside the addon, to show that a panic is an exception, never an abort. */
function __panicForTests() {
  call(() => native.__panicForTests())
}

module.exports = {
  // operations
  classify,
  check,
  Checker,
  retry,
  taskUpdate,
  respond,
  resume,
  taskTransition,
  Client,
  // sealed state
  KeyRing,
  SealedRounds,
  bindingFor,
  paramsDigest,
  // tables
  Rule,
  RULES,
  Protocol,
  TaskStatus,
  Kind,
  defaultLimits,
  errorClassFor,
  // errors
  MrtrError,
  ProtocolError,
  RetryError,
  StateError,
  TaskError,
  AssociationError,
  TransportError,
  PanicError,
  // test-only
  __panicForTests,
}
