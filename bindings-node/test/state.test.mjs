// Sealed requestState: KeyRing seal/open with every refusal a StateError, and
// SealedRounds carrying earlier answers across rounds. The backends have no
// random source: the API hands them crypto.getRandomValues bytes. Shared by
// both backends (test/backend.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mrtr from './backend.mjs'
import { call, ask, answer, hex, str, utf8 } from './fixtures.mjs'

const secret = new Uint8Array(32).fill(7)
const binding = { subject: 'alice', method: 'tools/call', target: 'get_weather', arguments: { location: 'NYC' } }

test('seal and open, with random nonces from the platform and with both algorithms', () => {
  for (const algorithm of ['aes-256-gcm', 'xchacha20-poly1305']) {
    const ring = new mrtr.KeyRing({ id: 1, algorithm, secret })
    const tokens = new Set(Array.from({ length: 50 }, () => ring.seal(binding, 1000, 60, 'payload')))
    assert.equal(tokens.size, 50) // fresh nonces
    const a = [...tokens][0]
    assert.match(a, /^[A-Za-z0-9_-]+$/)
    assert.ok(ring.open(a, binding, 1030) instanceof Uint8Array)
    assert.equal(str(ring.open(a, binding, 1030)), 'payload')
    assert.equal(str(ring.open(utf8(a), binding, 1030)), 'payload') // a token as bytes
    assert.deepEqual(JSON.parse(str(ring.open(ring.seal(binding, 1000, 60, { n: 1 }), binding, 1000))), { n: 1 })
    assert.equal(str(ring.open(ring.seal(binding, 1000, 60, utf8('bytes')), binding, 1000)), 'bytes')
  }
})

test('every refusal is a StateError with its rule and -32602', () => {
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret })
  const token = ring.seal(binding, 1000, 60, 'p')
  const refuses = (f, rule) => assert.throws(f, (e) => e instanceof mrtr.StateError && e.rule === rule && e.code === -32602)
  refuses(() => ring.open(token, binding, 2000), 'state-expired')
  refuses(() => ring.open(token, { ...binding, subject: 'mallory' }, 1000), 'state-wrong-subject')
  refuses(() => ring.open(token, { ...binding, arguments: { location: 'LA' } }, 1000), 'state-wrong-request')
  const flipped = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.at(-1)
  refuses(() => ring.open(flipped, binding, 1000), 'state-tampered')
  refuses(() => ring.open('not a token!', binding, 1000), 'state-malformed')
  refuses(() => ring.open(new Uint8Array([0xff, 0xfe]), binding, 1000), 'state-malformed') // not UTF-8: the core decides
  const other = new mrtr.KeyRing({ id: 2, algorithm: 'aes-256-gcm', master: 'de'.repeat(32) })
  refuses(() => other.open(token, binding, 1000), 'state-unknown-key')
  ring.setMaxTokenBytes(10)
  refuses(() => ring.open(token, binding, 1000), 'state-too-large')
})

test('a master secret shorter than a key is refused: HKDF does not stretch a password', () => {
  // Empty hex, a passphrase's bytes, one byte short.
  for (const master of ['', utf8('correct horse battery staple'), new Uint8Array(31)]) {
    assert.throws(
      () => new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', master }),
      (e) => e instanceof mrtr.UsageError && e.rule === 'usage-invalid-argument',
    )
  }
  // Text that is not hex is refused, not read as its leading hex digits.
  assert.throws(() => new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', master: 'ab'.repeat(32) + 'zz' }), mrtr.UsageError)
})

test('rotation: the ring seals with its current key and opens with any', () => {
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret })
  const old = ring.seal(binding, 1000, 60, 'old')
  ring.add({ id: 2, algorithm: 'xchacha20-poly1305', master: utf8('a master secret of 32 bytes, ok.') })
  assert.equal(ring.setCurrent(2), true)
  assert.equal(ring.setCurrent(9), false)
  const fresh = ring.seal(binding, 1000, 60, 'new')
  assert.equal(str(ring.open(old, binding, 1000)), 'old')
  assert.equal(str(ring.open(fresh, binding, 1000)), 'new')
  assert.equal(ring.remove(1), true)
  assert.throws(() => ring.open(old, binding, 1000), { rule: 'state-unknown-key' })
})

