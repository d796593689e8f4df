// The Client retry machine: send → handleResponse → answer, drained through
// pollTransmit / pollEvent, with every client retry rule the core enforces.
// Shared by both backends (test/backend.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mrtr from './backend.mjs'
import { call, ask, answer, utf8 } from './fixtures.mjs'

/** A stateless server: asks once, completes on the retry. */
function server(request) {
  const r = mrtr.resume(request, ask)
  if (r.missing.length) return mrtr.respond(request, ask, 'round-1')
  const content = [{ type: 'text', text: `hi ${r.responses.login.content.name}` }]
  return { jsonrpc: '2.0', id: request.id, result: { resultType: 'complete', content } }
}

test('one round: input required, answered, done', () => {
  const client = new mrtr.Client()
  const h = client.send(call)
  assert.equal(typeof h, 'number')
  const [sent] = [...client.transmits()]
  assert.deepEqual(sent, call)
  client.handleResponse(server(sent))
  assert.deepEqual([...client.transmits()], [])
  const [ev] = [...client.events()]
  assert.deepEqual(ev, { type: 'inputRequired', handle: h, inputRequests: ask, round: 0 })
  client.answer(h, answer, 2)
  const retry = client.pollTransmit()
  assert.equal(retry.id, 2)
  assert.equal(retry.params.requestState, 'round-1')
  const done = server(retry)
  client.handleResponse(JSON.stringify(done)) // JSON text: the core's byte path
  assert.deepEqual(client.pollEvent(), { type: 'done', handle: h, response: done })
  assert.equal(client.pollEvent(), null)
  assert.equal(client.pollTransmit(), null)
})

test('load shedding: state only means retry now', () => {
  const client = new mrtr.Client()
  const h = client.send(call)
  client.pollTransmit()
  client.handleResponse(utf8(JSON.stringify(mrtr.respond(call, null, 'busy'))))
  assert.deepEqual(client.pollEvent(), { type: 'retryNow', handle: h })
  client.answer(h, null, 'again')
  const retry = client.pollTransmit()
  assert.equal(retry.params.requestState, 'busy')
  assert.equal(retry.params.inputResponses, undefined)
})

test('an error response finishes the request', () => {
  const client = new mrtr.Client()
  const h = client.send(call)
  const error = { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'no' } }
  client.handleResponse(error)
  assert.deepEqual(client.pollEvent(), { type: 'done', handle: h, response: error })
})

test('the machine enforces the retry rules', () => {
  const client = new mrtr.Client({ maxRounds: 1 })
  const h = client.send(call)
  assert.throws(() => client.send(call), { name: 'RetryError', rule: 'retry-id-reused' })
  assert.throws(() => client.send({ ...call, id: 9, params: { ...call.params, requestState: 'x' } }), { rule: 'input-responses-unsolicited' })
  assert.throws(() => client.answer(h, answer, 2), { name: 'UsageError', rule: 'usage-out-of-turn' }) // not asked yet
  assert.throws(() => client.handleResponse({ jsonrpc: '2.0', id: 77, result: {} }), { name: 'UsageError', rule: 'usage-out-of-turn' })
  client.handleResponse(mrtr.respond(call, ask, 's'))
  assert.throws(() => client.answer(h, answer, 1), { rule: 'retry-id-reused' })
  assert.throws(() => client.answer(h, {}, 2), { rule: 'retry-missing-input-response' })
  client.answer(h, answer, 2)
  client.handleResponse(mrtr.respond({ ...call, id: 2 }, ask, 's2'))
  assert.throws(() => client.answer(h, answer, 3), { rule: 'retry-rounds-exceeded' })
  client.abandon(h)
  assert.throws(() => client.answer(h, answer, 4), { name: 'UsageError', rule: 'usage-unknown-handle' })
  assert.equal(client.send(call), h + 1) // id 1 is free again
})

test('many requests in flight, answered out of order', () => {
  const client = new mrtr.Client()
  const handles = [1, 2, 3].map((id) => client.send({ ...call, id }))
  const sent = [...client.transmits()]
  for (const m of sent.reverse()) client.handleResponse(server(m))
  const events = [...client.events()]
  assert.deepEqual(events.map((e) => e.handle), [...handles].reverse())
  for (const e of events) client.answer(e.handle, answer, `r${e.handle}`)
  for (const m of client.transmits()) client.handleResponse(server(m))
  assert.deepEqual([...client.events()].map((e) => e.type), ['done', 'done', 'done'])
})
