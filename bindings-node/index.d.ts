// Types of the JavaScript API of mrtr (lib/api.mjs), one file for both
// packages: the npm package `mrtr` (napi addon; CommonJS index.js, ESM
// index.mjs) and the wasm package `mrtr-wasm`, whose build copies it (with
// lib/tables.d.ts and its own lib/backend.d.ts) beside the same lib/api.mjs.
// The tables and the error classes of each area are generated from the core's
// catalogue into lib/tables.d.ts, and the declarations of the API's converting
// rows (lib/exports.mjs) from the core's table of exports into lib/exports.d.ts
// (both by mrtr-gen); the types they name and the rest are written by hand and
// checked against the runtime of both backends by test/declarations.test.mjs, and
// with tsc --strict on test/types (test/napi-package.test.mjs here,
// bindings-wasm/test/artifact.test.mjs there).
import type { AlgorithmName, AreaName, Kind, Protocol, ResultTypeName, Rule, RuleId, TaskStatus } from './lib/tables.js'
import type { PlatformBytes } from './lib/backend.js'
import type { HttpRequest, Incoming, Limits, Operation, OperationConfig, OperationEvent, Options, SessionConfig, SseEvent } from './lib/exports.js'

export * from './lib/tables.js'
export * from './lib/exports.js'
/** The bytes the API returns: a `Buffer` from the Node package, a `Uint8Array` from the wasm one. */
export type { PlatformBytes }

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
/** A JSON object. */
export type JsonObject = { [key: string]: Json }
/**
 * A message or object argument: the value itself, or its JSON text (a string,
 * or UTF-8 bytes), which the core parses straight from the bytes.
 */
export type JsonInput<T = JsonObject> = T | string | Uint8Array | ArrayBuffer
/** A JSON-RPC id: a string or an integer. */
export type Id = string | number

/** One row of the rule catalogue. */
export interface RuleInfo {
  /** The core's variant name: the key in `Rule`. */
  readonly key: keyof typeof Rule
  /** The stable kebab-case id. */
  readonly id: RuleId
  /** The stable number (the C ABI's error code). */
  readonly number: number
  /** The area: the error class the rule raises. */
  readonly area: AreaName
  /** The JSON-RPC error code a peer answers with, or null. */
  readonly code: number | null
  /** Where the rule comes from. */
  readonly source: string
}
/** The whole catalogue, in catalogue order. */
export declare const RULES: readonly RuleInfo[]

export type ProtocolName = (typeof Protocol)[keyof typeof Protocol]
export type TaskStatusName = (typeof TaskStatus)[keyof typeof TaskStatus]
export type KindName = (typeof Kind)[keyof typeof Kind]

/** The core's default limits. */
export declare const defaultLimits: Readonly<Required<Limits>>


// ------------------------------------------------------------------ errors

/**
 * Every failure: `.rule` is the rule id, `.code` the JSON-RPC code a peer
 * answers with (or null). Each rule raises the class of its area (from the
 * core's catalogue): ProtocolError, RetryError, StateError, TaskError,
 * AssociationError, TransportError, UsageError (a misuse of this API: an
 * argument of the wrong type or shape, an unknown handle, an input out of
 * turn) and PanicError (`internal-panic`: a bug in mrtr, caught at the
 * boundary; never an abort). A refusal that tells the client more carries it
 * in `.data` (-32021's `requiredCapabilities`, -32022's `supported` and
 * `requested`), which `errorResponse` puts in the error's `data`.
 */
export declare class MrtrError extends Error {
  /** The rule id. */
  readonly rule: RuleId
  /** The JSON-RPC error code (-32700, -32600, -32602, -32603, -32021, -32022, …), or null when the rule has none. */
  readonly code: number | null
  /** The members of the JSON-RPC error's `data` this refusal carries, or null. */
  readonly data: JsonObject | null
  constructor(rule: RuleId, message: string, options?: MrtrErrorOptions)
}
/** An MrtrError's options: the `cause`, and the `data` of a refusal that carries one. */
export interface MrtrErrorOptions extends ErrorOptions {
  data?: JsonObject | null
}
/** The MrtrError subclass of a rule's area. */
export declare function errorClassFor(rule: RuleId): typeof MrtrError

