//! The rule catalogue: every rule mrtr enforces, with its stable id.
//!
//! The ids are those of the project's `RULES.md` (plus the ones mrtr added,
//! marked below). They are the vocabulary of every error, every checker
//! violation, every conformance case and every binding, so they live in one
//! table, [`RULES`], that code, docs and tests all read. The numeric value of a
//! [`RuleId`] is stable for the C ABI: a number is never reused or renumbered.

use core::fmt;

/// A rule of the catalogue. `RuleId as u16` is stable across releases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u16)]
#[non_exhaustive]
pub enum RuleId {
    /// Not one JSON value, or not UTF-8.
    JsonrpcParseError = 1,
    /// Not a JSON-RPC 2.0 message.
    JsonrpcInvalid = 2,
    /// (2026-07-28) A client request lacks the required `_meta` fields.
    RequestMetaMissing = 3,
    /// (2026-07-28) A request's `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` header is missing or differs from its body.
    RequestHeaderMismatch = 4,
    /// (2026-07-28) A request the server cannot serve without a client capability it did not declare: -32021.
    RequestCapabilityMissing = 5,
    /// (2026-07-28) A request at a protocol version the server does not serve: -32022.
    ProtocolVersionUnsupported = 6,
    /// `resultType` is not a known value.
    ResultTypeUnknown = 10,
    /// (2026-07-28) A server result lacks `resultType`.
    ResultTypeMissing = 11,
    /// `input_required` answers a method off the allow-list.
    InputRequiredMethodNotAllowed = 12,
    /// (2026-07-28) `input_required` with neither `inputRequests` nor `requestState`.
    InputRequiredEmpty = 13,
    /// An input request of the wrong shape.
    InputRequestInvalid = 14,
    /// (2026-07-28) An input request for a capability the client did not declare.
    InputRequestCapabilityMissing = 15,
    /// `requestState` is not a string.
    RequestStateInvalid = 16,
    /// A message after `input_required` on the same SSE stream.
    MessageAfterInputRequired = 17,
    /// (2026-07-28) Caching hints on an `input_required` result or a retry's result.
    InputRequiredCacheHint = 18,
    /// (mrtr) A final result carries `requestState`.
    CompleteRequestState = 19,
    /// The retry reuses an id.
    RetryIdReused = 20,
    /// The retry changed method or params.
    RetryRequestChanged = 21,
    /// The retry lacks a response to a key of the last `inputRequests`.
    RetryMissingInputResponse = 22,
    /// An input response does not fit its request.
    RetryInputResponseInvalid = 23,
    /// The retry does not echo `requestState` exactly.
    RetryRequestStateMismatch = 24,
    /// The retry carries a `requestState` the result did not.
    RetryRequestStateUnexpected = 25,
    /// `inputResponses` / `requestState` on a request that is not a retry.
    InputResponsesUnsolicited = 26,
    /// More retry rounds than the configured bound.
    RetryRoundsExceeded = 27,
    /// `inputResponses` that is not an object of objects.
    InputResponsesMalformed = 30,
    /// `requestState` that cannot be decoded.
    StateMalformed = 31,
    /// Sealed state whose integrity check fails.
    StateTampered = 32,
    /// State past its expiry.
    StateExpired = 33,
    /// State bound to another principal.
    StateWrongSubject = 34,
    /// State issued for another request.
    StateWrongRequest = 35,
    /// State sealed under a key id the server does not hold.
    StateUnknownKey = 36,
    /// State over the configured size bound.
    StateTooLarge = 37,
    /// (mrtr) A single-use state presented again.
    StateReplayed = 38,
    /// A task status outside the five.
    TaskStatusInvalid = 40,
    /// A transition out of a terminal task status.
    TaskTransitionInvalid = 41,
    /// An `input_required` task whose input requests were not delivered.
    TaskInputRequestsMissing = 42,
    /// A task input response without task id or responses.
    TaskInputResponseWithoutTask = 43,
    /// A task id the server never returned.
    TaskUnknown = 44,
    /// (extension) An input request key reused within one task.
    TaskInputKeyReused = 45,
    /// (2025-11-25) A server request outside any client request.
    ServerRequestUnassociated = 50,
    /// A server request sent on a stream where MRTR replaces them.
    ServerRequestOnStream = 51,
    /// (SEP-1858) Responses after `buffer_input` not buffered.
    SseResponseNotBuffered = 60,
    /// (SEP-1858) Reconnected after `input_required`.
    SseReconnectedAfterInputRequired = 61,
    /// (SEP-1858) Buffered POST without `Last-Event-ID`.
    SseLastEventIdMissing = 62,
    /// (SEP-1335) Followed a cross-origin `rel="stream"` URL.
    SseStreamUrlCrossOrigin = 63,
    /// (SEP-1335) Reconnected before the last `retry`.
    SseRetryIgnored = 64,
    /// (SEP-1335) Buffered responses not POSTed to the stream URL.
    SseBufferedPostTarget = 65,
    /// (mrtr) A response stream ended before the response, with nothing to resume from.
    SseStreamEnded = 66,
    /// (mrtr) An HTTP status the transport does not expect at that point, or none (the connection failed).
    HttpStatusUnexpected = 67,
    /// (mrtr gateways) A request whose `Origin` or `Host` the listener does not allow (DNS rebinding): 403.
    HttpOriginRefused = 68,
    /// (mrtr gateways) A POST whose `Content-Type` is not `application/json`: 415.
    HttpContentTypeUnsupported = 69,
    /// (mrtr) A message over a configured bound.
    LimitExceeded = 70,
    /// (mrtr, API misuse) An argument of the wrong type or shape.
    UsageInvalidArgument = 80,
    /// (mrtr, API misuse) A handle the machine never issued, or one already finished.
    UsageUnknownHandle = 81,
    /// (mrtr, API misuse) An input the machine does not expect in its current state.
    UsageOutOfTurn = 82,
    /// (mrtr) A key asked to seal past its nonce budget.
    UsageSealBudgetSpent = 83,
    /// (mrtr) A panic inside mrtr, caught at a language boundary: a bug in mrtr.
    InternalPanic = 90,
}

