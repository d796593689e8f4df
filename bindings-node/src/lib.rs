//! `mrtr_node`: the native half of the npm package `mrtr`, a line or two per
//! export over [`mrtr_facade`]. The exports of the core's table
//! (`mrtr_facade::exports`) are written by `mrtr-gen` into `exports.rs`;
//! this file is the kernel they call (how text, options and errors cross,
//! the panic boundary) and what is this backend's own: the key ring with its
//! replay guard called back, and the test hooks.
//!
//! The same functions, classes and conventions as the wasm backend
//! (`bindings-wasm/src/lib.rs`), so that one JavaScript module
//! (`lib/api.mjs`) drives either:
//! - JSON text in, as a string or UTF-8 bytes (a `Buffer`/`Uint8Array`, read
//!   in place); options as the JSON text of `{protocol, limits, maxRounds,
//!   transport}`; times, exchange numbers and counts as JS numbers (whole,
//!   below 2^53, checked here); JSON text out (`classify` alone answers a
//!   packed string, see `mrtr_facade::classify_packed`);
//! - randomness for sealing comes from the caller (bytes from
//!   `crypto.getRandomValues`), as in a page; no export takes a nonce, but
//!   for the corpus's test vectors `sealWithNonceForTestVectors`, which
//!   exists only with the cargo feature `test-vectors` (test builds:
//!   `tools/build.sh --test-vectors`; never the packaged addon);
//! - a replay guard is a JS function `(stateId, expiry) => boolean`, called
//!   synchronously from the core through a closure that fails closed: when it
//!   throws, the core refuses the state (`state-replayed`) and the guard's
//!   exception is thrown again once the core has returned;
//! - every failure is a JS `Error` whose `code` is the rule id and whose
//!   message is the core's; a panic is caught and thrown the same way, as
//!   `internal-panic` ([`facade::panic_error`]); but the checks whose refusal
//!   carries `data`, which such an `Error` cannot (`checkRequest`,
//!   `requireCapabilities`, `requireDeclared`), answer `null` when they pass
//!   and the refusal as JSON text otherwise ([`facade::error_json`]), for
//!   `lib/api.mjs` to throw with its `data`.

use mrtr::state::{ReplayGuard, StateId};
use mrtr::RuleId;
use mrtr_facade::{self as facade, Options};
use napi::bindgen_prelude::{Buffer, Either, FnArgs, Function, Unknown};
use napi::{Env, Status};
use napi_derive::napi;

mod exports;
pub use exports::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// JSON text: a string, or UTF-8 bytes.
#[napi]
pub type Text<'a> = Either<String, &'a [u8]>;

pub(crate) fn bytes<'t>(text: &'t Text<'_>) -> &'t [u8] {
    match text {
        Either::A(s) => s.as_bytes(),
        Either::B(b) => b,
    }
}

/// JSON text that may be absent (header fields, a machine's settings): absent is empty.
pub(crate) fn or_empty<'t>(text: &'t Option<Text<'_>>) -> &'t [u8] {
    text.as_ref().map_or(&[], bytes)
}

pub(crate) fn options(text: Option<String>) -> mrtr::Result<Options> {
    text.map_or(Ok(Options::default()), |t| Options::from_json(t.as_bytes()))
}

/// The `code` of a thrown error: the rule id; or none, when the error is a
/// JavaScript exception already thrown (a replay guard's).
pub enum Code {
    /// A core error: its rule id.
    Rule(RuleId),
    /// An exception is pending: napi-rs leaves it as it is.
    Pending,
}

impl AsRef<str> for Code {
    fn as_ref(&self) -> &str {
        match self {
            Code::Rule(rule) => rule.name(),
            Code::Pending => Status::PendingException.as_ref(),
        }
    }
}

/// What every export returns.
pub type Result<T> = std::result::Result<T, napi::Error<Code>>;

/// Runs `f`, a panic becoming `internal-panic`, and a core error the thrown `Error`.
pub(crate) fn run<T>(f: impl FnOnce() -> mrtr::Result<T>) -> Result<T> {
    let out = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(facade::panic_error(&*p)));
    out.map_err(|e| napi::Error::new(Code::Rule(e.rule()), reason(&e)))
}

/// The thrown message: the core's, then, where the error carries `data` (a
/// refusal's, as -32021's `requiredCapabilities`), a NUL and its JSON text,
/// which the kernel (`lib/kernel.mjs`, `translate`) takes off into `.data`:
/// a napi error carries a code and a message only.
fn reason(e: &mrtr::Error) -> String {
    match e.data() {
        Some(data) => format!("{}\u{0}{data}", e.message()),
        None => e.message().into(),
    }
}

