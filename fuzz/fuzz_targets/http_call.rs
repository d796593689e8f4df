//! The client machine of a call over HTTP on any server bytes: the first
//! byte picks the mode and the status, the next line is the Link field, the
//! rest is the body in chunks, then the response ends and every timeout the
//! machine asks for fires. No panic; every answer it reports is accepted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr::http::{call::{Call, CallConfig, Event}, Mode};
use mrtr::Millis;
use serde_json::json;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let mode = Mode::ALL[usize::from(pick & 3)];
    let status = [200, 200, 204, 202, 400, 500, 200, 200][usize::from(pick >> 2 & 7)];
    let (link, body) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (&rest[..0], rest),
    };
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}});
    let Ok(mut call) = Call::new(CallConfig::new(mode, "http://127.0.0.1:8000/mcp"), &request, Millis(0)) else { return };
    let mut headers = vec![("content-type".to_string(), if pick & 0x20 == 0 { "text/event-stream" } else { "application/json" }.to_string())];
    headers.push(("link".into(), String::from_utf8_lossy(link).into_owned()));
    let mut now = Millis(0);
    let mut exchange = 1;
    for _ in 0..4 {
        while call.poll_transmit().is_some() {}
        let _ = call.handle_head(exchange, status, &headers, now);
        for chunk in body.chunks(usize::from(pick % 13) + 1) {
            let _ = call.handle_body(exchange, chunk, now);
        }
        let _ = call.handle_end(exchange, now);
        while let Some(event) = call.poll_event() {
            if let Event::ServerRequest(r) = event {
                let answer = json!({"jsonrpc": "2.0", "id": r["id"], "result": {}});
                call.answer(&answer, now).expect("an answer to a reported request is accepted");
            }
        }
        match call.poll_timeout() {
            Some(at) => {
                now = at;
                call.handle_timeout(now);
            }
            None if call.is_done() => return,
            None => {}
        }
        exchange += 1;
    }
});
