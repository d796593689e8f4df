// A two-round tool over HTTP, side by side in one run (not a test): operations/s under node:http.
//
// One operation is a whole two-round `tools/call`: the call, answered `input_required` (one form
// elicitation and a sealed `requestState`), then the retry carrying the answer and the exact state,
// answered with the result. Each server runs in its own process (node:http, 127.0.0.1, an ephemeral port):
//
// - `floor`: a bare node:http handler answering the same two JSON bodies, prebuilt (the HTTP stack alone);
// - `mrtr`: the await-style tool (`await ctx.elicit(...)`) over sealed rounds (XAES-256-GCM, a replay
//   guard, anonymous principal) through `runToolText` (the body's bytes in, the response's JSON text out);
// - `mrtr object`: the same tool through `runTool` (an object back, written with `JSON.stringify`);
// - `sdk`: the official TypeScript SDK (`@modelcontextprotocol/server` 2.4), which has no await-style
//   asks: its closest equivalent, a handler that returns `inputRequired({inputRequests, requestState})`
//   and reads the retry's `acceptedContent(ctx.mcpReq.inputResponses, ...)`, its `requestState` minted
//   by `createRequestStateCodec` (HMAC-SHA-256, signed and not encrypted, no replay guard) and verified
//   by its `requestState.verify` hook; served by `createMcpHandler` (JSON responses) over node:http.
//
// The client is a closed loop of `--concurrency` keep-alive connections (node:net, in this process: one
// operation at a time on each); each round runs every server for `--seconds` in turn (interleaved, so
// that a busy machine slows them alike). It prints the best round's operations/s, p50 and p99 of one
// operation's latency, the server's CPU time per operation, and the ratios.
//
//   node bench/server.mjs [--seconds N] [--concurrency C] [--rounds R] [--only floor,mrtr,…]
//   MRTR_BENCH_PROFILE=DIR node bench/server.mjs …   (each server also writes a CPU profile to DIR)
//   (build the addon in release first: tools/build.sh)
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { connect } from 'node:net'
import { readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'

const PROTOCOL = '2026-07-28'
const META = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
}
const CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'get_weather', arguments: { location: 'New York' }, _meta: META },
}
const UNITS = {
  type: 'object',
  properties: { units: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
  required: ['units'],
}
const QUESTION = 'Which units should the forecast use?'
const ANSWER = { action: 'accept', content: { units: 'celsius' } }
const SERVERS = ['floor', 'mrtr', 'mrtr object', 'sdk']

const forecast = (location, units) => `${location}: ${units === 'celsius' ? 22 : 72} degrees ${units}, clear skies.`

// --- the servers (each in its own process: `server.mjs --serve KIND`) -------------------------------

/** Reads the request's body, then answers with `answer(body)`: `[status, JSON text]`. */
function endpoint(answer) {
  return createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', async () => {
      const [status, body] = await answer(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
      res.end(body)
    })
  })
}

function floorServer() {
  const state = 'v2.' + 'A'.repeat(300)
  const asks = { units: { method: 'elicitation/create', params: { mode: 'form', message: QUESTION, requestedSchema: UNITS } } }
  const first = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { resultType: 'input_required', inputRequests: asks, requestState: state } })
  const text = forecast('New York', 'celsius')
  const last = JSON.stringify({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text }], resultType: 'complete', ttlMs: 0 } })
  const marker = Buffer.from('"requestState"')
  return endpoint(async (body) => [200, body.includes(marker) ? last : first])
}

/** A replay guard for one process (first use wins), forgetting what expired once in a while. */
function guardOf() {
  let used = new Map()
  let swept = 0
  return (stateId, expiry) => {
    const now = Math.floor(Date.now() / 1000)
    if (now - swept >= 10) {
      used = new Map([...used].filter(([, e]) => e > now))
      swept = now
    }
    if (used.has(stateId)) return false
    used.set(stateId, expiry)
    return true
  }
}

async function mrtrServer(asObject) {
  const mrtr = await import('../index.mjs')
  const ring = new mrtr.KeyRing({ id: 1, algorithm: 'xaes-256-gcm', secret: randomBytes(32) }, { context: 'bench' })
  const rounds = new mrtr.SealedRounds({ ring, ttl: 300 })
  const guard = guardOf()
  async function getWeather(args, ctx) {
    const answer = await ctx.elicit(QUESTION, UNITS)
    if (answer.action !== 'accept') return { content: [{ type: 'text', text: 'No forecast: no units.' }], isError: true }
    return { content: [{ type: 'text', text: forecast(args.location ?? '?', answer.content.units) }], isError: false }
  }
  // Before runToolText (HEAD before issue #27's Node work): the object path, stringified.
  const text = !asObject && typeof mrtr.runToolText === 'function'
  return endpoint(async (body) => {
    const options = { rounds, anonymous: true, now: Math.floor(Date.now() / 1000), guard }
    try {
      if (text) return [200, await mrtr.runToolText(getWeather, body, options)]
      return [200, JSON.stringify(await mrtr.runTool(getWeather, body, options))]
    } catch (e) {
      if (!(e instanceof mrtr.MrtrError)) throw e
      const { response, status } = mrtr.errorResponse(null, e)
      return [status, JSON.stringify(response)]
    }
  })
}

