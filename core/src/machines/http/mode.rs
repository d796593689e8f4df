//! The transport modes, and what differs between them, as one table.
//!
//! Every difference the client machine ([`super::call`]), the server side
//! ([`super::serve`]) and the checker (`check::audit`) act on is a field of
//! [`ModeRules`], so [`MODES`] is the whole answer to "what does SEP-1335
//! change?" (`docs/RULES.md` prints it, from this table).

use crate::{
    base::error::{err, Error},
    base::protocol::Protocol,
};

/// How JSON-RPC travels over HTTP: the transport a client and a server agreed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Streamable HTTP of `2026-07-28`: a POST answered with JSON or an event
    /// stream; the server asks for input only inside results (`input_required`).
    Streamable,
    /// Streamable HTTP of `2025-11-25`: server requests arrive on the POST's
    /// stream (SEP-2260) and each answer is POSTed on its own (`202 Accepted`).
    Legacy,
    /// SEP-1858: `buffer_input` and `input_required` events; the answers go
    /// in one POST, a JSON array, with `Last-Event-ID`.
    Sep1858,
    /// SEP-1335: a `Link: <…>; rel="stream"` URL to reconnect to after
    /// `retry`; `204 No Content` ends a stream; the answers go as a JSON array
    /// to that URL.
    Sep1335,
}

/// Where a server asks a client for input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asking {
    /// Inside results (`input_required`): the client retries the request.
    InResults,
    /// As server requests on the call's response stream (SEP-2260).
    OnStream,
}

/// How a client's answers to server requests travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answering {
    /// No server requests: answers are a retry's `inputResponses`.
    Retry,
    /// Each answer POSTed on its own as it is given (`202 Accepted`).
    EachPosted,
    /// After a `buffer_input` event, held until `input_required`, then one
    /// POST (a JSON array) to the endpoint with `Last-Event-ID` (SEP-1858).
    UntilInputRequired,
    /// Held from the stream's start until it ends (`204`), then one POST (a
    /// JSON array) to the `rel="stream"` URL (SEP-1335).
    UntilStreamEnds,
}

/// How a continuation of a call (buffered answers, a reconnect) names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continuation {
    /// It does not: a new POST is a new call, a GET resumes by `Last-Event-ID`.
    None,
    /// By the `Last-Event-ID` of the event it continues (`<key>.<n>`).
    LastEventId,
    /// By the `rel="stream"` URL the call's response gave (`?stream=<key>`).
    StreamUrl,
}

/// What one transport mode does.
#[derive(Clone, Copy, Debug)]
pub struct ModeRules {
    /// The name a call's configuration and the corpus use.
    pub name: &'static str,
    /// The protocol a call speaks unless configured otherwise.
    pub protocol: Protocol,
    /// Where the server asks.
    pub asking: Asking,
    /// How the answers go.
    pub answering: Answering,
    /// How a continuation names its call.
    pub continuation: Continuation,
    /// A response gives a `Link: <…>; rel="stream"` URL to reconnect to, and
    /// `204 No Content` on it ends the stream (SEP-1335).
    pub stream_url: bool,
    /// The POST carries the header fields that mirror its body
    /// (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
    pub mirrors_body: bool,
}

/// Every mode's rules, in the order of [`Mode::ALL`].
pub const MODES: &[(Mode, ModeRules)] = &[
    (
        Mode::Streamable,
        ModeRules {
            name: "2026-07-28",
            protocol: Protocol::V2026_07_28,
            asking: Asking::InResults,
            answering: Answering::Retry,
            continuation: Continuation::None,
            stream_url: false,
            mirrors_body: true,
        },
    ),
    (
        Mode::Legacy,
        ModeRules {
            name: "2025-11-25",
            protocol: Protocol::V2025_11_25,
            asking: Asking::OnStream,
            answering: Answering::EachPosted,
            continuation: Continuation::None,
            stream_url: false,
            mirrors_body: false,
        },
    ),
    (
        Mode::Sep1858,
        ModeRules {
            name: "sep-1858",
            protocol: Protocol::V2025_11_25,
            asking: Asking::OnStream,
            answering: Answering::UntilInputRequired,
            continuation: Continuation::LastEventId,
            stream_url: false,
            mirrors_body: false,
        },
    ),
    (
        Mode::Sep1335,
        ModeRules {
            name: "sep-1335",
            protocol: Protocol::V2025_11_25,
            asking: Asking::OnStream,
            answering: Answering::UntilStreamEnds,
            continuation: Continuation::StreamUrl,
            stream_url: true,
            mirrors_body: false,
        },
    ),
];

impl Mode {
    /// Every mode, in the order of their names.
    pub const ALL: [Mode; 4] = [Mode::Streamable, Mode::Legacy, Mode::Sep1858, Mode::Sep1335];

    /// What the mode does.
    pub fn rules(self) -> &'static ModeRules {
        // MODES has one row per variant (checked by a test).
        &MODES.iter().find(|(m, _)| *m == self).unwrap_or(&MODES[0]).1
    }

    /// Its name: `2026-07-28`, `2025-11-25`, `sep-1858`, `sep-1335`.
    pub fn name(self) -> &'static str {
        self.rules().name
    }

    /// The mode of that name; another name is `usage-invalid-argument`.
    pub fn from_name(name: &str) -> Result<Mode, Error> {
        Mode::ALL.into_iter().find(|m| m.name() == name).ok_or_else(|| {
            let known: alloc::vec::Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
            let name = crate::base::error::quoted(name);
            err!(UsageInvalidArgument, "unknown transport mode {name}: the known ones are {}", known.join(", "))
        })
    }

    /// Whether server requests may arrive on a response stream.
    pub fn server_requests(self) -> bool {
        self.rules().asking == Asking::OnStream
    }
}

impl core::fmt::Display for Mode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_mode_in_order_and_the_rows_agree_with_themselves() {
        let modes: alloc::vec::Vec<Mode> = MODES.iter().map(|(m, _)| *m).collect();
        assert_eq!(modes, Mode::ALL);
        for (mode, r) in MODES {
            assert_eq!(Mode::from_name(r.name).unwrap(), *mode);
            // Asking in results is answering by retry, and the reverse.
            assert_eq!(r.asking == Asking::InResults, r.answering == Answering::Retry, "{}", r.name);
            // A continuation by stream URL is the mode that gives one.
            assert_eq!(r.continuation == Continuation::StreamUrl, r.stream_url, "{}", r.name);
            // Only a protocol that asks inside results mirrors its body in header fields.
            assert_eq!(r.mirrors_body, r.protocol.rules().header_mirroring, "{}", r.name);
        }
    }
}
