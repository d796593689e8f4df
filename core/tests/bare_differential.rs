//! Hand-written differential cases: `mrtr::bare::classify`, `mrtr::classify`
//! and `mrtr::parse` + `mrtr::classify_value` agree (same kind, id, method and
//! result type, or the same rule id) on every message below, under every
//! protocol and two sets of limits. Each case also states what `2026-07-28` with default limits gives,
//! so that the list documents the behaviour and not just the agreement.

mod bare_common;

use bare_common::{alloc, bare, differ, limit_sets, Outcome};
use mrtr::{bare as nb, Limits, Protocol};

/// (what it shows, message, expected kind or rule under 2026-07-28).
const CASES: &[(&str, &str, &str)] = &[
    // Valid messages.
    ("request", r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#, "request"),
    ("string id, escaped", r#"{"jsonrpc":"2.0","id":"a\u00e9\ud83d\ude00","method":"m"}"#, "request"),
    ("escaped method", r#"{"jsonrpc":"2.0","id":1,"method":"tools\/c\u0061ll"}"#, "request"),
    ("notification", r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, "notification"),
    ("result", r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}"#, "result"),
    ("untyped result", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, "result"),
    ("task result", r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"t"}}"#, "result"),
    (
        "input_required with state",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}"#,
        "input_required",
    ),
    (
        "form elicitation",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"string","format":"date"},"k":{"type":"array","items":{"type":"string","enum":["x"]}}},"required":["n"]}}}}}}"#,
        "input_required",
    ),
    (
        "url elicitation",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x"}}}}}"#,
        "input_required",
    ),
    (
        "sampling and roots",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[{"role":"assistant","content":[]}],"maxTokens":1e2}},"r":{"method":"roots/list"}}}}"#,
        "input_required",
    ),
    ("error, null id", r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#, "error"),
    ("error, code -0", r#"{"jsonrpc":"2.0","id":1,"error":{"code":-0,"message":"x"}}"#, "error"),
    ("error, code 1e-400 (rounds to 0)", r#"{"jsonrpc":"2.0","id":1,"error":{"code":1e-400,"message":"x"}}"#, "error"),
    (
        "error, code 1.0000000000000001 (rounds to 1)",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1.0000000000000001,"message":"x"}}"#,
        "error",
    ),
    (
        "error, code 2^63 + 1024 (rounds to 2^63)",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":9223372036854776832,"message":"x"}}"#,
        "error",
    ),
    ("id above i64", r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"m"}"#, "request"),
    ("id i64::MIN", r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}"#, "request"),
    ("a batch is not one message", r#"["2.0",1,"ping"]"#, "jsonrpc-invalid"),
    ("whitespace", " \t\n{ \"jsonrpc\" : \"2.0\" , \"method\" : \"m\" }\r\n", "notification"),
    (
        "deep unknown field within the bound",
        r#"{"jsonrpc":"2.0","method":"m","x":[[[[[[[[[[{"a":[]}]]]]]]]]]]}"#,
        "notification",
    ),
    ("non-ASCII in an ignored string", "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"x\":\"\u{FFFD}\"}", "notification"),
    ("a number no f64 holds, in an unread field", r#"{"jsonrpc":"2.0","method":"m","x":1e400}"#, "jsonrpc-parse-error"),
    (
        "the largest f64, in an unread field",
        r#"{"jsonrpc":"2.0","method":"m","x":-1.7976931348623157e308}"#,
        "notification",
    ),
    // Not one JSON value.
    ("empty", "", "jsonrpc-parse-error"),
    ("unclosed", r#"{"jsonrpc":"2.0""#, "jsonrpc-parse-error"),
    ("trailing garbage", r#"{"jsonrpc":"2.0","method":"m"} x"#, "jsonrpc-parse-error"),
    ("leading zero", r#"{"jsonrpc":"2.0","id":01,"method":"m"}"#, "jsonrpc-parse-error"),
    ("leading zero, negative, ignored", r#"{"jsonrpc":"2.0","method":"m","x":-01}"#, "jsonrpc-parse-error"),
    ("bare point", r#"{"jsonrpc":"2.0","method":"m","x":1.}"#, "jsonrpc-parse-error"),
    ("bare exponent", r#"{"jsonrpc":"2.0","method":"m","x":1e}"#, "jsonrpc-parse-error"),
    ("plus sign", r#"{"jsonrpc":"2.0","method":"m","x":+1}"#, "jsonrpc-parse-error"),
    ("bad escape in an ignored string", r#"{"jsonrpc":"2.0","method":"m","x":"\x"}"#, "jsonrpc-parse-error"),
    ("short unicode escape", r#"{"jsonrpc":"2.0","method":"m","x":"\u12"}"#, "jsonrpc-parse-error"),
    ("raw control character", "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"x\":\"a\u{1}b\"}", "jsonrpc-parse-error"),
    ("lone surrogate, ignored", r#"{"jsonrpc":"2.0","method":"m","x":"\ud800"}"#, "jsonrpc-parse-error"),
    ("lone surrogate, id", r#"{"jsonrpc":"2.0","id":"\udc00","method":"m"}"#, "jsonrpc-parse-error"),
    ("trailing comma", r#"{"jsonrpc":"2.0","method":"m",}"#, "jsonrpc-parse-error"),
    (
        "number out of range where read",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1e400,"message":"x"}}"#,
        "jsonrpc-parse-error",
    ),
    ("bad literal", r#"{"jsonrpc":"2.0","method":"m","x":nul}"#, "jsonrpc-parse-error"),
    ("single quotes", "{'jsonrpc':'2.0'}", "jsonrpc-parse-error"),
    ("a batch of ten values", r#"["2.0",1,"m",{},null,null,null,null,null,null]"#, "jsonrpc-invalid"),
    // Not a JSON-RPC message.
    ("top-level string", r#""2.0""#, "jsonrpc-invalid"),
    ("top-level number", "1", "jsonrpc-invalid"),
    ("batch", r#"[{"jsonrpc":"2.0","method":"m"}]"#, "jsonrpc-invalid"),
    ("wrong version", r#"{"jsonrpc":"1.0","method":"m"}"#, "jsonrpc-invalid"),
    ("no version", r#"{"method":"m"}"#, "jsonrpc-invalid"),
    ("null request id", r#"{"jsonrpc":"2.0","id":null,"method":"m"}"#, "jsonrpc-invalid"),
    ("float id", r#"{"jsonrpc":"2.0","id":1.0,"method":"m"}"#, "jsonrpc-invalid"),
    ("id -0 is a float", r#"{"jsonrpc":"2.0","id":-0,"method":"m"}"#, "jsonrpc-invalid"),
    ("id below i64", r#"{"jsonrpc":"2.0","id":-9223372036854775809,"method":"m"}"#, "jsonrpc-invalid"),
    ("method not a string", r#"{"jsonrpc":"2.0","id":1,"method":5}"#, "jsonrpc-invalid"),
    ("params an array", r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[]}"#, "jsonrpc-invalid"),
    ("result and error", r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}"#, "jsonrpc-invalid"),
    ("neither", r#"{"jsonrpc":"2.0","id":1}"#, "jsonrpc-invalid"),
    ("duplicate field", r#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"m"}"#, "jsonrpc-invalid"),
    ("duplicate field, escaped", r#"{"jsonrpc":"2.0","jsonr\u0070c":"2.0","method":"m"}"#, "jsonrpc-invalid"),
    ("duplicate key in an ignored object", r#"{"jsonrpc":"2.0","method":"m","x":{"a":1,"a":2}}"#, "jsonrpc-invalid"),
    (
        "a lone surrogate after a duplicate (the grammar first)",
        r#"{"jsonrpc":"2.0","method":"m","x":{"a":1,"a":2},"y":"\ud800"}"#,
        "jsonrpc-parse-error",
    ),
    (
        "a syntax error after a duplicate known field",
        r#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"m",}"#,
        "jsonrpc-parse-error",
    ),
    (
        "duplicate key in an unread object, escaped",
        r#"{"jsonrpc":"2.0","method":"m","x":{"a":1,"\u0061":2}}"#,
        "jsonrpc-invalid",
    ),
    (
        "a duplicate before a rule's failure (the document first)",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"requestState":1},"x":{"k":1,"k":2}}"#,
        "jsonrpc-invalid",
    ),
    (
        "inputRequests with a key twice",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"},"b":{"method":"roots/list"},"a":{}}}}"#,
        "jsonrpc-invalid",
    ),
    (
        "lone surrogate before a duplicate",
        r#"{"jsonrpc":"2.0","method":"m","y":"\ud800","x":{"a":1,"a":2}}"#,
        "jsonrpc-parse-error",
    ),
    ("error without message", r#"{"jsonrpc":"2.0","id":1,"error":{"code":1}}"#, "jsonrpc-invalid"),
    ("error code 1.5", r#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}"#, "jsonrpc-invalid"),
    (
        "error code 1e19 (beyond i64)",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":1e19,"message":"m"}}"#,
        "jsonrpc-invalid",
    ),
    ("result an array", r#"{"jsonrpc":"2.0","id":1,"result":[]}"#, "jsonrpc-invalid"),
    ("result without id", r#"{"jsonrpc":"2.0","result":{}}"#, "jsonrpc-invalid"),
    (
        "inputRequests key twice, escaped",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"},"\u0061":{"method":"roots/list"}}}}"#,
        "jsonrpc-invalid",
    ),
    // resultType.
    ("unknown resultType", r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"weird"}}"#, "result-type-unknown"),
    ("resultType not a string", r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":1}}"#, "result-type-unknown"),
    // input_required content.
    (
        "empty input_required",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}"#,
        "input-required-empty",
    ),
    (
        "inputRequests an array",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":[]}}"#,
        "input-request-invalid",
    ),
    (
        "input request with jsonrpc",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"jsonrpc":"2.0","method":"roots/list"}}}}"#,
        "input-request-invalid",
    ),
    (
        "unknown input method",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"tools/list","params":{}}}}}"#,
        "input-request-invalid",
    ),
    (
        "elicitation without message",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"requestedSchema":{"type":"object","properties":{}}}}}}}"#,
        "input-request-invalid",
    ),
    (
        "nested object property",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"p":{"type":"object","properties":{}}}}}}}}}"#,
        "input-request-invalid",
    ),
    (
        "required names an unknown property",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"p":{"type":"boolean"}},"required":["q"]}}}}}}"#,
        "input-request-invalid",
    ),
    (
        "url elicitation with elicitationId in 2026-07-28",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"u","elicitationId":"e"}}}}}"#,
        "input-request-invalid",
    ),
    (
        "sampling maxTokens 1.5",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1.5}}}}}"#,
        "input-request-invalid",
    ),
    (
        "elicitation without params",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create"}}}}"#,
        "input-request-invalid",
    ),
    (
        "requestState a number",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":5}}"#,
        "request-state-invalid",
    ),
    (
        "params.requestState null",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"requestState":null}}"#,
        "request-state-invalid",
    ),
    (
        "inputResponses an array",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"inputResponses":[]}}"#,
        "input-responses-malformed",
    ),
    (
        "inputResponses value not an object",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"inputResponses":{"a":1}}}"#,
        "input-responses-malformed",
    ),
    // The draft's envelope fields (rules differ per protocol; all four are compared).
    (
        "draft incomplete response",
        r#"{"jsonrpc":"2.0","id":1,"input_requests":{"r":{"method":"roots/list"}},"request_state":"s"}"#,
        "jsonrpc-invalid",
    ),
    (
        "draft wrapped responses",
        r#"{"jsonrpc":"2.0","id":1,"method":"m","input_responses":{"r":{"roots":[]}}}"#,
        "request",
    ),
];