test('bindingFor chooses the target by method and refuses a missing one', () => {
  const read = { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///a', name: 'x' } }
  assert.equal(mrtr.bindingFor(read, 'alice').target, 'file:///a')
  assert.throws(() => mrtr.bindingFor({ ...read, method: 'tools/call', params: { name: 7 } }, 'alice'),
    (e) => e instanceof mrtr.ProtocolError && e.rule === 'jsonrpc-invalid')
})

test('bindingFor and paramsDigest agree with a binding built by hand', () => {
  const b = mrtr.bindingFor(call, 'alice')
  assert.deepEqual({ ...b, paramsDigest: hex(b.paramsDigest) }, {
    subject: 'alice', protocol: '2026-07-28', method: 'tools/call', target: 'get_weather',
    paramsDigest: hex(mrtr.paramsDigest({ location: 'NYC' })),
  })
  assert.deepEqual(mrtr.paramsDigest('{"b":1,"a":2}'), mrtr.paramsDigest({ a: 2, b: 1 }))
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret })
  assert.equal(str(ring.open(ring.seal(b, 1000, 60, 'x'), binding, 1000)), 'x')
  assert.equal(str(ring.open(ring.seal({ ...b, paramsDigest: hex(b.paramsDigest) }, 1000, 60, 'x'), binding, 1000)), 'x')
  const nonce = '000102030405060708090a0b'
  assert.equal(ring.seal(binding, 1000, 60, 'x', nonce), ring.seal(binding, 1000, 60, 'x', Uint8Array.from(nonce.match(/../g), (h) => parseInt(h, 16))))
})

test('sealed rounds: answers travel in the state, a tool never handles a token', () => {
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret })
  const needs = { ...ask, units: { method: 'elicitation/create', params: { message: 'Units?', requestedSchema: { type: 'object', properties: { u: { type: 'string' } } } } } }
  const rounds = new mrtr.SealedRounds({ ring, subject: 'alice', now: 1000 })
  // Round 1: nothing yet; ask only for the login (a tool asks step by step).
  let round = rounds.resume(call, needs)
  assert.deepEqual(round, { answers: {}, missing: ['login', 'units'], ignored: [], data: null })
  const first = rounds.respond(call, round, needs, { step: 1 })
  assert.deepEqual(Object.keys(first.result.inputRequests), ['login', 'units'])
  // Round 2: the login answered; the units still missing.
  const retry1 = mrtr.retry(call, first, { ...answer, units: { action: 'decline' } }, 2)
  const partial = { ...retry1, params: { ...retry1.params, inputResponses: answer } }
  round = rounds.resume(partial, needs)
  assert.deepEqual(round.missing, ['units'])
  assert.deepEqual(round.data, { step: 1 })
  const second = rounds.respond(partial, round, needs)
  assert.deepEqual(Object.keys(second.result.inputRequests), ['units'])
  // Round 3: the login comes from the sealed state.
  const retry2 = mrtr.retry(partial, second, { units: { action: 'accept', content: { u: 'C' } } }, 3)
  round = rounds.resume(retry2, needs)
  assert.deepEqual(round.missing, [])
  assert.deepEqual(round.answers, { ...answer, units: { action: 'accept', content: { u: 'C' } } })
  // Another principal cannot use the state.
  assert.throws(() => new mrtr.SealedRounds({ ring, subject: 'mallory', now: 1000 }).resume(retry2, needs), { rule: 'state-wrong-subject' })
  assert.throws(() => new mrtr.SealedRounds({ ring: {}, subject: 'x', now: 1 }), mrtr.UsageError)
  assert.throws(() => new mrtr.SealedRounds({ ring, subject: 'x', now: -1 }).resume(call, needs), mrtr.UsageError)
})