/// One row of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct RuleInfo {
    /// The rule.
    pub id: RuleId,
    /// Its stable kebab-case name, as in `RULES.md`.
    pub name: &'static str,
    /// The area the rule belongs to: every language's error class.
    pub area: Area,
    /// The JSON-RPC error code a peer answers with, where the rule has one.
    pub code: Option<i32>,
    /// Where the rule comes from.
    pub source: &'static str,
}

/// The area of a rule: which part of the protocol (or of mrtr's API) it
/// guards. Every binding derives its error classes from it — one class per
/// area, named by [`Area::title`] (`ProtocolError`, `RetryError`, …) — so a
/// rule raises the same class in every language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
#[non_exhaustive]
pub enum Area {
    /// A message breaks the protocol: envelope, results, input requests, limits.
    Protocol = 1,
    /// A retry or its input responses are wrong.
    Retry = 2,
    /// A sealed `requestState` does not open.
    State = 3,
    /// A task's status or input is wrong.
    Task = 4,
    /// A server request outside what the protocol allows (SEP-2260, MRTR).
    Association = 5,
    /// The HTTP transports: the SSE multi-turn proposals (SEP-1858, SEP-1335), statuses, and the web's rules a gateway keeps.
    Transport = 6,
    /// A misuse of mrtr's API by its caller (h11's *local* error): never a peer's fault.
    Usage = 7,
    /// A panic inside mrtr, caught at a language boundary: a bug in mrtr.
    Panic = 8,
}

