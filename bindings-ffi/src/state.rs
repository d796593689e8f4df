//! Sealed `requestState`: the key ring, bindings, and sealed server rounds.
//! Secrets come from the caller's bytes, are copied once into the core's
//! keys (zeroized on drop, the copy here too) and never appear in any output
//! or message.

use crate::args::{bytes, optional, read, required, text, write};
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, get, get_mut, Handle, Kind};
use crate::status::{guard, mrtr_status, usage};
use crate::tables::{mrtr_algorithm, mrtr_protocol};
use crate::types::{algorithm, limits, mrtr_limits, protocol};
use mrtr::facade::{self, Randomness};
use mrtr::state::{Binding, Key, KeyRing};
use mrtr::Error;
use serde_json::json;
use std::ffi::c_char;
use zeroize::Zeroizing;

/// What a token is bound to (`mrtr::state::Binding`); checked when it is opened.
/// Strings are `(pointer, length)` UTF-8; `(NULL, 0)` is `""`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_binding {
    /// The authenticated principal (empty for an anonymous one).
    pub subject: *const c_char,
    /// Bytes of `subject`.
    pub subject_len: usize,
    /// The protocol of the conversation.
    pub protocol: mrtr_protocol,
    /// The request's method.
    pub method: *const c_char,
    /// Bytes of `method`.
    pub method_len: usize,
    /// The tool or prompt name, or the resource URI.
    pub target: *const c_char,
    /// Bytes of `target`.
    pub target_len: usize,
    /// SHA-256 of the salient params: `mrtr_params_digest` of the request's `arguments`.
    pub params_digest: [u8; 32],
}

/// Reads a binding the caller passed.
///
/// # Safety
/// `b` is NULL or a readable `mrtr_binding` whose strings are valid for their lengths.
unsafe fn binding<'a>(b: *const mrtr_binding) -> Result<Binding<'a>, Error> {
    // SAFETY: passed on from the caller.
    let b = unsafe { read(b, "binding") }?;
    // SAFETY: passed on from the caller.
    let (subject, method, target) = unsafe {
        (
            text(b.subject, b.subject_len, "binding.subject")?,
            text(b.method, b.method_len, "binding.method")?,
            text(b.target, b.target_len, "binding.target")?,
        )
    };
    Ok(Binding { subject, protocol: protocol(b.protocol)?, method, target, params_digest: b.params_digest })
}

/// SHA-256 of the canonical JSON of `salient` (keys sorted, no spaces): the
/// `params_digest` of a binding, from a request's `arguments` (`{}` when absent).
///
/// # Safety
/// `salient` is valid for `salient_len` bytes; `out` is writable for 32 bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_params_digest(salient: *const c_char, salient_len: usize, out: *mut u8) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let digest = facade::params_digest(unsafe { required(salient, salient_len, "salient") }?)?;
        // SAFETY: the caller promises `out` is writable for 32 bytes.
        unsafe { write(out.cast::<[u8; 32]>(), digest, "out") }
    })
}

/// Keys by id: seals with the current one, opens with any (opaque).
pub struct mrtr_keyring(KeyRing);

impl Handle for mrtr_keyring {
    const KIND: Kind = Kind::KeyRing;
}

/// A key from the caller's secret (exactly 32 bytes, else `usage-invalid-argument`).
///
/// # Safety
/// `secret` is valid for `secret_len` bytes.
unsafe fn key(id: u8, alg: mrtr_algorithm, secret: *const u8, secret_len: usize) -> Result<Key, Error> {
    let alg = algorithm(alg)?;
    // SAFETY: passed on from the caller.
    let bytes = unsafe { required(secret, secret_len, "secret") }?;
    let secret: Zeroizing<[u8; 32]> =
        Zeroizing::new(bytes.try_into().map_err(|_| usage(format!("a secret is 32 bytes, not {secret_len}")))?);
    Ok(Key::new(id, alg, &secret))
}

/// A ring holding one key, which seals. The 32 secret bytes are copied (and
/// may be wiped by the caller at once). Tokens over 64 KiB are refused
/// (`mrtr_keyring_set_max_token_bytes`). Free with `mrtr_keyring_free`.
///
/// # Safety
/// `secret` is valid for `secret_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_new(
    id: u8,
    alg: mrtr_algorithm,
    secret: *const u8,
    secret_len: usize,
    out: *mut *mut mrtr_keyring,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let key = unsafe { key(id, alg, secret, secret_len) }?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, mrtr_keyring(KeyRing::new(key))) }
    })
}

