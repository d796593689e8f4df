// An MCP server on the official TypeScript SDK (@modelcontextprotocol/server, installed in
// bindings-node/node_modules), written the way its documentation shows: a handler answers
// `inputRequired({...})` and reads the retry's `ctx.mcpReq.inputResponses` and `requestState()`
// (`reserve` answers with a requestState alone, `sign_in` asks with `inputRequired.elicitUrl`); the
// SDK refuses an ask the request's capabilities do not cover with -32021.
// Served with `createMcpHandler` (2026-07-28; its 2025-era serving is stateless per request, so it
// cannot route a 2025-11-25 client's answer back to a parked call) over node:http.
//
//   node peers/ts_server.mjs PORT
import http from 'node:http'
import { Readable } from 'node:stream'
import { createRequire } from 'node:module'

const require = createRequire(new URL('../bindings-node/package.json', import.meta.url))
const { McpServer, createMcpHandler, inputRequired, acceptedContent, inputResponse, fromJsonSchema } = require('@modelcontextprotocol/server')

const form = (key, message) => inputRequired.elicit({
  message, requestedSchema: { type: 'object', properties: { [key]: { type: 'string' } }, required: [key] },
})
const text = (t) => ({ content: [{ type: 'text', text: t }] })
/** An input schema of string arguments. */
const strings = (...names) => fromJsonSchema({ type: 'object', properties: Object.fromEntries(names.map((n) => [n, { type: 'string' }])) })

function server() {
  const app = new McpServer({ name: 'ts-peer', version: '1.0.0' })
  app.registerTool('get_weather', { description: 'one round', inputSchema: strings('location') }, async (args, ctx) => {
    const units = acceptedContent(ctx.mcpReq.inputResponses, 'units')
    if (!units) return inputRequired({ inputRequests: { units: form('units', 'Which units?') } })
    return text(`${args.location}: 22 degrees ${units.units}`)
  })
  app.registerTool('book_trip', { description: 'two rounds', inputSchema: strings('destination') }, async (args, ctx) => {
    const state = ctx.mcpReq.requestState?.()
    const date = acceptedContent(ctx.mcpReq.inputResponses, 'date')?.date ?? (state ? JSON.parse(state).date : undefined)
    if (!date) return inputRequired({ inputRequests: { date: form('date', 'When?') } })
    const seat = acceptedContent(ctx.mcpReq.inputResponses, 'seat')
    if (!seat) return inputRequired({ inputRequests: { seat: form('seat', `Which seat on ${date}?`) }, requestState: JSON.stringify({ date }) })
    return text(`${args.destination} on ${date}, seat ${seat.seat}`)
  })
  app.registerTool('summarize', { description: 'sampling', inputSchema: strings('text') }, async (args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'summary')
    if (answer.kind !== 'sampling') {
      return inputRequired({ inputRequests: { summary: inputRequired.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: `Summarise: ${args.text}` } }], maxTokens: 50,
      }) } })
    }
    return text(`summary: ${answer.result.content.text}`)
  })
  app.registerTool('list_roots', { description: 'roots', inputSchema: strings() }, async (args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'roots')
    if (answer.kind !== 'roots') return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } })
    return text(answer.roots.map((r) => r.uri).join(', '))
  })
  app.registerTool('reserve', { description: 'load shedding: a round with state only', inputSchema: strings('table') }, async (args, ctx) => {
    const held = `table ${args.table} held`
    const state = ctx.mcpReq.requestState?.()
    // What this instance did so far, and no questions: any instance picks it up from the state.
    if (state === undefined) return inputRequired({ requestState: held })
    if (state !== held) throw new Error('not the state of this reservation') // it comes back through the client
    return text(`table ${args.table} reserved`)
  })
  app.registerTool('sign_in', { description: 'URL elicitation', inputSchema: strings() }, async (args, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'sign_in')
    if (answer.kind !== 'elicit') {
      return inputRequired({ inputRequests: { sign_in: inputRequired.elicitUrl({ message: 'Sign in', url: 'https://example.com/sign-in' }) } })
    }
    return text(answer.action === 'accept' ? 'signed in' : `not signed in: ${answer.action}`)
  })
  app.registerPrompt('review', { description: 'asks first', argsSchema: strings('pr') }, async (args, ctx) => {
    const focus = acceptedContent(ctx.mcpReq.inputResponses, 'focus')
    if (!focus) return inputRequired({ inputRequests: { focus: form('focus', `Focus of the review of ${args.pr}?`) } })
    return { messages: [{ role: 'user', content: { type: 'text', text: `Review ${args.pr}: ${focus.focus}` } }] }
  })
  app.registerResource('notes', 'notes://today', {}, async (uri, ctx) => {
    const topic = acceptedContent(ctx.mcpReq.inputResponses, 'topic')
    if (!topic) return inputRequired({ inputRequests: { topic: form('topic', 'Notes on which topic?') } })
    return { contents: [{ uri: uri.href, text: `notes on ${topic.topic}` }] }
  })
  return app
}

const handler = createMcpHandler(server)
const port = Number(process.argv[2])
http.createServer(async (req, res) => {
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Readable.toWeb(req)
  const request = new Request(`http://127.0.0.1:${port}${req.url}`, { method: req.method, headers: req.headers, body, duplex: 'half' })
  const response = await handler.fetch(request)
  res.writeHead(response.status, Object.fromEntries(response.headers))
  if (response.body) for await (const chunk of response.body) res.write(chunk)
  res.end()
}).listen(port, '127.0.0.1')
