//! JavaScript to Rust and back: JSON text, protocol names, limits.
//!
//! JSON arrives as text (a JS string, or a `Uint8Array`/`Buffer` read in place)
//! and is parsed here, straight from the bytes; the wrapper stringifies objects
//! first, so both paths meet in [`parse`]. Values leave as JSON text.

use crate::errors::{self, Result};
use mrtr::{Limits, Protocol, RuleId};
use napi::bindgen_prelude::Either;
use napi_derive::napi;
use serde_json::Value;

/// JSON text: a string, or UTF-8 bytes.
pub type Text<'a> = Either<String, &'a [u8]>;

/// The bytes of `text`.
pub fn bytes<'t>(text: &'t Text<'_>) -> &'t [u8] {
    match text {
        Either::A(s) => s.as_bytes(),
        Either::B(b) => b,
    }
}

/// Bounds on what the core reads; each field defaults to `Limits::DEFAULT`'s.
#[napi(object)]
#[derive(Clone, Copy, Debug, Default)]
pub struct LimitsInput {
    /// Bytes of one message.
    pub max_message_bytes: Option<u32>,
    /// Nesting depth of arrays and objects.
    pub max_depth: Option<u32>,
    /// Entries of one `inputRequests` or `inputResponses` map.
    pub max_input_requests: Option<u32>,
    /// Bytes of one `requestState`.
    pub max_request_state_bytes: Option<u32>,
}

/// The core's `Limits` from the JS object (absent fields keep their default).
pub fn limits(input: Option<LimitsInput>) -> Limits {
    let d = Limits::DEFAULT;
    let Some(l) = input else { return d };
    let or = |v: Option<u32>, d: usize| v.map_or(d, |v| v as usize);
    Limits {
        max_message_bytes: or(l.max_message_bytes, d.max_message_bytes),
        max_depth: or(l.max_depth, d.max_depth),
        max_input_requests: or(l.max_input_requests, d.max_input_requests),
        max_request_state_bytes: or(l.max_request_state_bytes, d.max_request_state_bytes),
    }
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

/// [`parse`] of an optional argument: `None` (JS `undefined`) stays `None`.
pub fn parse_opt(text: Option<&Text<'_>>, limits: &Limits) -> Result<Option<Value>> {
    text.map(|t| parse(bytes(t), limits)).transpose()
}

/// A value as JSON text.
pub fn text(value: &Value) -> String {
    // Serializing a `Value` to a `String` cannot fail (its keys are strings).
    serde_json::to_string(value).unwrap_or_default()
}
