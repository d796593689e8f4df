//! `mrtr_wasm`: the WebAssembly backend of the `mrtr` JavaScript API, a line
//! or two per export over [`mrtr_facade`]. The exports of the core's table
//! (`mrtr_facade::exports`) are written by `mrtr-gen` into `exports.rs`;
//! this file is the kernel they call (how text, options and failures cross,
//! the panic hook) and what is this backend's own: the key ring with its
//! replay guard called back, and the test hooks.
//!
//! The same functions, classes and conventions as the napi backend
//! (`bindings-node/src/lib.rs`), so that one JavaScript module
//! (`bindings-node/lib/api.mjs`) drives either:
//! - JSON text in, as a string or UTF-8 bytes (a `Uint8Array`); options as
//!   the JSON text of `{protocol, limits, maxRounds, transport}`; times,
//!   exchange numbers and counts as JS numbers (whole, below 2^53, checked
//!   here); JSON text out (`classify` alone answers a packed string, see
//!   `mrtr_facade::classify_packed`);
//! - randomness for sealing comes from the caller (bytes from
//!   `crypto.getRandomValues`): the module has no random source and imports
//!   nothing from `"env"`; no export takes a nonce, but for the corpus's test
//!   vectors `sealWithNonceForTestVectors`, which exists only with the
//!   cargo feature `test-vectors` (`scripts/build.sh --test-vectors`, into
//!   `pkg-test-vectors/`; never the package's `pkg/`);
//! - a replay guard is a JS function `(stateId, expiry) => boolean`, called
//!   synchronously from the core through a closure that fails closed: when it
//!   throws, the core refuses the state (`state-replayed`) and the guard's
//!   exception is thrown again, as it was, once the core has returned;
//! - every failure is a thrown JS `Error` whose `code` is the rule id and
//!   whose message is the core's. `wasm32-unknown-unknown` cannot unwind, so
//!   a panic is thrown the same way from the panic hook, as `internal-panic`
//!   ([`facade::panic_error`]), and the next call gets a fresh instance. As
//!   in the napi backend, the checks whose refusal carries `data`
//!   (`checkRequest`, `requireCapabilities`, `requireDeclared`) answer
//!   `undefined` when they pass and the refusal as JSON text otherwise
//!   ([`facade::error_json`]), for `lib/api.mjs` to throw with its `data`.

use js_sys::{Function, Object, Reflect, Uint8Array};
use mrtr::state::{ReplayGuard, StateId};
use mrtr::RuleId;
use mrtr_facade::{self as facade, Options};
use wasm_bindgen::prelude::*;

#[cfg(not(any(feature = "full", feature = "browser")))]
compile_error!("mrtr-wasm is built with the feature `full` (the default) or `browser` (the browser package)");

#[cfg(feature = "full")]
mod exports;
/// The browser package's exports (`browser`, without `full`): the items of
/// `exports.rs` that `build.rs` keeps, as they are.
#[cfg(not(feature = "full"))]
mod exports {
    include!(concat!(env!("OUT_DIR"), "/browser_exports.rs"));
}
pub use exports::*;

/// The JavaScript names of the exports this build leaves out (the browser
/// package's; none in the full one), which `js/backend.mjs` makes throw the
/// API's `UsageError` "this backend has no X".
#[wasm_bindgen(js_name = __leftOut)]
pub fn left_out() -> String {
    #[cfg(feature = "full")]
    return String::new();
    #[cfg(not(feature = "full"))]
    return exports::LEFT_OUT.into();
}

/// An error on its way to JavaScript: the core's, or a replay guard's own
/// exception, thrown again as it was.
pub enum Failure {
    /// A core error.
    Core(mrtr::Error),
    /// What a JavaScript replay guard threw.
    #[cfg_attr(not(feature = "full"), allow(dead_code))]
    Js(JsValue),
}

impl From<mrtr::Error> for Failure {
    fn from(e: mrtr::Error) -> Failure {
        Failure::Core(e)
    }
}

impl From<Failure> for JsValue {
    fn from(f: Failure) -> JsValue {
        match f {
            Failure::Core(e) => thrown(&e),
            Failure::Js(v) => v,
        }
    }
}

/// The JS `Error` for `e`: the core's message, `code` the rule id, and
/// `data` the JSON text of a refusal's `data` (-32021's `requiredCapabilities`).
fn thrown(e: &mrtr::Error) -> JsValue {
    let js = js_sys::Error::new(e.message());
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&js, &"code".into(), &e.rule().name().into());
    if let Some(data) = e.data() {
        let _ = js_sys::Reflect::set(&js, &"data".into(), &data.to_string().into());
    }
    js.into()
}

/// What every fallible export returns.
pub type Result<T> = std::result::Result<T, Failure>;

/// The bytes of JSON text given as a string or a `Uint8Array`.
pub(crate) fn bytes(text: &JsValue) -> Vec<u8> {
    match text.as_string() {
        Some(s) => s.into_bytes(),
        None => text.dyn_ref::<Uint8Array>().map(Uint8Array::to_vec).unwrap_or_default(),
    }
}

