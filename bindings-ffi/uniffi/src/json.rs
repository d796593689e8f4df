//! JSON text from the foreign side into `serde_json::Value`, under the core's
//! bad-input rules ([`mrtr::parse`]), so that a JSON argument fails as the same
//! bytes would fail `classify`: over `max_message_bytes` or nested deeper than
//! `max_depth` is `limit-exceeded`; not one JSON value is `jsonrpc-parse-error`;
//! a key twice in one object is `jsonrpc-invalid`.

use crate::error::{MrtrError, Result};
use mrtr::Limits;
use serde_json::Value;

/// Parses one JSON argument (`what` names it in errors) under `limits`.
pub(crate) fn parse(text: &str, what: &str, limits: &Limits) -> Result<Value> {
    mrtr::parse(text.as_bytes(), limits).map_err(|e| MrtrError::for_rule(e.rule(), format!("{what}: {}", e.message())))
}

/// Parses one JSON argument bounded in depth only (a whole transcript).
pub(crate) fn parse_nested(text: &str, what: &str, max_depth: usize) -> Result<Value> {
    parse(text, what, &Limits { max_message_bytes: usize::MAX, max_depth, ..Limits::DEFAULT })
}

/// Serializes a value the core built (compact, keys in the core's order).
pub(crate) fn text(value: &Value) -> String {
    // A `Value` always serializes: its keys are strings and its numbers finite.
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(text: &str) -> String {
        parse(text, "x", &Limits::default()).unwrap_err().rule().to_string()
    }

    #[test]
    fn the_core_policy_for_bad_text() {
        assert_eq!(parse(r#"{"a":[1,2.5,"x",null,true]}"#, "x", &Limits::default()).unwrap()["a"][1], 2.5);
        assert_eq!(rule(r#"{"a":1,"a":2}"#), "jsonrpc-invalid");
        assert_eq!(rule(r#"{"a":{"b":1,"b":1}}"#), "jsonrpc-invalid");
        assert_eq!(rule(r#"{"a":1"#), "jsonrpc-parse-error");
        assert_eq!(rule("1 2"), "jsonrpc-parse-error");
        assert_eq!(rule(r#""\ud800""#), "jsonrpc-parse-error");
        assert_eq!(rule(&"[".repeat(200)), "limit-exceeded");
        let small = Limits { max_message_bytes: 3, ..Limits::default() };
        assert_eq!(parse("1234", "x", &small).unwrap_err().rule(), "limit-exceeded");
        assert!(parse(r#"{"a":"[[[[[["}"#, "x", &Limits { max_depth: 2, ..Limits::default() }).is_ok());
    }
}
