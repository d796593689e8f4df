// The built package: the wasm within the size bound and importing nothing
// from "env" (and the check itself catches such an import), the package's
// entry points present, and the types usable from TypeScript (tsc --strict).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { inspect, LIMIT } from '../scripts/check-artifact.mjs'

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..')

test('both builds are within the size bound and import only from the wasm-bindgen glue', () => {
  for (const target of ['web', 'node']) {
    const r = inspect(readFileSync(join(pkg, 'pkg', target, 'mrtr_wasm_bg.wasm')))
    assert.deepEqual(r.problems, [], target)
    assert.ok(r.gz <= LIMIT, `${target}: ${r.gz}`)
    assert.ok(r.imports.length > 0 && r.imports.every((i) => i.module === './mrtr_wasm_bg.js'), target)
  }
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

test("package.json's entry points exist", () => {
  const p = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'))
  const paths = JSON.stringify(p.exports).match(/\.\/pkg\/[\w/.]+/g)
  assert.ok(paths.length >= 6)
  for (const path of paths) assert.ok(existsSync(join(pkg, path)), path)
})

test('test/types/usage.ts type-checks against the package types (tsc --strict)', { timeout: 120_000 }, () => {
  const tsc = join(pkg, 'node_modules', 'typescript', 'bin', 'tsc')
  execFileSync(process.execPath, [tsc, '-p', join(pkg, 'test', 'types', 'tsconfig.json')], { stdio: 'pipe' })
})
