// Errors: MrtrError subclasses carrying .rule and .code, one class per area
// derived from the rule ids; a Rust panic (or any trap) is a PanicError, never
// a dead module.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as mrtr from '../pkg/node/index.mjs'
import { call, ask } from './fixtures.mjs'

const AREA = { 'retry-': 'RetryError', 'state-': 'StateError', 'task-': 'TaskError', 'server-request-': 'AssociationError', 'sse-': 'TransportError' }

test('every rule of the catalogue maps to exactly one class, by its prefix', () => {
  assert.ok(mrtr.RULES.length >= 40)
  for (const r of mrtr.RULES) {
    const C = mrtr.errorClassFor(r.id)
    const prefix = Object.keys(AREA).find((p) => r.id.startsWith(p))
    assert.equal(C.name, prefix ? AREA[prefix] : 'ProtocolError', r.id)
    assert.ok(C.prototype instanceof mrtr.MrtrError, r.id)
    const e = new C(r.id, 'why')
    assert.equal(e.rule, r.id)
    assert.equal(e.code, r.code)
    assert.equal(e.name, C.name)
    assert.ok(e instanceof Error && e instanceof mrtr.MrtrError)
  }
  for (const name of Object.values(AREA)) assert.ok(mrtr.RULES.some((r) => mrtr.errorClassFor(r.id).name === name), name)
  assert.throws(() => mrtr.errorClassFor('no-such-rule'), TypeError)
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
  assert.throws(() => mrtr.taskTransition('failed', 'working'), mrtr.TaskError)
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: new Uint8Array(32) })
  assert.throws(() => ring.open('x', { subject: '', method: 'tools/call', target: 't' }, 1), mrtr.StateError)
  assert.throws(() => mrtr.classify('nope'), mrtr.ProtocolError)
})

test('arguments of the wrong type are TypeErrors, not rules', () => {
  assert.throws(() => mrtr.classify(call, { protocol: 5 }), TypeError)
  assert.throws(() => new mrtr.KeyRing({ id: 1, algorithm: 'rot13', secret: new Uint8Array(32) }), TypeError)
  assert.throws(() => new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: new Uint8Array(31) }), TypeError)
  assert.throws(() => new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: 'not hex' }), TypeError)
  assert.throws(() => new mrtr.Client().answer(-1, {}, 2), TypeError)
  assert.throws(() => new mrtr.Client().answer('0', {}, 2), TypeError)
  assert.throws(() => mrtr.check([{ from: 'client' }]), { name: 'TypeError', code: 'ERR_MRTR_ARG' })
})

test('what JSON cannot hold is a ProtocolError', () => {
  const cycle = { jsonrpc: '2.0' }
  cycle.self = cycle
  assert.throws(() => mrtr.classify(cycle), { name: 'ProtocolError', rule: 'jsonrpc-invalid' })
  assert.throws(() => mrtr.classify({ jsonrpc: '2.0', id: 1n, method: 'x' }), { rule: 'jsonrpc-invalid' })
  assert.throws(() => mrtr.classify(undefined), { rule: 'jsonrpc-invalid' })
  assert.throws(() => mrtr.retry(call, call, {}, undefined), { rule: 'jsonrpc-invalid' })
})

test('a Rust panic surfaces as a PanicError, and the module keeps working', () => {
  for (let i = 0; i < 3; i++) {
    assert.throws(() => mrtr.__panicForTests(), (e) => {
      assert.ok(e instanceof mrtr.PanicError)
      assert.ok(!(e instanceof mrtr.MrtrError))
      assert.equal(e.code, 'MRTR_PANIC')
      assert.match(e.message, /panicked.*on purpose/)
      return true
    })
    assert.equal(mrtr.classify(call).kind, 'request')
  }
})

test('after a panic, objects of the old instance throw a PanicError; new ones work', () => {
  const before = new mrtr.Client()
  before.send(call)
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: new Uint8Array(32) })
  const checker = new mrtr.Checker()
  assert.throws(() => mrtr.__panicForTests(), mrtr.PanicError)
  for (const use of [() => before.pollTransmit(), () => before.send({ ...call, id: 2 }), () => checker.violations()]) {
    assert.throws(use, (e) => e instanceof mrtr.PanicError && /panicked; make a new one/.test(e.message))
  }
  assert.throws(() => ring.seal({ subject: '', method: 'm', target: 't' }, 1, 1, 'p'), mrtr.PanicError)
  const after = new mrtr.Client()
  after.send(call)
  assert.deepEqual(after.pollTransmit(), call)
})

test('a trap that bypasses the panic hook is a PanicError too, and the module recovers', () => {
  assert.throws(() => mrtr.default.__abortForTests(), (e) => {
    assert.ok(e instanceof mrtr.PanicError)
    assert.match(e.message, /mrtr aborted: unreachable/)
    assert.ok(e.cause instanceof WebAssembly.RuntimeError)
    return true
  })
  assert.equal(mrtr.classify(call).kind, 'request')
  assert.deepEqual(mrtr.resume(call, ask).missing, ['login'])
})
