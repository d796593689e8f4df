//! The records the façade writes as JSON and the typed bindings read into a
//! type of their own, declared once: an HTTP request to send, the events of
//! the client machines, an event-stream block, what an incoming HTTP request
//! asks. Each is an object of named members, or a union of such objects told
//! apart by their `type` member.
//!
//! `mrtr-gen` writes TypeScript's types and UniFFI's records and enums from
//! this table; the façade's own serializers write the same members (the
//! UniFFI binding's tests read every event the façade writes back into them).
//!
//! A member ([`Member`]: what it holds, whether it may be absent) is the same
//! word for a record's member and a settings object's field
//! ([`super::settings`]).

use super::exports::Shape;

/// What a member of a record or a settings object holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holds {
    /// Text (a URL, a key, a message).
    Text,
    /// A transport mode's name: `2026-07-28`, `2025-11-25`, `sep-1858`, `sep-1335`.
    Mode,
    /// A multi-turn transport's name: `sep-1858` or `sep-1335`.
    Transport,
    /// A table of error codes: `released` or `draft`.
    ErrorCodes,
    /// A protocol's name.
    Protocol,
    /// The limits (`Limits`): every field optional.
    Limits,
    /// A JSON object that is no message (capabilities, a client's name).
    Object,
    /// A whole number: an exchange, a time in milliseconds.
    Whole,
    /// Yes or no.
    Flag,
    /// A small count: a round.
    Count,
    /// A request's handle, given out by the `Client` machine.
    Handle,
    /// A rule id.
    Rule,
    /// An HTTP method: `POST` or `GET`.
    Method,
    /// Header fields: names to values.
    Headers,
    /// A JSON-RPC message, or another JSON object.
    Message,
    /// A list of JSON-RPC messages.
    Messages,
    /// Input requests by key: `{<key>: {method, params}}`.
    Questions,
    /// A list of names (keys).
    Names,
    /// Any JSON value.
    Json,
    /// A SHA-256 digest: 32 bytes, 64 hex digits in JSON.
    Digest,
}

/// Whether a member may be left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Presence {
    /// Always there.
    Required,
    /// Left out when it has no value.
    Optional,
    /// Always there, `null` when it has no value.
    Nullable,
}

/// One member of a record, or one field of a settings object.
#[derive(Clone, Copy, Debug)]
pub struct Member {
    /// Its name, as the JSON spells it (camelCase).
    pub name: &'static str,
    /// What it holds.
    pub holds: Holds,
    /// Whether it may be left out.
    pub presence: Presence,
    /// One line on it.
    pub doc: &'static str,
}

/// One kind of object in a union: the value of its `type` member, and its other members.
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    /// The value of `type` (camelCase).
    pub tag: &'static str,
    /// One line on it.
    pub doc: &'static str,
    /// Its members but `type`.
    pub members: &'static [Member],
}

