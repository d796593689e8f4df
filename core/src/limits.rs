//! Bounds on what the core reads, so that memory stays bounded on any input.

/// Configurable bounds. Inputs over a bound fail with
/// [`RuleId::LimitExceeded`](crate::RuleId::LimitExceeded) (or
/// [`RuleId::StateTooLarge`](crate::RuleId::StateTooLarge) for `requestState`)
/// before the core builds anything from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of one message. Default 16 MiB.
    pub max_message_bytes: usize,
    /// Nesting depth of arrays and objects. Default 128, which is also the
    /// hard ceiling of the underlying parser; lower values are checked by a
    /// scan before parsing.
    pub max_depth: usize,
    /// Entries of one `inputRequests` or `inputResponses` map. Default 1024.
    pub max_input_requests: usize,
    /// Bytes of one `requestState`. Default 64 KiB.
    pub max_request_state_bytes: usize,
}

impl Limits {
    /// The defaults documented on each field.
    pub const DEFAULT: Limits = Limits {
        max_message_bytes: 16 << 20,
        max_depth: 128,
        max_input_requests: 1024,
        max_request_state_bytes: 64 << 10,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// The nesting depth of `bytes` exceeds `max`? A scan that skips strings;
/// it does not validate (the parser does).
pub(crate) fn too_deep(bytes: &[u8], max: usize) -> bool {
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_str {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_scan_ignores_brackets_in_strings() {
        assert!(!too_deep(br#"{"a":"[[[[[[[["}"#, 2));
        assert!(too_deep(b"[[[1]]]", 2));
        assert!(!too_deep(b"[[1],[2]]", 2));
        assert!(!too_deep(br#"["\"[[[["]"#, 1));
    }
}
