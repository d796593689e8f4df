//! The client machine of one JSON-RPC call over HTTP
//! (`mrtr::facade::HttpCall`) behind an opaque handle: the host's HTTP stack
//! does the I/O, the machine decides what to send and what it means.

use crate::args::{bytes, required, write};
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, get, get_mut, Handle, Kind};
use crate::status::{guard, mrtr_status, null};
use mrtr::facade::HttpCall;
use std::ffi::c_char;

/// The client machine of one call over HTTP (opaque).
pub struct mrtr_http_call(HttpCall);

impl Handle for mrtr_http_call {
    const KIND: Kind = Kind::HttpCall;
}

/// Starts the call of `request` (a JSON-RPC request with an id) at
/// `now_ms` (the host's clock, milliseconds) under `config`, the call's
/// configuration as JSON: `{"mode": "2026-07-28" | "2025-11-25" | "sep-1858"
/// | "sep-1335", "url": <the endpoint>, "headers": {<name>: <value>},
/// "protocol", "limits": {…}, "maxEvents", "maxLinks", "maxLinkBytes",
/// "maxRetryMs", "maxReconnects", "defaultRetryMs"}` (`mode` and `url`
/// required). A bad configuration, or a request that is not a JSON-RPC
/// request, is `usage-invalid-argument`. Free with `mrtr_http_call_free`.
///
/// After creating it and after every input (`handle_*`, `answer`), drain
/// `mrtr_http_call_poll_transmit` (the HTTP requests to send), then
/// `mrtr_http_call_poll_event`, then read `mrtr_http_call_poll_timeout`.
///
/// # Safety
/// `config` and `request` are valid for their lengths; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_new(
    config: *const c_char,
    config_len: usize,
    request: *const c_char,
    request_len: usize,
    now_ms: u64,
    out: *mut *mut mrtr_http_call,
) -> mrtr_status {
    guard(|| {
        if out.is_null() {
            return Err(null("out"));
        }
        // SAFETY: the caller's contract, passed on.
        let (config, request) =
            unsafe { (required(config, config_len, "config")?, required(request, request_len, "request")?) };
        let call = HttpCall::new(config, request, now_ms)?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, mrtr_http_call(call)) }
    })
}

/// The status and header fields of the response to `exchange` (the number
/// of a request from `mrtr_http_call_poll_transmit`). `headers` is a JSON
/// object of field names (any case) to string values, NULL for none (not
/// such an object: `usage-invalid-argument`). A second head for one exchange is
/// `usage-out-of-turn`; an exchange the machine does not know (or that ended)
/// is `usage-unknown-handle`. What the server did wrong is not a failure of
/// this call: it comes out as an event.
///
/// # Safety
/// `call` is a live call; `headers` is NULL or valid for `headers_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_handle_head(
    call: *mut mrtr_http_call,
    exchange: u64,
    status: u16,
    headers: *const c_char,
    headers_len: usize,
    now_ms: u64,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (call, headers) = unsafe { (get_mut(call, "call")?, bytes(headers, headers_len, "headers")?) };
        call.0.handle_head(exchange, status, headers, now_ms)
    })
}

/// Bytes of the body of the response to `exchange`, in any chunking (raw
/// bytes: an event stream that is not UTF-8 is the server's error, reported
/// as an event). A body before its head is `usage-out-of-turn`.
///
/// # Safety
/// `call` is a live call; `chunk` is NULL with `chunk_len == 0` or valid for `chunk_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_handle_body(
    call: *mut mrtr_http_call,
    exchange: u64,
    chunk: *const u8,
    chunk_len: usize,
    now_ms: u64,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (call, chunk) = unsafe { (get_mut(call, "call")?, bytes(chunk, chunk_len, "chunk")?) };
        call.0.handle_body(exchange, chunk, now_ms)
    })
}

/// The response to `exchange` ended (the server closed it, or the connection
/// was cut).
///
/// # Safety
/// `call` is a live call.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_handle_end(
    call: *mut mrtr_http_call,
    exchange: u64,
    now_ms: u64,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises a live call used by no one else meanwhile.
        unsafe { get_mut(call, "call") }?.0.handle_end(exchange, now_ms)
    })
}