// ------------------------------------------------------------------ operations

/** What `classify` found. */
export interface Classified {
  kind: KindName
  /** The id, or null (notifications, error responses to unreadable requests). */
  id: Id | null
  /** The method of a request or notification, else null. */
  method: string | null
  /** For results: the declared type (absent reads as `complete`); else null. */
  resultType: ResultTypeName | null
  /** For results: whether `resultType` was on the wire. */
  resultTypePresent: boolean
}
/** Classifies and validates one raw message. Throws the rule the message breaks. */
export declare function classify(message: JsonInput<Json>, options?: Options): Classified

/** One message of a recorded conversation. */
export interface Entry {
  from: 'client' | 'server'
  message: Json
  /** For server messages: `post:<id>` (the stream of the client's POST of request <id>) or `get`. */
  stream?: string | null
  /** When it happened (ms). */
  at?: number
}
/** An event-stream block of a recorded response: as `SseEvent`, but `data` holds the JSON value it carried. */
export interface RecordedEvent {
  event?: string
  data?: Json
  id?: string
  retry?: number
}
/** An HTTP request of a recorded conversation (header names lower-case). */
export interface HttpClientEntry {
  from: 'client'
  at?: number
  http: { exchange: string; method: string; url: string; headers?: HeaderFields; body?: Json }
}
/** (Part of) the response to the exchange of the same name: status and headers on its first entry. */
export interface HttpServerEntry {
  from: 'server'
  at?: number
  http: { exchange: string; status?: number; headers?: HeaderFields; events?: RecordedEvent[]; body?: Json; end?: boolean }
}
/** Any entry of a transcript: a message, or an HTTP exchange's part. */
export type TranscriptEntry = Entry | HttpClientEntry | HttpServerEntry


/** A request started with `Client.send`. */
export type Handle = number

// ------------------------------------------------------------------ transports

/** How JSON-RPC travels over HTTP: Streamable HTTP of a protocol, or a multi-turn SSE transport. */
export type TransportMode = '2026-07-28' | '2025-11-25' | 'sep-1858' | 'sep-1335'
/** HTTP header fields: names (lower-case on the way out) to values. */
export type HeaderFields = { [name: string]: string }
/** Bytes of a body or a stream: UTF-8 text is accepted too. */
export type Chunk = Uint8Array | ArrayBuffer | string


/** A question the server asks: an elicitation, a sampling call, a roots list. */
export interface Question {
  method: string
  params: JsonObject
}
/** What `runOperation` hands an HTTP exchange's response to. */
export interface ExchangeEvents {
  head(status: number, headers: HeaderFields): void
  body(chunk: Chunk): void
  /** Once: the response ended, or the connection failed or was cut. */
  end(): void
}
/** Sends one HTTP request and reports its response. */
export type Exchange = (request: HttpRequest, on: ExchangeEvents) => void
/** An `Exchange` over `fetch` (the platform's by default). */
export declare function fetchExchange(fetchImpl?: typeof fetch): Exchange
export interface RunOptions {
  exchange?: Exchange
  /** The answer to one question (sync or async). */
  onInput: (question: Question, key: string) => Json | Promise<Json>
  /** Every event but the last: `inputRequired` (before its questions are asked), violations, messages. */
  onEvent?: (event: OperationEvent) => void
  /** The clock, in ms (default `performance.now()`). */
  now?: () => number
}
/** Drives `operation` to its final JSON-RPC response over HTTP; rejects with the failure's MrtrError. */
export declare function runOperation(operation: Operation, options: RunOptions): Promise<JsonObject>
/** A JSON-RPC error the server answered with. */
export declare class ResponseError extends Error {
  readonly code: number | null
  readonly data: Json
  readonly response: JsonObject
  constructor(response: JsonObject)
}
/** An `McpClient`'s options: the session's, the operation's (but `url`), the exchange. */
export type McpClientOptions = SessionConfig & Omit<Partial<OperationConfig>, 'url'> & { exchange?: Exchange }
/** One call's options: `onInput` answers what the server asks (default: none may be asked). */
export type CallOptions = Partial<Omit<RunOptions, 'exchange'>>
/**
 * An MCP client over HTTP: `await client.callTool('weather', {city}, {onInput})`.
 * Each request is written by its session and carried by an `Operation`.
 */
