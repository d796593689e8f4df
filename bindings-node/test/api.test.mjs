// Ergonomics: objects or JSON text in, plain objects out, camelCase names
// mirroring the core, the tables built from the core's catalogue. Shared by
// both backends (test/backend.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mrtr from './backend.mjs'
import { call, ask, answer, meta, utf8 } from './fixtures.mjs'

test('the README flow: respond, retry, resume', () => {
  const response = mrtr.respond(call, ask, 's1')
  assert.deepEqual(response, {
    jsonrpc: '2.0',
    id: 1,
    result: { resultType: 'input_required', inputRequests: ask, requestState: 's1' },
  })
  const again = mrtr.retry(call, response, answer, 2)
  assert.equal(again.id, 2)
  assert.deepEqual(again.params.inputResponses, answer)
  assert.equal(again.params.requestState, 's1')
  assert.deepEqual(again.params.arguments, { location: 'NYC' })
  const got = mrtr.resume(again, ask)
  assert.deepEqual(got, { responses: answer, missing: [], ignored: [], requestState: 's1' })
})

test('objects, strings, Uint8Arrays and ArrayBuffers give the same answer', () => {
  const text = JSON.stringify(call)
  const bytes = utf8(text)
  const forms = [call, text, bytes, bytes.subarray(0), bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)]
  const results = forms.map((m) => mrtr.classify(m))
  for (const r of results) assert.deepEqual(r, results[0])
  assert.deepEqual(results[0], { kind: 'request', id: 1, method: 'tools/call', resultType: null, resultTypePresent: false })
  const responses = forms.map((m) => mrtr.respond(m, JSON.stringify(ask), 's1'))
  for (const r of responses) assert.deepEqual(r, responses[0])
})

test('classify: every kind, ids and result types', () => {
  const c = (m, o) => mrtr.classify(m, o)
  assert.equal(c({ jsonrpc: '2.0', method: 'notifications/progress' }).kind, mrtr.Kind.Notification)
  assert.deepEqual(c({ jsonrpc: '2.0', id: 'a', result: { resultType: 'complete' } }), {
    kind: 'result', id: 'a', method: null, resultType: 'complete', resultTypePresent: true,
  })
  const ir = c({ jsonrpc: '2.0', id: 7, result: { resultType: 'input_required', requestState: 'x' } })
  assert.equal(ir.kind, mrtr.Kind.InputRequired)
  assert.equal(ir.resultType, 'input_required')
  assert.equal(c({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'no' } }).id, null)
  // 2025-11-25 has no resultType: an ordinary unknown field.
  const old = c({ jsonrpc: '2.0', id: 7, result: { resultType: 'input_required' } }, { protocol: mrtr.Protocol.V2025_11_25 })
  assert.equal(old.kind, 'result')
  // The draft's envelope fields.
  const draft = c({ jsonrpc: '2.0', id: 7, request_state: 's' }, { protocol: 'sep-2322-draft' })
  assert.equal(draft.kind, 'input_required')
  assert.equal(c('{"jsonrpc":"2.0","id":9007199254740993,"method":"m"}').id, 9007199254740992) // as JS reads it
  assert.deepEqual(c('{"jsonrpc":"2.0","id":"caf\\u00e9","method":"\\u00fcber"}'), {
    kind: 'request', id: 'café', method: 'über', resultType: null, resultTypePresent: false,
  })
})

test('an unknown protocol is jsonrpc-invalid, as the corpus says', () => {
  assert.throws(() => mrtr.classify(call, { protocol: '2024-11-05' }), {
    name: 'ProtocolError',
    rule: 'jsonrpc-invalid',
    // The name given and the known ones, so that the reader can correct it.
    message: 'unknown protocol "2024-11-05": the known ones are 2026-07-28, sep-2322, sep-2322-draft, 2025-11-25',
  })
  assert.throws(() => new mrtr.Client({ protocol: 'nope' }), { rule: 'jsonrpc-invalid' })
})

