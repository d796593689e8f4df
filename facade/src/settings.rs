//! The fields of every settings object the façade reads as JSON, declared
//! once: a call's configuration, an operation's, a session's, the options and
//! the limits. Each field has its name (as the JSON spells it), what it
//! holds, its default and one line on it.
//!
//! The façade's readers accept exactly these fields, and refuse any other
//! with `usage-invalid-argument` (`conformance/tests/exports.rs` holds each
//! reader to its row). The typed bindings write their declarations and
//! keywords from the table (`mrtr-gen`): TypeScript's interfaces, the Python
//! constructors' keywords and their stubs.

use super::exports::Shape;
use super::records::{member as required, optional as field, Holds, Member};

/// A settings object: the fields of the shape it is, and those of the one it extends.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The shape it is.
    pub shape: Shape,
    /// Its name in the typed bindings.
    pub name: &'static str,
    /// One line on it.
    pub doc: &'static str,
    /// The settings it extends (every field of those is one of these).
    pub extends: Option<Shape>,
    /// Its own fields, in order (each a [`Member`]: required, or optional).
    pub fields: &'static [Member],
}

impl Settings {
    /// Every field: those of the settings it extends, then its own.
    pub fn all_fields(&self) -> impl Iterator<Item = &'static Member> {
        let base = self.extends.and_then(settings).map_or(&[][..], |s| s.fields);
        base.iter().chain(self.fields.iter())
    }
}

const PROTOCOL: Member =
    field("protocol", Holds::Protocol, "The protocol messages are read under (default `2026-07-28`).");
const LIMITS: Member = field("limits", Holds::Limits, "Bounds on what the core reads (absent fields: the defaults).");
const MAX_ROUNDS: Member =
    field("maxRounds", Holds::Whole, "Retries allowed per request before `retry-rounds-exceeded` (default 10).");