export declare class McpClient {
  constructor(url: string, options?: McpClientOptions)
  /** The final JSON-RPC response (a result, or an error the server answered). */
  request(method: string, params?: JsonInput | null, options?: CallOptions): Promise<JsonObject>
  /** The tool's result; rejects with ResponseError on an error response. */
  callTool(name: string, args?: JsonObject | null, options?: CallOptions): Promise<JsonObject>
  getPrompt(name: string, args?: JsonObject | null, options?: CallOptions): Promise<JsonObject>
  readResource(uri: string, options?: CallOptions): Promise<JsonObject>
  /** Every tool the server lists, following `nextCursor` page by page. */
  listTools(options?: CallOptions): Promise<JsonObject[]>
  listPrompts(options?: CallOptions): Promise<JsonObject[]>
  listResources(options?: CallOptions): Promise<JsonObject[]>
}
/** Reads an incoming HTTP request (`body`: null or undefined for none); a body that is no JSON-RPC throws its rule. */
export declare function readHttpRequest(
  mode: TransportMode,
  method: string,
  url: string,
  headers: HeaderFields | null | undefined,
  body: Chunk | JsonObject | JsonObject[] | null | undefined,
  options?: Options,
): Incoming

// ------------------------------------------------------------------ sealed state

/** Bytes, or their hex text. */
export type Bytes = Uint8Array | string
/** A sealing key: 32 secret bytes, or a master secret to derive it from (by id): at least 32 uniformly random bytes, not a password. */
export type Key =
  | { id: number; algorithm: AlgorithmName; secret: Bytes; master?: undefined }
  | { id: number; algorithm: AlgorithmName; master: Bytes; secret?: undefined }
/**
 * Whom a token belongs to, named explicitly: the authenticated principal
 * (non-empty), or the choice of no principal. Neither, both, or an empty
 * subject is a UsageError: nothing defaults to anonymous.
 */
export type Subject = { subject: string; anonymous?: false | undefined } | { anonymous: true; subject?: undefined }
/** The request a token is bound to: its params (every param but `inputResponses`, `requestState`, `_meta`), or their digest. */
export type BoundRequest = {
  protocol?: ProtocolName
  method: string
  /** What the method acts on: the tool or prompt name, the resource URI, the task id. */
  target: string
} & (
  | { /** The request's `params` object. */ params: JsonObject; paramsDigest?: undefined }
  | { /** `paramsDigest(params)`, as bytes or 64 hex digits. */ paramsDigest: Bytes; params?: undefined }
)
/**
 * What a token is bound to: a subject and a request. As an object, or as its
 * JSON text (a string or bytes), passed to the core as it is: the way to bind
 * numbers that no JavaScript number holds exactly.
 */
export type Binding = (Subject & BoundRequest) | string | Uint8Array
/** The binding of `request` for a subject. */
export declare function bindingFor(
  request: JsonInput,
  subject: Subject,
  protocol?: ProtocolName,
): Subject & { protocol: ProtocolName; method: string; target: string; paramsDigest: PlatformBytes }
/** What anyone can read off a token without a key; none of it is authenticated until the token opens. */
export interface TokenInfo {
  /** The state's id (its nonce), lower-case hex: the key of a single-use store. */
  stateId: string
  keyId: number
  algorithm: AlgorithmName
  /** Seconds since the Unix epoch. */
  expiry: number
}
/**
 * A single-use store hook: records `stateId` and answers true the first time,
 * false after; it may forget the id after `expiry` (seconds since the epoch).
 * Called synchronously: no promise. When it throws, the state is refused and
 * its exception reaches the caller.
 */
