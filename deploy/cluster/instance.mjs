// One instance of the cluster (issue #14) on mrtr's Node binding: node:http + ioredis. The same instance as
// instance.py, in Node: the same command line, endpoints, Redis keys and JSON records, the same commit.lua
// and the same tool, so that instances of both languages serve one run side by side behind a round-robin
// balancer, each finishing the operations the other began.
//
// Serves the await-style tool `plan` (tools.md) at /mcp/{mode}. No call is held in memory between
// requests, except in `legacy`, the contrast:
// - mrtr (2026-07-28): checkRequest, then runTool over sealed rounds: the answers travel in the sealed
//   requestState. The final round commits (commit.lua) under the state id of its requestState, so a final
//   request sent twice gets the committed response, the effect counted once.
// - tasks (2026-07-28 + the Tasks extension): tools/call makes a task record in Redis; the tool runs by
//   replay at creation and at each tasks/update that completes a round (under a per-task Redis lock), the
//   last round's sealed requestState kept in the record. Completion commits under the task id.
// - sep-1858 / sep-1335 (2025-11-25 over those transports): the continuation lives in Redis (the original
//   request, each round's answers, every event block written). A 2025-11-25 request carries no sealed
//   state, so the call's BridgedCall is rebuilt from the stored answers (the tool replayed once per round)
//   to ask the next round (ServerStream.ask) or give the final message (committed under the continuation
//   key). New events go to Redis before they are streamed, so any instance resumes after any Last-Event-ID.
// - legacy (2025-11-25): a BridgedCall on this process's open stream. initialize gives a random
//   Mcp-Session-Id; every later POST must name one (400 otherwise). A POSTed answer goes only to an open call
//   of this process that came in the same session and asked that id; any other answer is refused with 400 and
//   a JSON-RPC error without id (usage-unknown-handle), as 2025-11-25 has a server refuse input it cannot
//   accept (not 404, which tells a client its session is gone). Behind round robin most answers reach another
//   instance.
//
// Every protocol decision and shape is mrtr's; this file converts, stores and routes. Every response
// carries x-served-by; every Redis key starts with `<prefix>:`; Redis out of reach answers 503 (the client
// retries). Redis asks for a password (requirepass): read from --redis-password-file, never from the command
// line.
//
//   node deploy/cluster/instance.mjs --port P --name NAME --redis redis://127.0.0.1:RP \
//     --redis-password-file PASSWORD --keys KEYS.json --current KID --prefix RUN
import { randomBytes, randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { parseArgs } from 'node:util'
import Redis from 'ioredis'
import {
  BridgedCall, KeyRing, Kind, MrtrError, SealedRounds, ServerStream, SseDecoder, TaskStatus, checkRequest,
  classify, complete, discover, errorClassFor, errorResponse, inspect, readHttpRequest, requireDeclared, respond, resume, retry,
  runTool, sseEncode, streamUrl, taskCreated, taskGetResponse, taskTransition,
} from '../../bindings-node/index.mjs'

const MRTR = '2026-07-28'
const LEGACY = '2025-11-25'
const TASKS_DECLARED = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const VERSION = JSON.parse(readFileSync(new URL('../../bindings-node/package.json', import.meta.url))).version
const INFO = { name: 'mrtr-cluster-node', version: VERSION }
const RETRY_MS = 200 // the retry a SEP-1335 stream names before the client POSTs its answers
const ROUND_TIMEOUT_MS = 5000 // legacy: a round unanswered this long ends the call
const DONE_TTL = 900 // seconds a completion is kept: longer than a sealed state lives (300 s)
const TEXT = { 'content-type': 'text/plain' }
const CALL_TTL_MS = 600_000
const TASK_TTL_MS = 300_000
const POLL_MS = 200
// A lock's lease (redis-py's Lock(timeout=2) in instance.py): what runs under it is one replay and a few
// writes, and a lock whose holder was killed blocks the call's next request until the lease ends.
const LOCK_MS = 2_000

// ------------------------------------------------------------------ the tool (tools.md)

const form = (field, kind) => ({ type: 'object', properties: { [field]: { type: kind } }, required: [field] })

/** Two or three rounds; each question depends only on earlier answers, so any instance replays it alike. */
async function plan(args, ctx) {
  const name = String((await ctx.elicit('Who is travelling?', form('name', 'string')))?.content?.name ?? '')
  const prompt = { role: 'user', content: { type: 'text', text: 'Plan a trip for ' + name } }
  const [summary, roots] = await ctx.askAll(ctx.q.sample({ messages: [prompt], maxTokens: 50 }), ctx.q.roots())
  if (args.rounds === 3) await ctx.elicit('Confirm the plan for ' + name + '?', form('ok', 'boolean'))
  const said = summary?.content?.text ?? ''
  const text = `planned ${args.op} for ${name}: ${said} (${(roots?.roots ?? []).length} roots)`
  return { content: [{ type: 'text', text }] }
}

const opOf = (request) => String(request?.params?.arguments?.op ?? '?')
const isPlan = (request) => request.method === 'tools/call' && request.params?.name === 'plan'
const hex = (bytes) => randomBytes(bytes).toString('hex')
const nowIso = () => new Date().toISOString() // milliseconds and Z, as instance.py writes them

// ------------------------------------------------------------------ the store: Redis, shared with instance.py

/** Redis out of reach (or a lock not had in time): the request gets 503 and the client sends it again. */
class StoreDown extends Error {}

class Store {
  constructor(url, password, prefix) {
    this.prefix = prefix
    // As instance.py: a connection a Redis restart broke is retried for about a second (reconnects after
    // 40, 80, 160, 250, 250, 250 ms), then the command fails and the request gets 503. Every write here may
    // be repeated (SET, and commit.lua's SET NX), so commands cut mid-flight are resent on reconnect.
    this.redis = new Redis(url, {
      password, maxRetriesPerRequest: 6, retryStrategy: (n) => Math.min(20 * 2 ** n, 250),
    })
    this.redis.on('error', () => {}) // each failed command says so itself; the client reconnects alone
    const folder = new URL('.', import.meta.url)
    const commit = readFileSync(new URL('commit.lua', folder), 'utf8')
    this.redis.defineCommand('commitOnce', { numberOfKeys: 2, lua: commit })
    // redis-py's Lock.release, so that a lock either language took is released alike: only by its holder.
    this.redis.defineCommand('unlock', {
      numberOfKeys: 1,
      lua: "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
    })
  }
  key(kind, name) {
    return `${this.prefix}:${kind}:${name}`
  }
  /** A Redis command whose failure means the store is away (503), not a bug. */
  async do(command, ...args) {
    try {
      return await this.redis[command](...args)
    } catch (e) {
      throw new StoreDown(`redis ${command}: ${e.message}`, { cause: e })
    }
  }
  async load(kind, name) {
    const text = await this.do('get', this.key(kind, name))
    return text === null ? null : JSON.parse(text)
  }
  async save(kind, name, record, ttlMs) {
    await this.do('set', this.key(kind, name), JSON.stringify(record), 'PX', ttlMs)
  }
  /** One try at the lock. A SET resent after a cut connection may find the lock its first send took: ours. */
  async lock(key, token) {
    return (await this.do('set', key, token, 'PX', LOCK_MS, 'NX')) === 'OK' || (await this.do('get', key)) === token
  }
  /** The operation's side effect, once per completion key (commit.lua): the response to send (the one
   * committed before, when this completion came already). */
  async commit(completion, response, op) {
    const keys = [this.key('done', completion), `${this.prefix}:effects`]
    const before = await this.do('commitOnce', ...keys, JSON.stringify(response), op, DONE_TTL)
    return before === null ? response : JSON.parse(before)
  }
  /** `work()` while holding the lock of a task or a continuation: one instance at a time advances it. The
   * lock is redis-py's (SET NX PX with a token of its holder, polled every 100 ms), so both languages
   * exclude each other. */
  async locked(kind, name, work) {
    const key = this.key('lock', `${kind}:${name}`)
    const token = hex(16)
    for (const until = Date.now() + 2 * LOCK_MS; !(await this.lock(key, token)); ) {
      if (Date.now() >= until) throw new StoreDown(`lock ${key} not had in ${2 * LOCK_MS} ms`)
      await new Promise((wake) => setTimeout(wake, 100))
    }
    try {
      return await work()
    } finally {
      await this.do('unlock', key, token).catch(() => {}) // its lease ends it anyway
    }
  }
}

// ------------------------------------------------------------------ HTTP: one exchange

/** What a handler answers; `send` writes it. `body`: JSON (an object), text, or none. */
const json = (body, status = 200) =>
  ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const empty = (status, headers = {}) => ({ status, headers, body: '' })

function send(res, { status, headers, body }) {
  res.writeHead(status, headers)
  res.end(body)
}

async function readBody(req) {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  return Buffer.concat(chunks)
}

/** The refusal of one of mrtr's rules (errorResponse answers it as mrtr builds it). */
const refusal = (rule, message) => new (errorClassFor(rule))(rule, message)

const initialized = (request, session = null) => {
  const result = { protocolVersion: LEGACY, capabilities: { tools: {} }, serverInfo: INFO }
  const answer = json({ jsonrpc: '2.0', id: request.id, result })
  if (session) answer.headers['mcp-session-id'] = session
  return answer
}

/** -32601 (no rule of mrtr's covers a method a server does not serve). */
const notFound = (request) =>
  json({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `not served here: ${request.method}` } }, 404)

