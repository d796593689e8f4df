//! The legacy bridge on any answers a client POSTs: a two-question tool
//! replayed from what the bridge collected, each round's server requests
//! answered by the fuzzer's JSON (split at 0xFF), at times it picks. No
//! panic; every server request's id carries the bridge's key; once the call
//! is done nothing more is written and no round waits.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr::round::bridge::Bridge;
use mrtr::round::replay::{elicit, Asked, Replay};
use mrtr::{Limits, Millis};
use serde_json::{json, Value};

const KEY: &str = "0123456789abcdef";

/// The tool: a name, then a greeting; `None` while it waits.
fn run(replay: &mut Replay) -> Option<String> {
    let schema = json!({"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]});
    let Ok(Asked::Answered(name)) = replay.ask(&elicit("Name?", &schema)) else { return None };
    let Ok(Asked::Answered(word)) = replay.ask(&elicit("Greeting?", &schema)) else { return None };
    Some(format!("{word} {name}"))
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let request = json!({"jsonrpc": "2.0", "id": pick, "method": "tools/call", "params": {"name": "greet"}});
    let mut bridge = Bridge::new(&request, KEY, Limits::default()).expect("a legacy call");
    bridge.round_timeout_ms = u64::from(pick) * 10;
    let mut now = Millis(0);
    let step = |bridge: &mut Bridge, now: Millis| {
        let mut replay = bridge.replay();
        match run(&mut replay) {
            Some(done) => {
                let _ = bridge.complete(&json!({"content": [{"type": "text", "text": done}]}));
            }
            None => {
                let _ = bridge.ask(&replay, now);
            }
        }
    };
    step(&mut bridge, now);
    for answer in rest.split(|&b| b == 0xff) {
        for id in bridge.pending() {
            assert!(id.starts_with(KEY), "a server request id without the bridge's key: {id}");
        }
        while bridge.poll_write().is_some() {}
        now = now.saturating_add(u64::from(answer.first().copied().unwrap_or(0)));
        let Ok(mut message) = serde_json::from_slice::<Value>(answer) else {
            bridge.handle_timeout(now);
            continue;
        };
        if let (Some(slot), Some(id)) = (message.as_object_mut(), bridge.pending().next().map(String::from)) {
            slot.entry("id").or_insert(Value::String(id));
        }
        if let Ok(true) = bridge.handle_answer(&message, now) {
            step(&mut bridge, now);
        }
        if bridge.is_done() {
            while bridge.poll_write().is_some() {}
            assert!(bridge.poll_timeout().is_none() && bridge.pending().next().is_none());
            assert!(bridge.poll_write().is_none());
            return;
        }
    }
});
