// The kernel of the JavaScript API (lib/api.mjs, lib/exports.mjs): the
// tables and error classes built from the core's catalogue, the panic and
// error boundary (`call`), and the conversions every row uses: a JavaScript
// value into what the backend takes (JSON text, bytes, a checked integer)
// and the backend's answer back. It decides nothing: the core checks what it
// reads. Shared by both packages (the napi addon, and mrtr-wasm, whose build
// copies lib/*.mjs beside its own backend.mjs).
import native from './backend.mjs'
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
export const KINDS = catalogue.kinds.map((k) => k.value)
export const RESULT_TYPES = [null, ...catalogue.resultTypes.map((t) => t.value)]

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

export const fail = (rule, message, options) => new (errorClassFor(rule))(rule, message, options)
export const usage = (message) => new UsageError(Rule.UsageInvalidArgument, message)

/** What the backend threw, as this API's class. */
export function translate(e) {
  if (e instanceof MrtrError) return e
  if (typeof e?.code === 'string' && RULE_BY_ID.has(e.code)) {
    // After a panic the wasm backend starts a fresh instance at once, so that
    // objects of the trapped one fail their instance check from now on.
    if (e.code === Rule.InternalPanic) native.__wbg_reset_state?.()
    return fail(e.code, ...withData(e))
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

/**
 * A backend error's message and `data`: the wasm backend sets `data` (JSON
 * text); the napi one appends it to the message after a NUL.
 */
function withData(e) {
  const [message, after] = e.message.split('\u0000', 2)
  const data = e.data ?? after
  return data === undefined ? [message] : [message, { data: JSON.parse(data) }]
}

export function call(f) {
  try {
    return f()
  } catch (e) {
    throw translate(e)
  }
}

/** What a backend's check answered: nothing (null, undefined), or its refusal as JSON text, thrown with its `data`. */
export function refused(answer) {
  if (answer === null || answer === undefined) return
  const { rule, message, data } = JSON.parse(answer)
  throw fail(rule, message, { data })
}

// ---------------------------------------------------------------- conversion

/** A JS value as JSON text: too deep to write is over the depth bound, anything else JSON cannot hold a misuse. */
export function json(value, what) {
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
export function text(value, what) {
  if (typeof value === 'string' || value instanceof Uint8Array) return value
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  return json(value, what)
}

/** An optional argument: null and undefined are absent. */
export const optional = (value, convert, what) => (value === undefined || value === null ? undefined : convert(value, what))
/** Options (`{protocol, limits, maxRounds}`) as JSON text for the facade, which reads and checks them. */
export const settings = (value) => optional(value, json, 'the options')

export function string(value, what) {
  if (typeof value !== 'string') throw usage(`${what} is a string`)
  return value
}

/** A non-negative integer (a handle, a time, a key id). */
export function whole(value, what) {
  if (!Number.isSafeInteger(value) || value < 0) throw usage(`${what} is a non-negative integer`)
  return value
}

/** Bytes: a Uint8Array, or hex text. */
export function bytes(value, what) {
  if (value instanceof Uint8Array) return value
  if (typeof value === 'string' && /^(?:[0-9a-fA-F]{2})*$/.test(value)) {
    return Uint8Array.from(value.match(/../g) ?? [], (h) => parseInt(h, 16))
  }
  throw usage(`${what} is a Uint8Array or hex text`)
}

export const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
/** Random bytes for a seal, from the platform's CSPRNG (drawn 4 KiB at a time, each byte handed out once): the backends have none. */
let pool = new Uint8Array(0)
let drawn = 0
export function entropy() {
  if (drawn === pool.length) [pool, drawn] = [globalThis.crypto.getRandomValues(new Uint8Array(4096)), 0]
  return pool.subarray(drawn, (drawn += 32))
}

// ---------------------------------------------------------------- transports

/** Bytes of a body or a stream: a Uint8Array (a Buffer), an ArrayBuffer, or text (its UTF-8). */
export function chunk(value, what) {
  if (typeof value === 'string' || value instanceof Uint8Array) return value
  if (value instanceof ArrayBuffer) return new Uint8Array(value)
  throw usage(`${what} is a Uint8Array or a string`)
}

/**
 * Header fields as JSON text for the facade, which reads and checks them: a
 * plain object `{name: value}` (null and undefined: none). Anything else (a
 * fetch `Headers`, a `Map`) would stringify to `{}` and lose every field.
 */
export function headerFields(value) {
  if (value === undefined || value === null) return undefined
  const proto = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined
  if (proto !== Object.prototype && proto !== null) {
    throw usage('header fields are a plain object {name: value} (from a fetch Headers: Object.fromEntries(headers))')
  }
  return json(value, 'the header fields')
}

export const parsed = (t) => (t == null ? null : JSON.parse(t))

/** A yes or no. */
export function boolean(value, what) {
  if (typeof value !== 'boolean') throw usage(`${what} is a boolean`)
  return value
}

/** The backend object of each machine of lib/exports.mjs, kept off the public object. */
export const NATIVE = new WeakMap()
/** An instance of `cls` over the backend object `made` (a machine's other constructor, as `Operation.restore`). */
export function adopt(cls, made) {
  const self = Object.create(cls.prototype)
  NATIVE.set(self, made)
  return self
}
/** Refuses a call to what this backend leaves out (the wasm package leaves out `Operation` and `Session`). */
export function lacks(f, name) {
  if (typeof f !== 'function') throw usage(`this backend has no ${name}`)
}
