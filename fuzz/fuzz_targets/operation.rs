//! The client operation on any server bytes, in every transport mode,
//! hedged or not: the first byte picks the mode, the hedge, the status and
//! the content type; the rest, split at 0xFF, is the body of each exchange in
//! the order the operation sends them. Every question is answered (an
//! accepted elicitation, which may not fit), every timeout fires. No panic;
//! at most one final event, and nothing after it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr::client::operation::{Config, Event, Hedge, Operation};
use mrtr::http::Mode;
use mrtr::Millis;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let mode = Mode::ALL[usize::from(pick & 3)];
    let status = [200, 200, 200, 202, 204, 400, 502, 503][usize::from(pick >> 2 & 7)];
    let json = pick & 0x20 != 0;
    let mut config = Config::new(mode, "http://127.0.0.1:8000/mcp");
    if pick & 0x40 != 0 {
        config.hedge = Some(Hedge { after_ms: 10, max: 2 });
    }
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}, "roots": {}}}}});
    let Ok(mut op) = Operation::new(config, request, Millis(0)) else { return };
    let mut bodies = rest.split(|&b| b == 0xff);
    let head = vec![("content-type".to_string(), if json { "application/json" } else { "text/event-stream" }.to_string())];
    let (mut now, mut finals) = (Millis(0), 0);
    for _ in 0..32 {
        let mut sent = Vec::new();
        while let Some(request) = op.poll_transmit() {
            sent.push(request.exchange);
        }
        for exchange in sent {
            let body = bodies.next().unwrap_or_default();
            if op.handle_head(exchange, status, &head, now).is_ok() {
                for chunk in body.chunks(usize::from(pick % 7) + 1) {
                    let _ = op.handle_body(exchange, chunk, now);
                }
            }
            let _ = op.handle_end(exchange, now);
        }
        while let Some(event) = op.poll_event() {
            assert_eq!(finals, 0, "an event after the final one: {event:?}");
            match event {
                Event::InputRequired { requests, .. } => {
                    for key in requests.keys() {
                        let _ = op.answer(key, json!({"action": "accept", "content": {}}), now);
                    }
                }
                Event::Done(_) | Event::Failed(_) => finals += 1,
                _ => {}
            }
        }
        match op.poll_timeout() {
            Some(at) => {
                now = at.max(now);
                op.handle_timeout(now);
            }
            None if finals > 0 || op.is_drained() => return,
            None => {}
        }
    }
});