/// Adds a key that opens tokens (replacing one with the same id). It seals
/// only once made current.
///
/// # Safety
/// `ring` is a live ring used by no one else meanwhile; `secret` is valid for `secret_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_add(
    ring: *mut mrtr_keyring,
    id: u8,
    alg: mrtr_algorithm,
    secret: *const u8,
    secret_len: usize,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (ring, key) = unsafe { (get_mut(ring, "ring")?, key(id, alg, secret, secret_len)?) };
        ring.0.add(key);
        Ok(())
    })
}

/// Makes the key with `id` the sealing key; `usage-invalid-argument` if the ring lacks it.
///
/// # Safety
/// `ring` is a live ring used by no one else meanwhile.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_set_current(ring: *mut mrtr_keyring, id: u8) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let found = unsafe { get_mut(ring, "ring") }?.0.set_current(id);
        found.then_some(()).ok_or_else(|| usage(format!("the ring holds no key with id {id}")))
    })
}

/// Drops the key with `id` (its tokens become `state-unknown-key`);
/// `usage-invalid-argument` if the ring lacks it or it is the current key.
///
/// # Safety
/// `ring` is a live ring used by no one else meanwhile.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_remove(ring: *mut mrtr_keyring, id: u8) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let removed = unsafe { get_mut(ring, "ring") }?.0.remove(id);
        removed.then_some(()).ok_or_else(|| usage(format!("the ring holds no key with id {id} but the current one")))
    })
}

/// The bound on a token's length (bytes of base64url), checked before any decoding.
///
/// # Safety
/// `ring` is a live ring used by no one else meanwhile.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_set_max_token_bytes(ring: *mut mrtr_keyring, max: usize) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { get_mut(ring, "ring") }?.0.set_max_token_bytes(max);
        Ok(())
    })
}

/// Seals `payload` bound to `*binding`, expiring `ttl` seconds after `now`
/// (seconds since the Unix epoch), with a nonce from the operating system.
/// `*out` is the token (base64url text).
///
/// # Safety
/// `ring` is a live ring; `binding` is readable with valid strings; `payload`
/// is valid for `payload_len` bytes (`(NULL, 0)` is empty); `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_seal(
    ring: *const mrtr_keyring,
    binding: *const mrtr_binding,
    now: u64,
    ttl: u32,
    payload: *const u8,
    payload_len: usize,
    out: *mut mrtr_buf,
) -> mrtr_status {
    // SAFETY: the caller's contract, passed on; a NULL nonce is never read.
    unsafe { mrtr_keyring_seal_with_nonce(ring, binding, now, ttl, payload, payload_len, std::ptr::null(), 0, out) }
}

/// `mrtr_keyring_seal` with the caller's nonce (12 bytes for AES-256-GCM, 24
/// for XChaCha20-Poly1305; else `state-malformed`), or one from the operating
/// system when `nonce` is NULL. **For test vectors only**: reusing a nonce
/// under one key breaks AES-GCM.
///
/// # Safety
/// As `mrtr_keyring_seal`; `nonce` is NULL or valid for `nonce_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_seal_with_nonce(
    ring: *const mrtr_keyring,
    binding: *const mrtr_binding,
    now: u64,
    ttl: u32,
    payload: *const u8,
    payload_len: usize,
    nonce: *const u8,
    nonce_len: usize,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, ring, b, payload, nonce) = unsafe {
            (
                Out::new(out)?,
                get(ring, "ring")?,
                self::binding(binding)?,
                bytes(payload, payload_len, "payload")?,
                optional(nonce, nonce_len, "nonce")?,
            )
        };
        out.set(match nonce {
            Some(nonce) => ring.0.seal_with_nonce(&b, now, ttl, payload, nonce)?,
            None => ring.0.seal_os(&b, now, ttl, payload)?,
        });
        Ok(())
    })
}

