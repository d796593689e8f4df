#!/usr/bin/env node
// The Node conformance runner: every case of the corpus (MRTR_CONFORMANCE_DIR,
// default ../conformance/cases) through the public API of the `mrtr` package,
// compared as ../../shared/CONFORMANCE.md says. As a script it prints one line
// per failing case and a closing "N passed, M failed", and exits non-zero on a
// failure or an empty corpus. The same ops as conformance/src/ops.rs.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as mrtr from '../index.mjs'

const here = dirname(fileURLToPath(import.meta.url))

/** MRTR_CONFORMANCE_DIR, or the project's corpus. */
export function corpusDir() {
  return process.env.MRTR_CONFORMANCE_DIR || join(here, '..', '..', 'conformance', 'cases')
}

/** Every `*.json` below `dir`, sorted by path. */
export function caseFiles(dir) {
  const out = []
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (name.endsWith('.json')) out.push(p)
    }
  }
  walk(dir)
  return out.sort()
}

/** The ops this runner knows. */
export const OPS = ['classify', 'check', 'retry', 'resume', 'respond', 'state']

/** The outcome of `op` on `input`, as the corpus writes expectations. Throws for a runner failure. */
export function outcome(op, input) {
  const run = OPERATIONS[op]
  if (!run) throw new Error(`unknown op ${JSON.stringify(op)}`)
  try {
    return run(input)
  } catch (e) {
    if (e instanceof mrtr.MrtrError) return { error: e.rule }
    throw e
  }
}

const OPERATIONS = {
  classify(input) {
    const c = mrtr.classify(input.text ?? '', { protocol: input.protocol })
    return { kind: c.kind, id: c.id, method: c.method }
  },
  check(input) {
    const config = input.config ?? {}
    if (!Array.isArray(input.transcript)) throw new Error('transcript must be an array')
    const violations = mrtr.check(input.transcript, { protocol: config.protocol, maxRounds: config.maxRounds })
    return { violations: violations.map((v) => ({ rule: v.rule, index: v.index })) }
  },
  retry(input) {
    const request = mrtr.retry(input.request, input.result, input.inputResponses ?? {}, input.id ?? null, {
      protocol: input.protocol,
    })
    return { request }
  },
  resume(input) {
    return mrtr.resume(input.request, input.needs ?? {}, { protocol: input.protocol })
  },
  respond(input) {
    const response = mrtr.respond(input.request, input.inputRequests, input.requestState, { protocol: input.protocol })
    return { response }
  },
  state(input) {
    const keys = input.keys.map((k) => ({ id: k.id, algorithm: k.alg, secret: k.secret }))
    const ring = new mrtr.KeyRing(keys[0])
    for (const k of keys.slice(1)) ring.add(k)
    if (input.current !== undefined) ring.setCurrent(input.current)
    if (input.maxTokenBytes !== undefined) ring.setMaxTokenBytes(input.maxTokenBytes)
    const b = input.binding
    const binding = {
      subject: b.subject ?? '',
      protocol: b.protocol,
      method: b.method ?? '',
      target: b.target ?? '',
      arguments: b.arguments ?? {},
    }
    if (input.seal) {
      const s = input.seal
      return { token: ring.seal(binding, s.now, s.ttl, s.payload ?? '', s.nonce) }
    }
    const payload = ring.open(input.open.token ?? '', binding, input.open.now ?? 0)
    return { payload: payload.toString('utf8') }
  },
}

/** JSON equality: key order ignored, numbers by value. */
export function jsonEq(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEq(x, b[i]))
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a)
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && jsonEq(a[k], b[k]))
  }
  return a === b
}

/** Arrays compared as sets (each element matched once). */
export function setEq(a, b) {
  if (!Array.isArray(a) || !Array.isArray(b)) return jsonEq(a, b)
  const left = [...b]
  return (
    a.length === b.length &&
    a.every((x) => {
      const i = left.findIndex((y) => jsonEq(x, y))
      if (i < 0) return false
      left.splice(i, 1)
      return true
    })
  )
}

const SETS = { check: ['violations'], resume: ['missing', 'ignored'] }

/** Compares as conformance/README.md says: an error exactly; otherwise the listed keys. Returns why it differs, or null. */
export function compare(op, expect, actual) {
  if ('error' in expect || 'error' in actual) {
    return jsonEq(expect.error ?? null, actual.error ?? null) ? null : 'outcome differs'
  }
  for (const [key, want] of Object.entries(expect)) {
    const got = actual[key] ?? null
    const same = (SETS[op] ?? []).includes(key) ? setEq(want, got) : jsonEq(want, got)
    if (!same) return `${JSON.stringify(key)} differs`
  }
  return null
}

/** Runs one case file: null when it passes, else why not. */
export function runCase(path) {
  let c
  try {
    c = JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    return `unreadable case: ${e.message}`
  }
  let actual
  try {
    actual = outcome(c.op, c.input ?? null)
  } catch (e) {
    return `${e.name}: ${e.message}`
  }
  const why = compare(c.op, c.expect ?? {}, actual)
  return why && `${why}\n  expected: ${JSON.stringify(c.expect)}\n  actual:   ${JSON.stringify(actual)}`
}

/** Runs the corpus in `dir`: `{passed, failed: [[id, why]]}`. */
export function runCorpus(dir = corpusDir()) {
  const failed = []
  let passed = 0
  for (const path of caseFiles(dir)) {
    const why = runCase(path)
    if (why === null) passed++
    else failed.push([relative(dir, path).replace(/\.json$/, ''), why])
  }
  return { passed, failed }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = corpusDir()
  let result
  try {
    result = runCorpus(dir)
  } catch (e) {
    console.error(`cannot read the corpus at ${dir}: ${e.message}`)
    process.exit(2)
  }
  for (const [id, why] of result.failed) console.log(`FAIL ${id}: ${why}`)
  console.log(`${result.passed} passed, ${result.failed.length} failed`)
  if (result.passed + result.failed.length === 0) console.error(`no case found in ${dir}`)
  process.exit(result.failed.length === 0 && result.passed > 0 ? 0 : 1)
}
