// The same API shape as the Node package (bindings-node): the same exports,
// the same declarations in index.d.ts (bytes as Uint8Array instead of Buffer),
// and, where the Node addon is built, the same answers and the same errors
// for the same calls. Without a built addon, the runtime comparison is skipped
// and the declarations are compared alone.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as wasm from '../pkg/node/index.mjs'
import { call, ask, answer, meta, utf8 } from './fixtures.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const nodePkg = join(here, '..', '..', 'bindings-node')
const wasmDts = readFileSync(join(here, '..', 'js', 'index.d.ts'), 'utf8')
const nodeDts = existsSync(join(nodePkg, 'index.d.ts')) ? readFileSync(join(nodePkg, 'index.d.ts'), 'utf8') : null

function loadNode() {
  try {
    return createRequire(import.meta.url)(join(nodePkg, 'index.js'))
  } catch {
    return null // not built here
  }
}
const node = loadNode()

/** Exported names of a .d.ts, and for each class its members. */
function declarations(dts) {
  const out = {}
  for (const m of dts.matchAll(/^export declare (const|function|class) (\w+)/gm)) out[m[2]] = m[1]
  for (const m of dts.matchAll(/^export declare class (\w+)[^{]*\{\n([\s\S]*?)^\}/gm)) {
    out[m[1]] = ['class', ...[...m[2].matchAll(/^ {2}(?:readonly )?(\*?\w+)\s*[(:<]/gm)].map((x) => x[1]).sort()]
  }
  for (const m of dts.matchAll(/^export (?:interface|type) (\w+)/gm)) out[m[1]] = 'type'
  return out
}

test('index.d.ts declares exactly the runtime exports', () => {
  const declared = Object.entries(declarations(wasmDts)).filter(([, k]) => k !== 'type').map(([n]) => n).sort()
  const runtime = Object.keys(wasm).filter((k) => k !== 'default').sort()
  assert.deepEqual(runtime, declared)
  assert.deepEqual(Object.keys(wasm.default).sort(), runtime)
  for (const k of runtime) assert.equal(wasm[k], wasm.default[k], k)
})

test("index.d.ts declares what the Node package's declares (names, classes' members, types)", { skip: !nodeDts && 'bindings-node/index.d.ts is not there' }, () => {
  assert.deepEqual(declarations(wasmDts), declarations(nodeDts))
  // Beyond names: the whole text is the Node package's with Buffer as Uint8Array (comments aside).
  const body = (s) => s.slice(s.indexOf('/** Any JSON value. */')).replace(/\bBuffer\b/g, 'Uint8Array')
  const code = (s) => body(s).split('\n').filter((l) => !/^\s*(\/\/|\/\*\*|\*)/.test(l)).join('\n')
  assert.equal(code(wasmDts), code(nodeDts))
})

test('the runtime exports are those of the Node package, of the same kinds', { skip: !node && 'the Node addon is not built' }, () => {
  assert.deepEqual(Object.keys(wasm.default).sort(), Object.keys(node).sort())
  for (const k of Object.keys(node)) {
    assert.equal(typeof wasm[k], typeof node[k], k)
    if (typeof node[k] === 'function' && /^[A-Z]/.test(k)) {
      const members = (C) => Object.getOwnPropertyNames(C.prototype).sort()
      assert.deepEqual(members(wasm[k]), members(node[k]), k)
    }
  }
  for (const t of ['RULES', 'Rule', 'Protocol', 'TaskStatus', 'Kind', 'defaultLimits']) assert.deepEqual(wasm[t], node[t], t)
})

/**
 * The outcome of `f` on a package: its value, or the error's class, rule and
 * code (a TypeError's `code` is each binding's own: napi's or ERR_MRTR_ARG).
 */
function outcome(pkg, f) {
  try {
    const v = f(pkg)
    return { value: v instanceof Uint8Array ? Array.from(v) : v }
  } catch (e) {
    return { error: e.constructor.name, rule: e.rule, code: e instanceof TypeError ? undefined : e.code }
  }
}

const SCENARIOS = {
  'classify a request': (m) => m.classify(call),
  'classify bytes': (m) => m.classify(utf8(JSON.stringify(call))),
  'classify truncated': (m) => m.classify('{"jsonrpc":"2.0","id":1,"meth'),
  'classify a duplicate key': (m) => m.classify('{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}'),
  'classify draft': (m) => m.classify({ jsonrpc: '2.0', id: 7, input_requests: ask }, { protocol: 'sep-2322-draft' }),
  'classify invalid UTF-8': (m) => m.classify(new Uint8Array([0x7b, 0xff, 0x7d])),
  'classify 10 000 deep': (m) => m.classify('['.repeat(10_000) + ']'.repeat(10_000)),
  'classify a bad protocol': (m) => m.classify(call, { protocol: 'x' }),
  'classify a protocol of the wrong type': (m) => m.classify(call, { protocol: 5 }),
  respond: (m) => m.respond(call, ask, 's1'),
  'respond tools/list': (m) => m.respond({ ...call, method: 'tools/list' }, ask),
  'respond empty': (m) => m.respond(call, null, null),
  'respond sep-2322 tasks/result': (m) =>
    m.respond({ jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId: 't' } }, ask, null, { protocol: 'sep-2322' }),
  retry: (m) => m.retry(call, m.respond(call, ask, 's1'), answer, 2),
  'retry reusing the id': (m) => m.retry(call, m.respond(call, ask, 's1'), answer, 1),
  'retry draft': (m) => {
    const d = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } }
    return m.retry(d, m.respond(d, ask, 's', { protocol: 'sep-2322-draft' }), answer, 2, { protocol: 'sep-2322-draft' })
  },
  resume: (m) => m.resume({ ...call, params: { ...call.params, inputResponses: answer, requestState: 's' } }, ask),
  'resume malformed': (m) => m.resume({ ...call, params: { ...call.params, inputResponses: [] } }, ask),
  check: (m) => m.check([{ from: 'client', message: call }, { from: 'server', message: { jsonrpc: '2.0', id: 1, result: {} } }]),
  'check a bad entry': (m) => m.check([{ from: 'x', message: call }]),
  taskUpdate: (m) =>
    m.taskUpdate(
      { jsonrpc: '2.0', id: 5, method: 'tasks/get', params: { taskId: 't1', _meta: meta } },
      { jsonrpc: '2.0', id: 5, result: { resultType: 'complete', taskId: 't1', status: 'input_required', inputRequests: ask } },
      answer,
      6,
    ),
  taskTransition: (m) => m.taskTransition('completed', 'working'),
  'client flow': (m) => {
    const c = new m.Client({ maxRounds: 2 })
    const h = c.send(call)
    c.handleResponse(m.respond(call, ask, 's'))
    c.answer(h, answer, 2)
    return [[...c.transmits()], [...c.events()]]
  },
  'client handle of the wrong type': (m) => new m.Client().answer('x', {}, 2),
  'sealed state with a nonce': (m) => {
    const ring = new m.KeyRing({ id: 3, algorithm: 'xchacha20-poly1305', secret: '11'.repeat(32) })
    const b = { subject: 's', method: 'tools/call', target: 't', arguments: { a: 1 } }
    const token = ring.seal(b, 10, 5, 'hello', '22'.repeat(24))
    return [token, Array.from(ring.open(token, b, 12))]
  },
  'sealed state expired': (m) => {
    const ring = new m.KeyRing({ id: 3, algorithm: 'aes-256-gcm', master: 'abcd' })
    const b = { subject: 's', method: 'tools/call', target: 't' }
    return ring.open(ring.seal(b, 10, 5, 'x'), b, 100)
  },
  paramsDigest: (m) => m.paramsDigest({ b: [1, 2], a: 'x' }),
  'a bad key': (m) => new m.KeyRing({ id: 300, algorithm: 'aes-256-gcm', secret: '00'.repeat(32) }),
}

test('the same calls give the same answers and the same errors as the Node package', { skip: !node && 'the Node addon is not built' }, () => {
  for (const [name, f] of Object.entries(SCENARIOS)) {
    assert.deepEqual(outcome(wasm, f), outcome(node, f), name)
  }
})
