// The server's builders a host would otherwise write itself: the request
// check (`_meta`, header fields, the protocol version: -32022 with what the
// server serves), the capability filter (`sampling.tools`, -32021 with
// `requiredCapabilities`, also from an await-style tool's `ctx.require`), the
// error response that carries a refusal's `data`, and the Tasks extension's
// task results. The same cases as the Python binding's
// tests/test_server_builders.py. Shared by both backends (test/backend.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mrtr from './backend.mjs'

const V = '2026-07-28'
const HEADERS = { 'MCP-Protocol-Version': V, 'Mcp-Method': 'tools/call', 'Mcp-Name': 'summarize' }
const SAMPLE_TOOLS = {
  method: 'sampling/createMessage',
  params: { messages: [], maxTokens: 10, tools: [{ name: 'search', inputSchema: { type: 'object' } }] },
}
const ROOTS = { method: 'roots/list', params: {} }

function call(caps, version = V, id = 1) {
  const meta = { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientCapabilities': caps }
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'summarize', _meta: meta } }
}
/** `f()` throws an error of `Class` for `rule`: that error. */
function thrown(f, Class, rule) {
  try {
    f()
  } catch (e) {
    assert.ok(e instanceof Class, `${e?.name}: ${e?.message}`)
    assert.equal(e.rule, rule)
    return e
  }
  assert.fail(`no ${rule}`)
}

test('an unserved version is refused with the versions served', () => {
  const e = thrown(
    () => mrtr.checkRequest(call({}, '2099-01-01'), [V], { headers: { ...HEADERS, 'MCP-Protocol-Version': '2099-01-01' } }),
    mrtr.ProtocolError,
    'protocol-version-unsupported',
  )
  assert.equal(e.code, -32022)
  assert.deepEqual(e.data, { supported: [V], requested: '2099-01-01' })
  const { response, status } = mrtr.errorResponse(1, e)
  assert.equal(status, 400)
  assert.equal(response.error.code, -32022)
  assert.deepEqual(response.error.data, { supported: [V], requested: '2099-01-01', rule: 'protocol-version-unsupported' })
  assert.equal(mrtr.checkRequest(call({}), [V], { headers: HEADERS }), undefined)
  mrtr.checkRequest(call({}), [V]) // not over HTTP: no header fields to check
  mrtr.checkRequest(JSON.stringify(call({})), [V], { protocol: V }) // the request as JSON text
})

test('the request check reads _meta and the header fields first; a misuse is a UsageError', () => {
  const bare = call({})
  delete bare.params._meta
  const e = thrown(() => mrtr.checkRequest(bare, [V], { headers: HEADERS }), mrtr.ProtocolError, 'request-meta-missing')
  assert.equal(e.data, null)
  thrown(() => mrtr.checkRequest(call({}), [V], { headers: { ...HEADERS, 'Mcp-Name': 'other' } }), mrtr.ProtocolError, 'request-header-mismatch')
  thrown(() => mrtr.checkRequest(call({}), [1]), mrtr.UsageError, 'usage-invalid-argument')
  thrown(() => mrtr.checkRequest(call({}), [V], { header: HEADERS }), mrtr.UsageError, 'usage-invalid-argument') // misspelt
  thrown(() => mrtr.checkRequest(call({}), [V], { headers: new Map() }), mrtr.UsageError, 'usage-invalid-argument')
  thrown(() => mrtr.checkRequest(call({}), [V], { protocol: 'no-such' }), mrtr.ProtocolError, 'jsonrpc-invalid')
})

test('sampling with tools needs sampling.tools; -32021 names what is missing', () => {
  assert.deepEqual(mrtr.missingCapabilities(call({ sampling: {} }), { s: SAMPLE_TOOLS }), { sampling: { tools: {} } })
  assert.equal(mrtr.missingCapabilities(call({ sampling: { tools: {} } }), { s: SAMPLE_TOOLS }), null)
  const e = thrown(() => mrtr.requireCapabilities(call({}), { s: SAMPLE_TOOLS, r: ROOTS }), mrtr.ProtocolError, 'request-capability-missing')
  assert.equal(e.code, -32021)
  assert.deepEqual(e.data, { requiredCapabilities: { sampling: { tools: {} }, roots: {} } })
  mrtr.requireCapabilities(call({ roots: {} }), { r: ROOTS })
  thrown(() => mrtr.missingCapabilities(call({}), { x: { method: 'nope', params: {} } }), mrtr.ProtocolError, 'input-request-invalid')
  const tasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
  const d = thrown(() => mrtr.requireDeclared(call({ sampling: {} }), tasks), mrtr.ProtocolError, 'request-capability-missing')
  assert.deepEqual(d.data, { requiredCapabilities: tasks })
  mrtr.requireDeclared(call(tasks), tasks)
  thrown(() => mrtr.requireDeclared(call(tasks), [tasks]), mrtr.UsageError, 'usage-invalid-argument')
  // 2025-11-25 declares capabilities at initialize: nothing to check on the request.
  assert.equal(mrtr.missingCapabilities({ ...call({}), params: { name: 's' } }, { r: ROOTS }, { protocol: '2025-11-25' }), null)
})

test('an MrtrError carries the data it is given, null when none', () => {
  const e = new mrtr.ProtocolError('request-capability-missing', 'no', { data: { requiredCapabilities: { roots: {} } } })
  assert.deepEqual([e.rule, e.code, e.data], ['request-capability-missing', -32021, { requiredCapabilities: { roots: {} } }])
  assert.equal(new mrtr.StateError('state-expired', 'late').data, null)
  const cause = new Error('below')
  assert.equal(new mrtr.StateError('state-expired', 'late', { cause }).cause, cause)
  assert.deepEqual(mrtr.errorResponse(1, e).response.error.data, { requiredCapabilities: { roots: {} }, rule: 'request-capability-missing' })
})

