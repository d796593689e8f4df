// The wasm backend of the JavaScript API (bindings-node/lib/api.mjs, which
// scripts/build.sh copies beside this file): the wasm-bindgen module (--target
// web), instantiated here, in a page (fetching mrtr_wasm_bg.wasm beside this
// file) and in Node (reading it). Bytes are handed out as they come, as
// Uint8Array.
//
// The browser package (pkg-browser/, the cargo feature `browser`) leaves
// exports out; the module names them (`__leftOut`), and each becomes here a
// function that throws what the API turns into its UsageError, "this backend
// has no X" (as `Operation` in either package), called or constructed.
import init, * as module from './mrtr_wasm.js'

const wasm = new URL('./mrtr_wasm_bg.wasm', import.meta.url)
const fs = globalThis.process?.getBuiltinModule?.('node:fs')
await init({ module_or_path: fs ? fs.readFileSync(wasm) : wasm })

/** A stand-in for the export `name` this build leaves out. */
function leftOut(name) {
  return function () {
    const e = new Error(`this backend has no ${name}`)
    e.code = 'usage-invalid-argument'
    throw e
  }
}

const lacking = module.__leftOut().split(',').filter(Boolean)
const native = lacking.length
  ? Object.freeze({ ...module, ...Object.fromEntries(lacking.map((name) => [name, leftOut(name)])) })
  : module
export default native

/** `bytes` as this platform hands bytes out: as they are. */
export const platformBytes = (bytes) => bytes
