// A client loop driving the weather server with mrtr's Client machine: send
// the call, drain transmits over HTTP, answer the input requests it surfaces
// (here from the command line), until the call is done.
//
//   node examples/client.mjs URL [C|F]
import { fileURLToPath } from 'node:url'
import { Client } from 'mrtr'

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
}

/** Calls get_weather at `url`, answering elicitations with `units`; returns the final response. */
export async function getWeather(url, units, { maxSteps = 10 } = {}) {
  const client = new Client()
  let nextId = 1
  client.send({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'get_weather', arguments: { location: 'NYC' }, _meta: meta } })
  for (let step = 0; step < maxSteps; step++) {
    for (const message of client.transmits()) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(message) })
      client.handleResponse(await res.text()) // raw text: validated by the core
    }
    for (const event of client.events()) {
      if (event.type === 'done') return event.response
      // inputRequired: answer every elicitation; retryNow: answer nothing.
      const answers = Object.fromEntries(
        Object.keys(event.inputRequests ?? {}).map((key) => [key, { action: 'accept', content: { units } }]),
      )
      client.answer(event.handle, answers, nextId++)
    }
  }
  throw new Error(`no answer after ${maxSteps} steps`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, units = 'C'] = process.argv.slice(2)
  const response = await getWeather(url, units)
  console.log(response.result?.content?.[0]?.text ?? JSON.stringify(response))
}
