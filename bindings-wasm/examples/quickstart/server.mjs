// Quickstart (browser): the page (index.html), the wasm package's files it
// imports (/pkg/lib/…) and an MCP server at /mcp, from one Node process on the
// same package (mrtr-wasm: the Node package's API over WebAssembly). The tool
// `greet` asks the user's name with `await ctx.elicit(...)`; the page answers.
//
//   node server.mjs 8080          (open http://127.0.0.1:8080/)
import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { KeyRing, SealedRounds, MrtrError, runTool, checkRequest, errorResponse } from 'mrtr-wasm'

const ring = new KeyRing({ id: 1, algorithm: 'xaes-256-gcm', secret: randomBytes(32) }) // the same on every instance
const rounds = new SealedRounds({ ring, ttl: 300 })
const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }

async function greet(args, ctx) {
  const answer = await ctx.elicit('What is your name?', NAME) // the first round ends here: input_required
  return { content: [{ type: 'text', text: `Hello, ${answer.action === 'accept' ? answer.content.name : 'stranger'}!` }] }
}

async function mcp(request, headers) {
  try {
    checkRequest(request, ['2026-07-28'], { headers })
    if (request.method !== 'tools/call' || request.params?.name !== 'greet') {
      return [404, { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'only tools/call greet here' } }]
    }
    return [200, await runTool(greet, request, { rounds, anonymous: true, now: Math.floor(Date.now() / 1000) })]
  } catch (e) {
    if (!(e instanceof MrtrError)) throw e
    const { response, status } = errorResponse(request.id, e)
    return [status, response]
  }
}

const FILES = { '/': 'index.html', '/pkg/lib/': '../../pkg/lib/' } // the page, and the package's files beside it
const TYPES = { html: 'text/html', mjs: 'text/javascript', js: 'text/javascript', wasm: 'application/wasm' }

const server = createServer(async (req, res) => {
  const path = new URL(req.url, 'http://x').pathname
  if (path === '/mcp' && req.method === 'POST') {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const [status, response] = await mcp(JSON.parse(Buffer.concat(chunks).toString('utf8')), req.headers)
    return res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(response))
  }
  const file = path === '/' ? FILES['/'] : path.startsWith('/pkg/lib/') && /^[\w.]+$/.test(path.slice(9)) ? FILES['/pkg/lib/'] + path.slice(9) : null
  const text = file && (await readFile(new URL(file, import.meta.url)).catch(() => null))
  if (!text) return res.writeHead(404).end()
  res.writeHead(200, { 'content-type': TYPES[file.split('.').pop()] ?? 'application/octet-stream' }).end(text)
})
server.listen(Number(process.argv[2] ?? 8080), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}/`))
