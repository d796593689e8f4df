#!/usr/bin/env node
// The conformance runner of the JavaScript API, for every backend: the napi
// addon (`scripts/conformance node`), the wasm package in Node (`wasm-node`:
// MRTR_BACKEND=wasm, see test/backend.mjs) and in a page (`wasm-browser`:
// bindings-wasm/conformance/browser/ imports this module as it is).
//
// Runners produce, one judge compares (conformance/src/judge.rs): for every
// case it prints one line, `{"id", "outcome"}` with what the public API
// returned (an MrtrError as `{"error": rule}`), or `{"id", "crash"}` when it
// could not run the case, and nothing else. No comparison lives here: only the
// op adapter (the same ops as conformance/src/ops.rs). Outside its CLI block it
// touches no file system and no platform API.

/** The ops this runner knows. */
export const OPS = ['classify', 'check', 'retry', 'resume', 'respond', 'state', 'sse', 'http-client']

/** The outcome of `op` on `input` through `mrtr`, as the corpus writes expectations. Throws for a runner failure. */
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

/** The bytes a case writes in hex (no Buffer: this module also runs in a page). */
function bytesOfHex(hex) {
  if (typeof hex !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw new Error('input.hex is not hex')
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16))
}

const OPERATIONS = {
  classify(mrtr, input) {
    // `hex`: raw bytes a JSON string cannot hold (invalid UTF-8), passed as a Uint8Array.
    const message = input.hex === undefined ? (input.text ?? '') : bytesOfHex(input.hex)
    const c = mrtr.classify(message, { protocol: input.protocol })
    return { kind: c.kind, id: c.id, method: c.method }
  },
  check(mrtr, input) {
    const { protocol, maxRounds, transport } = input.config ?? {}
    return { violations: mrtr.check(input.transcript, { protocol, maxRounds, transport }) }
  },
  retry(mrtr, input) {
    const { request, result, inputResponses, id, protocol } = input
    return { request: mrtr.retry(request, result, inputResponses ?? {}, id ?? null, { protocol }) }
  },
  resume(mrtr, input) {
    return mrtr.resume(input.request, input.needs ?? {}, { protocol: input.protocol })
  },
  respond(mrtr, input) {
    const { request, inputRequests, requestState, protocol } = input
    return { response: mrtr.respond(request, inputRequests, requestState, { protocol }) }
  },
  state(mrtr, input) {
    const [first, ...more] = input.keys.map((k) => ({ id: k.id, algorithm: k.alg, secret: k.secret }))
    const ring = new mrtr.KeyRing(first, { context: input.context })
    for (const k of more) ring.add(k)
    if (input.current !== undefined) ring.setCurrent(input.current)
    if (input.maxTokenBytes !== undefined) ring.setMaxTokenBytes(input.maxTokenBytes)
    // `bindingText`: the binding's raw JSON text, passed as it is (its numbers exact).
    const binding = input.bindingText ?? input.binding
    if (input.seal) {
      const s = input.seal
      return { token: mrtr.__sealWithNonceForTestVectors(ring, binding, s.now, s.ttl, s.payload ?? '', s.nonce) }
    }
    const { token = '', now = 0, used } = input.open
    // `used`: a replay guard that already holds these ids.
    const seen = used?.map((id) => id.toLowerCase())
    const guard = seen && ((stateId) => !seen.includes(stateId))
    const { payload, stateId, expiry } = ring.open(token, binding, now, { guard })
    return { payload: new TextDecoder().decode(payload), stateId, expiry }
  },
}

/** What an `HttpCall` has to say after an input, in the drain order of the corpus (conformance/README.md). */
function drain(c) {
  const out = []
  for (const request of c.transmits()) out.push({ send: request })
  for (const event of c.events()) out.push({ event })
  const at = c.pollTimeout()
  if (at !== null) out.push({ timeout: at })
  return out
}

/** `f()`, its MrtrError as `{error: rule}` (any other exception is the runner's failure). */
function refused(mrtr, f) {
  try {
    return f()
  } catch (e) {
    if (e instanceof mrtr.MrtrError) return { error: e.rule }
    throw e
  }
}

Object.assign(OPERATIONS, {
  sse(mrtr, input) {
    if (!Array.isArray(input.chunks)) throw new Error('input.chunks is not an array')
    const decoder = new mrtr.SseDecoder()
    const utf8 = new TextEncoder()
    for (const c of input.chunks) decoder.feed(utf8.encode(c))
    decoder.finish()
    const events = []
    // An unreadable block throws from pollEvent and is listed as its error; decoding goes on.
    for (;;) {
      const e = refused(mrtr, () => decoder.pollEvent())
      if (e === null) break
      events.push(e)
    }
    return { events }
  },
  'http-client'(mrtr, input) {
    let now = input.now ?? 0
    let c
    try {
      c = new mrtr.HttpCall(input.config, input.request, now)
    } catch (e) {
      if (e instanceof mrtr.MrtrError) return { outputs: [[{ error: e.rule }]] }
      throw e
    }
    const outputs = [drain(c)]
    for (const step of input.steps ?? []) {
      if (step.at !== undefined) now = step.at
      let act
      if (step.head) act = () => c.handleHead(step.head.exchange, step.head.status, step.head.headers, now)
      else if (step.body) {
        const bytes = step.body.hex === undefined ? new TextEncoder().encode(step.body.text) : bytesOfHex(step.body.hex)
        act = () => c.handleBody(step.body.exchange, bytes, now)
      } else if (step.end) act = () => c.handleEnd(step.end.exchange, now)
      else if (step.answer) act = () => c.answer(step.answer, now)
      else if (step.timeout !== undefined) {
        now = step.timeout
        act = () => c.handleTimeout(now)
      } else throw new Error(`unknown step ${JSON.stringify(step)}`)
      const r = refused(mrtr, act)
      outputs.push(r?.error ? [r] : drain(c))
    }
    return { outputs }
  },
})

/** The output line for one case, given as its file's text (`id` names it when the text is not JSON). */
export function line(mrtr, id, text) {
  try {
    const c = JSON.parse(text)
    return JSON.stringify({ id: c.id ?? id, outcome: outcome(mrtr, c.op, c.input ?? null) })
  } catch (e) {
    return JSON.stringify({ id, crash: `${e?.name}: ${e?.message}` })
  }
}

/** Every case below `dir` (MRTR_CONFORMANCE_DIR, else the project's corpus), sorted by path: `[{id, text}]`. */
export async function loadCorpus(dir = process.env.MRTR_CONFORMANCE_DIR || decodeURIComponent(new URL('../../conformance/cases', import.meta.url).pathname)) {
  const { readdirSync, readFileSync } = await import('node:fs')
  const files = readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.json')).sort()
  return files.map((f) => ({ id: f.replace(/\.json$/, '').split('\\').join('/'), text: readFileSync(`${dir}/${f}`, 'utf8') }))
}

if (import.meta.filename !== undefined && import.meta.filename === globalThis.process?.argv[1]) {
  const { default: mrtr } = await import('./backend.mjs')
  for (const { id, text } of await loadCorpus()) console.log(line(mrtr, id, text))
}
