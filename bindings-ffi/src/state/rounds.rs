//! Sealed server rounds (`mrtr::round::SealedRounds`): a deployment's
//! settings (`mrtr_rounds`, built once) and what is per request
//! (`mrtr_call`: the principal and the clock), over the façade's JSON.

use super::{mrtr_first_use, mrtr_keyring, reading, CGuard};
use crate::args::{optional, read, required, text};
use crate::buf::{mrtr_buf, Out};
use crate::exports::mrtr_tool_replay;
use crate::handles::new_handle;
use crate::status::{guard, mrtr_status};
use crate::tables::mrtr_protocol;
use crate::types::{limits, mrtr_limits, protocol};
use mrtr::state::ReplayGuard;
use mrtr::Error;
use mrtr_facade::{self as facade, Randomness};
use serde_json::json;
use std::ffi::{c_char, c_void};

/// A deployment's settings for sealed rounds, built once and passed to every
/// call (`mrtr::round::SealedRounds`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_rounds {
    /// How long a round may take, in seconds (the other bindings' default: 300).
    pub ttl: u32,
    /// The protocol of the conversation.
    pub protocol: mrtr_protocol,
    /// Bounds on what is read; NULL for the defaults.
    pub limits: *const mrtr_limits,
    /// False (the default of a zeroed struct, and of every binding): an
    /// answer counts only for the exact question it answered, and a fresh
    /// answer only for a question the last round asked. True turns that
    /// off (the other bindings' `pinAnswers: false`).
    pub unpinned_answers: bool,
}

/// What is per request: who is calling and when.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_call {
    /// The authenticated principal of the request; empty only with `anonymous`
    /// (an empty subject without it, or both, is `usage-invalid-argument`).
    pub subject: *const c_char,
    /// Bytes of `subject`.
    pub subject_len: usize,
    /// True: no principal, by explicit choice.
    pub anonymous: bool,
    /// Seconds since the Unix epoch, from the caller's clock.
    pub now: u64,
}

/// The façade's round settings and call of `*rounds` and `*call`, as JSON text.
///
/// # Safety
/// `rounds` and `call` are NULL or readable, their strings and `limits` valid.
unsafe fn settings(rounds: *const mrtr_rounds, call: *const mrtr_call) -> Result<(String, String), Error> {
    // SAFETY: passed on from the caller.
    let (r, c) = unsafe { (read(rounds, "rounds")?, read(call, "call")?) };
    // SAFETY: passed on from the caller.
    let (subject, limits) = unsafe { (text(c.subject, c.subject_len, "call.subject")?, limits(r.limits)) };
    let settings = json!({"ttl": r.ttl, "protocol": protocol(r.protocol)?.name(), "limits": limits,
                          "pinAnswers": !r.unpinned_answers});
    let mut call = json!({"now": c.now});
    if !subject.is_empty() {
        call["subject"] = subject.into();
    }
    if c.anonymous {
        call["anonymous"] = true.into();
    }
    Ok((settings.to_string(), call.to_string()))
}

