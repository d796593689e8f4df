//! HTTP Archives read into the checker's entries (`mrtr::har::read_har`).
#![cfg(feature = "state")]

use base64::{engine::general_purpose::STANDARD, Engine};
use mrtr::check::{Entry, Side};
use mrtr::har::{is_har, read_har};
use mrtr::{Error, Limits, RuleId};
use serde_json::{json, Value};

fn har(entries: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"log": {"version": "1.2", "entries": entries}})).unwrap()
}

fn post(body: &str, mime: &str, content: Value) -> Value {
    let mut content = content;
    content["mimeType"] = json!(mime);
    json!({
        "startedDateTime": "2026-07-28T09:00:00.000Z",
        "request": {"method": "POST", "url": "https://x.example/mcp", "headers": [],
                    "postData": {"mimeType": "application/json", "text": body}},
        "response": {"status": 200, "headers": [{"name": "Content-Type", "value": mime}], "content": content},
    })
}

fn read(entries: Value) -> Result<Vec<(usize, Entry)>, (usize, Error)> {
    read_har(&har(entries), &Limits::default())
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t"}}"#;
const RESULT: &str = r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[]}}"#;

fn summary(entries: &[(usize, Entry)]) -> Vec<(usize, Side, Option<&str>)> {
    entries.iter().map(|(i, e)| (*i, e.from, e.stream.as_deref())).collect()
}

#[test]
fn a_json_response_gives_server_entries_on_the_post_stream() {
    let entries = read(json!([post(CALL, "application/json; charset=utf-8", json!({"text": RESULT}))])).unwrap();
    assert_eq!(summary(&entries), vec![(1, Side::Client, None), (1, Side::Server, Some("post:7"))]);
    assert_eq!(entries[1].1.message["result"]["resultType"], "complete");
    // A string id is tagged as the checker names streams: without quotes.
    let call = CALL.replace("\"id\":7", "\"id\":\"a\"");
    let entries =
        read(json!([post(&call, "application/json", json!({"text": RESULT.replace("7", "\"a\"")}))])).unwrap();
    assert_eq!(entries[1].1.stream.as_deref(), Some("post:a"));
}

#[test]
fn batch_bodies_give_one_entry_per_element() {
    let body = format!(
        r#"[{CALL}, {{"jsonrpc":"2.0","method":"notifications/progress","params":{{}}}}, {}]"#,
        CALL.replace("\"id\":7", "\"id\":8")
    );
    let results = format!("[{}, {RESULT}]", RESULT.replace("\"id\":7", "\"id\":8"));
    let entries = read(json!([post(&body, "application/json", json!({"text": results}))])).unwrap();
    assert_eq!(
        summary(&entries),
        vec![
            (1, Side::Client, None),
            (1, Side::Client, None),
            (1, Side::Client, None),
            // Each response on the stream of its own request.
            (1, Side::Server, Some("post:8")),
            (1, Side::Server, Some("post:7")),
        ]
    );
}

#[test]
fn base64_content_is_decoded() {
    let content = json!({"text": STANDARD.encode(RESULT), "encoding": "base64"});
    let entries = read(json!([post(CALL, "application/json", content)])).unwrap();
    assert_eq!(entries[1].1.message["id"], 7);
    let bad = json!({"text": "not base64!", "encoding": "base64"});
    let (i, e) = read(json!([post(CALL, "application/json", bad)])).unwrap_err();
    assert_eq!((i, e.rule()), (1, RuleId::UsageInvalidArgument));
}

#[test]
fn event_stream_content_is_decoded() {
    let stream = format!(
        "id: 0\ndata:\n\n: keep-alive\n\nevent: message\ndata: {}\r\n\r\ndata: not json\n\nevent: message\ndata: {RESULT}",
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#
    );
    let entries = read(json!([post(CALL, "text/event-stream", json!({"text": stream}))])).unwrap();
    assert_eq!(
        summary(&entries),
        vec![(1, Side::Client, None), (1, Side::Server, Some("post:7")), (1, Side::Server, Some("post:7"))]
    );
    assert_eq!(entries[1].1.message["method"], "notifications/progress");
    assert_eq!(entries[2].1.message["id"], 7);
    // A line of the stream that is not UTF-8 is the core's error.
    let content = json!({"text": STANDARD.encode(b"data: \xFF\n\n"), "encoding": "base64"});
    let (i, e) = read(json!([post(CALL, "text/event-stream", content)])).unwrap_err();
    assert_eq!((i, e.rule()), (1, RuleId::JsonrpcParseError));
}

#[test]
fn a_get_response_is_on_the_get_stream() {
    let get = json!({
        "request": {"method": "GET", "url": "https://x.example/mcp", "headers": []},
        "response": {"status": 200, "headers": [{"name": "content-type", "value": "text/event-stream"}],
                     "content": {"text": "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n"}},
    });
    let entries = read(json!([post(CALL, "application/json", json!({"text": RESULT})), get])).unwrap();
    assert_eq!(
        summary(&entries),
        vec![(1, Side::Client, None), (1, Side::Server, Some("post:7")), (2, Side::Server, Some("get"))]
    );
}

#[test]
fn notifications_and_202_give_nothing_but_the_notification() {
    let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let mut entry = post(note, "", json!({"size": 0, "text": ""}));
    entry["response"]["status"] = json!(202);
    let entries = read(json!([entry])).unwrap();
    assert_eq!(summary(&entries), vec![(1, Side::Client, None)]);
    // Other media types (an HTML error page) are skipped.
    let entries = read(json!([post(CALL, "text/html", json!({"text": "<p>oops</p>"}))])).unwrap();
    assert_eq!(entries.len(), 1);
}

#[test]
fn a_non_json_body_is_an_error_with_its_entry() {
    let good = post(CALL, "application/json", json!({"text": RESULT}));
    let (i, e) = read(json!([good, post("hello", "application/json", json!({"text": ""}))])).unwrap_err();
    assert_eq!((i, e.rule()), (2, RuleId::JsonrpcParseError));
    let (i, e) = read(json!([post(CALL, "application/json", json!({"text": "{\"a\":"}))])).unwrap_err();
    assert_eq!((i, e.rule()), (1, RuleId::JsonrpcParseError));
    // A repeated key, as read_jsonl refuses it.
    let dup = r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let (_, e) = read(json!([post(dup, "application/json", json!({"text": ""}))])).unwrap_err();
    assert_eq!(e.rule(), RuleId::JsonrpcInvalid);
}

#[test]
fn invalid_utf8_in_a_body_is_a_parse_error() {
    let content =
        json!({"text": STANDARD.encode(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":\"\xFF\"}"), "encoding": "base64"});
    let (i, e) = read(json!([post(CALL, "application/json", content)])).unwrap_err();
    assert_eq!((i, e.rule()), (1, RuleId::JsonrpcParseError));
    assert!(e.message().contains("UTF-8"), "{e}");
}

#[test]
fn an_unreadable_har_is_a_usage_error() {
    for bytes in [&b"not json"[..], b"{\"log\": {}}", b"[1]", b"{\"log\": {\"entries\": [{}]}}"] {
        let (_, e) = read_har(bytes, &Limits::default()).unwrap_err();
        assert_eq!(e.rule(), RuleId::UsageInvalidArgument, "{}", String::from_utf8_lossy(bytes));
    }
    assert!(is_har(&har(json!([]))));
    assert!(!is_har(b"{\"from\":\"client\",\"message\":{}}\n{\"from\":\"client\",\"message\":{}}\n"));
    assert_eq!(read(json!([])).unwrap(), vec![]);
}
