//! Property tests of the public API.
//!
//! (a) No input panics: arbitrary bytes, arbitrary JSON (a tree that may hold
//!     duplicate keys and odd numbers), and valid MRTR messages with random
//!     mutations, fed to `classify`, `classify_value`, `check::check`,
//!     `client::retry`, `server::respond` and `server::resume` under every
//!     protocol and two sets of limits.
//! (b) Round trips: bytes → `Value` → bytes classifies the same; `classify`
//!     and `classify_value` agree; the retry `client::retry` builds keeps every
//!     field of the original request apart from `id`, `inputResponses` and
//!     `requestState`; a conversation the library builds passes its own checker.
//! (c) Every error carries a rule of the catalogue, with the catalogue's code.

use mrtr::{
    check::{self, CheckConfig, Entry, Side},
    classify, classify_value, client, dialect,
    rules::{RuleId, RULES},
    server, Error, Kind, Limits, Protocol,
};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const CASES: u32 = 256;

fn config() -> ProptestConfig {
    ProptestConfig {
        // PROPTEST_CASES raises the count for a longer hunt.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(CASES),
        // No regression file next to the sources; a failure prints its minimal input.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// The default limits and a tight set that makes every bound reachable.
const LIMITS: [Limits; 2] = [
    Limits::DEFAULT,
    Limits { max_message_bytes: 400, max_depth: 4, max_input_requests: 1, max_request_state_bytes: 4 },
];

/// The protocols with MRTR (the ones that allow `input_required`).
const MRTR: [Protocol; 3] = [Protocol::V2026_07_28, Protocol::Sep2322, Protocol::Sep2322Draft];

// ---------------------------------------------------------------------------
// (c) errors carry catalogue rules
// ---------------------------------------------------------------------------

/// The rules `classify` documents that it fails with.
const CLASSIFY_RULES: [RuleId; 9] = [
    RuleId::JsonrpcParseError,
    RuleId::JsonrpcInvalid,
    RuleId::LimitExceeded,
    RuleId::ResultTypeUnknown,
    RuleId::InputRequestInvalid,
    RuleId::InputRequiredEmpty,
    RuleId::RequestStateInvalid,
    RuleId::StateTooLarge,
    RuleId::InputResponsesMalformed,
];

fn assert_catalogued(rule: RuleId, code: Option<i32>) {
    let rows: Vec<_> = RULES.iter().filter(|r| r.id == rule).collect();
    assert_eq!(rows.len(), 1, "{rule:?} has {} catalogue rows", rows.len());
    let row = rows[0];
    assert_eq!(code, row.code, "{rule}: code {code:?}, catalogue {:?}", row.code);
    assert_eq!(rule.code(), row.code, "{rule}");
    assert_eq!(rule.name(), row.name);
    assert_eq!(RuleId::from_name(row.name), Some(rule));
    assert_eq!(RuleId::from_u16(rule as u16), Some(rule));
    // JSON-RPC 2.0's codes, and those 2026-07-28 defines (-32020 to -32022:
    // header mismatch, missing client capability, unsupported version).
    assert!(
        matches!(code, None | Some(-32700 | -32600 | -32602 | -32603 | -32022..=-32020)),
        "{rule}: code {code:?} is no JSON-RPC code the rules name"
    );
}

fn assert_error(e: &Error) {
    assert_catalogued(e.rule(), e.code());
    assert!(!e.message().is_empty(), "{:?} has an empty message", e.rule());
}

fn assert_classify_error(e: &Error) {
    assert_error(e);
    assert!(CLASSIFY_RULES.contains(&e.rule()), "classify failed with {}, which it does not document: {e}", e.rule());
}

/// What `server::respond` builds is an `input_required` answer under its protocol.
/// (Under the default limits: respond bounds what it reads, not the size or
/// depth of what it writes.)
fn assert_answer_classifies(answer: &Value, protocol: Protocol) {
    let bytes = serde_json::to_vec(answer).unwrap();
    let c = classify(&bytes, protocol, &Limits::DEFAULT);
    assert!(
        matches!(&c, Ok(c) if c.kind == Kind::InputRequired),
        "{protocol}: respond built {answer}, which classifies as {c:?}"
    );
}

fn assert_violations(v: &[check::Violation], entries: usize) {
    for v in v {
        assert_catalogued(v.rule, v.rule.code());
        assert!(v.index < entries, "violation at {} of {entries} entries", v.index);
        assert!(!v.message.is_empty());
    }
}

// ---------------------------------------------------------------------------
// A JSON tree that can hold what `serde_json::Value` cannot: duplicate keys,
// numbers exactly as written, strings written with escapes.
// ---------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum J {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// How a tree is written.
#[derive(Clone, Copy, Debug)]
enum Style {
    /// No whitespace (as `serde_json::to_vec`).
    Compact,
    /// Whitespace around every token.
    Spaced,
    /// Compact, with `\u` escapes for non-ASCII and some letters, and `\/`.
    Escaped,
}

impl J {
    fn from_value(v: &Value) -> J {
        match v {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Number(n) => J::Num(n.to_string()),
            Value::String(s) => J::Str(s.clone()),
            Value::Array(a) => J::Arr(a.iter().map(J::from_value).collect()),
            Value::Object(o) => J::Obj(o.iter().map(|(k, v)| (k.clone(), J::from_value(v))).collect()),
        }
    }

    fn to_bytes(&self, style: Style) -> Vec<u8> {
        let mut out = String::new();
        self.write(&mut out, style);
        out.into_bytes()
    }

    fn write(&self, out: &mut String, style: Style) {
        let ws = |out: &mut String| {
            if matches!(style, Style::Spaced) {
                out.push_str(" \n\t");
            }
        };
        ws(out);
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Num(n) => out.push_str(n),
            J::Str(s) => write_str(s, out, style),
            J::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out, style);
                }
                ws(out);
                out.push(']');
            }
            J::Obj(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    ws(out);
                    write_str(k, out, style);
                    ws(out);
                    out.push(':');
                    v.write(out, style);
                }
                ws(out);
                out.push('}');
            }
        }
        ws(out);
    }
}