/// Server, sealed rounds: reads `request` (from `*call`'s principal, at its
/// `now`) against `needs` (an `inputRequests` object): the answers it
/// carries plus those earlier rounds sealed in its `requestState`. With a
/// guard (`first_use` not NULL, called with `user`; see `mrtr_first_use`)
/// each state is single-use: an earlier round's state presented again is
/// `state-replayed`. `*out` is the core's round, `{"answers": {...},
/// "missing": [...], "ignored": [...], "data": <the tool's data or null>,
/// "round": <input_required rounds before this request>, "stateId": <hex or
/// null>, "expiry": <seconds or null>}` (complete when `missing` is empty).
/// Fails with the request's rule or a `state-*` rule.
///
/// # Safety
/// `ring` is a live ring; `rounds` and `call` are readable with valid
/// strings; both `(pointer, length)` pairs are valid; `first_use` is NULL or
/// callable with `user`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_rounds_resume(
    ring: *const mrtr_keyring,
    rounds: *const mrtr_rounds,
    call: *const mrtr_call,
    request: *const c_char,
    request_len: usize,
    needs: *const c_char,
    needs_len: usize,
    first_use: mrtr_first_use,
    user: *mut c_void,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, (settings, call), request, needs) = unsafe {
            (
                Out::new(out)?,
                settings(rounds, call)?,
                required(request, request_len, "request")?,
                required(needs, needs_len, "needs")?,
            )
        };
        let mut guard = CGuard::of(first_use, user);
        // SAFETY: the caller's contract.
        let ring = unsafe { reading(ring) }?;
        let guard = guard.as_mut().map(|g| g as &mut dyn ReplayGuard);
        out.set(facade::resume_round(&ring, request, needs, settings.as_bytes(), call.as_bytes(), guard)?);
        Ok(())
    })
}

/// Server, sealed rounds: answers `request` with `input_required`, asking
/// the input requests of `needs` that `round` (as `mrtr_rounds_resume` wrote
/// it) still misses, and sealing the round's number, `round.answers` and
/// `data` (any JSON, or NULL), bound to `*call`'s principal and the request,
/// with a nonce from the operating system. `*out` is the response message.
///
/// # Safety
/// `ring` is a live ring; `rounds` and `call` are readable with valid
/// strings; each non-NULL `(pointer, length)` pair is valid; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_rounds_respond(
    ring: *const mrtr_keyring,
    rounds: *const mrtr_rounds,
    call: *const mrtr_call,
    request: *const c_char,
    request_len: usize,
    round: *const c_char,
    round_len: usize,
    needs: *const c_char,
    needs_len: usize,
    data: *const c_char,
    data_len: usize,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, (settings, call), request, round, needs, data) = unsafe {
            (
                Out::new(out)?,
                settings(rounds, call)?,
                required(request, request_len, "request")?,
                required(round, round_len, "round")?,
                required(needs, needs_len, "needs")?,
                optional(data, data_len, "data")?,
            )
        };
        // SAFETY: the caller's contract.
        let ring = unsafe { reading(ring) }?;
        let (settings, call) = (settings.as_bytes(), call.as_bytes());
        out.set(facade::respond_round(&ring, request, round, needs, data, settings, call, Randomness::Os)?);
        Ok(())
    })
}

/// Server, an await-style tool: starts the replay of the tool on `request`
/// (from `*call`'s principal, at its `now`): the answers it carries plus
/// those earlier rounds sealed in its `requestState`, to be asked for again
/// in the tool's order with `mrtr_tool_replay_ask`. With a guard (`first_use`
/// not NULL, called with `user`; see `mrtr_first_use`) each state is
/// single-use. `*out` is the replay, freed with `mrtr_tool_replay_free`.
///
/// # Safety
/// `ring` is a live ring; `rounds` and `call` are readable with valid
/// strings; `(request, request_len)` is valid; `first_use` is NULL or
/// callable with `user`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_start_tool_replay(
    ring: *const mrtr_keyring,
    rounds: *const mrtr_rounds,
    call: *const mrtr_call,
    request: *const c_char,
    request_len: usize,
    first_use: mrtr_first_use,
    user: *mut c_void,
    out: *mut *mut mrtr_tool_replay,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let ((settings, call), request) =
            unsafe { (settings(rounds, call)?, required(request, request_len, "request")?) };
        let mut guard = CGuard::of(first_use, user);
        // SAFETY: the caller's contract.
        let ring = unsafe { reading(ring) }?;
        let guard = guard.as_mut().map(|g| g as &mut dyn ReplayGuard);
        let replay = facade::ToolReplay::start(&ring, request, settings.as_bytes(), call.as_bytes(), guard)?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { new_handle(out, mrtr_tool_replay(replay)) }
    })
}
