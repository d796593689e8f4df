//! The live page's memory (security review N6): a monitor keeping a
//! timeline holds bounded text whatever its traffic, and the `state.json`
//! made from it is bounded too.

use mrtr::check::{CheckConfig, Side};
use mrtr_proxy::page::{ENTRY_BYTES_KEPT, ITEM_BYTES_KEPT, SHOWN_BYTES};
use mrtr_proxy::{Monitor, Output};
use serde_json::{json, Value};

fn call(id: usize, argument: &str) -> Vec<u8> {
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "t", "arguments": {"q": argument}}});
    message.to_string().into_bytes()
}

fn state(monitor: &Monitor) -> (usize, String) {
    let snapshot = monitor.timeline().expect("a timeline");
    (snapshot.kept_bytes(), snapshot.to_json(None))
}

#[test]
fn large_messages_are_kept_cut_and_within_the_budget() {
    let monitor = Monitor::new(CheckConfig::default(), None, Output::Quiet).with_timeline("t");
    let big = "x".repeat(2 << 20);
    for id in 0..20 {
        monitor.message(Side::Client, &call(id, &big));
    }
    let (kept, text) = state(&monitor);
    assert!(kept <= 20 * (SHOWN_BYTES + 512), "20 entries of 2 MiB keep {kept} bytes");
    assert!(text.len() <= kept + 4096, "state.json: {} bytes", text.len());
    let data: Value = serde_json::from_str(&text).unwrap();
    let entries = data["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 20);
    for entry in entries {
        let line = entry["line"].as_str().expect("a cut line is a string");
        assert!(line.ends_with("… 2.0 MiB, cut"), "{}", &line[line.len() - 40..]);
        assert!(line.len() <= SHOWN_BYTES + 64);
    }

    // Entries that grow sixfold when escaped for the page: past the budget,
    // the oldest go.
    let angles = "<".repeat(SHOWN_BYTES - 200);
    for id in 20..420 {
        monitor.message(Side::Client, &call(id, &angles));
    }
    let (kept, text) = state(&monitor);
    assert!(kept <= ENTRY_BYTES_KEPT + 2 * ITEM_BYTES_KEPT, "{kept} bytes kept");
    assert!(text.len() <= ENTRY_BYTES_KEPT + 2 * ITEM_BYTES_KEPT + 4096, "state.json: {} bytes", text.len());
    let data: Value = serde_json::from_str(&text).unwrap();
    let first = data["entries"][0]["index"].as_u64().unwrap();
    assert!(first > 20, "the 2 MiB entries were the oldest, dropped first (first kept: {first})");
    assert_eq!(data["entries"].as_array().unwrap().last().unwrap()["index"], 419, "the latest kept");
    assert_eq!(data["entries"][0]["line"]["message"]["params"]["arguments"]["q"], angles.as_str());
}
