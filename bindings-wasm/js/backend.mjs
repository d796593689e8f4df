// The wasm backend of the JavaScript API (bindings-node/lib/api.mjs, which
// scripts/build.sh copies beside this file): the wasm-bindgen module (--target
// web), instantiated here, in a page (fetching mrtr_wasm_bg.wasm beside this
// file) and in Node (reading it). Bytes are handed out as they come, as
// Uint8Array.
import init, * as native from './mrtr_wasm.js'

const wasm = new URL('./mrtr_wasm_bg.wasm', import.meta.url)
const fs = globalThis.process?.getBuiltinModule?.('node:fs')
await init({ module_or_path: fs ? fs.readFileSync(wasm) : wasm })

export default native

/** `bytes` as this platform hands bytes out: as they are. */
export const platformBytes = (bytes) => bytes
