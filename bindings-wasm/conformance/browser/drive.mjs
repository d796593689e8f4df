#!/usr/bin/env node
// Opens the runner page (argv[2]) in Debian's headless Chromium through
// playwright-core, with a fresh profile, and prints what the page found: one
// line per failing case and the closing "N passed, M failed". Exits non-zero
// on a failure, an empty corpus, or a page that did not finish.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { report } from '../runner.mjs'

const url = process.argv[2]
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium'
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

// launchPersistentContext passes the folder as --user-data-dir: a fresh one per run.
const profile = mkdtempSync(join(tmpdir(), 'mrtr-chromium-'))
let status = 1
let context
try {
  context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: FLAGS })
  const page = context.pages()[0] ?? (await context.newPage())
  const logs = []
  page.on('console', (m) => logs.push(`console.${m.type()}: ${m.text()}`))
  page.on('pageerror', (e) => logs.push(`page error: ${e.message}`))
  await page.goto(url)
  await page.waitForFunction(() => window.__mrtrResult !== undefined, null, { timeout: 300_000 })
  const result = await page.evaluate(() => window.__mrtrResult)
  const browser = context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent))
  console.error(`browser: ${browser}`)
  if (result.error) {
    console.error(result.error)
    for (const l of logs) console.error(l)
  } else {
    for (const line of report(result)) console.log(line)
    if (result.total === 0) console.error('no case found')
    status = result.failed.length === 0 && result.passed > 0 ? 0 : 1
  }
} catch (e) {
  console.error(`the browser run failed: ${e.message}`)
} finally {
  await context?.close().catch(() => {})
  rmSync(profile, { recursive: true, force: true })
}
process.exit(status)