test('errorResponse: the draft registry answers a refused state with -32026, never with a 2xx', () => {
  const late = new mrtr.StateError('state-expired', 'late')
  const released = mrtr.errorResponse(7, late)
  assert.deepEqual([released.response.error.code, released.status], [-32602, 400])
  const draft = mrtr.errorResponse(7, late, { errorCodes: 'draft' })
  assert.deepEqual([draft.response.error.code, draft.status], [-32026, 400])
  assert.deepEqual(draft.response.error.data, { kind: 'request_state', reason: 'expired', rule: 'state-expired' })
  // Other refusals keep their code; a name that is no table is a UsageError.
  assert.equal(mrtr.errorResponse(7, { rule: 'request-meta-missing', message: 'm' }, { errorCodes: 'draft' }).response.error.code, -32602)
  assert.throws(() => mrtr.errorResponse(7, late, { errorCodes: 'next' }), mrtr.UsageError)
})

const secret = Uint8Array.from({ length: 32 }, (_, i) => (i * 13 + 5) & 0xff)
const rounds = new mrtr.SealedRounds({ ring: new mrtr.KeyRing({ id: 1, algorithm: 'xchacha20-poly1305', secret }), protocol: V })

/** Summarizes with the client's model, offering it a search tool when the client allows that. */
async function summarize(args, ctx) {
  if (!ctx.allows(SAMPLE_TOOLS)) {
    ctx.require(ctx.q.roots()) // without tools it reads the roots instead, and needs them
    const { roots } = await ctx.roots()
    return { content: [{ type: 'text', text: `${roots.length} roots` }] }
  }
  const said = await ctx.ask(SAMPLE_TOOLS)
  return { content: [{ type: 'text', text: said.content.text }] }
}
const run = (message) => mrtr.runTool(summarize, message, { rounds, anonymous: true, now: 1000 })

test('a tool asks only what the client allows, and refuses what it needs', async () => {
  const withTools = await run(call({ sampling: { tools: {} } }))
  const [question] = Object.values(withTools.result.inputRequests)
  assert.equal(question.params.tools[0].name, 'search')
  const roots = await run(call({ roots: {} }))
  assert.deepEqual(Object.values(roots.result.inputRequests).map((q) => q.method), ['roots/list'])
  const e = await run(call({ sampling: {} })).then(assert.fail, (e) => e)
  assert.ok(e instanceof mrtr.ProtocolError && e.rule === 'request-capability-missing', String(e))
  const { response, status } = mrtr.errorResponse(1, e)
  assert.deepEqual([status, response.error.code], [400, -32021])
  assert.deepEqual(response.error.data.requiredCapabilities, { roots: {} })
  // What mrtr's checker says of that refusal on the wire: nothing; of one without its data: a violation.
  const conversation = [{ from: 'client', message: call({ sampling: {} }) }, { from: 'server', message: response }]
  assert.deepEqual(mrtr.check(conversation, { protocol: V }), [])
  delete response.error.data.requiredCapabilities
  assert.deepEqual(mrtr.check(conversation, { protocol: V }).map((v) => v.rule), ['request-capability-missing'])
  // ctx.allows with several questions: all of them, or false.
  const both = async (args, ctx) => ({ content: [{ type: 'text', text: String(ctx.allows(ctx.q.roots(), SAMPLE_TOOLS)) }] })
  const said = async (caps) => (await mrtr.runTool(both, call(caps), { rounds, anonymous: true, now: 1000 })).result.content[0].text
  assert.equal(await said({ roots: {}, sampling: { tools: {} } }), 'true')
  assert.equal(await said({ roots: {}, sampling: {} }), 'false')
})

const RECORD = {
  taskId: 't-1',
  status: 'input_required',
  createdAt: '2026-11-25T09:00:00Z',
  lastUpdatedAt: '2026-11-25T09:00:02Z',
  ttlMs: 60_000,
  pollIntervalMs: 200,
  inputRequests: { a: ROOTS, b: ROOTS },
  answered: ['a'],
}

test('task results show what their status carries', () => {
  const started = mrtr.taskCreated(call({}), { ...RECORD, status: 'working' })
  assert.equal(started.result.resultType, 'task')
  assert.ok(!('inputRequests' in started.result))
  const get = { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 't-1' } }
  const shown = mrtr.taskGetResponse(get, RECORD, { protocol: V }).result
  assert.equal(shown.resultType, 'complete')
  assert.deepEqual(Object.keys(shown.inputRequests), ['b'])
  assert.ok(!('answered' in shown))
  thrown(() => mrtr.taskGetResponse(get, { ...RECORD, answered: ['a', 'b'] }, { protocol: V }), mrtr.TaskError, 'task-input-requests-missing')
  thrown(() => mrtr.taskGetResponse(get, { ...RECORD, status: 'completed' }, { protocol: V }), mrtr.UsageError, 'usage-invalid-argument') // no result
})

test('complete marks the final answer, never cacheable after a retry, with the hints a cacheable result needs', () => {
  const list = { jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }
  assert.deepEqual(mrtr.complete(list, { tools: [] }, { protocol: V }), {
    jsonrpc: '2.0', id: 3, result: { tools: [], resultType: 'complete', ttlMs: 0, cacheScope: 'private' },
  })
  const retry = { ...call({}), params: { ...call({}).params, requestState: 's' } }
  const done = mrtr.complete(retry, { content: [], ttlMs: 60000 }, { protocol: V }).result
  assert.equal(done.ttlMs, 0)
  assert.equal(done.cacheScope, undefined) // a tool's result names no caching hints
  thrown(() => mrtr.complete(list, [1], { protocol: V }), mrtr.UsageError, 'usage-invalid-argument')
})
