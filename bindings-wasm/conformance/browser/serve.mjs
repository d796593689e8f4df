#!/usr/bin/env node
// A tiny static server for the browser runner, on 127.0.0.1 and a free port
// the system picks: the page (/), the --target web build (/pkg/web/…), the
// shared runner (/conformance/…), and the corpus as one JSON list
// (/corpus.json, read once at start from MRTR_CONFORMANCE_DIR). Prints
// "listening http://127.0.0.1:PORT/" once it accepts connections; serves
// until killed.
import { createServer } from 'node:http'
import { readFile } from 'node:fs/promises'
import { dirname, extname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadCorpus } from '../corpus.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const base = join(here, '..', '..')
const corpus = JSON.stringify(loadCorpus())
const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' }
const SERVED = ['pkg/web/', 'conformance/runner.mjs']

const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^\/+/, '')
  const send = (status, type, body) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
    res.end(body)
  }
  if (path === '' || path === 'index.html') return send(200, TYPES['.html'], await readFile(join(here, 'index.html')))
  if (path === 'corpus.json') return send(200, TYPES['.json'], corpus)
  if (!SERVED.some((p) => path === p || (p.endsWith('/') && path.startsWith(p))) || path.includes('..')) {
    return send(404, 'text/plain', 'not found')
  }
  try {
    send(200, TYPES[extname(path)] ?? 'application/octet-stream', await readFile(join(base, path)))
  } catch {
    send(404, 'text/plain', 'not found')
  }
})
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}/`))
