//! JSON-RPC 2.0 framing and `classify`: what one message alone can show.
//!
//! [`classify`] is the hot path: it reads borrowed views (see `view`), never a
//! `serde_json::Value`, and checks every rule that needs no other message:
//! the envelope, `resultType`, the shape of `inputRequests`, `inputResponses`
//! and `requestState`, and the configured [`Limits`]. Rules that need the
//! request a result answers (the allow-list, capabilities) belong to the
//! server helpers and the checker.

use crate::{
    error::{err, Error, Result},
    input,
    limits::Limits,
    protocol::{Protocol, ResultTypeRule},
    scan,
    view::{EnvelopeView, Map, Obj, ParamsView, Prim, ResultView},
};
use alloc::borrow::Cow;

/// What a message is. `Kind as u8` is stable (the C ABI's `mrtr_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Kind {
    /// A request: `method` and `id`.
    Request = 1,
    /// A notification: `method`, no `id`.
    Notification = 2,
    /// A result that is not `input_required` (complete, task, or untyped).
    Result = 3,
    /// A result with `resultType: "input_required"` (or the draft's envelope fields).
    InputRequired = 4,
    /// An error response.
    Error = 5,
}

impl Kind {
    /// Every kind, in the order of their stable numbers (`Kind as u8`).
    pub const ALL: [Kind; 5] = [Kind::Request, Kind::Notification, Kind::Result, Kind::InputRequired, Kind::Error];

    /// The kind with this name.
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The name the conformance corpus uses.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Result => "result",
            Kind::InputRequired => "input_required",
            Kind::Error => "error",
        }
    }
}

/// A JSON-RPC id: a string or an integer (`null` only on error responses).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Id<'a> {
    /// `null` (an error response to an unreadable request).
    Null,
    /// An integer id.
    Int(i64),
    /// An integer id above `i64::MAX`.
    UInt(u64),
    /// A string id.
    Str(Cow<'a, str>),
}

impl Id<'_> {
    /// This id, owning its string.
    pub fn into_owned(self) -> Id<'static> {
        match self {
            Id::Null => Id::Null,
            Id::Int(i) => Id::Int(i),
            Id::UInt(u) => Id::UInt(u),
            Id::Str(s) => Id::Str(Cow::Owned(s.into_owned())),
        }
    }
}

/// The `resultType` a result declared, as the protocol reads it. `ResultType
/// as u8` is stable (the C ABI's `mrtr_result_type`; 0 there means none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ResultType {
    /// `"complete"`, or absent (read as complete).
    Complete = 1,
    /// `"input_required"`.
    InputRequired = 2,
    /// `"task"` (the Tasks extension).
    Task = 3,
}

impl ResultType {
    /// Every result type, in the order of their numbers (`ResultType as u8`).
    pub const ALL: [ResultType; 3] = [ResultType::Complete, ResultType::InputRequired, ResultType::Task];

    /// The wire value of `resultType`.
    pub const fn name(self) -> &'static str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
        }
    }

    /// The result type with this wire value.
    pub fn from_name(name: &str) -> Option<ResultType> {
        ResultType::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// The outcome of [`classify`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classified<'a> {
    /// What the message is.
    pub kind: Kind,
    /// Its id, if it has one.
    pub id: Option<Id<'a>>,
    /// Its method, for requests and notifications.
    pub method: Option<Cow<'a, str>>,
    /// For results: the declared type (absent reads as complete).
    pub result_type: Option<ResultType>,
    /// For results: whether `resultType` was on the wire.
    pub result_type_present: bool,
}

impl Classified<'_> {
    /// This classification, owning its strings (to keep it past the message).
    pub fn into_owned(self) -> Classified<'static> {
        Classified {
            kind: self.kind,
            id: self.id.map(Id::into_owned),
            method: self.method.map(|m| Cow::Owned(m.into_owned())),
            result_type: self.result_type,
            result_type_present: self.result_type_present,
        }
    }
}