export type ReplayGuard = (stateId: string, expiry: number) => boolean
/** Settings of a ring. */
export interface KeyRingOptions {
  /** The deployment label every token is sealed and opened under (text or bytes, at most 64 bytes): staging never opens production's tokens. */
  context?: string | Uint8Array
  /** How many seals each key may make in this process (its share of the fleet's budget); past it, `usage-seal-budget-spent`. */
  sealBudget?: number
}
/** A token that opened. */
export interface Opened {
  payload: PlatformBytes
  /** The state's id, lower-case hex. */
  stateId: string
  /** When it expires, seconds since the Unix epoch. */
  expiry: number
}
/** Keys by id: seals with the current one, opens with any. */
export declare class KeyRing {
  constructor(current: Key, options?: KeyRingOptions)
  /** Adds a key that opens tokens (replacing one with the same id). */
  add(key: Key): void
  /** Makes the key with `id` the sealing key; false if the ring lacks it. */
  setCurrent(id: number): boolean
  /** Drops the key with `id` (not the current one); false if it could not. */
  remove(id: number): boolean
  /** The bound on a token's length, checked before any decoding. */
  setMaxTokenBytes(max: number): void
  /** How many seals the key `id` has made in this process; null if the ring lacks it. */
  seals(id: number): number | null
  /** Seals `payload` bound to `binding`, expiring `ttl` s after `now` (s since the epoch), with a fresh random nonce. */
  seal(binding: Binding, now: number, ttl: number, payload: string | Uint8Array | Json): string
  /** Opens `token` for `binding` at `now` (single-use under `guard`), or throws a StateError. */
  open(token: string | Uint8Array, binding: Binding, now: number, options?: { guard?: ReplayGuard | null }): Opened
}
/** What a server knows after reading a request in sealed rounds. */
export interface Round {
  /** Every needed answer collected so far, in the order of `needs`. */
  answers: JsonObject
  /** Needed keys still without an answer. */
  missing: string[]
  /** Keys this request answered that are not needed. */
  ignored: string[]
  /** The tool's own data from the previous round, or null. */
  data: Json
  /** How many `input_required` rounds came before this request (0 on a first request). */
  round: number
  /** The id of the state this request carried (lower-case hex), or null. */
  stateId: string | null
  /** Its expiry, seconds since the Unix epoch, or null. */
  expiry: number | null
}
/** A deployment's settings of sealed rounds, given once. */
export interface SealedRoundsSettings {
  ring: KeyRing
  /** How long a round may take, in seconds (default 300). */
  ttl?: number
  protocol?: ProtocolName
  limits?: Limits
  /** An answer counts only for the exact question it answered (default true). */
  pinAnswers?: boolean
  /** The rounds an await-style tool (`runTool`) may take (default 10); one more is `retry-rounds-exceeded`. */
  maxRounds?: number
}
/** What is per request: the subject, the caller's clock (seconds since the epoch). */
export type RoundCall = Subject & { now: number; guard?: ReplayGuard | null }
/** A server's rounds with sealed state: earlier answers travel in the sealed `requestState`. */
export declare class SealedRounds {
  constructor(settings: SealedRoundsSettings)
  /** This request's answers plus the sealed earlier ones; with a `guard`, each state is single-use. */
  resume(request: JsonInput, needs: JsonInput, call: RoundCall): Round
  /** The `input_required` response asking what `round` misses, sealing what it has (and `data`). */
  respond(request: JsonInput, round: Round, needs: JsonInput, data: Json | undefined, call: RoundCall): JsonObject
}

// ------------------------------------------------------------------ the server's builders

/** `checkRequest`'s options: the request's HTTP header fields (absent: it did not come over HTTP), the protocol, the limits. */
export interface CheckRequestOptions extends Options {
  headers?: HeaderFields | null
}
/**
 * What every request must pass before a server acts on it: its `_meta`
 * (`request-meta-missing`), its HTTP header fields when given
 * (`request-header-mismatch`, -32020), then a protocol version among
 * `supported` (`protocol-version-unsupported`, -32022, whose `.data` lists
 * `supported` and `requested`). Throws the refusal, a ProtocolError.
 */
export declare function checkRequest(request: JsonInput, supported: readonly string[], options?: CheckRequestOptions): void
/** Input requests by key (an `inputRequests` object), as a server would ask them. */
export type AskedQuestions = { [key: string]: Question<unknown> }
/**
 * A task as a server keeps it (Tasks extension): the fields every task has,
 * and where they apply `result` (completed), `error` (failed),
 * `inputRequests` and `answered` (input_required: the keys `tasks/update` answered).
 */
