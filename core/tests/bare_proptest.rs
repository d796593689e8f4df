//! Differential property tests: `mrtr::bare::classify` (no allocator) against
//! `mrtr::classify` (serde_json) on arbitrary bytes, on mutated valid messages,
//! on arbitrary JSON spliced into messages, and on arbitrary numbers where the
//! views read them. Both must give the same outcome: both `Ok` with the same
//! kind, id, method and result type, or both `Err` with the same rule id.
//!
//! The one exclusion is the bare path's documented fixed capacities (a failure
//! whose message names a `bare capacity`); see `mrtr::bare`.

mod bare_common;

use bare_common::{differ, limit_sets, SEEDS};
use mrtr::Protocol;
use proptest::prelude::*;

/// 2048 cases per test; `BARE_PROPTEST_CASES` raises it for a long run.
fn config() -> ProptestConfig {
    let cases = std::env::var("BARE_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2048);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

fn check_all(bytes: &[u8]) -> Result<(), TestCaseError> {
    for limits in limit_sets() {
        for protocol in Protocol::ALL {
            if let Some(diff) = differ(bytes, protocol, &limits) {
                return Err(TestCaseError::fail(diff));
            }
        }
    }
    Ok(())
}

/// Bytes that matter to a JSON scanner, and a few that do not.
const ALPHABET: &[u8] = b"{}[]\",:\\ \t\n0123456789-+.eEuUdDabcfnrtls\x00\x1f\x7f\xc3\xa9\xff";

fn json_byte() -> impl Strategy<Value = u8> {
    prop_oneof![4 => prop::sample::select(ALPHABET), 1 => any::<u8>()]
}

#[derive(Clone, Debug)]
enum Mutation {
    Replace(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    Duplicate(usize, usize),
    InsertText(usize, &'static str),
    Truncate(usize),
}

/// Pieces of JSON (and near-JSON) worth inserting whole.
const SNIPPETS: &[&str] = &[
    "01",
    "-0",
    "1.",
    "-01",
    "1e",
    "1e400",
    "-1e-400",
    "1.5",
    "1E+2",
    "18446744073709551616",
    "-9223372036854775809",
    "\\x",
    "\\u00",
    "\\ud800",
    "\\udc00",
    "\\ud83d\\ude00",
    "\\u0041",
    "\\\"",
    "\"\"",
    "null",
    "nul",
    "true",
    "[]",
    "{}",
    "[[[[[[[[",
    "]]]]]]]]",
    "{\"a\":1}",
    "\"jsonrpc\":\"2.0\",",
    "\"id\":1,",
    "\"method\":\"x\",",
    "\"result\":{},",
    "\"error\":{\"code\":1,\"message\":\"m\"},",
    "\"params\":[],",
    "\"requestState\":1,",
    "\"resultType\":\"input_required\",",
    "\"inputRequests\":{},",
    "\"inputResponses\":{\"a\":1},",
    "\"input_requests\":{},",
    "\"request_state\":\"s\",",
    "\"k\":1,\"k\":2,",
    ",",
    ":",
];

fn mutation(len: usize) -> impl Strategy<Value = Mutation> {
    let at = 0..=len;
    prop_oneof![
        (at.clone(), json_byte()).prop_map(|(i, b)| Mutation::Replace(i, b)),
        (at.clone(), json_byte()).prop_map(|(i, b)| Mutation::Insert(i, b)),
        at.clone().prop_map(Mutation::Delete),
        (at.clone(), 1usize..24).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        (at.clone(), prop::sample::select(SNIPPETS)).prop_map(|(i, s)| Mutation::InsertText(i, s)),
        at.prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len();
    match *m {
        Mutation::Replace(i, b) if i < len => bytes[i] = b,
        Mutation::Replace(..) => {}
        Mutation::Insert(i, b) => bytes.insert(i.min(len), b),
        Mutation::Delete(i) if i < len => {
            bytes.remove(i);
        }
        Mutation::Delete(_) => {}
        Mutation::Duplicate(i, n) => {
            let i = i.min(len);
            let piece: Vec<u8> = bytes[i..(i + n).min(len)].to_vec();
            bytes.splice(i..i, piece);
        }
        Mutation::InsertText(i, s) => {
            bytes.splice(i.min(len)..i.min(len), s.bytes());
        }
        Mutation::Truncate(i) => bytes.truncate(i.max(len / 2)),
    }
}

fn mutated() -> impl Strategy<Value = Vec<u8>> {
    prop::sample::select(SEEDS).prop_flat_map(|seed| {
        prop::collection::vec(mutation(seed.len()), 1..5).prop_map(move |ms| {
            let mut bytes = seed.as_bytes().to_vec();
            for m in &ms {
                apply(&mut bytes, m);
            }
            bytes
        })
    })
}

/// A JSON number as text, including ones serde_json reads oddly.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        "-?(0|[1-9][0-9]{0,22})(\\.[0-9]{1,22})?([eE][+-]?[0-9]{1,3})?",
        "-?[1-9][0-9]{15,20}(\\.[0-9]{1,4})?",
        "-?(0|[1-9])\\.(0{14,18}[0-9]|9{14,18}[0-9]?)",
        "-?[1-9](\\.[0-9]{1,3})?e(30[0-9]|-3[0-3][0-9]|-(32[0-9])|1[0-9]{2}|-?99999999999)",
        "-?(1797693134862315[0-9]{0,6}e292|1\\.797693134862315[0-9]{0,6}e308|2\\.470328229206232[0-9]{0,6}e-324)",
        "-?(92233720368547[0-9]{5}(\\.[0-9]{1,3})?|18446744073709551[0-9]{3})",
        "-?(0|[1-9][0-9]{0,3})",
    ]
}

/// A string body with escapes, surrogates and non-ASCII.
fn string_body() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            "[a-z/_\\-]{1,6}",
            Just("\\\"".to_string()),
            Just("\\\\".to_string()),
            Just("\\n".to_string()),
            Just("\\u00e9".to_string()),
            Just("\\ud83d\\ude00".to_string()),
            Just("\\ud800".to_string()),
            Just("é".to_string()),
            Just("\\u0061".to_string()),
        ],
        0..5,
    )
    .prop_map(|parts| parts.concat())
}

