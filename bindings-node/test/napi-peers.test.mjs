// Real peers: the official TypeScript SDK. v2 (@modelcontextprotocol/client and
// /server 2.4.0) implements 2026-07-28 MRTR; v1 (@modelcontextprotocol/sdk
// 1.32.2) has no MRTR types. What mrtr builds, the SDK accepts (its wire codec
// and schemas, and the official JSON schema via ajv); what the SDK emits, mrtr
// parses and checks as compliant.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { McpServer, inputRequired, acceptedContent, createMcpHandler } from '@modelcontextprotocol/server'
import { Client as SdkClient, StreamableHTTPClientTransport, specTypeSchemas, withInputRequired, isInputRequiredResult } from '@modelcontextprotocol/client'
import * as v1 from '@modelcontextprotocol/sdk/types.js'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import * as mrtr from '../index.mjs'

const require = createRequire(import.meta.url)
const schema = require('../../spec/schema/mcp-2026-07-28.schema.json')
const VERSION = '2026-07-28'

const ask = {
  login: {
    method: 'elicitation/create',
    params: { message: 'GitHub user?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  },
}

/** The SDK's own server: asks for the login, completes on the retry. */
function sdkServer() {
  const server = new McpServer({ name: 'sdk-server', version: '1.0.0' })
  server.registerTool('get_weather', { description: 'weather' }, async (ctx) => {
    const login = acceptedContent(ctx.mcpReq.inputResponses, 'login')
    if (!login) return inputRequired({ inputRequests: { login: inputRequired.elicit(ask.login.params) }, requestState: 'round-1' })
    return { content: [{ type: 'text', text: `hi ${login.name}` }] }
  })
  return server
}

/** A fetch that records every JSON-RPC message, as `check` entries, and hands the request to `handle`. */
function recording(handle) {
  const wire = []
  const fetch = async (url, init) => {
    const sent = JSON.parse(init.body)
    wire.push({ from: 'client', message: sent })
    const res = await handle(new Request(url, init))
    const text = await res.clone().text()
    if (text) wire.push({ from: 'server', message: JSON.parse(text), stream: `post:${sent.id}` })
    return res
  }
  return { wire, fetch }
}

/** The SDK's client, speaking 2026-07-28, answering elicitations as octocat. */
async function sdkClient(fetch) {
  const client = new SdkClient({ name: 'sdk-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: VERSION } } })
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'octocat' } }))
  await client.connect(new StreamableHTTPClientTransport(new URL('http://127.0.0.1:1/mcp'), { fetch }))
  return client
}

test('SDK client and SDK server: mrtr parses every message, checks the conversation compliant, and builds the same retry', async () => {
  const handler = createMcpHandler(sdkServer)
  const { wire, fetch } = recording((req) => handler.fetch(req))
  const client = await sdkClient(fetch)
  const result = await client.callTool({ name: 'get_weather', arguments: {} })
  await client.close()
  await handler.close()
  assert.deepEqual(result.content, [{ type: 'text', text: 'hi octocat' }])

  for (const { message } of wire) mrtr.classify(message) // throws on anything invalid
  assert.deepEqual(mrtr.check(wire, { protocol: VERSION }), [])
  const calls = wire.filter((e) => e.message.method === 'tools/call').map((e) => e.message)
  const answered = wire.find((e) => e.from === 'server' && e.message.result?.resultType === 'input_required').message
  assert.equal(calls.length, 2)
  assert.equal(mrtr.classify(answered).kind, 'input_required')
  // mrtr's retry of the first call is the SDK's retry, exactly.
  const responses = calls[1].params.inputResponses
  assert.deepEqual(mrtr.retry(calls[0], answered, responses, calls[1].id), calls[1])
  // And mrtr's server reading of the SDK's retry.
  const got = mrtr.resume(calls[1], answered.result.inputRequests)
  assert.deepEqual(got, { responses, missing: [], ignored: [], requestState: 'round-1' })
})

