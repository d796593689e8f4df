// An Operation driven by runOperation over fetch against a node:http server on 127.0.0.1: the
// rounds, the retries' ids and header fields, and each way it ends (a response, a failure with its
// rule, an answer the host could not give). Node only: the wasm package has no Operation yet.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { once } from 'node:events'
import net from 'node:net'
import { McpClient, Operation, ResponseError, RetryError, Session, TransportError, UsageError, runOperation } from '../index.mjs'

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
}
const ASK = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Units?', requestedSchema: { type: 'object', properties: { units: { type: 'string', enum: ['C', 'F'] } }, required: ['units'] } },
}

/** A server answering each POST with `reply(message, seen)`; `seen` holds every request's body and MCP header fields. */
async function serve(t, reply) {
  const seen = []
  const server = http.createServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    const message = JSON.parse(body)
    seen.push({ message, method: req.headers['mcp-method'], name: req.headers['mcp-name'], version: req.headers['mcp-protocol-version'] })
    const [status, answer] = await reply(message, seen)
    if (res.destroyed) return
    res.writeHead(status, { 'content-type': typeof answer === 'string' ? 'text/plain' : 'application/json' })
    res.end(typeof answer === 'string' ? answer : JSON.stringify(answer))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => server.close())
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, seen }
}

const call = (id = 7) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'weather', _meta: META } })

/** Asks for the units twice (two rounds), then answers with them. */
function weather(message) {
  const { id, params } = message
  if (params.requestState === undefined) return [200, { jsonrpc: '2.0', id, result: { resultType: 'input_required', inputRequests: { units: ASK }, requestState: 'r1' } }]
  if (params.requestState === 'r1') return [200, { jsonrpc: '2.0', id, result: { resultType: 'input_required', inputRequests: { again: ASK }, requestState: 'r2' } }]
  const units = params.inputResponses.again.content.units
  return [200, { jsonrpc: '2.0', id, result: { resultType: 'complete', content: [{ type: 'text', text: `21 ${units}` }], isError: false } }]
}

test('a round a hung server holds is hedged: the copy answers, the hung exchange is cut', async (t) => {
  // Issue 26: the second round's first copy reaches a server that hangs; a copy goes after 100 ms.
  let release
  const hung = new Promise((resolve) => (release = resolve))
  t.after(() => release())
  const replied = []
  const { url, seen } = await serve(t, async (message) => {
    if (message.id === '7.1') await hung
    replied.push(message.id)
    return weather(message)
  })
  const operation = new Operation({ mode: '2026-07-28', url, hedgeAfterMs: 100 }, call(), Math.floor(performance.now()))
  const response = await runOperation(operation, { onInput: async () => ({ action: 'accept', content: { units: 'C' } }) })
  assert.ok(!replied.includes('7.1'), 'the call waited for the hung copy')
  assert.equal(response.result.content[0].text, '21 C')
  assert.deepEqual(seen.map((s) => s.message.id), [7, '7.1', '7.2', '7.3'])
  assert.ok(operation.drained, 'the hung exchange was cut and ended')
})

test('two rounds over fetch: each retry under a new id, with the header fields and the exact requestState', async (t) => {
  const { url, seen } = await serve(t, weather)
  const events = []
  const asked = []
  const response = await runOperation(new Operation({ mode: '2026-07-28', url }, call(), 0), {
    onInput: async (question, key) => {
      asked.push([key, question.method])
      return { action: 'accept', content: { units: 'C' } }
    },
    onEvent: (e) => events.push(e.type),
  })
  assert.equal(response.result.content[0].text, '21 C')
  assert.deepEqual(asked, [['units', 'elicitation/create'], ['again', 'elicitation/create']])
  assert.deepEqual(events, ['inputRequired', 'inputRequired'])
  assert.deepEqual(seen.map((s) => s.message.id), [7, '7.1', '7.2'])
  assert.deepEqual(seen.map((s) => s.message.params.requestState), [undefined, 'r1', 'r2'])
  for (const s of seen) assert.deepEqual([s.method, s.name, s.version], ['tools/call', 'weather', '2026-07-28'])
})

test('a round no server took (503) is sent again, then fails with its rule', async (t) => {
  const { url, seen } = await serve(t, () => [503, 'unavailable'])
  const operation = new Operation({ mode: '2026-07-28', url, maxResends: 1 }, call(), 0)
  await assert.rejects(runOperation(operation, { onInput: () => assert.fail('nothing is asked') }), (e) => {
    assert.ok(e instanceof TransportError)
    assert.equal(e.rule, 'http-status-unexpected')
    return true
  })
  assert.deepEqual(seen.map((s) => s.message.id), [7, '7.1'])
  assert.ok(operation.drained)
})

