//! One client operation over HTTP (`mrtr::facade::Operation`) behind an
//! opaque handle: a call carried to its final response in any transport mode,
//! every question answered by key. The host's HTTP stack does the I/O; the C
//! host keeps its own loop in the documented drain order.

use crate::args::{bytes, required, write};
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, get, get_mut, Handle, Kind};
use crate::status::{guard, mrtr_status, null};
use mrtr::facade::Operation;
use std::ffi::c_char;

/// One client operation over HTTP (opaque).
pub struct mrtr_operation(Operation);

impl Handle for mrtr_operation {
    const KIND: Kind = Kind::Operation;
}

/// Starts the operation of `request` (a JSON-RPC request with an id) at
/// `now_ms` (the host's clock, milliseconds) under `config`: a call's
/// configuration (`mrtr_http_call_new`) plus `"maxRounds"` (default 10),
/// `"maxResends"` (default 2) and `"taskPollMs"` (default 1000). Free with
/// `mrtr_operation_free`.
///
/// The drain order, after creating it and after every input (`handle_*`,
/// `answer`): `mrtr_operation_poll_transmit` until it gives `{NULL, 0}` (send
/// each), then `mrtr_operation_poll_event` until `{NULL, 0}` (an answer given
/// here is an input: drain the transmits again), then read
/// `mrtr_operation_poll_timeout`. Free it once `mrtr_operation_is_drained`.
///
/// # Safety
/// `config` and `request` are valid for their lengths; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_new(
    config: *const c_char,
    config_len: usize,
    request: *const c_char,
    request_len: usize,
    now_ms: u64,
    out: *mut *mut mrtr_operation,
) -> mrtr_status {
    guard(|| {
        if out.is_null() {
            return Err(null("out"));
        }
        // SAFETY: the caller's contract, passed on.
        let (config, request) =
            unsafe { (required(config, config_len, "config")?, required(request, request_len, "request")?) };
        let operation = Operation::new(config, request, now_ms)?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, mrtr_operation(operation)) }
    })
}

/// The status and header fields (a JSON object, or NULL) of the response to
/// `exchange` (the number of a request from `mrtr_operation_poll_transmit`).
///
/// # Safety
/// `operation` is a live operation; `headers` is NULL or valid for `headers_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_handle_head(
    operation: *mut mrtr_operation,
    exchange: u64,
    status: u16,
    headers: *const c_char,
    headers_len: usize,
    now_ms: u64,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (op, headers) = unsafe { (get_mut(operation, "operation")?, bytes(headers, headers_len, "headers")?) };
        op.0.handle_head(exchange, status, headers, now_ms)
    })
}

/// Bytes of the body of the response to `exchange`, in any chunking.
///
/// # Safety
/// `operation` is a live operation; `chunk` is NULL with `chunk_len == 0` or valid for `chunk_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_handle_body(
    operation: *mut mrtr_operation,
    exchange: u64,
    chunk: *const u8,
    chunk_len: usize,
    now_ms: u64,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (op, chunk) = unsafe { (get_mut(operation, "operation")?, bytes(chunk, chunk_len, "chunk")?) };
        op.0.handle_body(exchange, chunk, now_ms)
    })
}

/// The response to `exchange` ended (the server closed it, or the connection
/// was cut, or none came).
///
/// # Safety
/// `operation` is a live operation.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_handle_end(
    operation: *mut mrtr_operation,
    exchange: u64,
    now_ms: u64,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises a live operation used by no one else meanwhile.
        unsafe { get_mut(operation, "operation") }?.0.handle_end(exchange, now_ms)
    })
}

/// The time `mrtr_operation_poll_timeout` named came.
///
/// # Safety
/// `operation` is a live operation.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_handle_timeout(operation: *mut mrtr_operation, now_ms: u64) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises a live operation used by no one else meanwhile.
        unsafe { get_mut(operation, "operation") }?.0.handle_timeout(now_ms);
        Ok(())
    })
}

