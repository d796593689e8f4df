// mrtr for Node, as an ES module: the same objects as the CommonJS entry
// point (one instance of every class, so `instanceof` holds across both).
import mrtr from './index.js'

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