impl Area {
    /// Every area, in the order of the catalogue.
    pub const ALL: [Area; 8] = [
        Area::Protocol,
        Area::Retry,
        Area::State,
        Area::Task,
        Area::Association,
        Area::Transport,
        Area::Usage,
        Area::Panic,
    ];

    /// The stable lower-case name (`"protocol"`, `"retry"`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Area::Protocol => "protocol",
            Area::Retry => "retry",
            Area::State => "state",
            Area::Task => "task",
            Area::Association => "association",
            Area::Transport => "transport",
            Area::Usage => "usage",
            Area::Panic => "panic",
        }
    }

    /// The capitalised stem of the area's error class: `ProtocolError` in
    /// Python and JavaScript, `MrtrException.Protocol` in Kotlin.
    pub const fn title(self) -> &'static str {
        match self {
            Area::Protocol => "Protocol",
            Area::Retry => "Retry",
            Area::State => "State",
            Area::Task => "Task",
            Area::Association => "Association",
            Area::Transport => "Transport",
            Area::Usage => "Usage",
            Area::Panic => "Panic",
        }
    }

    /// One sentence on what the area covers.
    pub const fn summary(self) -> &'static str {
        match self {
            Area::Protocol => "A message breaks the protocol: the JSON-RPC envelope, results, input requests, limits.",
            Area::Retry => "A client's retry, or its input responses, is wrong.",
            Area::State => "A sealed `requestState` does not open.",
            Area::Task => "A task's status or input is wrong.",
            Area::Association => "A server request outside what the protocol allows.",
            Area::Transport => "The HTTP transports: the SSE multi-turn proposals (SEP-1858, SEP-1335), statuses, and the web's rules a gateway keeps (`Origin`, `Host`, `Content-Type`).",
            Area::Usage => "A misuse of mrtr's API by its caller: a local bug, never a peer's violation.",
            Area::Panic => "A panic inside mrtr, caught at a language boundary: a bug in mrtr.",
        }
    }

    /// The area with this name.
    pub fn from_name(name: &str) -> Option<Area> {
        Area::ALL.into_iter().find(|a| a.name() == name)
    }

    /// The rules of this area, in catalogue order.
    pub fn rules(self) -> impl Iterator<Item = &'static RuleInfo> {
        RULES.iter().filter(move |r| r.area == self)
    }
}

impl fmt::Display for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// JSON-RPC 2.0 "Parse error".
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC 2.0 "Invalid Request".
pub const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC 2.0 "Invalid params".
pub const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC 2.0 "Internal error".
pub const INTERNAL_ERROR: i32 = -32603;
/// `StaleState` of the draft error registry ([`ErrorCodes::Draft`]).
pub const STALE_STATE: i32 = -32026;

/// Which JSON-RPC codes a server answers its refusals with. What differs is
/// one row: a refused `requestState` (a `state-*` rule a server answers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ErrorCodes {
    /// The codes of `2026-07-28` and JSON-RPC 2.0: a refused state is -32602.
    #[default]
    Released,
    /// The Transports WG's draft error registry, due with the next revision:
    /// a refused state is -32026 `StaleState`, its `data` `{"kind":
    /// "request_state", "reason"}` (the reason: the rule id without `state-`).
    Draft,
}

impl ErrorCodes {
    /// Both tables.
    pub const ALL: [ErrorCodes; 2] = [ErrorCodes::Released, ErrorCodes::Draft];

    /// `released` or `draft`.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorCodes::Released => "released",
            ErrorCodes::Draft => "draft",
        }
    }

    /// The table named `name`.
    pub fn from_name(name: &str) -> Option<ErrorCodes> {
        ErrorCodes::ALL.into_iter().find(|c| c.name() == name)
    }
}

