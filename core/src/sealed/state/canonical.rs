//! Canonical JSON, the input of every digest a token is bound to.
//!
//! Objects have their keys sorted (by UTF-8 bytes, which is code-point
//! order), there is no white space, strings are escaped as `serde_json`
//! writes them (one escaping per string), and a number is written as its
//! exact decimal value: `[-]D…DeN`, the significant digits without leading
//! or trailing zeros and the power of ten (`100` → `1e2`, `1.50` → `15e-1`,
//! `0.25` → `25e-2`), any zero as `0`. Equal numbers are written
//! alike whatever their spelling (`1`, `1.0`, `1e0`), and different numbers
//! never are: `100000000000000000001` stays apart from `1e20`, where an `f64`
//! would merge them (security review L1).
//!
//! Two readers, one output: [`write_value`] for a `serde_json::Value` (exact
//! for what the value holds: integers exactly, floats by their shortest
//! round-trip text) and [`write_text`] for raw JSON text (exact for every
//! number as written). They agree wherever the `Value` holds the number
//! exactly; the facade, and so every binding, digests raw text.

use crate::base::error::{err, Result};
use alloc::{collections::BTreeMap, string::String, vec::Vec};
use serde_json::{value::RawValue, Value};

/// Writes the canonical form of `v`.
pub(crate) fn write_value(v: &Value, out: &mut dyn FnMut(&[u8])) {
    match v {
        Value::Object(map) => {
            let mut members: Vec<(&String, &Value)> = map.iter().collect();
            members.sort_by(|a, b| a.0.cmp(b.0));
            write_object(members.into_iter(), out, |v, out| {
                write_value(v, out);
                Ok(())
            })
            .unwrap_or(());
        }
        Value::Array(items) => {
            out(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out(b",");
                }
                write_value(item, out);
            }
            out(b"]");
        }
        Value::Number(n) => write_number(&alloc::format!("{n}"), out),
        Value::String(s) => write_string(s, out),
        Value::Bool(true) => out(b"true"),
        Value::Bool(false) => out(b"false"),
        Value::Null => out(b"null"),
    }
}

/// Writes the canonical form of the JSON text `raw`, which the caller has
/// already parsed once (so it is valid JSON without duplicate keys); the
/// members whose key `skip` names are left out of the outermost object.
pub(crate) fn write_text(raw: &str, skip: &[&str], out: &mut dyn FnMut(&[u8])) -> Result<()> {
    let raw = raw.trim_matches(|c| matches!(c, ' ' | '\t' | '\n' | '\r'));
    match raw.as_bytes().first() {
        Some(b'{') => {
            let map: BTreeMap<String, &RawValue> = from_raw(raw)?;
            let members = map.iter().filter(|(k, _)| !skip.contains(&k.as_str()));
            write_object(members, out, |v, out| write_text(v.get(), &[], out))
        }
        Some(b'[') => {
            let items: Vec<&RawValue> = from_raw(raw)?;
            out(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out(b",");
                }
                write_text(item.get(), &[], out)?;
            }
            out(b"]");
            Ok(())
        }
        Some(b'"') => {
            let s: String = from_raw(raw)?;
            write_string(&s, out);
            Ok(())
        }
        Some(b'-' | b'0'..=b'9') => {
            write_number(raw, out);
            Ok(())
        }
        _ => {
            out(raw.as_bytes());
            Ok(())
        }
    }
}

fn from_raw<'a, T: serde::Deserialize<'a>>(raw: &'a str) -> Result<T> {
    serde_json::from_str(raw).map_err(|_| err!(JsonrpcParseError, "the params are not JSON"))
}

fn write_object<K: AsRef<str>, V>(
    members: impl Iterator<Item = (K, V)>,
    out: &mut dyn FnMut(&[u8]),
    mut value: impl FnMut(V, &mut dyn FnMut(&[u8])) -> Result<()>,
) -> Result<()> {
    out(b"{");
    for (i, (k, v)) in members.enumerate() {
        if i > 0 {
            out(b",");
        }
        write_string(k.as_ref(), out);
        out(b":");
        value(v, out)?;
    }
    out(b"}");
    Ok(())
}

fn write_string(s: &str, out: &mut dyn FnMut(&[u8])) {
    // serde_json's escaping is a function of the string: one text per string.
    out(serde_json::to_string(s).unwrap_or_default().as_bytes())
}

/// Writes the exact decimal value of the JSON number `text`: `[-]DeN`, or
/// `0`. `text` follows JSON's number grammar (the caller parsed it).
fn write_number(text: &str, out: &mut dyn FnMut(&[u8])) {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], parse_exponent(&text[at + 1..])),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let lead = digits.iter().take_while(|d| **d == b'0').count();
    let digits = &digits[lead..];
    let trail = digits.iter().rev().take_while(|d| **d == b'0').count();
    let digits = &digits[..digits.len() - trail];
    if digits.is_empty() {
        return out(b"0");
    }
    let exponent = exponent.saturating_sub(frac.len() as i64).saturating_add(trail as i64);
    if negative {
        out(b"-");
    }
    out(digits);
    out(alloc::format!("e{exponent}").as_bytes());
}

/// An exponent's value, saturating: JSON numbers may spell any exponent.
fn parse_exponent(text: &str) -> i64 {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let magnitude =
        digits.bytes().fold(0i64, |acc, d| acc.saturating_mul(10).saturating_add(i64::from(d.wrapping_sub(b'0'))));
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of_text(raw: &str) -> String {
        let mut out = Vec::new();
        write_text(raw, &[], &mut |b| out.extend_from_slice(b)).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn of_value(raw: &str) -> String {
        let mut out = Vec::new();
        write_value(&serde_json::from_str(raw).unwrap(), &mut |b| out.extend_from_slice(b));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn numbers_are_written_as_their_exact_value() {
        for (text, canonical) in [
            ("0", "0"),
            ("-0.0", "0"),
            ("0e5", "0"),
            ("1", "1e0"),
            ("1.0", "1e0"),
            ("1e0", "1e0"),
            ("100", "1e2"),
            ("1.50", "15e-1"),
            ("-0.25", "-25e-2"),
            ("1E+20", "1e20"),
            ("100000000000000000000", "1e20"),
            ("100000000000000000001", "100000000000000000001e0"),
            ("0.10000000000000001", "10000000000000001e-17"),
            ("12.5e-3", "125e-4"),
        ] {
            assert_eq!(of_text(text), canonical, "{text}");
        }
    }

    #[test]
    fn the_two_readers_agree_where_a_value_is_exact() {
        for raw in [
            r#"{"b":[1,2.5,-3e-7,{"y":null,"x":true}],"a":"\u00e9\n\"q\"","c":18446744073709551615,"d":-9223372036854775808}"#,
            r#"[1e20, 0.1, 1.0, 123456789.125, "\ud83d\ude00"]"#,
            r#"{"":{},"k":[]}"#,
        ] {
            assert_eq!(of_text(raw), of_value(raw), "{raw}");
        }
        // Where the value is not exact, only the text reader keeps the difference.
        assert_eq!(of_value("100000000000000000001"), of_value("100000000000000000000"));
        assert_ne!(of_text("100000000000000000001"), of_text("100000000000000000000"));
    }

    #[test]
    fn keys_are_sorted_and_skipped_only_at_the_top() {
        let raw = r#"{ "z": {"_meta": 1}, "_meta": {"x": 1}, "a": 1 }"#;
        let mut out = Vec::new();
        write_text(raw, &["_meta"], &mut |b| out.extend_from_slice(b)).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":1e0,"z":{"_meta":1e0}}"#);
    }
}
