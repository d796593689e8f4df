//! Errors leaving the addon.
//!
//! A core [`mrtr::Error`] becomes a JS `Error` whose `code` is the rule id
//! (`"retry-id-reused"`) and whose message is the core's sentence; the
//! wrapper turns it into the `MrtrError` subclass of the rule's area. An
//! argument the addon cannot convert is `ERR_MRTR_ARG` (a `TypeError` in the
//! wrapper), and a panic is `MRTR_PANIC`.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// The `code` of an error thrown to JavaScript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// A rule of the core's catalogue.
    Rule(mrtr::RuleId),
    /// An argument of the wrong type or shape (not a protocol rule).
    Arg,
    /// A Rust panic, caught at the boundary.
    Panic,
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        match self {
            Code::Rule(rule) => rule.name(),
            Code::Arg => "ERR_MRTR_ARG",
            Code::Panic => "MRTR_PANIC",
        }
    }
}

/// The error every export returns.
pub type Error = napi::Error<Code>;
/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// A core error, carrying its rule.
pub fn rule(e: mrtr::Error) -> Error {
    Error::new(Code::Rule(e.rule()), e.message())
}

/// An error for `rule` with `message` (conversion failures that the corpus
/// names with a rule, such as an unknown protocol).
pub fn rule_with(rule: mrtr::RuleId, message: &str) -> Error {
    Error::new(Code::Rule(rule), message)
}

/// An argument that does not convert.
pub fn arg(message: impl ToString) -> Error {
    Error::new(Code::Arg, message)
}

/// A napi failure (converting a value) as an argument error.
pub fn napi(e: napi::Error) -> Error {
    arg(e.reason)
}

/// `Result<T, mrtr::Error>` to [`Result`].
pub trait OrThrow<T> {
    /// The value, or the JS error for the core's error.
    fn or_throw(self) -> Result<T>;
}

impl<T> OrThrow<T> for std::result::Result<T, mrtr::Error> {
    fn or_throw(self) -> Result<T> {
        self.map_err(rule)
    }
}

/// Runs `f`, turning a panic into an `MRTR_PANIC` error instead of letting it
/// unwind into Node (which would abort the process).
pub fn guard<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        Err(Error::new(Code::Panic, format!("mrtr panicked: {what}")))
    })
}