export interface TaskRecord {
  taskId: string
  status: TaskStatusName
  createdAt: string
  lastUpdatedAt: string
  /** Milliseconds, or null: kept until deleted. */
  ttlMs: number | null
  statusMessage?: string
  pollIntervalMs?: number
  result?: JsonObject
  error?: JsonObject
  inputRequests?: AskedQuestions
  answered?: string[]
}

// ------------------------------------------------------------------ await-style tools

/**
 * A question a tool asks: an input request (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`), built by `ctx.q`. `A` is the type
 * of its answer (for the types only: no such field is ever present).
 */
export interface Question<A = JsonObject> {
  method: string
  params: JsonObject
  /** Never present: the type of the answer. */
  readonly __answer?: A
}
/** The answer to a form elicitation: `content` when accepted. */
export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel'
  content?: { [field: string]: string | number | boolean | string[] }
  _meta?: JsonObject
}
/** The answer to a sampling request: the client model's message. */
export interface SampleAnswer {
  role: 'user' | 'assistant'
  content: Json
  model: string
  stopReason?: string
  _meta?: JsonObject
}
/** The answer to a roots request. */
export interface RootsAnswer {
  roots: { uri: string; name?: string; _meta?: JsonObject }[]
  _meta?: JsonObject
}
/** The params of a sampling request (`sampling/createMessage`). */
export type SampleParams = { messages: Json[]; maxTokens: number } & JsonObject
/** The question builders (the core builds each input request). */
export interface Questions {
  /** A form elicitation asking `message`, the answer shaped by `requestedSchema`. */
  elicit(message: string, requestedSchema: JsonInput): Question<ElicitAnswer>
  /** A sampling request with these params. */
  sample(params: JsonInput<SampleParams>): Question<SampleAnswer>
  /** A request for the client's roots. */
  roots(): Question<RootsAnswer>
}
/** The answers of `askAll(...questions)`, in order. */
export type Answers<Q extends readonly Question<unknown>[]> = { -readonly [K in keyof Q]: Q[K] extends Question<infer A> ? A : never }
/**
 * What a tool asks with (`runTool` makes one per request, `BridgedCall` one
 * per round). An answered ask resolves at once; the first unanswered one ends
 * the round, and its promise never settles: the tool is dropped there (no
 * `catch`, no `finally` of it runs) and replayed from the top on the next
 * request, so code before an ask must be free of side effects. Several asks made before any await (`askAll`,
 * or a `Promise.all` over asks) are asked in one round.
 */
export interface ToolContext {
  /** The request, as parsed. */
  readonly request: JsonObject
  /** How many rounds came before this request (0 on a first request). */
  readonly round: number
  /** The id of the sealed state this request carried (lower-case hex: the key of a single-use store), or null. */
  readonly stateId: string | null
  /** Its expiry, seconds since the Unix epoch, or null. */
  readonly expiry: number | null
  /** The data the last round kept (null if none); assign it to keep something else for the next round. */
  data: Json
  /** The question builders. */
  readonly q: Questions
  /**
   * Whether the request declared every client capability `questions` need
   * (mode-aware: `elicitation.url`, `sampling.tools`): ask only what it allows.
   */
  allows(...questions: Question<unknown>[]): boolean
  /**
   * Throws `request-capability-missing` (-32021, `.data.requiredCapabilities`
   * naming them) unless the request declared every capability `questions`
   * need: for a tool that cannot work without them.
   */
  require(...questions: Question<unknown>[]): void
  /** Asks `question` under `key`, or the key of its order (`q1`, `q2`, …). */
  ask<A = JsonObject>(question: Question<A>, options?: { key?: string }): Promise<A>
  /** Asks every question in one round: their answers, in order. */
  askAll<const Q extends readonly Question<unknown>[]>(...questions: Q): Promise<Answers<Q>>
  /** Asks the user through a form. */
  elicit(message: string, requestedSchema: JsonInput): Promise<ElicitAnswer>
  /** Asks the client's model. */
  sample(params: JsonInput<SampleParams>): Promise<SampleAnswer>
  /** Asks the client's roots. */
  roots(): Promise<RootsAnswer>
}
/** An await-style tool: its arguments and a context to ask with, its result (a `CallToolResult`). */
export type Tool<Args extends JsonObject = JsonObject> = (args: Args, ctx: ToolContext) => JsonObject | Promise<JsonObject>
/**
 * `runTool`'s options: the deployment's settings (a `SealedRounds`, or its
 * settings in its place), and this call's subject, clock and guard.
 */
