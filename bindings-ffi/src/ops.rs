//! The stateless operations over the façade (`mrtr::facade`): classify, the
//! client's retry and task update, the server's respond and resume.

use crate::args::{optional, required, write};
use crate::buf::{mrtr_buf, Out};
use crate::status::{guard, mrtr_status, null};
use crate::tables::mrtr_protocol;
use crate::types::{mrtr_classified, mrtr_limits, options};
use mrtr::facade;
use std::ffi::c_char;

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
            return Err(null("out"));
        }
        // SAFETY: the caller's contract, passed on.
        let (bytes, o) =
            unsafe { (required(message, message_len, "message")?, options(protocol_number, limits, None)?) };
        let classified = mrtr_classified::from(&facade::classify(bytes, &o)?);
        // SAFETY: the caller promises `out` is writable.
        unsafe { write(out, classified, "out") }
    })
}

/// `mrtr_classify` with the outcome as the core's JSON (`mrtr::wire`):
/// `{"kind": "request"|"notification"|"result"|"input_required"|"error",
/// "id": <id or null>, "method": <string or null>, "resultType": <the type as
/// read, or null>, "resultTypePresent": <whether it was on the wire>}`.
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
        let (out, bytes, o) = unsafe {
            (Out::new(out)?, required(message, message_len, "message")?, options(protocol_number, limits, None)?)
        };
        let c = facade::classify(bytes, &o)?;
        SCRATCH.with_borrow_mut(|text| {
            text.clear();
            // The core's classification always serializes (`mrtr::wire`).
            let _ = serde_json::to_writer(&mut *text, &c);
            // One allocation of the exact size (with the NUL), no growing or shrinking: the hot path.
            let mut exact = Vec::with_capacity(text.len() + 1);
            exact.extend_from_slice(text);
            out.set(exact);
        });
        Ok(())
    })
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
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
        let (out, o, request, result, responses, id) = unsafe {
            (
                Out::new(out)?,
                options(protocol_number, limits, None)?,
                required(request, request_len, "request")?,
                required(result, result_len, "result")?,
                required(input_responses, input_responses_len, "input_responses")?,
                required(id, id_len, "id")?,
            )
        };
        out.set(facade::retry(request, result, responses, id, &o)?);
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
        let (out, o, request, response, responses, id) = unsafe {
            (
                Out::new(out)?,
                options(0, limits, None)?,
                required(get_request, get_request_len, "get_request")?,
                required(get_response, get_response_len, "get_response")?,
                required(input_responses, input_responses_len, "input_responses")?,
                required(id, id_len, "id")?,
            )
        };
        out.set(facade::task_update(request, response, responses, id, &o)?);
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
        let (out, o, request, requests, state) = unsafe {
            (
                Out::new(out)?,
                options(protocol_number, limits, None)?,
                required(request, request_len, "request")?,
                optional(input_requests, input_requests_len, "input_requests")?,
                optional(request_state, request_state_len, "request_state")?,
            )
        };
        out.set(facade::respond(request, requests, state, &o)?);
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
        let (out, o, request, needs) = unsafe {
            (
                Out::new(out)?,
                options(protocol_number, limits, None)?,
                required(request, request_len, "request")?,
                required(needs, needs_len, "needs")?,
            )
        };
        out.set(facade::resume(request, needs, &o)?);
        Ok(())
    })
}
