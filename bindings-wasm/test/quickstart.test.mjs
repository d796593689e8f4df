// The browser quickstart (docs/quickstart/browser.md) as a newcomer runs it:
// examples/quickstart/server.mjs on a free port of 127.0.0.1, its page opened
// in headless Chromium (Debian's, through playwright-core, as the corpus's
// browser runner), the page's prompt answered "Ada"; the page shows the tool's
// final result, which only the second round gives. scripts/tests/50-wasm.sh
// checks that the page quotes these files.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

const server = fileURLToPath(new URL('../examples/quickstart/server.mjs', import.meta.url))

test('the quickstart page gets the final result after asking the user', async (t) => {
  const child = spawn(process.execPath, [server, '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => child.kill())
  let said = ''
  let url
  for await (const chunk of child.stdout) {
    said += chunk
    if ((url = said.match(/listening on (\S+)/)?.[1])) break
  }
  assert.ok(url, `the quickstart server exited: ${said}`)
  const profile = mkdtempSync(join(tmpdir(), 'mrtr-chromium-'))
  t.after(() => rmSync(profile, { recursive: true, force: true }))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  })
  t.after(() => context.close())
  const page = context.pages()[0] ?? (await context.newPage())
  const asked = []
  const errors = []
  page.on('dialog', (dialog) => {
    asked.push(dialog.message())
    dialog.accept('Ada')
  })
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(url)
  await page.waitForFunction(() => document.getElementById('result').textContent !== 'calling greet…', null, { timeout: 30_000 })
  assert.deepEqual(errors, [])
  assert.deepEqual(asked, ['What is your name?'])
  assert.equal(await page.textContent('#result'), 'Hello, Ada!')
})
