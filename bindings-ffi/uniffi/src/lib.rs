//! # mrtr-uniffi — the UniFFI binding of [`mrtr`]
//!
//! One cdylib (`libmrtr_uniffi.so`) and the Kotlin, Swift and Python sources
//! UniFFI generates from it (`generated/`). The binding converts and calls the
//! core's façade (`mrtr_facade`); every decision lives in the core.
//!
//! - Messages cross as JSON text: `classify`, `check`, `retry`, `respond`,
//!   `resume`, `task_update` take and return JSON strings.
//! - Objects: [`Client`] (the retry machine), [`Checker`] (a conversation, one
//!   entry at a time), [`KeyRing`] (sealed `requestState`), with
//!   [`ReplayGuard`], a callback interface the host implements (single use).
//! - Transports: [`SseDecoder`] and [`sse_encode`] (event streams),
//!   [`HttpCall`] (the client machine of one call over HTTP, in any mode),
//!   [`Operation`] (one call to its final response, every question by key),
//!   [`ServerStream`], [`read_http_request`], [`stream_url`] and
//!   [`unassociated_reply`] (the server side).
//! - Server: sealed rounds on [`KeyRing`] (`resume_round`, `respond_round`),
//!   the await-style tool's replay (`KeyRing::start_tool_replay`, [`ToolReplay`]),
//!   the `2025-11-25` bridge ([`ToolBridge`]), the builders and checks
//!   (`complete`, `check_request`, `require_capabilities`, …, `question_*`):
//!   generated from the core's export table into `exports.rs` by `mrtr-gen`.
//! - Errors: [`MrtrError`], one variant per area of the core's catalogue (an
//!   exception class each, generated from the table), with `rule`, `code` and
//!   `message`. Every export runs under a panic boundary: a panic is
//!   `MrtrError::Panic` with rule `internal-panic`.
//! - Protocols are named as the corpus names them (`2026-07-28`, `sep-2322`,
//!   `sep-2322-draft`, `2025-11-25`); any other name is `jsonrpc-invalid`.

mod areas;
mod client;
mod error;
mod exports;
mod ints;
mod ops;
mod state;
mod transport;

pub use areas::ErrorArea;
pub use client::{Checker, Client};
pub use error::{MrtrError, Result};
pub use exports::*;
pub use ops::{
    check, classify, classify_bytes, protocols, rules, task_update, test_only_error, test_only_panic, Classified,
    MessageKind, ResultType, RuleInfo, Side,
};
pub use state::{binding_for_request, binding_from_json, inspect, KeyRing, Opened, ReplayGuard, TokenInfo};
pub use transport::SseDecoder;

uniffi::setup_scaffolding!();
