//! Bounds on what the core reads, so that memory stays bounded on any input.

/// Configurable bounds. Inputs over a bound fail with
/// [`RuleId::LimitExceeded`](crate::RuleId::LimitExceeded) (or
/// [`RuleId::StateTooLarge`](crate::RuleId::StateTooLarge) for `requestState`)
/// before the core builds anything from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of one message. Default 16 MiB.
    pub max_message_bytes: usize,
    /// Nesting depth of arrays and objects, anywhere in a message. Default
    /// 128; the reader follows at most [`bare::MAX_NESTING`](crate::bare::MAX_NESTING)
    /// (1024) levels, so a bound above that meets its capacity first.
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
