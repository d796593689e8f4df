// The Node quickstart (docs/quickstart/node.md) as a newcomer runs it:
// examples/quickstart/server.mjs started on a free port of 127.0.0.1,
// examples/quickstart/client.mjs run against it with the user's answer on its
// stdin; the client prints the tool's final result, which only the second
// round gives. scripts/tests/30-node.sh checks that the page quotes these files.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, execFile } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'

const dir = fileURLToPath(new URL('../examples/quickstart/', import.meta.url))

async function server(t) {
  const child = spawn(process.execPath, [`${dir}server.mjs`, '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => child.kill())
  let said = ''
  for await (const chunk of child.stdout) {
    said += chunk
    const url = said.match(/listening on (\S+)/)?.[1]
    if (url) return url
  }
  throw new Error(`the quickstart server exited: ${said}`)
}

function client(url, answer) {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, [`${dir}client.mjs`, url], { timeout: 30_000 }, (e, stdout, stderr) => (e ? reject(new Error(`${e.message}\n${stderr}`)) : resolve(stdout)))
    child.stdin.end(answer)
  })
}

test('the quickstart client gets the final result after the ask', async (t) => {
  const url = await server(t)
  assert.equal(await client(url, 'Ada\n'), 'What is your name? Hello, Ada!\n')
})

test("the quickstart server refuses a request without its _meta, by the core's rule", async (t) => {
  const url = await server(t)
  const res = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet' } }) })
  assert.equal(res.status, 400)
  assert.equal((await res.json()).error.data.rule, 'request-meta-missing')
})
