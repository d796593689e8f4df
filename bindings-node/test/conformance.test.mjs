// The conformance runner (test/conformance-runner.mjs) over the whole corpus
// through this backend. The judge (`scripts/conformance`) decides what passes;
// here: one outcome line per case and no crash, a case whose expectation is
// an error gives exactly that error, and the runner as a script prints only
// outcome lines. Shared by both backends (test/backend.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mrtr from './backend.mjs'
import { line, loadCorpus, outcome, OPS } from './conformance-runner.mjs'

test('every case of the corpus gives one outcome, and each expected error exactly', { timeout: 300_000 }, async () => {
  const cases = await loadCorpus()
  assert.ok(cases.length >= 600, `${cases.length} cases`)
  const wrong = []
  for (const { id, text } of cases) {
    const out = JSON.parse(line(mrtr, id, text))
    const c = JSON.parse(text)
    assert.equal(out.id, c.id)
    if (!('outcome' in out)) wrong.push(`${id}: ${out.crash}`)
    else if ('error' in c.expect && out.outcome.error !== c.expect.error) wrong.push(`${id}: ${JSON.stringify(out.outcome)}`)
  }
  assert.deepEqual(wrong, [])
})

test('an unknown op is a crash, not a skip; an MrtrError is an outcome', () => {
  assert.throws(() => outcome(mrtr, 'no-such-op', {}), /unknown op/)
  assert.deepEqual(OPS, ['classify', 'check', 'retry', 'resume', 'respond', 'state', 'sse', 'http-client'])
  assert.deepEqual(JSON.parse(line(mrtr, 'a/x', '{"id":"a/x","op":"teleport","input":{}}')), { id: 'a/x', crash: 'Error: unknown op "teleport"' })
  assert.deepEqual(JSON.parse(line(mrtr, 'a/y', '{')).id, 'a/y')
  assert.deepEqual(outcome(mrtr, 'classify', { text: '{' }), { error: 'jsonrpc-parse-error' })
})

test('the sse and http-client ops: an unreadable block as its error, in place; outputs after creation and after each step', () => {
  const long = `data: ${'x'.repeat(17 << 20)}\n\n`
  assert.deepEqual(outcome(mrtr, 'sse', { chunks: ['event: buffer_input\r', `\nid: 1\n\n${long}data: x\n\n`] }), {
    events: [{ event: 'buffer_input', id: '1' }, { error: 'limit-exceeded' }, { data: 'x' }],
  })
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } }
  const input = {
    config: { mode: 'sep-1335', url: 'https://a.example/mcp' },
    request,
    steps: [
      { head: { exchange: 1, status: 200, headers: { 'content-type': 'text/event-stream' } }, at: 5 },
      { body: { exchange: 1, hex: '69643a20330a72657472793a2031300a0a' } },
      { end: { exchange: 1 } },
      { body: { exchange: 9, text: 'x' } },
      { timeout: 105 },
    ],
  }
  const { outputs } = outcome(mrtr, 'http-client', input)
  assert.equal(outputs.length, 6)
  assert.deepEqual(outputs[0].map((o) => Object.keys(o)), [['send']])
  assert.deepEqual(outputs.slice(1, 3), [[], []])
  assert.deepEqual(outputs[3], [{ timeout: 105 }]) // ended at 5, retry 10 (floored to 100 ms)
  assert.deepEqual(outputs[4], [{ error: 'usage-unknown-handle' }])
  assert.deepEqual([outputs[5][0].send.method, outputs[5][0].send.headers['last-event-id']], ['GET', '3'])
  assert.deepEqual(outcome(mrtr, 'http-client', { ...input, config: { url: 'x' } }), { outputs: [[{ error: 'usage-invalid-argument' }]] })
})

test('as a script: one JSON line per case on stdout, and nothing else', () => {
  const runner = new URL('./conformance-runner.mjs', import.meta.url).pathname
  const dir = mkdtempSync(join(tmpdir(), 'mrtr-corpus-'))
  try {
    mkdirSync(join(dir, 'a'))
    const ok = { id: 'a/ok', rules: [], description: 'd', op: 'classify', input: { text: '{' }, expect: { error: 'jsonrpc-parse-error' } }
    writeFileSync(join(dir, 'a', 'ok.json'), JSON.stringify(ok))
    writeFileSync(join(dir, 'a', 'op.json'), JSON.stringify({ ...ok, id: 'a/op', op: 'teleport' }))
    const r = spawnSync(process.execPath, [runner], { env: { ...process.env, MRTR_CONFORMANCE_DIR: dir }, encoding: 'utf8' })
    assert.equal(r.status, 0, r.stderr)
    assert.deepEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l)), [
      { id: 'a/ok', outcome: { error: 'jsonrpc-parse-error' } },
      { id: 'a/op', crash: 'Error: unknown op "teleport"' },
    ])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
