//! What a token is bound to: the `mrtr_binding` struct, and bindings made by
//! the core from JSON text or from a request (the params digest is generated:
//! `exports`).
//!
//! The subject is explicit: a non-empty principal, or `anonymous` set (the
//! façade's rule, `facade::subject`). The params digest is what
//! `mrtr_params_digest` computes from the request's params: 32 zero bytes,
//! a digest never computed, are refused rather than bound.

use crate::args::{read, required, text, write};
use crate::buf::{mrtr_buf, Out};
use crate::status::{guard, mrtr_status, usage};
use crate::tables::mrtr_protocol;
use crate::types::protocol;
use mrtr::state::{Binding, Subject};
use mrtr::{Error, Protocol};
use mrtr_facade::{self as facade, BindingSpec};
use std::ffi::c_char;

/// What a token is bound to (`mrtr::state::Binding`), checked when it is
/// opened. Strings are `(pointer, length)` UTF-8; `(NULL, 0)` is `""`.
///
/// The subject is the authenticated principal (`subject`, non-empty), or,
/// chosen explicitly, nobody (`anonymous` true, `subject` empty): an empty
/// subject without `anonymous`, or both, is `usage-invalid-argument`, so a
/// missing auth context never binds as anonymous by accident.
/// `params_digest` is `mrtr_params_digest` of the request's params; 32 zero
/// bytes (never computed) are `usage-invalid-argument`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_binding {
    /// The authenticated principal; empty only with `anonymous`.
    pub subject: *const c_char,
    /// Bytes of `subject`.
    pub subject_len: usize,
    /// True: no principal, by explicit choice (`subject` empty). Such a
    /// token opens for any anonymous caller: it must carry nothing user-specific.
    pub anonymous: bool,
    /// The protocol of the conversation.
    pub protocol: mrtr_protocol,
    /// The request's method.
    pub method: *const c_char,
    /// Bytes of `method`.
    pub method_len: usize,
    /// What the method acts on: the tool or prompt name, the resource URI, the task id.
    pub target: *const c_char,
    /// Bytes of `target`.
    pub target_len: usize,
    /// SHA-256 of the request's params: `mrtr_params_digest` of its `params` object.
    pub params_digest: [u8; 32],
}

impl mrtr_binding {
    /// A binding that binds nothing (every pointer NULL, the digest unset): refused by every call.
    const UNSET: mrtr_binding = mrtr_binding {
        subject: std::ptr::null(),
        subject_len: 0,
        anonymous: false,
        protocol: 0,
        method: std::ptr::null(),
        method_len: 0,
        target: std::ptr::null(),
        target_len: 0,
        params_digest: [0; 32],
    };
}

/// The subject of `(principal, anonymous)` as the façade reads it: an empty
/// principal is none at all.
pub(crate) fn subject(principal: &str, anonymous: bool) -> Result<Subject<'_>, Error> {
    facade::subject((!principal.is_empty()).then_some(principal), anonymous)
}

/// Reads a binding the caller passed.
///
/// # Safety
/// `b` is NULL or a readable `mrtr_binding` whose strings are valid for their lengths.
pub(crate) unsafe fn binding<'a>(b: *const mrtr_binding) -> Result<Binding<'a>, Error> {
    // SAFETY: passed on from the caller.
    let b = unsafe { read(b, "binding") }?;
    // SAFETY: passed on from the caller.
    let (principal, method, target) = unsafe {
        (
            text(b.subject, b.subject_len, "binding.subject")?,
            text(b.method, b.method_len, "binding.method")?,
            text(b.target, b.target_len, "binding.target")?,
        )
    };
    if b.params_digest == [0; 32] {
        return Err(usage(
            "binding.params_digest is unset (32 zero bytes): fill it with mrtr_params_digest of the request's params",
        ));
    }
    Ok(Binding {
        subject: subject(principal, b.anonymous)?,
        protocol: protocol(b.protocol)?,
        method,
        target,
        params_digest: b.params_digest,
    })
}

