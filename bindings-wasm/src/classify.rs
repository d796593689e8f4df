//! `classify`: one raw message, validated (the hot path).

use crate::convert;
use crate::errors::{OrThrow, Result};
use mrtr::{Id, ResultType};
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// What `classify` found, as the wrapper reads it (serialized straight to
/// JSON text: no intermediate `Value` on the hot path).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Classified<'a> {
    kind: &'static str,
    id: Value,
    method: Option<&'a str>,
    result_type: Option<&'static str>,
    result_type_present: bool,
}

/// Classifies and validates one raw message (`text`: a string or UTF-8 bytes)
/// under `protocol` (default `2026-07-28`) and `limits` (JSON text). Returns
/// JSON text `{kind, id, method, resultType, resultTypePresent}`.
#[wasm_bindgen(js_name = "classify")]
pub fn classify(text: &JsValue, protocol: Option<String>, limits: Option<String>) -> Result<String> {
    let (protocol, limits) = (convert::protocol(protocol.as_deref())?, convert::limits_text(limits)?);
    let bytes = convert::bytes(text)?;
    let c = mrtr::classify(&bytes, protocol, &limits).or_throw()?;
    let id = match c.id {
        None | Some(Id::Null) => Value::Null,
        Some(Id::Int(i)) => Value::from(i),
        Some(Id::UInt(u)) => Value::from(u),
        Some(Id::Str(s)) => Value::from(s.into_owned()),
    };
    let result_type = c.result_type.map(|t| match t {
        ResultType::Complete => "complete",
        ResultType::InputRequired => "input_required",
        ResultType::Task => "task",
    });
    let out = Classified {
        kind: c.kind.name(),
        id,
        method: c.method.as_deref(),
        result_type,
        result_type_present: c.result_type_present,
    };
    // Serializing plain fields to a `String` cannot fail.
    Ok(serde_json::to_string(&out).unwrap_or_default())
}