/// An arbitrary JSON value as text (possibly with duplicate keys).
fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        number(),
        string_body().prop_map(|s| format!("\"{s}\"")),
        prop::sample::select(
            &[
                "\"2.0\"",
                "\"input_required\"",
                "\"complete\"",
                "\"task\"",
                "\"roots/list\"",
                "\"elicitation/create\"",
                "\"sampling/createMessage\"",
                "\"url\"",
                "\"form\"",
                "\"user\"",
                "\"string\"",
                "\"object\"",
                "\"array\"",
                "\"email\""
            ][..]
        )
        .prop_map(str::to_string),
    ];
    let keys = prop::sample::select(
        &[
            "jsonrpc",
            "id",
            "method",
            "params",
            "result",
            "error",
            "code",
            "message",
            "resultType",
            "inputRequests",
            "requestState",
            "inputResponses",
            "input_requests",
            "request_state",
            "input_responses",
            "mode",
            "url",
            "elicitationId",
            "requestedSchema",
            "type",
            "properties",
            "required",
            "messages",
            "role",
            "content",
            "maxTokens",
            "items",
            "enum",
            "oneOf",
            "anyOf",
            "const",
            "title",
            "x",
            "a",
            "jsonr\\u0070c",
            "_meta",
        ][..],
    );
    leaf.prop_recursive(4, 24, 5, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((keys.clone(), inner), 0..5).prop_map(|kv| {
                let body: Vec<String> = kv.into_iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
                format!("{{{}}}", body.join(","))
            }),
        ]
    })
}

/// Templates with one hole, where the views read the value.
const TEMPLATES: &[&str] = &[
    "@",
    r#"{"jsonrpc":"2.0","id":@,"method":"m"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":@}"#,
    r#"{"jsonrpc":@,"id":1,"method":"m"}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"m","params":@}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"inputResponses":@,"requestState":"s"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"requestState":@}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":@}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":@}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":@}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":@}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":@}}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":@}}}}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"p":@}}}}}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"sampling/createMessage","params":@}}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{}}],"maxTokens":@}}}}}"#,
    r#"{"jsonrpc":"2.0","id":1,"error":@}"#,
    r#"{"jsonrpc":"2.0","id":1,"error":{"code":@,"message":"m"}}"#,
    r#"{"jsonrpc":"2.0","id":1,"x":@,"method":"m"}"#,
    r#"{"jsonrpc":"2.0","id":1,"input_requests":@}"#,
    r#"{"jsonrpc":"2.0","id":1,"method":"m","input_responses":@}"#,
    r#"["2.0",1,"m",@]"#,
];

fn spliced() -> impl Strategy<Value = Vec<u8>> {
    (prop::sample::select(TEMPLATES), json_value()).prop_map(|(t, v)| t.replace('@', &v).into_bytes())
}

fn numbers_where_read() -> impl Strategy<Value = Vec<u8>> {
    let templates = prop::sample::select(
        &[
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":@,"message":"m"}}"#,
            r#"{"jsonrpc":"2.0","id":@,"method":"m"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":@}}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"p":{"type":"string","minLength":@}}}}}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"x":@,"method":"m"}"#,
            "@",
        ][..],
    );
    (templates, number()).prop_map(|(t, n)| t.replace('@', &n).into_bytes())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn arbitrary_bytes_agree(bytes in prop::collection::vec(json_byte(), 0..96)) {
        check_all(&bytes)?;
    }

    #[test]
    fn mutated_messages_agree(bytes in mutated()) {
        check_all(&bytes)?;
    }

    #[test]
    fn spliced_json_agrees(bytes in spliced()) {
        check_all(&bytes)?;
    }

    #[test]
    fn numbers_agree(bytes in numbers_where_read()) {
        check_all(&bytes)?;
    }
}
