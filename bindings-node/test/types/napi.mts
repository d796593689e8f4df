// The Node-only part of the types (type-checked with usage.mts): bytes come
// back as Buffer.
import { KeyRing, paramsDigest } from 'mrtr'

const ring = new KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: Buffer.alloc(32) })
const opened: Buffer = ring.open('token', { subject: 'alice', method: 'tools/call', target: 't', params: {} }, 1).payload
void [opened.toString('hex'), paramsDigest({}).toString('hex')]
