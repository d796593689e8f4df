// Messages shared by the tests: the README's weather flow.
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
