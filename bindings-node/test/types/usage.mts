// Type-checked with tsc --strict against index.d.ts, for both packages: by
// test/napi-package.test.mjs (with napi.mts, the Node-only part) and by
// bindings-wasm/test/artifact.test.mjs (which maps 'mrtr' to its built
// pkg/index.d.ts). The README example and every export, used as a TypeScript
// user would.
import {
  classify, check, Checker, retry, respond, resume, taskUpdate, taskTransition, Client, KeyRing, SealedRounds,
  bindingFor, paramsDigest, inspect, SseDecoder, sseEncode, HttpCall, ServerStream, readHttpRequest, streamUrl,
  unassociatedReply, Rule, RULES, Protocol, TaskStatus, Kind, defaultLimits, errorClassFor,
  MrtrError, ProtocolError, RetryError, StateError, TaskError, AssociationError, TransportError, UsageError, PanicError,
  type ClientEvent, type Json, type JsonObject, type RuleId, type Violation, type Round, type PlatformBytes, type AreaName,
  type Binding, type ReplayGuard, type Opened, type TokenInfo, type SseEvent, type HttpRequest, type HttpCallEvent,
  type Incoming, type HeaderFields, type TranscriptEntry,
  runTool, errorResponse, type Tool, type ToolContext, type Question, type ElicitAnswer, type SampleAnswer, type RootsAnswer,
  type RunToolOptions,
  checkRequest, missingCapabilities, requireCapabilities, requireDeclared, taskCreated, taskGetResponse, BridgedCall,
  type TaskRecord, type BridgedCallOptions, type CheckRequestOptions,
} from 'mrtr'

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: { location: 'NYC' }, _meta: meta } }
const ask = { login: { method: 'elicitation/create', params: { message: 'GitHub user?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } }

const answer: JsonObject = respond(call, ask, 's1', { protocol: Protocol.V2026_07_28 })
const again: JsonObject = retry(call, answer, { login: { action: 'accept', content: { name: 'octocat' } } }, 2)
const got = resume(again, ask)
const state: string | null = got.requestState
const missing: string[] = got.missing
const kind: 'request' | 'notification' | 'result' | 'input_required' | 'error' = classify(JSON.stringify(call)).kind
const same: boolean = kind === Kind.Request
const violations: Violation[] = check([{ from: 'client', message: call }], { maxRounds: 3 })
const checker = new Checker()
checker.handle({ from: 'server', message: answer, stream: 'post:1' })
const rule: RuleId = violations[0]?.rule ?? Rule.RetryIdReused
const code: number | null = RULES[0].code
const area: AreaName = RULES[0].area
const status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled' = taskTransition(TaskStatus.Working, TaskStatus.Completed)
taskUpdate(call, answer, {}, 3, { limits: { maxDepth: 64 } })

const client = new Client({ protocol: '2026-07-28', maxRounds: 5, limits: defaultLimits })
const handle: number = client.send(call)
for (const m of client.transmits()) void m.id
client.handleResponse(new TextEncoder().encode(JSON.stringify(answer)))
const event: ClientEvent | null = client.pollEvent()
if (event?.type === 'inputRequired') client.answer(event.handle, {}, 'r2')
else if (event?.type === 'done') void event.response.result
client.abandon(handle)

const secret = crypto.getRandomValues(new Uint8Array(32))
const ring = new KeyRing({ id: 1, algorithm: 'xchacha20-poly1305', secret }, { context: 'production', sealBudget: 1_000_000 })
ring.add({ id: 2, algorithm: 'xchacha20-poly1305', master: 'deadbeef'.repeat(8) })
const bound = bindingFor(call, { subject: 'alice' })
const token: string = ring.seal(bound, 1000, 60, 'payload')
const used = new Set<string>()
const guard: ReplayGuard = (stateId, expiry) => expiry > 0 && !used.has(stateId) && used.add(stateId).has(stateId)
const byHand: Binding = { subject: 'alice', method: 'tools/call', target: 'get_weather', paramsDigest: paramsDigest(call.params) }
const anonymous: Binding = { anonymous: true, method: 'tools/call', target: 'get_weather', params: { name: 'get_weather' } }
const exact: Binding = '{"subject":"alice","method":"tools/call","target":"t","params":{"n":100000000000000000001}}'
const result: Opened = ring.open(token, byHand, 1000, { guard })
const opened: PlatformBytes = result.payload
const info: TokenInfo = inspect(token)
const seals: number | null = ring.seals(1)
const rounds = new SealedRounds({ ring, ttl: 120, pinAnswers: true })
const round: Round = rounds.resume(call, ask, { subject: 'alice', now: 1000, guard })
const roundNumber: number = round.round
const stateId: string | null = round.stateId
rounds.respond(call, round, ask, { step: 1 }, { anonymous: true, now: 1000 })
void [anonymous, exact, info.stateId, seals, roundNumber, stateId, result.expiry]
// The transports: the decoder, a call over SEP-1335, the server's side, a check of HTTP entries.
const decoder = new SseDecoder({ limits: { maxMessageBytes: 1 << 20 } })
decoder.feed(new TextEncoder().encode(sseEncode({ event: 'buffer_input', id: 'k.0' })))
decoder.feed('data: {}\n\n')
decoder.finish()
for (const block of decoder.events()) void block.data
const block: SseEvent | null = decoder.pollEvent()
const http = new HttpCall({ mode: 'sep-1335', url: 'https://mcp.example.com/mcp', headers: { 'mcp-protocol-version': '2025-11-25' }, maxLinks: 8 }, call, 0)
const sent: HttpRequest | null = http.pollTransmit()
if (sent) {
  http.handleHead(sent.exchange, 200, { 'content-type': 'text/event-stream' }, 1)
  http.handleBody(sent.exchange, new Uint8Array(0), 1)
  http.handleEnd(sent.exchange, 2)
}
for (const e of http.events()) {
  const ev: HttpCallEvent = e
  if (ev.type === 'serverRequest') http.answer({ jsonrpc: '2.0', id: ev.message.id ?? null, result: {} }, 3)
  else if (ev.type === 'failed') void (ev.rule satisfies RuleId)
}
const wake: number | null = http.pollTimeout()
if (wake !== null) http.handleTimeout(wake)
const finished: boolean = http.done && http.isDone()
const stream = new ServerStream('sep-1335', 'k', 0)
const head: HeaderFields = stream.head(streamUrl('https://mcp.example.com/mcp', 'k'))
const lastId: string = stream.ask([{ jsonrpc: '2.0', id: 's-1', method: 'roots/list' }], 1000)
const sse: string = stream.take()
const incoming: Incoming = readHttpRequest('sep-1335', 'POST', 'https://mcp.example.com/mcp?stream=k', {}, '[]', { protocol: '2025-11-25' })
if (incoming.type === 'answers') void incoming.responses.length
const reply: JsonObject | null = unassociatedReply({ jsonrpc: '2.0', id: 1, method: 'roots/list' })
const entries: TranscriptEntry[] = [{ from: 'client', at: 0, http: { exchange: 'e1', method: 'GET', url: 'https://mcp.example.com/mcp' } }]
check(entries, { protocol: '2025-11-25', transport: 'sep-1858' })
new Checker({ transport: 'sep-1335' }).handle({ from: 'server', http: { exchange: 'e1', status: 204, end: true } })
void [block, finished, head, lastId, sse, reply]
// @ts-expect-error: a mode is one of four names
new ServerStream('sep-9999', 'k', 0)
// @ts-expect-error: a call's time is required
new HttpCall({ mode: 'sep-1858', url: 'https://mcp.example.com/mcp' }, call)

// What the types refuse: a binding without a subject or without params, a nonce, per-call values in the settings.
// @ts-expect-error: no subject
ring.seal({ method: 'tools/call', target: 't', params: {} }, 1000, 60, 'x')
// @ts-expect-error: no params
ring.seal({ subject: 'alice', method: 'tools/call', target: 't' }, 1000, 60, 'x')
// @ts-expect-error: no nonce argument
ring.seal(bound, 1000, 60, 'x', '000102030405060708090a0b')
// @ts-expect-error: the subject is named
bindingFor(call, 'alice')
// @ts-expect-error: subject and clock come with each call
new SealedRounds({ ring, subject: 'alice', now: 1000 })

// Await-style tools: each answer typed by its question, askAll's as a tuple.
const nameSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
const greet: Tool<{ punctuation: string }> = async (args, ctx: ToolContext) => {
  const name: ElicitAnswer = await ctx.elicit('Your name?', nameSchema)
  const [confirm, colour, { roots }] = await ctx.askAll(
    ctx.q.elicit('Sure?', { type: 'object', properties: {} }),
    ctx.q.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'A colour?' } }], maxTokens: 10 }),
    ctx.q.roots(),
  )
  const kept: Json = ctx.data
  ctx.data = { step: ctx.round, kept, stateId: ctx.stateId, expiry: ctx.expiry }
  const keyed: ElicitAnswer = await ctx.ask(ctx.q.elicit('Login?', nameSchema), { key: 'login' })
  const any: JsonObject = await ctx.ask({ method: 'roots/list', params: {} })
  const [s, r]: [SampleAnswer, RootsAnswer] = await Promise.all([ctx.sample({ messages: [], maxTokens: 1 }), ctx.roots()])
  void [confirm.action satisfies 'accept' | 'decline' | 'cancel', colour.model, keyed, any, s.role, r.roots, ctx.request.id]
  return { content: [{ type: 'text', text: `${String(name.content?.name)} ${roots[0]?.uri ?? ''}${args.punctuation}` }] }
}
const question: Question<ElicitAnswer> = { method: 'elicitation/create', params: {} }
const toolOptions: RunToolOptions = { rounds, subject: 'alice', now: 1000, guard }
async function serveTool(request: JsonObject): Promise<JsonObject> {
  try {
    await runTool(greet, request, { ring, ttl: 60, maxRounds: 5, anonymous: true, now: 1000 })
    return await runTool(greet, JSON.stringify(request), toolOptions)
  } catch (e) {
    if (!(e instanceof MrtrError)) throw e
    const { response, status }: { response: JsonObject; status: number } = errorResponse(1, e)
    void [status, errorResponse(null, { rule: Rule.StateReplayed, message: 'again' })]
    return response
  }
}
void [serveTool, question]
// @ts-expect-error: the clock is given
void runTool(greet, call, { rounds, subject: 'alice' })
// @ts-expect-error: the settings are in rounds, or in its place
void runTool(greet, call, { rounds, ring, subject: 'alice', now: 1 })
// @ts-expect-error: a tool returns its result object
void runTool(async () => 'hi', call, toolOptions)