macro_rules! catalogue {
    ($( $id:ident, $name:literal, $area:ident, $code:expr, $source:literal, $text:literal; )*) => {
        /// The whole catalogue, in the order of `RULES.md`.
        pub const RULES: &[RuleInfo] = &[
            $( RuleInfo { id: RuleId::$id, name: $name, area: Area::$area, code: $code, source: $source }, )*
        ];
        impl RuleId {
            /// The rule, in full (the text of `docs/RULES.md`). A function, not
            /// a field of [`RULES`], so that a build that never prints it (the
            /// wasm module) does not carry the texts.
            pub const fn text(self) -> &'static str {
                match self { $( RuleId::$id => $text, )* }
            }
            /// The stable kebab-case id.
            pub const fn name(self) -> &'static str {
                match self { $( RuleId::$id => $name, )* }
            }
            /// The JSON-RPC error code a peer answers this rule's failure with, if any.
            pub const fn code(self) -> Option<i32> {
                match self { $( RuleId::$id => $code, )* }
            }
            /// The area of this rule (its error class in every language).
            pub const fn area(self) -> Area {
                match self { $( RuleId::$id => Area::$area, )* }
            }
            /// The catalogue row of this rule.
            pub const fn info(self) -> &'static RuleInfo {
                // Rows are in declaration order, so a variant's row is found by its position.
                let mut i = 0;
                while i < RULES.len() {
                    if RULES[i].id as u16 == self as u16 {
                        return &RULES[i];
                    }
                    i += 1;
                }
                // Unreachable: the macro builds one row per variant it matches on.
                &RULES[0]
            }
        }
    };
}

