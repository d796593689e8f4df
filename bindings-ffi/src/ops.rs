//! The stateless operations: classify, the client's retry and task update,
//! the server's respond and resume; limits and protocols.

use crate::args;
use crate::buf::{mrtr_buf, Out};
use crate::json;
use crate::status::{guard, mrtr_status, Failure};
use mrtr::{client, server, Id, Kind, Limits, Protocol, ResultType};
use serde::Serialize;
use serde_json::json;
use std::ffi::c_char;

/// A protocol, chosen by the caller (the negotiated version). Numbers are stable.
pub type mrtr_protocol = i32;
/// MCP `2026-07-28`, the released MRTR (the default).
pub const MRTR_PROTOCOL_2026_07_28: mrtr_protocol = 0;
/// The approved SEP-2322 text, `"sep-2322"`.
pub const MRTR_PROTOCOL_SEP_2322: mrtr_protocol = 1;
/// The earlier SEP-2322 draft, `"sep-2322-draft"`.
pub const MRTR_PROTOCOL_SEP_2322_DRAFT: mrtr_protocol = 2;
/// MCP `2025-11-25`, before MRTR.
pub const MRTR_PROTOCOL_2025_11_25: mrtr_protocol = 3;

const PROTOCOLS: [(mrtr_protocol, Protocol); 4] = [
    (MRTR_PROTOCOL_2026_07_28, Protocol::V2026_07_28),
    (MRTR_PROTOCOL_SEP_2322, Protocol::Sep2322),
    (MRTR_PROTOCOL_SEP_2322_DRAFT, Protocol::Sep2322Draft),
    (MRTR_PROTOCOL_2025_11_25, Protocol::V2025_11_25),
];

/// The core's protocol for a C protocol number.
pub(crate) fn protocol(p: mrtr_protocol) -> Result<Protocol, Failure> {
    PROTOCOLS
        .iter()
        .find(|(n, _)| *n == p)
        .map(|(_, p)| *p)
        .ok_or_else(|| Failure::invalid(format!("no protocol has the number {p}")))
}

/// Bounds on what the core reads (see `mrtr::Limits`). Over a bound:
/// `MRTR_ERR_LIMIT_EXCEEDED` (or `MRTR_ERR_STATE_TOO_LARGE`). Every function
/// taking a `const mrtr_limits *` reads the defaults from NULL.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_limits {
    /// Bytes of one message, and of every JSON argument but a transcript. Default 16 MiB.
    pub max_message_bytes: usize,
    /// Nesting depth of arrays and objects. Default 128 (the parser never goes deeper than 128).
    pub max_depth: usize,
    /// Entries of one `inputRequests` or `inputResponses`. Default 1024.
    pub max_input_requests: usize,
    /// Bytes of one `requestState`. Default 64 KiB.
    pub max_request_state_bytes: usize,
}

pub(crate) fn limits_of(l: &mrtr_limits) -> Limits {
    Limits {
        max_message_bytes: l.max_message_bytes,
        max_depth: l.max_depth,
        max_input_requests: l.max_input_requests,
        max_request_state_bytes: l.max_request_state_bytes,
    }
}

/// The default limits, to adjust and pass by pointer.
#[no_mangle]
pub extern "C" fn mrtr_limits_default() -> mrtr_limits {
    let d = Limits::DEFAULT;
    mrtr_limits {
        max_message_bytes: d.max_message_bytes,
        max_depth: d.max_depth,
        max_input_requests: d.max_input_requests,
        max_request_state_bytes: d.max_request_state_bytes,
    }
}

/// The protocol with this name (`"2026-07-28"`, `"sep-2322"`,
/// `"sep-2322-draft"`, `"2025-11-25"`) into `*out`. An unknown name is
/// `MRTR_ERR_JSONRPC_INVALID` ("unknown protocol", as the conformance corpus says).
///
/// # Safety
/// `name` is valid for `name_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_protocol_from_name(
    name: *const c_char,
    name_len: usize,
    out: *mut mrtr_protocol,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises `name` is valid for `name_len` bytes.
        let name = unsafe { args::required_text(name, name_len, "name") }?;
        let found = Protocol::from_name(name)
            .and_then(|p| PROTOCOLS.iter().find(|(_, q)| *q == p))
            .map(|(n, _)| *n)
            .ok_or_else(|| Failure::from(mrtr::Error::new(mrtr::RuleId::JsonrpcInvalid, "unknown protocol")))?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { args::write(out, found, "out") }
    })
}