/// Classifies and validates one raw message under `protocol`.
///
/// Fails with the rule the message breaks: `jsonrpc-parse-error`,
/// `jsonrpc-invalid`, `limit-exceeded`, `result-type-unknown`,
/// `input-request-invalid`, `input-required-empty`, `request-state-invalid`,
/// `state-too-large`, `input-responses-malformed`.
pub fn classify<'a>(bytes: &'a [u8], protocol: Protocol, limits: &Limits) -> Result<Classified<'a>> {
    if bytes.len() > limits.max_message_bytes {
        return Err(err!(
            LimitExceeded,
            "message of {} bytes, over the bound of {}",
            bytes.len(),
            limits.max_message_bytes
        ));
    }
    utf8(bytes)?;
    let finding = scan::check_depth(scan::scan(bytes, limits.max_depth), limits.max_depth)?;
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        // A batch is not one message: its syntax errors first, then jsonrpc-invalid.
        serde_json::from_slice::<serde::de::IgnoredAny>(bytes).map_err(json_error)?;
        return Err(err!(JsonrpcInvalid, "a batch is not one JSON-RPC message"));
    }
    let view: EnvelopeView<'a> = serde_json::from_slice(bytes).map_err(json_error)?;
    if let Some(finding) = finding {
        return Err(finding.into_error(limits.max_depth));
    }
    classify_view(view, protocol, limits)
}

/// Parses one JSON text into a `serde_json::Value` under the same bad-input
/// rules as [`classify`]: the byte and depth bounds (`limit-exceeded`), lone
/// surrogate escapes (`jsonrpc-parse-error`) and a key repeated in any object
/// (`jsonrpc-invalid`, where a `Value` would silently keep the last). Bindings
/// and tools that take JSON text call this before the `Value`-based ops.
pub fn parse(bytes: &[u8], limits: &Limits) -> Result<serde_json::Value> {
    if bytes.len() > limits.max_message_bytes {
        return Err(err!(
            LimitExceeded,
            "message of {} bytes, over the bound of {}",
            bytes.len(),
            limits.max_message_bytes
        ));
    }
    utf8(bytes)?;
    let finding = scan::check_depth(scan::scan(bytes, limits.max_depth), limits.max_depth)?;
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(json_error)?;
    match finding {
        Some(finding) => Err(finding.into_error(limits.max_depth)),
        None => Ok(value),
    }
}

/// JSON text between systems is UTF-8 (RFC 8259 §8.1), all of it: the views
/// skip what no rule reads, and serde_json does not check the strings it
/// skips, so the whole message is checked here first (the standard library's
/// validator runs near memcpy speed). A gateway that validates with mrtr and
/// forwards the bytes must never pass on what a stricter parser refuses.
fn utf8(bytes: &[u8]) -> Result<()> {
    match core::str::from_utf8(bytes) {
        Ok(_) => Ok(()),
        Err(e) => Err(err!(JsonrpcParseError, "the message is not UTF-8 (byte {})", e.valid_up_to())),
    }
}

/// Classifies a message already parsed into a `serde_json::Value`.
pub fn classify_value<'a>(
    message: &'a serde_json::Value,
    protocol: Protocol,
    limits: &Limits,
) -> Result<Classified<'a>> {
    classify_view(read(message)?, protocol, limits)
}

/// Reads the envelope view of a parsed message.
pub(crate) fn read(message: &serde_json::Value) -> Result<EnvelopeView<'_>> {
    if !message.is_object() {
        return Err(err!(JsonrpcInvalid, "a JSON-RPC message is an object"));
    }
    EnvelopeView::deserialize_from(message)
}

