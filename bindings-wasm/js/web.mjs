// mrtr in WebAssembly, for browsers (and any ES-module host with fetch): the
// --target web build under the shared wrapper. The module instantiates itself
// (top-level await, fetching mrtr_wasm_bg.wasm beside this file), so
// `import * as mrtr from './index.mjs'` is ready to use, with the same exports
// as the Node package.
import init, * as native from './mrtr_wasm.js'
import { createMrtr } from './api.mjs'

await init({ module_or_path: new URL('./mrtr_wasm_bg.wasm', import.meta.url) })
const mrtr = createMrtr(native)

export const {
  classify,
  check,
  Checker,
  retry,
  taskUpdate,
  respond,
  resume,
  taskTransition,
  Client,
  KeyRing,
  SealedRounds,
  bindingFor,
  paramsDigest,
  Rule,
  RULES,
  Protocol,
  TaskStatus,
  Kind,
  defaultLimits,
  errorClassFor,
  MrtrError,
  ProtocolError,
  RetryError,
  StateError,
  TaskError,
  AssociationError,
  TransportError,
  PanicError,
  __panicForTests,
} = mrtr

export default mrtr