test('limits are options; absent fields keep the defaults', () => {
  assert.deepEqual(mrtr.defaultLimits, { maxMessageBytes: 16 << 20, maxDepth: 128, maxInputRequests: 1024, maxRequestStateBytes: 64 << 10 })
  assert.throws(() => mrtr.classify(call, { limits: { maxMessageBytes: 10 } }), { rule: 'limit-exceeded', code: -32600 })
  assert.throws(() => mrtr.respond(call, null, 'x'.repeat(100), { limits: { maxRequestStateBytes: 10 } }), { rule: 'state-too-large' })
  assert.equal(mrtr.classify(call, { limits: {} }).kind, 'request')
  // Options of the wrong shape are the caller's misuse, as the core reads them.
  assert.throws(() => mrtr.classify(call, { limits: { maxDepth: 'deep' } }), { name: 'UsageError', rule: 'usage-invalid-argument' })
  assert.throws(() => mrtr.classify(call, { protocl: '2026-07-28' }), mrtr.UsageError)
  assert.throws(() => mrtr.classify(call, 'sep-2322'), mrtr.UsageError)
})

test('respond: null and undefined leave fields out; the allow-list and _meta are the core\'s', () => {
  assert.deepEqual(mrtr.respond(call, null, 'only-state').result, { resultType: 'input_required', requestState: 'only-state' })
  assert.deepEqual(mrtr.respond(call, ask).result, { resultType: 'input_required', inputRequests: ask })
  assert.throws(() => mrtr.respond(call, null, null), { rule: 'input-required-empty' })
  assert.throws(() => mrtr.respond({ ...call, method: 'tools/list' }, ask), { rule: 'input-required-method-not-allowed' })
  const bare = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } }
  assert.throws(() => mrtr.respond(bare, ask), { rule: 'request-meta-missing', code: -32602 })
  assert.deepEqual(mrtr.respond(bare, ask, null, { protocol: 'sep-2322' }).result.inputRequests, ask)
  assert.throws(() => mrtr.respond(call, ask, 42), { rule: 'request-state-invalid' })
  const noSampling = { ...call, params: { ...call.params, _meta: meta } }
  const sample = { s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } }
  // A tool that asks for what the client did not declare is refused with -32021, naming the need.
  assert.throws(() => mrtr.respond(noSampling, sample), (e) => {
    assert.equal(e.rule, 'request-capability-missing')
    assert.equal(e.code, -32021)
    assert.deepEqual(e.data, { requiredCapabilities: { sampling: {} } })
    return true
  })
})

test('retry: the echo rules', () => {
  const response = mrtr.respond(call, ask, 's1')
  assert.throws(() => mrtr.retry(call, response, answer, 1), { name: 'RetryError', rule: 'retry-id-reused' })
  assert.throws(() => mrtr.retry(call, response, {}, 2), { rule: 'retry-missing-input-response' })
  assert.throws(() => mrtr.retry(call, response, { ...answer, extra: { action: 'decline' } }, 2), { rule: 'input-responses-unsolicited' })
  assert.throws(() => mrtr.retry(call, response, { login: { action: 'accept', content: { name: 5 } } }, 2), { rule: 'retry-input-response-invalid' })
  // A string id is a value, never JSON text.
  assert.equal(mrtr.retry(call, response, answer, 'retry-2').id, 'retry-2')
  // Load shedding: state only, no responses.
  const shed = mrtr.respond(call, null, 'busy')
  assert.deepEqual(mrtr.retry(call, shed, null, 3).params.requestState, 'busy')
})

test('resume: missing, ignored, requestState', () => {
  const both = { ...ask, roots: { method: 'roots/list', params: {} } }
  const r = mrtr.resume({ ...call, params: { ...call.params, inputResponses: { ...answer, old: { action: 'decline' } }, requestState: 's' } }, both)
  assert.deepEqual(r.missing, ['roots'])
  assert.deepEqual(r.ignored, ['old'])
  assert.equal(r.requestState, 's')
  assert.deepEqual(mrtr.resume(call, ask), { responses: {}, missing: ['login'], ignored: [], requestState: null })
})

