// A small stateless MCP tool server over node:http: `tools/call get_weather`
// answers `input_required` (an elicitation for the units) until the retry
// carries the answer, then completes. Any instance can serve any round:
// everything it needs travels in the retry, the answers of earlier rounds in
// a sealed `requestState` (SealedRounds: bound to the caller and the request,
// expiring, single-use), which the tool never handles itself.
//
//   node examples/server.mjs [--port N]     (N = 0: a free port; prints the URL)
//
// MRTR_STATE_KEY: the sealing key, 64 hex digits from the deployment's
// secrets store, the same on every instance; without it, 32 fresh random
// bytes (one instance: its tokens die with the process).
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { KeyRing, SealedRounds, MrtrError } from 'mrtr'

// XAES-256-GCM: 192-bit random nonces, no practical seal budget for a
// fleet (AES-256-GCM's is 2^32 seals per key, fleet-wide). The context labels
// this deployment: a staging server sharing the key never opens its tokens.
const secret = process.env.MRTR_STATE_KEY ?? randomBytes(32)
const ring = new KeyRing({ id: 1, algorithm: 'xaes-256-gcm', secret }, { context: 'weather-example' })
const rounds = new SealedRounds({ ring, ttl: 300 })

/**
 * Single use: each state opens once, so a replayed round is refused
 * (`state-replayed`), never run again. One process's memory here; a fleet
 * shares the store (Redis: `SET id 1 NX EXAT expiry`, one call).
 */
const used = new Map()
function guard(stateId, expiry) {
  const now = Math.floor(Date.now() / 1000)
  for (const [id, until] of used) if (until <= now) used.delete(id) // expired states no longer open anyway
  if (used.has(stateId)) return false
  used.set(stateId, expiry)
  return true
}

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

/** One JSON-RPC request in, one response out; `now`: seconds since the epoch. */
export function handle(request, now = Math.floor(Date.now() / 1000)) {
  if (request.method !== 'tools/call' || request.params?.name !== 'get_weather') {
    return error(request.id, -32601, 'only tools/call get_weather here')
  }
  // Whom the state belongs to. This demo has no authentication, so it binds
  // to nobody, explicitly (and its state holds nothing user-specific); a real
  // server names the authenticated principal: { subject: auth.sub, now, guard }.
  const who = { anonymous: true, now, guard }
  try {
    const round = rounds.resume(request, NEEDS, who) // this request's answers + the sealed earlier ones, checked against NEEDS
    if (round.missing.length) return rounds.respond(request, round, NEEDS, null, who) // input_required, the state sealed
    const { action, content } = round.answers.units
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
