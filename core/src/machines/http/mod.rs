//! MCP over HTTP, sans-IO: the multi-turn transports of SEP-1858 and SEP-1335
//! and the Streamable HTTP of `2025-11-25` and `2026-07-28`.
//!
//! The core never opens a socket. A host hands a machine what its HTTP stack
//! received (a response head, body bytes, the end of a body, the time) and
//! sends what the machine asks for ([`Request`]s):
//!
//! - [`call::Call`]: the client side of one JSON-RPC request, in any [`Mode`]:
//!   the POST, its JSON or event-stream answer, the server requests on the
//!   stream (answered at once, or buffered), reconnects after `retry`,
//!   `Last-Event-ID`, the `rel="stream"` URL, the buffered POST.
//! - [`serve`]: the server side: each mode's event sequence as bytes, and an
//!   incoming HTTP request read into what it asks (a new call, buffered
//!   answers for a continuation the host looks up in its store, a reconnect).
//! - [`link`]: RFC 8288 `Link` headers, `rel="stream"` URLs and their origin.
//! - [`field`]: header field values that carry body text, encoded (SEP-2243).
//! - [`MODES`]: what each transport [`Mode`] does, one row each.

pub mod call;
pub mod field;
pub mod link;
mod mode;
pub mod serve;

pub use mode::{Answering, Asking, Continuation, Mode, ModeRules, MODES};

use crate::{base::error::Error, base::rules::RuleId};
use alloc::{string::String, vec::Vec};

/// HTTP header fields: lower-case names, in order. Several fields of one
/// name stay several entries.
pub type Headers = Vec<(String, String)>;

/// The value of the first field named `name` (ASCII case-insensitive).
pub fn header<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// The header fields that mirror a request's body: defined with the protocol
/// ([`crate::protocol::mirrored_fields`]), since a server checks them
/// whatever carries the request.
pub use crate::base::protocol::mirrored_fields;

/// The header fields a client sends to mirror `request`'s body: each of
/// [`mirrored_fields`] the body has, its value [`field::encode`]d.
pub fn mirror_headers(request: &serde_json::Value) -> Headers {
    mirrored_fields(request)
        .into_iter()
        .filter_map(|(name, value)| Some((String::from(name), field::encode(value?).into_owned())))
        .collect()
}

/// An HTTP request a machine asks its host to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The machine's number for this exchange: the host quotes it with every
    /// part of the response ([`call::Call::handle_head`] and the rest).
    pub exchange: u64,
    /// `POST` or `GET`.
    pub method: &'static str,
    /// The absolute URL.
    pub url: String,
    /// The header fields to send, lower-case names.
    pub headers: Headers,
    /// The body: JSON text (a message, or an array of them), if any.
    pub body: Option<String>,
}

/// Bounds on what a transport machine reads, so that memory and waits stay
/// bounded whatever a server sends. Past one, the call fails with
/// [`RuleId::LimitExceeded`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamLimits {
    /// Event-stream blocks on one response. Default 4096.
    pub max_events: usize,
    /// Links in the `Link` fields of one response. Default 64.
    pub max_links: usize,
    /// Bytes of the `Link` fields of one response. Default 16 KiB.
    pub max_link_bytes: usize,
    /// The longest `retry` (milliseconds) a client waits before reconnecting.
    /// Default 300 000 (five minutes).
    pub max_retry_ms: u64,
    /// Reconnects in a row that bring no event. Default 5.
    pub max_reconnects: u32,
}

impl StreamLimits {
    /// The defaults documented on each field.
    pub const DEFAULT: StreamLimits = StreamLimits {
        max_events: 4096,
        max_links: 64,
        max_link_bytes: 16 << 10,
        max_retry_ms: 300_000,
        max_reconnects: 5,
    };
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits::DEFAULT
    }
}

/// The media type of a `content-type` value, lower-case, without parameters.
fn media_type(value: &str) -> String {
    value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase()
}

/// Whether a response head announces an event stream.
pub fn is_event_stream(headers: &[(String, String)]) -> bool {
    header(headers, "content-type").is_some_and(|v| media_type(v) == "text/event-stream")
}

/// The error of a limit passed by a peer.
fn over(what: &str, bound: impl core::fmt::Display) -> Error {
    Error::with(RuleId::LimitExceeded, alloc::format!("{what} past its bound of {bound}"))
}