/// The name of a protocol number (static), or NULL for an unknown number.
#[no_mangle]
pub extern "C" fn mrtr_protocol_name(protocol_number: mrtr_protocol) -> *const c_char {
    match protocol_number {
        MRTR_PROTOCOL_2026_07_28 => c"2026-07-28".as_ptr(),
        MRTR_PROTOCOL_SEP_2322 => c"sep-2322".as_ptr(),
        MRTR_PROTOCOL_SEP_2322_DRAFT => c"sep-2322-draft".as_ptr(),
        MRTR_PROTOCOL_2025_11_25 => c"2025-11-25".as_ptr(),
        _ => std::ptr::null(),
    }
}

/// What a message is (`mrtr_classified.kind`).
pub type mrtr_kind = i32;
/// A request: `method` and `id`.
pub const MRTR_KIND_REQUEST: mrtr_kind = 1;
/// A notification: `method`, no `id`.
pub const MRTR_KIND_NOTIFICATION: mrtr_kind = 2;
/// A result that is not `input_required` (complete, task, or untyped).
pub const MRTR_KIND_RESULT: mrtr_kind = 3;
/// An `input_required` result.
pub const MRTR_KIND_INPUT_REQUIRED: mrtr_kind = 4;
/// An error response.
pub const MRTR_KIND_ERROR: mrtr_kind = 5;

/// The `resultType` of a result as the protocol reads it (`mrtr_classified.result_type`).
pub type mrtr_result_type = i32;
/// Not a result.
pub const MRTR_RESULT_TYPE_NONE: mrtr_result_type = 0;
/// `"complete"`, or absent.
pub const MRTR_RESULT_TYPE_COMPLETE: mrtr_result_type = 1;
/// `"input_required"`.
pub const MRTR_RESULT_TYPE_INPUT_REQUIRED: mrtr_result_type = 2;
/// `"task"` (the Tasks extension).
pub const MRTR_RESULT_TYPE_TASK: mrtr_result_type = 3;

/// Which field of `mrtr_classified` holds the id.
pub type mrtr_id_type = i32;
/// No id (a notification).
pub const MRTR_ID_NONE: mrtr_id_type = 0;
/// `null` (an error response).
pub const MRTR_ID_NULL: mrtr_id_type = 1;
/// An integer in `id_int`.
pub const MRTR_ID_INT: mrtr_id_type = 2;
/// An integer above `INT64_MAX` in `id_uint`.
pub const MRTR_ID_UINT: mrtr_id_type = 3;
/// A string: read it with `mrtr_classify_json`.
pub const MRTR_ID_STRING: mrtr_id_type = 4;

/// The outcome of `mrtr_classify`, without allocating.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_classified {
    /// `MRTR_KIND_*`.
    pub kind: mrtr_kind,
    /// `MRTR_RESULT_TYPE_*`.
    pub result_type: mrtr_result_type,
    /// Whether `resultType` was on the wire (results only).
    pub result_type_present: bool,
    /// `MRTR_ID_*`.
    pub id_type: mrtr_id_type,
    /// The id when `id_type == MRTR_ID_INT`, else 0.
    pub id_int: i64,
    /// The id when `id_type == MRTR_ID_UINT`, else 0.
    pub id_uint: u64,
}

fn kind_code(kind: Kind) -> mrtr_kind {
    match kind {
        Kind::Request => MRTR_KIND_REQUEST,
        Kind::Notification => MRTR_KIND_NOTIFICATION,
        Kind::Result => MRTR_KIND_RESULT,
        Kind::InputRequired => MRTR_KIND_INPUT_REQUIRED,
        Kind::Error => MRTR_KIND_ERROR,
    }
}

