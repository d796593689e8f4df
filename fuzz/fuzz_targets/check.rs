//! Bytes split on newlines, each line a JSON entry
//! `{"from": "client"|"server", "message": …, "stream": …}`, checked as one
//! conversation under every protocol.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr::{
    check::{check, CheckConfig, Entry, Side},
    Protocol,
};
use serde_json::Value;

fn entry(line: &[u8]) -> Option<Entry> {
    let v: Value = serde_json::from_slice(line).ok()?;
    let from = match v.get("from")?.as_str()? {
        "client" => Side::Client,
        _ => Side::Server,
    };
    let message = v.get("message")?.clone();
    let stream = v.get("stream").and_then(Value::as_str).map(String::from);
    Some(Entry { from, message, stream })
}

fuzz_target!(|data: &[u8]| {
    let entries: Vec<Entry> = data.split(|&b| b == b'\n').filter_map(entry).collect();
    if entries.is_empty() {
        return;
    }
    for protocol in Protocol::ALL {
        for max_rounds in [1, 10] {
            let config = CheckConfig::default().with_protocol(protocol).with_max_rounds(max_rounds);
            for v in check(&entries, config) {
                assert!(v.index < entries.len());
            }
        }
    }
});
