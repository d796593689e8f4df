// The built package: the wasm within the size bound and importing nothing
// from "env" (and the check itself catches such an import), the package's
// entry points and its copies of the shared API present, and the shared
// types usable from TypeScript with this package's bytes (tsc --strict).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { inspect, LIMIT, GLUE } from '../scripts/check-artifact.mjs'

const pkg = fileURLToPath(new URL('..', import.meta.url))

test('the build is within the size bound and imports only from the wasm-bindgen glue', () => {
  const r = inspect(readFileSync(`${pkg}/pkg/lib/mrtr_wasm_bg.wasm`))
  assert.deepEqual(r.problems, [])
  assert.ok(r.gz <= LIMIT, `${r.gz}`)
  assert.ok(r.imports.length > 0 && r.imports.every((i) => i.module === GLUE))
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

test("package.json's entry points exist, and pkg/ holds the shared API as bindings-node has it", () => {
  const p = JSON.parse(readFileSync(`${pkg}/package.json`, 'utf8'))
  const paths = JSON.stringify(p.exports).match(/\.\/pkg\/[\w/.]+/g)
  assert.ok(paths.length >= 2)
  for (const path of paths) assert.ok(existsSync(`${pkg}/${path}`), path)
  assert.deepEqual(p.files, ['pkg/', 'README.md'])
  for (const [copy, source] of [['pkg/lib/api.mjs', 'lib/api.mjs'], ['pkg/lib/tables.d.ts', 'lib/tables.d.ts'], ['pkg/index.d.ts', 'index.d.ts']]) {
    assert.equal(readFileSync(`${pkg}/${copy}`, 'utf8'), readFileSync(`${pkg}/../bindings-node/${source}`, 'utf8'), copy)
  }
})

test("the shared test/types type-check against this package's types (tsc --strict)", { timeout: 120_000 }, () => {
  const tsc = `${pkg}/node_modules/typescript/bin/tsc`
  execFileSync(process.execPath, [tsc, '-p', `${pkg}/test/types/tsconfig.json`], { stdio: 'pipe' })
})
