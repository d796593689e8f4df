// The whole corpus through the package's public API, as node:test (the same
// runner as `scripts/conformance node`).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runCorpus, corpusDir, OPS } from './conformance-runner.mjs'

test(`the conformance corpus (${corpusDir()})`, { timeout: 300_000 }, () => {
  const { passed, failed } = runCorpus()
  assert.ok(passed > 0, 'no case found')
  assert.deepEqual(failed.map(([id, why]) => `${id}: ${why}`), [])
})

test('an unknown op is a failure, not a skip', async () => {
  const { outcome } = await import('./conformance-runner.mjs')
  assert.throws(() => outcome('no-such-op', {}), /unknown op/)
  assert.deepEqual(OPS, ['classify', 'check', 'retry', 'resume', 'respond', 'state'])
})

test('as a script: one line per failing case, the closing line, and the exit code', async () => {
  const { spawnSync } = await import('node:child_process')
  const { mkdtempSync, writeFileSync, mkdirSync, rmSync } = await import('node:fs')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const runner = new URL('./conformance-runner.mjs', import.meta.url).pathname
  const dir = mkdtempSync(join(tmpdir(), 'mrtr-corpus-'))
  const run = () => spawnSync(process.execPath, [runner], { env: { ...process.env, MRTR_CONFORMANCE_DIR: dir }, encoding: 'utf8' })
  try {
    let r = run()
    assert.equal(r.status, 1, 'an empty corpus fails')
    assert.equal(r.stdout.trim(), '0 passed, 0 failed')
    mkdirSync(join(dir, 'a'))
    const ok = { id: 'a/ok', rules: [], description: 'd', op: 'classify', input: { text: '{' }, expect: { error: 'jsonrpc-parse-error' } }
    writeFileSync(join(dir, 'a', 'ok.json'), JSON.stringify(ok))
    r = run()
    assert.equal(r.status, 0)
    assert.equal(r.stdout.trim(), '1 passed, 0 failed')
    writeFileSync(join(dir, 'a', 'bad.json'), JSON.stringify({ ...ok, id: 'a/bad', expect: { error: 'jsonrpc-invalid' } }))
    writeFileSync(join(dir, 'a', 'op.json'), JSON.stringify({ ...ok, id: 'a/op', op: 'teleport' }))
    r = run()
    assert.equal(r.status, 1)
    const lines = r.stdout.trim().split('\n')
    assert.equal(lines.at(-1), '1 passed, 2 failed')
    assert.equal(lines.filter((l) => l.startsWith('FAIL ')).length, 2)
    assert.ok(lines.some((l) => l.startsWith('FAIL a/op: Error: unknown op "teleport"')))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