/// Answers the question `key` (UTF-8, `key_len` bytes) of an `inputRequired`
/// event with `result` (JSON: an elicitation's `{"action", …}`, a sampling
/// result, a roots list). An answer that does not fit its question fails
/// with its rule and the question stays open; a key nothing asked is
/// `usage-unknown-handle`, one answered already `usage-out-of-turn`.
///
/// # Safety
/// `operation` is a live operation; `key` and `result` are valid for their lengths.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_answer(
    operation: *mut mrtr_operation,
    key: *const c_char,
    key_len: usize,
    result: *const c_char,
    result_len: usize,
    now_ms: u64,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (op, key, result) = unsafe {
            (get_mut(operation, "operation")?, required(key, key_len, "key")?, required(result, result_len, "result")?)
        };
        let key = std::str::from_utf8(key).map_err(|_| crate::status::usage("a question key is UTF-8"))?;
        op.0.answer(key, result, now_ms)
    })
}

/// The next HTTP request to send (`{"exchange", "method", "url", "headers",
/// "body"}`), or `{NULL, 0}` when none is queued.
///
/// # Safety
/// `operation` is a live operation; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_poll_transmit(
    operation: *mut mrtr_operation,
    out: *mut mrtr_buf,
) -> mrtr_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { poll(operation, out, Operation::poll_transmit) }
}

/// The next event, or `{NULL, 0}` when none is queued: `{"type":
/// "inputRequired", "round", "requests": {<key>: {"method", "params"}}}`
/// (answer each key with `mrtr_operation_answer`), `{"type": "message",
/// "message"}`, `{"type": "violation", "rule", "message"}`, and last either
/// `{"type": "done", "response"}` (the final JSON-RPC response) or `{"type":
/// "failed", "rule", "message"}`.
///
/// # Safety
/// `operation` is a live operation; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_poll_event(operation: *mut mrtr_operation, out: *mut mrtr_buf) -> mrtr_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { poll(operation, out, Operation::poll_event) }
}

/// `next` of the operation into `*out`.
///
/// # Safety
/// As the two exports that call it.
unsafe fn poll(
    operation: *mut mrtr_operation,
    out: *mut mrtr_buf,
    next: fn(&mut Operation) -> Option<String>,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (out, op) = unsafe { (Out::new(out)?, get_mut(operation, "operation")?) };
        if let Some(text) = next(&mut op.0) {
            out.set(text);
        }
        Ok(())
    })
}

/// When to call `mrtr_operation_handle_timeout`: `*out_set` is true and
/// `*out_at_ms` the time when something waits, else false and 0.
///
/// # Safety
/// `operation` is a live operation; `out_set` and `out_at_ms` are writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_poll_timeout(
    operation: *const mrtr_operation,
    out_set: *mut bool,
    out_at_ms: *mut u64,
) -> mrtr_status {
    guard(|| {
        if out_set.is_null() || out_at_ms.is_null() {
            return Err(null(if out_set.is_null() { "out_set" } else { "out_at_ms" }));
        }
        // SAFETY: the caller promises a live operation.
        let at = unsafe { get(operation, "operation") }?.0.poll_timeout();
        // SAFETY: the caller promises both are writable (non-NULL, checked above).
        unsafe {
            write(out_set, at.is_some(), "out_set")?;
            write(out_at_ms, at.unwrap_or(0), "out_at_ms")
        }
    })
}

/// Whether the final event was taken and no exchange is open: the operation
/// may be freed.
///
/// # Safety
/// `operation` is a live operation; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_is_drained(operation: *const mrtr_operation, out: *mut bool) -> mrtr_status {
    guard(|| {
        if out.is_null() {
            return Err(null("out"));
        }
        // SAFETY: the caller promises a live operation.
        let drained = unsafe { get(operation, "operation") }?.0.is_drained();
        // SAFETY: the caller promises `out` is writable.
        unsafe { write(out, drained, "out") }
    })
}

/// Frees an operation. NULL is a no-op.
///
/// # Safety
/// `operation` is NULL or a live operation, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn mrtr_operation_free(operation: *mut mrtr_operation) -> mrtr_status {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(operation) })
}
