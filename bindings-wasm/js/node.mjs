// mrtr in WebAssembly, for Node: the --target nodejs build (loaded
// synchronously) under the shared wrapper. Same exports as the Node package.
import { createRequire } from 'node:module'
import { createMrtr } from './api.mjs'

const mrtr = createMrtr(createRequire(import.meta.url)('./mrtr_wasm.js'))

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
