// What only the wasm backend does after a panic: wasm32 cannot unwind, so the
// API starts a fresh instance at once; objects of the old one then throw a
// PanicError when used, and a trap that bypasses the panic hook (out of
// memory, a stack overflow) is a PanicError too, after which the module works.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as mrtr from '../pkg/lib/api.mjs'

const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } }
const options = { protocol: 'sep-2322' }

test('after a panic, objects of the old instance throw a PanicError; new ones work', () => {
  const before = new mrtr.Client(options)
  before.send(call)
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: new Uint8Array(32) })
  const checker = new mrtr.Checker()
  assert.throws(() => mrtr.__panicForTests(), mrtr.PanicError)
  for (const use of [() => before.pollTransmit(), () => before.send({ ...call, id: 2 }), () => checker.violations()]) {
    assert.throws(use, (e) => e instanceof mrtr.PanicError && e.rule === 'internal-panic' && /panicked; make a new one/.test(e.message))
  }
  assert.throws(() => ring.seal({ subject: 's', method: 'm', target: 't', params: {} }, 1, 1, 'p'), mrtr.PanicError)
  const after = new mrtr.Client(options)
  after.send(call)
  assert.deepEqual(after.pollTransmit(), call)
})

test('a trap that bypasses the panic hook is a PanicError too, and the module recovers', () => {
  assert.throws(() => mrtr.__panicForTests(true), (e) => {
    assert.ok(e instanceof mrtr.PanicError)
    assert.equal(e.rule, 'internal-panic')
    assert.match(e.message, /mrtr aborted: unreachable/)
    assert.ok(e.cause instanceof WebAssembly.RuntimeError)
    return true
  })
  assert.equal(mrtr.classify(call).kind, 'request')
  assert.deepEqual(mrtr.resume(call, {}, options).missing, [])
})
