// The JavaScript API of mrtr, one source for both packages: the npm package
// `mrtr` (the napi addon) and `mrtr-wasm` (WebAssembly, for browsers and
// Node), whose build copies lib/*.mjs beside its own backend.mjs.
//
// A backend (./backend.mjs) is the Rust side: the same functions and classes
// in both packages (bindings-node/src/exports.rs, bindings-wasm/src/exports.rs,
// generated from the core's table of exports), each a line over the core's
// facade. It takes JSON text (a string or UTF-8 bytes), answers JSON text,
// and throws an Error whose `code` is a rule id. The API decides nothing
// either. Its rows that only convert are generated too (./exports.mjs, over
// the conversions of ./kernel.mjs, which also builds the tables and the error
// classes from the core's catalogue); this file holds what is JavaScript's
// own: the packed `classify`, the drivers (`runOperation`, `McpClient`), the
// key ring with its replay guard, the await-style tools and the bridge. It
// hands the backend random bytes when it seals (no function of the API takes
// a nonce, but the test-only __sealWithNonceForTestVectors, which works only
// over a backend built with the cargo feature test-vectors, never a released
// one). Message and object arguments, bindings included, may be given as
// objects or as their JSON text (a string, a Uint8Array or an ArrayBuffer,
// parsed in Rust from the bytes, so its numbers stay exact); ids and
// requestState are values.
import native, { platformBytes } from './backend.mjs'
import * as api from './api.mjs'
import {
  bytes,
  call,
  entropy,
  fail,
  headerFields,
  hex,
  json,
  KINDS,
  MrtrError,
  optional,
  parsed,
  Protocol,
  refused,
  RESULT_TYPES,
  settings,
  string,
  text,
  translate,
  usage,
  whole,
} from './kernel.mjs'
import { missingCapabilities, Operation, requireCapabilities, Session } from './exports.mjs'

export * from './exports.mjs'
export {
  AssociationError,
  defaultLimits,
  errorClassFor,
  Kind,
  MrtrError,
  PanicError,
  Protocol,
  ProtocolError,
  RetryError,
  Rule,
  RULES,
  StateError,
  TaskError,
  TaskStatus,
  TransportError,
  UsageError,
} from './kernel.mjs'

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

/**
 * The HTTP exchange of `runOperation` over `fetch` (the platform's by default): sends `request`
 * (`{method, url, headers, body}`) and reports its response through `on.head(status, headers)`,
 * `on.body(chunk)` as the bytes come, and `on.end()` once, also when the connection fails or is cut.
 * Returns a function that cuts the exchange (`runOperation` cuts those the operation abandoned).
 */
export function fetchExchange(fetchImpl = globalThis.fetch) {
  return (request, on) => {
    let ended = false
    const end = () => ended || ((ended = true), on.end())
    const cut = new AbortController()
    const init = { method: request.method, headers: request.headers, signal: cut.signal }
    if (request.body !== undefined) init.body = JSON.stringify(request.body)
    ;(async () => {
      const res = await fetchImpl(request.url, init)
      on.head(res.status, Object.fromEntries(res.headers))
      if (res.body) for await (const chunk of res.body) on.body(chunk)
    })().then(end, end)
    return () => cut.abort()
  }
}

