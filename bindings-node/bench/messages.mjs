// The three messages of the core's bench (core/benches/validate.rs), built the
// same way, field for field: a ~0.6 KB tools/call retry, a ~1 KB
// input_required result, and a ~34 KB input_required result with 64 input
// requests and a 16 KiB requestState.

/** A deterministic, base64-looking opaque state of exactly `len` bytes (xorshift64, as the Rust bench). */
export function opaqueState(len, seed) {
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
  const M = (1n << 64n) - 1n
  let x = ((BigInt(seed) * 0x9e3779b97f4a7c15n) & M) | 1n
  let out = ''
  for (let i = 0; i < len; i++) {
    x ^= (x << 13n) & M
    x ^= x >> 7n
    x ^= (x << 17n) & M
    out += ALPHABET[Number(x % 64n)]
  }
  return out
}

const meta = () => ({
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } },
  progressToken: 'p-7',
})

const formElicitation = (message) => ({
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message,
    requestedSchema: {
      type: 'object',
      properties: {
        resolution: { type: 'string', title: 'Resolution', enum: ['fixed', 'wontfix', 'duplicate', 'by-design'] },
        reason: { type: 'string', minLength: 1, maxLength: 500 },
        hours: { type: 'number', minimum: 0, maximum: 1000 },
        notify: { type: 'boolean', default: true },
        due: { type: 'string', format: 'date' },
      },
      required: ['resolution', 'reason'],
    },
  },
})

const sampling = (question) => ({
  method: 'sampling/createMessage',
  params: {
    messages: [{ role: 'user', content: { type: 'text', text: question } }],
    modelPreferences: { hints: [{ name: 'claude-3-sonnet' }], intelligencePriority: 0.8, speedPriority: 0.5 },
    systemPrompt: 'You are a helpful assistant.',
    maxTokens: 100,
  },
})

const urlElicitation = (i) => ({
  method: 'elicitation/create',
  params: {
    mode: 'url',
    message: 'Please sign in to Azure DevOps so that the tool can update work items for you',
    url: `https://auth.example.com/authorize?session=${String(i).padStart(4, '0')}`,
  },
})

const roots = () => ({ method: 'roots/list', params: {} })

/** (a) A client retry of `tools/call`, ~0.6 KB. */
export const retryRequest = () => ({
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: {
    name: 'update_work_item',
    arguments: { id: 4711, state: 'Resolved', project: 'contoso' },
    _meta: meta(),
    inputResponses: {
      resolution: { action: 'accept', content: { resolution: 'fixed', reason: 'Patched in build 2026.7.3', notify: true } },
      summary: {
        role: 'assistant',
        content: { type: 'text', text: 'The capital of France is Paris.' },
        model: 'claude-3-sonnet-20240307',
        stopReason: 'endTurn',
      },
    },
    requestState: opaqueState(96, 1),
  },
})

/** (b) An `input_required` result with three input requests, ~1 KB. */
export const inputRequiredSmall = () => ({
  jsonrpc: '2.0',
  id: 2,
  result: {
    resultType: 'input_required',
    inputRequests: {
      resolution: formElicitation('Resolving a Bug needs a resolution and a reason'),
      summary: sampling('Summarise the linked pull request in one sentence.'),
      workspace: roots(),
    },
    requestState: opaqueState(160, 2),
  },
})

/** (c) An `input_required` result with 64 mixed input requests and a 16 KiB state. */
export const inputRequiredLarge = () => {
  const requests = {}
  for (let i = 0; i < 64; i++) {
    const make = [
      () => formElicitation(`Field group ${i} needs your input`),
      () => sampling(`Question ${i}: what is the capital of France?`),
      () => urlElicitation(i),
      roots,
    ]
    requests[`input_${String(i).padStart(2, '0')}`] = make[i % 4]()
  }
  return {
    jsonrpc: '2.0',
    id: 'req-9f2c',
    result: { resultType: 'input_required', inputRequests: requests, requestState: opaqueState(16 << 10, 3) },
  }
}