/// The time `mrtr_http_call_poll_timeout` named came (`now_ms` at or after it;
/// earlier does nothing).
///
/// # Safety
/// `call` is a live call.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_handle_timeout(call: *mut mrtr_http_call, now_ms: u64) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises a live call used by no one else meanwhile.
        unsafe { get_mut(call, "call") }?.0.handle_timeout(now_ms);
        Ok(())
    })
}

/// The host's JSON-RPC response to a server request the machine reported
/// (a `serverRequest` event). An answer to no reported request is
/// `usage-out-of-turn`; one that is not a JSON-RPC response is
/// `usage-invalid-argument`.
///
/// # Safety
/// `call` is a live call; `response` is valid for `response_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_answer(
    call: *mut mrtr_http_call,
    response: *const c_char,
    response_len: usize,
    now_ms: u64,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (call, response) = unsafe { (get_mut(call, "call")?, required(response, response_len, "response")?) };
        call.0.answer(response, now_ms)
    })
}

/// The next HTTP request to send, as the core's JSON: `{"exchange": <n>,
/// "method": "POST"|"GET", "url", "headers": {<lower-case name>: <value>},
/// "body": <JSON, when there is one>}`; or `{NULL, 0}` when none is queued.
/// Quote `exchange` with every part of its response.
///
/// # Safety
/// `call` is a live call; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_poll_transmit(call: *mut mrtr_http_call, out: *mut mrtr_buf) -> mrtr_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { poll(call, out, HttpCall::poll_transmit) }
}

/// The next event, as the core's JSON, or `{NULL, 0}` when none is queued:
/// `{"type": "serverRequest", "message"}` (answer it with
/// `mrtr_http_call_answer`), `{"type": "message", "message"}` (a
/// notification or another response, to pass on), `{"type": "violation",
/// "rule", "message": <sentence>}` (the server broke a rule; the call goes
/// on), and last either `{"type": "response", "message"}` (the call's
/// JSON-RPC response) or `{"type": "failed", "rule", "message": <sentence>}`.
///
/// # Safety
/// `call` is a live call; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_poll_event(call: *mut mrtr_http_call, out: *mut mrtr_buf) -> mrtr_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { poll(call, out, HttpCall::poll_event) }
}

/// `next` of the machine into `*out`.
///
/// # Safety
/// As the two exports that call it.
unsafe fn poll(
    call: *mut mrtr_http_call,
    out: *mut mrtr_buf,
    next: fn(&mut HttpCall) -> Option<String>,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (out, call) = unsafe { (Out::new(out)?, get_mut(call, "call")?) };
        if let Some(text) = next(&mut call.0) {
            out.set(text);
        }
        Ok(())
    })
}

/// When to call `mrtr_http_call_handle_timeout`: `*out_set` is true and
/// `*out_at_ms` the time (the host's milliseconds) when something waits,
/// else false and 0.
///
/// # Safety
/// `call` is a live call; `out_set` and `out_at_ms` are writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_poll_timeout(
    call: *const mrtr_http_call,
    out_set: *mut bool,
    out_at_ms: *mut u64,
) -> mrtr_status {
    guard(|| {
        if out_set.is_null() || out_at_ms.is_null() {
            return Err(null(if out_set.is_null() { "out_set" } else { "out_at_ms" }));
        }
        // SAFETY: the caller promises a live call.
        let at = unsafe { get(call, "call") }?.0.poll_timeout();
        // SAFETY: the caller promises both are writable (non-NULL, checked above).
        unsafe {
            write(out_set, at.is_some(), "out_set")?;
            write(out_at_ms, at.unwrap_or(0), "out_at_ms")
        }
    })
}

/// Whether the call is over: its `response` or `failed` event was queued.
///
/// # Safety
/// `call` is a live call; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_is_done(call: *const mrtr_http_call, out: *mut bool) -> mrtr_status {
    guard(|| {
        if out.is_null() {
            return Err(null("out"));
        }
        // SAFETY: the caller promises a live call.
        let done = unsafe { get(call, "call") }?.0.is_done();
        // SAFETY: the caller promises `out` is writable.
        unsafe { write(out, done, "out") }
    })
}

/// Frees a call. NULL is a no-op.
///
/// # Safety
/// `call` is NULL or a live call, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn mrtr_http_call_free(call: *mut mrtr_http_call) -> mrtr_status {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(call) })
}