fn write_str(s: &str, out: &mut String, style: Style) {
    let escaped = matches!(style, Style::Escaped);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' if escaped => out.push_str("\\/"),
            c if (c as u32) < 0x20 || (escaped && (!c.is_ascii() || "aeiou".contains(c))) => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

// ---------------------------------------------------------------------------
// Strategies: arbitrary JSON, biased towards MRTR's vocabulary
// ---------------------------------------------------------------------------

const KEYS: &[&str] = &[
    "jsonrpc",
    "id",
    "method",
    "params",
    "result",
    "error",
    "code",
    "message",
    "data",
    "resultType",
    "inputRequests",
    "inputResponses",
    "requestState",
    "input_requests",
    "input_responses",
    "request_state",
    "_meta",
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/related-task",
    "elicitation",
    "sampling",
    "roots",
    "form",
    "url",
    "mode",
    "requestedSchema",
    "type",
    "properties",
    "required",
    "$schema",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "enum",
    "enumNames",
    "oneOf",
    "anyOf",
    "items",
    "const",
    "title",
    "minItems",
    "maxItems",
    "messages",
    "role",
    "content",
    "maxTokens",
    "elicitationId",
    "action",
    "model",
    "uri",
    "name",
    "arguments",
    "taskId",
    "task",
    "status",
    "text",
];

const STRINGS: &[&str] = &[
    "2.0",
    "tools/call",
    "prompts/get",
    "resources/read",
    "tasks/result",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "tasks/input_response",
    "elicitation/create",
    "sampling/createMessage",
    "roots/list",
    "ping",
    "notifications/progress",
    "input_required",
    "complete",
    "task",
    "form",
    "url",
    "accept",
    "decline",
    "cancel",
    "user",
    "assistant",
    "object",
    "string",
    "number",
    "integer",
    "boolean",
    "array",
    "date",
    "date-time",
    "email",
    "uri",
    "file:///tmp",
    "https://x",
    "working",
    "completed",
    "failed",
    "cancelled",
    "2026-07-28",
    "2026-02-30",
    "a@b.c",
    "2026-07-28T10:00:00Z",
    "2026-07-28T10:00:00.5+02:00",
    "2026-07-28T",
    "post:1",
    "get",
    "",
];

fn j_string() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(STRINGS).prop_map(String::from),
        // Near the string formats' grammars, with non-ASCII where digits go.
        1 => "(2026-07-28[Tt]|[a-z]{0,3}[@:])[0-9:.+Z\u{e9}\u{1F600}-]{0,12}",
        1 => "\\PC{0,8}",
        1 => ".{0,6}",
    ]
}

fn j_key() -> impl Strategy<Value = String> {
    prop_oneof![
        5 => prop::sample::select(KEYS).prop_map(String::from),
        1 => j_string(),
    ]
}

fn j_number() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (-3i64..20).prop_map(|n| n.to_string()),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<u64>().prop_map(|n| n.to_string()),
        1 => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| format!("{f:?}")),
        1 => prop::sample::select(&[
            "-0", "0.0", "1.0", "1.5", "2e0", "1E400", "-1e400", "1e-400",
            "18446744073709551616", "-9223372036854775809", "9223372036854775808",
            "0.30000000000000004",
        ][..])
        .prop_map(String::from),
    ]
}

fn j_leaf() -> impl Strategy<Value = J> {
    prop_oneof![
        1 => Just(J::Null),
        1 => any::<bool>().prop_map(J::Bool),
        1 => j_number().prop_map(J::Num),
        3 => j_string().prop_map(J::Str),
    ]
}

fn j_tree() -> BoxedStrategy<J> {
    j_leaf()
        .prop_recursive(6, 96, 6, |inner| {
            prop_oneof![
                1 => prop::collection::vec(inner.clone(), 0..5).prop_map(J::Arr),
                3 => prop::collection::vec((j_key(), inner), 0..7).prop_map(J::Obj),
            ]
        })
        .boxed()
}

fn style() -> impl Strategy<Value = Style> {
    prop_oneof![Just(Style::Compact), Just(Style::Spaced), Just(Style::Escaped)]
}

