// The hand-maintained index.d.ts against the runtime: every export declared and
// every declaration exported, the tables listed exactly, and a usage file that
// type-checks with tsc --strict. The ESM and CommonJS entry points export the
// same objects.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { execFileSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esm from '../index.mjs'

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..')
const cjs = createRequire(import.meta.url)('../index.js')
const dts = readFileSync(join(pkg, 'index.d.ts'), 'utf8')

const declared = new Set([...dts.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((m) => m[1]))

/** `readonly Key: 'value'` rows of `export declare const NAME: { … }`. */
function rows(name) {
  const block = dts.match(new RegExp(`^export declare const ${name}: \\{\\n([\\s\\S]*?)^\\}`, 'm'))
  assert.ok(block, `${name} is declared`)
  return Object.fromEntries([...block[1].matchAll(/readonly (\w+): '([^']+)'/g)].map((m) => [m[1], m[2]]))
}

test('every runtime export is declared in index.d.ts, and every declaration exists', () => {
  const runtime = new Set(Object.keys(cjs))
  assert.deepEqual([...runtime].filter((k) => !declared.has(k)), [], 'exported but not declared')
  assert.deepEqual([...declared].filter((k) => !runtime.has(k)), [], 'declared but not exported')
})

test('the ESM entry point exports exactly the CommonJS objects', () => {
  const named = Object.keys(esm).filter((k) => k !== 'default')
  assert.deepEqual(named.sort(), Object.keys(cjs).sort())
  for (const k of named) assert.equal(esm[k], cjs[k], k)
  assert.equal(esm.default, cjs)
})

test('Rule, Protocol, TaskStatus and Kind in index.d.ts list exactly the core tables', () => {
  assert.deepEqual(rows('Rule'), { ...cjs.Rule })
  assert.deepEqual(rows('Protocol'), { ...cjs.Protocol })
  assert.deepEqual(rows('TaskStatus'), { ...cjs.TaskStatus })
  assert.deepEqual(rows('Kind'), { ...cjs.Kind })
})

test('test/types/usage.ts type-checks against index.d.ts (tsc --strict)', { timeout: 120_000 }, () => {
  const tsc = join(pkg, 'node_modules', 'typescript', 'bin', 'tsc')
  execFileSync(process.execPath, [tsc, '-p', join(pkg, 'test', 'types', 'tsconfig.json')], { stdio: 'pipe' })
})

test('package.json points at the entry points and the types', () => {
  const p = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'))
  assert.equal(p.name, 'mrtr')
  assert.deepEqual(p.exports['.'], { types: './index.d.ts', import: './index.mjs', require: './index.js' })
  assert.equal(p.types, './index.d.ts')
})