/// `(bytes, expected)` of every case; a few use bytes a `&str` cannot hold.
fn cases() -> Vec<(String, Vec<u8>, String)> {
    let mut all: Vec<(String, Vec<u8>, String)> =
        CASES.iter().map(|(n, m, e)| (n.to_string(), m.as_bytes().to_vec(), e.to_string())).collect();
    let raw = |name: &str, bytes: &[u8], expect: &str| (name.to_string(), bytes.to_vec(), expect.to_string());
    all.push(raw(
        "invalid UTF-8 in an ignored string is refused all the same (RFC 8259 §8.1)",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"x\":\"\xff\"}",
        "jsonrpc-parse-error",
    ));
    all.push(raw(
        "invalid UTF-8 in a read key",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"\xff\":1}}",
        "jsonrpc-parse-error",
    ));
    all.push(raw("invalid UTF-8 in the method", b"{\"jsonrpc\":\"2.0\",\"method\":\"m\xc3\"}", "jsonrpc-parse-error"));
    all.push(raw(
        "invalid UTF-8 outside strings",
        b"{\"jsonrpc\":\"2.0\",\"method\":\"m\"\xff}",
        "jsonrpc-parse-error",
    ));
    let deep = |key: &str, n: usize| {
        format!(r#"{{"jsonrpc":"2.0","method":"m","{key}":{}{}}}"#, "[".repeat(n), "]".repeat(n)).into_bytes()
    };
    // Limits::max_depth (128 levels, the envelope included), wherever they are.
    all.push(raw("unread nesting at the bound", &deep("x", 127), "notification"));
    all.push(raw("unread nesting over the bound", &deep("x", 128), "limit-exceeded"));
    all.push(raw("read nesting at the bound", &deep("id", 127), "jsonrpc-invalid"));
    all.push(raw("read nesting over the bound", &deep("id", 128), "limit-exceeded"));
    all.push(raw("very deep", &deep("x", 5000), "limit-exceeded"));
    let mut broken = deep("x", 200);
    broken.insert(30, b'!');
    all.push(raw("too deep after a syntax error (the bound first)", &broken, "limit-exceeded"));
    all.push(raw("NUL byte", b"{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\x00", "jsonrpc-parse-error"));
    all
}

fn kind_or_rule(o: &Outcome) -> String {
    match o {
        Outcome::Ok(s) => s.split(' ').next().unwrap_or_default().to_string(),
        Outcome::Err(r) => r.to_string(),
    }
}

#[test]
fn every_case_agrees_under_every_protocol_and_limit_set() {
    let mut failures = Vec::new();
    for (name, bytes, _) in cases() {
        for limits in limit_sets() {
            for protocol in Protocol::ALL {
                if let Some(diff) = differ(&bytes, protocol, &limits) {
                    failures.push(format!("{name}: {diff}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_case_gives_its_expected_outcome() {
    let limits = Limits::default();
    for (name, bytes, expect) in cases() {
        let got = kind_or_rule(&bare(&bytes, Protocol::V2026_07_28, &limits).0);
        assert_eq!(got, expect, "{name}");
        assert_eq!(kind_or_rule(&alloc(&bytes, Protocol::V2026_07_28, &limits)), expect, "{name} (alloc)");
    }
}

#[test]
fn the_list_is_long_enough() {
    assert!(cases().len() >= 60);
}

#[test]
fn values_are_kept() {
    let c = nb::classify(
        br#"{"jsonrpc":"2.0","id":"r\u00e9","method":"tools\/call"}"#,
        Protocol::default(),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(c.kind, nb::Kind::Request);
    assert!(matches!(&c.id, nb::BareId::Str(s) if s.as_str() == "ré"), "{:?}", c.id);
    assert_eq!(c.method.as_deref(), Some("tools/call"));
    let c = nb::classify(
        br#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"task"}}"#,
        Protocol::V2026_07_28,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!((c.kind, c.result_type, c.result_type_present), (nb::Kind::Result, Some(nb::ResultType::Task), true));
    let c = nb::classify(
        br#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"x"}}"#,
        Protocol::V2025_11_25,
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(
        (c.kind, c.result_type, c.result_type_present),
        (nb::Kind::Result, Some(nb::ResultType::Complete), false)
    );
}

#[test]
fn fixed_capacities_are_limit_exceeded() {
    let limits = Limits::default();
    let long = "x".repeat(nb::MAX_METHOD_BYTES + 1);
    let msg = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{long}"}}"#);
    assert_eq!(nb::classify(msg.as_bytes(), Protocol::default(), &limits).unwrap_err().rule().name(), "limit-exceeded");
    let fits = "x".repeat(nb::MAX_METHOD_BYTES);
    let msg = format!(r#"{{"jsonrpc":"2.0","id":"{fits}","method":"{fits}"}}"#);
    assert!(nb::classify(msg.as_bytes(), Protocol::default(), &limits).is_ok());
    let msg = format!(r#"{{"jsonrpc":"2.0","id":"{long}","method":"m"}}"#);
    assert_eq!(nb::classify(msg.as_bytes(), Protocol::default(), &limits).unwrap_err().rule().name(), "limit-exceeded");
    // Maps have no capacity: as many input requests as the limits allow.
    let requests: Vec<String> = (0..1000).map(|i| format!(r#""k{i}":{{"method":"roots/list"}}"#)).collect();
    let msg = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"input_required","inputRequests":{{{}}}}}}}"#,
        requests.join(",")
    );
    assert_eq!(nb::classify(msg.as_bytes(), Protocol::default(), &limits).map(|c| c.kind), Ok(nb::Kind::InputRequired));
}

#[test]
fn allow_list() {
    assert!(nb::check_allow_list("tools/call", Protocol::V2026_07_28).is_ok());
    let e = nb::check_allow_list("tasks/result", Protocol::V2026_07_28).unwrap_err();
    assert_eq!(e.rule().name(), "input-required-method-not-allowed");
    assert!(nb::check_allow_list("tasks/result", Protocol::Sep2322).is_ok());
    assert!(nb::check_allow_list("tools/call", Protocol::V2025_11_25).is_err());
}

#[test]
fn duplicate_keys_in_large_objects_agree() {
    let object = |n: usize, dup: Option<(usize, usize)>| {
        let keys: Vec<String> = (0..n)
            .map(|i| match dup {
                // The repeated key escaped: keys are compared unescaped.
                Some((a, b)) if i == b => format!(r#""\u006b{a}":{i}"#),
                _ => format!(r#""k{i}":[{i},{{"n":{i}}}]"#),
            })
            .collect();
        format!("{{{}}}", keys.join(","))
    };
    let mut failures = Vec::new();
    for n in [2, 63, 64, 65, 128, 129, 200] {
        let mut dups = vec![None, Some((0, 1)), Some((0, n - 1)), Some((n - 2, n - 1))];
        if n > 70 {
            dups.extend([Some((3, 66)), Some((64, 65)), Some((65, 127.min(n - 1))), Some((70, n - 1))]);
        }
        for dup in dups {
            let o = object(n, dup);
            for msg in [
                format!(r#"{{"jsonrpc":"2.0","method":"m","x":{o}}}"#),
                format!(r#"{{"jsonrpc":"2.0","method":"m","params":{{"arguments":{o}}}}}"#),
                format!(r#"{{"jsonrpc":"2.0","id":1,"result":{o}}}"#),
                format!(r#"{{"jsonrpc":"2.0","method":"m","x":[{o},{o}],"y":"\ud800"}}"#),
            ] {
                // A lone surrogate (the grammar) outranks a key twice.
                let expect = if msg.contains("ud800") { "jsonrpc-parse-error" } else { "jsonrpc-invalid" };
                let got = bare(msg.as_bytes(), Protocol::default(), &Limits::default()).0;
                if dup.is_some() && got != Outcome::Err(expect) {
                    failures.push(format!("n={n} dup={dup:?}: bare gave {got:?}"));
                }
                for protocol in Protocol::ALL {
                    if let Some(diff) = differ(msg.as_bytes(), protocol, &Limits::default()) {
                        failures.push(format!("n={n} dup={dup:?}: {diff}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn nesting_agrees_around_every_bound() {
    let mut failures = Vec::new();
    for max_depth in [0, 1, 2, 5, 126, 127, 128, 129, 200, 1100] {
        let limits = Limits { max_depth, ..Limits::default() };
        for n in [0usize, 1, 2, 3, 4, 5, 6, 124, 125, 126, 127, 128, 129, 199, 200, 201, 1022, 1023, 1024, 1099, 1100] {
            for key in ["x", "id", "params", "result"] {
                let open: String = "[{\"a\":".repeat(n / 2) + if n % 2 == 1 { "[" } else { "" };
                let close: String = (if n % 2 == 1 { "]" } else { "" }).to_string() + &"}]".repeat(n / 2);
                let msg = format!(r#"{{"jsonrpc":"2.0","method":"m","{key}":{open}1{close}}}"#);
                for protocol in [Protocol::V2026_07_28, Protocol::Sep2322Draft] {
                    if let Some(diff) = differ(msg.as_bytes(), protocol, &limits) {
                        failures.push(format!("max_depth={max_depth} n={n} key={key}: {diff}"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}
