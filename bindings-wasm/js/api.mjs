// mrtr in WebAssembly: the JavaScript face of the wasm-bindgen module, shared
// by the browser build (--target web) and the Node build (--target nodejs).
//
// Thin by design, and the same API as the Node package (bindings-node/index.js):
// the wasm module does every rule; this file only converts (objects to JSON
// text and back), builds the tables (Rule, Protocol, TaskStatus, Kind) from
// the core's catalogues, turns the module's coded errors into the MrtrError
// classes, and hands the module random bytes when it seals (it has no random
// source of its own). Message and object arguments may be given as objects or
// as JSON text (a string or a Uint8Array, parsed in Rust from the bytes); ids
// and requestState are always values.
//
// Differences from the Node package, all of them the platform's: bytes come
// back as Uint8Array (not Buffer); and after a Rust panic (a bug in mrtr,
// never a bad input) the module is instantiated anew, so objects made before
// it (Client, Checker, KeyRing) throw a PanicError when used again.

/** Builds the public API over `native`, an initialised wasm-bindgen module. */
export function createMrtr(native) {
  const parse = (s) => JSON.parse(s)
  const opts = (o) => o ?? {}

  // -------------------------------------------------------------- tables

  /** Every rule of the core's catalogue, in catalogue order. */
  const RULES = Object.freeze(
    parse(native.__rules()).map((r) =>
      Object.freeze({ key: r.key, id: r.id, number: r.number, code: r.code ?? null, source: r.source }),
    ),
  )
  const RULE_BY_ID = new Map(RULES.map((r) => [r.id, r]))

  const table = (rows) => Object.freeze(Object.fromEntries(rows.map((r) => [r.key, r.value])))
  /** Rule ids by the core's variant name: `Rule.RetryIdReused === 'retry-id-reused'`. */
  const Rule = Object.freeze(Object.fromEntries(RULES.map((r) => [r.key, r.id])))
  /** Protocol names: `Protocol.V2026_07_28 === '2026-07-28'` (the default). */
  const Protocol = table(parse(native.__protocols()))
  /** Task statuses: `TaskStatus.InputRequired === 'input_required'`. */
  const TaskStatus = table(parse(native.__taskStatuses()))
  /** What `classify` says a message is: `Kind.InputRequired === 'input_required'`. */
  const Kind = table(parse(native.__kinds()))
  /** The core's default `Limits`. */
  const defaultLimits = Object.freeze(parse(native.__defaultLimits()))

  // -------------------------------------------------------------- errors

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
  /** A Rust panic (or trap) inside the module, caught at the boundary (a bug in mrtr, never a bad input). */
  class PanicError extends Error {
    constructor(message, options) {
      super(message, options)
      this.code = 'MRTR_PANIC'
    }
  }
  const CLASSES = [MrtrError, ProtocolError, RetryError, StateError, TaskError, AssociationError, TransportError, PanicError]
  for (const C of CLASSES) {
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

  function argError(message) {
    const t = new TypeError(message)
    t.code = 'ERR_MRTR_ARG'
    return t
  }

  /**
   * A fresh module instance, now: after a panic or a trap the old one's stack
   * and heap cannot be trusted. Resetting at once (not at the next call, as
   * wasm-bindgen's own scheduled reinit does) makes every object of the old
   * instance fail its instance check instead of reaching the new memory.
   */
  function reset() {
    native.__wbg_reset_state()
  }

  /** The module's coded error (or a trap) as the wrapper's class. */
  function translate(e) {
    if (e instanceof WebAssembly.RuntimeError) {
      // A trap that is no panic (out of memory, a stack overflow).
      reset()
      return new PanicError(`mrtr aborted: ${e.message}`, { cause: e })
    }
    const code = e?.code
    if (typeof code !== 'string') {
      if (e instanceof Error && /stale object from previous Wasm instance/.test(e.message)) {
        return new PanicError('this object belonged to a module instance that panicked; make a new one', { cause: e })
      }
      return e
    }
    if (RULE_BY_ID.has(code)) return fail(code, e.message)
    if (code === 'MRTR_PANIC') {
      reset()
      return new PanicError(e.message)
    }
    // ERR_MRTR_ARG: an argument of the wrong type or shape.
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

  // -------------------------------------------------------------- conversion

  /** A JS value as JSON text; what JSON cannot hold is a ProtocolError. */
  function json(value, what) {
    let s
    try {
      s = JSON.stringify(value)
    } catch (e) {
      // Too deep for the stack or too long for a string: over a bound. A
      // cycle, a BigInt: not JSON.
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

  /** An optional string argument (a protocol name, a subject). */
  function str(value, what) {
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'string') throw argError(`${what} is a string`)
    return value
  }

  /** A settings object (limits, a check config) as JSON text for the module, or undefined. */
  function settings(value, what) {
    if (value === undefined || value === null) return undefined
    if (typeof value !== 'object') throw argError(`${what} is an object`)
    return JSON.stringify(value)
  }

  /** A number argument (a handle, a time, a key id). */
  function num(value, what) {
    if (typeof value !== 'number') throw argError(`${what} is a number`)
    return value
  }

  /** Bytes: a Uint8Array, or hex text. */
  function bytes(value, what) {
    if (value instanceof Uint8Array) return value
    if (typeof value === 'string' && /^(?:[0-9a-fA-F]{2})*$/.test(value)) {
      const out = new Uint8Array(value.length / 2)
      for (let i = 0; i < out.length; i++) out[i] = parseInt(value.slice(2 * i, 2 * i + 2), 16)
      return out
    }
    throw argError(`${what} is a Uint8Array or hex text`)
  }

  /** Random bytes for a nonce, from the platform's CSPRNG (more than any nonce needs). */
  function entropy() {
    return globalThis.crypto.getRandomValues(new Uint8Array(32))
  }

  // -------------------------------------------------------------- operations

  /** Classifies and validates one raw message. */
  function classify(message, options) {
    const o = opts(options)
    const t = text(message, 'the message')
    const p = str(o.protocol, 'protocol')
    const l = settings(o.limits, 'limits')
    return parse(call(() => native.classify(t, p, l)))
  }

  /** Checks a whole conversation: the violations, in transcript order. */
  function check(transcript, config) {
    const t = text(transcript, 'the transcript')
    const c = settings(config, 'the check config')
    return parse(call(() => native.check(t, c)))
  }

  /** The incremental checker: `handle` one entry at a time, read `violations()`. */
  class Checker {
    #native
    constructor(config) {
      const c = settings(config, 'the check config')
      this.#native = call(() => new native.NativeChecker(c))
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
      str(o.protocol, 'protocol'),
      settings(o.limits, 'limits'),
    ]
    return parse(call(() => native.retry(...args)))
  }

  /** Builds the `tasks/update` request answering an `input_required` task (Tasks extension, 2026-07-28). */
  function taskUpdate(getRequest, getResponse, inputResponses, id, options) {
    const o = opts(options)
    const args = [
      text(getRequest, 'the tasks/get request'),
      text(getResponse, 'the tasks/get response'),
      text(inputResponses ?? {}, 'inputResponses'),
      json(id, 'the id'),
      settings(o.limits, 'limits'),
    ]
    return parse(call(() => native.taskUpdate(...args)))
  }

  /** Answers `request` with `input_required`: `inputRequests` and/or `requestState` (null or undefined: absent). */
  function respond(request, inputRequests, requestState, options) {
    const o = opts(options)
    const r = text(request, 'the request')
    const i = optional(inputRequests, text, 'inputRequests')
    const s = optional(requestState, json, 'requestState')
    const p = str(o.protocol, 'protocol')
    const l = settings(o.limits, 'limits')
    return parse(call(() => native.respond(r, i, s, p, l)))
  }

  /** Reads what `request` carries against what this server `needs`: `{responses, missing, ignored, requestState}`. */
  function resume(request, needs, options) {
    const o = opts(options)
    const r = text(request, 'the request')
    const n = text(needs ?? {}, 'needs')
    const p = str(o.protocol, 'protocol')
    const l = settings(o.limits, 'limits')
    return parse(call(() => native.resume(r, n, p, l)))
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
      const p = str(c.protocol, 'protocol')
      const m = optional(c.maxRounds, num, 'maxRounds')
      const l = settings(c.limits, 'limits')
      this.#native = call(() => new native.NativeClient(p, m, l))
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
      const h = num(handle, 'a handle')
      const r = text(inputResponses ?? {}, 'inputResponses')
      const i = json(id, 'the id')
      call(() => this.#native.answer(h, r, i))
    }
    /** Gives up on `handle`. */
    abandon(handle) {
      const h = num(handle, 'a handle')
      call(() => this.#native.abandon(h))
    }
    /** The next message to send, or null. */
    pollTransmit() {
      const t = call(() => this.#native.pollTransmit())
      return t === undefined ? null : parse(t)
    }
    /** The next event (`inputRequired`, `retryNow`, `done`), or null. */
    pollEvent() {
      const t = call(() => this.#native.pollEvent())
      return t === undefined ? null : parse(t)
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

  // -------------------------------------------------------------- sealed state

  function keyArgs(key) {
    const k = opts(key)
    return [
      num(k.id, 'a key id'),
      str(k.algorithm, "a key's algorithm") ?? '',
      optional(k.secret, bytes, "a key's secret"),
      optional(k.master, bytes, "a key's master secret"),
    ]
  }

  function bindingText(binding) {
    const b = opts(binding)
    const digest = optional(b.paramsDigest, bytes, 'paramsDigest')
    return JSON.stringify({
      subject: b.subject ?? '',
      protocol: str(b.protocol, 'protocol'),
      method: b.method,
      target: b.target,
      paramsDigest: digest && Array.from(digest),
      arguments: optional(b.arguments, json, 'arguments'),
    })
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
    const s = str(subject, 'the subject') ?? ''
    const p = str(protocol, 'protocol')
    const b = parse(call(() => native.bindingFor(t, s, p)))
    return { ...b, paramsDigest: bytes(b.paramsDigest, 'paramsDigest') }
  }

  /** The module's ring of each KeyRing, for SealedRounds (kept off the public object). */
  const ringNatives = new WeakMap()

  /** Keys by id (AES-256-GCM, XChaCha20-Poly1305): seals with the current one, opens with any. */
  class KeyRing {
    #native
    /** A ring holding `current` (`{id, algorithm, secret}` or `{id, algorithm, master}`), which seals. */
    constructor(current) {
      const k = keyArgs(current)
      this.#native = call(() => new native.NativeKeyRing(...k))
      ringNatives.set(this, this.#native)
    }
    /** Adds a key that opens tokens (replacing one with the same id). */
    add(key) {
      const k = keyArgs(key)
      call(() => this.#native.add(...k))
    }
    /** Makes the key with `id` the sealing key; false if the ring lacks it. */
    setCurrent(id) {
      const i = num(id, 'a key id')
      return call(() => this.#native.setCurrent(i))
    }
    /** Drops the key with `id` (not the current one); false if it could not. */
    remove(id) {
      const i = num(id, 'a key id')
      return call(() => this.#native.remove(i))
    }
    /** The bound on a token's length, checked before any decoding. */
    setMaxTokenBytes(max) {
      const m = num(max, 'a token bound')
      call(() => this.#native.setMaxTokenBytes(m))
    }
    /** Seals `payload` bound to `binding`, expiring `ttl` s after `now` (s since the epoch); `nonce` for test vectors only. */
    seal(binding, now, ttl, payload, nonce) {
      const b = bindingText(binding)
      const p = payloadText(payload)
      const n = optional(nonce, bytes, 'the nonce')
      const e = n === undefined ? entropy() : undefined
      return call(() => this.#native.seal(b, num(now, 'now'), num(ttl, 'ttl'), p, n, e))
    }
    /** Opens `token` for `binding` at `now`: the payload (a Uint8Array), or a StateError. */
    open(token, binding, now) {
      const b = bindingText(binding)
      const t = str(token, 'the token') ?? ''
      return call(() => this.#native.open(t, b, num(now, 'now')))
    }
  }

  function roundsText(o) {
    return JSON.stringify({
      subject: o.subject ?? '',
      now: num(o.now, 'now'),
      ttl: o.ttl,
      protocol: str(o.protocol, 'protocol'),
      limits: o.limits,
    })
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
      this.#options = roundsText(o)
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
      return parse(call(() => ringNatives.get(this.#ring).respondRound(r, rd, n, d, this.#options, entropy())))
    }
  }

  /** Test-only: panics inside the module, to show that a panic is an exception, never an abort. */
  function __panicForTests() {
    call(() => native.__panicForTests())
  }

  const api = {
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
  // Test-only, and off the listed exports: a trap that bypasses the panic hook.
  Object.defineProperty(api, '__abortForTests', { value: () => call(() => native.__abortForTests()) })
  return api
}
