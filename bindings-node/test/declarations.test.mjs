// index.d.ts (hand-written), lib/tables.d.ts and lib/exports.d.ts (generated
// by mrtr-gen) against the runtime of this backend: every export declared and
// every declaration exported, every method of a declared class there and
// every one there declared, and the generated tables listing exactly what
// the API built from the core's catalogue. Shared by both backends
// (test/backend.mjs): both packages ship these files.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import mrtr from './backend.mjs'

const read = (path) => readFileSync(new URL(path, import.meta.url), 'utf8')
const index = read('../index.d.ts')
const tables = read('../lib/tables.d.ts')
const exports = read('../lib/exports.d.ts')
const declared = (dts) => [...dts.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((m) => m[1])

/** `readonly Key: 'value'` rows of `export declare const NAME: { … }` in lib/tables.d.ts. */
function rows(name) {
  const block = tables.match(new RegExp(`^export declare const ${name}: \\{\\n([\\s\\S]*?)^\\}`, 'm'))
  assert.ok(block, `${name} is declared`)
  return Object.fromEntries([...block[1].matchAll(/readonly (\w+): '([^']+)'/g)].map((m) => [m[1], m[2]]))
}

test('every runtime export is declared, and every declaration exists', () => {
  assert.match(index, /^export \* from '\.\/lib\/tables\.js'$/m)
  assert.match(index, /^export \* from '\.\/lib\/exports\.js'$/m)
  const names = [...declared(index), ...declared(tables), ...declared(exports)].sort()
  assert.deepEqual(names, Object.keys(mrtr).filter((k) => k !== 'default').sort())
  for (const k of names) assert.equal(mrtr.default[k], mrtr[k], k)
})

test("the generated tables list exactly the core's", () => {
  assert.deepEqual(rows('Rule'), { ...mrtr.Rule })
  assert.deepEqual(rows('Protocol'), { ...mrtr.Protocol })
  assert.deepEqual(rows('TaskStatus'), { ...mrtr.TaskStatus })
  assert.deepEqual(rows('Kind'), { ...mrtr.Kind })
  const classes = [...tables.matchAll(/^export declare class (\w+) extends MrtrError \{\}$/gm)].map((m) => m[1])
  assert.deepEqual(classes.sort(), [...new Set(mrtr.RULES.map((r) => mrtr.errorClassFor(r.id).name))].sort())
})

/** The members a class declaration names: methods, getters, statics (not the constructor). */
function members(dts, name) {
  const block = dts.match(new RegExp(`^export declare class ${name} (?:extends \\w+ )?\\{\\n([\\s\\S]*?)^\\}`, 'm'))
  if (!block) return null
  const names = [...block[1].matchAll(/^ {2}(?:static |readonly )?(\w+)[(?:<]/gm)].map((m) => m[1])
  return names.filter((n) => n !== 'constructor').sort()
}

test("every declared class has exactly the runtime's methods and getters", () => {
  const runtime = (C) => {
    const own = (o) => Object.getOwnPropertyNames(o).filter((k) => !['constructor', 'length', 'name', 'prototype'].includes(k))
    return [...own(C.prototype), ...own(C)].filter((k) => !k.startsWith('#')).sort()
  }
  let checked = 0
  for (const [name, value] of Object.entries(mrtr)) {
    if (typeof value !== 'function' || !/^class /.test(Function.prototype.toString.call(value))) continue
    const declared = members(exports, name) ?? members(index, name)
    if (declared === null || value.prototype instanceof Error) continue
    assert.deepEqual(declared, runtime(value), name)
    checked += 1
  }
  assert.ok(checked >= 7, `${checked} classes checked`)
})
