// Quickstart: an MCP server with one await-style tool, over node:http.
//
// `greet` asks the user's name with `await ctx.elicit(...)`. The first request
// is answered `input_required`; the client's retry carries the answer,
// `runTool` replays the tool from the top, the ask resolves to it, and the
// tool completes. The server keeps nothing between the two requests: the round
// is sealed into `requestState`, so any instance holding the same key could
// answer the retry.
//
//   node server.mjs 3000          (POST JSON-RPC to http://127.0.0.1:3000/mcp)
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { KeyRing, SealedRounds, MrtrError, runTool, checkRequest, complete, discover, errorResponse } from 'mrtr'

const PROTOCOL = '2026-07-28'
// The sealing key: 32 random bytes, the same on every instance (from your secrets store).
const ring = new KeyRing({ id: 1, algorithm: 'xaes-256-gcm', secret: randomBytes(32) })
const rounds = new SealedRounds({ ring, ttl: 300 })
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
const TOOLS = [{ name: 'greet', description: 'Greets you by name', inputSchema: { type: 'object' } }]

async function greet(args, ctx) {
  const answer = await ctx.elicit('What is your name?', NAME) // the first round ends here: input_required
  const name = answer.action === 'accept' ? answer.content.name : 'stranger'
  return { content: [{ type: 'text', text: `Hello, ${name}!` }] }
}

/** One JSON-RPC request and its HTTP header fields in; the HTTP status and the response out. */
async function handle(request, headers) {
  try {
    checkRequest(request, [PROTOCOL], { headers }) // _meta, header fields, version
    const { method, params = {} } = request
    if (method === 'tools/call' && params.name === 'greet') {
      // No authentication here, so the sealed rounds belong to nobody, by explicit choice.
      return [200, await runTool(greet, request, { rounds, anonymous: true, now: Math.floor(Date.now() / 1000) })]
    }
    if (method === 'tools/list') return [200, complete(request, { tools: TOOLS })]
    if (method === 'server/discover') { // what `mrtr bridge` asks first
      const info = { name: 'quickstart', version: '1.0.0' }
      return [200, discover(request, { capabilities: { tools: {} }, serverInfo: info })]
    }
    return [404, { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: `no ${method} ${params.name ?? ''} here` } }]
  } catch (e) {
    if (!(e instanceof MrtrError)) throw e
    const { response, status } = errorResponse(request.id, e) // a refusal: the error response and its HTTP status
    return [status, response]
  }
}

const server = createServer(async (req, res) => {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  const request = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  if (req.method !== 'POST' || request.id === undefined || request.method === undefined) return res.writeHead(202).end() // a notification
  const [status, response] = await handle(request, req.headers)
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(response))
})
server.listen(Number(process.argv[2] ?? 3000), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}/mcp`))
