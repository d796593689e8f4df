// Await-style tools (runTool over the core's facade::ToolReplay): a tool that
// asks twice, driven across three requests by the client's retry builder and
// by the Client machine; several asks in one round; a changed question asked
// again; an answer never asked for ignored; the round cap; a final round run
// once under a replay guard (the host answering a replay from its store); a
// tool that catches every error still suspending; refusals as MrtrErrors and
// their error responses. Shared by both backends (test/backend.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mrtr from './backend.mjs'
import { utf8 } from './fixtures.mjs'

const secret = Uint8Array.from({ length: 32 }, (_, i) => (i * 29 + 7) & 0xff)
const ring = new mrtr.KeyRing({ id: 1, algorithm: 'xchacha20-poly1305', secret })
const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {}, roots: {} },
}
const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet', arguments: { punctuation: '!' }, _meta: meta } }
const schema = { type: 'object', properties: { v: { type: 'string' } }, required: ['v'] }
const accept = (v) => ({ action: 'accept', content: { v } })
const alice = { ring, subject: 'alice', now: 1000 }
const is = (Class, rule) => (e) => e instanceof Class && e.rule === rule

/**
 * The tool of the core's tests: asks a name, then a greeting (`second`), and
 * greets. `seen` logs each run's round and how far it got.
 */
function greeter(second = 'Greeting?') {
  const seen = { rounds: [], done: 0 }
  const tool = async (args, ctx) => {
    seen.rounds.push(ctx.round)
    const name = await ctx.elicit('Your name?', schema)
    const word = await ctx.elicit(second, schema)
    seen.done += 1 // the side effect: after the last ask
    return { content: [{ type: 'text', text: `${word.content.v}, ${name.content.v}${args.punctuation}` }] }
  }
  return { tool, seen }
}

/** The client's retry answering every ask of `response` with `v`. */
function answerAll(previous, response, v, id) {
  const asks = Object.keys(response.result.inputRequests)
  return mrtr.retry(previous, response, Object.fromEntries(asks.map((k) => [k, accept(v)])), id)
}
const asked = (response) => Object.keys(response.result.inputRequests)

test('a tool that asks twice finishes in three requests, each replaying it from the top', async () => {
  const { tool, seen } = greeter()
  const first = await mrtr.runTool(tool, request, alice)
  assert.equal(first.result.resultType, 'input_required')
  assert.deepEqual(asked(first), ['q1'])
  assert.deepEqual(first.result.inputRequests.q1, {
    method: 'elicitation/create',
    params: { mode: 'form', message: 'Your name?', requestedSchema: schema },
  })
  const second = answerAll(request, first, 'Ada', 2)
  const asks = await mrtr.runTool(tool, second, { ...alice, now: 1001 })
  assert.deepEqual(asked(asks), ['q2'])
  const third = answerAll(second, asks, 'Good day', 3)
  const done = await mrtr.runTool(tool, third, { ...alice, now: 1002 })
  assert.deepEqual(done, {
    jsonrpc: '2.0',
    id: 3,
    result: { content: [{ type: 'text', text: 'Good day, Ada!' }], resultType: 'complete', ttlMs: 0 },
  })
  assert.deepEqual(seen, { rounds: [0, 1, 2], done: 1 })
})

test('the Client machine drives a tool to its end, the server answering each retry with runTool', async () => {
  const { tool } = greeter()
  const client = new mrtr.Client()
  const handle = client.send(request)
  const answers = { 'Your name?': 'Ada', 'Greeting?': 'Hello' }
  let result = null
  for (let turn = 0; result === null && turn < 5; turn++) {
    for (const message of client.transmits()) client.handleResponse(await mrtr.runTool(tool, message, { ...alice, now: 1000 + turn }))
    for (const event of client.events()) {
      if (event.type === 'inputRequired') {
        const responses = Object.fromEntries(
          Object.entries(event.inputRequests).map(([k, q]) => [k, accept(answers[q.params.message])]),
        )
        client.answer(event.handle, responses, `r${turn}`)
      } else if (event.type === 'done') result = event.response.result
    }
  }
  assert.equal(handle, 0)
  assert.equal(result.content[0].text, 'Hello, Ada!')
})

