#!/usr/bin/env node
// The corpus through the browser package (pkg-browser/) in Node, for the
// judge (scripts/tests/50-wasm.sh pipes it into `mrtr-conformance judge`):
// its first line declares the ops the package carries (classify, sse),
// so that the judge leaves the others out and reports them (the full package
// runs every case: scripts/conformance wasm-node and wasm-browser); every case
// of those ops must pass. One line per case, through the one runner of the
// JavaScript API (bindings-node/test/conformance-runner.mjs).
import { line, loadCorpus } from '../../bindings-node/test/conformance-runner.mjs'
import * as mrtr from '../pkg-browser/lib/api.mjs'

export const BROWSER_OPS = ['classify', 'sse']
const why = 'the browser package (pkg-browser/) carries classify and SseDecoder, not check, retry, resume, respond, KeyRing or HttpCall; the full package runs every case (wasm-node, wasm-browser)'
console.log(JSON.stringify({ ops: BROWSER_OPS, why }))
for (const { id, text } of await loadCorpus()) {
  let op
  try {
    op = JSON.parse(text).op
  } catch {}
  // A case that is no JSON is the judge's to report; it belongs to no op.
  if (op === undefined || BROWSER_OPS.includes(op)) console.log(line(mrtr, id, text))
}
