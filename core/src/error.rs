//! The one error type: a rule id, a sentence, and the JSON-RPC code.

use crate::rules::RuleId;
use core::fmt;

#[cfg(feature = "alloc")]
type Text = alloc::borrow::Cow<'static, str>;
#[cfg(not(feature = "alloc"))]
type Text = &'static str;

/// Why the core refused an input or an operation.
///
/// Every error carries the [`RuleId`] it enforces, so that callers (and the
/// bindings) branch on the rule rather than on text. The message says what was
/// wrong in one sentence; it never echoes secret material.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    rule: RuleId,
    message: Text,
}

impl Error {
    /// An error for `rule` with a fixed message.
    pub const fn new(rule: RuleId, message: &'static str) -> Error {
        #[cfg(feature = "alloc")]
        let message = alloc::borrow::Cow::Borrowed(message);
        Error { rule, message }
    }

    /// An error for `rule` with a formatted message.
    #[cfg(feature = "alloc")]
    pub fn with(rule: RuleId, message: alloc::string::String) -> Error {
        Error { rule, message: alloc::borrow::Cow::Owned(message) }
    }

    /// The rule this error enforces.
    pub fn rule(&self) -> RuleId {
        self.rule
    }

    /// The area of the rule: the error class in every language.
    pub fn area(&self) -> crate::rules::Area {
        self.rule.area()
    }

    /// Whether the caller misused mrtr's API (a local error, h11's sense),
    /// rather than a message breaking the protocol (a remote one).
    pub fn is_usage(&self) -> bool {
        self.area() == crate::rules::Area::Usage
    }

    /// The JSON-RPC error code a peer answers with, where the rule has one.
    pub fn code(&self) -> Option<i32> {
        self.rule.code()
    }

    /// One sentence saying what was wrong.
    // Without `alloc` the message is already a `&str`.
    #[allow(clippy::needless_borrow)]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.rule, self.message)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// `Error::with(rule, format!(…))`: a formatted message for a rule.
#[cfg(feature = "alloc")]
macro_rules! err {
    ($rule:ident, $($fmt:tt)+) => {
        $crate::error::Error::with($crate::rules::RuleId::$rule, alloc::format!($($fmt)+))
    };
}

#[cfg(feature = "alloc")]
pub(crate) use err;

/// `Result` with the core's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