/// Arbitrary JSON as a `Value` (no duplicate keys, numbers serde_json keeps).
fn arb_value() -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::from),
        1 => (-3i64..20).prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        3 => j_string().prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            1 => prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            3 => prop::collection::vec((j_key(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
    .boxed()
}

/// One edit of a `Value`: descend along `path` (indices modulo the
/// container's size), then replace, insert, remove or push.
#[derive(Clone, Debug)]
struct Mutation {
    path: Vec<u32>,
    op: u8,
    key: String,
    value: Value,
}

fn mutation() -> BoxedStrategy<Mutation> {
    (prop::collection::vec(any::<u32>(), 0..7), 0u8..5, j_key(), arb_value())
        .prop_map(|(path, op, key, value)| Mutation { path, op, key, value })
        .boxed()
}

fn mutate(v: &mut Value, m: &Mutation) {
    fn go(v: &mut Value, path: &[u32], m: &Mutation) {
        if let Some((&step, rest)) = path.split_first() {
            let i = step as usize;
            match v {
                Value::Object(o) if !o.is_empty() && !rest.is_empty() => {
                    let n = o.len();
                    return go(o.values_mut().nth(i % n).unwrap(), rest, m);
                }
                Value::Array(a) if !a.is_empty() && !rest.is_empty() => {
                    let n = a.len();
                    return go(&mut a[i % n], rest, m);
                }
                _ => {}
            }
        }
        let step = path.first().copied().unwrap_or(0) as usize;
        match (m.op, v) {
            (0, v) => *v = m.value.clone(),
            (1 | 4, Value::Object(o)) => {
                o.insert(m.key.clone(), m.value.clone());
            }
            (2, Value::Object(o)) if !o.is_empty() => {
                let k = o.keys().nth(step % o.len()).unwrap().clone();
                o.shift_remove(&k);
            }
            (2, Value::Array(a)) if !a.is_empty() => {
                a.remove(step % a.len());
            }
            (3, Value::Array(a)) => a.push(m.value.clone()),
            // Replace a value below an object key with another of a different kind.
            (4, v) => *v = m.value.clone(),
            _ => {}
        }
    }
    go(v, &m.path, m)
}

// ---------------------------------------------------------------------------
// Strategies: valid MRTR messages
// ---------------------------------------------------------------------------

fn arb_id() -> impl Strategy<Value = Value> {
    prop_oneof![
        (0i64..1000).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        ((i64::MAX as u64 + 1)..=u64::MAX).prop_map(Value::from),
        "[a-z0-9é\"\\\\/ -]{0,10}".prop_map(Value::from),
    ]
}

/// Unknown fields: keys no protocol reads, arbitrary values.
fn unknown_fields(max: usize) -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec(("x-[a-zA-Z]{1,6}", arb_value()), 0..=max)
}

/// A form property and a value that fits it.
fn form_property() -> BoxedStrategy<(Value, Value)> {
    prop_oneof![
        "\\PC{0,8}".prop_map(|s| (json!({"type": "string"}), json!(s))),
        (0u64..3, 0u64..5, "[a-zé]{0,8}").prop_map(|(min, extra, s)| {
            let n = s.chars().count() as u64;
            let value: String = if n < min { "x".repeat(min as usize) } else { s };
            let len = value.chars().count() as u64;
            (
                json!({"type": "string", "minLength": min, "maxLength": len.max(min) + extra,
                       "title": "Text", "description": "Any text"}),
                json!(value),
            )
        }),
        prop::sample::select(
            &[
                ("date", "2026-07-28"),
                ("date-time", "2026-07-28T10:00:00Z"),
                ("date-time", "2026-07-28t10:00:00.123-05:30"),
                ("email", "octocat@github.com"),
                ("uri", "https://example.com/a?b"),
                ("uri", "urn:isbn:0451450523"),
            ][..]
        )
        .prop_map(|(f, v)| (json!({"type": "string", "format": f}), json!(v))),
        (prop::collection::vec("[a-z]{1,5}", 1..4), any::<prop::sample::Index>(), any::<bool>()).prop_map(
            |(values, pick, names)| {
                let v = values[pick.index(values.len())].clone();
                let mut schema = json!({"type": "string", "enum": values});
                if names {
                    schema["enumNames"] = json!(values.iter().map(|s| s.to_uppercase()).collect::<Vec<_>>());
                }
                (schema, json!(v))
            }
        ),
        (prop::collection::vec("[a-z]{1,5}", 1..4), any::<prop::sample::Index>()).prop_map(|(values, pick)| {
            let one_of: Vec<_> = values.iter().map(|v| json!({"const": v, "title": v.to_uppercase()})).collect();
            (json!({"type": "string", "oneOf": one_of}), json!(values[pick.index(values.len())]))
        }),
        (-100i64..100, 0i64..100, 0.0f64..1.0).prop_map(|(min, span, t)| {
            let value = min as f64 + t * span as f64;
            (json!({"type": "number", "minimum": min, "maximum": min + span}), json!(value))
        }),
        any::<i32>().prop_map(|n| (json!({"type": "integer"}), json!(n))),
        any::<bool>().prop_map(|b| (json!({"type": "boolean", "default": false}), json!(b))),
        (prop::collection::vec("[a-z]{1,5}", 1..4), any::<prop::sample::Index>(), any::<bool>()).prop_map(
            |(values, pick, titled)| {
                let items = if titled {
                    json!({"anyOf": values.iter().map(|v| json!({"const": v, "title": v})).collect::<Vec<_>>()})
                } else {
                    json!({"type": "string", "enum": values})
                };
                let chosen = vec![values[pick.index(values.len())].clone()];
                (json!({"type": "array", "items": items, "minItems": 0, "maxItems": values.len()}), json!(chosen))
            }
        ),
    ]
    .boxed()
}

/// A valid input request for `protocol` and a valid response to it.
fn input_pair(protocol: Protocol) -> BoxedStrategy<(Value, Value)> {
    let form = (
        prop::collection::vec((form_property(), any::<bool>(), any::<bool>()), 0..5),
        "\\PC{0,12}",
        prop::sample::select(&["accept", "accept", "decline", "cancel"][..]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(props, message, action, explicit_mode, with_content)| {
            let mut properties = Map::new();
            let mut required = Vec::new();
            let mut content = Map::new();
            for (i, ((schema, value), is_required, answered)) in props.into_iter().enumerate() {
                let name = format!("f{i}");
                properties.insert(name.clone(), schema);
                if is_required {
                    required.push(name.clone());
                }
                if is_required || answered {
                    content.insert(name, value);
                }
            }
            let mut params = json!({
                "message": message,
                "requestedSchema": {"type": "object", "properties": properties, "required": required},
            });
            if explicit_mode {
                params["mode"] = json!("form");
            }
            let response = match action {
                "accept" if with_content => json!({"action": "accept", "content": content}),
                action => json!({"action": action}),
            };
            (json!({"method": "elicitation/create", "params": params}), response)
        });
    let with_id = protocol != Protocol::V2026_07_28;
    let url =
        ("https://[a-z]{1,8}\\.example/[a-z0-9]{0,8}", prop::sample::select(&["accept", "decline", "cancel"][..]))
            .prop_map(move |(url, action)| {
                let mut params = json!({"mode": "url", "message": "Sign in", "url": url});
                if with_id {
                    params["elicitationId"] = json!("e-1");
                }
                (json!({"method": "elicitation/create", "params": params}), json!({"action": action}))
            });
    let sampling = (
        prop::collection::vec((prop::sample::select(&["user", "assistant"][..]), "\\PC{0,12}"), 0..3),
        1u32..4096,
        "\\PC{0,12}",
    )
        .prop_map(|(messages, max_tokens, answer)| {
            let messages: Vec<_> = messages
                .into_iter()
                .map(|(role, text)| json!({"role": role, "content": {"type": "text", "text": text}}))
                .collect();
            (
                json!({"method": "sampling/createMessage", "params": {
                    "messages": messages, "maxTokens": max_tokens,
                    "systemPrompt": "You are a helpful assistant.",
                    "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.5}
                }}),
                json!({"role": "assistant", "content": {"type": "text", "text": answer},
                       "model": "claude-3", "stopReason": "endTurn"}),
            )
        });
    let roots = (any::<bool>(), prop::collection::vec("[a-z]{1,8}", 0..3)).prop_map(|(with_params, names)| {
        let request =
            if with_params { json!({"method": "roots/list", "params": {}}) } else { json!({"method": "roots/list"}) };
        let roots: Vec<_> = names.iter().map(|n| json!({"uri": format!("file:///home/{n}"), "name": n})).collect();
        (request, json!({"roots": roots}))
    });
    prop_oneof![form, url, sampling, roots].boxed()
}

/// The `inputRequests` and matching `inputResponses` of one round.
fn input_round(protocol: Protocol) -> BoxedStrategy<(Map<String, Value>, Map<String, Value>)> {
    ("[a-zA-Z_é\"/]{0,6}", prop::collection::vec(input_pair(protocol), 0..5))
        .prop_map(|(prefix, pairs)| {
            let (mut requests, mut responses) = (Map::new(), Map::new());
            for (i, (request, response)) in pairs.into_iter().enumerate() {
                requests.insert(format!("{prefix}{i}"), request);
                responses.insert(format!("{prefix}{i}"), response);
            }
            (requests, responses)
        })
        .boxed()
}

fn meta() -> impl Strategy<Value = Value> {
    unknown_fields(2).prop_map(|extra| {
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "elicitation": {"form": {}, "url": {}},
                "sampling": {},
                "roots": {"listChanged": true}
            }
        });
        let m = meta.as_object_mut().unwrap();
        m.extend(extra);
        meta
    })
}

