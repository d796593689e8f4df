// Loads a corpus for the shared runner: every `*.json` below the folder
// (MRTR_CONFORMANCE_DIR, default the project's conformance/cases), sorted by
// path, as `{id, text}` with `id` the path without `.json`.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

/** MRTR_CONFORMANCE_DIR, or the project's corpus. */
export function corpusDir() {
  return process.env.MRTR_CONFORMANCE_DIR || join(here, '..', '..', 'conformance', 'cases')
}

/** Every case below `dir`: `[{id, text}]`. */
export function loadCorpus(dir = corpusDir()) {
  const files = []
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else if (name.endsWith('.json')) files.push(p)
    }
  }
  walk(dir)
  files.sort()
  return files.map((p) => ({ id: relative(dir, p).replace(/\.json$/, '').split(sep).join('/'), text: readFileSync(p, 'utf8') }))
}
