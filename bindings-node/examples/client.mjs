// A client of the weather server: `McpClient.callTool` is the whole call.
// The client declares its capabilities once; its session writes each request
// (a fresh id, the `_meta` a 2026-07-28 server reads), and an mrtr Operation
// carries it over HTTP (fetch) through every round: the retries' ids, answers
// and exact requestState, and the MCP header fields. The user's part is the
// answer to each question (here from the command line).
//
//   node examples/client.mjs URL [C|F]
import { fileURLToPath } from 'node:url'
import { McpClient } from 'mrtr'

/** Calls get_weather at `url`, answering its elicitation with `units`; returns the tool's result. */
export function getWeather(url, units) {
  const client = new McpClient(url, { capabilities: { elicitation: {} }, clientInfo: { name: 'weather-example', version: '1.0.0' } })
  return client.callTool('get_weather', { location: 'NYC' }, { onInput: () => ({ action: 'accept', content: { units } }) })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, units = 'C'] = process.argv.slice(2)
  const result = await getWeather(url, units)
  console.log(result.content?.[0]?.text ?? JSON.stringify(result))
}
