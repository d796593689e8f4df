// The bad inputs of the core issue: each is an exception carrying .rule
// (never a crash, a trap, a hang or a silent success), within a time bound.
// Shared by both backends (test/backend.mjs); in wasm the 100 MB string goes
// into the module's memory in full (the bound is the core's, checked on the
// bytes): the module grows to hold it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mrtr from './backend.mjs'
import { call, ask, answer, utf8, concat } from './fixtures.mjs'

const BOUND = { timeout: 120_000 }

/** `f` throws an MrtrError for `rule`. */
function refuses(f, rule) {
  assert.throws(f, (e) => {
    assert.ok(e instanceof mrtr.MrtrError, `${e?.name}: ${e?.message}`)
    assert.equal(e.rule, rule, e.message)
    return true
  })
}

const text = JSON.stringify(call)

test('invalid UTF-8 in a Uint8Array is jsonrpc-parse-error, everywhere', BOUND, () => {
  const bytes = (before, after) => concat(utf8(before), new Uint8Array([0xff, 0xfe, 0xc3]), utf8(after))
  refuses(() => mrtr.classify(bytes('{"jsonrpc":"2.0","id":1,"method":"tools/call', '"}')), 'jsonrpc-parse-error')
  refuses(() => mrtr.classify(bytes('{"jsonrpc":"2.0","id":1,"method":"tools/call"', '}')), 'jsonrpc-parse-error')
  const bad = bytes('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"', '"}}')
  refuses(() => mrtr.respond(bad, ask, 's'), 'jsonrpc-parse-error')
  refuses(() => mrtr.retry(bad, mrtr.respond(call, ask, 's'), answer, 2), 'jsonrpc-parse-error')
  refuses(() => mrtr.resume(call, bad), 'jsonrpc-parse-error')
  const client = new mrtr.Client()
  refuses(() => client.send(bad), 'jsonrpc-parse-error')
  client.send(call)
  refuses(() => client.handleResponse(bad), 'jsonrpc-parse-error')
  refuses(() => mrtr.check(bad), 'jsonrpc-parse-error')
  // An unpaired surrogate escape is not Unicode either.
  refuses(() => mrtr.classify('{"jsonrpc":"2.0","id":1,"method":"\\ud800"}'), 'jsonrpc-parse-error')
})

test('every truncation of a message is refused', BOUND, () => {
  for (let n = 0; n < text.length; n++) {
    const cut = text.slice(0, n)
    assert.throws(() => mrtr.classify(cut), (e) => e instanceof mrtr.MrtrError && ['jsonrpc-parse-error', 'jsonrpc-invalid'].includes(e.rule), cut)
    assert.throws(() => mrtr.respond(utf8(cut), ask, 's'), mrtr.MrtrError, cut)
    assert.throws(() => mrtr.check(`[{"from":"client","message":${cut}`), mrtr.MrtrError, cut)
  }
})

test('10 000-deep nesting is limit-exceeded (text, bytes and objects)', BOUND, () => {
  const deep = '['.repeat(10_000) + ']'.repeat(10_000)
  const message = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":${deep}}}}`
  refuses(() => mrtr.classify(message), 'limit-exceeded')
  refuses(() => mrtr.classify(utf8(message)), 'limit-exceeded')
  refuses(() => mrtr.respond(message, ask, 's'), 'limit-exceeded')
  refuses(() => mrtr.resume(message, ask), 'limit-exceeded')
  refuses(() => new mrtr.Client().send(message), 'limit-exceeded')
  refuses(() => mrtr.check([{ from: 'client', message: JSON.parse(`{"a":${'['.repeat(200)}${']'.repeat(200)}}`) }]), 'limit-exceeded')
  let nested = {}
  for (let i = 0; i < 10_000; i++) nested = { a: nested }
  refuses(() => mrtr.classify({ ...call, params: { ...call.params, arguments: nested } }), 'limit-exceeded')
  refuses(() => mrtr.resume(call, nested), 'limit-exceeded')
  refuses(() => mrtr.classify('['.repeat(10_000)), 'limit-exceeded') // unclosed, too
})

test('a 100 MB string is limit-exceeded', BOUND, () => {
  const huge = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${'a'.repeat(100_000_000)}"}}`
  refuses(() => mrtr.classify(huge), 'limit-exceeded')
  refuses(() => mrtr.classify(utf8(huge)), 'limit-exceeded')
  refuses(() => mrtr.respond(huge, ask, 's'), 'limit-exceeded')
  refuses(() => new mrtr.Client().send(huge), 'limit-exceeded')
  // And the module still works afterwards.
  assert.equal(mrtr.classify(call).kind, 'request')
})

test('a key twice in one object is jsonrpc-invalid', BOUND, () => {
  refuses(() => mrtr.classify('{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call"}'), 'jsonrpc-invalid')
  refuses(() => mrtr.classify('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"a":{"b":1,"b":2}}}'), 'jsonrpc-invalid')
  refuses(() => mrtr.resume(call, '{"login":{"method":"roots/list"},"login":{"method":"roots/list"}}'), 'jsonrpc-invalid')
  const response = JSON.stringify(mrtr.respond(call, ask, 's'))
  refuses(() => mrtr.retry(call, response, '{"login":{"action":"accept"},"login":{"action":"decline"}}', 2), 'jsonrpc-invalid')
  const client = new mrtr.Client()
  client.send(call)
  refuses(() => client.handleResponse(response.replace('"result":', '"id":1,"result":')), 'jsonrpc-invalid')
})

test('100 000 input requests are limit-exceeded', BOUND, () => {
  const many = {}
  for (let i = 0; i < 100_000; i++) many[`k${i}`] = { method: 'roots/list', params: {} }
  const result = { jsonrpc: '2.0', id: 1, result: { resultType: 'input_required', inputRequests: many } }
  refuses(() => mrtr.classify(result), 'limit-exceeded')
  refuses(() => mrtr.classify(JSON.stringify(result)), 'limit-exceeded')
  refuses(() => mrtr.respond(call, many), 'limit-exceeded')
  refuses(() => mrtr.resume(call, many), 'limit-exceeded')
  const responses = Object.fromEntries(Object.keys(many).map((k) => [k, { roots: [] }]))
  refuses(() => mrtr.retry(call, mrtr.respond(call, ask, 's'), responses, 2), 'limit-exceeded')
  const client = new mrtr.Client()
  client.send(call)
  refuses(() => client.handleResponse(result), 'limit-exceeded')
})

test('garbage of every JSON type, and non-JSON values', BOUND, () => {
  for (const m of ['', ' ', 'null', '1', '"x"', '[]', '[{}]', '{}', 'nul', '{"jsonrpc":"2.0"} x', '\u0000', '{"jsonrpc":2}']) {
    assert.throws(() => mrtr.classify(m), mrtr.MrtrError, JSON.stringify(m))
  }
  for (const v of [null, 1, 'x', [], true, NaN, () => 1, Symbol('s')]) {
    assert.throws(() => mrtr.classify(typeof v === 'string' ? JSON.stringify(v) : v), mrtr.MrtrError, String(v))
  }
})

test('many bad inputs in a row leave the backend healthy (no leak into a trap)', BOUND, () => {
  for (let i = 0; i < 20_000; i++) {
    assert.throws(() => mrtr.classify(i % 2 ? '{"jsonrpc":"2.0","id":1,"id":2}' : utf8('{"a":\xff')), mrtr.MrtrError)
  }
  assert.equal(mrtr.classify(call).kind, 'request')
})
