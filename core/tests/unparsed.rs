//! Bytes that are no message, as recordings keep them (issue #46): an HTTP
//! entry's or an event's `text` (base64 with `"encoding": "base64"`) in JSON
//! Lines, a body that is no JSON in a HAR (`mrtr::har::read_har_lines`). Each
//! reads back as [`Unparsed`], which the checker reports at its entry, once,
//! and the conversation goes on.
#![cfg(feature = "state")]

use base64::{engine::general_purpose::STANDARD, Engine};
use mrtr::check::{check_lines, read_jsonl, read_jsonl_bytes, CheckConfig, Line, Unparsed};
use mrtr::har::{read_har, read_har_lines};
use mrtr::{Limits, RuleId};
use serde_json::{json, Value};

const META: &str =
    r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}"#;

fn ping(id: u64) -> Value {
    let meta: Value = serde_json::from_str(META).unwrap();
    json!({"jsonrpc": "2.0", "id": id, "method": "ping", "params": {"_meta": meta}})
}

fn pong(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete"}})
}

/// `lines` as JSON Lines, read and checked: (rule, index).
fn check_jsonl(lines: &[Value]) -> Vec<(RuleId, usize)> {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let read: Vec<Line> = read_jsonl(&text, &Limits::default()).unwrap().into_iter().map(|(_, l)| l).collect();
    check_lines(&read, CheckConfig::default()).into_iter().map(|v| (v.rule, v.index)).collect()
}

fn request(exchange: &str, http: Value) -> Value {
    let mut entry = json!({"exchange": exchange, "method": "POST", "url": "http://h/mcp",
        "headers": {"mcp-protocol-version": "2026-07-28", "mcp-method": "ping"}});
    entry.as_object_mut().unwrap().extend(http.as_object().unwrap().clone());
    json!({"from": "client", "at": 1, "http": entry})
}

fn response(exchange: &str, http: Value) -> Value {
    let mut entry =
        json!({"exchange": exchange, "status": 200, "headers": {"content-type": "application/json"}, "end": true});
    entry.as_object_mut().unwrap().extend(http.as_object().unwrap().clone());
    json!({"from": "server", "at": 2, "http": entry})
}

#[test]
fn a_body_recorded_as_text_is_reported_at_its_entry_and_the_conversation_goes_on() {
    let found = check_jsonl(&[
        request("1", json!({"text": "{\"jsonrpc\": \"2.0\", \"id\": 1,"})),
        response(
            "1",
            json!({"body": {"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}}),
        ),
        request("2", json!({"body": ping(2)})),
        response("2", json!({"text": "{\"jsonrpc\": \"2.0\", \"id\": 2, \"result\": {"})),
        request("3", json!({"body": ping(3)})),
        response("3", json!({"body": pong(3)})),
    ]);
    assert_eq!(found, [(RuleId::JsonrpcParseError, 0), (RuleId::JsonrpcParseError, 3)]);
}

#[test]
fn bytes_that_are_not_utf8_are_base64_and_read_back_as_the_same_bytes() {
    let bytes = b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"\xff\"}";
    let line = request("1", json!({"text": STANDARD.encode(bytes), "encoding": "base64"}));
    let read = Line::from_value(&line).unwrap();
    let Line::Http(h) = &read else { panic!("{read:?}") };
    let unparsed = h.unparsed.as_ref().expect("kept");
    assert_eq!(unparsed.bytes, bytes);
    assert_eq!(unparsed.error.rule(), RuleId::JsonrpcParseError);
    assert!(unparsed.error.message().contains("UTF-8"), "{}", unparsed.error);
    assert_eq!(h.body, None);
    assert_eq!(check_jsonl(&[line]), [(RuleId::JsonrpcParseError, 0)]);
}

#[test]
fn an_events_data_recorded_as_text_is_reported_at_its_entry() {
    let head = json!({"from": "server", "http": {"exchange": "1", "status": 200, "headers": {"content-type": "text/event-stream"}}});
    let events = json!({"from": "server", "http": {"exchange": "1", "events": [{"text": "hello", "id": "1"}, {"data": pong(1)}], "end": true}});
    assert_eq!(check_jsonl(&[request("1", json!({"body": ping(1)})), head, events]), [(RuleId::JsonrpcParseError, 2)]);
}

/// Text that is JSON after all (a hand-made transcript) is the body; blank
/// text is none; past the bounds it is `limit-exceeded`, read under the limits given.
#[test]
fn text_is_read_under_the_limits_given() {
    let Line::Http(h) = Line::from_value(&request("1", json!({"text": ping(1).to_string()}))).unwrap() else {
        panic!()
    };
    assert_eq!((h.body, h.unparsed), (Some(ping(1)), None));
    let Line::Http(h) = Line::from_value(&request("1", json!({"text": "  \n"}))).unwrap() else { panic!() };
    assert_eq!((h.body, h.unparsed), (None, None));
    let small = Limits { max_message_bytes: 16, ..Limits::default() };
    let line = request("1", json!({"text": ping(1).to_string()}));
    let Line::Http(h) = Line::from_value_with(&line, &small).unwrap() else { panic!() };
    assert_eq!(h.unparsed.map(|u| u.error.rule()), Some(RuleId::LimitExceeded));
    assert_eq!(Unparsed::parse(b"[1]", &small), Ok(Some(json!([1]))));
}

/// A transcript that is wrong, not a peer's bytes: the caller's usage error, with its line.
#[test]
fn malformed_text_fields_are_usage_errors() {
    for http in [
        json!({"text": 7}),
        json!({"text": "{", "body": ping(1)}),
        json!({"text": "not base64!", "encoding": "base64"}),
        json!({"text": "{", "encoding": "gzip"}),
    ] {
        let text = format!("{}\n{}\n", request("0", json!({"body": ping(0)})), request("1", http.clone()));
        let (line, e) = read_jsonl_bytes(text.as_bytes(), &Limits::default()).unwrap_err();
        assert_eq!((line, e.rule()), (2, RuleId::UsageInvalidArgument), "{http}: {e}");
    }
}

fn har(entries: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"log": {"version": "1.2", "entries": entries}})).unwrap()
}

