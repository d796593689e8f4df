//! The stateless operations the export table has no words for: classify
//! into a typed struct (the hot path, no allocation), a transcript checked
//! as an array or as JSON Lines, and the task update (bounded by limits
//! alone). The rest are generated (`exports`).

use crate::args::{bytes, optional, required, write};
use crate::buf::{mrtr_buf, Out};
use crate::status::{guard, mrtr_status, null};
use crate::tables::mrtr_protocol;
use crate::types::{mrtr_classified, mrtr_limits, options};
use mrtr_facade as facade;
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

/// Client (Tasks extension, `2026-07-28`): builds the `tasks/update` request
/// answering an `input_required` task. `get_request` is the `tasks/get`
/// request, `get_response` its answer showing the task's `inputRequests`,
/// `input_responses` the answers (NULL: none).
///
/// # Safety
/// Each `(pointer, length)` pair is valid (`input_responses` may be NULL);
/// `limits` is NULL or readable; `out` is writable.
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
                optional(input_responses, input_responses_len, "input_responses")?,
                required(id, id_len, "id")?,
            )
        };
        out.set(facade::task_update(request, response, responses, id, &o)?);
        Ok(())
    })
}

/// Checks a whole conversation under the options JSON `options` (`{"protocol",
/// "transport": "sep-1858"|"sep-1335", "maxRounds", "limits"}`, every field
/// optional; NULL: the defaults, plain Streamable HTTP). `transcript` is a
/// JSON array of entries `{"from": "client"|"server", "message", "stream"}`
/// or HTTP entries `{"from", "at", "http": {…}}` (`conformance/FORMAT.md`),
/// or the same entries as JSON Lines (the first non-blank byte decides: `[`
/// is an array). `*out` is the violations, `[{"rule", "index", "message"},
/// …]` (empty: compliant). An unreadable transcript fails with its rule (a
/// JSON Lines one naming the line). Each message is bound by the limits,
/// the transcript as a whole is not.
///
/// # Safety
/// `transcript` is valid for `transcript_len` bytes; `options` is NULL or
/// valid for `options_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_check(
    transcript: *const c_char,
    transcript_len: usize,
    options: *const c_char,
    options_len: usize,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, text, options) = unsafe {
            (
                Out::new(out)?,
                required(transcript, transcript_len, "transcript")?,
                bytes(options, options_len, "options")?,
            )
        };
        let o = facade::Options::from_json(options)?;
        let array = text.trim_ascii_start().starts_with(b"[");
        out.set(if array { facade::check(text, &o) } else { facade::check_jsonl(text, &o) }?);
        Ok(())
    })
}
