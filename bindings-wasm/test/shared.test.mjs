// The shared suite of the JavaScript API (bindings-node/test/*.test.mjs, all
// but the napi-* ones) against this package: the same tests as the Node
// package runs against its addon, here with MRTR_BACKEND=wasm (see
// bindings-node/test/backend.mjs), over the tests' build pkg-test-vectors/
// (scripts/build.sh --test-vectors: the corpus's sealing vectors need it).
import { readdirSync } from 'node:fs'

process.env.MRTR_BACKEND = 'wasm'
const suite = new URL('../../bindings-node/test/', import.meta.url)
for (const f of readdirSync(suite).filter((f) => f.endsWith('.test.mjs') && !f.startsWith('napi-')).sort()) {
  await import(new URL(f, suite))
}
