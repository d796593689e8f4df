#!/usr/bin/env node
// Opens the runner page (argv[2]) in Debian's headless Chromium through
// playwright-core, with a fresh profile, and prints what the page produced:
// one outcome line per case, for the judge, and nothing else on stdout. Exits
// non-zero when the page failed or did not finish.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'

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
  await page.waitForFunction(() => window.__mrtrLines !== undefined, null, { timeout: 300_000 })
  const lines = await page.evaluate(() => window.__mrtrLines)
  console.error(`browser: ${context.browser()?.version() ?? (await page.evaluate(() => navigator.userAgent))}`)
  const runs = await page.evaluate(() => window.__mrtrRuns)
  if (runs) console.error(`cases run by package: ${Object.entries(runs).map(([p, n]) => `${p} ${n}`).join(', ')}`)
  if (Array.isArray(lines)) {
    for (const line of lines) console.log(line)
    status = 0
  } else {
    console.error(lines.error)
    for (const l of logs) console.error(l)
  }
} catch (e) {
  console.error(`the browser run failed: ${e.message}`)
} finally {
  await context?.close().catch(() => {})
  rmSync(profile, { recursive: true, force: true })
}
process.exit(status)
