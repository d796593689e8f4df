// The browser package (pkg-browser/, cargo feature `browser`): the same API
// as the full package (pkg/), what it carries answering as there, what it
// leaves out refused with the API's UsageError ("this backend has no X"),
// never a TypeError; and nothing the full package exports missing from both
// its exports and its list of what it leaves out. Its corpus cases (classify,
// sse) run through the judge in scripts/tests/50-wasm.sh
// (test/browser-corpus.mjs) and in the page of scripts/conformance wasm-browser.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import * as full from '../pkg/lib/api.mjs'
import * as small from '../pkg-browser/lib/api.mjs'
import * as fullGlue from '../pkg/lib/mrtr_wasm.js'
import * as smallGlue from '../pkg-browser/lib/mrtr_wasm.js'
import { retryRequest, inputRequiredSmall, inputRequiredLarge } from '../../bindings-node/bench/messages.mjs'

const benchMessages = [retryRequest(), inputRequiredSmall(), inputRequiredLarge()].map((m) => JSON.stringify(m))
const names = (glue) => Object.keys(glue).filter((k) => k !== 'default' && k !== 'initSync')
/** What the browser package carries (build.rs, BROWSER), by JavaScript name. */
const CARRIED = ['catalogue', 'classify', 'SseDecoder', 'sseEncode', 'taskTransition', 'mirroredFields', 'inspect', 'unassociatedReply']

test('the full package leaves nothing out; the browser package names what it leaves out', () => {
  assert.equal(fullGlue.__leftOut(), '')
  const lacking = smallGlue.__leftOut().split(',')
  for (const n of ['KeyRing', 'retry', 'HttpCall', 'check', 'Checker', 'Client']) assert.ok(lacking.includes(n), n)
  // Every export of the full module is in the browser one or on its list: none is simply absent.
  const has = new Set(names(smallGlue))
  const missing = names(fullGlue).filter((n) => !has.has(n) && !lacking.includes(n))
  assert.deepEqual(missing, [])
  for (const n of CARRIED) assert.ok(has.has(n) && !lacking.includes(n), n)
})

test('what the browser package leaves out throws its UsageError, called or constructed', () => {
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } }
  const refusals = [
    ['check', () => small.check([{ from: 'client', message: call }])],
    ['Checker', () => new small.Checker()],
    ['retry', () => small.retry(call, {}, {}, 2)],
    ['respond', () => small.respond(call, {})],
    ['resume', () => small.resume(call, {})],
    ['Client', () => new small.Client()],
    ['HttpCall', () => new small.HttpCall({ mode: 'sep-1335', url: 'https://x/mcp' }, call, 0)],
    ['ServerStream', () => new small.ServerStream('sep-1335', 'k', 0)],
    ['KeyRing', () => new small.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: new Uint8Array(32) })],
    ['bindingFor', () => small.bindingFor(call, { subject: 'a' })],
    ['readHttpRequest', () => small.readHttpRequest('sep-1335', 'POST', 'https://x/mcp', {}, new Uint8Array(0))],
    ['checkRequest', () => small.checkRequest(call, ['2026-07-28'])],
    ['Operation', () => new small.Operation({ mode: 'sep-1335', url: 'https://x/mcp' }, call, 0)],
  ]
  for (const [name, f] of refusals) {
    assert.throws(f, (e) => e instanceof small.UsageError && e.rule === small.Rule.UsageInvalidArgument && e.message === `this backend has no ${name}`, name)
  }
  // The full package has them (Operation aside, which neither has).
  assert.equal(full.check([{ from: 'client', message: call }])[0].rule, full.Rule.RequestMetaMissing)
  assert.throws(() => new full.Operation({ mode: 'sep-1335', url: 'https://x/mcp' }, call, 0), (e) => e instanceof full.UsageError)
})

test('what the browser package carries answers as the full package does', () => {
  const messages = [...benchMessages, '{"jsonrpc":"2.0","id":1,"id":2}', '{"jsonrpc":"2.0","method":"notifications/progress"}', '[', '', new Uint8Array([0x7b, 0xff, 0x7d])]
  const outcome = (f) => {
    try {
      return f()
    } catch (e) {
      return { error: e.rule, name: e.name, message: e.message }
    }
  }
  for (const m of messages) {
    assert.deepEqual(outcome(() => small.classify(m)), outcome(() => full.classify(m)))
    assert.deepEqual(outcome(() => small.classify(m, { protocol: '2025-11-25' })), outcome(() => full.classify(m, { protocol: '2025-11-25' })))
  }
  assert.equal(small.taskTransition('working', 'input_required'), 'input_required')
  const request = JSON.parse(benchMessages[0])
  assert.deepEqual(small.mirroredFields(request), full.mirroredFields(request))
  const asks = { jsonrpc: '2.0', id: 'a', method: 'elicitation/create', params: { message: 'hi', requestedSchema: { type: 'object', properties: {} } } }
  assert.deepEqual(small.unassociatedReply(asks), full.unassociatedReply(asks))
  const ring = new full.KeyRing({ id: 7, algorithm: 'aes-256-gcm', secret: new Uint8Array(32).fill(1) })
  const token = ring.seal({ anonymous: true, method: 'tools/call', target: 't', params: {} }, 1000, 60, 'x')
  assert.deepEqual(small.inspect(token), full.inspect(token))
  const block = { event: 'message', data: '{"a":1}', id: 'k.1' }
  assert.equal(small.sseEncode(block), full.sseEncode(block))
  const d = new small.SseDecoder()
  d.feed(new TextEncoder().encode(small.sseEncode(block)))
  assert.deepEqual([...d.events()], [block])
  assert.deepEqual(small.RULES, full.RULES)
  assert.deepEqual(small.defaultLimits, full.defaultLimits)
})