test('several asks in one round: askAll, or Promise.all over asks; the answers typed by their question', async () => {
  const sampling = { messages: [{ role: 'user', content: { type: 'text', text: 'A colour?' } }], maxTokens: 20 }
  const together = async (args, ctx) => {
    const [name, colour, { roots }] = await ctx.askAll(ctx.q.elicit('Your name?', schema), ctx.q.sample(sampling), ctx.q.roots())
    return { content: [{ type: 'text', text: `${name.content.v} ${colour.content.text} ${roots[0].uri}` }] }
  }
  const all = async (args, ctx) => {
    const [name, colour, { roots }] = await Promise.all([ctx.elicit('Your name?', schema), ctx.sample(sampling), ctx.roots()])
    return { content: [{ type: 'text', text: `${name.content.v} ${colour.content.text} ${roots[0].uri}` }] }
  }
  for (const tool of [together, all]) {
    const first = await mrtr.runTool(tool, request, alice)
    assert.deepEqual(
      Object.entries(first.result.inputRequests).map(([k, q]) => [k, q.method]),
      [['q1', 'elicitation/create'], ['q2', 'sampling/createMessage'], ['q3', 'roots/list']],
    )
    assert.deepEqual(first.result.inputRequests.q2.params, sampling)
    const responses = {
      q1: accept('Ada'),
      q2: { role: 'assistant', content: { type: 'text', text: 'teal' }, model: 'm-1' },
      q3: { roots: [{ uri: 'file:///home/ada' }] },
    }
    const done = await mrtr.runTool(tool, mrtr.retry(request, first, responses, 2), alice)
    assert.equal(done.result.content[0].text, 'Ada teal file:///home/ada')
  }
})

test('a question changed between rounds is asked again, never answered with the answer to another', async () => {
  const v1 = greeter('Greeting?')
  const first = await mrtr.runTool(v1.tool, request, alice)
  const second = answerAll(request, first, 'Ada', 2)
  const third = answerAll(second, await mrtr.runTool(v1.tool, second, alice), 'Good day', 3)
  // A newer version behind the balancer words its second question otherwise.
  const v2 = greeter('Salutation?')
  const again = await mrtr.runTool(v2.tool, third, alice)
  assert.deepEqual(asked(again), ['q2'])
  assert.equal(again.result.inputRequests.q2.params.message, 'Salutation?')
  assert.equal(v2.seen.done, 0)
  // Its answer completes, the name carried over from the first round.
  const fourth = answerAll(third, again, 'Greetings', 4)
  assert.equal((await mrtr.runTool(v2.tool, fourth, alice)).result.content[0].text, 'Greetings, Ada!')
})

test('an answer to a question never asked counts for nothing', async () => {
  const { tool, seen } = greeter()
  const first = await mrtr.runTool(tool, request, alice)
  const sly = answerAll(request, first, 'Ada', 2)
  sly.params.inputResponses.q2 = accept('Bye') // slipped in before it was asked
  const second = await mrtr.runTool(tool, sly, alice)
  assert.deepEqual(asked(second), ['q2'])
  assert.equal(seen.done, 0)
})

test('the round cap: one round more than maxRounds is retry-rounds-exceeded, and its error response', async () => {
  const { tool } = greeter()
  const first = await mrtr.runTool(tool, request, { ...alice, maxRounds: 1 })
  const second = answerAll(request, first, 'Ada', 2)
  const e = await mrtr.runTool(tool, second, { ...alice, maxRounds: 1 }).then(assert.fail, (e) => e)
  assert.ok(is(mrtr.RetryError, 'retry-rounds-exceeded')(e), String(e))
  const { response, status } = mrtr.errorResponse(second.id, e)
  // A rule without a JSON-RPC code of its own is answered -32600.
  assert.deepEqual(response, { jsonrpc: '2.0', id: 2, error: { code: -32600, message: e.message, data: { rule: e.rule } } })
  assert.equal(status, 400)
  // Within the cap (the default is 10), the same request asks on.
  assert.deepEqual(asked(await mrtr.runTool(tool, second, alice)), ['q2'])
})

