// The wasm backend's own replay-guard closure (src/lib.rs `guarded`), called
// without lib/api.mjs in between: the guard is a JS function run
// synchronously from Rust through js_sys::Function; when it throws, the
// closure fails closed (the state stays shut) and the guard's own exception,
// whatever it is, is thrown again once the core has returned; an answer that
// is no boolean (a promise) is usage-invalid-argument, never a first use.
// bindings-node/test/napi-backend.test.mjs holds the same for the addon.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import native from '../pkg/lib/backend.mjs'

const binding = JSON.stringify({ subject: 'alice', method: 'tools/call', target: 't', params: { name: 't' } })
const random = () => crypto.getRandomValues(new Uint8Array(32))

test("the backend's guard gets (stateId, expiry), and its false is state-replayed", () => {
  const ring = new native.KeyRing(1, 'aes-256-gcm', new Uint8Array(32).fill(5))
  const token = ring.seal(binding, 1000, 60, 'x', random())
  const asked = []
  const opened = ring.open(token, binding, 1000, (id, expiry) => asked.push([id, expiry]) > 0)
  assert.deepEqual(asked, [[opened.stateId, 1060]])
  assert.ok(opened.payload instanceof Uint8Array)
  assert.equal(JSON.parse(native.inspect(token)).stateId, opened.stateId)
  assert.throws(() => ring.open(token, binding, 1000, () => false), { code: 'state-replayed' })
})

test("the backend fails closed when the guard throws, and throws the guard's exception again", () => {
  const ring = new native.KeyRing(1, 'xchacha20-poly1305', new Uint8Array(32).fill(5))
  const token = ring.seal(binding, 1000, 60, 'x', random())
  const down = Object.assign(new Error('the store is down'), { code: 'ECONNREFUSED' })
  for (const thrown of [down, 'down', 42]) {
    assert.throws(() => ring.open(token, binding, 1000, () => { throw thrown }), (e) => e === thrown)
  }
  // Sealed rounds too; and the guard is asked last: a state refused for another reason never reaches it.
  const [settings, call] = [JSON.stringify({ protocol: 'sep-2322' }), JSON.stringify({ subject: 'alice', now: 1000 })]
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } }
  const response = JSON.parse(ring.respondRound(JSON.stringify(request), '{}', '{}', '{"step":1}', settings, call, random()))
  const retry = (state) => JSON.stringify({ ...request, id: 2, params: { ...request.params, requestState: state } })
  assert.throws(() => ring.resumeRound(retry(response.result.requestState), '{}', settings, call, () => { throw down }), (e) => e === down)
  assert.throws(() => ring.resumeRound(retry(token), '{}', settings, call, () => { throw down }), { code: 'state-tampered' })
  assert.equal(JSON.parse(ring.resumeRound(retry(response.result.requestState), '{}', settings, call, () => true)).round, 1)
  for (const answer of [Promise.resolve(true), 1, 'true', null, undefined]) {
    assert.throws(() => ring.open(token, binding, 1000, () => answer), { code: 'usage-invalid-argument' })
  }
  assert.equal(new TextDecoder().decode(ring.open(token, binding, 1000, () => true).payload), 'x')
})
