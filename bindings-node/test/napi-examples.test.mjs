// The examples end to end over loopback: the server on a free port of
// 127.0.0.1, the client loop as its own process; bounded, and the server is
// stopped whatever happens.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFile } from 'node:child_process'
import { once } from 'node:events'
import { promisify } from 'node:util'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const examples = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples')

test('the weather client drives the stateless server to completion', { timeout: 30_000 }, async (t) => {
  const server = spawn(process.execPath, [join(examples, 'server.mjs'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => server.kill('SIGTERM'))
  const [line] = await Promise.race([
    once(server.stdout, 'data'),
    new Promise((_, reject) => setTimeout(() => reject(new Error('the server did not start')), 10_000)),
  ])
  const url = String(line).match(/http:\/\/127\.0\.0\.1:\d+\/mcp/)[0]
  const run = (units) => promisify(execFile)(process.execPath, [join(examples, 'client.mjs'), url, units], { timeout: 10_000 })
  assert.equal((await run('C')).stdout.trim(), 'NYC: 21 °C, sunny')
  assert.equal((await run('F')).stdout.trim(), 'NYC: 70 °F, sunny')
})

test('the example server seals its rounds, and refuses a bad, a forged or a replayed retry with the rule and its JSON-RPC code', async () => {
  const { handle } = await import('../examples/server.mjs')
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', _meta: meta } }
  const first = handle(call)
  assert.equal(first.result.resultType, 'input_required')
  const state = first.result.requestState
  const retry = (id, units, requestState = state) =>
    ({ ...call, id, params: { ...call.params, inputResponses: { units: { action: 'accept', content: { units } } }, requestState } })
  const bad = handle(retry(2, 'K'))
  assert.equal(bad.error.code, -32602)
  assert.match(bad.error.message, /^retry-input-response-invalid/)
  // Without state, answers were asked by no state: ignored, and the question asked again (security review M3).
  const { requestState: _, ...stateless } = retry(3, 'F').params
  const over = handle({ ...call, id: 3, params: stateless }).result
  assert.deepEqual([over.resultType, Object.keys(over.inputRequests)], ['input_required', ['units']])
  assert.match(handle(retry(4, 'F', state.slice(0, -4) + 'AAAA')).error.message, /^state-tampered/)
  assert.equal(handle(retry(5, 'F')).result.content[0].text, 'somewhere: 70 °F, sunny')
  // The final round ran once: the same state again is refused.
  const replayed = handle(retry(6, 'F'))
  assert.equal(replayed.error.code, -32602)
  assert.match(replayed.error.message, /^state-replayed/)
  // And it expires.
  assert.match(handle(retry(7, 'C', handle(call).result.requestState), Math.floor(Date.now() / 1000) + 301).error.message, /^state-expired/)
})

test('the README examples run as written', async () => {
  const { readFileSync, writeFileSync, rmSync } = await import('node:fs')
  const readme = readFileSync(join(examples, '..', 'README.md'), 'utf8')
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1])
  const printed = [
    'retry-missing-input-response null',
    "[] octocat\nstate-replayed",
    'Hello, Ada\n400 state-replayed',
    "400 -32022 [ '2026-07-28' ]\n{ sampling: { tools: {} } }",
    'Hello, Ada',
    'hi octocat',
  ]
  assert.equal(blocks.length, printed.length)
  for (const [i, code] of blocks.entries()) {
    const file = join(examples, '..', 'test', `.readme-${process.pid}-${i}.mjs`) // inside the package: `import 'mrtr'` resolves to it
    writeFileSync(file, code)
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 10_000 })
      assert.equal(stdout.trim(), printed[i])
    } finally {
      rmSync(file, { force: true })
    }
  }
})