test('under a guard a final round runs once: a replay is state-replayed, answered from the host store by state id', async () => {
  const used = new Set()
  const guard = (stateId, expiry) => !used.has(stateId) && used.add(stateId).has(stateId)
  const { tool, seen } = greeter()
  const store = new Map() // the host's: final responses by the state id of the request they answered
  async function serve(req) {
    const state = req.params.requestState
    try {
      const response = await mrtr.runTool(tool, req, { ...alice, guard })
      if (state !== undefined && response.result.resultType === 'complete') store.set(mrtr.inspect(state).stateId, response)
      return response
    } catch (e) {
      if (e.rule === mrtr.Rule.StateReplayed && store.has(mrtr.inspect(state).stateId)) return store.get(mrtr.inspect(state).stateId)
      return mrtr.errorResponse(req.id, e).response
    }
  }
  const first = await serve(request)
  const second = answerAll(request, first, 'Ada', 2)
  const asks = await serve(second)
  const third = answerAll(second, asks, 'Good day', 3)
  const done = await serve(third)
  assert.equal(done.result.content[0].text, 'Good day, Ada!')
  assert.equal(await serve(third), done) // the stored answer: the tool did not run again
  assert.equal(seen.done, 1)
  // Without the store, the replay is refused; and round 1's state, replayed after round 2, too.
  await assert.rejects(mrtr.runTool(tool, third, { ...alice, guard }), is(mrtr.StateError, 'state-replayed'))
  const stale = await serve(second)
  assert.equal(stale.error.data.rule, 'state-replayed')
  assert.equal(stale.error.code, -32602)
  assert.equal(seen.done, 1)
  // A guard that throws: the state stays shut and its exception arrives as it was.
  const down = new Error('the store is down')
  const fresh = answerAll(request, await serve(request), 'Ada', 4)
  await assert.rejects(mrtr.runTool(tool, fresh, { ...alice, guard: () => { throw down } }), (e) => e === down)
})

test('answers without the state that asked are asked again, and a refused answer leaves the state unspent', async () => {
  const used = new Set()
  const guard = (stateId) => !used.has(stateId) && used.add(stateId).has(stateId)
  const { tool, seen } = greeter()
  const first = await mrtr.runTool(tool, request, { ...alice, guard })
  // Security review L1: a wrong answer is refused before the guard is asked, so the correction goes through.
  const good = answerAll(request, first, 'Ada', 2) // the retry builder checks answers: the wrong one by hand
  const wrong = { ...good, params: { ...good.params, inputResponses: { q1: { action: 'accept', content: { v: 5 } } } } }
  await assert.rejects(mrtr.runTool(tool, wrong, { ...alice, guard }), is(mrtr.RetryError, 'retry-input-response-invalid'))
  const second = answerAll(request, first, 'Ada', 3)
  const third = answerAll(second, await mrtr.runTool(tool, second, { ...alice, guard }), 'Good day', 4)
  assert.equal((await mrtr.runTool(tool, third, { ...alice, guard })).result.resultType, 'complete')
  // Security review M3: the final round's answers without its requestState start over, never run it again.
  const { requestState: _, ...stateless } = third.params
  const again = await mrtr.runTool(tool, { ...third, params: stateless }, { ...alice, guard })
  assert.deepEqual(asked(again), ['q1'])
  assert.equal(seen.done, 1)
})

test('a tool that catches every error still suspends at an unanswered ask: no catch, no finally of it runs', async () => {
  const seen = { caught: 0, finally: 0, after: 0 }
  const careful = async (args, ctx) => {
    try {
      const name = await ctx.elicit('Your name?', schema)
      seen.after += 1
      return { content: [{ type: 'text', text: name.content.v }] }
    } catch {
      seen.caught += 1
      return { content: [{ type: 'text', text: 'fallback' }], isError: true }
    } finally {
      seen.finally += 1
    }
  }
  const first = await mrtr.runTool(careful, request, alice)
  assert.deepEqual(asked(first), ['q1'])
  assert.deepEqual(seen, { caught: 0, finally: 0, after: 0 })
  // An answer that does not fit the question is the client's fault: a refusal the tool cannot catch either.
  const bad = answerAll(request, first, 'Ada', 2)
  bad.params.inputResponses.q1.content.v = 42 // past the client's retry builder, which refuses it
  await assert.rejects(mrtr.runTool(careful, bad, alice), is(mrtr.RetryError, 'retry-input-response-invalid'))
  assert.deepEqual(seen, { caught: 0, finally: 0, after: 0 })
  const done = await mrtr.runTool(careful, answerAll(request, first, 'Ada', 3), alice)
  assert.equal(done.result.content[0].text, 'Ada')
  assert.deepEqual(seen, { caught: 0, finally: 1, after: 1 })
})

