// The npm package `mrtr` itself (the napi backend only): its entry points
// (ESM, and CommonJS through require(esm)) give the very same objects, the
// types check with tsc --strict, Buffers are bytes, the addon loads in
// worker threads side by side, the addon is packed in its platform package
// (npm/linux-x64-gnu, the napi-rs layout) and never in the main one, and the
// packaged addon is the release build, which cannot seal with a caller's
// nonce (the tests' build, with the cargo feature test-vectors, stays in
// target/ and tools/check-release.mjs, which scripts/release runs before
// packing, refuses it).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import * as esm from '../index.mjs'
import { call, ask } from './fixtures.mjs'

const pkg = fileURLToPath(new URL('..', import.meta.url))
const cjs = createRequire(import.meta.url)('../index.js')

test('the ESM and CommonJS entry points are the same module', () => {
  assert.deepEqual(Object.keys(esm).sort(), Object.keys(cjs).filter((k) => k !== '__esModule').sort())
  for (const k of Object.keys(esm)) assert.equal(esm[k], cjs[k], k)
  assert.equal(esm.default.MrtrError, cjs.MrtrError)
  assert.throws(() => cjs.classify('['), esm.ProtocolError)
})

test('package.json points at the entry points, the types and the files to pack', () => {
  const p = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  assert.equal(p.name, 'mrtr')
  assert.deepEqual(p.exports['.'], { types: './index.d.ts', import: './index.mjs', require: './index.js' })
  assert.equal(p.types, './index.d.ts')
  for (const f of ['index.js', 'index.mjs', 'index.d.ts', 'lib/', 'native.cjs']) assert.ok(p.files.includes(f), f)
  assert.match(p.engines.node, /^>=20\.19/)
})

test('test/types type-checks against index.d.ts (tsc --strict)', { timeout: 120_000 }, () => {
  const tsc = new URL('../node_modules/typescript/bin/tsc', import.meta.url).pathname
  execFileSync(process.execPath, [tsc, '-p', `${pkg}/test/types/tsconfig.json`], { stdio: 'pipe' })
})

test('Buffers are bytes in, and come back out', () => {
  const bytes = Buffer.from(JSON.stringify(call))
  assert.equal(esm.classify(bytes).method, 'tools/call')
  assert.ok(esm.paramsDigest({ a: 1 }) instanceof Buffer)
  assert.ok(esm.bindingFor(call, { subject: 'alice' }).paramsDigest instanceof Buffer)
  const ring = new esm.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: Buffer.alloc(32, 7) })
  const b = { subject: 's', method: 'tools/call', target: 't', params: { name: 't' } }
  const opened = ring.open(ring.seal(b, 1, 9, Buffer.from('hi')), b, 2)
  assert.ok(opened.payload instanceof Buffer)
  assert.equal(opened.payload.toString(), 'hi')
})

test('the packed addon is the release build: it cannot seal with a caller\'s nonce', () => {
  const native = createRequire(import.meta.url)('../native.cjs')
  assert.equal(typeof native.KeyRing, 'function')
  assert.equal(native.sealWithNonceForTestVectors, undefined)
  const ring = new esm.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: Buffer.alloc(32, 7) })
  const b = { subject: 's', method: 'tools/call', target: 't', params: { name: 't' } }
  assert.throws(() => esm.__sealWithNonceForTestVectors(ring, b, 1, 9, 'x', '000102030405060708090a0b'),
    (e) => e instanceof esm.UsageError && /test-vectors/.test(e.message))
  // What npm packs: the main package carries no addon; its platform package carries this one.
  const packs = (dir) => JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: dir, encoding: 'utf8' }))[0]
  const files = packs(pkg).files.map((f) => f.path)
  assert.deepEqual(files.filter((f) => f.endsWith('.node') || /test-vectors/.test(f)), [])
  const platform = JSON.parse(readFileSync(join(pkg, 'npm', 'linux-x64-gnu', 'package.json'), 'utf8'))
  const addons = readdirSync(pkg).filter((f) => f.endsWith('.node'))
  assert.deepEqual(addons, [platform.main])
  assert.deepEqual([platform.name, platform.os, platform.cpu, platform.libc], ['mrtr-linux-x64-gnu', ['linux'], ['x64'], ['glibc']])
  // Its bytes do not register the test-only export; the tests' build does, and check-release.mjs refuses it.
  const check = join(pkg, 'tools', 'check-release.mjs')
  assert.equal(spawnSync(process.execPath, [check, pkg]).status, 0)
  for (const f of addons) assert.ok(!readFileSync(join(pkg, f)).includes('sealWithNonceForTestVectors'), f)
  const tests = join(pkg, '..', 'target', 'napi-node-test-vectors')
  const testAddon = readdirSync(tests).find((f) => f.endsWith('.node'))
  assert.ok(readFileSync(join(tests, testAddon)).includes('sealWithNonceForTestVectors'))
  const tmp = mkdtempSync(join(tmpdir(), 'mrtr-prepack-'))
  try {
    copyFileSync(join(tests, testAddon), join(tmp, testAddon))
    const r = spawnSync(process.execPath, [check, tmp], { encoding: 'utf8' })
    assert.equal(r.status, 1)
    assert.match(r.stderr, /is a test build/)
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
})

test('the addon loads and works in worker threads, side by side', { timeout: 30_000 }, async () => {
  const { Worker } = await import('node:worker_threads')
  const source = `
    const { parentPort, workerData } = require('node:worker_threads')
    const mrtr = require(workerData.entry)
    let n = 0
    for (let i = 0; i < 2000; i++) {
      const answer = mrtr.respond(workerData.call, workerData.ask, 's' + i)
      if (mrtr.classify(JSON.stringify(answer)).kind === 'input_required') n++
    }
    try { mrtr.classify('{') } catch (e) { if (e instanceof mrtr.ProtocolError) n++ }
    parentPort.postMessage(n)`
  const entry = fileURLToPath(new URL('../index.js', import.meta.url))
  const runs = [1, 2, 3, 4].map(() => new Promise((resolve, reject) => {
    const w = new Worker(source, { eval: true, workerData: { entry, call, ask } })
    w.once('message', resolve)
    w.once('error', reject)
  }))
  assert.deepEqual(await Promise.all(runs), [2001, 2001, 2001, 2001])
})
