//! The one error type every export raises, and the panic boundary.
//!
//! [`MrtrError`] has one variant per area of the rule catalogue, so that each
//! becomes an exception class of its own in Kotlin (`MrtrException.Retry`),
//! Swift (`MrtrError.Retry`) and Python (`MrtrError.Retry`); each carries the
//! rule id, the JSON-RPC code a peer answers with (if any) and one sentence.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Rule id of [`MrtrError::Argument`]: a misuse of the binding, not of the protocol.
pub const INVALID_ARGUMENT: &str = "invalid-argument";
/// Rule id of [`MrtrError::Internal`]: a panic or another failure of the library itself.
pub const INTERNAL: &str = "internal";
/// JSON-RPC "Internal error", the code of [`MrtrError::Internal`].
pub const INTERNAL_CODE: i32 = -32603;

/// Why a call failed.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Error)]
pub enum MrtrError {
    /// A message breaks the protocol: `jsonrpc-*`, `request-*`, `result-type-*`,
    /// `input-required-*`, `input-request-*`, `message-after-*`, `sse-*`, `limit-exceeded`.
    Protocol {
        /// The rule id.
        rule: String,
        /// The JSON-RPC error code a peer answers with, if the rule has one.
        code: Option<i32>,
        /// What was wrong, in one sentence.
        message: String,
    },
    /// A retry or its input responses are wrong: `retry-*`, `input-responses-*`.
    Retry {
        /// The rule id.
        rule: String,
        /// The JSON-RPC error code a peer answers with, if the rule has one.
        code: Option<i32>,
        /// What was wrong, in one sentence.
        message: String,
    },
    /// A `requestState` does not open, or cannot be sealed: `state-*`.
    State {
        /// The rule id.
        rule: String,
        /// The JSON-RPC error code a peer answers with, if the rule has one.
        code: Option<i32>,
        /// What was wrong, in one sentence.
        message: String,
    },
    /// A task's status or input is wrong: `task-*`.
    Task {
        /// The rule id.
        rule: String,
        /// The JSON-RPC error code a peer answers with, if the rule has one.
        code: Option<i32>,
        /// What was wrong, in one sentence.
        message: String,
    },
    /// A server request outside what MRTR allows: `server-request-*`.
    Association {
        /// The rule id.
        rule: String,
        /// The JSON-RPC error code a peer answers with, if the rule has one.
        code: Option<i32>,
        /// What was wrong, in one sentence.
        message: String,
    },
    /// A misuse of the binding itself (rule `invalid-argument`, no code): an
    /// unknown algorithm, a secret or digest of the wrong length, a transcript
    /// entry that is not `{"from", "message", "stream"}`.
    Argument {
        /// Always `invalid-argument`.
        rule: String,
        /// Always absent.
        code: Option<i32>,
        /// What was wrong, in one sentence.
        message: String,
    },
    /// A failure of the library itself (rule `internal`, code -32603): a panic
    /// caught at the boundary, or an object left unusable by an earlier panic.
    Internal {
        /// Always `internal`.
        rule: String,
        /// Always -32603.
        code: Option<i32>,
        /// What happened.
        message: String,
    },
}

/// The areas of the rule catalogue: one exception class each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum ErrorArea {
    /// [`MrtrError::Protocol`].
    Protocol,
    /// [`MrtrError::Retry`].
    Retry,
    /// [`MrtrError::State`].
    State,
    /// [`MrtrError::Task`].
    Task,
    /// [`MrtrError::Association`].
    Association,
}

/// Areas by rule id prefix, most specific first (the Python package's table).
const AREAS: &[(&str, ErrorArea)] = &[
    ("retry-", ErrorArea::Retry),
    ("input-responses-", ErrorArea::Retry),
    ("state-", ErrorArea::State),
    ("task-", ErrorArea::Task),
    ("server-request-", ErrorArea::Association),
    ("jsonrpc-", ErrorArea::Protocol),
    ("request-", ErrorArea::Protocol),
    ("result-type-", ErrorArea::Protocol),
    ("input-required-", ErrorArea::Protocol),
    ("input-request-", ErrorArea::Protocol),
    ("message-after-", ErrorArea::Protocol),
    ("sse-", ErrorArea::Protocol),
    ("limit-", ErrorArea::Protocol),
];

/// The area of a rule id (`None` for an id of no known area).
pub fn area_of(rule: &str) -> Option<ErrorArea> {
    AREAS.iter().find(|(prefix, _)| rule.starts_with(prefix)).map(|(_, area)| *area)
}

impl MrtrError {
    /// A misuse of the binding.
    pub fn argument(message: impl Into<String>) -> MrtrError {
        MrtrError::Argument { rule: INVALID_ARGUMENT.into(), code: None, message: message.into() }
    }

