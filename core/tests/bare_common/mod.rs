//! Shared by the `bare_*` tests: the outcome of every path, comparable. The
//! three paths are `mrtr::bare::classify` and `mrtr::classify` (the strict
//! reader, with and without an allocator) and `mrtr::parse` then
//! `mrtr::classify_value` (the `Value` the builders and the checker read,
//! through the views): one rule engine, two readers of it.

#![allow(dead_code)] // each test file uses part of it

use mrtr::{bare, classify, classify_value, parse, Classified, Id, Limits, Protocol};

/// What a classification says, in terms both paths share.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Kind, id, method, result type, resultType present.
    Ok(String),
    /// The rule id.
    Err(&'static str),
}

/// The allocating path's outcome.
pub fn alloc(bytes: &[u8], protocol: Protocol, limits: &Limits) -> Outcome {
    outcome(classify(bytes, protocol, limits))
}

/// The outcome through a parsed `Value` and the views.
pub fn value(bytes: &[u8], protocol: Protocol, limits: &Limits) -> Outcome {
    match parse(bytes, limits) {
        Ok(v) => outcome(classify_value(&v, protocol, limits)),
        Err(e) => Outcome::Err(e.rule().name()),
    }
}

fn outcome(c: mrtr::Result<Classified<'_>>) -> Outcome {
    match c {
        Ok(c) => {
            let id = match c.id {
                None => "none".to_string(),
                Some(Id::Null) => "null".to_string(),
                Some(Id::Int(i)) => format!("int {i}"),
                Some(Id::UInt(u)) => format!("uint {u}"),
                Some(Id::Str(s)) => format!("str {s:?}"),
            };
            let rt = c.result_type.map(|t| format!("{t:?}"));
            Outcome::Ok(format!(
                "{} id={id} method={:?} type={rt:?} present={}",
                c.kind.name(),
                c.method.as_deref(),
                c.result_type_present
            ))
        }
        Err(e) => Outcome::Err(e.rule().name()),
    }
}

/// The bare path's outcome, and whether a failure is one of its fixed capacities.
pub fn bare(bytes: &[u8], protocol: Protocol, limits: &Limits) -> (Outcome, bool) {
    match bare::classify(bytes, protocol, limits) {
        Ok(c) => {
            let id = match c.id {
                bare::BareId::None => "none".to_string(),
                bare::BareId::Null => "null".to_string(),
                bare::BareId::Int(i) => format!("int {i}"),
                bare::BareId::UInt(u) => format!("uint {u}"),
                bare::BareId::Str(s) => format!("str {:?}", s.as_str()),
            };
            let rt = c.result_type.map(|t| format!("{t:?}"));
            let out = Outcome::Ok(format!(
                "{} id={id} method={:?} type={rt:?} present={}",
                c.kind.name(),
                c.method.as_deref(),
                c.result_type_present
            ));
            (out, false)
        }
        Err(e) => (Outcome::Err(e.rule().name()), e.message().contains("bare capacity")),
    }
}

/// Every path on `bytes`: `None` when they agree (the bare path may instead
/// hit one of its documented fixed capacities), else the difference.
pub fn differ(bytes: &[u8], protocol: Protocol, limits: &Limits) -> Option<String> {
    let a = alloc(bytes, protocol, limits);
    let v = value(bytes, protocol, limits);
    let (b, capacity) = bare(bytes, protocol, limits);
    if a == v && (a == b || capacity) {
        None
    } else {
        Some(format!(
            "{protocol} {limits:?}\n  input: {:?}\n  alloc: {a:?}\n  value: {v:?}\n  bare:  {b:?}",
            String::from_utf8_lossy(bytes)
        ))
    }
}

/// Limits the tests run under: the defaults, and tight ones that bring every
/// bound into play.
pub fn limit_sets() -> [Limits; 2] {
    [
        Limits::default(),
        Limits { max_message_bytes: 4096, max_depth: 6, max_input_requests: 2, max_request_state_bytes: 8 },
    ]
}

/// Valid messages of every kind, the seeds of mutation.
pub const SEEDS: &[&str] = &[
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather","arguments":{"city":"Paris","days":[1,2.5e1,-3]}}}"#,
    r#"{"jsonrpc":"2.0","id":"req-\u00e9","method":"tools/call","params":{"name":"w","inputResponses":{"a":{"action":"accept","content":{"x":"y"}}},"requestState":"s1-opaque-state","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"sampling":{},"roots":{}}}}}"#,
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":0.5,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}}"#,
    r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"opaque","inputRequests":{"name":{"method":"elicitation/create","params":{"message":"Who?","requestedSchema":{"type":"object","properties":{"name":{"type":"string","minLength":1,"format":"email"},"age":{"type":"integer","minimum":0,"maximum":150},"ok":{"type":"boolean"},"color":{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]},"size":{"type":"string","oneOf":[{"const":"s","title":"Small"}]},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]},"minItems":1,"maxItems":2},"multi":{"type":"array","items":{"anyOf":[{"const":"x","title":"X"}]}}},"required":["name"]}}}}}}"#,
    r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"s":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":100}},"r":{"method":"roots/list"},"u":{"method":"elicitation/create","params":{"mode":"url","message":"Go","url":"https://x.example"}}}}}"#,
    r#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"u":{"method":"elicitation/create","params":{"mode":"url","message":"Go","url":"https://x.example","elicitationId":"e1"}}}}}"#,
    r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"done"}],"resultType":"complete"}}"#,
    r#"{"jsonrpc":"2.0","id":6,"result":{"resultType":"task","taskId":"t1","status":"working"}}"#,
    r#"{"jsonrpc":"2.0","id":7,"result":{}}"#,
    r#"{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"Invalid Request","data":{"why":[null,true,false]}}}"#,
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
    r#"{"jsonrpc":"2.0","id":9,"input_requests":{"r":{"method":"roots/list","params":{}}},"request_state":"d1-opaque-state"}"#,
    r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"x"},"input_responses":{"r":{"result":{"roots":[{"uri":"file:///a"}]}}},"request_state":"d1"}"#,
    r#" [ "2.0" , 11 , "ping" ] "#,
];
