// The built package: the wasm within the size bound, importing nothing from
// "env" and exporting no test-only function (and the check itself catches
// either), the package's entry points and its copies of the shared API
// present, and the shared types usable from TypeScript with this package's
// bytes (tsc --strict). pkg/ is what the package ships (scripts/build.sh);
// pkg-test-vectors/ (scripts/build.sh --test-vectors) is the tests' build,
// with the cargo feature test-vectors, and must never be the package's.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { inspect, LIMIT, BROWSER_LIMIT, PACKAGES, GLUE } from '../scripts/check-artifact.mjs'

const pkg = fileURLToPath(new URL('..', import.meta.url))

test('the build is within the size bound and imports only from the wasm-bindgen glue', () => {
  const r = inspect(readFileSync(`${pkg}/pkg/lib/mrtr_wasm_bg.wasm`))
  assert.deepEqual(r.problems, [])
  assert.ok(r.gz <= LIMIT, `${r.gz}`)
  assert.ok(r.imports.length > 0 && r.imports.every((i) => i.module === GLUE))
})

test('the browser package is within its own bound, and leaves out what it should', () => {
  const { lacks } = PACKAGES.find((p) => p.dir === 'pkg-browser')
  const r = inspect(readFileSync(`${pkg}/pkg-browser/lib/mrtr_wasm_bg.wasm`), BROWSER_LIMIT, lacks)
  assert.deepEqual(r.problems, [])
  assert.ok(r.gz <= BROWSER_LIMIT, `${r.gz}`)
  assert.ok(r.exports.includes('classify') && r.exports.includes('ssedecoder_feed'))
  // The full package has what the browser one must not (so the check is no tautology).
  const whole = inspect(readFileSync(`${pkg}/pkg/lib/mrtr_wasm_bg.wasm`), LIMIT, lacks)
  assert.match(whole.problems.join(), /exports what this package leaves out: .*keyring_seal/)
})

test('the check refuses a module importing from "env"', () => {
  // (module (type (func)) (import "env" "memcpy" (func (type 0))))
  const name = [...'memcpy'].map((c) => c.charCodeAt(0))
  const bytes = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
    0x02, 0x0e, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x06, ...name, 0x00, 0x00,
  ])
  assert.deepEqual(inspect(bytes).problems, ['imports from "env": memcpy'])
})

test('the check refuses a module exporting a test-only function', () => {
  // (module (type (func)) (func (type 0)) (export "sealWithNonceForTestVectors" (func 0)))
  const name = [...'sealWithNonceForTestVectors'].map((c) => c.charCodeAt(0))
  const bytes = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
    0x03, 0x02, 0x01, 0x00,
    0x07, name.length + 4, 0x01, name.length, ...name, 0x00, 0x00,
    0x0a, 0x04, 0x01, 0x02, 0x00, 0x0b,
  ])
  assert.deepEqual(inspect(bytes).problems, ['exports test-only functions (cargo feature test-vectors): sealWithNonceForTestVectors'])
})

test("the package's pkg/ cannot seal with a caller's nonce; only the tests' build can", async () => {
  const shipped = inspect(readFileSync(`${pkg}/pkg/lib/mrtr_wasm_bg.wasm`))
  assert.ok(shipped.exports.includes('keyring_seal'))
  assert.deepEqual(shipped.exports.filter((e) => /nonce|TestVectors/i.test(e)), [])
  assert.doesNotMatch(readFileSync(`${pkg}/pkg/lib/mrtr_wasm.js`, 'utf8'), /TestVectors/)
  // The tests' build has it, so the checks above are no tautology.
  // (The tests' build is never shipped: no size bound.)
  const tests = inspect(readFileSync(`${pkg}/pkg-test-vectors/lib/mrtr_wasm_bg.wasm`), Infinity)
  assert.deepEqual(tests.problems, ['exports test-only functions (cargo feature test-vectors): sealWithNonceForTestVectors'])
  // Through the API: the package refuses, the tests' build seals with the nonce.
  const nonce = '000102030405060708090a0b'
  const binding = { subject: 'alice', method: 'tools/call', target: 't', params: { name: 't' } }
  for (const [dir, works] of [['pkg', false], ['pkg-test-vectors', true]]) {
    const mrtr = await import(`${pkg}/${dir}/lib/api.mjs`)
    const ring = new mrtr.KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: new Uint8Array(32).fill(3) })
    const seal = () => mrtr.__sealWithNonceForTestVectors(ring, binding, 1000, 60, 'x', nonce)
    if (works) assert.equal(mrtr.inspect(seal()).stateId, nonce)
    else assert.throws(seal, (e) => e instanceof mrtr.UsageError && /test-vectors/.test(e.message))
    assert.notEqual(mrtr.inspect(ring.seal(binding, 1000, 60, 'x', nonce)).stateId, nonce)
  }
})

test("package.json's entry points exist, and pkg/ and pkg-browser/ hold the shared API as bindings-node has it", () => {
  const p = JSON.parse(readFileSync(`${pkg}/package.json`, 'utf8'))
  const paths = JSON.stringify(p.exports).match(/\.\/pkg(?:-browser)?\/[\w/.]+/g)
  assert.ok(paths.length >= 4)
  for (const path of paths) assert.ok(existsSync(`${pkg}/${path}`), path)
  assert.deepEqual(p.files, ['pkg/', 'pkg-browser/', 'README.md', 'LICENSE-MIT', 'LICENSE-APACHE'])
  assert.equal(p.private, undefined) // scripts/release packs it
  for (const dir of ['pkg', 'pkg-browser']) {
    const shared = ['lib/api.mjs', 'lib/kernel.mjs', 'lib/exports.mjs', 'lib/tables.d.ts', 'lib/exports.d.ts'].map((f) => [`${dir}/${f}`, f])
    for (const [copy, source] of [...shared, [`${dir}/index.d.ts`, 'index.d.ts']]) {
      assert.equal(readFileSync(`${pkg}/${copy}`, 'utf8'), readFileSync(`${pkg}/../bindings-node/${source}`, 'utf8'), copy)
    }
  }
})

test("the shared test/types type-check against this package's types (tsc --strict)", { timeout: 120_000 }, () => {
  const tsc = `${pkg}/node_modules/typescript/bin/tsc`
  execFileSync(process.execPath, [tsc, '-p', `${pkg}/test/types/tsconfig.json`], { stdio: 'pipe' })
})
