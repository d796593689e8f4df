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

test('the example server refuses a bad retry with the rule and its JSON-RPC code', async () => {
  const { handle } = await import('../examples/server.mjs')
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } }
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', _meta: meta } }
  assert.equal(handle(call).result.resultType, 'input_required')
  const bad = handle({ ...call, id: 2, params: { ...call.params, inputResponses: { units: { action: 'accept', content: { units: 'K' } } } } })
  assert.equal(bad.error.code, -32602)
  assert.match(bad.error.message, /^retry-input-response-invalid/)
  assert.equal(handle({ ...call, id: 3, params: { ...call.params, inputResponses: { units: { action: 'accept', content: { units: 'F' } } } } }).result.content[0].text, 'somewhere: 70 °F, sunny')
})

test('the README example runs as written', async () => {
  const { readFileSync, writeFileSync, rmSync } = await import('node:fs')
  const readme = readFileSync(join(examples, '..', 'README.md'), 'utf8')
  const code = readme.match(/```js\n([\s\S]*?)```/)[1]
  const file = join(examples, '..', 'test', `.readme-${process.pid}.mjs`) // inside the package: `import 'mrtr'` resolves to it
  writeFileSync(file, code)
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [file], { timeout: 10_000 })
    assert.equal(stdout.trim(), 'retry-missing-input-response null')
  } finally {
    rmSync(file, { force: true })
  }
})
