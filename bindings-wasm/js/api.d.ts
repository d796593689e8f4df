// Types of the shared wrapper: `createMrtr` builds the public API (index.d.ts)
// over an initialised wasm-bindgen module (mrtr_wasm.js).
import type * as Mrtr from './index.js'

/** The public API over `native`, the initialised raw module. */
export declare function createMrtr(native: typeof import('./mrtr_wasm.js')): typeof Mrtr
