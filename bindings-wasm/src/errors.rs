//! Errors leaving the module.
//!
//! Every export returns [`Result`]; its error becomes a thrown JS `Error`
//! whose `code` is the rule id (`"retry-id-reused"`), `ERR_MRTR_ARG` for an
//! argument that does not convert, or `MRTR_PANIC`, exactly as the Node
//! addon's. The wrapper (`js/api.mjs`) turns it into the `MrtrError` subclass
//! of the rule's area.
//!
//! A panic cannot unwind on `wasm32-unknown-unknown` (it aborts with a trap),
//! so [`install_panic_hook`] throws the same structured error from the panic
//! hook itself and schedules a fresh instance for the next call: the caller
//! sees an exception, never a dead module.

use mrtr::RuleId;
use wasm_bindgen::JsValue;

/// The `code` of an error thrown to JavaScript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// A rule of the core's catalogue.
    Rule(RuleId),
    /// An argument of the wrong type or shape (not a protocol rule).
    Arg,
    /// A Rust panic, caught at the boundary.
    Panic,
}

impl Code {
    /// The `code` property: the rule id, `ERR_MRTR_ARG` or `MRTR_PANIC`.
    pub fn name(self) -> &'static str {
        match self {
            Code::Rule(rule) => rule.name(),
            Code::Arg => "ERR_MRTR_ARG",
            Code::Panic => "MRTR_PANIC",
        }
    }
}

/// The error every export returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    /// What kind of failure.
    pub code: Code,
    /// One sentence.
    pub message: String,
}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error with `code` and `message`.
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error { code, message: message.into() }
    }
}

impl From<Error> for JsValue {
    fn from(e: Error) -> JsValue {
        let js = js_sys::Error::new(&e.message);
        // Setting a property on a fresh Error object cannot fail.
        let _ = js_sys::Reflect::set(&js, &"code".into(), &e.code.name().into());
        js.into()
    }
}

/// A core error, carrying its rule.
pub fn rule(e: mrtr::Error) -> Error {
    Error::new(Code::Rule(e.rule()), e.message())
}

/// An error for `rule` with `message` (conversion failures that the corpus
/// names with a rule, such as an unknown protocol).
pub fn rule_with(rule: RuleId, message: impl Into<String>) -> Error {
    Error::new(Code::Rule(rule), message)
}

/// An argument that does not convert.
pub fn arg(message: impl Into<String>) -> Error {
    Error::new(Code::Arg, message)
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

/// Makes every later panic throw an `MRTR_PANIC` error to the JS caller and
/// schedule a fresh instance (wasm-bindgen's reinit: the next export call
/// instantiates the module anew, and objects of the old instance throw when
/// used), since the trapped instance's stack and heap are not trustworthy.
#[cfg(target_arch = "wasm32")]
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        wasm_bindgen::handler::schedule_reinit();
        wasm_bindgen::throw_val(Error::new(Code::Panic, format!("mrtr panicked: {what}")).into());
    }));
}