fn result_type_name(c: &mrtr::Classified<'_>) -> Option<&'static str> {
    match (c.result_type_present, c.result_type) {
        (true, Some(ResultType::Complete)) => Some("complete"),
        (true, Some(ResultType::InputRequired)) => Some("input_required"),
        (true, Some(ResultType::Task)) => Some("task"),
        _ => None,
    }
}

/// `mrtr_classify_json`'s output, serialized without building a `Value`.
#[derive(Serialize)]
struct JsonClassified<'a> {
    kind: &'static str,
    id: JsonId<'a>,
    method: Option<&'a str>,
    #[serde(rename = "resultType")]
    result_type: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum JsonId<'a> {
    Null(()),
    Int(i64),
    UInt(u64),
    Str(&'a str),
}

/// Classifies and validates one raw message (the hot path; no allocation on
/// the binding's side). Fails with the rule the message breaks:
/// `jsonrpc-parse-error`, `jsonrpc-invalid`, `limit-exceeded`,
/// `result-type-unknown`, `input-request-invalid`, `input-required-empty`,
/// `request-state-invalid`, `state-too-large`, `input-responses-malformed`.
///
/// # Safety
/// `message` is valid for `message_len` bytes; `limits` is NULL or readable;
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_classify(
    message: *const c_char,
    message_len: usize,
    protocol_number: mrtr_protocol,
    limits: *const mrtr_limits,
    out: *mut mrtr_classified,
) -> mrtr_status {
    guard(|| {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        // SAFETY: the caller's contract, passed on.
        let (bytes, limits) = unsafe { (args::required(message, message_len, "message")?, args::limits(limits)) };
        let c = mrtr::classify(bytes, protocol(protocol_number)?, &limits)?;
        let (id_type, id_int, id_uint) = match c.id {
            None => (MRTR_ID_NONE, 0, 0),
            Some(Id::Null) => (MRTR_ID_NULL, 0, 0),
            Some(Id::Int(i)) => (MRTR_ID_INT, i, 0),
            Some(Id::UInt(u)) => (MRTR_ID_UINT, 0, u),
            Some(Id::Str(_)) => (MRTR_ID_STRING, 0, 0),
        };
        let result_type = match c.result_type {
            None => MRTR_RESULT_TYPE_NONE,
            Some(ResultType::Complete) => MRTR_RESULT_TYPE_COMPLETE,
            Some(ResultType::InputRequired) => MRTR_RESULT_TYPE_INPUT_REQUIRED,
            Some(ResultType::Task) => MRTR_RESULT_TYPE_TASK,
        };
        let classified = mrtr_classified {
            kind: kind_code(c.kind),
            result_type,
            result_type_present: c.result_type_present,
            id_type,
            id_int,
            id_uint,
        };
        // SAFETY: the caller promises `out` is writable.
        unsafe { args::write(out, classified, "out") }
    })
}

/// `mrtr_classify` with the outcome as JSON:
/// `{"kind": "request"|"notification"|"result"|"input_required"|"error",
/// "id": <id or null>, "method": <string or null>, "resultType": <the
/// resultType on the wire, or null>}`.
///
/// # Safety
/// `message` is valid for `message_len` bytes; `limits` is NULL or readable;
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_classify_json(
    message: *const c_char,
    message_len: usize,
    protocol_number: mrtr_protocol,
    limits: *const mrtr_limits,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, bytes, limits) =
            unsafe { (Out::new(out)?, args::required(message, message_len, "message")?, args::limits(limits)) };
        let c = mrtr::classify(bytes, protocol(protocol_number)?, &limits)?;
        let id = match &c.id {
            None | Some(Id::Null) => JsonId::Null(()),
            Some(Id::Int(i)) => JsonId::Int(*i),
            Some(Id::UInt(u)) => JsonId::UInt(*u),
            Some(Id::Str(s)) => JsonId::Str(s),
        };
        let value =
            JsonClassified { kind: c.kind.name(), id, method: c.method.as_deref(), result_type: result_type_name(&c) };
        // Serializing these plain fields cannot fail.
        out.set(serde_json::to_vec(&value).unwrap_or_default());
        Ok(())
    })
}

/// Client: builds the retry of `request` (the request last sent) that
/// answers `result` (the response carrying `input_required`) with
/// `input_responses` (an `inputResponses` object) under the new `id` (a JSON
/// string or integer). `*out` is the retry message (in `sep-2322`, the answer
/// to `tasks/result` is a `tasks/input_response` request). Fails with
/// `input-responses-unsolicited`, `input-required-method-not-allowed`,
/// `retry-id-reused`, `retry-missing-input-response`,
/// `retry-input-response-invalid`, or the rule a malformed argument breaks.
///
/// # Safety
/// Each `(pointer, length)` pair is valid; `limits` is NULL or readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_retry(
    request: *const c_char,
    request_len: usize,
    result: *const c_char,
    result_len: usize,
    input_responses: *const c_char,
    input_responses_len: usize,
    id: *const c_char,
    id_len: usize,
    protocol_number: mrtr_protocol,
    limits: *const mrtr_limits,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, l) = unsafe { (Out::new(out)?, args::limits(limits)) };
        // SAFETY: as above.
        let (request, result, responses, id) = unsafe {
            (
                args::json(request, request_len, "request", &l)?,
                args::json(result, result_len, "result", &l)?,
                args::json(input_responses, input_responses_len, "input_responses", &l)?,
                args::json(id, id_len, "id", &l)?,
            )
        };
        let retry = client::retry(&request, &result, &responses, &id, protocol(protocol_number)?, &l)?;
        out.set(json::to_vec(&retry));
        Ok(())
    })
}