/** Event-stream text as mrtr's decoder reads it: the blocks. */
function decode(text) {
  const decoder = new SseDecoder()
  decoder.feed(text)
  decoder.finish()
  return [...decoder.events()]
}

// ------------------------------------------------------------------ the instance

class Instance {
  constructor(args) {
    this.name = args.name
    const file = args['redis-password-file']
    const password = file ? readFileSync(file, 'utf8').trim() : undefined
    this.store = new Store(args.redis, password, args.prefix)
    this.rounds = new SealedRounds({ ring: ring(args.keys, Number(args.current)), protocol: MRTR })
    this.legacyCalls = new Map() // the open legacy calls of this process (BridgedCall), by Mcp-Session-Id
  }

  run(request) {
    return runTool(plan, request, { rounds: this.rounds, anonymous: true, now: Math.floor(Date.now() / 1000) })
  }

  /** Every request: x-served-by, then dispatch; a refusal mrtr raised becomes its error response, Redis
   * away a 503, anything else a 500 (a bug here). */
  async handle(req, res) {
    res.setHeader('x-served-by', this.name)
    const url = new URL(req.url, `http://${req.headers.host ?? '127.0.0.1'}`)
    const exchange = { req, url, id: null, mode: url.pathname.split('/')[2] }
    try {
      const body = await readBody(req)
      if (url.pathname === '/health') return send(res, { status: 200, headers: TEXT, body: 'ok' })
      const handler = /^\/mcp\/[^/]+$/.test(url.pathname) && this.handler(exchange.mode)
      if (!handler) return send(res, empty(404))
      if (!['GET', 'POST', 'DELETE'].includes(req.method)) return send(res, empty(405, { allow: 'GET, POST, DELETE' }))
      const answer = await handler.call(this, exchange, body, res)
      if (answer) send(res, answer)
    } catch (e) {
      if (res.headersSent) return res.destroy() // a legacy stream cut mid-way: the client sees it end
      if (e instanceof MrtrError) {
        const { response, status } = errorResponse(exchange.id, e)
        return send(res, json(response, status))
      }
      if (e instanceof StoreDown) return send(res, empty(503, { 'retry-after': '1' }))
      console.error(e)
      send(res, empty(500))
    }
  }