    /// A failure of the library itself.
    pub fn internal(message: impl Into<String>) -> MrtrError {
        MrtrError::Internal { rule: INTERNAL.into(), code: Some(INTERNAL_CODE), message: message.into() }
    }

    /// The error for a core rule, in that rule's area.
    pub fn for_rule(rule: mrtr::RuleId, message: impl Into<String>) -> MrtrError {
        let (name, code, message) = (rule.name().to_string(), rule.code(), message.into());
        match area_of(rule.name()) {
            Some(ErrorArea::Retry) => MrtrError::Retry { rule: name, code, message },
            Some(ErrorArea::State) => MrtrError::State { rule: name, code, message },
            Some(ErrorArea::Task) => MrtrError::Task { rule: name, code, message },
            Some(ErrorArea::Association) => MrtrError::Association { rule: name, code, message },
            // A rule of no known area (a test keeps the table total) reads as a protocol failure.
            Some(ErrorArea::Protocol) | None => MrtrError::Protocol { rule: name, code, message },
        }
    }

    /// The rule id.
    pub fn rule(&self) -> &str {
        self.parts().0
    }

    /// The JSON-RPC error code, if any.
    pub fn code(&self) -> Option<i32> {
        *self.parts().1
    }

    /// The sentence.
    pub fn message(&self) -> &str {
        self.parts().2
    }

    fn parts(&self) -> (&String, &Option<i32>, &String) {
        match self {
            MrtrError::Protocol { rule, code, message }
            | MrtrError::Retry { rule, code, message }
            | MrtrError::State { rule, code, message }
            | MrtrError::Task { rule, code, message }
            | MrtrError::Association { rule, code, message }
            | MrtrError::Argument { rule, code, message }
            | MrtrError::Internal { rule, code, message } => (rule, code, message),
        }
    }
}

impl From<mrtr::Error> for MrtrError {
    fn from(e: mrtr::Error) -> MrtrError {
        MrtrError::for_rule(e.rule(), e.message())
    }
}

impl std::fmt::Display for MrtrError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.rule(), self.message())
    }
}

impl std::error::Error for MrtrError {}

/// `Result` with [`MrtrError`].
pub type Result<T, E = MrtrError> = std::result::Result<T, E>;

/// Runs an export's body; a panic becomes [`MrtrError::Internal`] instead of
/// UniFFI's untyped internal error. A lock held during the panic is poisoned,
/// so the object it guards refuses later calls with `Internal` too.
pub(crate) fn guard<T>(body: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        Err(MrtrError::internal(format!("panic in mrtr: {what}")))
    })
}

fn poisoned<E>(_: E) -> MrtrError {
    MrtrError::internal("this object panicked in an earlier call and is unusable")
}

/// A mutex's guard, or `Internal` if an earlier panic poisoned it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> Result<MutexGuard<'_, T>> {
    m.lock().map_err(poisoned)
}

/// A read guard, or `Internal` if an earlier panic poisoned the lock.
pub(crate) fn read<T>(m: &RwLock<T>) -> Result<RwLockReadGuard<'_, T>> {
    m.read().map_err(poisoned)
}

/// A write guard, or `Internal` if an earlier panic poisoned the lock.
pub(crate) fn write<T>(m: &RwLock<T>) -> Result<RwLockWriteGuard<'_, T>> {
    m.write().map_err(poisoned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr::rules::RULES;

    #[test]
    fn every_rule_has_an_area() {
        for r in RULES {
            assert!(area_of(r.name).is_some(), "{} has no area", r.name);
            let e = MrtrError::from(mrtr::Error::new(r.id, "x"));
            assert_eq!((e.rule(), e.code(), e.message()), (r.name, r.code, "x"));
        }
        assert!(matches!(MrtrError::for_rule(mrtr::RuleId::StateExpired, ""), MrtrError::State { .. }));
        assert!(matches!(MrtrError::for_rule(mrtr::RuleId::InputResponsesMalformed, ""), MrtrError::Retry { .. }));
        assert!(matches!(MrtrError::for_rule(mrtr::RuleId::InputRequestInvalid, ""), MrtrError::Protocol { .. }));
        assert!(matches!(MrtrError::for_rule(mrtr::RuleId::TaskUnknown, ""), MrtrError::Task { .. }));
        assert!(matches!(MrtrError::for_rule(mrtr::RuleId::ServerRequestOnStream, ""), MrtrError::Association { .. }));
    }

    #[test]
    fn a_panic_becomes_internal() {
        let e = guard::<()>(|| panic!("boom")).unwrap_err();
        assert_eq!((e.rule(), e.code()), (INTERNAL, Some(INTERNAL_CODE)));
        assert!(e.message().contains("boom"), "{e}");
    }
}
