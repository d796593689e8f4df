//! `mrtr_wasm`: the WebAssembly half of the `mrtr` package for browsers and
//! Node (wasm-bindgen).
//!
//! Thin by design, and the same shape as the Node binding: every export
//! converts its arguments, calls the `mrtr` core, and converts the outcome
//! back; no protocol rule lives here. The ES-module wrapper (`js/mrtr.mjs`)
//! adds the idiom: objects in and out, the `Rule`/`Protocol`/`TaskStatus`
//! tables, and the `MrtrError` classes.
//!
//! Conventions shared by every module:
//! - JSON comes in as text: a JS string or a `Uint8Array` (the wrapper
//!   stringifies objects), read by [`convert::parse`] straight from the bytes;
//!   JSON goes out as text for the wrapper's `JSON.parse`.
//! - A core error leaves as a thrown JS `Error` with `rule` (the rule id) and
//!   `code` (its JSON-RPC code or `null`) ([`errors`]); a panic as one whose
//!   `rule` is `MRTR_PANIC`, never a dead module (see
//!   [`errors::install_panic_hook`]).
//! - No import from `"env"` and no random source: sealing takes the caller's
//!   random bytes ([`state`]).

pub mod check;
pub mod classify;
pub mod client;
pub mod convert;
pub mod errors;
pub mod server;
pub mod state;
pub mod tables;

use wasm_bindgen::prelude::*;

/// Runs when the module is instantiated (and re-instantiated after a panic).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start)]
pub fn start() {
    errors::install_panic_hook();
}

/// Panics on purpose, so that the tests show a Rust panic reaching JavaScript
/// as an exception, never an abort. Not part of the public API.
#[wasm_bindgen(js_name = "__panicForTests")]
pub fn panic_for_tests() {
    panic!("a panic raised on purpose by __panicForTests");
}

/// Aborts on purpose: a trap that bypasses the panic hook (as running out of
/// memory would), so that the tests show the wrapper recovering from any trap.
/// Not part of the public API.
#[wasm_bindgen(js_name = "__abortForTests")]
pub fn abort_for_tests() {
    std::process::abort();
}
