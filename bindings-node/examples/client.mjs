// A client of the weather server: one mrtr Operation carries the call over
// HTTP (fetch) through every round, the retries' ids, answers and exact
// requestState and the MCP header fields included; the user's part is the
// answer to each question (here from the command line).
//
//   node examples/client.mjs URL [C|F]
import { fileURLToPath } from 'node:url'
import { Operation, runOperation } from 'mrtr'

const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
}

/** Calls get_weather at `url`, answering its elicitation with `units`; returns the final response. */
export function getWeather(url, units) {
  const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: { location: 'NYC' }, _meta: meta } }
  const operation = new Operation({ mode: '2026-07-28', url }, request, Math.floor(performance.now()))
  return runOperation(operation, { onInput: () => ({ action: 'accept', content: { units } }) })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, units = 'C'] = process.argv.slice(2)
  const response = await getWeather(url, units)
  console.log(response.result?.content?.[0]?.text ?? JSON.stringify(response))
}
