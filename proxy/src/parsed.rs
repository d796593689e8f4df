//! What a client's message costs once parsed, bounded like its length.
//!
//! The gateways check (and the bridge runs) every message as a
//! `serde_json::Value` tree. A tree costs about its text for strings, but a
//! value's slot for every number, `true` or `null`: an array of one-digit
//! numbers (`[1,1,1,…]`, two bytes a value) parses to some 40 times its text
//! (security review of 2026-12-07: a 15 MiB body, 600 MiB parsed). The
//! message bound alone therefore does not bound memory. A client's body must
//! also parse within the message bound: [`check_client_body`] estimates the
//! tree from the text in one pass, without building it, and refuses a body
//! whose tree would pass the bound (`limit-exceeded`, 413).
//!
//! Only what clients send is held to it: they are who the operator does
//! not control. An upstream's messages are the operator's own server's, and
//! a large result (many rows, say) must still reach its client.

use mrtr::{Error, RuleId};

/// The bytes one value takes in a tree, beyond its own text: its slot, and
/// for an object's member the key and the map's entry, doubled for the spare
/// capacity a growing array or map keeps. An upper estimate.
fn value_bytes() -> usize {
    2 * (std::mem::size_of::<serde_json::Value>() + 48)
}

/// An upper estimate of the bytes `text` takes parsed: its own length (the
/// strings' characters, at most) and a few hundred bytes for every value (a
/// slot, a member's entry, spare capacity: the private `value_bytes`). Values
/// are counted by the characters that open or separate them (`[`, `{`, `,`,
/// `:`) outside strings, plus one.
pub fn estimate(text: &[u8]) -> usize {
    let (mut values, mut in_string, mut escaped) = (1usize, false, false);
    for &byte in text {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' | b',' | b':' => values += 1,
            _ => {}
        }
    }
    text.len().saturating_add(values.saturating_mul(value_bytes()))
}

/// The least a parsed body may take, however small the message bound: an
/// ordinary request of a few dozen values must pass under a bound of a few
/// KiB, which its tree alone would pass.
pub const PARSED_FLOOR: usize = 1 << 20;

/// `limit-exceeded` when a client's body would take more than `bound` bytes
/// parsed (the message bound: see the module docs), or [`PARSED_FLOOR`]
/// under a smaller bound.
pub fn check_client_body(text: &[u8], bound: usize) -> Result<(), Error> {
    let bound = bound.max(PARSED_FLOOR);
    let parsed = estimate(text);
    if parsed <= bound {
        return Ok(());
    }
    let why = format!(
        "a request body of {} bytes would take some {parsed} bytes parsed (it holds that many values), over the \
         bound of {bound}",
        text.len()
    );
    Err(Error::with(RuleId::LimitExceeded, why))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The estimate is at least what serde_json's tree really takes, on the
    /// shapes that cost the most per byte, and close to the text for text.
    #[test]
    fn the_estimate_bounds_the_tree_from_above() {
        let numbers = format!("[{}1]", "1,".repeat(100_000));
        assert!(estimate(numbers.as_bytes()) > 20 * numbers.len(), "one-digit numbers: many times the text");
        let members: String = (0..20_000).map(|i| format!("\"k{i}\":0,")).collect();
        let object = format!("{{{members}\"end\":0}}");
        assert!(estimate(object.as_bytes()) > 10 * object.len());
        let text = format!("{{\"text\":\"{}\"}}", "a,b:[c]{d} \\\" ".repeat(10_000));
        assert!(estimate(text.as_bytes()) < text.len() + 10 * value_bytes(), "separators in a string are text");
    }

    /// Review N6's body (15 MiB of one-digit numbers) is refused under the
    /// default bound; a body of the same length as one string passes.
    #[test]
    fn a_body_of_numbers_is_refused_where_a_string_of_its_length_passes() {
        let bound = mrtr::Limits::DEFAULT.max_message_bytes;
        let numbers = format!("{{\"a\":[{}1]}}", "1,".repeat(7_900_000));
        let e = check_client_body(numbers.as_bytes(), bound).unwrap_err();
        assert_eq!(e.rule(), RuleId::LimitExceeded);
        let string = format!("{{\"a\":\"{}\"}}", "x".repeat(numbers.len() - 10));
        assert!(check_client_body(string.as_bytes(), bound).is_ok());
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"n":[1,2,3]}}}"#;
        assert!(check_client_body(call, 4096).is_ok(), "an ordinary call under a small bound");
        let many = format!("[{}1]", "1,".repeat(10_000));
        assert!(check_client_body(many.as_bytes(), 4096).is_err(), "the floor is a floor, not a pass");
    }
}