catalogue! {
    JsonrpcParseError, "jsonrpc-parse-error", Protocol, Some(PARSE_ERROR), "JSON-RPC 2.0",
        "Not one JSON value, or not UTF-8. Code -32700.";
    JsonrpcInvalid, "jsonrpc-invalid", Protocol, Some(INVALID_REQUEST), "JSON-RPC 2.0",
        "Not a JSON-RPC 2.0 request, notification, result or error: `\"jsonrpc\":\"2.0\"` missing, `id` not string/integer (null is not allowed for requests), both `result` and `error`, `method` not a string, `params` not an object… Code -32600. A batch is this too, except where a transport rule says otherwise (SEP-1858 buffered responses).";
    RequestMetaMissing, "request-meta-missing", Protocol, Some(INVALID_PARAMS), "2026-07-28 RequestParams",
        "(`2026-07-28`) A client request lacks the required `_meta` protocol version or client capabilities.";
    RequestHeaderMismatch, "request-header-mismatch", Protocol, Some(-32020), "2026-07-28 transports (SEP-2243)",
        "(`2026-07-28`, Streamable HTTP) A request's `MCP-Protocol-Version` header equals its `_meta` protocol version, its `Mcp-Method` header its method, and its `Mcp-Name` header its target (`params.name` of `tools/call` and `prompts/get`, `params.uri` of `resources/read`, `params.taskId` of `tasks/get`, `tasks/update`, `tasks/cancel`); a missing or different one is refused with -32020 (HTTP 400).";
    RequestCapabilityMissing, "request-capability-missing", Protocol, Some(-32021), "2026-07-28 MissingRequiredClientCapabilityError",
        "(`2026-07-28`) A request the server cannot serve without a client capability the request's `_meta` did not declare is refused with -32021 (HTTP 400), whose `data.requiredCapabilities` (a `ClientCapabilities` object) names what it needs. The checker reports a -32021 error without that object.";
    ProtocolVersionUnsupported, "protocol-version-unsupported", Protocol, Some(-32022), "2026-07-28 UnsupportedProtocolVersionError",
        "(`2026-07-28`) A request whose `_meta` protocol version the server does not serve is refused with -32022 (HTTP 400), whose `data.supported` lists the versions it serves (strings) and `data.requested` repeats the request's. The checker reports a -32022 error without them, or whose `requested` is not the request's version.";
    ResultTypeUnknown, "result-type-unknown", Protocol, None, "001 Schema Changes",
        "`resultType` is `\"complete\"` or `\"input_required\"`, or `\"task\"` where the Tasks extension is in use.";
    ResultTypeMissing, "result-type-missing", Protocol, None, "2026-07-28 Result",
        "(`2026-07-28`) A server result lacks `resultType`. A client still reads an absent one as `\"complete\"`.";
    InputRequiredMethodNotAllowed, "input-required-method-not-allowed", Protocol, None, "001 Server-Initiated Request Support",
        "`input_required` answers only an allow-listed method.";
    InputRequiredEmpty, "input-required-empty", Protocol, None, "2026-07-28 InputRequiredResult",
        "(`2026-07-28`) An `input_required` result with neither `inputRequests` nor `requestState`.";
    InputRequestInvalid, "input-request-invalid", Protocol, None, "001 Schema Changes",
        "`inputRequests` is an object; each value is `{\"method\", \"params\"}` (no `jsonrpc`, no `id`) with method `elicitation/create`, `sampling/createMessage` or `roots/list` and params valid for it (elicitation: `message`; form mode: `requestedSchema`, a flat object schema of primitive properties; url mode: `url`; sampling: `messages`, `maxTokens`).";
    InputRequestCapabilityMissing, "input-request-capability-missing", Protocol, Some(INVALID_PARAMS), "2026-07-28 RequestMetaObject",
        "(`2026-07-28`) An input request for a capability the client's request did not declare: `elicitation` (form; `url` mode needs `elicitation.url`), `sampling` (a sampling request with `tools` or `toolChoice` needs `sampling.tools`), `roots`. A server that cannot serve the request without it answers -32021 (`request-capability-missing`).";
    RequestStateInvalid, "request-state-invalid", Protocol, Some(INVALID_PARAMS), "001 Schema Changes",
        "`requestState` is a string.";
    MessageAfterInputRequired, "message-after-input-required", Protocol, None, "001 Protocol Requirements for Ephemeral Workflow",
        "An `input_required` result on an SSE stream is the last message on that stream.";
    InputRequiredCacheHint, "input-required-cache-hint", Protocol, None, "2026-07-28 server/utilities/caching",
        "(`2026-07-28`) An `input_required` result carries no caching hints (`ttlMs`, `cacheScope`): it is not cacheable. Results of retries (requests carrying `inputResponses` or `requestState`) MUST NOT be cached: a retry's result carries no `ttlMs` above 0 (a server's builder, `server::complete`, gives them `ttlMs: 0`).";
    CompleteRequestState, "complete-request-state", Protocol, None, "2026-07-28 InputRequiredResult",
        "(`2026-07-28`, `sep-2322`; mrtr) `requestState` belongs to an `input_required` result: a final result (`resultType` `\"complete\"`, absent, or `\"task\"`) carries none. A client cannot tell such a result from a state-only round it should retry (the Go SDK 1.8 server answers a load-shedding round so), and one that retries it runs the operation twice.";
    RetryIdReused, "retry-id-reused", Retry, None, "001 Ephemeral Tool Workflow",
        "The retry's JSON-RPC `id` differs from the request it retries (and from every request in flight).";
    RetryRequestChanged, "retry-request-changed", Retry, None, "001 Ephemeral Tool Workflow",
        "Method and params, apart from `inputResponses`, `requestState`, `_meta`, equal the original's.";
    RetryMissingInputResponse, "retry-missing-input-response", Retry, None, "001 Client Behavior",
        "Every key of the last `inputRequests` is in the retry's `inputResponses`.";
    RetryInputResponseInvalid, "retry-input-response-invalid", Retry, Some(INVALID_PARAMS), "001 Schema Changes",
        "Each response fits its request: `ElicitResult` (`action` accept/decline/cancel; `content` only with accept, and for form mode it fits `requestedSchema`), `CreateMessageResult` (`role`, `content`, `model`), `ListRootsResult` (`roots`, each a `file://` `uri`).";
    RetryRequestStateMismatch, "retry-request-state-mismatch", Retry, None, "001 Client Behavior",
        "Where the result had `requestState`, the retry echoes exactly that string.";
    RetryRequestStateUnexpected, "retry-request-state-unexpected", Retry, None, "001 Client Behavior",
        "Where the result had none, the retry carries none.";
    InputResponsesUnsolicited, "input-responses-unsolicited", Retry, Some(INVALID_PARAMS), "001 Ephemeral Tool Workflow",
        "`inputResponses` / `requestState` appear only on a retry of the request they answer, never on another request.";
    RetryRoundsExceeded, "retry-rounds-exceeded", Retry, None, "RULES.md Client retry",
        "More rounds than the client's configured bound (default 10, as the official SDKs).";
    InputResponsesMalformed, "input-responses-malformed", Retry, Some(INVALID_PARAMS), "001 Guidance for Error Handling",
        "`inputResponses` that is not an object of objects: JSON-RPC error -32602, not a new `input_required`.";
    StateMalformed, "state-malformed", State, Some(INVALID_PARAMS), "001 Server Behavior",
        "`requestState` that cannot be decoded. State is attacker-controlled input.";
    StateTampered, "state-tampered", State, Some(INVALID_PARAMS), "001 Security Implications",
        "Sealed state whose integrity check fails.";
    StateExpired, "state-expired", State, Some(INVALID_PARAMS), "001 Server Behavior",
        "Past its expiry.";
    StateWrongSubject, "state-wrong-subject", State, Some(INVALID_PARAMS), "001 Server Behavior",
        "Bound to another authenticated principal.";
    StateWrongRequest, "state-wrong-request", State, Some(INVALID_PARAMS), "001 Server Behavior",
        "Issued for another request (method, target, digest of its salient params).";
    StateUnknownKey, "state-unknown-key", State, Some(INVALID_PARAMS), "RULES.md Server side",
        "Sealed under a key id the server does not hold.";
    StateTooLarge, "state-too-large", State, Some(INVALID_PARAMS), "RULES.md Server side",
        "Over the configured size bound.";
    StateReplayed, "state-replayed", State, Some(INVALID_PARAMS), "001 Security Implications",
        "(mrtr) A sealed state presented again where the server enforces single use (a replay guard: first use wins). Replaying an earlier round's state would roll back what later rounds collected; replaying a final one would run its action twice.";
    TaskStatusInvalid, "task-status-invalid", Task, Some(INVALID_PARAMS), "Tasks TaskStatus",
        "Status is one of `working`, `input_required`, `completed`, `failed`, `cancelled`.";
    TaskTransitionInvalid, "task-transition-invalid", Task, None, "Tasks lifecycle",
        "No transition out of `completed`, `failed`, `cancelled`.";
    TaskInputRequestsMissing, "task-input-requests-missing", Task, None, "001 Persistent Tool Workflow",
        "An `input_required` task's input requests are delivered (`tasks/result` in `sep-2322`, inlined in `tasks/get` in the extension).";
    TaskInputResponseWithoutTask, "task-input-response-without-task", Task, Some(INVALID_PARAMS), "001 Persistent Tool Workflow",
        "`tasks/input_response` carries the related-task `taskId` and `inputResponses` (`sep-2322`); `tasks/update` carries `taskId` and `inputResponses` (extension).";
    TaskUnknown, "task-unknown", Task, Some(INVALID_PARAMS), "Tasks",
        "A task id the server never returned.";
    TaskInputKeyReused, "task-input-key-reused", Task, None, "Tasks extension",
        "(extension) An input request key reused within one task's lifetime.";
    ServerRequestUnassociated, "server-request-unassociated", Association, Some(INVALID_PARAMS), "004 SEP-2260",
        "(`2025-11-25`) `roots/list`, `sampling/createMessage`, `elicitation/create` from the server only inside a client request still in flight (on its POST stream): never on the standalone GET stream, never after that request was answered. A client answers an unassociated one with -32602. `ping` is exempt.";
    ServerRequestOnStream, "server-request-on-stream", Association, None, "001 Abstract",
        "(`sep-2322`, `sep-2322-draft`, `2026-07-28`) MRTR replaces in-stream server requests: `roots/list`, `sampling/createMessage`, `elicitation/create` reach the client only as `inputRequests`, never as a JSON-RPC request on a stream.";
    SseResponseNotBuffered, "sse-response-not-buffered", Transport, None, "000 SEP-1858",
        "(1858) After `buffer_input`, responses to server requests are buffered, not POSTed one by one.";
    SseReconnectedAfterInputRequired, "sse-reconnected-after-input-required", Transport, None, "000 SEP-1858",
        "(1858) On `input_required` the client stops reading and does not reconnect.";
    SseLastEventIdMissing, "sse-last-event-id-missing", Transport, None, "000 SEP-1858",
        "(1858) The POST of buffered responses (a JSON array) carries `Last-Event-ID`.";
    SseStreamUrlCrossOrigin, "sse-stream-url-cross-origin", Transport, None, "003 SEP-1335",
        "(1335) A `rel=\"stream\"` URL of another scheme, host or port is not followed.";
    SseRetryIgnored, "sse-retry-ignored", Transport, None, "003 SEP-1335",
        "(1335) The client waits at least the last `retry` before reconnecting.";
    SseBufferedPostTarget, "sse-buffered-post-target", Transport, None, "003 SEP-1335",
        "(1335) After `204 No Content`, buffered responses go as a JSON array to the `rel=\"stream\"` URL.";
    SseStreamEnded, "sse-stream-ended", Transport, None, "mrtr transports",
        "(mrtr) A response stream ended before the JSON-RPC response to its request with nothing to resume it from: no event id (and, in 1335, no `rel=\"stream\"` URL), a `204` with no answers owed, or the reconnects allowed (`StreamLimits::max_reconnects`) spent without an event. The client machine fails the call with it.";
    HttpStatusUnexpected, "http-status-unexpected", Transport, None, "mrtr transports",
        "(mrtr) An HTTP status the transport does not expect at that point: a POST answered without the call's response (neither an event stream nor a JSON-RPC response with its id), a reconnect answered with anything but an event stream (or `204` in 1335), an answer's POST refused; or no status at all, the connection failed or closed before one (its message says so). The client machine fails the call with it.";
    HttpOriginRefused, "http-origin-refused", Transport, None, "2025-11-25 Streamable HTTP, Security Warning",
        "(mrtr gateways) A server MUST validate `Origin` against DNS rebinding. `mrtr proxy` and `mrtr bridge` answer 403 to a request whose `Origin` is present and not allowed (by default only loopback origins on a loopback listener; `--allow-origin` widens), or whose `Host` names none of the listener's allowed hosts (by default, on a loopback listener, only loopback names).";
    HttpContentTypeUnsupported, "http-content-type-unsupported", Transport, None, "2025-11-25 Streamable HTTP, Sending Messages to the Server",
        "(mrtr gateways) A POST to an MCP endpoint carries a JSON-RPC message as `application/json`. `mrtr proxy` and `mrtr bridge` answer 415 to any other `Content-Type`: a cross-site `text/plain` POST, which a browser sends without a CORS preflight, never reaches the server.";
    LimitExceeded, "limit-exceeded", Protocol, Some(INVALID_REQUEST), "mrtr Limits",
        "A message over a configured bound: bytes, nesting depth, entries of `inputRequests` or `inputResponses` (see `mrtr::Limits`). Code -32600.";
    UsageInvalidArgument, "usage-invalid-argument", Usage, None, "mrtr API",
        "An argument of the wrong type or shape handed to mrtr by its caller (a handle that is not an integer, a key that is not 32 bytes, options that are not an object…). A bug in the caller, never a peer's violation.";
    UsageUnknownHandle, "usage-unknown-handle", Usage, None, "mrtr API",
        "A handle the machine never issued, or one whose request already finished or was abandoned.";
    UsageOutOfTurn, "usage-out-of-turn", Usage, None, "mrtr API",
        "An input the machine does not expect in its state: a response to no request in flight, an answer to a request the server has not asked input for.";
    UsageSealBudgetSpent, "usage-seal-budget-spent", Usage, None, "mrtr API",
        "A key asked to seal past its budget: 2^32 seals per AES-256-GCM key with random 96-bit nonces (NIST SP 800-38D), or the share the host configured. The host rotates to a new current key.";
    InternalPanic, "internal-panic", Panic, Some(INTERNAL_ERROR), "mrtr API",
        "A panic inside mrtr, caught at a language boundary and raised as an error: a bug in mrtr, never the input's fault. Code -32603.";
}