test('check and Checker: the same violations', () => {
  const transcript = [
    { from: 'client', message: call },
    { from: 'server', message: mrtr.respond(call, ask, 's1'), stream: 'post:1' },
    { from: 'client', message: { ...mrtr.retry(call, mrtr.respond(call, ask, 's1'), answer, 2), params: { ...call.params, inputResponses: answer, requestState: 'forged' }, id: 2 } },
  ]
  const v = mrtr.check(transcript)
  assert.deepEqual(v.map((x) => [x.rule, x.index]), [['retry-request-state-mismatch', 2]])
  assert.equal(typeof v[0].message, 'string')
  assert.deepEqual(mrtr.check(JSON.stringify(transcript)), v)
  const checker = new mrtr.Checker({ protocol: '2026-07-28' })
  for (const e of transcript) checker.handle(e)
  assert.deepEqual(checker.violations(), v)
  assert.deepEqual(mrtr.check([]), [])
  assert.throws(() => mrtr.check([{ from: 'nobody', message: {} }]), { name: 'UsageError', rule: 'usage-invalid-argument' })
  assert.throws(() => mrtr.check({ from: 'client', message: call }), mrtr.UsageError)
  assert.throws(() => checker.handle([]), mrtr.UsageError)
})

test('tasks: taskUpdate and taskTransition', () => {
  assert.equal(mrtr.taskTransition(mrtr.TaskStatus.Working, mrtr.TaskStatus.InputRequired), 'input_required')
  assert.throws(() => mrtr.taskTransition('completed', 'working'), { name: 'TaskError', rule: 'task-transition-invalid' })
  assert.throws(() => mrtr.taskTransition('Working', 'working'), { rule: 'task-status-invalid', code: -32602 })
  const get = { jsonrpc: '2.0', id: 5, method: 'tasks/get', params: { taskId: 't1', _meta: meta } }
  const shown = { jsonrpc: '2.0', id: 5, result: { resultType: 'complete', taskId: 't1', status: 'input_required', inputRequests: ask } }
  const update = mrtr.taskUpdate(get, shown, answer, 6)
  assert.deepEqual(update, { jsonrpc: '2.0', id: 6, method: 'tasks/update', params: { taskId: 't1', inputResponses: answer, _meta: meta } })
})

test('the tables come from the core', () => {
  assert.equal(mrtr.RULES.length, Object.keys(mrtr.Rule).length)
  for (const r of mrtr.RULES) {
    assert.equal(mrtr.Rule[r.key], r.id)
    assert.match(r.id, /^[a-z0-9]+(-[a-z0-9]+)*$/)
    assert.match(r.area, /^[a-z]+$/)
    assert.ok(r.code === null || [-32700, -32600, -32602, -32603, -32020, -32021, -32022].includes(r.code), r.id)
  }
  assert.deepEqual(Object.values(mrtr.Kind), ['request', 'notification', 'result', 'input_required', 'error'])
  assert.equal(new Set(mrtr.RULES.map((r) => r.number)).size, mrtr.RULES.length)
  assert.deepEqual(Object.values(mrtr.Protocol), ['2026-07-28', 'sep-2322', 'sep-2322-draft', '2025-11-25'])
  assert.deepEqual(Object.values(mrtr.TaskStatus), ['working', 'input_required', 'completed', 'failed', 'cancelled'])
  assert.ok(Object.isFrozen(mrtr.Rule) && Object.isFrozen(mrtr.RULES) && Object.isFrozen(mrtr.Protocol))
})

test('results are plain, mutable JSON objects', () => {
  const r = mrtr.respond(call, ask, 's1')
  assert.equal(Object.getPrototypeOf(r), Object.prototype)
  r.extra = 1
  assert.deepEqual(JSON.parse(JSON.stringify(r)).extra, 1)
})