impl<'a> EnvelopeView<'a> {
    fn deserialize_from(message: &'a serde_json::Value) -> Result<EnvelopeView<'a>> {
        serde::Deserialize::deserialize(message).map_err(json_error)
    }
}

/// Maps a parser error to its rule: syntax is a parse error, a wrong shape
/// (including a duplicate key the views read) is an invalid message.
pub(crate) fn json_error(e: serde_json::Error) -> Error {
    use serde_json::error::Category;
    let text = alloc::string::ToString::to_string(&e);
    if text.starts_with("recursion limit exceeded") {
        return err!(LimitExceeded, "message nested deeper than {}", Limits::DEFAULT.max_depth);
    }
    match e.classify() {
        Category::Data => err!(JsonrpcInvalid, "not a JSON-RPC message: {text}"),
        Category::Syntax | Category::Eof | Category::Io => err!(JsonrpcParseError, "not one JSON value: {text}"),
    }
}

pub(crate) fn classify_view<'a>(v: EnvelopeView<'a>, protocol: Protocol, limits: &Limits) -> Result<Classified<'a>> {
    if v.jsonrpc.as_str() != Some("2.0") {
        return Err(err!(JsonrpcInvalid, "\"jsonrpc\" must be \"2.0\""));
    }
    let draft_fields = v.input_requests.is_present() || v.request_state.is_present();
    let draft = protocol.rules().draft_envelope;
    match (v.method.is_present(), v.result.is_absent(), v.error.is_absent()) {
        (true, true, true) => classify_call(v, protocol, limits),
        (true, _, _) => Err(err!(JsonrpcInvalid, "a request carries no result or error")),
        (false, false, false) => Err(err!(JsonrpcInvalid, "a response carries result or error, not both")),
        (false, _, _) if draft && draft_fields && !(v.result.is_absent() && v.error.is_absent()) => {
            Err(err!(JsonrpcInvalid, "a draft incomplete response carries no result or error"))
        }
        (false, true, false) => classify_error(v),
        (false, false, true) => classify_result(v, protocol, limits),
        (false, true, true) if draft && draft_fields => classify_draft_incomplete(v, protocol, limits),
        (false, true, true) => Err(err!(JsonrpcInvalid, "neither a request nor a response")),
    }
}

fn classify_call<'a>(v: EnvelopeView<'a>, protocol: Protocol, limits: &Limits) -> Result<Classified<'a>> {
    let Prim::Str(method) = v.method else {
        return Err(err!(JsonrpcInvalid, "\"method\" must be a string"));
    };
    let id = match v.id {
        Prim::Absent => None,
        id => Some(request_id(id)?),
    };
    match &v.params {
        Obj::Absent => {}
        Obj::Present(params) => validate_call_params(params, limits)?,
        Obj::Other => return Err(err!(JsonrpcInvalid, "\"params\" must be an object")),
    }
    if protocol.rules().draft_envelope {
        if v.input_responses.is_present() {
            input::validate_wrapped_shape(&v.input_responses, limits)?;
        }
        validate_state(&v.request_state, limits)?;
    }
    let kind = if id.is_some() { Kind::Request } else { Kind::Notification };
    Ok(Classified { kind, id, method: Some(method), result_type: None, result_type_present: false })
}

/// The MRTR fields of request params.
pub(crate) fn validate_call_params(params: &ParamsView<'_>, limits: &Limits) -> Result<()> {
    if !params.input_responses.is_absent() {
        input::validate_responses_shape(&params.input_responses, limits)?;
    }
    validate_state(&params.request_state, limits)
}

/// `requestState`: absent, or a string within the bound.
pub(crate) fn validate_state(state: &Prim<'_>, limits: &Limits) -> Result<()> {
    match state {
        Prim::Absent => Ok(()),
        Prim::Str(s) if s.len() > limits.max_request_state_bytes => Err(err!(
            StateTooLarge,
            "requestState of {} bytes, over the bound of {}",
            s.len(),
            limits.max_request_state_bytes
        )),
        Prim::Str(_) => Ok(()),
        _ => Err(err!(RequestStateInvalid, "requestState must be a string")),
    }
}