/// Client (Tasks extension, `2026-07-28`): builds the `tasks/update` request
/// answering an `input_required` task. `get_request` is the `tasks/get`
/// request, `get_response` its answer showing the task's `inputRequests`.
///
/// # Safety
/// Each `(pointer, length)` pair is valid; `limits` is NULL or readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_task_update(
    get_request: *const c_char,
    get_request_len: usize,
    get_response: *const c_char,
    get_response_len: usize,
    input_responses: *const c_char,
    input_responses_len: usize,
    id: *const c_char,
    id_len: usize,
    limits: *const mrtr_limits,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, l) = unsafe { (Out::new(out)?, args::limits(limits)) };
        // SAFETY: as above.
        let (request, response, responses, id) = unsafe {
            (
                args::json(get_request, get_request_len, "get_request", &l)?,
                args::json(get_response, get_response_len, "get_response", &l)?,
                args::json(input_responses, input_responses_len, "input_responses", &l)?,
                args::json(id, id_len, "id", &l)?,
            )
        };
        let update = client::task_update(&request, &response, &responses, &id, &l)?;
        out.set(json::to_vec(&update));
        Ok(())
    })
}

/// Server: builds the `input_required` answer to `request`.
/// `input_requests` (an `inputRequests` object) and `request_state` (a JSON
/// string) are optional: NULL leaves them out. Fails with
/// `input-required-method-not-allowed`, `request-meta-missing`,
/// `input-request-capability-missing`, `input-required-empty`,
/// `input-request-invalid`, `request-state-invalid`.
///
/// # Safety
/// Each non-NULL `(pointer, length)` pair is valid; `limits` is NULL or readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_respond(
    request: *const c_char,
    request_len: usize,
    input_requests: *const c_char,
    input_requests_len: usize,
    request_state: *const c_char,
    request_state_len: usize,
    protocol_number: mrtr_protocol,
    limits: *const mrtr_limits,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, l) = unsafe { (Out::new(out)?, args::limits(limits)) };
        // SAFETY: as above.
        let (request, requests, state) = unsafe {
            (
                args::json(request, request_len, "request", &l)?,
                args::optional_json(input_requests, input_requests_len, "input_requests", &l)?,
                args::optional_json(request_state, request_state_len, "request_state", &l)?,
            )
        };
        let response = server::respond(&request, requests.as_ref(), state.as_ref(), protocol(protocol_number)?, &l)?;
        out.set(json::to_vec(&response));
        Ok(())
    })
}

/// Server: reads the MRTR fields of `request` against what this server
/// `needs` (an `inputRequests`-shaped object). `*out` is
/// `{"responses": {<needed keys present>: ...}, "missing": [<needed keys
/// absent>], "ignored": [<keys present but not needed>], "requestState":
/// <string or null>}`.
///
/// # Safety
/// Each `(pointer, length)` pair is valid; `limits` is NULL or readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_resume(
    request: *const c_char,
    request_len: usize,
    needs: *const c_char,
    needs_len: usize,
    protocol_number: mrtr_protocol,
    limits: *const mrtr_limits,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, l) = unsafe { (Out::new(out)?, args::limits(limits)) };
        // SAFETY: as above.
        let (request, needs) =
            unsafe { (args::json(request, request_len, "request", &l)?, args::json(needs, needs_len, "needs", &l)?) };
        let r = server::resume(&request, &needs, protocol(protocol_number)?, &l)?;
        let value = json!({
            "responses": r.responses,
            "missing": r.missing,
            "ignored": r.ignored,
            "requestState": r.request_state,
        });
        out.set(json::to_vec(&value));
        Ok(())
    })
}
