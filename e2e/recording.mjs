// What the end-to-end clients (e2e/transports/client.mjs, deploy/cluster/driver.mjs) write of a
// response into their recordings, the HTTP entries `mrtr check` reads: a body or an event's data as
// JSON where it is JSON, else as the text it was.

/** `text` parsed as JSON, or the text itself when it is not JSON. */
export function jsonOrText(text) {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** An event block as recorded: its `data` as JSON where it is. */
export const recordedBlock = (block) => (block.data === undefined ? block : { ...block, data: jsonOrText(block.data) })