fn har_entry(post: Value, mime: &str, content: Value) -> Value {
    let mut content = content;
    content["mimeType"] = json!(mime);
    json!({
        "request": {"method": "POST", "url": "https://x.example/mcp", "headers": [], "postData": post},
        "response": {"status": 200, "headers": [], "content": content},
    })
}

/// A HAR whose bodies are no JSON (the proxy's, of what it flagged live):
/// each is a line of its HAR entry, checked where it is, where `read_har`
/// refuses the HAR.
#[test]
fn a_har_keeps_bodies_that_are_no_json_as_lines() {
    let text = |t: &str| json!({"mimeType": "application/json", "text": t});
    let entries = json!([
        har_entry(
            text("{\"jsonrpc\": "),
            "application/json",
            json!({"text": "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}"})
        ),
        har_entry(
            text(&ping(2).to_string()),
            "application/json",
            json!({"text": STANDARD.encode(b"{\"id\":2,\"result\":\"\xff\"}"), "encoding": "base64"})
        ),
        har_entry(
            text(&ping(3).to_string()),
            "text/event-stream",
            json!({"text": format!("data: hello\n\ndata: {}\n\n", pong(3))})
        ),
    ]);
    let bytes = har(entries);
    let (entry, e) = read_har(&bytes, &Limits::default()).unwrap_err();
    assert_eq!((entry, e.rule()), (1, RuleId::JsonrpcParseError), "read_har as it was");
    let lines = read_har_lines(&bytes, &Limits::default()).unwrap();
    let shape: Vec<(usize, &str)> = lines
        .iter()
        .map(|(n, l)| match l {
            Line::Message(_) => (*n, "message"),
            Line::Http(h) if h.unparsed.is_some() => (*n, "body"),
            Line::Http(_) => (*n, "event"),
        })
        .collect();
    assert_eq!(
        shape,
        [(1, "body"), (1, "message"), (2, "message"), (2, "body"), (3, "message"), (3, "event"), (3, "message")]
    );
    let lines: Vec<Line> = lines.into_iter().map(|(_, l)| l).collect();
    let found: Vec<(RuleId, usize)> =
        check_lines(&lines, CheckConfig::default()).into_iter().map(|v| (v.rule, v.index)).collect();
    assert_eq!(found, [(RuleId::JsonrpcParseError, 0), (RuleId::JsonrpcParseError, 3), (RuleId::JsonrpcParseError, 5)]);
}
