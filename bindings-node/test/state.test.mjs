// Sealed requestState: KeyRing seal/open with every refusal a StateError, the
// binding's subject and params named explicitly, single use under a replay
// guard, deployment contexts, the seal budget, and SealedRounds carrying
// earlier answers across rounds (settings once; subject, clock and guard per
// call). The backends have no random source and no public nonce: the API
// hands them crypto.getRandomValues bytes. Shared by both backends
// (test/backend.mjs), whose test builds have the test vectors.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mrtr, { backend } from './backend.mjs'
import { call, ask, answer, hex, str, utf8 } from './fixtures.mjs'

/** Full-length key material: 32 secret bytes, a 64-hex-digit master. */
const secret = Uint8Array.from({ length: 32 }, (_, i) => (i * 37 + 11) & 0xff)
const master = '9f'.repeat(8) + '3c'.repeat(8) + 'a5'.repeat(8) + '17'.repeat(8)
const params = { name: 'get_weather', arguments: { location: 'NYC' } }
const binding = { subject: 'alice', method: 'tools/call', target: 'get_weather', params }
const misuse = (rule = 'usage-invalid-argument') => (e) => e instanceof mrtr.UsageError && e.rule === rule
const refused = (rule) => (e) => e instanceof mrtr.StateError && e.rule === rule && e.code === -32602
const ringOf = (options) => new mrtr.KeyRing({ id: 1, algorithm: 'xchacha20-poly1305', secret }, options)

/** A replay guard over a Set, as a host's single-use store (first use wins); it logs what it was asked. */
function memoryGuard() {
  const used = new Set()
  const asked = []
  const guard = (stateId, expiry) => {
    asked.push([stateId, expiry])
    if (used.has(stateId)) return false
    used.add(stateId)
    return true
  }
  return { guard, used, asked }
}

test('seal and open, with random nonces from the platform and with both algorithms', () => {
  for (const algorithm of ['aes-256-gcm', 'xchacha20-poly1305']) {
    const ring = new mrtr.KeyRing({ id: 1, algorithm, secret })
    const tokens = new Set(Array.from({ length: 50 }, () => ring.seal(binding, 1000, 60, 'payload')))
    assert.equal(tokens.size, 50) // fresh nonces
    const a = [...tokens][0]
    assert.match(a, /^[A-Za-z0-9_-]+$/)
    const opened = ring.open(a, binding, 1030)
    assert.deepEqual(Object.keys(opened).sort(), ['expiry', 'payload', 'stateId'])
    assert.ok(opened.payload instanceof Uint8Array)
    assert.equal(str(opened.payload), 'payload')
    assert.equal(opened.expiry, 1060)
    assert.match(opened.stateId, algorithm === 'aes-256-gcm' ? /^[0-9a-f]{24}$/ : /^[0-9a-f]{48}$/)
    assert.deepEqual(mrtr.inspect(a), { stateId: opened.stateId, keyId: 1, algorithm, expiry: 1060 })
    assert.equal(str(ring.open(utf8(a), binding, 1030).payload), 'payload') // a token as bytes
    assert.deepEqual(JSON.parse(str(ring.open(ring.seal(binding, 1000, 60, { n: 1 }), binding, 1000).payload)), { n: 1 })
    assert.equal(str(ring.open(ring.seal(binding, 1000, 60, utf8('bytes')), binding, 1000).payload), 'bytes')
  }
})

test('seal takes no nonce: a fifth argument changes nothing, and every seal draws a fresh one', () => {
  const ring = ringOf()
  assert.equal(ring.seal.length, 4)
  const nonce = '000102030405060708090a0b0c0d0e0f1011121314151617'
  const a = ring.seal(binding, 1000, 60, 'x', nonce)
  const b = ring.seal(binding, 1000, 60, 'x', nonce)
  assert.notEqual(a, b)
  assert.notEqual(mrtr.inspect(a).stateId, mrtr.inspect(b).stateId)
  assert.notEqual(mrtr.inspect(a).stateId, nonce)
  // The corpus's vectors seal with a nonce through the test-only function, which only test builds have.
  const v = mrtr.__sealWithNonceForTestVectors(ring, binding, 1000, 60, 'x', nonce)
  assert.equal(mrtr.inspect(v).stateId, nonce)
  assert.equal(v, mrtr.__sealWithNonceForTestVectors(ring, binding, 1000, 60, 'x', nonce))
  assert.throws(() => mrtr.__sealWithNonceForTestVectors({}, binding, 1000, 60, 'x', nonce), misuse())
})