#[cfg_attr(not(feature = "full"), allow(dead_code))]
pub(crate) fn optional(text: &JsValue) -> Option<Vec<u8>> {
    (!text.is_undefined() && !text.is_null()).then(|| bytes(text))
}

pub(crate) fn options(text: Option<String>) -> mrtr::Result<Options> {
    text.map_or(Ok(Options::default()), |t| Options::from_json(t.as_bytes()))
}

/// A façade call's failure as what crosses to JavaScript.
pub(crate) fn run<T>(f: impl FnOnce() -> mrtr::Result<T>) -> Result<T> {
    f().map_err(Failure::Core)
}

/// Runs `f` under the JavaScript replay guard `guard`
/// (`(stateId: string, expiry: number) => boolean`), wrapped in a closure
/// that fails closed: when the guard throws, or answers anything but a
/// boolean, the closure answers false (not a first use) and keeps what
/// happened; after the core returns, the guard's own exception is thrown again.
#[cfg_attr(not(feature = "full"), allow(dead_code))]
pub(crate) fn guarded<T>(
    guard: Option<Function>,
    f: impl FnOnce(Option<&mut dyn ReplayGuard>) -> mrtr::Result<T>,
) -> Result<T> {
    let Some(js) = guard else { return Ok(f(None)?) };
    let mut thrown = None;
    let mut not_boolean = false;
    let out = {
        let mut closure = |id: &StateId, expiry: u64| match js.call2(
            &JsValue::UNDEFINED,
            &id.to_string().into(),
            &(expiry as f64).into(),
        ) {
            Ok(answer) => answer.as_bool().unwrap_or_else(|| {
                not_boolean = true;
                false
            }),
            Err(e) => {
                thrown = Some(e);
                false
            }
        };
        f(Some(&mut closure))
    };
    if let Some(e) = thrown {
        return Err(Failure::Js(e));
    }
    if not_boolean {
        let message = "the replay guard answers true (a first use) or false, synchronously: not a promise";
        return Err(Failure::Core(mrtr::Error::with(RuleId::UsageInvalidArgument, message.into())));
    }
    Ok(out?)
}

/// Makes every later panic throw an `internal-panic` error to the caller and
/// schedule a fresh instance for the next call (the trapped instance's stack
/// and heap are not trustworthy).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        wasm_bindgen::handler::schedule_reinit();
        wasm_bindgen::throw_val(thrown(&facade::panic_error(info.payload())));
    }));
}

/// Runs `f`, a check whose refusal may carry `data` (as the napi backend,
/// whose thrown errors cannot): `undefined` when it passes, else the core's
/// error as JSON text (`facade::error_json`), which `lib/api.mjs` throws with its data.
#[cfg_attr(not(feature = "full"), allow(dead_code))]
pub(crate) fn refusal(f: impl FnOnce() -> mrtr::Result<()>) -> Option<String> {
    f().err().map(|e| facade::error_json(&e))
}

/// `facade::seal_with_nonce`: sealing with a caller's nonce, for the corpus's
/// test vectors. Only in builds with the cargo feature `test-vectors`
/// (`scripts/build.sh --test-vectors`, into `pkg-test-vectors/`), never in the
/// package's `pkg/`.
#[cfg(feature = "test-vectors")]
#[wasm_bindgen(js_name = sealWithNonceForTestVectors)]
pub fn seal_with_nonce_for_test_vectors(
    ring: &KeyRing,
    binding: &JsValue,
    now: f64,
    ttl: f64,
    payload: &JsValue,
    nonce: &[u8],
) -> Result<String> {
    let (binding, payload) = (bytes(binding), bytes(payload));
    Ok(facade::seal_with_nonce(&ring.0, &binding, now as u64, ttl as u32, &payload, nonce)?)
}

/// Panics on purpose: the tests show a panic reaching JavaScript as a
/// `PanicError`, never a dead module. Not part of the API.
#[wasm_bindgen(js_name = __panicForTests)]
pub fn panic_for_tests() {
    panic!("a panic raised on purpose by __panicForTests");
}

/// Aborts on purpose: a trap that bypasses the panic hook (as running out of
/// memory would), so that the tests show the API recovering from any trap.
/// Not part of the API.
#[wasm_bindgen(js_name = __abortForTests)]
pub fn abort_for_tests() {
    std::process::abort();
}

/// A token that opened as a plain object: `{payload, stateId, expiry}`.
#[cfg_attr(not(feature = "full"), allow(dead_code))]
pub(crate) fn opened(o: mrtr::state::Opened) -> Object {
    let out = Object::new();
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(&out, &"payload".into(), &Uint8Array::from(o.payload.as_slice()));
    let _ = Reflect::set(&out, &"stateId".into(), &o.id.to_string().into());
    let _ = Reflect::set(&out, &"expiry".into(), &(o.expiry as f64).into());
    out
}
