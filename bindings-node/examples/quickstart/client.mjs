// Quickstart: a client calling the `greet` tool of server.mjs.
//
// `McpClient.callTool` is the whole call: it sends the request, and when the
// server answers `input_required` it asks `onInput` for each answer (here the
// user, on the terminal) and retries with a new id, the answers and the exact
// `requestState`, until the final result.
//
//   node client.mjs http://127.0.0.1:3000/mcp                 (MRTR, 2026-07-28)
//   node client.mjs http://127.0.0.1:9000/mcp 2025-11-25      (an older client, through `mrtr bridge`)
import { createInterface } from 'node:readline/promises'
import { McpClient } from 'mrtr'

const [url, mode = '2026-07-28'] = process.argv.slice(2)

/** The answer to one question of the server (an elicitation here), from the terminal. */
async function askTheUser(question, key) {
  const terminal = createInterface({ input: process.stdin, output: process.stdout })
  const name = await terminal.question(`${question.params.message} `)
  terminal.close()
  return { action: 'accept', content: { name } }
}

const client = new McpClient(url, { capabilities: { elicitation: {} }, mode })
const result = await client.callTool('greet', {}, { onInput: askTheUser })
console.log(result.content[0].text)
