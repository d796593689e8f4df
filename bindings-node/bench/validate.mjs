// Parse + validate the three benchmark messages, side by side in one run:
//   mrtr classify   mrtr.classify(text): parse + every MRTR rule, in Rust
//   zod (SDK)       JSON.parse, then a zod schema of the MRTR shapes built from
//                   the official SDK's parts (@modelcontextprotocol/core 2.x:
//                   the spec schemas of the three input requests and results,
//                   CallToolRequestParams), shaped as the SDK's own internal
//                   InputRequiredResult / retry schemas
//   JSON.parse      bare parsing, no validation
// Goals: mrtr ≥ 3× faster than zod, ≤ 1.5× JSON.parse.
//
//   node bench/validate.mjs [--time MS]     (MS per task, default 3000; build the addon in release first)
import { Bench } from 'tinybench'
import * as z from 'zod/v4'
import * as sdk from '@modelcontextprotocol/core'
import { benchCases } from './schemas.mjs'
import { classify } from '../index.mjs'

const i = process.argv.indexOf('--time')
const time = i > 0 ? Number(process.argv[i + 1]) : 3000
const ROUNDS = 7
const cases = benchCases(z, sdk)

const rows = []
for (const [name, message, schema, kind] of cases) {
  const text = JSON.stringify(message)
  // Outside the timed loops: every path accepts the message.
  if (classify(text).kind !== kind) throw new Error(`${name}: classify says ${classify(text).kind}`)
  const checked = schema.safeParse(JSON.parse(text))
  if (!checked.success) throw new Error(`${name}: zod refuses it: ${checked.error.message.slice(0, 500)}`)
  // Rounds interleave the three tasks, so that a load spike from another
  // process on a shared machine hits all three alike; each task's figure is
  // the median of its per-round means.
  let sink
  const tasks = {
    'mrtr classify': () => { sink = classify(text) },
    'zod (SDK parts)': () => { sink = schema.safeParse(JSON.parse(text)) },
    'JSON.parse': () => { sink = JSON.parse(text) },
  }
  const means = Object.fromEntries(Object.keys(tasks).map((k) => [k, []]))
  for (let round = 0; round < ROUNDS; round++) {
    const bench = new Bench({ time: time / ROUNDS, warmupTime: round === 0 ? 300 : 50 })
    for (const [k, f] of Object.entries(tasks)) bench.add(k, f)
    await bench.run()
    for (const t of bench.tasks) means[t.name].push(t.result.latency.mean * 1000)
  }
  void sink
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const us = Object.fromEntries(Object.entries(means).map(([k, xs]) => [k, median(xs)]))
  rows.push({
    message: `${name} (${(text.length / 1024).toFixed(1)} KB)`,
    'mrtr classify µs': us['mrtr classify'].toFixed(1),
    'zod (SDK parts) µs': us['zod (SDK parts)'].toFixed(1),
    'JSON.parse µs': us['JSON.parse'].toFixed(1),
    'zod / mrtr': (us['zod (SDK parts)'] / us['mrtr classify']).toFixed(1) + '×',
    'mrtr / JSON.parse': (us['mrtr classify'] / us['JSON.parse']).toFixed(2) + '×',
  })
}
console.log(`node ${process.version}; per task: median of ${ROUNDS} interleaved rounds, ${time} ms in all`)
console.table(rows)
// Markdown, for the README.
const cols = Object.keys(rows[0])
console.log(`\n| ${cols.join(' | ')} |\n|${cols.map(() => '---').join('|')}|`)
for (const r of rows) console.log(`| ${cols.map((c) => r[c]).join(' | ')} |`)