async function sdkServer() {
  const sdk = await import('@modelcontextprotocol/server')
  const { McpServer, createMcpHandler, inputRequired, acceptedContent, fromJsonSchema, createRequestStateCodec } = sdk
  const codec = createRequestStateCodec({ key: randomBytes(32), ttlSeconds: 300 })
  const inputSchema = fromJsonSchema({ type: 'object', properties: { location: { type: 'string' } } })
  function server() {
    const app = new McpServer({ name: 'bench', version: '1.0.0' }, { requestState: { verify: codec.verify } })
    app.registerTool('get_weather', { description: 'two rounds', inputSchema }, async (args, ctx) => {
      const units = acceptedContent(ctx.mcpReq.inputResponses, 'units')
      if (!units) {
        const ask = inputRequired.elicit({ message: QUESTION, requestedSchema: UNITS })
        return inputRequired({ inputRequests: { units: ask }, requestState: await codec.mint({ step: 1 }) })
      }
      if (ctx.mcpReq.requestState()?.step !== 1) throw new Error('no state')
      return { content: [{ type: 'text', text: forecast(args.location ?? '?', units.units) }], isError: false }
    })
    return app
  }
  const handler = createMcpHandler(server, { responseMode: 'json' })
  const port = { value: 0 }
  const http = createServer(async (req, res) => {
    const chunks = []
    for await (const c of req) chunks.push(c)
    const request = new Request(`http://127.0.0.1:${port.value}${req.url}`, {
      method: req.method,
      headers: req.headers,
      body: Buffer.concat(chunks),
    })
    const response = await handler.fetch(request)
    const body = Buffer.from(await response.arrayBuffer())
    const headers = Object.fromEntries(response.headers)
    headers['content-length'] = body.length
    res.writeHead(response.status, headers).end(body)
  })
  http.on('listening', () => (port.value = http.address().port))
  return http
}

async function serve(kind) {
  const make = { floor: floorServer, mrtr: () => mrtrServer(false), 'mrtr object': () => mrtrServer(true), sdk: sdkServer }[kind]
  const server = await make()
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => console.log(`PORT ${server.address().port}`))
  process.on('SIGTERM', () => process.exit(0))
}

// --- the client ---------------------------------------------------------------------------------

function requestBytes(port, body) {
  const b = Buffer.from(body)
  const head =
    `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n` +
    `Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: ${PROTOCOL}\r\n` +
    `Mcp-Method: tools/call\r\nMcp-Name: get_weather\r\nContent-Length: ${b.length}\r\n\r\n`
  return Buffer.concat([Buffer.from(head), b])
}

/** One keep-alive connection: `exchange(bytes)` resolves to the response's parsed JSON body. */
function connection(port) {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', noDelay: true })
    let buffered = Buffer.alloc(0)
    let waiting = null
    socket.on('data', (chunk) => {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk
      if (!waiting) return
      const end = buffered.indexOf('\r\n\r\n')
      if (end < 0) return
      const head = buffered.subarray(0, end).toString('latin1')
      const status = Number(head.slice(9, 12))
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1])
      if (status !== 200 || !Number.isInteger(length)) return waiting.reject(new Error(`unexpected answer: ${head}`))
      if (buffered.length < end + 4 + length) return
      const body = buffered.subarray(end + 4, end + 4 + length)
      buffered = buffered.subarray(end + 4 + length)
      const w = waiting
      waiting = null
      w.resolve(JSON.parse(body.toString('utf8')))
    })
    socket.on('error', (e) => (waiting ? waiting.reject(e) : reject(e)))
    socket.on('connect', () =>
      resolve({
        exchange: (bytes) =>
          new Promise((res, rej) => {
            waiting = { resolve: res, reject: rej }
            socket.write(bytes)
          }),
        close: () => socket.end(),
      }),
    )
  })
}

