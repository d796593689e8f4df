#!/usr/bin/env node
// Refuses to pack an addon built with the cargo feature `test-vectors`
// (sealing with a caller's nonce, for the corpus's vectors): scripts/release
// runs this on the platform package it stages (npm/linux-x64-gnu plus the
// addon) before `npm pack`. The package's addon comes from tools/build.sh,
// which never enables the feature; the tests' build (tools/build.sh
// --test-vectors) stays in target/napi-node-test-vectors/. This catches one
// copied by hand. Checks the *.node files of the folder given (default: the
// package), and exits non-zero naming each one that registers the test-only
// export.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The name napi-rs registers the test-only function under: in the binary as text. */
export const MARKER = 'sealWithNonceForTestVectors'

/** The addons in `dir` that have the test vectors. */
export function withTestVectors(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.node'))
    .filter((f) => readFileSync(join(dir, f)).includes(MARKER))
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url))
  const bad = withTestVectors(dir)
  for (const f of bad) console.error(`${f} is a test build (cargo feature test-vectors): run tools/build.sh, without --test-vectors, before packing`)
  process.exit(bad.length ? 1 : 0)
}
