// Messages shared by the tests: the README's weather flow; and byte helpers
// that work on every platform (no Buffer in a page).
export const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
}
export const call = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'get_weather', arguments: { location: 'NYC' }, _meta: meta },
}
export const ask = {
  login: {
    method: 'elicitation/create',
    params: {
      message: 'GitHub user?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
  },
}
export const answer = { login: { action: 'accept', content: { name: 'octocat' } } }

/** UTF-8 bytes of `s`. */
export const utf8 = (s) => new TextEncoder().encode(s)
/** Text of UTF-8 bytes. */
export const str = (b) => new TextDecoder().decode(b)
/** `a`, then `b`, … as one Uint8Array. */
export const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
/** Hex text of bytes. */
export const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
