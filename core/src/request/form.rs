//! Form-mode elicitation: whether an `ElicitResult.content` fits the
//! `requestedSchema` it answers (the schema itself is checked with the other
//! single-message rules, in `validate`).

use crate::{
    base::error::{err, Result},
    read::view::{Arr, ConstView, Map, Obj, Prim, PropertyView, SchemaView},
};
use alloc::vec::Vec;

/// Checks `content` (an accepted form's answers) against the schema.
pub(crate) fn validate_content(key: &str, content: &Map<'_, Prim<'_>>, schema: &SchemaView<'_>) -> Result<()> {
    let Some(answers) = content.entries() else {
        return Err(err!(RetryInputResponseInvalid, "inputResponses[{key:?}]: content must be an object"));
    };
    let props = schema.properties.entries().unwrap_or_default();
    if let Prim::Array(required) = &schema.required {
        for name in required.iter().filter_map(Prim::as_str) {
            if !answers.iter().any(|(k, _)| k == name) {
                return Err(err!(
                    RetryInputResponseInvalid,
                    "inputResponses[{key:?}]: required field {name:?} is missing"
                ));
            }
        }
    }
    for (name, value) in answers {
        let Some(Obj::Present(prop)) = props.iter().find(|(p, _)| p == name).map(|(_, p)| p) else {
            return Err(err!(
                RetryInputResponseInvalid,
                "inputResponses[{key:?}]: field {name:?} is not in requestedSchema"
            ));
        };
        fits(value, prop)
            .map_err(|why| err!(RetryInputResponseInvalid, "inputResponses[{key:?}]: field {name:?} {why}"))?;
    }
    Ok(())
}

fn fits(v: &Prim<'_>, p: &PropertyView<'_>) -> core::result::Result<(), &'static str> {
    match p.kind.as_str() {
        Some("string") => fits_string(v, p),
        Some("integer") if !v.is_integer() => Err("is not an integer"),
        Some("number") | Some("integer") => {
            let n = v.as_f64().ok_or("is not a number")?;
            within(n, &p.minimum, &p.maximum).then_some(()).ok_or("is out of range")
        }
        Some("boolean") => matches!(v, Prim::Bool(_)).then_some(()).ok_or("is not a boolean"),
        Some("array") => fits_multi_select(v, p),
        _ => Err("answers a property of unknown type"),
    }
}

fn within(n: f64, min: &Prim<'_>, max: &Prim<'_>) -> bool {
    min.as_f64().is_none_or(|m| n >= m) && max.as_f64().is_none_or(|m| n <= m)
}

fn fits_string(v: &Prim<'_>, p: &PropertyView<'_>) -> core::result::Result<(), &'static str> {
    let s = v.as_str().ok_or("is not a string")?;
    let len = s.chars().count() as u64;
    if p.min_length.as_u64().is_some_and(|m| len < m) || p.max_length.as_u64().is_some_and(|m| len > m) {
        return Err("has a length out of range");
    }
    if let Some(format) = p.format.as_str() {
        if !fits_format(s, format) {
            return Err("does not match its format");
        }
    }
    let allowed = enum_values(&p.enumeration).or_else(|| const_values(&p.one_of));
    match allowed {
        Some(values) if !values.contains(&s) => Err("is not one of the enum values"),
        _ => Ok(()),
    }
}

fn fits_multi_select(v: &Prim<'_>, p: &PropertyView<'_>) -> core::result::Result<(), &'static str> {
    let Prim::Array(items) = v else { return Err("is not an array") };
    let n = items.len() as u64;
    if p.min_items.as_u64().is_some_and(|m| n < m) || p.max_items.as_u64().is_some_and(|m| n > m) {
        return Err("has a number of items out of range");
    }
    let allowed = p.items.get().and_then(|i| enum_values(&i.enumeration).or_else(|| const_values(&i.any_of)));
    let allowed = allowed.unwrap_or_default();
    items
        .iter()
        .all(|i| i.as_str().is_some_and(|s| allowed.contains(&s)))
        .then_some(())
        .ok_or("has an item that is not one of the enum values")
}

fn enum_values<'s>(v: &'s Prim<'_>) -> Option<Vec<&'s str>> {
    match v {
        Prim::Array(items) => Some(items.iter().filter_map(Prim::as_str).collect()),
        _ => None,
    }
}

fn const_values<'s>(options: &'s Arr<Obj<ConstView<'_>>>) -> Option<Vec<&'s str>> {
    options.get().map(|o| o.iter().filter_map(|c| c.get()?.value.as_str()).collect())
}

/// The four string formats of MCP's restricted schema, checked for shape.
fn fits_format(s: &str, format: &str) -> bool {
    match format {
        "email" => s.split_once('@').is_some_and(|(l, d)| !l.is_empty() && !d.is_empty() && !d.contains('@')),
        "uri" => s.split_once(':').is_some_and(|(scheme, _)| {
            scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }),
        "date" => is_date(s),
        "date-time" => is_date_time(s),
        _ => true,
    }
}

fn digits(s: &str, n: usize) -> bool {
    s.len() == n && s.bytes().all(|b| b.is_ascii_digit())
}

fn is_date(s: &str) -> bool {
    let mut parts = s.split('-');
    let (Some(y), Some(m), Some(d), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    digits(y, 4)
        && digits(m, 2)
        && digits(d, 2)
        && (1..=12).contains(&m.parse::<u8>().unwrap_or(0))
        && (1..=31).contains(&d.parse::<u8>().unwrap_or(0))
}

/// RFC 3339 `date-time`: `YYYY-MM-DDThh:mm:ss[.frac](Z|±hh:mm)`. Read as
/// bytes, so that no answer (non-ASCII included) can split a character.
fn is_date_time(s: &str) -> bool {
    let Some((date, time)) = s.split_once(['T', 't']) else { return false };
    let t = time.as_bytes();
    if !is_date(date) || t.len() < 9 {
        return false;
    }
    let two = |b: &[u8], i: usize| b[i].is_ascii_digit() && b[i + 1].is_ascii_digit();
    let clock_ok = two(t, 0) && t[2] == b':' && two(t, 3) && t[5] == b':' && two(t, 6);
    let mut rest = &t[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|b| b.is_ascii_digit()).count();
        rest = &frac[n..];
    }
    let zone_ok = rest == b"Z"
        || rest == b"z"
        || (rest.len() == 6 && matches!(rest[0], b'+' | b'-') && two(rest, 1) && rest[3] == b':' && two(rest, 4));
    clock_ok && zone_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert!(fits_format("a@b.c", "email"));
        assert!(!fits_format("a@@b", "email"));
        assert!(!fits_format("@b", "email"));
        assert!(fits_format("https://x", "uri"));
        assert!(!fits_format("no scheme", "uri"));
        assert!(fits_format("2026-07-28", "date"));
        assert!(!fits_format("2026-13-01", "date"));
        assert!(fits_format("2026-07-28T10:00:00Z", "date-time"));
        assert!(fits_format("2026-07-28T10:00:00.123+02:00", "date-time"));
        assert!(!fits_format("2026-07-28 10:00", "date-time"));
        assert!(!fits_format("2026-07-28T10:00:00\u{e9}\u{e9}", "date-time"));
        assert!(!fits_format("2026-07-28T1\u{e9}:00:00Z", "date-time"));
    }
}
