//! `mrtr_node`: the native half of the npm package `mrtr`.
//!
//! Thin by design: every export converts its arguments, calls the `mrtr`
//! core, and converts the outcome back; no protocol rule lives here. The
//! JavaScript wrapper (`index.js`) adds the idiom: objects in and out, the
//! `Rule`/`Protocol`/`TaskStatus` tables, and the `MrtrError` classes.
//!
//! Conventions shared by every module:
//! - JSON comes in as text: a JS string or a `Uint8Array`/`Buffer` (the
//!   wrapper stringifies objects), read by [`convert::parse`] straight from the
//!   bytes; JSON goes out as text for the wrapper's `JSON.parse`.
//! - A core error leaves as a JS `Error` whose `code` is the rule id
//!   ([`errors`]); a panic as one whose `code` is `MRTR_PANIC`, never an abort
//!   (every export runs under [`errors::guard`]).
//!
//! One module per area of the core: [`classify`], [`check`], [`client`],
//! [`server`], [`state`] (sealed `requestState`), with [`tables`] (the
//! catalogues the wrapper builds its enums from).

pub mod check;
pub mod classify;
pub mod client;
pub mod convert;
pub mod errors;
pub mod server;
pub mod state;
pub mod tables;

use napi_derive::napi;

/// Panics on purpose, so that the tests show a Rust panic reaching JavaScript
/// as an exception, never an abort. Not part of the public API.
#[napi(js_name = "__panicForTests")]
pub fn panic_for_tests() -> errors::Result<()> {
    errors::guard(|| panic!("a panic raised on purpose by __panicForTests"))
}
