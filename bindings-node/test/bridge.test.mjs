// The legacy bridge (BridgedCall over the core's ToolBridge): the await-style
// tool runTool serves to 2026-07-28 clients, served to a 2025-11-25 client.
// Each round's questions go on the call's event stream as server requests;
// the answers come back (as POSTs would) through `deliver`; the tool is
// replayed from them. Also: an answer that does not fit, a round left
// unanswered, a refusal in the tool, the round cap, and the conversation
// checked by mrtr's checker. The same cases as the Python binding's
// tests/test_bridge.py. Shared by both backends (test/backend.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mrtr from './backend.mjs'

const schema = { type: 'object', properties: { v: { type: 'string' } }, required: ['v'] }
const request = { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'greet', arguments: { loud: true } } }
const is = (Class, rule) => (e) => e instanceof Class && e.rule === rule

async function greet(args, ctx) {
  const name = (await ctx.elicit('Name?', schema)).content.v
  const [style, { roots }] = await ctx.askAll(ctx.q.elicit(`Style for ${name}?`, schema), ctx.q.roots())
  const text = `${style.content.v} ${name} (${roots.length} roots)`
  return { content: [{ type: 'text', text: args.loud ? text.toUpperCase() : text }] }
}

/** The JSON-RPC messages of event-stream text, read with the SSE decoder. */
function messages(text) {
  const decoder = new mrtr.SseDecoder()
  decoder.feed(text)
  return [...decoder.events()].filter((e) => e.data).map((e) => JSON.parse(e.data))
}

/** The client's answer to a server request. */
function answer(request) {
  if (request.method === 'roots/list') return { jsonrpc: '2.0', id: request.id, result: { roots: [{ uri: 'file:///a' }] } }
  const v = request.params.message === 'Name?' ? 'Ada' : 'hello'
  return { jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { v } } }
}

/** Plays the client: reads the stream, answers every server request, returns everything it saw. */
async function converse(call) {
  const seen = []
  for await (const text of call.stream()) {
    for (const message of messages(text)) {
      seen.push({ from: 'server', message, stream: 'post:5' })
      if ('method' in message) {
        assert.ok(call.pending.includes(message.id))
        seen.push({ from: 'client', message: answer(message) })
        call.deliver(answer(message))
      }
    }
  }
  return seen
}

/** Every message of the call's stream, answering each server request with `reply` (none: unanswered). */
async function all(call, reply) {
  const out = []
  for await (const text of call.stream()) {
    for (const m of messages(text)) {
      out.push(m)
      if ('method' in m && reply) call.deliver(reply(m))
    }
  }
  return out
}

test('a two-round tool over the POST stream, checked compliant under 2025-11-25', async () => {
  const call = new mrtr.BridgedCall(greet, request)
  assert.deepEqual([call.done, call.pending], [false, []])
  const seen = await converse(call)
  const asked = seen.filter((m) => m.from === 'server' && 'method' in m.message).map((m) => m.message.method)
  assert.deepEqual(asked, ['elicitation/create', 'elicitation/create', 'roots/list'])
  const final = seen.at(-1).message
  assert.equal(final.id, 5)
  assert.equal(final.result.content[0].text, 'HELLO ADA (1 ROOTS)')
  assert.ok(!('resultType' in final.result)) // 2025-11-25 has none
  assert.deepEqual([call.done, call.pending], [true, []])
  const conversation = [{ from: 'client', message: request, stream: 'post:5' }, ...seen]
  assert.deepEqual(mrtr.check(conversation, { protocol: '2025-11-25' }), [])
  // The request as JSON text, under a key of the host's: the event ids carry it.
  const keyed = new mrtr.BridgedCall(greet, JSON.stringify(request), { key: 'k7k7k7k7k7k7k7k7' })
  const first = await keyed.stream().next()
  assert.match(first.value, /^id: k7k7k7k7k7k7k7k7\./m)
  // The key names the server requests, so it is 64 random bits or more (security review M4).
  assert.throws(() => new mrtr.BridgedCall(greet, request, { key: 'k7' }), is(mrtr.UsageError, 'usage-invalid-argument'))
})