/// A request a server may answer with `input_required` (in `sep-2322` shape),
/// without MRTR fields.
fn fresh_request() -> BoxedStrategy<Value> {
    (
        prop::sample::select(&["tools/call", "prompts/get", "resources/read"][..]),
        arb_id(),
        "[a-z_]{1,12}",
        prop::collection::vec(("[a-zA-Z]{1,6}", arb_value()), 0..4),
        meta(),
        unknown_fields(2),
        unknown_fields(2),
    )
        .prop_map(|(method, id, name, arguments, meta, params_extra, envelope_extra)| {
            let mut params = Map::new();
            if method == "resources/read" {
                params.insert("uri".into(), json!(format!("file:///{name}")));
            } else {
                params.insert("name".into(), json!(name));
                params.insert("arguments".into(), Value::Object(arguments.into_iter().collect()));
            }
            params.insert("_meta".into(), meta);
            params.extend(params_extra);
            let mut request = Map::new();
            request.insert("jsonrpc".into(), json!("2.0"));
            request.insert("id".into(), id);
            request.insert("method".into(), json!(method));
            request.insert("params".into(), Value::Object(params));
            request.extend(envelope_extra);
            Value::Object(request)
        })
        .boxed()
}

fn request_state() -> impl Strategy<Value = Option<String>> {
    prop::option::of("[A-Za-z0-9+/=._-]{0,40}")
}

/// One exchange of `protocol`, in `sep-2322` shape: a fresh request, the
/// `input_required` result answering it, the responses, and the retry's id.
#[derive(Clone, Debug)]
struct Exchange {
    protocol: Protocol,
    request: Value,
    result: Value,
    requests: Map<String, Value>,
    responses: Map<String, Value>,
    state: Option<String>,
    retry_id: Value,
}

fn exchange() -> BoxedStrategy<Exchange> {
    prop::sample::select(&MRTR[..]).prop_flat_map(exchange_for).boxed()
}

fn exchange_for(protocol: Protocol) -> BoxedStrategy<Exchange> {
    {
        (fresh_request(), input_round(protocol), request_state(), any::<bool>(), unknown_fields(2), arb_id()).prop_map(
            move |(request, (requests, responses), state, omit_requests, result_extra, retry_id)| {
                // 2026-07-28 needs inputRequests or requestState; the draft
                // cannot write an input_required result with neither.
                let omit_requests =
                    omit_requests && requests.is_empty() && (state.is_some() || protocol == Protocol::Sep2322);
                let mut result = Map::new();
                result.insert("resultType".into(), json!("input_required"));
                if !omit_requests {
                    result.insert("inputRequests".into(), Value::Object(requests.clone()));
                }
                if let Some(s) = &state {
                    result.insert("requestState".into(), json!(s));
                }
                result.extend(result_extra);
                let result = json!({"jsonrpc": "2.0", "id": request["id"].clone(), "result": result});
                Exchange { protocol, request, result, requests, responses, state, retry_id }
            },
        )
    }
    .boxed()
}