test('a first request that may have run (502) is not sent again unless the host calls it idempotent', async (t) => {
  // Issue 43: a 502 gateway may have reached a server that acted on the request; nothing on a first
  // request tells a copy apart.
  const { url, seen } = await serve(t, () => [502, 'bad gateway'])
  await assert.rejects(runOperation(new Operation({ mode: '2026-07-28', url }, call(), 0), { onInput: () => assert.fail('nothing is asked') }), TransportError)
  assert.deepEqual(seen.map((s) => s.message.id), [7])
  await assert.rejects(
    runOperation(new Operation({ mode: '2026-07-28', url, idempotent: true, maxResends: 1 }, call(), 0), { onInput: () => assert.fail('nothing is asked') }),
    TransportError
  )
  assert.deepEqual(seen.map((s) => s.message.id), [7, 7, '7.1'])
})

test('an answer that does not fit its question rejects with the rule, and nothing is sent', async (t) => {
  const { url, seen } = await serve(t, weather)
  const operation = new Operation({ mode: '2026-07-28', url }, call(), 0)
  await assert.rejects(runOperation(operation, { onInput: () => ({ action: 'accept', content: { units: 'K' } }) }), (e) => {
    assert.ok(e instanceof RetryError, `${e.name}: ${e.message}`)
    return true
  })
  assert.equal(seen.length, 1)
})

test('what onInput throws is what runOperation rejects with', async (t) => {
  const { url } = await serve(t, weather)
  const operation = new Operation({ mode: '2026-07-28', url }, call(), 0)
  const cancelled = new Error('the user closed the dialog')
  await assert.rejects(runOperation(operation, { onInput: () => Promise.reject(cancelled) }), (e) => e === cancelled)
})

test('McpClient: one line a call; the session writes each request, _meta from what the client declared once', async (t) => {
  const { url, seen } = await serve(t, weather)
  const client = new McpClient(url, { capabilities: { elicitation: {} }, clientInfo: { name: 'weather-app', version: '2.0.0' }, firstId: 40 })
  const result = await client.callTool('weather', { city: 'Paris' }, { onInput: () => ({ action: 'accept', content: { units: 'F' } }) })
  assert.equal(result.content[0].text, '21 F')
  assert.deepEqual(seen.map((s) => s.message.id), [40, '40.1', '40.2'])
  for (const { message, method, name, version } of seen) {
    assert.deepEqual([method, name, version], ['tools/call', 'weather', '2026-07-28'])
    assert.deepEqual(message.params.arguments, { city: 'Paris' })
    assert.deepEqual(message.params._meta['io.modelcontextprotocol/clientCapabilities'], { elicitation: {} })
    assert.equal(message.params._meta['io.modelcontextprotocol/clientInfo'].name, 'weather-app')
  }
  // The next call takes the next id.
  await client.callTool('weather', null, { onInput: () => ({ action: 'accept', content: { units: 'C' } }) })
  assert.equal(seen[3].message.id, 41)
})

test('McpClient: an error response rejects with ResponseError; a question with no onInput rejects, nothing answered', async (t) => {
  const { url, seen } = await serve(t, (m) =>
    m.params.name === 'broken' ? [200, { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'no such tool', data: { name: 'broken' } } }] : weather(m),
  )
  const client = new McpClient(url, { capabilities: { elicitation: {} } })
  await assert.rejects(client.callTool('broken'), (e) => e instanceof ResponseError && e.code === -32602 && e.data.name === 'broken')
  await assert.rejects(client.callTool('weather'), (e) => e instanceof UsageError && /no onInput/.test(e.message))
  assert.deepEqual(seen.map((s) => s.message.id), [1, 2])
})

test('McpClient: a refused connection says the connection failed, not a status', async () => {
  const free = net.createServer()
  await new Promise((resolve) => free.listen(0, '127.0.0.1', resolve))
  const { port } = free.address()
  await new Promise((resolve) => free.close(resolve)) // nothing listens there now
  const client = new McpClient(`http://127.0.0.1:${port}/mcp`, { capabilities: {} })
  await assert.rejects(
    client.callTool('weather'),
    (e) => e instanceof TransportError && e.rule === 'http-status-unexpected' && /the connection failed or was closed/.test(e.message),
  )
})

test('Session: requests without a transport, and its misuse', () => {
  const legacy = new Session({ protocol: '2025-11-25', capabilities: { elicitation: {} } })
  assert.deepEqual(legacy.readResource('notes://today'), { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'notes://today' } })
  const s = new Session()
  assert.equal(s.getPrompt('p', { a: 'b' }).params._meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28')
  assert.throws(() => new Session({ capabilities: [] }), UsageError)
  assert.throws(() => new Session({ colour: 'red' }), UsageError)
  assert.throws(() => s.request('tools/call', { _meta: { 'io.modelcontextprotocol/protocolVersion': 'x' } }), UsageError)
})

