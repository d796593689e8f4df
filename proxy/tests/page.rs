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
    assert!(kept <= ENTRY_BYTES_KEPT + 3 * ITEM_BYTES_KEPT, "{kept} bytes kept");
    assert!(text.len() <= ENTRY_BYTES_KEPT + 3 * ITEM_BYTES_KEPT + 4096, "state.json: {} bytes", text.len());
    let data: Value = serde_json::from_str(&text).unwrap();
    let first = data["entries"][0]["index"].as_u64().unwrap();
    assert!(first > 20, "the 2 MiB entries were the oldest, dropped first (first kept: {first})");
    assert_eq!(data["entries"].as_array().unwrap().last().unwrap()["index"], 419, "the latest kept");
    assert_eq!(data["entries"][0]["line"]["message"]["params"]["arguments"]["q"], angles.as_str());
}

/// The live proxy reports interop warnings as they come, naming the client,
/// and its page shows them: mcp-go's `input_required` carrying `content: []`
/// is warned of, not counted as a violation.
#[test]
fn interop_warnings_reach_the_reports_and_the_live_page() {
    use mrtr_proxy::Report;
    let monitor = Monitor::new(CheckConfig::default(), None, Output::Quiet).with_timeline("t");
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "python-sdk", "version": "2.3.0"}});
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "book", "arguments": {}, "_meta": meta}});
    let asked = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "content": [],
        "inputRequests": {"when": {"method": "elicitation/create", "params": {"message": "When?",
            "requestedSchema": {"type": "object", "properties": {"day": {"type": "string"}}}}}}}});
    monitor.message(Side::Client, request.to_string().as_bytes());
    monitor.message(Side::Server, asked.to_string().as_bytes());
    let warnings: Vec<_> = monitor
        .reports()
        .into_iter()
        .filter_map(|r| match r {
            Report::Warning { warning, index, client, .. } => Some((warning, index, client)),
            _ => None,
        })
        .collect();
    assert_eq!(warnings, [("input-required-final-fields".to_string(), 1, Some("python-sdk 2.3.0".to_string()))]);
    assert_eq!((monitor.summary().violations, monitor.summary().warnings), (0, 1));
    let (_, text) = state(&monitor);
    let data: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(data["warnings"][0]["warning"], "input-required-final-fields");
    assert_eq!(data["warnings"][0]["client"], "python-sdk 2.3.0");
}
