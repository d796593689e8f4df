// Type-checked against index.d.ts by test/artifact.test.mjs (tsc --strict):
// the README example and every export, used as a TypeScript user would (as
// bindings-node/test/types/usage.ts, with Uint8Array for Buffer).
import {
  classify, check, Checker, retry, respond, resume, taskUpdate, taskTransition, Client, KeyRing, SealedRounds,
  bindingFor, paramsDigest, Rule, RULES, Protocol, TaskStatus, Kind, defaultLimits, errorClassFor,
  MrtrError, ProtocolError, RetryError, StateError, TaskError, AssociationError, TransportError, PanicError,
  type ClientEvent, type JsonObject, type RuleId, type Violation, type Round,
} from 'mrtr-wasm'

const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: { location: 'NYC' }, _meta: meta } }
const ask = { login: { method: 'elicitation/create', params: { message: 'GitHub user?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } }

const answer: JsonObject = respond(call, ask, 's1', { protocol: Protocol.V2026_07_28 })
const again: JsonObject = retry(call, answer, { login: { action: 'accept', content: { name: 'octocat' } } }, 2)
const got = resume(again, ask)
const state: string | null = got.requestState
const missing: string[] = got.missing
const kind: 'request' | 'notification' | 'result' | 'input_required' | 'error' = classify(JSON.stringify(call)).kind
const same: boolean = kind === Kind.Request
const violations: Violation[] = check([{ from: 'client', message: call }], { maxRounds: 3 })
const checker = new Checker()
checker.handle({ from: 'server', message: answer, stream: 'post:1' })
const rule: RuleId = violations[0]?.rule ?? Rule.RetryIdReused
const code: number | null = RULES[0].code
const status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled' = taskTransition(TaskStatus.Working, TaskStatus.Completed)
taskUpdate(call, answer, {}, 3, { limits: { maxDepth: 64 } })

const client = new Client({ protocol: '2026-07-28', maxRounds: 5, limits: defaultLimits })
const handle: number = client.send(call)
for (const m of client.transmits()) void m.id
client.handleResponse(new TextEncoder().encode(JSON.stringify(answer)))
const event: ClientEvent | null = client.pollEvent()
if (event?.type === 'inputRequired') client.answer(event.handle, {}, 'r2')
else if (event?.type === 'done') void event.response.result
client.abandon(handle)

const ring = new KeyRing({ id: 1, algorithm: 'aes-256-gcm', secret: new Uint8Array(32) })
ring.add({ id: 2, algorithm: 'xchacha20-poly1305', master: 'deadbeef' })
const token: string = ring.seal(bindingFor(call, 'alice'), 1000, 60, 'payload')
const opened: Uint8Array = ring.open(token, { subject: 'alice', method: 'tools/call', target: 'get_weather', paramsDigest: paramsDigest({ location: 'NYC' }) }, 1000)
const rounds = new SealedRounds({ ring, subject: 'alice', now: 1000 })
const round: Round = rounds.resume(call, ask)
rounds.respond(call, round, ask, { step: 1 })

try {
  classify('{')
} catch (e) {
  if (e instanceof MrtrError) {
    const r: RuleId = e.rule
    const c: number | null = e.code
    void [r, c]
  } else if (e instanceof PanicError) {
    const c: 'MRTR_PANIC' = e.code
    void c
  }
}
const classes: (typeof MrtrError)[] = [ProtocolError, RetryError, StateError, TaskError, AssociationError, TransportError, errorClassFor('state-expired')]
void [state, missing, same, rule, code, status, opened, classes]

// The wrapper over the raw module, as the entry points build it.
import { createMrtr } from 'mrtr-wasm/api'
import * as native from 'mrtr-wasm/raw'
const api: typeof import('mrtr-wasm') = createMrtr(native)
void api.classify(call).kind