test('code before an ask runs once a round; ctx says the round, the state and the data the last round kept', async () => {
  const log = []
  const tool = async (args, ctx) => {
    log.push({ round: ctx.round, stateId: ctx.stateId, expiry: ctx.expiry, data: ctx.data })
    if (ctx.round === 0) ctx.data = { started: ctx.request.id }
    await ctx.elicit('Your name?', schema)
    await ctx.elicit('Greeting?', schema)
    await ctx.roots()
    return { content: [] }
  }
  const rounds = new mrtr.SealedRounds({ ring, ttl: 60 })
  const first = await mrtr.runTool(tool, request, { rounds, subject: 'alice', now: 1000 })
  const second = answerAll(request, first, 'Ada', 2)
  const asks = await mrtr.runTool(tool, second, { rounds, subject: 'alice', now: 1010 })
  await mrtr.runTool(tool, answerAll(second, asks, 'Hi', 3), { rounds, subject: 'alice', now: 1020 })
  const id = (response) => mrtr.inspect(response.result.requestState).stateId
  assert.deepEqual(log, [
    { round: 0, stateId: null, expiry: null, data: null },
    { round: 1, stateId: id(first), expiry: 1060, data: { started: 1 } },
    { round: 2, stateId: id(asks), expiry: 1070, data: { started: 1 } }, // kept until a round assigns another
  ])
})

test('runToolText answers the JSON text the core wrote; the args and the data a round keeps come from the core', async () => {
  const log = []
  const tool = async (args, ctx) => {
    if (ctx.round === 0) ctx.data = { n: args.punctuation }
    const name = await ctx.elicit('Your name?', schema)
    await ctx.elicit('Greeting?', schema) // the second round ends here, ctx.data untouched: kept as it came
    log.push([ctx.data, ctx.request.id])
    return { content: [{ type: 'text', text: `${name.content.v}${args.punctuation}` }] }
  }
  const first = await mrtr.runToolText(tool, utf8(JSON.stringify(request)), alice)
  assert.equal(typeof first, 'string')
  const second = answerAll(request, JSON.parse(first), 'Ada', 2)
  const asks = JSON.parse(await mrtr.runToolText(tool, JSON.stringify(second), { ...alice, now: 1001 }))
  assert.deepEqual(asked(asks), ['q2'])
  const third = answerAll(second, asks, 'Hi', 3)
  const done = await mrtr.runToolText(tool, utf8(JSON.stringify(third)), { ...alice, now: 1002 })
  assert.deepEqual(JSON.parse(done), await mrtr.runTool(tool, third, { ...alice, now: 1002 }))
  assert.equal(JSON.parse(done).result.content[0].text, 'Ada!')
  assert.deepEqual(log, [[{ n: '!' }, 3], [{ n: '!' }, 3]])
})

test('a loop of runToolText calls that never yields holds no request: each replay is released with its response', async () => {
  // A native object's finalizer runs only between event-loop turns, and this loop takes none: without the release,
  // every call's replay would keep the request it read (400 KB, 1,000 times: over 400 MB) until the loop ends.
  const params = { ...request.params, arguments: { text: 'x'.repeat(400_000) } }
  const body = JSON.stringify({ ...request, params })
  const tool = async (args) => ({ content: [{ type: 'text', text: String(args.text.length) }] })
  const before = process.memoryUsage().rss
  for (let i = 0; i < 1000; i++) {
    const done = JSON.parse(await mrtr.runToolText(tool, body, { ring, anonymous: true, now: 1000 }))
    assert.equal(done.result.content[0].text, '400000')
  }
  const grown = process.memoryUsage().rss - before
  assert.ok(grown < 150e6, `the process grew ${Math.round(grown / 1e6)} MB over 1,000 calls`)
})