  handler(mode) {
    const modes = { mrtr: this.mrtr, tasks: this.tasks, 'sep-1858': this.sep, 'sep-1335': this.sep, legacy: this.legacy }
    return Object.hasOwn(modes, mode) ? modes[mode] : null
  }

  /** A 2026-07-28 request, checked (_meta, header fields, version); null for what is no request. */
  checked(exchange, body) {
    const kind = classify(body, { protocol: MRTR })
    if (kind.kind !== Kind.Request) return null
    exchange.id = kind.id
    const request = JSON.parse(body.toString('utf8'))
    checkRequest(request, [MRTR], { headers: exchange.req.headers, protocol: MRTR })
    return request
  }

  // -------------------------------------------------------------- mrtr: sealed rounds, no store but commit

  async mrtr(exchange, body) {
    const request = exchange.req.method === 'POST' ? this.checked(exchange, body) : null
    if (request === null) return empty(exchange.req.method === 'POST' ? 202 : 405)
    if (request.method === 'server/discover') return this.discovered(request, { tools: {} })
    if (!isPlan(request)) return notFound(request)
    const response = await this.run(request)
    if (response.result.resultType === 'input_required') return json(response)
    // The final round: committed under its state id, the unit of single use. A final request sent again
    // gets the committed result in mrtr's response to its own id (the tool, replayed, built that response;
    // only its result is the one committed, so the effect and the answer stay those of the first).
    const state = request.params.requestState
    const completion = state ? inspect(state).stateId : `${request.id}-${hex(8)}`
    const committed = await this.store.commit(completion, response, opOf(request))
    return json(committed === response ? response : { ...response, result: committed.result })
  }