export type RunToolOptions = ({ rounds: SealedRounds; ring?: undefined } | (SealedRoundsSettings & { rounds?: undefined })) &
  RoundCall
/**
 * Runs an await-style tool on a `tools/call` request, statelessly (each
 * request replays it, the answers travelling in sealed `requestState`): the
 * JSON-RPC response, `input_required` or `complete`. A refusal rejects with
 * its MrtrError (see `errorResponse`); what the tool throws rejects as it was.
 */
export declare function runTool<Args extends JsonObject = JsonObject>(
  tool: Tool<Args>,
  request: JsonInput,
  options: RunToolOptions,
): Promise<JsonObject>
/**
 * `runTool` with the response as the JSON text the core wrote (the body to
 * send): pass the request as the body's bytes; `ctx.request` is parsed only if read.
 */
export declare function runToolText<Args extends JsonObject = JsonObject>(
  tool: Tool<Args>,
  request: JsonInput,
  options: RunToolOptions,
): Promise<string>
/** `BridgedCall`'s options. */
export interface BridgedCallOptions {
  /** The key of the stream's event ids (default: random). */
  key?: string
  /** The rounds the tool may take (default 10); one more ends the call with `retry-rounds-exceeded`. */
  maxRounds?: number
  /** How long a round waits for its answers, in ms of `clock` (default 300 000); then the call ends with `limit-exceeded`. */
  roundTimeoutMs?: number
  /** The clock, in whole milliseconds (default: monotonic, `performance.now()`). */
  clock?: () => number
}
/**
 * The legacy bridge: one `2025-11-25` call of the same await-style tool
 * `runTool` serves, whose questions reach the client as server requests on
 * the call's event stream (SEP-2260). Write each text of `stream()` to the
 * call's `text/event-stream` response; route every JSON-RPC response the
 * client POSTs to one of `pending` to `deliver`. Each round replays the tool
 * from the answers so far; a refusal in the tool (an MrtrError it throws, or
 * one at an ask), a round unanswered after `roundTimeoutMs`, or a tool still
 * asking after `maxRounds` ends the call with its error response. The call
 * lives in this instance's memory, on the open stream.
 */
export declare class BridgedCall<Args extends JsonObject = JsonObject> {
  constructor(tool: Tool<Args>, request: JsonInput, options?: BridgedCallOptions)
  /** The ids of the server requests waiting for the client's answers. */
  readonly pending: string[]
  /** Whether the call's final response (or error) was written. */
  readonly done: boolean
  /**
   * A JSON-RPC response the client POSTed. One that does not fit its question
   * throws `retry-input-response-invalid` (the round still waits); one to no
   * pending request `usage-out-of-turn`.
   */
  deliver(response: JsonInput): void
  /** The event-stream text of the call, in order, until its final response. */
  stream(): AsyncGenerator<string, void, undefined>
}
/**
 * The JSON-RPC error response to request `id` for `error`, and the HTTP status
 * to send it with; `data` adds members to the error's `data` (as -32021's
 * `requiredCapabilities` or -32022's `supported` and `requested`).
 * `options.errorCodes`: `'released'` (default) or `'draft'`, the next
 * revision's draft registry (a refused state is -32026 `StaleState`).
 */
export declare function errorResponse(
  id: Id | null,
  error: MrtrError | { rule: RuleId; message: string; data?: JsonObject },
  options?: { errorCodes?: 'released' | 'draft' },
): { response: JsonObject; status: number }

/**
 * Test vectors only, never in a released package: seals with the caller's
 * `nonce`. Works only over a backend built with the cargo feature
 * `test-vectors`; elsewhere (every published build) it throws a UsageError.
 */
export declare function __sealWithNonceForTestVectors(
  ring: KeyRing,
  binding: Binding,
  now: number,
  ttl: number,
  payload: string | Uint8Array | Json,
  nonce: Bytes,
): string

/** Test-only: panics inside the backend (it throws a PanicError). Not part of the API. */
export declare function __panicForTests(): never