/// What a record is made of.
#[derive(Clone, Copy, Debug)]
pub enum Body {
    /// One object.
    Object(&'static [Member]),
    /// Objects told apart by their `type` member.
    Union(&'static [Variant]),
}

/// A record the façade writes.
#[derive(Clone, Copy, Debug)]
pub struct Record {
    /// The shape it is.
    pub shape: Shape,
    /// Its name in the typed bindings.
    pub name: &'static str,
    /// One line on it.
    pub doc: &'static str,
    /// Whether the bindings also write it for the façade to read (an argument as well as an answer).
    pub written: bool,
    /// What it is made of.
    pub body: Body,
}

pub(super) const fn member(name: &'static str, holds: Holds, doc: &'static str) -> Member {
    Member { name, holds, presence: Presence::Required, doc }
}

pub(super) const fn optional(name: &'static str, holds: Holds, doc: &'static str) -> Member {
    Member { name, holds, presence: Presence::Optional, doc }
}

const fn nullable(name: &'static str, holds: Holds, doc: &'static str) -> Member {
    Member { name, holds, presence: Presence::Nullable, doc }
}

const fn variant(tag: &'static str, doc: &'static str, members: &'static [Member]) -> Variant {
    Variant { tag, doc, members }
}

const RULE: Member = member("rule", Holds::Rule, "The rule id.");
const WHY: Member = member("message", Holds::Text, "Why, in one sentence.");
const WHAT: Member = member("message", Holds::Text, "What is wrong, in one sentence.");
const MESSAGE: Member = member("message", Holds::Message, "The message.");
const HANDLE: Member = member("handle", Holds::Handle, "The request.");

/// Every record, by shape.
pub const RECORDS: &[Record] = &[
    Record {
        shape: Shape::Violations,
        name: "Violation",
        doc: "A rule broken by the entry at `index` of a conversation (a check answers a list of them).",
        written: false,
        body: Body::Object(&[
            member("rule", Holds::Rule, "The rule id."),
            member("index", Holds::Whole, "The index of the offending entry."),
            member("message", Holds::Text, "What is wrong, in one sentence."),
        ]),
    },
    Record {
        shape: Shape::Resumed,
        name: "Resumed",
        doc: "What a server reads off a request against what it needs.",
        written: false,
        body: Body::Object(&[
            member(
                "responses",
                Holds::Message,
                "The answers to needed keys that are present, in the order of the needs.",
            ),
            member("missing", Holds::Names, "Needed keys without an answer: ask again."),
            member("ignored", Holds::Names, "Keys answered but not needed: ignore them."),
            nullable("requestState", Holds::Text, "The echoed `requestState`, for the server to validate, or none."),
        ]),
    },
    Record {
        shape: Shape::SseEvent,
        name: "SseEvent",
        doc: "One event-stream block: the fields its lines set.",
        written: true,
        body: Body::Object(&[
            optional("event", Holds::Text, "The last `event` field."),
            optional(
                "data",
                Holds::Text,
                "The `data` fields, joined with LF (SEP-1858's `buffer_input` and `input_required` have none).",
            ),
            optional("id", Holds::Text, "The last `id` field without NUL."),
            optional("retry", Holds::Whole, "The last `retry` field made of ASCII digits (milliseconds)."),
        ]),
    },
    Record {
        shape: Shape::HttpRequest,
        name: "HttpRequest",
        doc: "An HTTP request to send; quote its `exchange` with every part of its response.",
        written: false,
        body: Body::Object(&[
            member("exchange", Holds::Whole, "The machine's number for this exchange."),
            member("method", Holds::Method, "`POST` or `GET`."),
            member("url", Holds::Text, "The absolute URL."),
            member("headers", Holds::Headers, "The header fields to send (lower-case names)."),
            optional("body", Holds::Json, "The JSON body (a message, or an array of them), if any."),
        ]),
    },
    Record {
        shape: Shape::HttpCallEvent,
        name: "HttpCallEvent",
        doc: "What an `HttpCall` tells its host.",
        written: false,
        body: Body::Union(&[
            variant(
                "serverRequest",
                "A server request (elicitation, sampling, roots, ping): answer it with `answer`.",
                &[MESSAGE],
            ),
            variant("message", "A notification, or a response that is not the call's, to pass on.", &[MESSAGE]),
            variant("violation", "The server broke a rule; the call goes on.", &[RULE, WHAT]),
            variant(
                "response",
                "The call's JSON-RPC response (a result, an `input_required` result, or an error): the call is over.",
                &[MESSAGE],
            ),
            variant("failed", "The call cannot go on, and why: the last event.", &[RULE, WHY]),
        ]),
    },
    Record {
        shape: Shape::OperationEvent,
        name: "OperationEvent",
        doc: "What an `Operation` tells its host.",
        written: false,
        body: Body::Union(&[
            variant(
                "inputRequired",
                "The server asks: answer each key of `requests` with `answer(key, result)`.",
                &[
                    member("round", Holds::Count, "The round asked for."),
                    member("requests", Holds::Questions, "The questions by key."),
                ],
            ),
            variant("message", "A notification, or a message that is not the operation's, to pass on.", &[MESSAGE]),
            variant("violation", "The server broke a rule; the operation goes on.", &[RULE, WHAT]),
            variant(
                "done",
                "The final JSON-RPC response (a result, or an error the server answered): the last event.",
                &[member("response", Holds::Message, "The response.")],
            ),
            variant("failed", "The operation cannot go on, and why: the last event.", &[RULE, WHY]),
        ]),
    },
    Record {
        shape: Shape::ClientEvent,
        name: "ClientEvent",
        doc: "What the `Client` machine tells its host.",
        written: false,
        body: Body::Union(&[
            variant(
                "inputRequired",
                "The server needs input: fulfil `inputRequests`, then answer.",
                &[
                    HANDLE,
                    member("inputRequests", Holds::Message, "What the server asks, by key."),
                    member("round", Holds::Count, "Retries made so far for this request."),
                ],
            ),
            variant(
                "retryNow",
                "The server shed load (`input_required` with state only): answer at once, with nothing.",
                &[HANDLE],
            ),
            variant(
                "done",
                "The request is finished: a complete result, a task, or an error.",
                &[HANDLE, member("response", Holds::Message, "The final response message.")],
            ),
        ]),
    },
    Record {
        shape: Shape::Incoming,
        name: "Incoming",
        doc: "What an incoming HTTP request asks.",
        written: false,
        body: Body::Union(&[
            variant(
                "call",
                "A JSON-RPC request: a new call (an MRTR retry is one too).",
                &[member("message", Holds::Message, "The request.")],
            ),
            variant(
                "messages",
                "Notifications or responses outside any continuation: answer `202 Accepted`.",
                &[member("messages", Holds::Messages, "Each message.")],
            ),
            variant(
                "answers",
                "Buffered answers of the continuation `key`: answer with the continued stream.",
                &[
                    member("key", Holds::Text, "The continuation key."),
                    member("responses", Holds::Messages, "The JSON-RPC responses, in order."),
                ],
            ),
            variant(
                "resume",
                "A GET resuming a stream (of the continuation `key`, when named).",
                &[
                    nullable("key", Holds::Text, "The continuation key, if the URL names one."),
                    nullable("lastEventId", Holds::Text, "The `Last-Event-ID` header field, if any."),
                ],
            ),
        ]),
    },
];

/// The records only the bindings with types of their own declare: the
/// JavaScript API takes and gives them as plain objects (`mrtr-gen` writes no
/// TypeScript of them), a typed binding as a record it writes for the façade
/// to read.
pub const TYPED_RECORDS: &[Record] = &[Record {
    shape: Shape::Binding,
    name: "Binding",
    doc: "What a token is bound to, checked when it is opened: the subject (`subject`, the authenticated principal, or `anonymous` and no subject: neither, both or an empty subject is `usage-invalid-argument`, so a missing auth context never binds as anonymous by accident), the protocol, the method, its target and the digest of the request's params (32 zero bytes, a placeholder, are refused).",
    written: true,
    body: Body::Object(&[
        optional("subject", Holds::Text, "The authenticated principal; none only when `anonymous`."),
        member(
            "anonymous",
            Holds::Flag,
            "No principal, by explicit choice: such a token opens for any anonymous caller, so it must carry nothing user-specific.",
        ),
        member("protocol", Holds::Protocol, "The protocol of the conversation (`2026-07-28`, …)."),
        member("method", Holds::Text, "The request's method."),
        member("target", Holds::Text, "What the method acts on: the tool or prompt name, the resource URI, the task id."),
        member("paramsDigest", Holds::Digest, "SHA-256 of the request's params (`params_digest`): 32 bytes."),
    ]),
}];

/// The record of `shape`, if it is one (a list of them, for [`Shape::Violations`]).
pub fn record(shape: Shape) -> Option<&'static Record> {
    RECORDS.iter().chain(TYPED_RECORDS).find(|r| r.shape == shape)
}