  /** server/discover's answer, built by mrtr (a cacheable result: it adds the caching hints). */
  discovered(request, capabilities) {
    return json(discover(request, { capabilities, serverInfo: INFO }, { protocol: MRTR }))
  }

  // -------------------------------------------------------------- tasks: records in Redis, rounds by replay

  async tasks(exchange, body) {
    const request = exchange.req.method === 'POST' ? this.checked(exchange, body) : null
    if (request === null) return empty(exchange.req.method === 'POST' ? 202 : 405)
    if (request.method === 'server/discover') return this.discovered(request, { tools: {}, ...TASKS_DECLARED })
    requireDeclared(request, TASKS_DECLARED, { protocol: MRTR })
    if (isPlan(request)) return json(taskCreated(request, view(await this.taskCreate(request)), { protocol: MRTR }))
    if (request.method === 'tasks/get') {
      return json(taskGetResponse(request, view(await this.task(request)), { protocol: MRTR }))
    }
    if (request.method === 'tasks/update') {
      await this.taskUpdate(request)
      return json(complete(request, {}, { protocol: MRTR }))
    }
    return notFound(request)
  }

  async task(request) {
    const taskId = String(request.params.taskId)
    const record = await this.store.load('task', taskId)
    if (record === null) throw refusal('task-unknown', `no task ${taskId}`)
    return record
  }

  /** The task, its first round run at once: input_required with the tool's first questions. */
  async taskCreate(request) {
    const stamp = nowIso()
    const record = {
      taskId: randomUUID().replaceAll('-', ''), status: TaskStatus.Working, createdAt: stamp, lastUpdatedAt: stamp,
      ttlMs: TASK_TTL_MS, pollIntervalMs: POLL_MS, request, inputRequests: {}, answers: {}, requestState: null,
      result: null, error: null,
    }
    await this.taskRun(record, request)
    await this.store.save('task', record.taskId, record, TASK_TTL_MS)
    return record
  }

  /** tasks/update: the answers to the open round's keys (others ignored, so an update sent again is
   * harmless); once the round is whole, the tool runs on the MRTR retry of the original request. */
  async taskUpdate(request) {
    const taskId = String(request.params.taskId)
    await this.store.locked('task', taskId, async () => {
      const record = await this.task(request)
      if (record.status !== TaskStatus.InputRequired) return
      Object.assign(record.answers, resume(request, record.inputRequests, { protocol: MRTR }).responses)
      record.lastUpdatedAt = nowIso()
      if (Object.keys(record.inputRequests).every((k) => Object.hasOwn(record.answers, k))) {
        const original = record.request
        const asked = respond(original, record.inputRequests, record.requestState, { protocol: MRTR })
        const retryId = `${taskId}-${hex(4)}` // a retry takes an id of its own
        move(record, TaskStatus.Working)
        await this.taskRun(record, retry(original, asked, record.answers, retryId, { protocol: MRTR }))
      }
      await this.store.save('task', taskId, record, TASK_TTL_MS)
    })
  }

