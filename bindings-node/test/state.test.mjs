// Sealed requestState: KeyRing seal/open with every refusal a StateError, and
// SealedRounds carrying earlier answers across rounds.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as mrtr from '../index.mjs'
import { call, ask, answer } from './fixtures.mjs'

const secret = Buffer.alloc(32, 7)
const binding = { subject: 'alice', method: 'tools/call', target: 'get_weather', arguments: { location: 'NYC' } }

test('seal and open, with the OS nonce and with both algorithms', () => {
  for (const algorithm of ['aes-256-gcm', 'xchacha20-poly1305']) {
    const ring = new mrtr.KeyRing({ id: 1, algorithm, secret })
    const a = ring.seal(binding, 1000, 60, 'payload')
    const b = ring.seal(binding, 1000, 60, 'payload')
    assert.notEqual(a, b) // fresh nonces
    assert.match(a, /^[A-Za-z0-9_-]+$/)
    assert.equal(ring.open(a, binding, 1030).toString(), 'payload')
    assert.deepEqual(JSON.parse(ring.open(ring.seal(binding, 1000, 60, { n: 1 }), binding, 1000)), { n: 1 })
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
  const other = new mrtr.KeyRing({ id: 2, algorithm: 'aes-256-gcm', master: 'deadbeef' })
  refuses(() => other.open(token, binding, 1000), 'state-unknown-key')
  ring.setMaxTokenBytes(10)
  refuses(() => ring.open(token, binding, 1000), 'state-too-large')
})

test('rotation: the ring seals with its current key and opens with any', () => {
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret })
  const old = ring.seal(binding, 1000, 60, 'old')
  ring.add({ id: 2, algorithm: 'xchacha20-poly1305', master: Buffer.from('master secret') })
  assert.equal(ring.setCurrent(2), true)
  assert.equal(ring.setCurrent(9), false)
  const fresh = ring.seal(binding, 1000, 60, 'new')
  assert.equal(ring.open(old, binding, 1000).toString(), 'old')
  assert.equal(ring.open(fresh, binding, 1000).toString(), 'new')
  assert.equal(ring.remove(1), true)
  assert.throws(() => ring.open(old, binding, 1000), { rule: 'state-unknown-key' })
})

test('bindingFor and paramsDigest agree with a binding built by hand', () => {
  const b = mrtr.bindingFor(call, 'alice')
  assert.deepEqual({ ...b, paramsDigest: b.paramsDigest.toString('hex') }, {
    subject: 'alice', protocol: '2026-07-28', method: 'tools/call', target: 'get_weather',
    paramsDigest: mrtr.paramsDigest({ location: 'NYC' }).toString('hex'),
  })
  assert.deepEqual(mrtr.paramsDigest('{"b":1,"a":2}'), mrtr.paramsDigest({ a: 2, b: 1 }))
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret })
  assert.equal(ring.open(ring.seal(b, 1000, 60, 'x'), binding, 1000).toString(), 'x')
  assert.equal(ring.seal(binding, 1000, 60, 'x', '000102030405060708090a0b'), ring.seal(binding, 1000, 60, 'x', Buffer.from('000102030405060708090a0b', 'hex')))
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
  assert.throws(() => new mrtr.SealedRounds({ ring: {}, subject: 'x', now: 1 }), TypeError)
})