test('every refusal is a StateError with its rule and -32602', () => {
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret })
  const token = ring.seal(binding, 1000, 60, 'p')
  ring.open(token, binding, 1000)
  assert.throws(() => ring.open(token, binding, 2000), refused('state-expired'))
  assert.throws(() => ring.open(token, { ...binding, subject: 'mallory' }, 1000), refused('state-wrong-subject'))
  const la = { ...params, arguments: { location: 'LA' } }
  assert.throws(() => ring.open(token, { ...binding, params: la }, 1000), refused('state-wrong-request'))
  assert.throws(() => ring.open(token, { ...binding, params: { ...params, task: { ttl: 1 } } }, 1000), refused('state-wrong-request'))
  const flipped = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.at(-1)
  assert.throws(() => ring.open(flipped, binding, 1000), refused('state-tampered'))
  assert.throws(() => ring.open('not a token!', binding, 1000), refused('state-malformed'))
  assert.throws(() => ring.open(new Uint8Array([0xff, 0xfe]), binding, 1000), refused('state-malformed')) // not UTF-8: the core decides
  assert.throws(() => mrtr.inspect('not a token!'), refused('state-malformed'))
  const other = new mrtr.KeyRing({ id: 2, algorithm: 'aes-256-gcm', master })
  assert.throws(() => other.open(token, binding, 1000), refused('state-unknown-key'))
  ring.setMaxTokenBytes(10)
  assert.throws(() => ring.open(token, binding, 1000), refused('state-too-large'))
})

test('a binding names its subject: no default anonymous, no empty principal, not both', () => {
  const ring = ringOf()
  const { subject, ...nobody } = binding
  for (const b of [nobody, { ...binding, subject: '' }, { ...binding, anonymous: true }, { ...nobody, anonymous: false }]) {
    assert.throws(() => ring.seal(b, 1000, 60, 'x'), misuse(), JSON.stringify(b))
    assert.throws(() => ring.open('x', b, 1000), misuse(), JSON.stringify(b))
  }
  assert.throws(() => ring.seal({ ...binding, subject: 7 }, 1000, 60, 'x'), misuse())
  // Anonymous is a choice, and never equals a principal, not even one named "anonymous".
  const anonymous = { ...nobody, anonymous: true }
  const token = ring.seal(anonymous, 1000, 60, 'x')
  assert.equal(str(ring.open(token, anonymous, 1000).payload), 'x')
  assert.throws(() => ring.open(token, { ...binding, subject: 'anonymous' }, 1000), refused('state-wrong-subject'))
  assert.throws(() => ring.open(ring.seal(binding, 1000, 60, 'x'), anonymous, 1000), refused('state-wrong-subject'))
  // bindingFor and SealedRounds too.
  assert.throws(() => mrtr.bindingFor(call), misuse())
  assert.throws(() => mrtr.bindingFor(call, {}), misuse())
  assert.throws(() => mrtr.bindingFor(call, 'alice'), misuse()) // the subject is named, not positional
  assert.throws(() => mrtr.bindingFor(call, { subject: '' }), misuse())
  assert.throws(() => mrtr.bindingFor(call, { subject: 'alice', anonymous: true }), misuse())
  assert.throws(() => mrtr.bindingFor(call, { anonymous: 'yes' }), misuse())
  assert.deepEqual(mrtr.bindingFor(call, { anonymous: true }).anonymous, true)
  const rounds = new mrtr.SealedRounds({ ring })
  assert.throws(() => rounds.resume(call, ask, { now: 1000 }), misuse())
  assert.throws(() => rounds.resume(call, ask, { subject: '', now: 1000 }), misuse())
  assert.throws(() => rounds.resume(call, ask), misuse())
  assert.throws(() => rounds.respond(call, rounds.resume(call, ask, { subject: 'a', now: 1 }), ask, null, { now: 1000 }), misuse())
})

