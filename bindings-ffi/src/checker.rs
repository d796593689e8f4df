//! The conversation checker: one call over a whole transcript, or a handle
//! fed one entry at a time. Entries are messages or recorded HTTP exchanges;
//! the `_with_options` forms take the façade's options JSON, which alone can
//! name the multi-turn `transport`.

use crate::args::{bytes, required, text};
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, Handle, Kind};
use crate::status::{guard, mrtr_status};
use crate::tables::mrtr_protocol;
use crate::types::{limits as limits_at, mrtr_limits, mrtr_side, options, side};
use mrtr_facade as facade;
use std::ffi::c_char;

/// Checks a whole conversation. `transcript` is a JSON array of entries
/// `{"from": "client"|"server", "message": <JSON-RPC message>, "stream":
/// "post:<id>"|"get"|null}` or HTTP entries `{"from", "at", "http":
/// {"exchange", …}}` (`conformance/FORMAT.md`, "check with HTTP entries"),
/// or the same entries as JSON Lines (the first non-blank byte decides: `[`
/// is an array). HTTP entries are checked as plain Streamable HTTP: name a
/// multi-turn transport with `mrtr_check_with_options`. `*out` is the core's violations,
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
        out.set(check_text(text, &o)?);
        Ok(())
    })
}

/// A transcript as an array or as JSON Lines (the first non-blank byte decides).
fn check_text(text: &[u8], o: &facade::Options) -> Result<String, mrtr::Error> {
    let array = text.trim_ascii_start().starts_with(b"[");
    if array {
        facade::check(text, o)
    } else {
        facade::check_jsonl(text, o)
    }
}

/// `mrtr_check` under the options JSON `options`: `{"protocol": <name>,
/// "transport": "sep-1858"|"sep-1335", "maxRounds": <n>, "limits":
/// {"maxMessageBytes", …}}`, every field optional (NULL or `null`: all
/// defaults; absent `transport`: plain Streamable HTTP). An unknown protocol
/// is `jsonrpc-invalid`; an unknown transport, an unknown field or a field of
/// the wrong type is `usage-invalid-argument`.
///
/// # Safety
/// `transcript` is valid for `transcript_len` bytes; `options` is NULL or
/// valid for `options_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_check_with_options(
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
        out.set(check_text(text, &facade::Options::from_json(options)?)?);
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
            ..facade::Options::default()
        };
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, mrtr_checker { inner: facade::Checker::new(&o) }) }
    })
}

/// A checker under the options JSON `options` (as `mrtr_check_with_options`
/// reads it: `protocol`, `transport`, `maxRounds`, `limits`; NULL: the
/// defaults). Free with `mrtr_checker_free`.
///
/// # Safety
/// `options` is NULL or valid for `options_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_checker_new_with_options(
    options: *const c_char,
    options_len: usize,
    out: *mut *mut mrtr_checker,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let o = facade::Options::from_json(unsafe { bytes(options, options_len, "options") }?)?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, mrtr_checker { inner: facade::Checker::new(&o) }) }
    })
}

/// Checks the next entry of the conversation, as `mrtr_check` reads one: a
/// message entry `{"from", "message", "stream"}` or an HTTP entry `{"from",
/// "at", "http": {…}}`. An entry that is not JSON, or not of either shape,
/// fails (and is not counted). As in a transcript, the entry is not bound by
/// `max_message_bytes`.
///
/// # Safety
/// `checker` is a live checker; `entry` is valid for `entry_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_checker_handle_entry(
    checker: *mut mrtr_checker,
    entry: *const c_char,
    entry_len: usize,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (checker, entry) = unsafe { (handles::get_mut(checker, "checker")?, required(entry, entry_len, "entry")?) };
        checker.inner.handle(entry)
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
