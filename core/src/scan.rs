//! One pass over the raw bytes before the typed parse.
//!
//! The views skip the fields no rule reads, and skipping in `serde_json` does
//! not recurse (so its depth bound does not apply), does not check escaped
//! surrogates, and never sees duplicate keys. This scan does those three
//! checks over the whole message, so that bad input is refused wherever it
//! hides: nesting deeper than [`Limits::max_depth`](crate::Limits) is
//! `limit-exceeded`, an unpaired `\uD800`–`\uDFFF` escape is
//! `jsonrpc-parse-error`, and a key repeated in any object is
//! `jsonrpc-invalid`. It validates nothing else; the parser does.

use crate::error::{err, Result};
use alloc::vec::Vec;

/// What the scan found wrong, by precedence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Finding {
    /// Too deep: refuse before parsing.
    TooDeep,
    /// A lone surrogate escape.
    Surrogate,
    /// A key twice in one object.
    DuplicateKey,
}

impl Finding {
    pub(crate) fn into_error(self, max_depth: usize) -> crate::Error {
        match self {
            Finding::TooDeep => err!(LimitExceeded, "message nested deeper than {max_depth}"),
            Finding::Surrogate => err!(JsonrpcParseError, "an escaped surrogate without its pair is not Unicode"),
            Finding::DuplicateKey => err!(JsonrpcInvalid, "an object has the same key twice"),
        }
    }
}

/// The bytes the scan acts on outside strings.
const STRUCTURAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let bytes = *b"\"{}[],";
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

struct Frame {
    object: bool,
    keys_from: usize,
}

/// Scans `bytes`; returns the first finding (a depth overrun stops at once).
pub(crate) fn scan(bytes: &[u8], max_depth: usize) -> Option<Finding> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut keys: Vec<&[u8]> = Vec::new();
    let mut expect_key = false;
    let mut found = None;
    let mut i = 0;
    while i < bytes.len() {
        if !STRUCTURAL[bytes[i] as usize] {
            i += 1;
            continue;
        }
        match bytes[i] {
            b'"' => {
                let (end, lone) = string_end(bytes, i + 1);
                if lone && found.is_none() {
                    found = Some(Finding::Surrogate);
                }
                if expect_key {
                    keys.push(&bytes[i + 1..end.min(bytes.len())]);
                    expect_key = false;
                }
                i = end + 1;
                continue;
            }
            b'{' | b'[' => {
                if stack.len() >= max_depth {
                    return Some(Finding::TooDeep);
                }
                let object = bytes[i] == b'{';
                stack.push(Frame { object, keys_from: keys.len() });
                expect_key = object;
            }
            b'}' | b']' => {
                if let Some(frame) = stack.pop() {
                    if frame.object && has_duplicate(&mut keys[frame.keys_from..]) && found.is_none() {
                        found = Some(Finding::DuplicateKey);
                    }
                    keys.truncate(frame.keys_from);
                }
                expect_key = false;
            }
            b',' => expect_key = stack.last().is_some_and(|f| f.object),
            _ => {}
        }
        i += 1;
    }
    found
}

/// The index of the closing quote of the string starting at `from`, and
/// whether it holds an unpaired surrogate escape. Jumps over runs of plain
/// bytes with `memchr2`, so a long `requestState` costs a memory scan.
fn string_end(bytes: &[u8], mut i: usize) -> (usize, bool) {
    let mut lone = false;
    let mut pending_high = false;
    loop {
        let Some(run) = memchr::memchr2(b'"', b'\\', &bytes[i.min(bytes.len())..]) else {
            return (bytes.len(), lone || pending_high);
        };
        if run > 0 {
            lone |= pending_high;
            pending_high = false;
        }
        i += run;
        if bytes[i] == b'"' {
            return (i, lone || pending_high);
        }
        if bytes.get(i + 1) != Some(&b'u') {
            lone |= pending_high;
            pending_high = false;
            i += 2;
            continue;
        }
        match hex4(bytes.get(i + 2..i + 6)) {
            Some(0xD800..=0xDBFF) => {
                lone |= pending_high;
                pending_high = true;
            }
            Some(0xDC00..=0xDFFF) => {
                lone |= !pending_high;
                pending_high = false;
            }
            _ => {
                lone |= pending_high;
                pending_high = false;
            }
        }
        i += 6;
    }
}

fn hex4(digits: Option<&[u8]>) -> Option<u16> {
    let digits = core::str::from_utf8(digits?).ok()?;
    u16::from_str_radix(digits, 16).ok()
}

fn has_duplicate(keys: &mut [&[u8]]) -> bool {
    match keys.len() {
        0 | 1 => false,
        n if n <= 8 => (1..n).any(|j| keys[..j].contains(&keys[j])),
        _ => {
            keys.sort_unstable();
            keys.windows(2).any(|w| w[0] == w[1])
        }
    }
}

/// `Err` for a depth overrun only; the other findings wait for the parser,
/// whose syntax errors take precedence.
pub(crate) fn check_depth(finding: Option<Finding>, max_depth: usize) -> Result<Option<Finding>> {
    match finding {
        Some(Finding::TooDeep) => Err(Finding::TooDeep.into_error(max_depth)),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_only_structure() {
        assert_eq!(scan(br#"{"a":"[[[[[[[["}"#, 2), None);
        assert_eq!(scan(b"[[[1]]]", 2), Some(Finding::TooDeep));
        assert_eq!(scan(b"[[1],[2]]", 2), None);
    }

    #[test]
    fn surrogates_must_pair() {
        assert_eq!(scan(br#"["\ud83d\ude00"]"#, 8), None);
        assert_eq!(scan(br#"["\ud83d"]"#, 8), Some(Finding::Surrogate));
        assert_eq!(scan(br#"["\ude00\ud83d"]"#, 8), Some(Finding::Surrogate));
        assert_eq!(scan(br#"["\ud83dx"]"#, 8), Some(Finding::Surrogate));
        assert_eq!(scan(br#"["\\ud83d"]"#, 8), None);
    }

    #[test]
    fn duplicate_keys_at_any_level_but_not_across_objects() {
        assert_eq!(scan(br#"{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}"#, 8), None);
        assert_eq!(scan(br#"{"a":{"x":1,"x":2}}"#, 8), Some(Finding::DuplicateKey));
        assert_eq!(scan(br#"{"a":1,"b":"a","a":2}"#, 8), Some(Finding::DuplicateKey));
        let many: alloc::string::String = (0..20).map(|i| alloc::format!("\"k{i}\":1,")).collect();
        assert_eq!(scan(alloc::format!("{{{many}\"k7\":2}}").as_bytes(), 8), Some(Finding::DuplicateKey));
        assert_eq!(scan(alloc::format!("{{{many}\"k70\":2}}").as_bytes(), 8), None);
    }
}
