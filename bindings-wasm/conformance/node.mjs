#!/usr/bin/env node
// The wasm-in-Node conformance runner (`scripts/conformance wasm-node`): the
// corpus through the --target nodejs build (pkg/node). Prints one line per
// failing case and a closing "N passed, M failed"; exits non-zero on a
// failure or an empty corpus.
import { corpusDir, loadCorpus } from './corpus.mjs'
import { report, runCases } from './runner.mjs'
import * as mrtr from '../pkg/node/index.mjs'

const dir = corpusDir()
let cases
try {
  cases = loadCorpus(dir)
} catch (e) {
  console.error(`cannot read the corpus at ${dir}: ${e.message}`)
  process.exit(2)
}
const result = runCases(mrtr, cases)
for (const line of report(result)) console.log(line)
if (cases.length === 0) console.error(`no case found in ${dir}`)
process.exit(result.failed.length === 0 && result.passed > 0 ? 0 : 1)