test('keys of the tool choosing, requests as JSON text, anonymous calls, and 2025-11-25', async () => {
  const tool = async (args, ctx) => {
    const login = await ctx.ask(ctx.q.elicit('GitHub user?', schema), { key: 'login' })
    return { content: [{ type: 'text', text: `${login.content.v} ${args.n}` }] }
  }
  const text = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"n":100000000000000000001},"_meta":' + JSON.stringify(meta) + '}}'
  const anonymous = { ring, anonymous: true, now: 1000 }
  for (const req of [text, utf8(text)]) {
    const first = await mrtr.runTool(tool, req, anonymous)
    assert.deepEqual(asked(first), ['login'])
    // The retry as text too: its number stays exact, so the state's binding holds.
    const fields = JSON.stringify({ inputResponses: { login: accept('octocat') }, requestState: first.result.requestState })
    const again = text.replace('"params":{', `"params":{${fields.slice(1, -1)},`)
    assert.equal((await mrtr.runTool(tool, again, anonymous)).result.content[0].text, 'octocat 100000000000000000000')
    // Rounded to a JavaScript number, the request is another one.
    await assert.rejects(mrtr.runTool(tool, JSON.parse(again), anonymous), is(mrtr.StateError, 'state-wrong-request'))
    // Bound to the subject: alice cannot take the anonymous conversation over.
    await assert.rejects(mrtr.runTool(tool, again, { ...alice }), is(mrtr.StateError, 'state-wrong-subject'))
  }
  // 2025-11-25 has no input_required (its tools are served through the legacy bridge), and no resultType.
  const legacy = { ...request, params: { ...request.params, _meta: undefined } }
  await assert.rejects(
    mrtr.runTool(tool, legacy, { ...alice, protocol: '2025-11-25' }),
    is(mrtr.ProtocolError, 'input-required-method-not-allowed'),
  )
  const complete = await mrtr.runTool(async () => ({ content: [] }), legacy, { ...alice, protocol: '2025-11-25' })
  assert.deepEqual(complete, { jsonrpc: '2.0', id: 1, result: { content: [] } })
})

test("a tool's misuse ends the run with its error, and the tool's own errors arrive as they were", async () => {
  const oops = new TypeError('the tool broke')
  await assert.rejects(mrtr.runTool(async () => { throw oops }, request, alice), (e) => e === oops)
  const after = async (args, ctx) => {
    await ctx.elicit('Your name?', schema).catch(() => {})
    throw oops // never reached on a first request
  }
  assert.deepEqual(asked(await mrtr.runTool(after, request, alice)), ['q1'])
  // A question that is no input request; a key asked twice; a schema JSON cannot hold: each is the tool's bug, caught or not.
  const bad = [
    (ctx) => ctx.ask({ method: 'elicitation/create' }),
    (ctx) => Promise.all([ctx.ask(ctx.q.roots(), { key: 'k' }), ctx.ask(ctx.q.roots(), { key: 'k' })]),
    (ctx) => ctx.elicit('?', { n: 1n }),
    (ctx) => ctx.ask(ctx.q.roots(), { kee: 'k' }),
  ]
  const rules = ['input-request-invalid', 'usage-invalid-argument', 'usage-invalid-argument', 'usage-invalid-argument']
  for (const [i, ask] of bad.entries()) {
    let caught = 0
    const tool = async (args, ctx) => {
      try {
        await ask(ctx)
      } catch {
        caught += 1
      }
      return { content: [] }
    }
    await assert.rejects(mrtr.runTool(tool, request, alice), (e) => e instanceof mrtr.MrtrError && e.rule === rules[i], String(i))
    assert.equal(caught, 0)
  }
  // A result that is no object.
  await assert.rejects(mrtr.runTool(async () => 'hi', request, alice), is(mrtr.UsageError, 'usage-invalid-argument'))
})