/// A message in the protocol's own wire shape.
fn wire(message: &Value, protocol: Protocol) -> Value {
    if protocol == Protocol::Sep2322Draft {
        dialect::from_sep(message)
    } else {
        message.clone()
    }
}

/// Valid messages of every kind for `protocol`, in `sep-2322` shape, with the kind they are.
fn valid_message(protocol: Protocol) -> BoxedStrategy<(Value, Kind)> {
    prop_oneof![
        2 => fresh_request().prop_map(|r| (r, Kind::Request)),
        3 => (exchange_for(protocol), request_state()).prop_map(|(x, prev_state)| {
            // A request that already carries a previous round's fields.
            let mut r = x.request.clone();
            let params = r["params"].as_object_mut().unwrap();
            params.insert("inputResponses".into(), Value::Object(x.responses));
            if let Some(s) = prev_state {
                params.insert("requestState".into(), json!(s));
            }
            (r, Kind::Request)
        }),
        4 => exchange_for(protocol).prop_map(|x| (x.result, Kind::InputRequired)),
        1 => (arb_id(), arb_value(), any::<bool>()).prop_map(|(id, content, typed)| {
            let mut result = json!({"content": [{"type": "text", "text": content.to_string()}], "isError": false});
            if typed {
                result["resultType"] = json!("complete");
            }
            (json!({"jsonrpc": "2.0", "id": id, "result": result}), Kind::Result)
        }),
        1 => (arb_id(), -33000i64..-32000, "\\PC{0,10}").prop_map(|(id, code, message)| {
            (json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}), Kind::Error)
        }),
        1 => (prop::sample::select(&["notifications/progress", "notifications/cancelled"][..]), arb_value()).prop_map(
            |(method, data)| {
                (json!({"jsonrpc": "2.0", "method": method, "params": {"data": data}}), Kind::Notification)
            }
        ),
    ]
    .boxed()
}

/// A message as bytes, possibly far from valid.
fn any_bytes() -> BoxedStrategy<Vec<u8>> {
    let tokens: &[&[u8]] = &[
        b"{",
        b"}",
        b"[",
        b"]",
        b":",
        b",",
        b" ",
        b"\"",
        b"\\",
        b"\\u00",
        b"\\ud800",
        b"null",
        b"true",
        b"1",
        b"-0",
        b"1e999",
        b"\"jsonrpc\"",
        b"\"2.0\"",
        b"\"id\"",
        b"\"method\"",
        b"\"params\"",
        b"\"result\"",
        b"\"error\"",
        b"\"resultType\"",
        b"\"input_required\"",
        b"\"inputRequests\"",
        b"\"requestState\"",
        b"\"inputResponses\"",
        b"\"input_requests\"",
        b"\"request_state\"",
        b"\"input_responses\"",
        b"\"tools/call\"",
        b"\xff",
    ];
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        prop::collection::vec(prop::sample::select(tokens), 0..60).prop_map(|t| t.concat()),
        (j_tree(), style()).prop_map(|(j, s)| j.to_bytes(s)),
        // A valid message with bytes flipped, cut or inserted.
        (
            prop::sample::select(&MRTR[..]).prop_flat_map(valid_message),
            style(),
            prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4)
        )
            .prop_map(|((m, _), s, edits)| {
                let mut b = J::from_value(&m).to_bytes(s);
                for (at, byte, op) in edits {
                    if b.is_empty() {
                        break;
                    }
                    let i = at.index(b.len());
                    match op {
                        0 => b[i] = byte,
                        1 => b.insert(i, byte),
                        _ => {
                            b.truncate(i);
                        }
                    }
                }
                b
            }),
    ]
    .boxed()
}

/// A `Value` that is often almost a valid MRTR message.
fn almost_valid() -> BoxedStrategy<Value> {
    prop_oneof![
        1 => arb_value(),
        1 => j_tree().prop_filter_map("parses", |j| serde_json::from_slice(&j.to_bytes(Style::Compact)).ok()),
        4 => prop::sample::select(&MRTR[..])
            .prop_flat_map(|p| (valid_message(p), Just(p), prop::collection::vec(mutation(), 0..4)))
            .prop_map(|((m, _), p, ms)| {
                let mut m = wire(&m, p);
                ms.iter().for_each(|x| mutate(&mut m, x));
                m
            }),
    ]
    .boxed()
}

fn stream() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop_oneof![
        Just("get".to_string()),
        Just("post:1".to_string()),
        Just("post:0".to_string()),
        "post:\\PC{0,4}",
        "\\PC{0,6}",
    ])
}

fn side() -> impl Strategy<Value = Side> {
    prop_oneof![Just(Side::Client), Just(Side::Server)]
}

fn check_all(entries: &[Entry]) {
    for protocol in Protocol::ALL {
        for max_rounds in [0, 1, 10] {
            for limits in LIMITS {
                let config = CheckConfig::default()
                    .with_protocol(protocol)
                    .with_max_rounds(max_rounds)
                    .with_limits(limits)
                    .with_transport(None);
                let v = check::check(entries, config);
                assert_violations(&v, entries.len());
            }
        }
    }
}