test('an answer that does not fit is refused and the round waits; a stray one is out of turn', async () => {
  const call = new mrtr.BridgedCall(greet, request)
  const stream = call.stream()
  const [question] = messages((await stream.next()).value)
  assert.throws(
    () => call.deliver({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: {} } }),
    is(mrtr.RetryError, 'retry-input-response-invalid'),
  )
  assert.deepEqual(call.pending, [question.id])
  assert.throws(() => call.deliver({ jsonrpc: '2.0', id: 'nobody', result: {} }), is(mrtr.UsageError, 'usage-out-of-turn'))
  call.deliver(answer(question))
  const [next] = messages((await stream.next()).value)
  assert.equal(next.params.message, 'Style for Ada?')
})

test('a round left unanswered ends the call with its error', async () => {
  const call = new mrtr.BridgedCall(greet, request, { roundTimeoutMs: 50 })
  const started = performance.now()
  const [first, last, ...rest] = await all(call)
  assert.equal(first.method, 'elicitation/create')
  assert.equal(last.id, 5)
  assert.equal(last.error.data.rule, 'limit-exceeded')
  assert.deepEqual(rest, [])
  assert.ok(performance.now() - started >= 45, 'the round waited for its answers')
  assert.equal(call.done, true)
  // The host's clock is the bridge's: a deadline passed on it ends the round at once.
  let now = 0
  const late = new mrtr.BridgedCall(greet, request, { roundTimeoutMs: 60_000, clock: () => (now += 100_000) })
  assert.equal((await all(late)).at(-1).error.data.rule, 'limit-exceeded')
})

test("a refusal in the tool is the call's error response, with its data", async () => {
  const needsSampling = async () => {
    throw new mrtr.ProtocolError('request-capability-missing', 'no', { data: { requiredCapabilities: { sampling: {} } } })
  }
  const [only, ...rest] = await all(new mrtr.BridgedCall(needsSampling, request))
  assert.deepEqual(rest, [])
  assert.equal(only.id, 5)
  assert.equal(only.error.code, -32021)
  assert.deepEqual(only.error.data, { requiredCapabilities: { sampling: {} }, rule: 'request-capability-missing' })
  // A refusal at an ask (a question that is no input request) too, whatever the tool catches.
  const careless = async (args, ctx) => {
    await ctx.ask({ method: 'elicitation/create' }).catch(() => {})
    return { content: [] }
  }
  const [refused] = await all(new mrtr.BridgedCall(careless, request))
  assert.equal(refused.error.data.rule, 'input-request-invalid')
  // What the tool throws of its own is no refusal: it reaches the host as it was.
  const oops = new TypeError('the tool broke')
  await assert.rejects(all(new mrtr.BridgedCall(async () => { throw oops }, request)), (e) => e === oops)
})

test('the round cap holds', async () => {
  const asksForever = async (args, ctx) => {
    for (let i = 0; i < 100; i++) await ctx.elicit(`Question ${i}?`, schema)
    return { content: [] }
  }
  const out = await all(new mrtr.BridgedCall(asksForever, request, { maxRounds: 2 }), (m) => ({
    jsonrpc: '2.0',
    id: m.id,
    result: { action: 'accept', content: { v: 'x' } },
  }))
  assert.deepEqual(out.slice(0, 2).map((m) => m.method), ['elicitation/create', 'elicitation/create'])
  assert.equal(out.length, 3)
  assert.equal(out.at(-1).error.data.rule, 'retry-rounds-exceeded')
})

test('ctx.allows in a bridged call: 2025-11-25 declares capabilities at initialize, so every question is allowed', async () => {
  const careful = async (args, ctx) => ({ content: [{ type: 'text', text: String(ctx.allows(ctx.q.roots())) }] })
  const [done] = await all(new mrtr.BridgedCall(careful, request))
  assert.equal(done.result.content[0].text, 'true')
})

test('BridgedCall refuses a misuse', () => {
  const misuse = is(mrtr.UsageError, 'usage-invalid-argument')
  assert.throws(() => new mrtr.BridgedCall('tool', request), misuse)
  assert.throws(() => new mrtr.BridgedCall(greet, request, { maxRound: 2 }), misuse) // misspelt
  assert.throws(() => new mrtr.BridgedCall(greet, request, { maxRounds: -1 }), misuse)
  assert.throws(() => new mrtr.BridgedCall(greet, request, { roundTimeoutMs: 'soon' }), misuse)
  assert.throws(() => new mrtr.BridgedCall(greet, request, { clock: 5 }), misuse)
  assert.throws(() => new mrtr.BridgedCall(greet, { jsonrpc: '2.0', id: 1, result: {} }), misuse) // no request
})