test('a refusal at an ask wins over what the tool does after it: its result, or an error of its own', async () => {
  const oops = new TypeError('the tool broke')
  const refusal = is(mrtr.ProtocolError, 'input-request-invalid')
  const throwing = async (args, ctx) => {
    ctx.ask({ method: 'elicitation/create' }).catch(() => {}) // no params: no input request, refused
    throw oops
  }
  await assert.rejects(mrtr.runTool(throwing, request, alice), refusal)
  const returning = async (args, ctx) => {
    ctx.ask({ method: 'elicitation/create' }).catch(() => {})
    return { content: [] }
  }
  await assert.rejects(mrtr.runToolText(returning, JSON.stringify(request), alice), refusal)
  // The refusal's response is the one errorResponse builds for it.
  const e = await mrtr.runTool(returning, request, alice).catch((e) => e)
  assert.equal(mrtr.errorResponse(request.id, e).response.error.data.rule, 'input-request-invalid')
})

test('runTool and errorResponse refuse a misuse', async () => {
  const { tool } = greeter()
  const misuse = is(mrtr.UsageError, 'usage-invalid-argument')
  await assert.rejects(mrtr.runTool('tool', request, alice), misuse)
  await assert.rejects(mrtr.runTool(tool, request, { subject: 'alice', now: 1 }), misuse) // no ring
  await assert.rejects(mrtr.runTool(tool, request, { ring, now: 1 }), misuse) // no subject: never anonymous by default
  await assert.rejects(mrtr.runTool(tool, request, { ...alice, anonymous: true }), misuse) // both
  await assert.rejects(mrtr.runTool(tool, request, { ...alice, gaurd: () => true }), misuse) // a misspelt guard
  await assert.rejects(mrtr.runTool(tool, request, { ...alice, guard: () => Promise.resolve(true) }).then(async () => {
    // The guard is asked only for a request carrying state.
    const first = await mrtr.runTool(tool, request, alice)
    return mrtr.runTool(tool, answerAll(request, first, 'Ada', 2), { ...alice, guard: () => Promise.resolve(true) })
  }), misuse)
  await assert.rejects(mrtr.runTool(tool, request, { ...alice, now: -1 }), misuse)
  await assert.rejects(mrtr.runTool(tool, request, { ring, subject: 'alice' }), misuse) // no clock: never a hidden one
  const rounds = new mrtr.SealedRounds({ ring })
  await assert.rejects(mrtr.runTool(tool, request, { rounds, ring, subject: 'alice', now: 1 }), misuse) // both
  await assert.rejects(mrtr.runTool(tool, request, { rounds, ttl: 5, subject: 'alice', now: 1 }), misuse)
  await assert.rejects(mrtr.runTool(tool, request, { rounds: {}, subject: 'alice', now: 1 }), misuse)
  await assert.rejects(mrtr.runTool(tool, { ...request, params: { name: 'greet' } }, alice), is(mrtr.ProtocolError, 'request-meta-missing'))
  assert.throws(() => mrtr.errorResponse(1, new Error('x')), misuse)
  assert.throws(() => mrtr.errorResponse(1, { rule: 'no-such-rule', message: 'x' }), misuse)
  assert.deepEqual(mrtr.errorResponse(null, { rule: 'state-expired', message: 'late' }), {
    response: { jsonrpc: '2.0', id: null, error: { code: -32602, message: 'late', data: { rule: 'state-expired' } } },
    status: 400,
  })
})

test('errorResponse carries a refusal\'s data for the client to act on', () => {
  const data = { supported: ['2026-07-28'], requested: '2099-01-01' }
  const { response, status } = mrtr.errorResponse(3, { rule: 'protocol-version-unsupported', message: 'no', data })
  assert.equal(status, 400)
  assert.deepEqual(response.error, { code: -32022, message: 'no', data: { ...data, rule: 'protocol-version-unsupported' } })
  const misuse = is(mrtr.UsageError, 'usage-invalid-argument')
  assert.throws(() => mrtr.errorResponse(3, { rule: 'protocol-version-unsupported', message: 'no', data: [1] }), misuse)
})
