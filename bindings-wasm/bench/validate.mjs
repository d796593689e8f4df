// Parse + validate the three benchmark messages (bindings-node/bench/messages.mjs and
// schemas.mjs, one definition for both packages, built as core/benches/validate.rs
// builds them), side by side in one run:
//   wasm-small classify  the browser package (pkg-browser/, opt-level 3,
//                   wasm-opt -O3): mrtr.classify(text), parse + every MRTR
//                   rule, in wasm
//   wasm-full classify   the full package (pkg/, opt-level "z", wasm-opt -Oz),
//                   the same call
//   napi classify   the Node package (bindings-node), the same call natively;
//                   the column is left out when its addon is not built
//   zod (SDK parts) JSON.parse, then a zod schema of the MRTR shapes built from
//                   the official TypeScript SDK's parts (@modelcontextprotocol/sdk
//                   1.x: the schemas of the three input requests and results,
//                   CallToolRequestParams), as bindings-node/bench does
//   SDK message     JSON.parse, then the SDK's own JSONRPCMessageSchema (what the
//                   SDK runs on every message; it has no MRTR shapes and lets
//                   their fields through unchecked)
//   JSON.parse      bare parsing, no validation
// Not a test: run it by hand (`npm run bench` after `npm run build`, which builds both packages).
//
//   node bench/validate.mjs [--time MS]     (MS per message, default 3000)
import { createRequire } from 'node:module'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Bench } from 'tinybench'
import * as z from 'zod/v4'
import * as sdk from '@modelcontextprotocol/sdk/types.js'
import { benchCases } from '../../bindings-node/bench/schemas.mjs'
import * as wasm from '../pkg-browser/lib/api.mjs'
import * as wasmFull from '../pkg/lib/api.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const nodePkg = join(here, '..', '..', 'bindings-node')
let napi = null
if (existsSync(join(nodePkg, 'index.js'))) {
  try {
    napi = createRequire(import.meta.url)(join(nodePkg, 'index.js'))
  } catch (e) {
    console.error(`napi column left out: ${e.message.split('\n')[0]}`)
  }
}

const at = process.argv.indexOf('--time')
const time = at > 0 ? Number(process.argv[at + 1]) : 3000
const ROUNDS = 7
const cases = benchCases(z, sdk)

const rows = []
for (const [name, message, schema, kind] of cases) {
  const text = JSON.stringify(message)
  // Outside the timed loops: every path accepts the message.
  for (const [label, pkg] of [['wasm-small', wasm], ['wasm-full', wasmFull], ['napi', napi]]) {
    if (pkg && pkg.classify(text).kind !== kind) throw new Error(`${name}: ${label} classify says ${pkg.classify(text).kind}`)
  }
  const checked = schema.safeParse(JSON.parse(text))
  if (!checked.success) throw new Error(`${name}: zod refuses it: ${checked.error.message.slice(0, 500)}`)
  if (!sdk.JSONRPCMessageSchema.safeParse(JSON.parse(text)).success) throw new Error(`${name}: the SDK refuses it`)
  // Rounds interleave the tasks, so that a load spike from another process on
  // a shared machine hits all alike; each task's figure is the median of its
  // per-round means.
  let sink
  const tasks = {
    'wasm-small classify': () => { sink = wasm.classify(text) },
    'wasm-full classify': () => { sink = wasmFull.classify(text) },
    ...(napi && { 'napi classify': () => { sink = napi.classify(text) } }),
    'zod (SDK parts)': () => { sink = schema.safeParse(JSON.parse(text)) },
    'SDK message': () => { sink = sdk.JSONRPCMessageSchema.safeParse(JSON.parse(text)) },
    'JSON.parse': () => { sink = JSON.parse(text) },
  }
  const means = Object.fromEntries(Object.keys(tasks).map((k) => [k, []]))
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: time / ROUNDS / Object.keys(tasks).length, warmupTime: round === 0 ? 300 : 50 })
    for (const [k, f] of Object.entries(tasks)) bench.add(k, f)
    await bench.run()
    for (const t of bench.tasks) means[t.name].push(t.result.latency.mean * 1000)
  }
  void sink
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const us = Object.fromEntries(Object.entries(means).map(([k, xs]) => [k, median(xs)]))
  const row = { message: `${name} (${(text.length / 1024).toFixed(1)} KB)` }
  for (const k of Object.keys(tasks)) row[`${k} µs`] = us[k].toFixed(1)
  const small = us['wasm-small classify']
  row['zod / wasm-small'] = (us['zod (SDK parts)'] / small).toFixed(1) + '×'
  if (napi) row['wasm-small / napi'] = (small / us['napi classify']).toFixed(2) + '×'
  if (napi) row['wasm-full / napi'] = (us['wasm-full classify'] / us['napi classify']).toFixed(2) + '×'
  row['wasm-small / JSON.parse'] = (small / us['JSON.parse']).toFixed(2) + '×'
  rows.push(row)
}
console.log(`node ${process.version}; per message: median of ${ROUNDS} interleaved rounds, ${time} ms in all`)
console.table(rows)
const cols = Object.keys(rows[0])
console.log(`\n| ${cols.join(' | ')} |\n|${cols.map(() => '---').join('|')}|`)
for (const r of rows) console.log(`| ${cols.map((c) => r[c]).join(' | ')} |`)
