// An MCP client on the official TypeScript SDK (@modelcontextprotocol/client, installed in
// bindings-node/node_modules): runs every scenario against a server.
//
//   node peers/ts_client.mjs URL PROTOCOL      # 2026-07-28 or 2025-11-25
//
// It declares elicitation, sampling and roots, answers every ask and checks each result; exit
// status 0 when every scenario got its expected answer.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(new URL('../bindings-node/package.json', import.meta.url))
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client')

const MRTR = '2026-07-28'
const ANSWERS = { units: 'celsius', date: '2026-12-01', seat: '12A', focus: 'tests', topic: 'mrtr' }

const [url, protocol] = process.argv.slice(2)
const mode = protocol === MRTR ? { pin: MRTR } : 'legacy'
const client = new Client(
  { name: 'ts-peer', version: '1.0.0' },
  { capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} }, versionNegotiation: { mode } },
)
client.setRequestHandler('elicitation/create', async (request) => {
  const keys = Object.keys(request.params.requestedSchema?.properties ?? {})
  return { action: 'accept', content: Object.fromEntries(keys.map((k) => [k, ANSWERS[k]])) }
})
client.setRequestHandler('sampling/createMessage', async () => ({
  role: 'assistant', content: { type: 'text', text: 'short' }, model: 'm-1',
}))
client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }))

const text = (result) => result.content[0].text
const call = (name, args) => client.callTool({ name, arguments: args })

await client.connect(new StreamableHTTPClientTransport(new URL(url)))
assert.equal(text(await call('get_weather', { location: 'Paris' })), 'Paris: 22 degrees celsius')
assert.equal(text(await call('book_trip', { destination: 'Rome' })), 'Rome on 2026-12-01, seat 12A')
assert.equal(text(await call('summarize', { text: 'a long text' })), 'summary: short')
assert.equal(text(await call('list_roots', {})), 'file:///work')
// Two calls to one tool in flight at once, each retried with its own state.
const [oslo, lima] = await Promise.all([call('get_weather', { location: 'Oslo' }), call('get_weather', { location: 'Lima' })])
assert.deepEqual([text(oslo), text(lima)], ['Oslo: 22 degrees celsius', 'Lima: 22 degrees celsius'])
if (protocol === MRTR) {
  const prompt = await client.getPrompt({ name: 'review', arguments: { pr: '12' } })
  assert.match(prompt.messages[0].content.text, /tests/)
  const notes = await client.readResource({ uri: 'notes://today' })
  assert.equal(notes.contents[0].text, 'notes on mrtr')
}
await client.close()