test('Operation.snapshot / restore: a host stops at a question; another goes on, ids and requestState carried', async (t) => {
  const { url, seen } = await serve(t, weather)
  const config = { mode: '2026-07-28', url }
  const first = new Operation(config, call(), 0)
  const stop = new Error('the host stops here')
  let snapshot = null
  await assert.rejects(
    runOperation(first, {
      onInput: () => {
        snapshot = JSON.stringify(first.snapshot(0))
        throw stop
      },
    }),
    (e) => e === stop,
  )
  const again = Operation.restore(config, snapshot, 1000)
  const response = await runOperation(again, { onInput: () => ({ action: 'accept', content: { units: 'C' } }) })
  assert.equal(response.result.content[0].text, '21 C')
  assert.deepEqual(seen.map((s) => s.message.id), [7, '7.1', '7.2'])
  assert.deepEqual(seen.map((s) => s.message.params.requestState), [undefined, 'r1', 'r2'])
  assert.throws(() => again.snapshot(2000), (e) => e instanceof UsageError && e.rule === 'usage-out-of-turn')
  assert.throws(() => Operation.restore({ mode: 'sep-1858', url }, snapshot, 0), UsageError)
})

test('McpClient in 2025-11-25: initialize first, then the agreed version and the session id on every request', async (t) => {
  const seen = []
  const server = http.createServer(async (req, res) => {
    let body = ''
    for await (const chunk of req) body += chunk
    const message = JSON.parse(body)
    seen.push({ method: message.method, id: message.id, version: req.headers['mcp-protocol-version'], session: req.headers['mcp-session-id'] })
    if (message.method === 'notifications/initialized') return res.writeHead(202).end()
    const result =
      message.method === 'initialize'
        ? { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'legacy', version: '1' } }
        : { content: [{ type: 'text', text: `hello ${message.params.arguments.who}` }], isError: false }
    const headers = { 'content-type': 'application/json', ...(message.method === 'initialize' ? { 'mcp-session-id': 's-42' } : {}) }
    res.writeHead(200, headers).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => server.close())
  const client = new McpClient(`http://127.0.0.1:${server.address().port}/mcp`, { mode: '2025-11-25', capabilities: { elicitation: {} } })
  const results = await Promise.all([client.callTool('greet', { who: 'Ada' }), client.callTool('greet', { who: 'Bob' })])
  assert.deepEqual(results.map((r) => r.content[0].text).sort(), ['hello Ada', 'hello Bob'])
  assert.deepEqual(seen.slice(0, 2).map((s) => s.method), ['initialize', 'notifications/initialized'], 'one handshake for both calls')
  assert.equal(seen[0].session, undefined)
  for (const s of seen.slice(1)) assert.deepEqual([s.version, s.session], ['2025-11-25', 's-42'], s.method)
  assert.deepEqual(seen.slice(2).map((s) => s.id).sort(), [2, 3])
  assert.equal(seen.length, 4)
})

test('McpClient.listTools follows nextCursor page by page, each page a request of the session', async (t) => {
  const { url, seen } = await serve(t, (m) => {
    const page = m.params?.cursor === 'p2' ? { tools: [{ name: 'c' }] } : { tools: [{ name: 'a' }, { name: 'b' }], nextCursor: 'p2' }
    return [200, { jsonrpc: '2.0', id: m.id, result: { ...page, resultType: 'complete' } }]
  })
  const client = new McpClient(url, { capabilities: {} })
  assert.deepEqual((await client.listTools()).map((tool) => tool.name), ['a', 'b', 'c'])
  assert.deepEqual(seen.map((s) => [s.message.id, s.message.method, s.message.params.cursor]), [[1, 'tools/list', undefined], [2, 'tools/list', 'p2']])
  assert.equal(seen[0].message.params._meta['io.modelcontextprotocol/protocolVersion'], '2026-07-28')
})

test('McpClient hedges a first call only of a tool the server calls read-only in tools/list', async (t) => {
  // Issue 43: a first request is hedged only where it is harmless twice; the session remembers the
  // server's readOnlyHint/idempotentHint annotations.
  const ran = []
  const { url } = await serve(t, async (m) => {
    if (m.method === 'tools/list') {
      const tools = [{ name: 'weather', annotations: { readOnlyHint: true } }, { name: 'pay' }]
      return [200, { jsonrpc: '2.0', id: m.id, result: { tools, resultType: 'complete' } }]
    }
    ran.push(m.params.name)
    await new Promise((resolve) => setTimeout(resolve, 300))
    return [200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', content: [{ type: 'text', text: m.params.name }] } }]
  })
  const client = new McpClient(url, { capabilities: {}, hedgeAfterMs: 100 })
  await client.listTools()
  await client.callTool('pay', { to: 'bob' })
  await client.callTool('weather', { city: 'Oslo' })
  assert.equal(ran.filter((n) => n === 'pay').length, 1, ran.join())
  assert.ok(ran.filter((n) => n === 'weather').length >= 2, `the read-only tool's first request was hedged: ${ran}`)
})