// The server's builders, errors that carry data, and the legacy bridge.
const checkOptions: CheckRequestOptions = { headers: { 'mcp-protocol-version': '2026-07-28' }, protocol: '2026-07-28' }
try {
  checkRequest(call, ['2026-07-28'], checkOptions)
  requireCapabilities(call, { r: { method: 'roots/list', params: {} } })
  requireDeclared(call, { extensions: { 'io.modelcontextprotocol/tasks': {} } }, { protocol: '2026-07-28' })
} catch (e) {
  if (e instanceof ProtocolError) void (e.data?.requiredCapabilities satisfies Json | undefined)
}
const needed: JsonObject | null = missingCapabilities(call, { s: { method: 'sampling/createMessage', params: {} } })
const record: TaskRecord = { taskId: 't', status: 'working', createdAt: 'a', lastUpdatedAt: 'b', ttlMs: null }
const started: JsonObject = taskCreated(call, record)
const shown: JsonObject = taskGetResponse({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 't' } }, { ...record, pollIntervalMs: 100 })
const withData = new ProtocolError('request-capability-missing', 'no', { data: { requiredCapabilities: { roots: {} } } })
const carried: JsonObject | null = withData.data
const bridgeOptions: BridgedCallOptions = { key: '0123456789abcdef', maxRounds: 3, roundTimeoutMs: 1000, clock: () => Date.now() }
const bridged = new BridgedCall(greet, call, bridgeOptions)
async function pipe(write: (text: string) => void): Promise<void> {
  for await (const text of bridged.stream()) write(text)
}
bridged.deliver({ jsonrpc: '2.0', id: bridged.pending[0] ?? 'x', result: {} })
const allowing: Tool = async (args, ctx) => {
  if (!ctx.allows(ctx.q.roots())) return { content: [] }
  ctx.require(ctx.q.elicit('Name?', nameSchema), ctx.q.roots())
  return { content: [{ type: 'text', text: String(bridged.done) }] }
}
void [needed, started, shown, carried, pipe, allowing]
// @ts-expect-error: the versions served are a list
checkRequest(call, '2026-07-28')
// @ts-expect-error: a task record has its status
taskCreated(call, { taskId: 't', createdAt: 'a', lastUpdatedAt: 'b', ttlMs: null })

try {
  classify('{')
} catch (e) {
  if (e instanceof MrtrError) {
    const r: RuleId = e.rule
    const c: number | null = e.code
    void [r, c]
    if (e instanceof PanicError || e instanceof UsageError) void e.rule
  }
}
const classes: (typeof MrtrError)[] = [ProtocolError, RetryError, StateError, TaskError, AssociationError, TransportError, UsageError, PanicError, errorClassFor('state-expired')]
const bytes: Uint8Array = opened
void [state, missing, same, rule, code, area, status, bytes, classes]
