//! # mrtr — the protocol core of MCP Multi Round-Trip Requests
//!
//! A sans-IO library: it parses, validates and produces the messages of
//! SEP-2322 (MRTR) and checks whole conversations, and never touches a socket,
//! a clock or a random source. Time and randomness are arguments.
//!
//! - [`classify`] one raw message (the hot path: no `serde_json::Value`).
//! - [`client`]: build a retry ([`client::retry`]), drive the [`client::Client`] machine, or carry one
//!   whole call over HTTP in any transport mode with one way to answer the server: [`client::Operation`].
//! - [`server`]: answer with `input_required` ([`server::respond`]) and read a retry ([`server::resume`]).
//! - [`tasks`]: task statuses and their transition table.
//! - [`check`]: check a recorded conversation against every rule.
//! - [`har`] (feature `state`): HTTP Archives read into the checker's entries.
//! - [`sse`]: an incremental, sans-IO decoder and encoder of event streams (`text/event-stream`).
//! - [`http`]: MCP over HTTP in every transport (`2026-07-28`, `2025-11-25`, SEP-1858, SEP-1335): the
//!   client machine [`http::call::Call`], and the server side [`http::serve`]; recorded exchanges are checked by [`check::Audit`].
//! - [`state`]: sealed `requestState` (AEAD, key ring, binding, expiry); [`round`]: server rounds that carry answers in it.
//! - [`bare`]: classification without an allocator (the same strict reader and rules, `heapless` outputs).
//! - [`wire`] (feature `serde`): the one JSON shape of every output. The bindings' surface (JSON text
//!   in and out, so that bindings convert and decide nothing) is the crate `mrtr-facade`, built on
//!   this crate's public API only.
//!
//! Every failure is an [`Error`] carrying a [`RuleId`] from the catalogue
//! ([`rules::RULES`]). The protocol (`2026-07-28` by default, `sep-2322`,
//! `sep-2322-draft`, `2025-11-25`) is always the caller's choice: see
//! [`Protocol`].
//!
//! ```
//! use mrtr::{classify, Kind, Limits, Protocol};
//! let msg = br#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s1"}}"#;
//! let c = classify(msg, Protocol::default(), &Limits::default()).unwrap();
//! assert_eq!(c.kind, Kind::InputRequired);
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod base;
mod conversation;
mod machines;
mod one_message;
mod read;
mod request;
mod rounds;
mod sealed;
mod surface;

pub use base::error;
use base::kind;
pub use base::limits;
pub use base::protocol;
pub use base::rules;
pub use base::settings::{Settings, DEFAULT_MAX_ROUNDS};
pub use base::tasks;
pub use base::time::Millis;
#[cfg(feature = "alloc")]
pub use conversation::check;
#[cfg(feature = "state")]
pub use conversation::har;
#[cfg(feature = "alloc")]
pub use machines::client;
#[cfg(feature = "alloc")]
pub use machines::gateway;
#[cfg(feature = "alloc")]
pub use machines::http;
#[cfg(feature = "alloc")]
pub use machines::server;
pub use one_message::bare;
#[cfg(feature = "alloc")]
use one_message::envelope;
#[cfg(feature = "alloc")]
pub use read::sse;
#[cfg(feature = "alloc")]
pub use request::dialect;
#[cfg(feature = "alloc")]
use request::input;
#[cfg(feature = "state")]
pub use rounds::round;
#[cfg(feature = "state")]
pub use sealed::state;
#[cfg(feature = "serde")]
pub use surface::wire;

#[cfg(feature = "alloc")]
pub use envelope::{classify, classify_value, parse, Classified, Id};
pub use error::{Error, Result};
#[cfg(feature = "alloc")]
pub use input::InputKind;
pub use kind::{Kind, ResultType};
pub use limits::Limits;
pub use protocol::Protocol;
pub use rules::{Area, ErrorCodes, RuleId};

/// The README's example, compiled and run as a doctest.
#[cfg(all(doctest, feature = "state"))]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;

/// The sealed-state example of `docs/state.md`, compiled and run as a doctest.
#[cfg(all(doctest, feature = "state"))]
#[doc = include_str!("../../docs/state.md")]
pub struct StateDocDoctests;