test('a hand-built binding names its params (or their digest): none is not {}', () => {
  const ring = ringOf()
  const { params: _, ...bare } = binding
  assert.throws(() => ring.seal(bare, 1000, 60, 'x'), misuse())
  assert.throws(() => ring.open('x', bare, 1000), misuse())
  // The old `arguments` field binds nothing: refused for want of params.
  assert.throws(() => ring.seal({ ...bare, arguments: { location: 'NYC' } }, 1000, 60, 'x'), misuse())
  assert.throws(() => ring.seal({ ...binding, paramsDigest: mrtr.paramsDigest(params) }, 1000, 60, 'x'), misuse()) // not both
  assert.throws(() => ring.seal({ ...bare, paramsDigest: 'abcd' }, 1000, 60, 'x'), misuse())
  // Bound as params, opened by digest (bytes or hex), and by bindingFor of the request.
  const token = ring.seal(binding, 1000, 60, 'x')
  for (const digest of [mrtr.paramsDigest(params), hex(mrtr.paramsDigest(params))]) {
    assert.equal(str(ring.open(token, { ...bare, paramsDigest: digest }, 1000).payload), 'x')
  }
  assert.equal(str(ring.open(token, mrtr.bindingFor(call, { subject: 'alice' }), 1000).payload), 'x') // _meta is not bound
  assert.throws(() => ring.open(token, { ...binding, params: params.arguments }, 1000), refused('state-wrong-request'))
})

test('bindingFor chooses the target by method and refuses a missing one', () => {
  const read = { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'file:///a', name: 'x' } }
  assert.equal(mrtr.bindingFor(read, { subject: 'alice' }).target, 'file:///a')
  assert.throws(() => mrtr.bindingFor({ ...read, method: 'tools/call', params: { name: 7 } }, { subject: 'alice' }),
    (e) => e instanceof mrtr.ProtocolError && e.rule === 'jsonrpc-invalid')
})

test('bindingFor and paramsDigest agree with a binding built by hand', () => {
  const b = mrtr.bindingFor(call, { subject: 'alice' })
  assert.deepEqual({ ...b, paramsDigest: hex(b.paramsDigest) }, {
    subject: 'alice', protocol: '2026-07-28', method: 'tools/call', target: 'get_weather',
    paramsDigest: hex(mrtr.paramsDigest(params)),
  })
  assert.deepEqual(mrtr.paramsDigest('{"b":1,"a":2}'), mrtr.paramsDigest({ a: 2, b: 1 }))
  assert.deepEqual(mrtr.paramsDigest({ ...params, _meta: { x: 1 }, inputResponses: {}, requestState: 's' }), mrtr.paramsDigest(params))
  const ring = ringOf()
  assert.equal(str(ring.open(ring.seal(b, 1000, 60, 'x'), binding, 1000).payload), 'x')
  assert.equal(str(ring.open(ring.seal({ ...b, paramsDigest: hex(b.paramsDigest) }, 1000, 60, 'x'), binding, 1000).payload), 'x')
})

