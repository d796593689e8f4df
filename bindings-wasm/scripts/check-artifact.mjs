#!/usr/bin/env node
// Checks the built artifacts of both packages (<pkg>/lib/mrtr_wasm_bg.wasm):
// the gzipped size of the optimised wasm (the full package, pkg/: failure
// above 276 KiB; the browser package, pkg-browser/: failure above 150 KiB,
// the goal of issue #27), its imports:
// none from "env" (a libc or an undefined symbol leaking in), every one from
// the wasm-bindgen glue; and its exports: no test-only function (the cargo
// feature `test-vectors`, sealing with a caller's nonce, is for the tests'
// pkg-test-vectors/ alone). Exits non-zero on a failure.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

export const GOAL = 150 * 1024
// The full package (pkg/). 250 KiB until issue #26's security fixes (SEP-2243 header encoding,
// answer shapes sealed for the replay guard, bridge keys, reconnect backoff) added about 1.5 KiB;
// 252 KiB until XAES-256-GCM as a third algorithm with binding tags computed once (cddb04a) and the
// checker and replay work beside it took it to 257.8 KiB (264 012 bytes, 2026-11-28); 260 KiB until
// the checker's per-message preparation outside the proxy's lock (check::prepare) and the replay's
// one-call rows for the JavaScript API (ask_elicit, arguments, input_required_kept) took it to
// 260.8 KiB (267 081 bytes); 264 KiB until issue #43's hedging rule and stall copies (262.8 KiB)
// and issue #46's server/discover builder, the checker's unparsed recorded bodies and the error
// messages that list the known names took it to 265.5 KiB (271 824 bytes, 2026-12-07); 268 KiB
// until issue #41's ToolRun (the await-style run as one machine, which the JavaScript API's runTool
// now runs on instead of its own copy of the round sequence) and the client machines' transition
// tables took it to 270.5 KiB (276 959 bytes, 2026-12-07; issue #45 owns the size). Browsers load
// pkg-browser/ (122.5 KiB), which has none of these.
export const LIMIT = 276 * 1024
// The browser package (pkg-browser/, issue #27): the goal is its bound.
export const BROWSER_LIMIT = GOAL
/** The packages and their bounds; `lacks`: exports the browser package must not have (the split is in effect). */
export const PACKAGES = [
  { dir: 'pkg', limit: LIMIT },
  { dir: 'pkg-browser', limit: BROWSER_LIMIT, lacks: /^(keyring|client|checker|httpcall|serverstream|toolbridge|toolreplay)_|^(check|retry|respond|resume)$/ },
]
/** The module wasm-bindgen's glue provides the imports as. */
export const GLUE = './mrtr_wasm_bg.js'

/** What one wasm binary is: sizes, imports, and what is wrong with it (above `limit` bytes gzipped, or exporting a name `lacks` matches). */
export function inspect(bytes, limit = LIMIT, lacks = null) {
  const gz = gzipSync(bytes, { level: 9 }).length
  const imports = WebAssembly.Module.imports(new WebAssembly.Module(bytes))
  const problems = []
  if (gz > limit) problems.push(`${gz} bytes gzipped, over the ${limit}-byte bound`)
  const env = imports.filter((i) => i.module === 'env').map((i) => i.name)
  if (env.length) problems.push(`imports from "env": ${env.join(', ')}`)
  const foreign = [...new Set(imports.map((i) => i.module))].filter((m) => m !== GLUE && m !== 'env')
  if (foreign.length) problems.push(`imports from outside the wasm-bindgen glue: ${foreign.join(', ')}`)
  const exports = WebAssembly.Module.exports(new WebAssembly.Module(bytes)).map((e) => e.name)
  const testOnly = exports.filter((name) => /ForTestVectors/i.test(name))
  if (testOnly.length) problems.push(`exports test-only functions (cargo feature test-vectors): ${testOnly.join(', ')}`)
  const extra = lacks ? exports.filter((name) => lacks.test(name)) : []
  if (extra.length) problems.push(`exports what this package leaves out: ${extra.join(', ')}`)
  return { size: bytes.length, gz, imports, exports, problems }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  let failed = false
  for (const { dir, limit, lacks } of PACKAGES) {
    const r = inspect(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', dir, 'lib', 'mrtr_wasm_bg.wasm')), limit, lacks)
    const goal = r.gz > GOAL ? 'over the 150 KiB goal' : 'within the 150 KiB goal'
    const from = r.problems.length ? '' : `, all from "${GLUE}"`
    console.log(`${dir}/: ${r.size} bytes, ${r.gz} gzipped (${(r.gz / 1024).toFixed(1)} KiB, bound ${limit / 1024} KiB, ${goal}); ${r.imports.length} imports${from}`)
    for (const p of r.problems) console.log(`FAIL: ${dir}/: ${p}`)
    failed ||= r.problems.length > 0
  }
  process.exit(failed ? 1 : 0)
}
