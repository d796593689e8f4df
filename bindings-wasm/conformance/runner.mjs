// The wasm conformance runner, shared by Node and the browser: every case of
// a corpus through the public API of the wasm package, compared as
// ../../../shared/CONFORMANCE.md says. It touches no file system and no
// platform API: the caller loads the package (`mrtr`) and the corpus (`cases`,
// a list of `{id, text}`, `text` the case file's JSON) and prints the result.
// The same ops as conformance/src/ops.rs and bindings-node's runner.

/** The ops this runner knows. */
export const OPS = ['classify', 'check', 'retry', 'resume', 'respond', 'state']

/** The outcome of `op` on `input`, as the corpus writes expectations. Throws for a runner failure. */
export function outcome(mrtr, op, input) {
  const run = Object.hasOwn(OPERATIONS, op) ? OPERATIONS[op] : undefined
  if (!run) throw new Error(`unknown op ${JSON.stringify(op)}`)
  try {
    return run(mrtr, input)
  } catch (e) {
    if (e instanceof mrtr.MrtrError) return { error: e.rule }
    throw e
  }
}

const OPERATIONS = {
  classify(mrtr, input) {
    const c = mrtr.classify(input.text ?? '', { protocol: input.protocol })
    return { kind: c.kind, id: c.id, method: c.method }
  },
  check(mrtr, input) {
    const config = input.config ?? {}
    if (!Array.isArray(input.transcript)) throw new Error('transcript must be an array')
    const violations = mrtr.check(input.transcript, { protocol: config.protocol, maxRounds: config.maxRounds })
    return { violations: violations.map((v) => ({ rule: v.rule, index: v.index })) }
  },
  retry(mrtr, input) {
    const request = mrtr.retry(input.request, input.result, input.inputResponses ?? {}, input.id ?? null, {
      protocol: input.protocol,
    })
    return { request }
  },
  resume(mrtr, input) {
    return mrtr.resume(input.request, input.needs ?? {}, { protocol: input.protocol })
  },
  respond(mrtr, input) {
    const response = mrtr.respond(input.request, input.inputRequests, input.requestState, { protocol: input.protocol })
    return { response }
  },
  state(mrtr, input) {
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
    return { payload: new TextDecoder().decode(payload) }
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

/** Runs one case given as its file's text: null when it passes, else why not. */
export function runCase(mrtr, text) {
  let c
  try {
    c = JSON.parse(text)
  } catch (e) {
    return `unreadable case: ${e.message}`
  }
  let actual
  try {
    actual = outcome(mrtr, c.op, c.input ?? null)
  } catch (e) {
    return `${e.name}: ${e.message}`
  }
  const expect = c.expect ?? {}
  const why = compare(c.op, expect, actual)
  return why && `${why}\n  expected: ${JSON.stringify(expect)}\n  actual:   ${JSON.stringify(actual)}`
}

/** Runs `cases` (`[{id, text}]`): `{passed, failed: [[id, why]]}`. */
export function runCases(mrtr, cases) {
  const failed = []
  let passed = 0
  for (const { id, text } of cases) {
    const why = runCase(mrtr, text)
    if (why === null) passed++
    else failed.push([id, why])
  }
  return { passed, failed }
}

/** The lines a runner prints: one per failing case, then `N passed, M failed`. */
export function report({ passed, failed }) {
  return [
    ...failed.map(([id, why]) => `FAIL ${id}: ${why.replace(/\n/g, '\n     ')}`),
    `${passed} passed, ${failed.length} failed`,
  ]
}