  /** One replay of the tool: the next round's questions and sealed state, or the committed result. */
  async taskRun(record, request) {
    let response
    try {
      response = await this.run(request)
    } catch (e) {
      if (!(e instanceof MrtrError)) throw e
      const error = errorResponse(request.id, e).response.error
      return move(record, TaskStatus.Failed, { error, inputRequests: {}, answers: {} })
    }
    const { result } = response
    if (result.resultType === 'input_required') {
      const { inputRequests, requestState } = result
      return move(record, TaskStatus.InputRequired, { inputRequests, requestState, answers: {} })
    }
    const committed = await this.store.commit(record.taskId, response, opOf(request))
    move(record, TaskStatus.Completed, { result: committed.result, inputRequests: {}, answers: {} })
  }

  // -------------------------------------------------------------- sep-1858 / sep-1335: continuations in Redis

  async sep(exchange, body) {
    const { req, url, mode } = exchange
    const endpoint = `${url.origin}${url.pathname}`
    const content = body.length ? body : null
    const incoming = readHttpRequest(mode, req.method, url.href, req.headers, content, { protocol: LEGACY })
    if (incoming.type === 'call') {
      exchange.id = incoming.message.id
      return this.sepCall(incoming.message, mode, endpoint)
    }
    if (incoming.type === 'messages') return empty(202)
    if (incoming.type === 'answers') return this.sepAnswers(incoming.key, incoming.responses, mode, endpoint)
    return this.sepResume(incoming.key, incoming.lastEventId, mode, endpoint)
  }

  /** A new call: its continuation saved with the first round's questions, then streamed. */
  async sepCall(request, mode, endpoint) {
    if (request.method === 'initialize') return initialized(request)
    if (!isPlan(request)) return notFound(request)
    // bridge: the key the call's replays name their server requests under (random, the same every replay, so
    // that the stored answers fit the questions of the next replay).
    const call = { key: hex(8), bridge: hex(16), request, rounds: [], next: 1, blocks: [], done: false }
    await this.sepWrite(call, mode, await replayBridge(request, [], call.bridge))
    await this.store.save('call', call.key, call, CALL_TTL_MS)
    return sepStream(call, 0, mode, endpoint)
  }

  /** The buffered answers of the open round: the next round (or the result) saved, then streamed. The
   * answers of a round already taken (a POST sent again after a cut) get the stream that followed them. */
  async sepAnswers(key, responses, mode, endpoint) {
    return this.store.locked('call', key, async () => {
      const call = await this.store.load('call', key)
      if (call === null) return empty(404)
      const ids = idsOf(responses)
      const taken = call.rounds.find((round) => idsOf(round.answers) === ids)
      if (taken) return sepStream(call, taken.from, mode, endpoint)
      if (call.done) return empty(409)
      const answers = [...call.rounds.map((r) => r.answers), responses]
      const written = await replayBridge(call.request, answers, call.bridge)
      call.rounds.push({ answers: responses, from: call.blocks.length })
      await this.sepWrite(call, mode, written)
      await this.store.save('call', key, call, CALL_TTL_MS)
      return sepStream(call, call.rounds.at(-1).from, mode, endpoint)
    })
  }

  /** A GET resuming the call's stream after Last-Event-ID (or, SEP-1335, at its stream URL). */
  async sepResume(key, lastEventId, mode, endpoint) {
    const call = key ? await this.store.load('call', key) : null
    if (call === null) return empty(key ? 404 : 405)
    const ids = call.blocks.map((entry) => entry.block.id)
    const cursor = ids.includes(lastEventId) ? ids.indexOf(lastEventId) + 1 : 0
    // SEP-1335: a reconnect while the server waits for the answers; this stream ends.
    if (mode === 'sep-1335' && cursor === ids.length) return empty(204)
    return sepStream(call, cursor, mode, endpoint)
  }

