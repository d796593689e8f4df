//! JavaScript to Rust and back: JSON text, protocol names, limits, bytes.
//!
//! JSON arrives as text (a JS string, or UTF-8 bytes in a `Uint8Array`); the
//! wrapper stringifies objects first, so both paths meet in [`parse`]. Values
//! leave as JSON text for the wrapper's `JSON.parse`. Settings objects
//! (limits, check config, sealed-round options, bindings) also arrive as JSON
//! text and are read with serde.

use crate::errors::{self, Result};
use js_sys::Uint8Array;
use mrtr::{Limits, Protocol, RuleId};
use serde::de::DeserializeOwned;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

/// The bytes of JSON text given as a JS string or a `Uint8Array`.
pub fn bytes(text: &JsValue) -> Result<Vec<u8>> {
    if let Some(s) = text.as_string() {
        Ok(s.into_bytes())
    } else if let Some(a) = text.dyn_ref::<Uint8Array>() {
        Ok(a.to_vec())
    } else {
        Err(errors::arg("JSON text is a string or a Uint8Array"))
    }
}

/// Whether an optional argument is absent (`undefined` or `null`).
pub fn absent(v: &JsValue) -> bool {
    v.is_undefined() || v.is_null()
}

/// Bounds on what the core reads; each field defaults to `Limits::DEFAULT`'s.
#[derive(Clone, Copy, Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LimitsInput {
    /// Bytes of one message.
    pub max_message_bytes: Option<usize>,
    /// Nesting depth of arrays and objects.
    pub max_depth: Option<usize>,
    /// Entries of one `inputRequests` or `inputResponses` map.
    pub max_input_requests: Option<usize>,
    /// Bytes of one `requestState`.
    pub max_request_state_bytes: Option<usize>,
}

/// The core's `Limits` from their JS form (absent fields keep their default).
pub fn limits(input: Option<LimitsInput>) -> Limits {
    let d = Limits::DEFAULT;
    let Some(l) = input else { return d };
    Limits {
        max_message_bytes: l.max_message_bytes.unwrap_or(d.max_message_bytes),
        max_depth: l.max_depth.unwrap_or(d.max_depth),
        max_input_requests: l.max_input_requests.unwrap_or(d.max_input_requests),
        max_request_state_bytes: l.max_request_state_bytes.unwrap_or(d.max_request_state_bytes),
    }
}

/// `Limits` from optional JSON text of a limits object.
pub fn limits_text(text: Option<String>) -> Result<Limits> {
    Ok(limits(settings(text)?))
}

/// A settings object from optional JSON text (absent: `None`). Read through
/// the same parser and `Value` deserializer as every message, so that the
/// module carries one copy of serde_json's reader.
pub fn settings<T: DeserializeOwned>(text: Option<String>) -> Result<Option<T>> {
    let Some(text) = text else { return Ok(None) };
    let value = parse(text.as_bytes(), &Limits::DEFAULT)?;
    T::deserialize(&value).map(Some).map_err(|e| errors::arg(format!("bad options: {e}")))
}

/// The protocol named `name` (absent: the default, `2026-07-28`). Any other
/// name is `jsonrpc-invalid` "unknown protocol", as the corpus says.
pub fn protocol(name: Option<&str>) -> Result<Protocol> {
    match name {
        None => Ok(Protocol::default()),
        Some(n) => Protocol::from_name(n).ok_or_else(|| errors::rule_with(RuleId::JsonrpcInvalid, "unknown protocol")),
    }
}

/// Parses JSON text into a value under the core's bad-input rules
/// ([`mrtr::parse`]): over the byte or depth bound is `limit-exceeded`, not JSON
/// (or not UTF-8, or a lone surrogate) is `jsonrpc-parse-error`, a key twice in
/// one object is `jsonrpc-invalid`.
pub fn parse(text: &[u8], limits: &Limits) -> Result<Value> {
    mrtr::parse(text, limits).map_err(errors::rule)
}

/// [`parse`] of JSON text given as a JS string or `Uint8Array`.
pub fn parse_js(text: &JsValue, limits: &Limits) -> Result<Value> {
    parse(&bytes(text)?, limits)
}

/// [`parse_js`] of an optional argument: `undefined`/`null` stays `None`.
pub fn parse_opt(text: &JsValue, limits: &Limits) -> Result<Option<Value>> {
    if absent(text) {
        Ok(None)
    } else {
        parse_js(text, limits).map(|v| Some(v).filter(|v| !v.is_null()))
    }
}

/// A value as JSON text.
pub fn text(value: &Value) -> String {
    // Serializing a `Value` to a `String` cannot fail (its keys are strings).
    serde_json::to_string(value).unwrap_or_default()
}

/// A non-negative integer below 2^53 from a JS number.
pub fn whole(n: f64, what: &str) -> Result<u64> {
    if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 {
        Ok(n as u64)
    } else {
        Err(errors::arg(format!("{what} is a non-negative integer")))
    }
}
