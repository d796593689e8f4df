// The transports (issue #11): the event-stream decoder and encoder, the
// client machine of one call over HTTP (HttpCall) driven against a server
// written with ServerStream and readHttpRequest in SEP-1858 and SEP-1335, the
// checker over the HTTP entries of those very exchanges, and bad input.
// Shared by both backends (test/backend.mjs).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import mrtr from './backend.mjs'
import { utf8, concat } from './fixtures.mjs'

const ENDPOINT = 'https://mcp.example.com/mcp'
const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: { location: 'NYC' } } }
const elicit = {
  jsonrpc: '2.0',
  id: 's-1',
  method: 'elicitation/create',
  params: { mode: 'form', message: 'GitHub user?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
}
const accepted = { jsonrpc: '2.0', id: 's-1', result: { action: 'accept', content: { name: 'octocat' } } }
const result = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi octocat' }] } }

/** `f` throws an MrtrError of `name` for `rule`. */
function refuses(f, rule, name) {
  assert.throws(f, (e) => {
    assert.ok(e instanceof mrtr.MrtrError, `${e?.name}: ${e?.message}`)
    assert.equal(e.rule, rule, e.message)
    if (name) assert.equal(e.name, name)
    return true
  })
}

/** Every block of a whole stream given as `chunks`, an unreadable one as `{error}`. */
function decode(chunks, options) {
  const d = new mrtr.SseDecoder(options)
  for (const c of chunks) d.feed(c)
  d.finish()
  const out = []
  for (;;) {
    let e
    try {
      e = d.pollEvent()
    } catch (err) {
      assert.ok(err instanceof mrtr.MrtrError)
      out.push({ error: err.rule })
      continue
    }
    if (e === null) return out
    out.push(e)
  }
}

test('the decoder: any chunking, data-less blocks, CR LF split across chunks, bytes or text', () => {
  const text = ': hi\r\nevent: buffer_input\r\nid: k.0\r\n\r\ndata: {"a":\ndata: 1}\nretry: 250\n\nid: x\n'
  const whole = decode([text])
  assert.deepEqual(whole, [{ event: 'buffer_input', id: 'k.0' }, { data: '{"a":\n1}', retry: 250 }])
  const bytes = utf8(text)
  for (let at = 0; at <= bytes.length; at++) {
    assert.deepEqual(decode([bytes.subarray(0, at), bytes.subarray(at)]), whole, `split at ${at}`)
  }
  assert.deepEqual(decode([bytes.buffer.slice(0)]), whole) // an ArrayBuffer
  const d = new mrtr.SseDecoder()
  d.feed('data: one\n\ndata: two\n\n')
  assert.deepEqual([...d.events()], [{ data: 'one' }, { data: 'two' }])
  assert.equal(d.pollEvent(), null)
})

test('the decoder: a line that is not UTF-8, or a block over maxMessageBytes, is its error, and decoding goes on', () => {
  const bad = concat(utf8('data: {"a":"'), new Uint8Array([0xff, 0xfe]), utf8('"}\n\ndata: next\n\n'))
  assert.deepEqual(decode([bad]), [{ error: 'jsonrpc-parse-error' }, { data: 'next' }])
  const big = `data: ${'x'.repeat(100)}\n\ndata: ok\n\n`
  assert.deepEqual(decode([big], { limits: { maxMessageBytes: 64 } }), [{ error: 'limit-exceeded' }, { data: 'ok' }])
  const d = new mrtr.SseDecoder()
  d.feed(bad)
  assert.throws(() => [...d.events()], { name: 'ProtocolError', rule: 'jsonrpc-parse-error' })
  refuses(() => d.feed(42), 'usage-invalid-argument', 'UsageError')
  refuses(() => new mrtr.SseDecoder({ limits: { maxBytes: 1 } }), 'usage-invalid-argument')
})

test('sseEncode writes what the decoder reads back', () => {
  const events = [{ event: 'input_required', id: 'k.3' }, { data: 'a\nb', id: 'k.4', retry: 1000 }, { data: '' }]
  for (const e of events) assert.deepEqual(decode([mrtr.sseEncode(e)]), [e])
  assert.equal(mrtr.sseEncode('{"data":"x"}'), mrtr.sseEncode({ data: 'x' }))
  refuses(() => mrtr.sseEncode({ id: 'a\nb' }), 'usage-invalid-argument')
  refuses(() => mrtr.sseEncode({ data: 1 }), 'usage-invalid-argument')
  refuses(() => mrtr.sseEncode({ comment: 'x' }), 'usage-invalid-argument')
})

/**
 * A server of one tool call that asks once, written with ServerStream and
 * readHttpRequest, and a transcript of what went over the wire (the checker's
 * HTTP entries). `deliver(call, request, now)` answers one request the call
 * sent, feeding the response to the call.
 */
function server(mode) {
  const transcript = []
  let exchanges = 0
  let stream = null // the continuation's next event number
  const key = 'k1'
  function respond(c, request, status, headers, body, now, end = true) {
    const exchange = `e${++exchanges}`
    transcript.push({ from: 'client', at: now, http: { exchange, method: request.method, url: request.url, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }) } })
    c.handleHead(request.exchange, status, headers, now)
    const events = body ? decode([body]).map((e) => (e.data ? { ...e, data: JSON.parse(e.data) } : e)) : undefined
    transcript.push({ from: 'server', at: now, http: { exchange, status, headers, ...(events ? { events } : {}), ...(end ? { end: true } : {}) } })
    if (body) {
      // Split anywhere: the machine takes any chunking.
      const bytes = utf8(body)
      const cut = Math.floor(bytes.length / 3)
      c.handleBody(request.exchange, bytes.subarray(0, cut), now)
      c.handleBody(request.exchange, bytes.subarray(cut), now)
    }
    if (end) c.handleEnd(request.exchange, now)
  }
  function deliver(c, request, now) {
    const body = request.body === undefined ? undefined : JSON.stringify(request.body)
    const incoming = mrtr.readHttpRequest(mode, request.method, request.url, request.headers, body && utf8(body))
    if (incoming.type === 'call') {
      assert.deepEqual(incoming.message, call)
      const s = new mrtr.ServerStream(mode, key, 0)
      const url = mrtr.streamUrl(ENDPOINT, key)
      const last = s.ask([elicit], 500)
      stream = Number(last.split('.').pop()) + 1
      return respond(c, request, 200, s.head(url), s.take(), now)
    }
    if (incoming.type === 'resume') {
      // SEP-1335: still waiting for the answers.
      assert.equal(incoming.key, key)
      return respond(c, request, 204, {}, '', now)
    }
    assert.deepEqual(incoming, { type: 'answers', key, responses: [accepted] })
    const s = new mrtr.ServerStream(mode, key, stream)
    s.message(result)
    return respond(c, request, 200, s.head(mrtr.streamUrl(ENDPOINT, key)), s.take(), now)
  }
  return { deliver, transcript }
}