  /** Writes the next turn through a ServerStream (ask the round's server requests, or the final message,
   * committed first) and logs its blocks in the call; the last one ends its response. */
  async sepWrite(call, mode, { messages, done }) {
    const stream = new ServerStream(mode, call.key, call.next)
    const last = messages.at(-1)
    if (!done) stream.ask(messages, RETRY_MS)
    else if ('result' in last) stream.message(await this.store.commit(call.key, last, opOf(call.request)))
    else stream.message(last) // the tool's run was refused: no effect
    const blocks = decode(stream.take())
    call.blocks.push(...blocks.map((block, i) => ({ block, final: i === blocks.length - 1 })))
    call.next += blocks.length
    call.done = done
  }

  // -------------------------------------------------------------- legacy: the call lives on this stream

  async legacy(exchange, body, res) {
    if (exchange.req.method !== 'POST') return empty(405, { allow: 'POST' })
    const kind = classify(body, { protocol: LEGACY })
    const message = JSON.parse(body.toString('utf8'))
    if (kind.kind === Kind.Request && message.method === 'initialize') {
      exchange.id = kind.id
      return initialized(message, hex(16))
    }
    // Sessions are not stored (any instance may get any POST): a session id is a random name the client was
    // given, and it scopes the answers: an answer reaches only a call of the session that names it.
    const session = exchange.req.headers['mcp-session-id']
    exchange.id = kind.kind === Kind.Request ? kind.id : null
    if (!session) throw refusal('usage-invalid-argument', 'a POST after initialize names its Mcp-Session-Id')
    if (kind.kind === Kind.Notification) return empty(202)
    if (kind.kind !== Kind.Request) return this.legacyAnswer(session, message)
    if (!isPlan(message)) return notFound(message)
    const call = new BridgedCall(plan, message, { roundTimeoutMs: ROUND_TIMEOUT_MS })
    if (!this.legacyCalls.has(session)) this.legacyCalls.set(session, new Set())
    const calls = this.legacyCalls.get(session)
    calls.add(call)
    try {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
      await this.legacyStream(call, message, res)
    } finally {
      calls.delete(call)
      if (!calls.size) this.legacyCalls.delete(session)
    }
    return null
  }

  /** An answer POSTed on its own: to the open call of this process and this session that asked it. An answer
   * no call of the session awaits (another session's question, one answered already, or a call held by
   * another instance) is refused: 400 and a JSON-RPC error without id (2025-11-25: the server "cannot accept
   * the input"). */
  legacyAnswer(session, message) {
    const asked = String(message.id)
    const call = [...(this.legacyCalls.get(session) ?? [])].find((c) => c.pending.includes(asked))
    if (!call) {
      throw refusal('usage-unknown-handle', `no call of this session awaits an answer to ${JSON.stringify(asked)} here`)
    }
    call.deliver(message) // an answer that does not fit is refused; the round still waits
    return empty(202)
  }

  /** The call's stream; its completion commits under the request id and a nonce (no single use). */
  async legacyStream(call, request, res) {
    for await (const text of call.stream()) {
      const final = call.done ? JSON.parse(decode(text).at(-1).data) : {}
      if ('result' in final) await this.store.commit(`${request.id}-${hex(8)}`, final, opOf(request))
      res.write(text)
    }
    res.end()
  }
}

// ------------------------------------------------------------------ helpers of the modes

/** The key ring of KEYS.json as instance.py builds it: every key's 32 secret bytes as they are
 * (XAES-256-GCM, no derivation, no context label), sealing with `current`, opening with any. */
function ring(path, current) {
  const keys = JSON.parse(readFileSync(path, 'utf8')).keys.map((k) => ({
    id: k.id, algorithm: 'xaes-256-gcm', secret: Buffer.from(k.secret, 'hex'),
  }))
  const sealing = keys.find((k) => k.id === current)
  if (!sealing) throw new Error(`--current ${current}: no such key in ${path}`)
  const ring = new KeyRing(sealing)
  for (const k of keys) if (k.id !== current) ring.add(k)
  return ring
}

