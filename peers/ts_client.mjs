// An MCP client on the official TypeScript SDK (@modelcontextprotocol/client, installed in
// bindings-node/node_modules): runs every scenario against a server.
//
//   node peers/ts_client.mjs URL PROTOCOL      # 2026-07-28 or 2025-11-25
//
// It declares elicitation (form and url), sampling and roots, answers every ask (a URL-mode
// elicitation with an accept) and checks each result; on 2026-07-28 two more clients declare less
// (nothing; form elicitation only) and must be refused with -32021 where the server cannot serve
// them. The scenarios after the first ones run as peers/run lists them in PEER_SCENARIOS (all by
// default). Exit status 0 when every scenario got its expected answer.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'

const require = createRequire(new URL('../bindings-node/package.json', import.meta.url))
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client')

const MRTR = '2026-07-28'
const ANSWERS = { units: 'celsius', date: '2026-12-01', seat: '12A', focus: 'tests', topic: 'mrtr' }
const SIGN_IN = 'https://example.com/sign-in'
const EXTRA = ['reserve', 'sign_in', 'no_capability', 'form_only']
const extra = new Set(process.env.PEER_SCENARIOS === undefined ? EXTRA : process.env.PEER_SCENARIOS.split(',').filter(Boolean))

const [url, protocol] = process.argv.slice(2)
const mode = protocol === MRTR ? { pin: MRTR } : 'legacy'
/** A client declaring `capabilities`, answering the elicitations when it declares them. */
function newClient(capabilities) {
  const c = new Client({ name: 'ts-peer', version: '1.0.0' }, { capabilities, versionNegotiation: { mode } })
  if (capabilities.elicitation) c.setRequestHandler('elicitation/create', async (request) => elicit(request.params))
  return c
}
function elicit(params) {
  if (params.mode === 'url') {
    assert.deepEqual([params.message, params.url], ['Sign in', SIGN_IN])
    return { action: 'accept' }
  }
  const keys = Object.keys(params.requestedSchema?.properties ?? {})
  return { action: 'accept', content: Object.fromEntries(keys.map((k) => [k, ANSWERS[k]])) }
}
const client = newClient({ elicitation: { form: {}, url: {} }, sampling: {}, roots: {} })
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
if (extra.has('reserve')) assert.equal(text(await call('reserve', { table: '7' })), 'table 7 reserved')
if (extra.has('sign_in')) assert.equal(text(await call('sign_in', {})), 'signed in')
await client.close()

/** The call must be refused with -32021 naming `capability` in data.requiredCapabilities. */
async function refused(c, name, args, capability) {
  const error = await c.callTool({ name, arguments: args }).then((r) => assert.fail(`${name}: not refused: ${JSON.stringify(r)}`), (e) => e)
  assert.equal(error.code, -32021, `${name}: ${error}`)
  assert.ok(error.data?.requiredCapabilities?.[capability], `${name}: ${JSON.stringify(error.data)}`)
}
if (extra.has('no_capability')) {
  const bare = newClient({})
  await bare.connect(new StreamableHTTPClientTransport(new URL(url)))
  await refused(bare, 'get_weather', { location: 'Paris' }, 'elicitation')
  await bare.close()
}
if (extra.has('form_only')) {
  const formOnly = newClient({ elicitation: { form: {} } })
  await formOnly.connect(new StreamableHTTPClientTransport(new URL(url)))
  await refused(formOnly, 'summarize', { text: 'a long text' }, 'sampling')
  assert.equal(text(await formOnly.callTool({ name: 'get_weather', arguments: { location: 'Paris' } })), 'Paris: 22 degrees celsius')
  await formOnly.close()
}