/// A replay guard from JavaScript: `(stateId: string, expiry: number) => boolean`.
#[napi]
pub type JsGuard<'f> = Function<'f, FnArgs<(String, f64)>, Either<bool, Unknown<'f>>>;

/// Runs `f` under the JavaScript `guard`, wrapped in a closure that fails
/// closed: when the guard throws, or answers anything but a boolean, the
/// closure answers false (not a first use) and keeps what happened; after the
/// core returns, the guard's own exception is thrown again as it was.
pub(crate) fn guarded<T>(
    env: &Env,
    guard: Option<JsGuard<'_>>,
    f: impl FnOnce(Option<&mut dyn ReplayGuard>) -> mrtr::Result<T>,
) -> Result<T> {
    let Some(js) = guard else { return run(|| f(None)) };
    let mut thrown = None;
    let mut not_boolean = false;
    let out = {
        let mut closure = |id: &StateId, expiry: u64| match js.call((id.to_string(), expiry as f64).into()) {
            Ok(Either::A(first_use)) => first_use,
            Ok(Either::B(_)) => {
                not_boolean = true;
                false
            }
            Err(e) => {
                thrown = Some(e);
                false
            }
        };
        run(|| f(Some(&mut closure)))
    };
    if let Some(e) = thrown {
        // napi-rs caught the guard's exception and holds a reference to it:
        // throw that very value again, and tell napi-rs one is pending. (A
        // thrown primitive cannot be referenced before Node-API 10: napi-rs
        // then holds an Error in its place; lib/api.mjs throws the guard's
        // own value again itself either way.)
        return match env.throw(e) {
            Ok(()) => Err(napi::Error::new(Code::Pending, "")),
            Err(e) => Err(napi::Error::new(Code::Rule(RuleId::InternalPanic), e.reason)),
        };
    }
    if not_boolean {
        let message = "the replay guard answers true (a first use) or false, synchronously: not a promise";
        return Err(napi::Error::new(Code::Rule(RuleId::UsageInvalidArgument), message));
    }
    out
}

/// Runs `f`, a check whose refusal may carry `data` (which a thrown napi
/// error cannot): `null` when it passes, else the core's error as JSON text
/// (`facade::error_json`), which `lib/api.mjs` throws with its data.
pub(crate) fn refusal(f: impl FnOnce() -> mrtr::Result<()>) -> Result<Option<String>> {
    run(|| Ok(f().err().map(|e| facade::error_json(&e))))
}

/// `facade::seal_with_nonce`: sealing with a caller's nonce, for the corpus's
/// test vectors. Only in builds with the cargo feature `test-vectors` (the
/// tests', `tools/build.sh --test-vectors`), never in the packaged addon. A
/// free function left out of the generated types, so that `native.d.ts` and
/// `native.cjs` are the same in both builds (the loader hands out every
/// export of the addon all the same).
#[cfg(feature = "test-vectors")]
#[napi(skip_typescript)]
pub fn seal_with_nonce_for_test_vectors(
    ring: &KeyRing,
    binding: Text,
    now: f64,
    ttl: f64,
    payload: Text,
    nonce: &[u8],
) -> Result<String> {
    let (binding, payload) = (bytes(&binding), bytes(&payload));
    run(|| facade::seal_with_nonce(&ring.0, binding, now as u64, ttl as u32, payload, nonce))
}

/// The object of a token that opened ([`Opened`]).
pub(crate) fn opened(o: mrtr::state::Opened) -> Opened {
    Opened { payload: o.payload.into(), state_id: o.id.to_string(), expiry: o.expiry as f64 }
}

/// A token that opened: its payload, its state id (hex) and its expiry (seconds).
#[napi(object)]
pub struct Opened {
    /// The sealed bytes.
    pub payload: Buffer,
    /// The state's id, lower-case hex: the key of a single-use store.
    pub state_id: String,
    /// When it expires, seconds since the Unix epoch.
    pub expiry: f64,
}

/// Panics on purpose: the tests show a panic reaching JavaScript as a
/// `PanicError`, never an abort. Not part of the API.
#[napi(js_name = "__panicForTests")]
pub fn panic_for_tests() -> Result<()> {
    run(|| panic!("a panic raised on purpose by __panicForTests"))
}