/** The ids of a round's answers, as one comparable text (their order does not matter). */
const idsOf = (responses) => JSON.stringify(responses.map((r) => String(r.id)).sort())

/** The call's BridgedCall rebuilt from the answers of its rounds (the tool replayed once per round): what
 * it writes next as messages (the next round's server requests, or the final response), and whether that is
 * the final one. Answers that are not those the round awaits raise their MrtrError. */
async function replayBridge(request, rounds, key) {
  const call = new BridgedCall(plan, request, { key, roundTimeoutMs: ROUND_TIMEOUT_MS })
  const stream = call.stream()
  try {
    let text = await turn(call, stream)
    for (const answers of rounds) {
      for (const answer of answers) call.deliver(answer)
      if (call.pending.length) {
        throw refusal('usage-out-of-turn', `these are not all the answers awaited: ${call.pending} left`)
      }
      text = await turn(call, stream)
    }
    const messages = decode(text).filter((b) => b.data !== undefined).map((b) => JSON.parse(b.data))
    return { messages, done: call.done }
  } finally {
    await stream.return()
  }
}

/** The text one turn of a BridgedCall writes: what its stream yields until it waits for answers or ends. */
async function turn(call, stream) {
  let text = ''
  for (;;) {
    const next = await stream.next()
    if (next.done) return text
    text += next.value
    if (call.done || call.pending.length) return text
  }
}

/** The call's blocks from `cursor` through the next final one (all in Redis already), as the response. */
function sepStream(call, cursor, mode, endpoint) {
  const link = mode === 'sep-1335' ? streamUrl(endpoint, call.key) : null
  const headers = new ServerStream(mode, call.key, call.next).head(link)
  let body = ''
  for (const entry of call.blocks.slice(cursor)) {
    body += sseEncode(entry.block)
    if (entry.final) break
  }
  return { status: 200, headers, body }
}

/** A task status change, as mrtr's transition table allows it (a TaskError otherwise). */
function move(record, to, fields = {}) {
  record.status = taskTransition(record.status, to)
  Object.assign(record, fields, { lastUpdatedAt: nowIso() })
}

/** The task record mrtr's task builders read (they pick the fields each status shows). */
function view(record) {
  const shown = ['taskId', 'status', 'createdAt', 'lastUpdatedAt', 'ttlMs', 'pollIntervalMs', 'result', 'error',
    'inputRequests']
  return { ...Object.fromEntries(shown.map((k) => [k, record[k]])), answered: Object.keys(record.answers) }
}

// ------------------------------------------------------------------ main

function main() {
  const { values: args } = parseArgs({
    options: {
      port: { type: 'string' },
      name: { type: 'string' }, // sent as x-served-by
      redis: { type: 'string' }, // redis://127.0.0.1:PORT
      'redis-password-file': { type: 'string' }, // a file holding Redis's password (requirepass)
      keys: { type: 'string' }, // KEYS.json: {"keys": [{"id": 1, "secret": "<64 hex>"}, …]}
      current: { type: 'string' }, // the id of the key this instance seals with
      prefix: { type: 'string', default: 'RUN' }, // the prefix of every Redis key
    },
  })
  for (const required of ['port', 'name', 'redis', 'keys', 'current']) {
    if (args[required] === undefined) {
      console.error('usage: node instance.mjs --port P --name NAME --redis redis://127.0.0.1:RP '
        + '[--redis-password-file PASSWORD] --keys KEYS.json --current KID [--prefix RUN]')
      process.exit(2)
    }
  }
  const instance = new Instance(args)
  const server = createServer((req, res) => instance.handle(req, res))
  server.listen(Number(args.port), '127.0.0.1')
  // SIGTERM (or Ctrl-C) ends the process at once: open streams (legacy calls) are cut, not waited for.
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => process.exit(0))
}

main()
