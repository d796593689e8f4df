// Errors: one MrtrError subclass per area of the core's catalogue, carrying
// .rule and .code; misuse is a UsageError, a Rust panic a PanicError
// (internal-panic), never an abort. Shared by both backends (test/backend.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mrtr, { backend } from './backend.mjs'
import { call, ask } from './fixtures.mjs'

const CLASSES = ['ProtocolError', 'RetryError', 'StateError', 'TaskError', 'AssociationError', 'TransportError', 'UsageError', 'PanicError']

test("every rule raises the class of its area, as the core's table says", () => {
  assert.ok(mrtr.RULES.length >= 45)
  const areas = new Set()
  for (const r of mrtr.RULES) {
    const C = mrtr.errorClassFor(r.id)
    assert.equal(C.name, `${r.area[0].toUpperCase()}${r.area.slice(1)}Error`, r.id)
    assert.equal(mrtr[C.name], C, r.id)
    assert.ok(C.prototype instanceof mrtr.MrtrError, r.id)
    const e = new C(r.id, 'why')
    assert.deepEqual([e.rule, e.code, e.name, e.message], [r.id, r.code, C.name, 'why'])
    assert.ok(e instanceof Error && e instanceof mrtr.MrtrError)
    areas.add(C.name)
  }
  // Every area has a rule, and every class is exported.
  assert.deepEqual([...areas].sort(), [...CLASSES].sort())
  // The classes the issue names: the SSE rules are transport errors, the input responses retry errors.
  assert.equal(mrtr.errorClassFor('sse-retry-ignored'), mrtr.TransportError)
  assert.equal(mrtr.errorClassFor('input-responses-malformed'), mrtr.RetryError)
  assert.equal(mrtr.errorClassFor('internal-panic'), mrtr.PanicError)
  assert.throws(() => mrtr.errorClassFor('no-such-rule'), { name: 'UsageError', rule: 'usage-invalid-argument' })
})

test('an error thrown by the core carries rule, code, message and a stack', () => {
  try {
    mrtr.classify('{"jsonrpc":"2.0"')
    assert.fail('no throw')
  } catch (e) {
    assert.ok(e instanceof mrtr.ProtocolError)
    assert.equal(e.rule, mrtr.Rule.JsonrpcParseError)
    assert.equal(e.code, -32700)
    assert.match(e.message, /JSON/)
    assert.match(e.stack, /errors\.test\.mjs/)
    assert.equal(Object.prototype.toString.call(e), '[object Error]')
  }
  assert.throws(() => mrtr.classify({ jsonrpc: '2.0', id: 1, result: { resultType: 'weird' } }), { rule: 'result-type-unknown', code: null })
})

test('each area class is thrown by the operation that breaks its rule', () => {
  const response = mrtr.respond(call, ask, 's1')
  assert.throws(() => mrtr.retry(call, response, {}, 2), mrtr.RetryError)
  assert.throws(() => mrtr.retry(call, response, [], 2), { name: 'RetryError', rule: 'input-responses-malformed' })
  assert.throws(() => mrtr.taskTransition('failed', 'working'), mrtr.TaskError)
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: new Uint8Array(32) })
  assert.throws(() => ring.open('x', { subject: 's', method: 'tools/call', target: 't', params: {} }, 1), mrtr.StateError)
  assert.throws(() => mrtr.classify('nope'), mrtr.ProtocolError)
  assert.throws(() => new mrtr.Client().answer(7, {}, 2), { name: 'UsageError', rule: 'usage-unknown-handle' })
})

test('arguments of the wrong type or shape are UsageErrors (usage-invalid-argument), not TypeErrors', () => {
  const misuse = { name: 'UsageError', rule: 'usage-invalid-argument', code: null }
  assert.throws(() => mrtr.classify(call, { protocol: 5 }), misuse)
  assert.throws(() => new mrtr.KeyRing({ id: 1, algorithm: 'rot13', secret: new Uint8Array(32) }), misuse)
  assert.throws(() => new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: new Uint8Array(31) }), misuse)
  assert.throws(() => new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: 'not hex' }), misuse)
  assert.throws(() => new mrtr.KeyRing({ id: 256, algorithm: 'aes-256-gcm', secret: new Uint8Array(32) }), misuse)
  assert.throws(() => new mrtr.Client().answer(-1, {}, 2), misuse)
  assert.throws(() => new mrtr.Client().answer('0', {}, 2), misuse)
  assert.throws(() => mrtr.check([{ from: 'client' }]), misuse)
  assert.throws(() => mrtr.taskTransition(1, 'working'), misuse)
  assert.throws(() => new mrtr.SealedRounds({ ring: {} }), misuse)
  const e = new mrtr.UsageError(mrtr.Rule.UsageOutOfTurn, 'x')
  assert.ok(e instanceof mrtr.MrtrError && !(e instanceof TypeError))
})

test('what JSON cannot hold is a UsageError; what is too deep to write is limit-exceeded', () => {
  const cycle = { jsonrpc: '2.0' }
  cycle.self = cycle
  assert.throws(() => mrtr.classify(cycle), { name: 'UsageError', rule: 'usage-invalid-argument' })
  assert.throws(() => mrtr.classify({ jsonrpc: '2.0', id: 1n, method: 'x' }), mrtr.UsageError)
  assert.throws(() => mrtr.classify(undefined), mrtr.UsageError)
  assert.throws(() => mrtr.retry(call, call, {}, undefined), mrtr.UsageError)
  let deep = {}
  for (let i = 0; i < 100_000; i++) deep = { a: deep }
  assert.throws(() => mrtr.classify(deep), { name: 'ProtocolError', rule: 'limit-exceeded' })
})

test(`a Rust panic surfaces as a PanicError (internal-panic), and the ${backend} backend keeps working`, () => {
  for (let i = 0; i < 3; i++) {
    assert.throws(() => mrtr.__panicForTests(), (e) => {
      assert.ok(e instanceof mrtr.PanicError && e instanceof mrtr.MrtrError)
      assert.deepEqual([e.rule, e.code, e.name], ['internal-panic', -32603, 'PanicError'])
      assert.match(e.message, /panicked.*on purpose/)
      return true
    })
    assert.equal(mrtr.classify(call).kind, 'request')
  }
})
