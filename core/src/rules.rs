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
    /// (mrtr) A message over a configured bound.
    LimitExceeded = 70,
}

/// One row of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct RuleInfo {
    /// The rule.
    pub id: RuleId,
    /// Its stable kebab-case name, as in `RULES.md`.
    pub name: &'static str,
    /// The JSON-RPC error code a peer answers with, where the rule has one.
    pub code: Option<i32>,
    /// Where the rule comes from.
    pub source: &'static str,
}

/// JSON-RPC 2.0 "Parse error".
pub const PARSE_ERROR: i32 = -32700;
/// JSON-RPC 2.0 "Invalid Request".
pub const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC 2.0 "Invalid params".
pub const INVALID_PARAMS: i32 = -32602;

macro_rules! catalogue {
    ($( $id:ident, $name:literal, $code:expr, $source:literal; )*) => {
        /// The whole catalogue, in the order of `RULES.md`.
        pub const RULES: &[RuleInfo] = &[
            $( RuleInfo { id: RuleId::$id, name: $name, code: $code, source: $source }, )*
        ];
        impl RuleId {
            /// The stable kebab-case id.
            pub const fn name(self) -> &'static str {
                match self { $( RuleId::$id => $name, )* }
            }
            /// The JSON-RPC error code a peer answers this rule's failure with, if any.
            pub const fn code(self) -> Option<i32> {
                match self { $( RuleId::$id => $code, )* }
            }
        }
    };
}

catalogue! {
    JsonrpcParseError, "jsonrpc-parse-error", Some(PARSE_ERROR), "JSON-RPC 2.0";
    JsonrpcInvalid, "jsonrpc-invalid", Some(INVALID_REQUEST), "JSON-RPC 2.0";
    RequestMetaMissing, "request-meta-missing", Some(INVALID_PARAMS), "2026-07-28 RequestParams";
    ResultTypeUnknown, "result-type-unknown", None, "001 Schema Changes";
    ResultTypeMissing, "result-type-missing", None, "2026-07-28 Result";
    InputRequiredMethodNotAllowed, "input-required-method-not-allowed", None, "001 Server-Initiated Request Support";
    InputRequiredEmpty, "input-required-empty", None, "2026-07-28 InputRequiredResult";
    InputRequestInvalid, "input-request-invalid", None, "001 Schema Changes";
    InputRequestCapabilityMissing, "input-request-capability-missing", Some(INVALID_PARAMS), "2026-07-28 RequestMetaObject";
    RequestStateInvalid, "request-state-invalid", Some(INVALID_PARAMS), "001 Schema Changes";
    MessageAfterInputRequired, "message-after-input-required", None, "001 Protocol Requirements for Ephemeral Workflow";
    RetryIdReused, "retry-id-reused", None, "001 Ephemeral Tool Workflow";
    RetryRequestChanged, "retry-request-changed", None, "001 Ephemeral Tool Workflow";
    RetryMissingInputResponse, "retry-missing-input-response", None, "001 Client Behavior";
    RetryInputResponseInvalid, "retry-input-response-invalid", Some(INVALID_PARAMS), "001 Schema Changes";
    RetryRequestStateMismatch, "retry-request-state-mismatch", None, "001 Client Behavior";
    RetryRequestStateUnexpected, "retry-request-state-unexpected", None, "001 Client Behavior";
    InputResponsesUnsolicited, "input-responses-unsolicited", Some(INVALID_PARAMS), "001 Ephemeral Tool Workflow";
    RetryRoundsExceeded, "retry-rounds-exceeded", None, "RULES.md Client retry";
    InputResponsesMalformed, "input-responses-malformed", Some(INVALID_PARAMS), "001 Guidance for Error Handling";
    StateMalformed, "state-malformed", Some(INVALID_PARAMS), "001 Server Behavior";
    StateTampered, "state-tampered", Some(INVALID_PARAMS), "001 Security Implications";
    StateExpired, "state-expired", Some(INVALID_PARAMS), "001 Server Behavior";
    StateWrongSubject, "state-wrong-subject", Some(INVALID_PARAMS), "001 Server Behavior";
    StateWrongRequest, "state-wrong-request", Some(INVALID_PARAMS), "001 Server Behavior";
    StateUnknownKey, "state-unknown-key", Some(INVALID_PARAMS), "RULES.md Server side";
    StateTooLarge, "state-too-large", Some(INVALID_PARAMS), "RULES.md Server side";
    TaskStatusInvalid, "task-status-invalid", Some(INVALID_PARAMS), "Tasks TaskStatus";
    TaskTransitionInvalid, "task-transition-invalid", None, "Tasks lifecycle";
    TaskInputRequestsMissing, "task-input-requests-missing", None, "001 Persistent Tool Workflow";
    TaskInputResponseWithoutTask, "task-input-response-without-task", Some(INVALID_PARAMS), "001 Persistent Tool Workflow";
    TaskUnknown, "task-unknown", Some(INVALID_PARAMS), "Tasks";
    TaskInputKeyReused, "task-input-key-reused", None, "Tasks extension";
    ServerRequestUnassociated, "server-request-unassociated", Some(INVALID_PARAMS), "004 SEP-2260";
    ServerRequestOnStream, "server-request-on-stream", None, "001 Abstract";
    SseResponseNotBuffered, "sse-response-not-buffered", None, "000 SEP-1858";
    SseReconnectedAfterInputRequired, "sse-reconnected-after-input-required", None, "000 SEP-1858";
    SseLastEventIdMissing, "sse-last-event-id-missing", None, "000 SEP-1858";
    SseStreamUrlCrossOrigin, "sse-stream-url-cross-origin", None, "003 SEP-1335";
    SseRetryIgnored, "sse-retry-ignored", None, "003 SEP-1335";
    SseBufferedPostTarget, "sse-buffered-post-target", None, "003 SEP-1335";
    LimitExceeded, "limit-exceeded", Some(INVALID_REQUEST), "mrtr Limits";
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

    /// The catalogue row of this rule.
    pub fn info(self) -> &'static RuleInfo {
        // Every variant has a row: the `catalogue!` macro makes `name()` total over
        // the same list, and `every_rule_has_one_row` checks the table.
        RULES.iter().find(|r| r.id == self).unwrap_or(&RULES[0])
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
}