impl RuleId {
    /// The rule with this kebab-case id.
    pub fn from_name(name: &str) -> Option<RuleId> {
        RULES.iter().find(|r| r.name == name).map(|r| r.id)
    }

    /// The rule with this stable number (the C ABI's error code).
    pub fn from_u16(n: u16) -> Option<RuleId> {
        RULES.iter().find(|r| r.id as u16 == n).map(|r| r.id)
    }

    /// The code a server answers this rule with under `codes` ([`RuleId::code`]
    /// for [`ErrorCodes::Released`]).
    pub fn code_under(self, codes: ErrorCodes) -> Option<i32> {
        match codes {
            ErrorCodes::Draft if self.refuses_state() => Some(STALE_STATE),
            _ => self.code(),
        }
    }

    /// A `requestState` the server will not act on: the rules of area
    /// `state` a server answers (-32602 in the released codes).
    pub fn refuses_state(self) -> bool {
        self.area() == Area::State && self.code() == Some(INVALID_PARAMS)
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_round_trip_and_are_unique() {
        for (i, a) in RULES.iter().enumerate() {
            assert_eq!(RuleId::from_name(a.name), Some(a.id));
            assert_eq!(RuleId::from_u16(a.id as u16), Some(a.id));
            assert_eq!(a.id.name(), a.name);
            assert_eq!(a.id.info().name, a.name);
            for b in &RULES[i + 1..] {
                assert_ne!(a.name, b.name);
                assert_ne!(a.id as u16, b.id as u16);
            }
        }
        assert_eq!(RuleId::from_name("no-such-rule"), None);
    }

    #[test]
    fn state_failures_answer_invalid_params() {
        for r in RULES.iter().filter(|r| r.name.starts_with("state-")) {
            assert_eq!(r.code, Some(INVALID_PARAMS), "{}", r.name);
        }
        assert_eq!(RuleId::JsonrpcParseError.code(), Some(-32700));
        assert_eq!(RuleId::JsonrpcInvalid.code(), Some(-32600));
    }

    #[test]
    fn every_rule_has_an_area_and_every_area_a_rule() {
        for r in RULES {
            assert_eq!(r.id.area(), r.area, "{}", r.name);
            assert!(!r.id.text().is_empty(), "{}", r.name);
        }
        for a in Area::ALL {
            assert!(a.rules().next().is_some(), "{a}");
            assert_eq!(Area::from_name(a.name()), Some(a));
        }
        // The areas the bindings disagreed on before the table carried them.
        assert_eq!(RuleId::InputResponsesMalformed.area(), Area::Retry);
        assert_eq!(RuleId::InputResponsesUnsolicited.area(), Area::Retry);
        assert_eq!(RuleId::SseRetryIgnored.area(), Area::Transport);
        assert_eq!(RuleId::LimitExceeded.area(), Area::Protocol);
        assert_eq!(RuleId::UsageUnknownHandle.area(), Area::Usage);
        assert_eq!(RuleId::InternalPanic.code(), Some(INTERNAL_ERROR));
    }
}