/// Every settings object, by shape.
pub const SETTINGS: &[Settings] = &[
    Settings {
        shape: Shape::Limits,
        name: "Limits",
        doc: "Bounds on what the core reads; absent fields keep their default.",
        extends: None,
        fields: &[
            field("maxMessageBytes", Holds::Whole, "Bytes of one message (default 16 MiB)."),
            field("maxDepth", Holds::Whole, "Nesting depth of arrays and objects (default 128)."),
            field("maxInputRequests", Holds::Whole, "Entries of one `inputRequests` / `inputResponses` map (default 1024)."),
            field("maxRequestStateBytes", Holds::Whole, "Bytes of one `requestState` (default 64 KiB)."),
        ],
    },
    Settings {
        shape: Shape::Options,
        name: "Options",
        doc: "The options of one call: the protocol, the limits, and the codes of the refusals it builds.",
        extends: None,
        fields: &[
            PROTOCOL,
            LIMITS,
            field("errorCodes", Holds::ErrorCodes, "The codes of the refusals a server builds: `released` (default) or `draft` (the next revision's draft registry: a refused state is -32026 `StaleState`)."),
        ],
    },
    Settings {
        shape: Shape::ClientConfig,
        name: "ClientConfig",
        doc: "The settings of the `Client` machine.",
        extends: Some(Shape::Options),
        fields: &[MAX_ROUNDS],
    },
    Settings {
        shape: Shape::CheckConfig,
        name: "CheckConfig",
        doc: "The options of a check.",
        extends: Some(Shape::ClientConfig),
        fields: &[field(
            "transport",
            Holds::Transport,
            "The multi-turn transport of the HTTP entries (absent: plain Streamable HTTP of the protocol).",
        )],
    },
    Settings {
        shape: Shape::CallConfig,
        name: "HttpCallConfig",
        doc: "How an `HttpCall` reaches its server; every field but `mode` and `url` has a default.",
        extends: None,
        fields: &[
            required("mode", Holds::Mode, "The transport mode."),
            required("url", Holds::Text, "The MCP endpoint, an absolute URL."),
            field("headers", Holds::Headers, "Sent with every request (`mcp-session-id`, `mcp-protocol-version`, `authorization`, …)."),
            field("protocol", Holds::Protocol, "The protocol messages are read under (default: `2026-07-28` in that mode, else `2025-11-25`)."),
            LIMITS,
            field("maxEvents", Holds::Whole, "Event-stream blocks on one response (default 4096)."),
            field("maxLinks", Holds::Whole, "Links in the `Link` fields of one response (default 64)."),
            field("maxLinkBytes", Holds::Whole, "Bytes of the `Link` fields of one response (default 16 KiB)."),
            field("maxRetryMs", Holds::Whole, "The longest `retry` (ms) the call waits (default 300 000)."),
            field("maxReconnects", Holds::Whole, "Reconnects in a row that bring no event (default 5)."),
            field("defaultRetryMs", Holds::Whole, "The wait before a reconnect when the server sent no `retry` (ms, default 1000)."),
            field("stallMs", Holds::Whole, "How long (ms) a resume or a POST of answers may go without a response head or a byte before it is given up and sent again (a stream with an event id is resumed from it); `abandoned` names what to cut (default none: wait)."),
        ],
    },
    Settings {
        shape: Shape::OperationConfig,
        name: "OperationConfig",
        doc: "How an `Operation` reaches its server: an `HttpCall`'s configuration, and how far it goes.",
        extends: Some(Shape::CallConfig),
        fields: &[
            MAX_ROUNDS,
            field("maxResends", Holds::Whole, "Times in a row one round is sent again after it was cut before its response, or a request after it reached no server (default 2)."),
            field("backoffMs", Holds::Whole, "The first wait (ms) before sending again what reached no server; it doubles, up to `backoffMaxMs` (default 50)."),
            field("backoffMaxMs", Holds::Whole, "The longest of those waits (ms, default 1000); never shorter than a `Retry-After`."),
            field("taskPollMs", Holds::Whole, "The wait between two `tasks/get` (ms) when the server names no `pollIntervalMs` (default 1000)."),
            field("versions", Holds::Names, "The protocol versions the client speaks, preferred first: the first request refused for its version (-32022) goes again under one the server lists."),
            field("hedgeAfterMs", Holds::Whole, "(MRTR) Hedged rounds: a round whose copies have no response head this long (ms) after it went is sent again under a new id; the first response wins (default none)."),
            field("maxHedges", Holds::Whole, "Copies of one round sent on top of the first, with `hedgeAfterMs` (default 1)."),
            field("idempotent", Holds::Flag, "The host knows the first request is harmless twice (a read-only or idempotent tool, one that asks before any effect): only then is it hedged, or sent again once a server may have taken it (default false)."),
        ],
    },
    Settings {
        shape: Shape::SessionConfig,
        name: "SessionConfig",
        doc: "What a client declares once.",
        extends: None,
        fields: &[
            field("protocol", Holds::Protocol, "The protocol version asked for first (default `2026-07-28`)."),
            field("capabilities", Holds::Object, "The client's `ClientCapabilities` (default `{}`: no optional capability)."),
            field("clientInfo", Holds::Object, "The client's name and version (`Implementation`)."),
            field("firstId", Holds::Whole, "The id of the first request (default 1)."),
        ],
    },
    Settings {
        shape: Shape::BridgeConfig,
        name: "BridgeConfig",
        doc: "How far a legacy bridge's call goes.",
        extends: None,
        fields: &[
            MAX_ROUNDS,
            field("roundTimeoutMs", Holds::Whole, "How long a round waits for the client's answers (ms, default 300 000)."),
            LIMITS,
        ],
    },
];

/// The settings object of `shape`, if it is one.
pub fn settings(shape: Shape) -> Option<&'static Settings> {
    SETTINGS.iter().find(|s| s.shape == shape)
}