fn request_id(id: Prim<'_>) -> Result<Id<'_>> {
    match id {
        Prim::Int(i) => Ok(Id::Int(i)),
        Prim::UInt(u) => Ok(Id::UInt(u)),
        Prim::Str(s) => Ok(Id::Str(s)),
        _ => Err(err!(JsonrpcInvalid, "\"id\" must be a string or an integer")),
    }
}

fn classify_error(v: EnvelopeView<'_>) -> Result<Classified<'_>> {
    let Obj::Present(error) = &v.error else {
        return Err(err!(JsonrpcInvalid, "\"error\" must be an object"));
    };
    if !error.code.is_integer() || error.message.as_str().is_none() {
        return Err(err!(JsonrpcInvalid, "\"error\" needs an integer code and a string message"));
    }
    let id = match v.id {
        Prim::Absent => None,
        Prim::Null => Some(Id::Null),
        id => Some(request_id(id)?),
    };
    Ok(Classified { kind: Kind::Error, id, method: None, result_type: None, result_type_present: false })
}

fn classify_result<'a>(v: EnvelopeView<'a>, protocol: Protocol, limits: &Limits) -> Result<Classified<'a>> {
    let Obj::Present(result) = &v.result else {
        return Err(err!(JsonrpcInvalid, "\"result\" must be an object"));
    };
    let result_type = validate_result(result, protocol, limits)?;
    let kind = if result_type == ResultType::InputRequired { Kind::InputRequired } else { Kind::Result };
    let present = result.result_type.is_present() && protocol.rules().result_type != ResultTypeRule::Ignored;
    let id = request_id(v.id)?;
    Ok(Classified { kind, id: Some(id), method: None, result_type: Some(result_type), result_type_present: present })
}

/// The `resultType` of a result and, for `input_required`, its content.
pub(crate) fn validate_result(result: &ResultView<'_>, protocol: Protocol, limits: &Limits) -> Result<ResultType> {
    let rules = protocol.rules();
    if rules.result_type == ResultTypeRule::Ignored {
        return Ok(ResultType::Complete);
    }
    match &result.result_type {
        Prim::Absent => Ok(ResultType::Complete),
        Prim::Str(t) if t == "complete" => Ok(ResultType::Complete),
        Prim::Str(t) if t == "task" && rules.task_result_type => Ok(ResultType::Task),
        Prim::Str(t) if t == "input_required" => {
            validate_input_required(&result.input_requests, &result.request_state, protocol, limits)?;
            Ok(ResultType::InputRequired)
        }
        Prim::Str(t) => Err(err!(ResultTypeUnknown, "resultType {t:?} is not known in {protocol}")),
        _ => Err(err!(ResultTypeUnknown, "resultType must be a string")),
    }
}

/// The content of an `input_required` answer.
pub(crate) fn validate_input_required(
    requests: &Map<'_, Obj<crate::view::InputRequestView<'_>>>,
    state: &Prim<'_>,
    protocol: Protocol,
    limits: &Limits,
) -> Result<()> {
    if !requests.is_absent() {
        input::validate_requests(requests, protocol, limits)?;
    }
    validate_state(state, limits)?;
    if protocol.rules().input_required_needs_content && requests.is_absent() && state.is_absent() {
        return Err(err!(InputRequiredEmpty, "input_required needs inputRequests or requestState"));
    }
    Ok(())
}

fn classify_draft_incomplete<'a>(v: EnvelopeView<'a>, protocol: Protocol, limits: &Limits) -> Result<Classified<'a>> {
    validate_input_required(&v.input_requests, &v.request_state, protocol, limits)?;
    let id = request_id(v.id)?;
    Ok(Classified {
        kind: Kind::InputRequired,
        id: Some(id),
        method: None,
        result_type: Some(ResultType::InputRequired),
        result_type_present: false,
    })
}
