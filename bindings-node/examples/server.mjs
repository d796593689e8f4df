// A small stateless MCP tool server over node:http: `tools/call get_weather`
// answers `input_required` (an elicitation for the user's city and units)
// until the retry carries the answers, then completes. Any instance can serve
// any round: everything it needs travels in the retry.
//
//   node examples/server.mjs [--port N]     (N = 0: a free port; prints the URL)
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { respond, resume, MrtrError } from 'mrtr'

/** What get_weather needs from the user. */
const NEEDS = {
  units: {
    method: 'elicitation/create',
    params: {
      message: 'Celsius or Fahrenheit?',
      requestedSchema: { type: 'object', properties: { units: { type: 'string', enum: ['C', 'F'] } }, required: ['units'] },
    },
  },
}

const result = (id, text) => ({ jsonrpc: '2.0', id, result: { resultType: 'complete', content: [{ type: 'text', text }] } })
const error = (id, code, message) => ({ jsonrpc: '2.0', id: id ?? null, error: { code, message } })

/** One JSON-RPC request in, one response out. */
export function handle(request) {
  if (request.method !== 'tools/call' || request.params?.name !== 'get_weather') {
    return error(request.id, -32601, 'only tools/call get_weather here')
  }
  try {
    const round = resume(request, NEEDS) // what this request carries, checked against NEEDS
    if (round.missing.length) {
      const ask = Object.fromEntries(round.missing.map((k) => [k, NEEDS[k]]))
      return respond(request, ask, 'weather-v1') // input_required (and the state to echo)
    }
    const { action, content } = round.responses.units
    if (action !== 'accept') return result(request.id, 'No units, no weather.')
    const where = request.params.arguments?.location ?? 'somewhere'
    return result(request.id, content.units === 'C' ? `${where}: 21 °C, sunny` : `${where}: 70 °F, sunny`)
  } catch (e) {
    if (e instanceof MrtrError) return error(request.id, e.code ?? -32600, `${e.rule}: ${e.message}`)
    throw e
  }
}

/** The HTTP server: POST a JSON-RPC request, get its response. */
export function createWeatherServer() {
  return createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      let response
      try {
        response = handle(JSON.parse(Buffer.concat(chunks).toString('utf8')))
      } catch {
        response = error(null, -32700, 'Parse error')
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response))
    })
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--port')
  const port = i > 0 ? Number(process.argv[i + 1]) : 3000
  const server = createWeatherServer().listen(port, '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${server.address().port}/mcp`)
  })
  process.on('SIGTERM', () => server.close(() => process.exit(0)))
}