test('SEP-1858: buffer_input, the request, input_required; the answers POSTed as an array with Last-Event-ID', () => {
  const { deliver, transcript } = server('sep-1858')
  const c = new mrtr.HttpCall({ mode: 'sep-1858', url: ENDPOINT, headers: { 'MCP-Protocol-Version': '2025-11-25' } }, call, 0)
  const [post] = [...c.transmits()]
  assert.deepEqual(post, {
    exchange: 1,
    method: 'POST',
    url: ENDPOINT,
    headers: { 'mcp-protocol-version': '2025-11-25', accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
    body: call,
  })
  deliver(c, post, 10)
  assert.deepEqual([...c.transmits()], []) // nothing until answered
  assert.deepEqual([...c.events()], [{ type: 'serverRequest', message: elicit }])
  assert.equal(c.pollTimeout(), null) // no reconnect after input_required
  assert.equal(c.done, false)
  c.answer(accepted, 20)
  const [answers] = [...c.transmits()]
  assert.equal(answers.method, 'POST')
  assert.equal(answers.url, ENDPOINT)
  assert.equal(answers.headers['last-event-id'], 'k1.2')
  assert.deepEqual(answers.body, [accepted])
  deliver(c, answers, 30)
  assert.deepEqual([...c.events()], [{ type: 'response', message: result }])
  assert.equal(c.isDone(), true)
  assert.equal(c.done, true)
  assert.deepEqual(mrtr.check(transcript, { protocol: '2025-11-25', transport: 'sep-1858' }), [])
  const checker = new mrtr.Checker({ protocol: '2025-11-25', transport: 'sep-1858' })
  for (const entry of transcript) checker.handle(entry)
  assert.deepEqual(checker.violations(), [])
})

test('SEP-1335: a rel="stream" Link and retry; the reconnect gets 204; the answers go as an array to the stream URL', () => {
  const { deliver, transcript } = server('sep-1335')
  const c = new mrtr.HttpCall({ mode: 'sep-1335', url: ENDPOINT }, JSON.stringify(call), 0)
  deliver(c, c.pollTransmit(), 10)
  assert.deepEqual([...c.events()], [{ type: 'serverRequest', message: elicit }])
  c.answer(JSON.stringify(accepted), 10) // kept: it goes after the 204
  assert.equal(c.pollTransmit(), null)
  const at = c.pollTimeout()
  assert.equal(at, 510) // the stream ended at 10, retry 500
  c.handleTimeout(at - 1) // too early: nothing
  assert.equal(c.pollTransmit(), null)
  c.handleTimeout(at)
  const get = c.pollTransmit()
  const url = mrtr.streamUrl(ENDPOINT, 'k1')
  assert.equal(url, `${ENDPOINT}?stream=k1`)
  assert.deepEqual([get.method, get.url, get.headers['last-event-id'], get.body], ['GET', url, 'k1.1', undefined])
  deliver(c, get, at)
  const answers = c.pollTransmit()
  assert.deepEqual([answers.method, answers.url, answers.body], ['POST', url, [accepted]])
  deliver(c, answers, at + 5)
  assert.deepEqual([...c.events()], [{ type: 'response', message: result }])
  assert.equal(c.done, true)
  assert.deepEqual(mrtr.check(transcript, { protocol: '2025-11-25', transport: 'sep-1335' }), [])
  // The same transcript, the reconnect made before the retry wait: sse-retry-ignored at the GET.
  const early = transcript.map((e) => (e.from === 'client' && e.http.method === 'GET' ? { ...e, at: 100 } : e))
  const index = early.findIndex((e) => e.from === 'client' && e.http.method === 'GET')
  assert.deepEqual(mrtr.check(early, { protocol: '2025-11-25', transport: 'sep-1335' }).map((v) => [v.rule, v.index]), [['sse-retry-ignored', index]])
})

test('readHttpRequest: a call, answers, a resume, and a body that is no JSON-RPC', () => {
  const head = { 'Last-Event-ID': 'k9.4', 'content-type': 'application/json' }
  assert.deepEqual(mrtr.readHttpRequest('sep-1858', 'POST', ENDPOINT, head, [accepted]), { type: 'answers', key: 'k9', responses: [accepted] })
  assert.deepEqual(mrtr.readHttpRequest('sep-1858', 'GET', ENDPOINT, head), { type: 'resume', key: 'k9', lastEventId: 'k9.4' })
  assert.deepEqual(mrtr.readHttpRequest('2026-07-28', 'GET', ENDPOINT, null, null), { type: 'resume', key: null, lastEventId: null })
  assert.deepEqual(mrtr.readHttpRequest('2025-11-25', 'POST', ENDPOINT, {}, JSON.stringify(accepted)), { type: 'messages', messages: [accepted] })
  refuses(() => mrtr.readHttpRequest('sep-1858', 'POST', ENDPOINT, {}, '{'), 'jsonrpc-parse-error', 'ProtocolError')
  refuses(() => mrtr.readHttpRequest('sep-1858', 'POST', ENDPOINT, {}, [call, call]), 'jsonrpc-invalid')
  refuses(() => mrtr.readHttpRequest('sep-9999', 'GET', ENDPOINT, {}), 'usage-invalid-argument', 'UsageError')
})

test('unassociatedReply: -32602 for an input request outside any call, null for anything else', () => {
  const reply = mrtr.unassociatedReply(elicit)
  assert.equal(reply.id, 's-1')
  assert.equal(reply.error.code, -32602)
  assert.equal(mrtr.unassociatedReply({ jsonrpc: '2.0', id: 2, method: 'ping' }), null)
})

test('ServerStream: the head of each mode, and nothing after input_required', () => {
  assert.deepEqual(new mrtr.ServerStream('sep-1858', 'k', 0).head(), { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  assert.equal(new mrtr.ServerStream('sep-1335', 'k', 0).head('https://a.example/s')['link'], '<https://a.example/s>; rel="stream"')
  const s = new mrtr.ServerStream('sep-1858', 'k', 7)
  assert.equal(s.ask([elicit], 0), 'k.9')
  assert.deepEqual(decode([s.take()]).map((e) => e.event ?? 'message'), ['buffer_input', 'message', 'input_required'])
  refuses(() => s.message(result), 'usage-out-of-turn')
  assert.equal(s.take(), '')
  refuses(() => new mrtr.ServerStream('2026-07-28', 'k', 0).ask([elicit], 0), 'usage-invalid-argument')
  refuses(() => new mrtr.ServerStream('sep-1858', 'a\nb', 0), 'usage-invalid-argument')
  refuses(() => new mrtr.ServerStream('sep-1858', 'k', -1), 'usage-invalid-argument')
  refuses(() => mrtr.streamUrl('not a url', 'k'), 'usage-invalid-argument')
})

test('bad input from the server: a body chunk that is not UTF-8 fails the call with jsonrpc-parse-error', () => {
  const c = new mrtr.HttpCall({ mode: 'sep-1858', url: ENDPOINT }, call, 0)
  const post = c.pollTransmit()
  c.handleHead(post.exchange, 200, { 'content-type': 'text/event-stream' }, 1)
  c.handleBody(post.exchange, concat(utf8('id: 1\ndata: {"jsonrpc":"2.0","id":1,"result":{"x":"'), new Uint8Array([0xc3, 0x28]), utf8('"}}\n\n')), 2)
  assert.deepEqual(
    [...c.events()].map(({ type, rule }) => ({ type, rule })),
    [{ type: 'failed', rule: 'jsonrpc-parse-error' }],
  )
  assert.equal(c.done, true)
  assert.equal(c.pollTimeout(), null)
  c.handleEnd(post.exchange, 3) // after the failure: nothing more
  assert.equal(c.pollEvent(), null)
})

test('bad input from the server: a Link field of 1000 links fails the call with limit-exceeded', () => {
  const c = new mrtr.HttpCall({ mode: 'sep-1335', url: ENDPOINT }, call, 0)
  const post = c.pollTransmit()
  const link = Array.from({ length: 1000 }, (_, i) => `<${ENDPOINT}/s/${i}>; rel="stream"`).join(', ')
  c.handleHead(post.exchange, 200, { 'content-type': 'text/event-stream', link }, 1)
  const events = [...c.events()]
  assert.deepEqual(events.map(({ type, rule }) => ({ type, rule })), [{ type: 'failed', rule: 'limit-exceeded' }])
  assert.equal(typeof events[0].message, 'string')
  assert.equal(c.done, true)
})

test('bad input from the host: each a clear UsageError', () => {
  refuses(() => new mrtr.HttpCall({ mode: 'sep-42', url: ENDPOINT }, call, 0), 'usage-invalid-argument', 'UsageError')
  refuses(() => new mrtr.HttpCall({ url: ENDPOINT }, call, 0), 'usage-invalid-argument')
  refuses(() => new mrtr.HttpCall({ mode: 'sep-1858', url: 'nowhere' }, call, 0), 'usage-invalid-argument')
  refuses(() => new mrtr.HttpCall({ mode: 'sep-1858', url: ENDPOINT, maxLinks: -1 }, call, 0), 'usage-invalid-argument')
  refuses(() => new mrtr.HttpCall({ mode: 'sep-1858', url: ENDPOINT }, accepted, 0), 'usage-invalid-argument')
  refuses(() => new mrtr.HttpCall({ mode: 'sep-1858', url: ENDPOINT }, call), 'usage-invalid-argument')
  const c = new mrtr.HttpCall({ mode: 'sep-1858', url: ENDPOINT }, call, 0)
  const { exchange } = c.pollTransmit()
  refuses(() => c.handleBody(exchange, 'data: x\n\n', 1), 'usage-out-of-turn') // before its head
  refuses(() => c.handleHead(exchange + 1, 200, {}, 1), 'usage-unknown-handle')
  refuses(() => c.handleHead(exchange, 70000, {}, 1), 'usage-invalid-argument')
  refuses(() => c.handleHead(exchange, 200, new Map([['content-type', 'text/event-stream']]), 1), 'usage-invalid-argument')
  refuses(() => c.handleHead(exchange, 200, { link: ['a', 'b'] }, 1), 'usage-invalid-argument')
  refuses(() => c.handleHead(exchange, 200.5, {}, 1), 'usage-invalid-argument')
  refuses(() => c.handleHead(exchange, 200, {}, -1), 'usage-invalid-argument')
  c.handleHead(exchange, 200, { 'content-type': 'text/event-stream' }, 1)
  refuses(() => c.handleHead(exchange, 200, {}, 1), 'usage-out-of-turn')
  refuses(() => c.handleBody(exchange, 12, 1), 'usage-invalid-argument')
  refuses(() => c.handleBody(exchange, { data: 'x' }, 1), 'usage-invalid-argument')
  refuses(() => c.answer(accepted, 1), 'usage-out-of-turn') // nothing was asked
  refuses(() => c.answer('{', 1), 'usage-invalid-argument') // the host's own answer: a misuse
  refuses(() => c.handleTimeout('soon'), 'usage-invalid-argument')
  assert.equal(c.done, false)
})

test('a JSON response ends the call; 2026-07-28 refuses input requests on the stream', () => {
  const c = new mrtr.HttpCall({ mode: '2026-07-28', url: ENDPOINT }, call, 0)
  const post = c.pollTransmit()
  c.handleHead(post.exchange, 200, { 'content-type': 'text/event-stream' }, 1)
  c.handleBody(post.exchange, `id: 1\ndata: ${JSON.stringify(elicit)}\n\nid: 2\ndata: ${JSON.stringify(result)}\n\n`, 1)
  const events = [...c.events()]
  assert.deepEqual(events.map((e) => e.rule ?? e.type), ['server-request-on-stream', 'response'])
  const [reply] = [...c.transmits()]
  assert.deepEqual([reply.method, reply.body.id, reply.body.error.code], ['POST', 's-1', -32602])
  const j = new mrtr.HttpCall({ mode: '2025-11-25', url: ENDPOINT }, call, 0)
  const p = j.pollTransmit()
  j.handleHead(p.exchange, 200, { 'content-type': 'application/json' }, 1)
  j.handleBody(p.exchange, JSON.stringify(result), 1)
  j.handleEnd(p.exchange, 1)
  assert.deepEqual(j.pollEvent(), { type: 'response', message: result })
})

test('mirroredFields: the header fields a 2026-07-28 request carries, read off its body', () => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
  const read = { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'notes://today', _meta: meta } }
  assert.deepEqual(mrtr.mirroredFields(read), {
    'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/read', 'mcp-name': 'notes://today',
  })
  assert.deepEqual(mrtr.mirroredFields({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { 'mcp-method': 'tools/list' })
  assert.throws(() => mrtr.mirroredFields('{'), (e) => e instanceof mrtr.ProtocolError && e.rule === 'jsonrpc-parse-error')
})