test('numbers bind exactly when the binding or the request is given as text', () => {
  const ring = ringOf()
  const textOf = (n) => `{"subject":"alice","method":"tools/call","target":"t","params":{"name":"t","arguments":{"n":${n}}}}`
  const [big, next] = [textOf('100000000000000000000'), textOf('100000000000000000001')]
  assert.equal(JSON.parse(big).params.arguments.n, JSON.parse(next).params.arguments.n) // one double for both
  const token = ring.seal(big, 1000, 60, 'x')
  assert.equal(str(ring.open(token, big, 1000).payload), 'x')
  assert.equal(str(ring.open(token, utf8(big), 1000).payload), 'x') // bytes are text too
  assert.throws(() => ring.open(token, next, 1000), refused('state-wrong-request'))
  // paramsDigest and bindingFor read text exactly as well.
  const p = (n) => `{"name":"t","arguments":{"n":${n}}}`
  assert.notDeepEqual(mrtr.paramsDigest(p('100000000000000000000')), mrtr.paramsDigest(p('100000000000000000001')))
  const request = (n) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${p(n)}}`
  assert.equal(str(ring.open(token, mrtr.bindingFor(request('100000000000000000000'), { subject: 'alice' }), 1000).payload), 'x')
  assert.throws(() => ring.open(token, mrtr.bindingFor(request('100000000000000000001'), { subject: 'alice' }), 1000), refused('state-wrong-request'))
})

test('a replay guard makes a state single-use: a second open is state-replayed', () => {
  const ring = ringOf()
  const token = ring.seal(binding, 1000, 60, 'once')
  const { guard, asked } = memoryGuard()
  const opened = ring.open(token, binding, 1000, { guard })
  assert.equal(str(opened.payload), 'once')
  assert.deepEqual(asked, [[opened.stateId, 1060]])
  assert.throws(() => ring.open(token, binding, 1001, { guard }), refused('state-replayed'))
  // Without a guard the same token opens again (the host keeps side effects on its side).
  assert.equal(str(ring.open(token, binding, 1001).payload), 'once')
  // The guard is asked last: a state refused for another reason is not used up.
  const fresh = ring.seal(binding, 1000, 60, 'x')
  assert.throws(() => ring.open(fresh, { ...binding, subject: 'mallory' }, 1000, { guard }), refused('state-wrong-subject'))
  assert.throws(() => ring.open(fresh, binding, 5000, { guard }), refused('state-expired'))
  assert.equal(asked.length, 2)
  assert.equal(str(ring.open(fresh, binding, 1000, { guard }).payload), 'x')
  // A misspelt option is refused, never a silent open without a guard.
  assert.throws(() => ring.open(fresh, binding, 1000, { gaurd: guard }), misuse())
  assert.throws(() => ring.open(fresh, binding, 1000, { guard: 'yes' }), misuse())
})

test("a guard that throws fails closed, and its own exception reaches the caller as it was", () => {
  const ring = ringOf()
  const token = ring.seal(binding, 1000, 60, 'secret')
  class StoreDown extends Error {}
  const down = Object.assign(new StoreDown('the store is down'), { code: 'ECONNREFUSED' })
  let calls = 0
  const throwing = () => {
    calls++
    throw down
  }
  assert.throws(() => ring.open(token, binding, 1000, { guard: throwing }), (e) => e === down)
  assert.equal(calls, 1)
  // A guard that answers anything but a boolean (an async one's promise) is a misuse, and the state stays closed.
  for (const answer of [Promise.resolve(true), 1, 'true', undefined]) {
    assert.throws(() => ring.open(token, binding, 1000, { guard: () => answer }), misuse())
  }
  // SealedRounds rethrows it too.
  const rounds = new mrtr.SealedRounds({ ring })
  const who = { subject: 'alice', now: 1000 }
  const first = rounds.respond(call, rounds.resume(call, ask, who), ask, null, who)
  const retry = mrtr.retry(call, first, answer, 2)
  assert.throws(() => rounds.resume(retry, ask, { ...who, guard: throwing }), (e) => e === down)
  assert.equal(rounds.resume(retry, ask, who).missing.length, 0)
})

test('context separates deployments that share a key', () => {
  const staging = ringOf({ context: 'staging' })
  const token = staging.seal(binding, 1000, 60, 'x')
  assert.equal(str(ringOf({ context: 'staging' }).open(token, binding, 1000).payload), 'x')
  assert.equal(str(ringOf({ context: utf8('staging') }).open(token, binding, 1000).payload), 'x') // text is its UTF-8 bytes
  assert.throws(() => ringOf({ context: 'production' }).open(token, binding, 1000), refused('state-tampered'))
  assert.throws(() => ringOf().open(token, binding, 1000), refused('state-tampered'))
  assert.throws(() => staging.open(ringOf().seal(binding, 1000, 60, 'x'), binding, 1000), refused('state-tampered'))
  // Sealed rounds of one deployment do not open in the other either.
  const needs = ask
  const who = { subject: 'alice', now: 1000 }
  const s = new mrtr.SealedRounds({ ring: staging })
  const retry = mrtr.retry(call, s.respond(call, s.resume(call, needs, who), needs, null, who), answer, 2)
  assert.throws(() => new mrtr.SealedRounds({ ring: ringOf({ context: 'production' }) }).resume(retry, needs, who), refused('state-tampered'))
  assert.throws(() => ringOf({ context: 'x'.repeat(65) }), misuse())
  assert.throws(() => ringOf({ context: 7 }), misuse())
  assert.throws(() => ringOf({ contxt: 'staging' }), misuse()) // a misspelt option is refused, not ignored
})

/** 32 bytes of their own: the seal count is per key in the process, so a budget test shares no key. */
const fresh = (n) => Uint8Array.from({ length: 32 }, (_, i) => (i * n + 7) & 0xff)

test('the seal budget: each key seals so often in this process, then usage-seal-budget-spent', () => {
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'xchacha20-poly1305', secret: fresh(13) }, { sealBudget: 3 })
  assert.equal(ring.seals(1), 0)
  for (let i = 0; i < 3; i++) ring.seal(binding, 1000, 60, 'x')
  assert.equal(ring.seals(1), 3)
  assert.throws(() => ring.seal(binding, 1000, 60, 'x'), (e) => misuse('usage-seal-budget-spent')(e) && e.code === null)
  assert.equal(ring.seals(1), 3)
  assert.equal(ring.seals(9), null)
  // Sealed rounds count against it too; rotating to a fresh key seals again.
  const rounds = new mrtr.SealedRounds({ ring })
  const who = { subject: 'alice', now: 1000 }
  assert.throws(() => rounds.respond(call, rounds.resume(call, ask, who), ask, null, who), misuse('usage-seal-budget-spent'))
  ring.add({ id: 2, algorithm: 'xchacha20-poly1305', master: fresh(29) })
  ring.setCurrent(2)
  assert.equal(str(ring.open(ring.seal(binding, 1000, 60, 'y'), binding, 1000).payload), 'y')
  assert.deepEqual([ring.seals(1), ring.seals(2)], [3, 1])
  assert.throws(() => ringOf({ sealBudget: -1 }), misuse())
})

test('the seal budget is spent across rings built from one key; in wasm, which has no std, per ring', () => {
  // Security review I4 (SECURITY.md, "Keys and nonces"): the napi addon builds the core with std.
  const key = { id: 1, algorithm: 'aes-256-gcm', secret: fresh(41) }
  const rings = [1, 2, 3].map(() => new mrtr.KeyRing(key, { sealBudget: 2 }))
  rings[0].seal(binding, 1000, 60, 'a')
  rings[1].seal(binding, 1000, 60, 'b')
  if (backend === 'wasm') {
    rings[2].seal(binding, 1000, 60, 'c')
    assert.deepEqual(rings.map((r) => r.seals(1)), [1, 1, 1])
    return
  }
  assert.throws(() => rings[2].seal(binding, 1000, 60, 'c'), misuse('usage-seal-budget-spent'))
  assert.deepEqual(rings.map((r) => r.seals(1)), [2, 2, 2])
})

test('a master secret shorter than a key is refused: HKDF does not stretch a password', () => {
  // Empty hex, a passphrase's bytes, one byte short.
  for (const m of ['', utf8('correct horse battery staple'), new Uint8Array(31)]) {
    assert.throws(() => new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', master: m }), misuse())
  }
  // Text that is not hex is refused, not read as its leading hex digits.
  assert.throws(() => new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', master: 'ab'.repeat(32) + 'zz' }), mrtr.UsageError)
})

test('rotation: the ring seals with its current key and opens with any', () => {
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret })
  const old = ring.seal(binding, 1000, 60, 'old')
  ring.add({ id: 2, algorithm: 'xchacha20-poly1305', master })
  assert.equal(ring.setCurrent(2), true)
  assert.equal(ring.setCurrent(9), false)
  const fresh = ring.seal(binding, 1000, 60, 'new')
  assert.deepEqual([mrtr.inspect(old).keyId, mrtr.inspect(fresh).keyId], [1, 2])
  assert.equal(str(ring.open(old, binding, 1000).payload), 'old')
  assert.equal(str(ring.open(fresh, binding, 1000).payload), 'new')
  assert.equal(ring.remove(1), true)
  assert.throws(() => ring.open(old, binding, 1000), refused('state-unknown-key'))
})

const units = { method: 'elicitation/create', params: { message: 'Units?', requestedSchema: { type: 'object', properties: { u: { type: 'string' } } } } }

test('sealed rounds: answers travel in the state, a tool never handles a token', () => {
  const ring = ringOf()
  const needs = { ...ask, units }
  const rounds = new mrtr.SealedRounds({ ring })
  const who = { subject: 'alice', now: 1000 }
  // Round 1: nothing yet.
  let round = rounds.resume(call, needs, who)
  assert.deepEqual(round, { answers: {}, missing: ['login', 'units'], ignored: [], data: null, round: 0, stateId: null, expiry: null })
  const first = rounds.respond(call, round, needs, { step: 1 }, who)
  assert.deepEqual(Object.keys(first.result.inputRequests), ['login', 'units'])
  // Round 2: the login answered; the units still missing.
  const retry1 = mrtr.retry(call, first, { ...answer, units: { action: 'decline' } }, 2)
  const partial = { ...retry1, params: { ...retry1.params, inputResponses: answer } }
  round = rounds.resume(partial, needs, { ...who, now: 1010 })
  assert.deepEqual([round.missing, round.data, round.round], [['units'], { step: 1 }, 1])
  assert.deepEqual([round.stateId, round.expiry], [mrtr.inspect(first.result.requestState).stateId, 1300])
  const second = rounds.respond(partial, round, needs, undefined, { ...who, now: 1010 })
  assert.deepEqual(Object.keys(second.result.inputRequests), ['units'])
  assert.equal(mrtr.inspect(second.result.requestState).expiry, 1310) // the clock of the call that sealed
  // Round 3: the login comes from the sealed state.
  const retry2 = mrtr.retry(partial, second, { units: { action: 'accept', content: { u: 'C' } } }, 3)
  round = rounds.resume(retry2, needs, { ...who, now: 1020 })
  assert.deepEqual([round.missing, round.round], [[], 2])
  assert.deepEqual(round.answers, { ...answer, units: { action: 'accept', content: { u: 'C' } } })
  // The same settings serve another principal, who cannot use alice's state, and a later clock, past its expiry.
  assert.throws(() => rounds.resume(retry2, needs, { subject: 'mallory', now: 1020 }), refused('state-wrong-subject'))
  assert.throws(() => rounds.resume(retry2, needs, { anonymous: true, now: 1020 }), refused('state-wrong-subject'))
  assert.throws(() => rounds.resume(retry2, needs, { ...who, now: 1310 }), refused('state-expired'))
  assert.throws(() => new mrtr.SealedRounds({ ring: {} }), mrtr.UsageError)
  assert.throws(() => rounds.resume(call, needs, { ...who, now: -1 }), mrtr.UsageError)
  assert.throws(() => rounds.resume(call, needs, { ...who, gaurd: () => true }), mrtr.UsageError) // misspelt: refused
  // The old constructor (subject and clock in the settings) is refused, not half-read.
  assert.throws(() => new mrtr.SealedRounds({ ring, subject: 'alice', now: 1000 }), misuse())
  assert.throws(() => new mrtr.SealedRounds({ ring, ttl: 60, protocl: '2026-07-28' }).resume(call, needs, who), misuse())
  // A raw KeyRing token is no rounds state, and the other way round.
  const raw = ring.seal(mrtr.bindingFor(call, { subject: 'alice' }), 1000, 60, '{}')
  const forged = { ...retry2, params: { ...retry2.params, requestState: raw } }
  assert.throws(() => rounds.resume(forged, needs, who), refused('state-tampered'))
})

/** The retry of `request` answering `response` with `responses` only (a client answering part of what was asked). */
function partial(request, response, responses, id) {
  return { ...request, id, params: { ...request.params, inputResponses: responses, requestState: response.result.requestState } }
}

test('with a guard, an earlier round replayed after a later one is state-replayed, never a rollback', () => {
  const ring = ringOf()
  const needs = { ...ask, units }
  const rounds = new mrtr.SealedRounds({ ring })
  const { guard, used } = memoryGuard()
  const who = { subject: 'alice', now: 1000, guard }
  const first = rounds.respond(call, rounds.resume(call, needs, who), needs, { attempts: 1 }, who)
  // Round 2 answers the login; its state records it.
  const r2 = partial(call, first, answer, 2)
  const round2 = rounds.resume(r2, needs, who)
  assert.deepEqual([round2.missing, round2.round, used.size], [['units'], 1, 1])
  const second = rounds.respond(r2, round2, needs, { attempts: 2 }, who) // the same call object: respond has no use for the guard
  // Round 1's state presented again (the client replays the round-2 request): refused.
  assert.throws(() => rounds.resume(r2, needs, who), refused('state-replayed'))
  // Without a guard it would open: the rollback the guard prevents.
  assert.deepEqual(rounds.resume(r2, needs, { subject: 'alice', now: 1000 }).data, { attempts: 1 })
  // Round 3 (round 2's state) opens once, then is refused.
  const r3 = partial(r2, second, { units: { action: 'accept', content: { u: 'F' } } }, 3)
  const final = rounds.resume(r3, needs, who)
  assert.deepEqual([final.missing, final.round, final.data], [[], 2, { attempts: 2 }])
  assert.equal(final.stateId, mrtr.inspect(second.result.requestState).stateId)
  assert.throws(() => rounds.resume(r3, needs, who), refused('state-replayed'))
})

test('carried answers are pinned to the question asked and re-validated against the current need', () => {
  const ring = ringOf()
  const rounds = new mrtr.SealedRounds({ ring })
  const who = { subject: 'alice', now: 1000 }
  const confirm = (n, type = 'boolean') => ({ method: 'elicitation/create', params: { message: `Delete ${n} files?`, requestedSchema: { type: 'object', properties: { ok: { type } } } } })
  const yes = { confirm: { action: 'accept', content: { ok: true } } }
  const celsius = { units: { action: 'accept', content: { u: 'C' } } }
  // Round 1 asks to confirm deleting 3 files, and the units; round 2 answers the confirmation only.
  const needs = { confirm: confirm(3), units }
  const first = rounds.respond(call, rounds.resume(call, needs, who), needs, null, who)
  const r2 = partial(call, first, yes, 2)
  const round2 = rounds.resume(r2, needs, who)
  assert.deepEqual([round2.answers, round2.missing], [yes, ['units']])
  const second = rounds.respond(r2, round2, needs, null, who)
  const r3 = partial(r2, second, celsius, 3)
  // The same question: the carried yes counts.
  assert.deepEqual(rounds.resume(r3, needs, who).answers, { ...yes, ...celsius })
  // Pinned: the tool now asks about 300 files, and the yes to 3 files does not carry over.
  assert.deepEqual(rounds.resume(r3, { confirm: confirm(300), units }, who).missing, ['confirm'])
  // Unpinned, it would; but even then a carried answer that no longer fits the need is asked again.
  const unpinned = new mrtr.SealedRounds({ ring, pinAnswers: false })
  assert.deepEqual(unpinned.resume(r3, { confirm: confirm(300), units }, who).missing, [])
  assert.deepEqual(unpinned.resume(r3, { confirm: confirm(3, 'string'), units }, who).missing, ['confirm'])
  // A fresh answer counts only for what the last round asked: the client cannot change its earlier yes.
  const r4 = partial(r2, second, { ...celsius, confirm: { action: 'accept', content: { ok: false } } }, 4)
  assert.deepEqual(rounds.resume(r4, needs, who).answers, { ...yes, ...celsius })
})