/**
 * Drives `operation` to its end over HTTP, in the documented drain order: `exchange(request, on)`
 * sends each HTTP request it asks for (`fetchExchange()` by default; `on.head(status, headers)`,
 * `on.body(chunk)`, `on.end()`; it may return a function that cuts the exchange, called once the
 * operation abandons it, as a hedged round's losing copy); `onInput(question, key)` answers each question (`{method, params}`),
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
    const cuts = new Map() // exchange number → what cuts it, while it is open
    const cutAbandoned = () => {
      for (const number of operation.abandoned()) {
        const cut = cuts.get(number)
        cuts.delete(number)
        if (cut === undefined) continue
        if (typeof cut === 'function') cut()
        operation.handleEnd(number, clock())
      }
    }
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
      try {
        cutAbandoned()
      } catch (e) {
        return stop(e)
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
    // An exchange cut once abandoned says nothing more: its late bytes and its end are the cut's.
    const open = (number, f) => guarded((...args) => cuts.has(number) && f(...args))
    const send = (request) => {
      const number = request.exchange
      cuts.set(number, null)
      const cut = exchange(request, {
        head: open(number, (status, headers) => operation.handleHead(number, status, headers, clock())),
        body: open(number, (chunk) => operation.handleBody(number, chunk, clock())),
        end: open(number, () => {
          cuts.delete(number)
          operation.handleEnd(number, clock())
        }),
      })
      if (cuts.has(number)) cuts.set(number, typeof cut === 'function' ? cut : true)
    }
    pump()
  })
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
  /** Every tool the server lists, following `nextCursor` page by page. The session remembers which the
   * server annotates `readOnlyHint` or `idempotentHint`: a later `callTool` of one may be hedged
   * (`hedgeAfterMs`) or sent again once a server may have taken it; any other tool's call is not, unless
   * the client was made with `idempotent: true`. */
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
      if (method === 'tools/list') this.#session.handleToolsList(page)
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
    // A tool the server's tools/list called read-only or idempotent: its first request is harmless twice.
    const vouched = !('idempotent' in this.#config) && this.#session.isIdempotent(request)
    const operation = new Operation(vouched ? { ...this.#config, idempotent: true } : this.#config, request, clock())
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

/** The binding of `request` for `{subject}` or `{anonymous: true}`: `{subject | anonymous, protocol, method, target, paramsDigest}`. */
export function bindingFor(request, who, protocol) {
  const args = [text(request, 'the request'), ...subjectOf(who, 'bindingFor'), optional(protocol, string, 'protocol')]
  const b = JSON.parse(call(() => native.bindingFor(...args)))
  return { ...b, paramsDigest: platformBytes(bytes(b.paramsDigest)) }
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

/** The backend's ring, the settings (JSON text) and the protocol of each SealedRounds, for runTool. */
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
    deployments.set(this, [this.#ring, this.#settings, rest.protocol])
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
  #request
  #text
  #protocol
  /** The question builders: `ctx.q.elicit(message, schema)`, `ctx.q.sample(params)`, `ctx.q.roots()`. */
  q = questions
  constructor(run, request, text, protocol) {
    this.#run = run
    this.#request = request
    this.#text = text
    this.#protocol = protocol
  }
  /** The request, as parsed (from its text only when a tool reads it). */
  get request() {
    return (this.#request = parseRequest(this.#request))
  }
  set request(value) {
    this.#request = value
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
    return this.#run.run.round()
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
  /** Asks the user through a form (`{action, content}`): the core builds the question and asks it in one call. */
  elicit(message, requestedSchema) {
    return this.#run.answer(() => {
      const args = [string(message, 'the message'), text(requestedSchema, 'the requested schema')]
      return this.#run.run.askElicit(...args)
    })
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

/**
 * One play of a tool over the backend's `run` (the core's ToolRun, which owns the round sequence and the
 * refusal policy): the tool's asks forwarded to it, the data the tool read or set, and when the round ended.
 */
class Play {
  /** The first ask that failed (a refusal the run recorded, or an ask this glue could not make). */
  failure = null
  /** Whether the tool read or set `ctx.data` (else a round keeps the last one's as the core holds it). */
  touched = false
  #data
  #state
  #end
  constructor(run) {
    this.run = run
    /** Settles when the round is over: at the first unanswered ask, or the first failure. */
    this.ended = new Promise((end) => (this.#end = end))
  }
  get state() {
    if (this.#state === undefined) this.#state = parsed(call(() => this.run.state()))
    return this.#state
  }
  get data() {
    if (!this.touched) this.data = parsed(call(() => this.run.data()))
    return this.#data
  }
  set data(value) {
    this.touched = true
    this.#data = value
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
    return this.answer(() => {
      const t = text(question, 'the question')
      return this.run.ask(t, optional(key, string, 'the key'))
    })
  }
  /** The answer `asked()` gave (JSON text, or none: the round ends here; once stopped, every ask gives none). */
  answer(asked) {
    let answer
    try {
      answer = call(asked)
    } catch (e) {
      return this.fail(e)
    }
    if (answer != null) return Promise.resolve(JSON.parse(answer))
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

/** runTool's options: the backend's ring, the settings (JSON text) and their protocol, the call (JSON text), the guard. */
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
  return [rings.get(ring), json(settings, 'the settings'), settings.protocol, c, guard]
}

/** A request's `params.arguments` when an object, else `{}`. */
function argumentsOf(request) {
  const args = request?.params?.arguments
  return args !== null && typeof args === 'object' && !Array.isArray(args) ? args : {}
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
  return JSON.parse(await runToolText(tool, request, options))
}

/**
 * `runTool` with the response as the JSON text the core wrote (the body to send). Given the request as the body's bytes,
 * the core reads it once: the tool's `args` come from it, and `ctx.request` is parsed only if the tool reads it.
 */
export async function runToolText(tool, request, options) {
  if (typeof tool !== 'function') throw usage('a tool is a function (args, ctx) => result')
  const [r, s, protocol, c, guard] = deployment(options)
  const t = text(request, 'the request')
  const replay = guarded(guard, (g) => r.startToolReplay(t, s, c, g))
  const run = call(() => replay.run())
  replay.release()
  try {
    return await respond(tool, run, r, request, t, protocol)
  } finally {
    // Its native memory now: a finalizer runs only between event-loop turns, never in a loop that does not yield.
    run.release()
  }
}

/** runToolText's response over the backend's `run` and `ring`: the tool played once, then the run's response. */
async function respond(tool, run, ring, request, t, protocol) {
  const raw = typeof request === 'string' || request instanceof Uint8Array || request instanceof ArrayBuffer
  const args = raw ? JSON.parse(call(() => run.arguments())) : argumentsOf(request)
  const played = await play(tool, run, args, request, t, protocol)
  if (played.stopped && played.touched) {
    const data = optional(played.data, json, 'data')
    call(() => run.setData(data))
  }
  const result = played.stopped ? null : text(played.result, "the tool's result")
  return call(() => run.respond(ring, result, entropy()))
}

/**
 * Runs `tool` on `args` once over the backend's `run` of `request` (`t` its JSON text, `protocol` the
 * one `ctx.allows` and `ctx.require` read it under): `{stopped: true, touched, data}` when it stopped at an
 * ask without an answer, else `{stopped: false, result}`. The run's refusal (recorded at an ask) is thrown
 * whatever the tool did after it; then an ask this glue could not make; then what the tool threw, as it
 * was. Shared by `runTool` and `BridgedCall`.
 */
async function play(tool, run, args, request, t, protocol) {
  const p = new Play(run)
  const ctx = new ToolContext(p, request, t, protocol)
  const finished = (async () => tool(args, ctx))().then(
    (result) => ({ result }),
    (error) => ({ error }),
  )
  const outcome = await Promise.race([finished, p.ended])
  call(() => run.stop())
  refused(call(() => run.refused()))
  if (p.failure) throw p.failure.e
  if (outcome === undefined) return { stopped: true, touched: p.touched, data: p.touched ? p.data : undefined }
  if ('error' in outcome) throw outcome.error
  return { stopped: false, result: outcome.result }
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
    const run = call(() => replay.run())
    replay.release()
    try {
      await this.#roundOver(run)
    } finally {
      run.release() // as runToolText's
    }
  }
  /** One round over `run`: the tool played once, then the bridge ends the round as the run ended. */
  async #roundOver(run) {
    let played
    try {
      played = await play(this.#tool, run, argumentsOf(this.#request), this.#request, this.#text, Protocol.V2025_11_25)
    } catch (e) {
      if (!(e instanceof MrtrError)) throw e
      const data = optional(e.data, json, 'the error data')
      return call(() => this.#bridge.refuse(e.rule, e.message, data))
    }
    const result = played.stopped ? null : text(played.result, "the tool's result")
    const now = this.#now()
    call(() => this.#bridge.finish(run, result, now))
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
 * `{response, status}`, the HTTP status a transport sends it with, under
 * `options.errorCodes` (`'released'`, the default, or `'draft'`).
 */
export function errorResponse(id, error, options) {
  if (error === null || typeof error !== 'object' || typeof error.rule !== 'string') {
    throw usage('errorResponse takes an MrtrError, or {rule, message}')
  }
  const data = error.data == null ? null : json(error.data, 'the error data')
  const args = [json(id ?? null, 'the id'), error.rule, string(error.message ?? '', 'the message'), data]
  if (options != null) args.push(json(options, 'the options'))
  return JSON.parse(call(() => native.errorResponse(...args)))
}

/** Test-only: panics inside the backend (`trap`: traps past the panic hook, wasm only); it throws a PanicError. */
export function __panicForTests(trap = false) {
  call(() => (trap ? native.__abortForTests() : native.__panicForTests()))
}

/** The whole API as one object: `import mrtr from 'mrtr'`. */
export default api
