// Drives one call of mrtr's HttpCall machine to its end over real HTTP, for the end-to-end clients
// (e2e/transports/client.mjs, peers/mrtr_client.mjs): after every input it sends what the machine
// asks, takes its events, and arms its timeout; the call settles once its response (or failure) came
// and every exchange it opened (the answers' POSTs too) has ended.

/**
 * Runs `machine` (a new HttpCall) to its end. `exchange(request, {head, body, end})` performs one
 * HTTP request and reports its response (`head(status, headers, at?)`, `body(chunk, at?)`,
 * `end(at?)`; `at` in the clock of `now`, or now); `answer(serverRequest)` gives the JSON-RPC answer
 * to a server request on a stream; `onViolation(event)` hears what the machine reports of the
 * server; `onHead(status, headers)` sees each response head first. Resolves with the JSON-RPC
 * response; rejects with an Error (`.failed`: the machine's failure event) when the call failed.
 */
export function driveCall(machine, { exchange, now, answer, onViolation = () => {}, onHead = () => {} }) {
  return new Promise((resolve, reject) => {
    const open = new Set()
    const at = (t) => (typeof t === 'number' ? t : now())
    let timer = null
    let outcome = null
    const settle = () => {
      if (!machine.done || open.size > 0 || !outcome) return // the answers' POSTs end too
      clearTimeout(timer)
      if (!outcome.failed) return resolve(outcome.response)
      reject(Object.assign(new Error(`${outcome.failed.rule}: ${outcome.failed.message}`), { failed: outcome.failed }))
    }
    const pump = () => {
      try {
        for (;;) {
          for (const t of machine.transmits()) send(t)
          const events = [...machine.events()]
          if (events.length === 0) break
          for (const e of events) {
            if (e.type === 'serverRequest') machine.answer(answer(e.message), now())
            else if (e.type === 'response') outcome = { response: e.message }
            else if (e.type === 'failed') outcome = { failed: e }
            else if (e.type === 'violation') onViolation(e)
          }
        }
      } catch (e) {
        clearTimeout(timer)
        return reject(e) // the machine refused an input: a bug here or in mrtr
      }
      clearTimeout(timer)
      timer = null
      const next = machine.pollTimeout()
      if (next !== null) timer = setTimeout(wake, Math.max(0, next - now()), next)
      if (outcome?.failed) open.clear() // nothing more to wait for
      settle()
    }
    const wake = (due) => {
      const t = now()
      if (t < due) return (timer = setTimeout(wake, due - t, due)) // a timer may fire a little early
      machine.handleTimeout(t)
      pump()
    }
    const send = (t) => {
      open.add(t.exchange)
      exchange(t, {
        head: (status, headers, when) => {
          onHead(status, headers)
          machine.handleHead(t.exchange, status, headers, at(when))
          pump()
        },
        body: (chunk, when) => (machine.handleBody(t.exchange, chunk, at(when)), pump()),
        end: (when) => {
          open.delete(t.exchange)
          machine.handleEnd(t.exchange, at(when))
          pump()
        },
      })
    }
    pump()
  })
}
