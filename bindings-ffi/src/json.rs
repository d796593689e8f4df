//! JSON text from C into `serde_json::Value`, with the core's policy for bad
//! input ([`mrtr::parse`]): over `max_message_bytes` or nested deeper than
//! `max_depth` is `limit-exceeded`; not one JSON value (truncated, trailing
//! bytes, not UTF-8, a lone surrogate escape) is `jsonrpc-parse-error`; a key
//! twice in one object is `jsonrpc-invalid`. `classify` and
//! `mrtr_client_handle_response` give the raw bytes to the core instead; this
//! is for the core functions that take a parsed `Value`.
#![deny(unsafe_code)]

use mrtr::{Error, Limits};
use serde_json::Value;

/// Parses one JSON value from `bytes` under `limits`.
pub(crate) fn parse(bytes: &[u8], limits: &Limits) -> Result<Value, Error> {
    mrtr::parse(bytes, limits)
}

/// Parses one JSON value from `bytes`, bounded in depth only (a whole transcript).
pub(crate) fn parse_unbounded(bytes: &[u8], max_depth: usize) -> Result<Value, Error> {
    mrtr::parse(bytes, &Limits { max_message_bytes: usize::MAX, max_depth, ..Limits::DEFAULT })
}

/// Serializes a value the core built (compact, keys in the core's order).
pub(crate) fn to_vec(value: &Value) -> Vec<u8> {
    // A `Value` always serializes: its keys are strings and its numbers finite.
    serde_json::to_vec(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr::RuleId;

    fn rule(text: &[u8]) -> RuleId {
        parse(text, &Limits::default()).unwrap_err().rule()
    }

    #[test]
    fn the_core_policy_for_bad_json() {
        assert_eq!(rule(br#"{"a":1,"a":2}"#), RuleId::JsonrpcInvalid);
        assert_eq!(rule(br#"{"a":{"b":[{"c":1,"c":1}]}}"#), RuleId::JsonrpcInvalid);
        assert_eq!(rule(br#"{"a":1"#), RuleId::JsonrpcParseError);
        assert_eq!(rule(br#"{"a":1} x"#), RuleId::JsonrpcParseError);
        assert_eq!(rule(b"\"\xff\""), RuleId::JsonrpcParseError);
        assert_eq!(rule(br#""\ud800""#), RuleId::JsonrpcParseError);
        assert_eq!(rule(b""), RuleId::JsonrpcParseError);
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(rule(deep.as_bytes()), RuleId::LimitExceeded);
        let tight = Limits { max_message_bytes: 4, ..Limits::default() };
        assert_eq!(parse(b"[1,2]", &tight).unwrap_err().rule(), RuleId::LimitExceeded);
        let wide = Limits { max_depth: 1000, ..Limits::default() };
        let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
        assert_eq!(parse(deep.as_bytes(), &wide).unwrap_err().rule(), RuleId::LimitExceeded);
    }

    #[test]
    fn good_json_is_what_serde_json_reads() {
        let text = br#"{"b":[1,-2,3.5,18446744073709551615,"\u00e9\ud83d\ude00",null,true],"a":{"x":{}}}"#;
        let strict = parse(text, &Limits::default()).unwrap();
        assert_eq!(strict, serde_json::from_slice::<Value>(text).unwrap());
        assert_eq!(strict.as_object().unwrap().keys().collect::<Vec<_>>(), ["b", "a"]);
        assert_eq!(to_vec(&strict), serde_json::to_vec(&strict).unwrap());
    }
}