/// Writes `b` to `*out`, its strings into a new buffer `strings` (`subject`,
/// `method`, `target`, each followed by a NUL).
///
/// # Safety
/// `out` is writable for one `mrtr_binding`.
unsafe fn fill(b: &Binding<'_>, out: *mut mrtr_binding, strings: Out) -> Result<(), Error> {
    let (principal, anonymous) = match b.subject {
        Subject::Principal(p) => (p, false),
        Subject::Anonymous => ("", true),
    };
    let parts = [principal, b.method, b.target];
    let mut all = Vec::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    let mut at = [0usize; 3];
    for (i, part) in parts.iter().enumerate() {
        at[i] = all.len();
        all.extend_from_slice(part.as_bytes());
        all.push(0);
    }
    let number = Protocol::ALL.iter().position(|p| *p == b.protocol).unwrap_or_default();
    let base = strings.put(all);
    // SAFETY: each offset is within the buffer just handed out (one NUL at least follows it).
    let (subject, method, target) = unsafe { (base.add(at[0]), base.add(at[1]), base.add(at[2])) };
    let filled = mrtr_binding {
        subject: subject.cast(),
        subject_len: principal.len(),
        anonymous,
        protocol: mrtr_protocol::try_from(number).unwrap_or_default(),
        method: method.cast(),
        method_len: b.method.len(),
        target: target.cast(),
        target_len: b.target.len(),
        params_digest: b.params_digest,
    };
    // SAFETY: passed on from the caller.
    unsafe { write(out, filled, "out") }
}

/// Empties `*out` and `*strings` for a call that fills them.
///
/// # Safety
/// `out` is NULL or writable for one `mrtr_binding`; `strings` is NULL or writable for one `mrtr_buf`.
unsafe fn outputs(out: *mut mrtr_binding, strings: *mut mrtr_buf) -> Result<Out, Error> {
    // SAFETY: passed on from the caller.
    unsafe { write(out, mrtr_binding::UNSET, "out") }?;
    // SAFETY: passed on from the caller.
    unsafe { Out::new(strings) }
}

/// A binding from its JSON text, read by the core (`mrtr_facade::BindingSpec`):
/// `{"subject": "<principal>" | "anonymous": true, "protocol", "method",
/// "target", "params": {…} | "paramsDigest": "<64 hex digits>"}`, the digest
/// of `params` computed from its exact text (numbers as written). `*out`
/// points into `*strings`, which the caller frees with `mrtr_buf_free` once
/// `*out` is no longer used. On failure `*out` is unset (every call refuses
/// it) and `*strings` is `{NULL, 0}`.
///
/// # Safety
/// `json` is valid for `json_len` bytes; `out` and `strings` are writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_binding_from_json(
    json: *const c_char,
    json_len: usize,
    out: *mut mrtr_binding,
    strings: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (strings, json) = unsafe { (outputs(out, strings)?, required(json, json_len, "json")?) };
        let spec = BindingSpec::from_json(json)?;
        // SAFETY: `outputs` checked `out`, which the caller promises is writable.
        unsafe { fill(&spec.binding(), out, strings) }
    })
}

/// The binding of a request (its raw JSON text) for a subject (a non-empty
/// principal, or `anonymous`), as the core makes it: the method, the target
/// the method names (`params.name`, `params.uri`, `params.taskId`) and the
/// digest of its params from their exact text. A method that carries no
/// sealed state is `input-required-method-not-allowed`; a missing target
/// `jsonrpc-invalid`. `*out` points into `*strings`, as with `mrtr_binding_from_json`.
///
/// # Safety
/// `request` is valid for `request_len` bytes, `subject` for `subject_len`
/// (`(NULL, 0)` is empty); `out` and `strings` are writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_binding_for_request(
    request: *const c_char,
    request_len: usize,
    subject: *const c_char,
    subject_len: usize,
    anonymous: bool,
    protocol_number: mrtr_protocol,
    out: *mut mrtr_binding,
    strings: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (strings, request, principal) = unsafe {
            (outputs(out, strings)?, required(request, request_len, "request")?, text(subject, subject_len, "subject")?)
        };
        let principal = (!principal.is_empty()).then_some(principal);
        let name = protocol(protocol_number)?.name();
        let json = facade::binding_for(request, principal, anonymous, Some(name))?;
        let spec = BindingSpec::from_json(json.as_bytes())?;
        // SAFETY: `outputs` checked `out`, which the caller promises is writable.
        unsafe { fill(&spec.binding(), out, strings) }
    })
}
