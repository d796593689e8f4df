// The shared suite of the JavaScript API (bindings-node/test/*.test.mjs, all
// but the napi-* ones) against this package: the same tests as the Node
// package runs against its addon, here with MRTR_BACKEND=wasm (see
// bindings-node/test/backend.mjs), over the tests' build pkg-test-vectors/
// (scripts/build.sh --test-vectors: the corpus's sealing vectors need it).
//
// All of them share one instance of the module, and errors.test.mjs panics it
// on purpose (the API then starts a fresh one, and objects of the old one
// throw a PanicError). Its tests may start while a later file is still being
// imported, so a module-level object of that file (a KeyRing, SealedRounds)
// would come from the old instance, or not, by timing: it is imported last.
import { readdirSync } from 'node:fs'

process.env.MRTR_BACKEND = 'wasm'
const suite = new URL('../../bindings-node/test/', import.meta.url)
const PANICS = 'errors.test.mjs'
const files = readdirSync(suite).filter((f) => f.endsWith('.test.mjs') && !f.startsWith('napi-'))
for (const f of [...files.filter((f) => f !== PANICS).sort(), PANICS]) {
  await import(new URL(f, suite))
}