test('mrtr server, SDK client: the SDK accepts mrtr\'s input_required and its retry completes', async () => {
  // A stateless tool server written with mrtr only (plus a static discover answer).
  const handle = async (req) => {
    const request = await req.json()
    const reply = (message) => new Response(JSON.stringify(message), { headers: { 'content-type': 'application/json' } })
    if (request.method === 'server/discover') {
      return reply({ jsonrpc: '2.0', id: request.id, result: { resultType: 'complete', supportedVersions: [VERSION], capabilities: { tools: {} }, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mrtr', version: '0.1.0' } } } })
    }
    const r = mrtr.resume(request, ask)
    if (r.missing.length) return reply(mrtr.respond(request, ask, 'mrtr-state'))
    assert.equal(r.requestState, 'mrtr-state')
    return reply({ jsonrpc: '2.0', id: request.id, result: { resultType: 'complete', content: [{ type: 'text', text: `hi ${r.responses.login.content.name}` }] } })
  }
  const { wire, fetch } = recording(handle)
  const client = await sdkClient(fetch)
  const result = await client.callTool({ name: 'get_weather', arguments: { location: 'NYC' } })
  await client.close()
  assert.deepEqual(result.content, [{ type: 'text', text: 'hi octocat' }])
  assert.equal(wire.filter((e) => e.message.method === 'tools/call').length, 2)
  assert.deepEqual(mrtr.check(wire, { protocol: VERSION }), [])
})

test('mrtr Client, SDK server: the SDK server accepts mrtr\'s retry', async () => {
  const handler = createMcpHandler(sdkServer)
  const post = async (message) => {
    const res = await handler.fetch(new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': VERSION,
        'mcp-method': message.method,
        'mcp-name': message.params.name,
      },
      body: JSON.stringify(message),
    }))
    return res.text()
  }
  const meta = { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }
  const client = new mrtr.Client({ protocol: VERSION })
  const h = client.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: {}, _meta: meta } })
  let done = null
  for (let id = 2; !done && id < 6; id++) {
    for (const m of client.transmits()) client.handleResponse(await post(m)) // raw text into the core's byte path
    for (const e of client.events()) {
      if (e.type === 'inputRequired') client.answer(e.handle, { login: { action: 'accept', content: { name: 'octocat' } } }, id)
      if (e.type === 'done') done = e
    }
  }
  await handler.close()
  assert.equal(done.handle, h)
  assert.deepEqual(done.response.result.content, [{ type: 'text', text: 'hi octocat' }])
})

test('the SDK v2 schemas accept what mrtr builds', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: {}, _meta: meta } }
  const answer = mrtr.respond(call, ask, 's1')
  assert.ok(isInputRequiredResult(answer.result))
  const validated = withInputRequired(specTypeSchemas.CallToolResult)['~standard'].validate(answer.result)
  assert.equal(validated.issues, undefined)
  const retry = mrtr.retry(call, answer, { login: { action: 'accept', content: { name: 'octocat' } } }, 2)
  for (const name of ['JSONRPCRequest', 'CallToolRequest', 'JSONRPCMessage']) {
    assert.equal(specTypeSchemas[name]['~standard'].validate(retry).issues, undefined, name)
  }
  assert.equal(specTypeSchemas.JSONRPCResultResponse['~standard'].validate(answer).issues, undefined)
})

test('the official 2026-07-28 JSON schema (ajv) accepts what mrtr builds', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/)
  ajv.addSchema(schema, 'mcp')
  const valid = (def, value) => {
    const v = ajv.getSchema(`mcp#/$defs/${def}`)
    assert.ok(v(value), `${def}: ${JSON.stringify(v.errors)}`)
  }
  const meta = { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, roots: {}, sampling: {} } }
  const requests = [
    ['CallToolRequest', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: { a: 1 }, _meta: meta } }],
    ['GetPromptRequest', { jsonrpc: '2.0', id: 'p', method: 'prompts/get', params: { name: 'p', _meta: meta } }],
    ['ReadResourceRequest', { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'file:///x', _meta: meta } }],
  ]
  const asks = {
    ...ask,
    roots: { method: 'roots/list', params: {} },
    llm: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 } },
  }
  const answers = {
    login: { action: 'accept', content: { name: 'octocat' } },
    roots: { roots: [{ uri: 'file:///home' }] },
    llm: { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' },
  }
  for (const [def, request] of requests) {
    valid(def, request)
    const answer = mrtr.respond(request, asks, 'state')
    valid('InputRequiredResult', answer.result)
    valid('JSONRPCResultResponse', answer)
    valid('JSONRPCMessage', answer)
    const retry = mrtr.retry(request, answer, answers, 99)
    valid(def, retry)
    valid('JSONRPCMessage', retry)
    const shed = mrtr.respond(request, null, 'busy')
    valid('InputRequiredResult', shed.result)
  }
})

test('the SDK v1 has no MRTR types: it reads input_required as an empty success and drops inputResponses (mrtr does not)', () => {
  assert.equal(Object.keys(v1).filter((k) => /InputRequired|InputRequests|InputResponses/.test(k)).length, 0)
  const result = { resultType: 'input_required', inputRequests: ask, requestState: 's' }
  const read = v1.CallToolResultSchema.safeParse(result)
  assert.ok(read.success)
  assert.deepEqual(read.data.content, []) // an "empty success"
  assert.equal(mrtr.classify({ jsonrpc: '2.0', id: 1, result }).kind, 'input_required')
  const retry = { method: 'tools/call', params: { name: 't', arguments: {}, inputResponses: { login: { action: 'accept' } }, requestState: 's' } }
  const parsed = v1.CallToolRequestSchema.parse(retry)
  assert.equal(parsed.params.inputResponses, undefined)
  assert.equal(parsed.params.requestState, undefined)
})
