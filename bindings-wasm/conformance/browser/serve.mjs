#!/usr/bin/env node
// A tiny static server for the browser runner, on 127.0.0.1 and a free port
// the system picks: the page (/), the test build of the package
// (/pkg-test-vectors/…, scripts/build.sh --test-vectors: the corpus's sealing
// vectors need the cargo feature `test-vectors`), the browser package
// (/pkg-browser/…, which the same command builds), the runner of
// the JavaScript API (/runner.mjs, from bindings-node/test), and the corpus as
// one JSON list (/corpus.json, read once at start from MRTR_CONFORMANCE_DIR).
// Prints "listening http://127.0.0.1:PORT/" once it accepts connections;
// serves until killed.
import { createServer } from 'node:http'
import { readFile } from 'node:fs/promises'
import { extname, normalize } from 'node:path'
import { loadCorpus } from '../../../bindings-node/test/conformance-runner.mjs'

const file = (path) => new URL(path, import.meta.url)
const corpus = JSON.stringify(await loadCorpus())
const TYPES = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' }
const FIXED = { '': 'index.html', 'index.html': 'index.html', 'runner.mjs': '../../../bindings-node/test/conformance-runner.mjs' }

const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^\/+/, '')
  const send = (status, type, body) => {
    res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
    res.end(body)
  }
  if (path === 'corpus.json') return send(200, TYPES['.json'], corpus)
  const local = Object.hasOwn(FIXED, path) ? FIXED[path] : /^pkg-(test-vectors|browser)\//.test(path) && !path.includes('..') ? `../../${path}` : null
  if (local === null) return send(404, 'text/plain', 'not found')
  try {
    send(200, TYPES[extname(local)] ?? 'application/octet-stream', await readFile(file(local)))
  } catch {
    send(404, 'text/plain', 'not found')
  }
})
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}/`))
