//! The one error type: a rule id, a sentence, and the JSON-RPC code.

use crate::base::rules::RuleId;
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
    /// The JSON-RPC error's `data` a refusal must carry (-32021's
    /// `requiredCapabilities`, -32022's `supported` and `requested`).
    #[cfg(feature = "alloc")]
    data: Option<alloc::boxed::Box<serde_json::Value>>,
}

impl Error {
    /// An error for `rule` with a fixed message.
    pub const fn new(rule: RuleId, message: &'static str) -> Error {
        #[cfg(feature = "alloc")]
        let message = alloc::borrow::Cow::Borrowed(message);
        Error {
            rule,
            message,
            #[cfg(feature = "alloc")]
            data: None,
        }
    }

    /// An error for `rule` with a formatted message.
    #[cfg(feature = "alloc")]
    pub fn with(rule: RuleId, message: alloc::string::String) -> Error {
        Error { rule, message: alloc::borrow::Cow::Owned(message), data: None }
    }

    /// This error with the members its JSON-RPC error's `data` carries
    /// (an object), for a peer to act on: which capabilities, which versions.
    #[cfg(feature = "alloc")]
    pub fn with_data(mut self, data: serde_json::Value) -> Error {
        self.data = Some(alloc::boxed::Box::new(data));
        self
    }

    /// The members of the JSON-RPC error's `data` this refusal carries, if any.
    #[cfg(feature = "alloc")]
    pub fn data(&self) -> Option<&serde_json::Value> {
        self.data.as_deref()
    }

    /// The rule this error enforces.
    pub fn rule(&self) -> RuleId {
        self.rule
    }

    /// The area of the rule: the error class in every language.
    pub fn area(&self) -> crate::base::rules::Area {
        self.rule.area()
    }

    /// Whether the caller misused mrtr's API (a local error, h11's sense),
    /// rather than a message breaking the protocol (a remote one).
    pub fn is_usage(&self) -> bool {
        self.area() == crate::base::rules::Area::Usage
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
        $crate::base::error::Error::with($crate::base::rules::RuleId::$rule, alloc::format!($($fmt)+))
    };
}

#[cfg(feature = "alloc")]
pub(crate) use err;

/// A value the caller gave, for an error message that names it: quoted as
/// Rust debug-quotes a string (control characters escaped), cut to 64
/// characters so that a hostile value cannot grow the message.
#[cfg(feature = "alloc")]
pub(crate) fn quoted(value: &str) -> alloc::string::String {
    const SHOWN: usize = 64;
    match value.char_indices().nth(SHOWN) {
        Some((cut, _)) => alloc::format!("{:?}…", &value[..cut]),
        None => alloc::format!("{value:?}"),
    }
}

/// `Result` with the core's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;
