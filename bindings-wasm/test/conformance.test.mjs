// The whole corpus through the Node build, as a test (the same shared runner
// as `scripts/conformance wasm-node` and `wasm-browser`).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { loadCorpus } from '../conformance/corpus.mjs'
import { report, runCases } from '../conformance/runner.mjs'
import * as mrtr from '../pkg/node/index.mjs'

test('every case of the corpus passes', () => {
  const cases = loadCorpus()
  assert.ok(cases.length > 0, 'no case found')
  const result = runCases(mrtr, cases)
  assert.deepEqual(result.failed, [], report(result).join('\n'))
  assert.equal(result.passed, cases.length)
})