/// Opens `token` for `*binding` at `now`: `*out` is the payload, or the call
/// fails with exactly one of `state-too-large`, `state-malformed` (bytes that
/// are not base64url, not UTF-8 ones included), `state-unknown-key`,
/// `state-tampered`, `state-expired`, `state-wrong-subject`, `state-wrong-request`.
///
/// # Safety
/// `ring` is a live ring; `token` is valid for `token_len` bytes; `binding`
/// is readable with valid strings; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_open(
    ring: *const mrtr_keyring,
    token: *const c_char,
    token_len: usize,
    binding: *const mrtr_binding,
    now: u64,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, ring, token, b) = unsafe {
            (Out::new(out)?, get(ring, "ring")?, required(token, token_len, "token")?, self::binding(binding)?)
        };
        out.set(ring.0.open(token, &b, now)?);
        Ok(())
    })
}

/// Frees a ring (its key material is zeroized). NULL is a no-op.
///
/// # Safety
/// `ring` is NULL or a live ring, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_free(ring: *mut mrtr_keyring) -> mrtr_status {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(ring) })
}

/// One server's settings for sealed rounds (`mrtr::round::SealedRounds`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_rounds {
    /// The authenticated principal of the request (`(NULL, 0)`: anonymous).
    pub subject: *const c_char,
    /// Bytes of `subject`.
    pub subject_len: usize,
    /// Seconds since the Unix epoch, from the caller's clock.
    pub now: u64,
    /// How long a round may take, in seconds.
    pub ttl: u32,
    /// The protocol of the conversation.
    pub protocol: mrtr_protocol,
    /// Bounds on what is read; NULL for the defaults.
    pub limits: *const mrtr_limits,
}

/// The façade's round options of `*rounds`, as JSON text.
///
/// # Safety
/// `rounds` is NULL or readable, its strings and `limits` valid.
unsafe fn options(rounds: *const mrtr_rounds) -> Result<String, Error> {
    // SAFETY: passed on from the caller.
    let r = unsafe { read(rounds, "rounds") }?;
    // SAFETY: passed on from the caller.
    let (subject, limits) = unsafe { (text(r.subject, r.subject_len, "rounds.subject")?, limits(r.limits)) };
    let protocol = protocol(r.protocol)?.name();
    Ok(json!({"subject": subject, "now": r.now, "ttl": r.ttl, "protocol": protocol, "limits": limits}).to_string())
}

/// Server, sealed rounds: reads `request` against `needs` (an
/// `inputRequests` object): the answers it carries plus those earlier rounds
/// sealed in its `requestState`. `*out` is the core's round, `{"answers":
/// {...}, "missing": [...], "ignored": [...], "data": <the tool's data or
/// null>}` (complete when `missing` is empty). Fails with the request's rule
/// or a `state-*` rule.
///
/// # Safety
/// `ring` is a live ring; `rounds` is readable with valid strings; both
/// `(pointer, length)` pairs are valid; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_rounds_resume(
    ring: *const mrtr_keyring,
    rounds: *const mrtr_rounds,
    request: *const c_char,
    request_len: usize,
    needs: *const c_char,
    needs_len: usize,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, ring, options, request, needs) = unsafe {
            (
                Out::new(out)?,
                get(ring, "ring")?,
                options(rounds)?,
                required(request, request_len, "request")?,
                required(needs, needs_len, "needs")?,
            )
        };
        out.set(facade::resume_round(&ring.0, request, needs, options.as_bytes())?);
        Ok(())
    })
}

/// Server, sealed rounds: answers `request` with `input_required`, asking
/// the input requests of `needs` that `round` (as `mrtr_rounds_resume` wrote
/// it) still misses, and sealing `round.answers` and `data` (any JSON, or
/// NULL) with a nonce from the operating system. `*out` is the response message.
///
/// # Safety
/// `ring` is a live ring; `rounds` is readable with valid strings; each
/// non-NULL `(pointer, length)` pair is valid; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_rounds_respond(
    ring: *const mrtr_keyring,
    rounds: *const mrtr_rounds,
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
        let (out, ring, options, request, round, needs, data) = unsafe {
            (
                Out::new(out)?,
                get(ring, "ring")?,
                options(rounds)?,
                required(request, request_len, "request")?,
                required(round, round_len, "round")?,
                required(needs, needs_len, "needs")?,
                optional(data, data_len, "data")?,
            )
        };
        let response = facade::respond_round(&ring.0, request, round, needs, data, options.as_bytes(), Randomness::Os)?;
        out.set(response);
        Ok(())
    })
}