// ---------------------------------------------------------------------------
// (a) no input panics
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config())]

    #[test]
    fn classify_never_panics_on_bytes(bytes in any_bytes()) {
        for protocol in Protocol::ALL {
            for limits in LIMITS {
                if let Err(e) = classify(&bytes, protocol, &limits) {
                    assert_classify_error(&e);
                }
            }
        }
    }

    #[test]
    fn classify_never_panics_on_json(j in j_tree(), s in style()) {
        let bytes = j.to_bytes(s);
        for protocol in Protocol::ALL {
            for limits in LIMITS {
                if let Err(e) = classify(&bytes, protocol, &limits) {
                    assert_classify_error(&e);
                }
            }
        }
        if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
            for protocol in Protocol::ALL {
                for limits in LIMITS {
                    if let Err(e) = classify_value(&v, protocol, &limits) {
                        assert_classify_error(&e);
                    }
                }
            }
        }
    }

    #[test]
    fn check_never_panics_on_one_entry(message in almost_valid(), from in side(), stream in stream()) {
        check_all(&[Entry { from, message, stream }]);
    }

    #[test]
    fn check_never_panics_on_a_conversation(
        x in exchange(),
        mutations in prop::collection::vec((0usize..4, mutation()), 0..3),
        streams in prop::collection::vec(stream(), 4),
    ) {
        let p = x.protocol;
        let retry = client::retry(
            &wire(&x.request, p), &wire(&x.result, p), &Value::Object(x.responses.clone()),
            &x.retry_id, p, &Limits::DEFAULT,
        ).unwrap_or_else(|_| wire(&x.request, p));
        let done = json!({"jsonrpc": "2.0", "id": x.retry_id, "result": {"resultType": "complete", "content": []}});
        let mut messages = [wire(&x.request, p), wire(&x.result, p), retry, done];
        for (i, m) in &mutations {
            mutate(&mut messages[*i], m);
        }
        let sides = [Side::Client, Side::Server, Side::Client, Side::Server];
        let entries: Vec<Entry> = messages
            .into_iter()
            .zip(sides)
            .zip(streams)
            .map(|((message, from), stream)| Entry { from, message, stream })
            .collect();
        check_all(&entries);
    }

    #[test]
    fn retry_never_panics(
        request in almost_valid(),
        result in almost_valid(),
        responses in almost_valid(),
        id in prop_oneof![arb_id(), arb_value()],
    ) {
        for protocol in Protocol::ALL {
            for limits in LIMITS {
                if let Err(e) = client::retry(&request, &result, &responses, &id, protocol, &limits) {
                    assert_error(&e);
                }
            }
        }
    }

    #[test]
    fn retry_never_panics_near_valid(
        x in exchange(),
        mutations in prop::collection::vec((0usize..4, mutation()), 1..4),
    ) {
        let p = x.protocol;
        let mut args = [wire(&x.request, p), wire(&x.result, p), Value::Object(x.responses), x.retry_id];
        for (i, m) in &mutations {
            mutate(&mut args[*i], m);
        }
        for protocol in Protocol::ALL {
            for limits in LIMITS {
                if let Err(e) = client::retry(&args[0], &args[1], &args[2], &args[3], protocol, &limits) {
                    assert_error(&e);
                }
            }
        }
    }

    #[test]
    fn respond_and_resume_never_panic(
        request in almost_valid(),
        requests in prop::option::of(almost_valid()),
        state in prop::option::of(prop_oneof![j_string().prop_map(Value::from), arb_value()]),
        needs in almost_valid(),
    ) {
        for protocol in Protocol::ALL {
            for limits in LIMITS {
                match server::respond(&request, requests.as_ref(), state.as_ref(), protocol, &limits) {
                    Ok(answer) => assert_answer_classifies(&answer, protocol),
                    Err(e) => assert_error(&e),
                }
                if let Err(e) = server::resume(&request, &needs, protocol, &limits) {
                    assert_error(&e);
                }
            }
        }
    }

    #[test]
    fn respond_and_resume_never_panic_near_valid(
        x in exchange(),
        mutations in prop::collection::vec((0usize..3, mutation()), 1..4),
    ) {
        let p = x.protocol;
        let mut retry = x.request.clone();
        retry["id"] = x.retry_id.clone();
        retry["params"]["inputResponses"] = Value::Object(x.responses);
        let mut args = [wire(&retry, p), Value::Object(x.requests), json!(x.state)];
        for (i, m) in &mutations {
            mutate(&mut args[*i], m);
        }
        for protocol in Protocol::ALL {
            for limits in LIMITS {
                match server::respond(&args[0], Some(&args[1]), Some(&args[2]), protocol, &limits) {
                    Ok(answer) => assert_answer_classifies(&answer, protocol),
                    Err(e) => assert_error(&e),
                }
                if let Err(e) = server::resume(&args[0], &args[1], protocol, &limits) {
                    assert_error(&e);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// (b) round trips
// ---------------------------------------------------------------------------

/// Results compared by value when they succeed, by rule when they fail (the
/// sentence of a parse error names a column, which reformatting moves).
fn same_outcome(a: &mrtr::Result<mrtr::Classified<'_>>, b: &mrtr::Result<mrtr::Classified<'_>>) -> bool {
    match (a, b) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => a.rule() == b.rule(),
        _ => false,
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn reserialized_messages_classify_the_same(
        (message, kind, protocol) in prop::sample::select(&MRTR[..])
            .prop_flat_map(|p| (valid_message(p), Just(p)))
            .prop_map(|((m, k), p)| (m, k, p)),
        s in style(),
    ) {
        let message = wire(&message, protocol);
        let original = J::from_value(&message).to_bytes(s);
        let first = classify(&original, protocol, &Limits::DEFAULT);
        prop_assert!(
            matches!(&first, Ok(c) if c.kind == kind),
            "{kind:?} classified as {first:?} under {protocol}: {}", String::from_utf8_lossy(&original)
        );
        let value: Value = serde_json::from_slice(&original).unwrap();
        let again = serde_json::to_vec(&value).unwrap();
        let second = classify(&again, protocol, &Limits::DEFAULT);
        prop_assert_eq!(&first, &second);
        // Under every protocol, valid there or not, the outcome is the same.
        for p in Protocol::ALL {
            let a = classify(&original, p, &Limits::DEFAULT);
            let b = classify(&again, p, &Limits::DEFAULT);
            prop_assert!(same_outcome(&a, &b), "{p}: {a:?} vs {b:?}");
        }
    }

    #[test]
    fn classify_and_classify_value_agree(message in almost_valid()) {
        let bytes = serde_json::to_vec(&message).unwrap();
        for protocol in Protocol::ALL {
            for limits in LIMITS {
                let a = classify(&bytes, protocol, &limits);
                let b = classify_value(&message, protocol, &limits);
                // Only classify sees bytes: its byte bound and depth scan run first.
                let bytes_only = matches!(&a, Err(e) if e.rule() == RuleId::LimitExceeded && limits != Limits::DEFAULT);
                prop_assert!(
                    bytes_only || same_outcome(&a, &b),
                    "{protocol} {limits:?}: classify {a:?} vs classify_value {b:?} on {message}"
                );
            }
        }
    }

    #[test]
    fn retry_keeps_the_original_request(x in exchange(), prev in prop::option::of(request_state())) {
        let p = x.protocol;
        let mut original = x.request.clone();
        if let Some(prev_state) = &prev {
            // The request is itself a retry: its old round's fields are replaced.
            let params = original["params"].as_object_mut().unwrap();
            params.insert("inputResponses".into(), json!({"old": {"action": "cancel"}}));
            if let Some(s) = prev_state {
                params.insert("requestState".into(), json!(s));
            }
        }
        prop_assume!(x.retry_id != original["id"]);
        let responses = Value::Object(x.responses.clone());
        let (request_w, result_w) = (wire(&original, p), wire(&x.result, p));
        let built = client::retry(&request_w, &result_w, &responses, &x.retry_id, p, &Limits::DEFAULT);
        let built = match built {
            Ok(b) => b,
            Err(e) => return Err(TestCaseError::fail(format!("{p}: retry refused a valid exchange: {e}\n{x:#?}"))),
        };
        // In the protocol's own shape: every envelope field but the MRTR ones kept.
        let mrtr_envelope = ["id", "input_responses", "request_state"];
        for (k, v) in request_w.as_object().unwrap() {
            if mrtr_envelope.contains(&k.as_str()) || (k == "params") {
                continue;
            }
            prop_assert_eq!(built.get(k), Some(v), "{}: envelope field {:?} changed", p, k);
        }
        prop_assert_eq!(&built["id"], &x.retry_id);
        // In sep-2322 shape: every params field but inputResponses and requestState kept.
        let built_sep = dialect::to_sep(&built);
        let (orig_params, built_params) = (original["params"].as_object().unwrap(), built_sep["params"].as_object().unwrap());
        for (k, v) in orig_params {
            if k == "inputResponses" || k == "requestState" {
                continue;
            }
            prop_assert_eq!(built_params.get(k), Some(v), "{}: params field {:?} changed", p, k);
        }
        prop_assert_eq!(&built_sep["params"]["arguments"], &original["params"]["arguments"]);
        // Nothing added but the new round's fields.
        for k in built.as_object().unwrap().keys() {
            prop_assert!(request_w.get(k).is_some() || mrtr_envelope.contains(&k.as_str()), "{}: field {:?} added", p, k);
        }
        for k in built_params.keys() {
            prop_assert!(orig_params.contains_key(k) || k == "inputResponses" || k == "requestState", "{}: params field {:?} added", p, k);
        }
        // The new round's fields: exactly the given responses and the result's state.
        let expected_responses = (!x.responses.is_empty()).then_some(&responses);
        prop_assert_eq!(built_params.get("inputResponses"), expected_responses);
        prop_assert_eq!(built_params.get("requestState").and_then(Value::as_str), x.state.as_deref());
        // The retry is a valid request under the protocol.
        let bytes = serde_json::to_vec(&built).unwrap();
        let c = classify(&bytes, p, &Limits::DEFAULT);
        prop_assert!(matches!(&c, Ok(c) if c.kind == Kind::Request), "{:?}", c);
    }

    #[test]
    fn a_conversation_the_library_builds_passes_its_checker(x in exchange()) {
        let p = x.protocol;
        prop_assume!(x.retry_id != x.request["id"]);
        let requests = x.result["result"].get("inputRequests").is_some().then(|| Value::Object(x.requests.clone()));
        let state = x.state.as_ref().map(|s| json!(s));
        let request_w = wire(&x.request, p);
        let answer = server::respond(&request_w, requests.as_ref(), state.as_ref(), p, &Limits::DEFAULT);
        let answer = match answer {
            Ok(a) => a,
            Err(e) => return Err(TestCaseError::fail(format!("{p}: respond refused: {e}\n{x:#?}"))),
        };
        let responses = Value::Object(x.responses.clone());
        let retry = client::retry(&request_w, &answer, &responses, &x.retry_id, p, &Limits::DEFAULT);
        let retry = match retry {
            Ok(r) => r,
            Err(e) => return Err(TestCaseError::fail(format!("{p}: retry refused: {e}\n{x:#?}"))),
        };
        // The server reads back exactly what it asked for.
        let needs = Value::Object(x.requests.clone());
        let resumed = server::resume(&retry, &needs, p, &Limits::DEFAULT);
        let resumed = match resumed {
            Ok(r) => r,
            Err(e) => return Err(TestCaseError::fail(format!("{p}: resume refused: {e}\n{x:#?}"))),
        };
        prop_assert_eq!(&resumed.responses, &x.responses);
        prop_assert!(resumed.missing.is_empty() && resumed.ignored.is_empty(), "{:?}", resumed);
        prop_assert_eq!(resumed.request_state.as_deref(), x.state.as_deref());
        let done = json!({"jsonrpc": "2.0", "id": x.retry_id, "result": {"resultType": "complete", "content": []}});
        let entries: Vec<Entry> = [(Side::Client, request_w), (Side::Server, answer), (Side::Client, retry), (Side::Server, done)]
            .into_iter()
            .map(|(from, message)| Entry { from, message, stream: None })
            .collect();
        let v = check::check(&entries, CheckConfig::default().with_protocol(p));
        prop_assert!(v.is_empty(), "{}: {:?}\n{:#?}", p, v, entries);
    }
}

/// Nesting at the parser's bound (128), at every place a view recurses, on
/// the test thread's default stack.
#[test]
fn nesting_at_the_bound_does_not_overflow() {
    let templates = [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"inputResponses":{"k":{"action":"accept","content":{"a":@}}}}}"#,
        r#"{"jsonrpc":"2.0","id":@,"method":"tools/call"}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"p":{"type":"string","enum":@}},"required":@}}}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"k":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":@}],"maxTokens":@}}}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"input_requests":{"k":{"method":"roots/list","params":@}},"request_state":@}"#,
        r#"@"#,
    ];
    for depth in [100, 120, 126, 127, 128, 129, 200] {
        for open in ["[", "{\"a\":"] {
            let close = if open == "[" { "]" } else { "}" };
            let nested = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            for t in templates {
                let bytes = t.replace('@', &nested).into_bytes();
                let value = serde_json::from_slice::<Value>(&bytes).ok();
                for protocol in Protocol::ALL {
                    if let Err(e) = classify(&bytes, protocol, &Limits::DEFAULT) {
                        assert_classify_error(&e);
                    }
                    if let Some(v) = &value {
                        let _ = classify_value(v, protocol, &Limits::DEFAULT);
                        let entry = |from| Entry { from, message: v.clone(), stream: None };
                        check::check(
                            &[entry(Side::Client), entry(Side::Server)],
                            CheckConfig::default().with_protocol(protocol),
                        );
                        let _ = server::resume(v, v, protocol, &Limits::DEFAULT);
                        let _ = server::respond(v, Some(v), Some(v), protocol, &Limits::DEFAULT);
                        let _ = client::retry(v, v, v, v, protocol, &Limits::DEFAULT);
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Regressions: minimal inputs of what the properties found
// ---------------------------------------------------------------------------

/// A request that declares every capability, and the `input_required` result
/// answering it with one form elicitation of a `date-time` property.
fn date_time_round() -> (Value, Value) {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}});
    let result = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {"k": {
        "method": "elicitation/create", "params": {"message": "m", "requestedSchema": {
            "type": "object", "properties": {"d": {"type": "string", "format": "date-time"}}}}}}}});
    (request, result)
}

/// Regression: `form::is_date_time` sliced the answer by byte offsets
/// (`split_at(8)`, `clock[0..2]`, `rest[1..3]`), which panicked when a
/// multi-byte character straddled one. Reachable from peer data through
/// `client::retry`, `server::resume` and `check::check`.
#[test]
fn date_time_answers_with_non_ascii_are_refused_not_panicked_on() {
    let (request, result) = date_time_round();
    for answer in ["2026-07-28T0000000\u{e9}0", "2026-07-28T0\u{e9}:00:00Z", "2026-07-28T00:00:00+0\u{e9}:0"] {
        let responses = json!({"k": {"action": "accept", "content": {"d": answer}}});
        let mut retry = request.clone();
        retry["id"] = json!(2);
        retry["params"]["inputResponses"] = responses.clone();
        let outcome = std::panic::catch_unwind(|| {
            let built =
                client::retry(&request, &result, &responses, &json!(2), Protocol::V2026_07_28, &Limits::DEFAULT);
            let resumed =
                server::resume(&retry, &result["result"]["inputRequests"], Protocol::V2026_07_28, &Limits::DEFAULT);
            (built.map(|_| ()), resumed.map(|_| ()))
        });
        let (built, resumed) = outcome.unwrap_or_else(|_| panic!("{answer:?} panics"));
        assert_eq!(built.unwrap_err().rule(), RuleId::RetryInputResponseInvalid, "{answer:?}");
        assert_eq!(resumed.unwrap_err().rule(), RuleId::RetryInputResponseInvalid, "{answer:?}");
    }
}

/// Regression (found by `respond_and_resume_never_panic`): in
/// `sep-2322-draft`, `server::respond` with neither `inputRequests` nor
/// `requestState` returned `{"jsonrpc":"2.0","id":1}`, which is no JSON-RPC
/// response (`classify`: `jsonrpc-invalid`, "neither a request nor a response").
#[test]
fn respond_never_builds_a_message_classify_refuses() {
    let (request, _) = date_time_round();
    for protocol in MRTR {
        if let Ok(answer) = server::respond(&request, None, None, protocol, &Limits::DEFAULT) {
            assert_answer_classifies(&answer, protocol);
        }
    }
}
