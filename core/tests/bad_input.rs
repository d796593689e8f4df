//! The bad inputs of the core issue: each is a clear error with a rule id,
//! never a panic, and bounded by `Limits`.

use mrtr::{classify, Limits, Protocol, RuleId};
use serde_json::json;

fn rule(bytes: &[u8]) -> RuleId {
    classify(bytes, Protocol::default(), &Limits::default()).unwrap_err().rule()
}

#[test]
fn invalid_utf8_is_a_parse_error() {
    assert_eq!(rule(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\xff\"}"), RuleId::JsonrpcParseError);
    assert_eq!(rule(b"\xfe\xff"), RuleId::JsonrpcParseError);
}

#[test]
fn truncated_json_is_a_parse_error() {
    let full = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}"#;
    for cut in 1..full.len() {
        assert_eq!(rule(&full[..cut]), RuleId::JsonrpcParseError, "cut at {cut}");
    }
}

#[test]
fn ten_thousand_deep_nesting_is_over_the_depth_bound() {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{{"a":{}{}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert_eq!(rule(deep.as_bytes()), RuleId::LimitExceeded);
    let tight = Limits { max_depth: 4, ..Limits::default() };
    let five = br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[[[1]]]}}"#;
    assert_eq!(classify(five, Protocol::default(), &tight).unwrap_err().rule(), RuleId::LimitExceeded);
}

#[test]
fn a_hundred_megabyte_string_is_over_the_message_bound() {
    let mut big = br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":""#.to_vec();
    big.resize(big.len() + (100 << 20), b'a');
    big.extend_from_slice(br#""}}"#);
    assert_eq!(rule(&big), RuleId::LimitExceeded);
}

#[test]
fn duplicate_keys_are_invalid_wherever_they_are() {
    assert_eq!(rule(br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#), RuleId::JsonrpcInvalid);
    assert_eq!(
        rule(br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"arguments":{"a":1,"a":2}}}"#),
        RuleId::JsonrpcInvalid
    );
    let dup_request = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"roots/list"},"k":{"method":"roots/list"}}}}"#;
    assert_eq!(rule(dup_request), RuleId::JsonrpcInvalid);
}

#[test]
fn a_hundred_thousand_input_requests_are_over_the_bound() {
    let entries: Vec<String> = (0..100_000).map(|i| format!(r#""k{i}":{{"method":"roots/list"}}"#)).collect();
    let msg = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{{}}}}}}}"#,
        entries.join(",")
    );
    assert_eq!(rule(msg.as_bytes()), RuleId::LimitExceeded);
    let fewer = Limits { max_input_requests: 100_000, ..Limits::default() };
    assert!(classify(msg.as_bytes(), Protocol::default(), &fewer).is_ok());
}

#[test]
fn an_oversized_request_state_is_refused() {
    let msg = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","requestState":"{}"}}}}"#,
        "s".repeat(70_000)
    );
    assert_eq!(rule(msg.as_bytes()), RuleId::StateTooLarge);
}

#[test]
fn parse_applies_the_same_rules_as_classify() {
    let l = Limits::default();
    assert_eq!(mrtr::parse(br#"{"a":1,"a":2}"#, &l).unwrap_err().rule(), RuleId::JsonrpcInvalid);
    assert_eq!(mrtr::parse(br#"["\ud800"]"#, &l).unwrap_err().rule(), RuleId::JsonrpcParseError);
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert_eq!(mrtr::parse(deep.as_bytes(), &l).unwrap_err().rule(), RuleId::LimitExceeded);
    assert_eq!(mrtr::parse(b"{\"a\":", &l).unwrap_err().rule(), RuleId::JsonrpcParseError);
    assert_eq!(mrtr::parse(br#"{"a":[1,{"b":2}]}"#, &l).unwrap()["a"][1]["b"], 2);
}

#[test]
fn a_transcript_line_with_a_duplicate_key_names_its_line() {
    let text = "{\"from\":\"client\",\"message\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}\n\n{\"from\":\"server\",\"from\":\"client\",\"message\":{}}\n";
    let (line, e) = mrtr::check::read_jsonl(text, &Limits::default()).unwrap_err();
    assert_eq!((line, e.rule()), (3, RuleId::JsonrpcInvalid));
}

/// Invalid UTF-8 where no rule reads (a tool name, an argument, a result's
/// text) is refused all the same, by both classify paths and by `parse`.
#[test]
fn invalid_utf8_is_refused_wherever_it_hides() {
    let l = Limits::default();
    let places = [
        &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"w\xff\"}}"[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"w\",\"arguments\":{\"a\":\"\xc3\"}}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"\xed\xa0\x80\"}]}}",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"x\xfe\":1}",
    ];
    for bytes in places {
        assert_eq!(rule(bytes), RuleId::JsonrpcParseError, "{bytes:?}");
        let bare = mrtr::bare::classify(bytes, Protocol::default(), &l).unwrap_err();
        assert_eq!(bare.rule(), RuleId::JsonrpcParseError, "{bytes:?}");
        assert_eq!(mrtr::parse(bytes, &l).unwrap_err().rule(), RuleId::JsonrpcParseError, "{bytes:?}");
    }
}

/// An id prints one way whether it was classified (`Id`'s `Display`) or is
/// held as JSON (`Id::text`, how checkers and machines name a POST's stream):
/// a string as it is, a number as its digits.
#[test]
fn an_id_prints_alike_classified_or_as_json() {
    for id in [json!(1), json!(-5), json!(u64::MAX), json!("1"), json!("a b"), json!("")] {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string();
        let classified = classify(message.as_bytes(), Protocol::default(), &Limits::default()).unwrap();
        let text = mrtr::Id::text(&id);
        assert_eq!(classified.id.unwrap().to_string(), text, "{id}");
        assert_eq!(text, id.as_str().map(String::from).unwrap_or_else(|| id.to_string()));
    }
}