async function operation(port, conn, n) {
  const call = { ...CALL, id: 2 * n }
  const asked = await conn.exchange(requestBytes(port, JSON.stringify(call)))
  const result = asked.result
  if (result?.resultType !== 'input_required') throw new Error(`not input_required: ${JSON.stringify(asked)}`)
  const key = Object.keys(result.inputRequests)[0]
  const params = { ...call.params, inputResponses: { [key]: ANSWER }, requestState: result.requestState }
  const retry = { ...call, id: 2 * n + 1, params }
  const done = await conn.exchange(requestBytes(port, JSON.stringify(retry)))
  if (!done.result?.content?.[0]?.text?.startsWith('New York: 22 degrees celsius')) throw new Error(JSON.stringify(done))
}

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop().trim().split(/\s+/)
  return (Number(fields[11]) + Number(fields[12])) / 100 // USER_HZ
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** A closed loop of `concurrency` connections for `seconds` (after a short warm-up). */
async function load(port, pid, seconds, concurrency) {
  const latencies = []
  const stop = [false, false] // warm-up over, end
  async function worker(w) {
    const conn = await connection(port)
    let n = w * 10_000_000
    while (!stop[1]) {
      const start = performance.now()
      await operation(port, conn, n++)
      if (stop[0]) latencies.push(performance.now() - start)
    }
    conn.close()
  }
  const workers = Array.from({ length: concurrency }, (_, w) => worker(w))
  await sleep(Math.min(1000, (seconds * 1000) / 4))
  stop[0] = true
  const [cpu0, t0, c0] = [cpuSeconds(pid), performance.now(), process.cpuUsage()]
  await sleep(seconds * 1000)
  stop[1] = true
  const [cpu1, t1, c1] = [cpuSeconds(pid), performance.now(), process.cpuUsage(c0)]
  const done = latencies.length
  await Promise.all(workers)
  const sorted = latencies.slice(0, done).sort((a, b) => a - b)
  const wall = (t1 - t0) / 1000
  return {
    ops: done / wall,
    p50: sorted[Math.floor(sorted.length / 2)],
    p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))],
    cpuUs: ((cpu1 - cpu0) / Math.max(done, 1)) * 1e6,
    clientCpu: (c1.user + c1.system) / 1e6 / wall,
  }
}

function start(kind) {
  return new Promise((resolve, reject) => {
    // MRTR_BENCH_PROFILE=DIR: each server writes a V8 CPU profile there when it stops (node --cpu-prof).
    const profile = process.env.MRTR_BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.MRTR_BENCH_PROFILE}`] : []
    const args = [...profile, fileURLToPath(import.meta.url), '--serve', kind]
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    proc.stdout.on('data', (c) => {
      out += c
      const m = /PORT (\d+)/.exec(out)
      if (m) resolve([proc, Number(m[1])])
    })
    proc.on('exit', (code) => reject(new Error(`the ${kind} server exited (${code})`)))
  })
}

function machine() {
  const cpu = cpus()[0]?.model ?? 'unknown CPU'
  return `${cpu}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(1)}, Node ${process.version}`
}

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? process.argv[i + 1] : fallback
}

async function main() {
  if (arg('serve')) return serve(arg('serve'))
  const seconds = Number(arg('seconds', 5))
  const concurrency = Number(arg('concurrency', 8))
  const rounds = Number(arg('rounds', 3))
  const kinds = arg('only', SERVERS.join(',')).split(',').map((k) => k.trim()).filter(Boolean)
  const servers = {}
  const best = {}
  const every = Object.fromEntries(kinds.map((k) => [k, []]))
  try {
    for (const kind of kinds) servers[kind] = await start(kind)
    for (let r = 0; r < rounds; r++) {
      for (const kind of kinds) {
        const [proc, port] = servers[kind]
        const got = await load(port, proc.pid, seconds, concurrency)
        every[kind].push(got.ops)
        if (!best[kind] || got.ops > best[kind].ops) best[kind] = got
      }
    }
  } finally {
    for (const [proc] of Object.values(servers)) {
      proc.removeAllListeners('exit')
      proc.kill('SIGTERM')
    }
  }
  const version = (p) => JSON.parse(readFileSync(new URL(`../node_modules/${p}/package.json`, import.meta.url), 'utf8')).version
  const mrtr = await import('../index.mjs')
  const path = typeof mrtr.runToolText === 'function' ? 'runToolText' : 'runTool + JSON.stringify (no runToolText)'
  console.log(`${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${machine()}; @modelcontextprotocol/server ${version('@modelcontextprotocol/server')}; mrtr: ${path}`)
  console.log(`node:http per server, ${concurrency} connections closed-loop, ${rounds} interleaved rounds of ${seconds} s, best round shown (all rounds in the last column)\n`)
  console.log('| server | operations/s | p50 ms | p99 ms | server CPU µs/op | client CPU | vs sdk | vs floor | rounds ops/s |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|')
  for (const kind of kinds) {
    const b = best[kind]
    const vs = (other) => (best[other] ? `${(b.ops / best[other].ops).toFixed(2)}×` : 'n/a')
    console.log(
      `| ${kind} | ${b.ops.toFixed(0)} | ${b.p50.toFixed(2)} | ${b.p99.toFixed(2)} | ${b.cpuUs.toFixed(0)} | ` +
        `${(b.clientCpu * 100).toFixed(0)} % | ${vs('sdk')} | ${vs('floor')} | ${every[kind].map((x) => x.toFixed(0)).join(', ')} |`,
    )
  }
  if (best.floor) {
    for (const kind of kinds.filter((k) => k !== 'floor')) {
      console.log(`\n${kind}: ${(best[kind].cpuUs - best.floor.cpuUs).toFixed(0)} µs of server CPU per operation above the floor`)
    }
  }
}

await main()
