//! The conversation checker: one call over a whole transcript, or a handle
//! fed one message at a time.

use crate::args::{required, text};
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, Handle, Kind};
use crate::status::{guard, mrtr_status};
use crate::tables::mrtr_protocol;
use crate::types::{limits as limits_at, mrtr_limits, mrtr_side, options, side};
use mrtr::facade;
use std::ffi::c_char;

/// Checks a whole conversation. `transcript` is a JSON array of entries
/// `{"from": "client"|"server", "message": <JSON-RPC message>, "stream":
/// "post:<id>"|"get"|null}`, or the same entries as JSON Lines (the first
/// non-blank byte decides: `[` is an array). `*out` is the core's violations,
/// `[{"rule": <id>, "index": <entry index>, "message": <sentence>}, ...]`; an
/// empty list means compliant. The call fails only when the transcript itself
/// is unreadable (`jsonrpc-parse-error`, `jsonrpc-invalid` for a duplicate
/// key, `limit-exceeded`, `usage-invalid-argument` for an entry of the wrong
/// shape). Each message is bound by `limits`, the transcript as a whole is not.
///
/// # Safety
/// `transcript` is valid for `transcript_len` bytes; `limits` is NULL or readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_check(
    transcript: *const c_char,
    transcript_len: usize,
    protocol_number: mrtr_protocol,
    max_rounds: u32,
    limits: *const mrtr_limits,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, text, o) = unsafe {
            (
                Out::new(out)?,
                required(transcript, transcript_len, "transcript")?,
                options(protocol_number, limits, Some(max_rounds))?,
            )
        };
        let array = text.trim_ascii_start().starts_with(b"[");
        out.set(if array { facade::check(text, &o)? } else { facade::check_jsonl(text, &o)? });
        Ok(())
    })
}

/// The incremental checker (opaque).
pub struct mrtr_checker {
    inner: facade::Checker,
}

impl Handle for mrtr_checker {
    const KIND: Kind = Kind::Checker;
}

/// A checker for one conversation. `max_rounds`: retries allowed per request
/// (`MRTR_DEFAULT_MAX_ROUNDS`). Free with `mrtr_checker_free`.
///
/// # Safety
/// `limits` is NULL or readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_checker_new(
    protocol_number: mrtr_protocol,
    max_rounds: u32,
    limits: *const mrtr_limits,
    out: *mut *mut mrtr_checker,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let limits = unsafe { limits_at(limits) };
        let o = facade::Options {
            protocol: crate::types::protocol(protocol_number)?,
            limits,
            max_rounds: Some(max_rounds),
        };
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, mrtr_checker { inner: facade::Checker::new(&o) }) }
    })
}

/// Checks the next message of the conversation, sent by `from`
/// (`MRTR_SIDE_*`); `stream` is `"post:<id>"` or `"get"` for server
/// messages over Streamable HTTP, or NULL. A message that is not JSON
/// fails (and is not counted as an entry); one that is JSON but not JSON-RPC
/// is a `jsonrpc-invalid` violation.
///
/// # Safety
/// `checker` is a live checker; `message` is valid for `message_len` bytes;
/// `stream` is NULL or valid for `stream_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_checker_handle(
    checker: *mut mrtr_checker,
    from: mrtr_side,
    message: *const c_char,
    message_len: usize,
    stream: *const c_char,
    stream_len: usize,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (checker, message, stream) = unsafe {
            (
                handles::get_mut(checker, "checker")?,
                required(message, message_len, "message")?,
                (!stream.is_null()).then(|| text(stream, stream_len, "stream")).transpose()?,
            )
        };
        checker.inner.handle_message(side(from)?, message, stream)
    })
}

/// The violations found so far, as `mrtr_check` writes them.
///
/// # Safety
/// `checker` is a live checker; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_checker_violations(checker: *const mrtr_checker, out: *mut mrtr_buf) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (out, checker) = unsafe { (Out::new(out)?, handles::get(checker, "checker")?) };
        out.set(checker.inner.violations().into_bytes());
        Ok(())
    })
}

/// Frees a checker. NULL is a no-op.
///
/// # Safety
/// `checker` is NULL or a live checker, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn mrtr_checker_free(checker: *mut mrtr_checker) -> mrtr_status {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(checker) })
}
