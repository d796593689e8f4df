//! The session's requests as a server reads them: the `_meta` a `2026-07-28`
//! server requires, the capabilities its questions are checked against, the
//! header fields that mirror the body; none of it under `2025-11-25`.

use super::*;
use crate::{base::limits::Limits, base::protocol::mirrored_fields, machines::server};
use alloc::vec::Vec;

fn session(protocol: Protocol, capabilities: Value) -> Session {
    let info = json!({"name": "test-client", "version": "1.0.0"});
    Session::new(SessionConfig { protocol, capabilities, client_info: Some(info), first_id: 7 }).unwrap()
}

fn elicit() -> Value {
    json!({"name": {"method": "elicitation/create", "params": {"message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"v": {"type": "string"}}}}}})
}

#[test]
fn a_2026_request_carries_the_declared_meta_under_a_fresh_id() {
    let mut s = session(Protocol::V2026_07_28, json!({"elicitation": {}}));
    let first = s.call_tool("greet", Some(json!({"loud": true}))).unwrap();
    let second = s.read_resource("notes://today").unwrap();
    assert_eq!((first["id"].as_u64(), second["id"].as_u64()), (Some(7), Some(8)));
    let meta = &first["params"]["_meta"];
    assert_eq!(meta[META_PROTOCOL_VERSION], "2026-07-28");
    assert_eq!(meta[META_CLIENT_CAPABILITIES], json!({"elicitation": {}}));
    assert_eq!(meta[META_CLIENT_INFO]["name"], "test-client");
    assert_eq!(first["params"]["arguments"], json!({"loud": true}));
    // What the server requires of every request, it finds.
    server::check_version(&first, &["2026-07-28"], Protocol::V2026_07_28).unwrap();
    // The header fields the HTTP transport mirrors follow from the body.
    let fields: Vec<(&str, Option<&str>)> = mirrored_fields(&first).into_iter().collect();
    assert!(fields.contains(&("mcp-protocol-version", Some("2026-07-28"))), "{fields:?}");
    assert!(fields.contains(&("mcp-name", Some("greet"))), "{fields:?}");
}

#[test]
fn a_server_asks_only_what_the_declared_capabilities_allow() {
    let protocol = Protocol::V2026_07_28;
    let mut with = session(protocol, json!({"elicitation": {}}));
    let mut without = session(protocol, json!({}));
    let (asked, plain) = (with.call_tool("t", None).unwrap(), without.call_tool("t", None).unwrap());
    server::respond(&asked, Some(&elicit()), None, protocol, &Limits::DEFAULT).unwrap();
    let refused = server::respond(&plain, Some(&elicit()), None, protocol, &Limits::DEFAULT).unwrap_err();
    assert_eq!(refused.rule(), RuleId::RequestCapabilityMissing);
    assert_eq!(refused.data(), Some(&json!({"requiredCapabilities": {"elicitation": {"form": {}}}})));
}

#[test]
fn a_2025_request_carries_no_meta_of_the_session() {
    let mut s = session(Protocol::V2025_11_25, json!({"elicitation": {}}));
    let request = s.get_prompt("p", None).unwrap();
    assert_eq!(request, json!({"jsonrpc": "2.0", "id": 7, "method": "prompts/get", "params": {"name": "p"}}));
}

#[test]
fn the_callers_meta_stays_and_what_the_session_declares_is_its_own() {
    let mut s = session(Protocol::V2026_07_28, json!({}));
    let params = json!({"name": "t", "_meta": {"progressToken": 5}});
    let request = s.request("tools/call", Some(params)).unwrap();
    assert_eq!(request["params"]["_meta"]["progressToken"], 5);
    let twice = json!({"name": "t", "_meta": {META_PROTOCOL_VERSION: "2025-11-25"}});
    assert_eq!(s.request("tools/call", Some(twice)).unwrap_err().rule(), RuleId::UsageInvalidArgument);
    // A refused request used no id.
    assert_eq!(s.request("tools/list", None).unwrap()["id"], 8);
}

#[test]
fn misuse_is_a_usage_error() {
    let bad = |c: SessionConfig| Session::new(c).unwrap_err().rule();
    let caps = SessionConfig { capabilities: json!([]), ..SessionConfig::default() };
    assert_eq!(bad(caps), RuleId::UsageInvalidArgument);
    let nameless = SessionConfig { client_info: Some(json!({"version": "1"})), ..SessionConfig::default() };
    assert_eq!(bad(nameless), RuleId::UsageInvalidArgument);
    let mut s = Session::new(SessionConfig::default()).unwrap();
    assert_eq!(s.request("", None).unwrap_err().rule(), RuleId::UsageInvalidArgument);
    assert_eq!(s.request("m", Some(json!([1]))).unwrap_err().rule(), RuleId::UsageInvalidArgument);
    assert_eq!(s.call_tool("t", Some(json!("x"))).unwrap_err().rule(), RuleId::UsageInvalidArgument);
    assert_eq!(s.call_tool("", None).unwrap_err().rule(), RuleId::UsageInvalidArgument);
    let last = SessionConfig { first_id: u64::MAX, ..SessionConfig::default() };
    let mut s = Session::new(last).unwrap();
    assert_eq!(s.request("m", None).unwrap()["id"], u64::MAX);
    assert_eq!(s.request("m", None).unwrap_err().rule(), RuleId::UsageInvalidArgument);
}

#[test]
fn a_2025_session_begins_with_the_handshake_and_a_2026_one_needs_none() {
    let mut legacy = session(Protocol::V2025_11_25, json!({"elicitation": {}}));
    let init = legacy.initialize().unwrap().expect("2025-11-25 initializes");
    assert_eq!((init["method"].as_str(), init["id"].as_u64()), (Some("initialize"), Some(7)));
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["params"]["capabilities"], json!({"elicitation": {}}));
    assert_eq!(init["params"]["clientInfo"]["name"], "test-client");
    assert_eq!(legacy.initialized(), json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(legacy.call_tool("t", None).unwrap()["id"], 8, "the handshake took an id");
    // Without a declared name, the protocol's required clientInfo names mrtr.
    let mut anonymous =
        Session::new(SessionConfig { protocol: Protocol::V2025_11_25, ..SessionConfig::default() }).unwrap();
    assert_eq!(anonymous.initialize().unwrap().unwrap()["params"]["clientInfo"]["name"], "mrtr");
    let mut current = session(Protocol::V2026_07_28, json!({}));
    assert_eq!(current.initialize().unwrap(), None);
    assert_eq!(current.call_tool("t", None).unwrap()["id"], 7, "no id spent");
}
