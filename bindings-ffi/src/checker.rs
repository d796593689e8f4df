//! The conversation checker: one call over a whole transcript, or a handle
//! fed one message at a time.

use crate::args;
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, Handle, Kind};
use crate::json;
use crate::ops::{mrtr_limits, mrtr_protocol, protocol};
use crate::status::{guard, mrtr_status, rule_code, Failure};
use mrtr::check::{self, CheckConfig, Checker, Entry, Side, Violation};
use mrtr::Limits;
use serde_json::{json, Value};
use std::ffi::c_char;

/// Who sent a message.
pub type mrtr_side = i32;
/// The MCP client.
pub const MRTR_SIDE_CLIENT: mrtr_side = 1;
/// The MCP server.
pub const MRTR_SIDE_SERVER: mrtr_side = 2;

/// Retries allowed per request by default (as the official SDKs).
pub const MRTR_DEFAULT_MAX_ROUNDS: u32 = 10;

fn config(protocol_number: mrtr_protocol, max_rounds: u32, limits: Limits) -> Result<CheckConfig, Failure> {
    Ok(CheckConfig { protocol: protocol(protocol_number)?, max_rounds, limits })
}

/// `{"from": "client"|"server", "message": ..., "stream": ...}` as an entry (the core's reader).
fn entry(value: Value, at: &str) -> Result<Entry, Failure> {
    Entry::from_value(&value).map_err(|e| Failure::invalid(format!("{at}: {}", e.message())))
}

/// A transcript: a JSON array of entries, or JSON Lines (one entry per non-blank line).
fn entries(text: &[u8], limits: &Limits) -> Result<Vec<Entry>, Failure> {
    let first = text.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'[') {
        let Value::Array(items) = json::parse_unbounded(text, limits.max_depth.saturating_add(2))? else {
            return Err(Failure::invalid("a transcript is a JSON array or JSON Lines"));
        };
        return items.into_iter().enumerate().map(|(i, v)| entry(v, &format!("entry {i}"))).collect();
    }
    let mut out = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let at = format!("line {}", i + 1);
        let value = json::parse(line, &Limits { max_depth: limits.max_depth.saturating_add(1), ..*limits })
            .map_err(|e| Failure::new(rule_code(e.rule()), format!("{at}: {}", e.message())))?;
        out.push(entry(value, &at)?);
    }
    Ok(out)
}

fn violations_json(violations: &[Violation]) -> Vec<u8> {
    let list: Vec<Value> = violations
        .iter()
        .map(|v| json!({ "rule": v.rule.name(), "code": rule_code(v.rule), "index": v.index, "message": v.message }))
        .collect();
    json::to_vec(&json!({ "violations": list }))
}

/// Checks a whole conversation. `transcript` is a JSON array of entries
/// `{"from": "client"|"server", "message": <JSON-RPC message>, "stream":
/// "post:<id>"|"get"|null}`, or the same entries as JSON Lines (the first
/// non-blank byte decides: `[` is an array). `*out` is `{"violations":
/// [{"rule": <id>, "code": <number>, "index": <entry index>, "message": <sentence>}, ...]}`;
/// an empty list means compliant. The call fails only when the transcript
/// itself is unreadable (`MRTR_ERR_JSONRPC_PARSE_ERROR`, `..._JSONRPC_INVALID`
/// for a duplicate key, `..._LIMIT_EXCEEDED`, `MRTR_ERR_INVALID_ARGUMENT` for
/// an entry of the wrong shape). The transcript as a whole has no byte bound;
/// each JSON Lines line has `max_message_bytes`.
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
        let (out, text, l) = unsafe {
            (Out::new(out)?, args::required(transcript, transcript_len, "transcript")?, args::limits(limits))
        };
        let config = config(protocol_number, max_rounds, l)?;
        let entries = entries(text, &l)?;
        out.set(violations_json(&check::check(&entries, config)));
        Ok(())
    })
}

/// The incremental checker (opaque).
pub struct mrtr_checker {
    inner: Checker,
    limits: Limits,
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
        let l = unsafe { args::limits(limits) };
        let checker = mrtr_checker { inner: Checker::new(config(protocol_number, max_rounds, l)?), limits: l };
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, checker) }
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
        // SAFETY: the caller promises a live checker used by no one else meanwhile.
        let checker = unsafe { handles::get_mut(checker, "checker") }?;
        let from = match from {
            MRTR_SIDE_CLIENT => Side::Client,
            MRTR_SIDE_SERVER => Side::Server,
            other => return Err(Failure::invalid(format!("no side has the number {other}"))),
        };
        // SAFETY: the caller's contract, passed on.
        let message = unsafe { args::json(message, message_len, "message", &checker.limits) }?;
        let stream = if stream.is_null() {
            None
        } else {
            // SAFETY: the caller's contract, passed on.
            Some(unsafe { args::text(stream, stream_len, "stream") }?.to_owned())
        };
        checker.inner.handle(&Entry { from, message, stream });
        Ok(())
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
        out.set(violations_json(checker.inner.violations()));
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
