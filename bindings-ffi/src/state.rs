//! Sealed `requestState`: the key ring, bindings, and sealed server rounds.
//! Secrets come from the caller's bytes, are copied once into the core's
//! keys (zeroized on drop, the copy here too) and never appear in any output
//! or message.

use crate::args;
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, Handle, Kind};
use crate::json;
use crate::ops::{mrtr_limits, mrtr_protocol, protocol};
use crate::status::{guard, mrtr_status, Failure};
use mrtr::round::{Round, SealedRounds};
use mrtr::state::{params_digest, Algorithm, Binding, Key, KeyRing};
use mrtr::{Limits, RuleId};
use serde_json::{json, Map, Value};
use std::ffi::c_char;
use zeroize::Zeroizing;

/// An AEAD (the numbers are those of the token format).
pub type mrtr_algorithm = i32;
/// AES-256-GCM, 96-bit random nonces.
pub const MRTR_ALG_AES_256_GCM: mrtr_algorithm = 1;
/// XChaCha20-Poly1305, 192-bit random nonces.
pub const MRTR_ALG_XCHACHA20_POLY1305: mrtr_algorithm = 2;

fn algorithm(alg: mrtr_algorithm) -> Result<Algorithm, Failure> {
    match alg {
        MRTR_ALG_AES_256_GCM => Ok(Algorithm::Aes256Gcm),
        MRTR_ALG_XCHACHA20_POLY1305 => Ok(Algorithm::XChaCha20Poly1305),
        other => Err(Failure::invalid(format!("no algorithm has the number {other}"))),
    }
}

/// The algorithm with this name (`"aes-256-gcm"`, `"xchacha20-poly1305"`) into
/// `*out`; `MRTR_ERR_INVALID_ARGUMENT` for another name.
///
/// # Safety
/// `name` is valid for `name_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_algorithm_from_name(
    name: *const c_char,
    name_len: usize,
    out: *mut mrtr_algorithm,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let name = unsafe { args::required_text(name, name_len, "name") }?;
        let alg = match Algorithm::from_name(name) {
            Some(Algorithm::Aes256Gcm) => MRTR_ALG_AES_256_GCM,
            Some(Algorithm::XChaCha20Poly1305) => MRTR_ALG_XCHACHA20_POLY1305,
            None => return Err(Failure::invalid("unknown algorithm")),
        };
        // SAFETY: the caller promises `out` is writable.
        unsafe { args::write(out, alg, "out") }
    })
}

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
unsafe fn binding<'a>(b: *const mrtr_binding) -> Result<Binding<'a>, Failure> {
    // SAFETY: passed on from the caller.
    let b = unsafe { args::read(b, "binding") }?;
    // SAFETY: passed on from the caller.
    let (subject, method, target) = unsafe {
        (
            args::text(b.subject, b.subject_len, "binding.subject")?,
            args::text(b.method, b.method_len, "binding.method")?,
            args::text(b.target, b.target_len, "binding.target")?,
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
        let value = unsafe { args::json(salient, salient_len, "salient", &Limits::DEFAULT) }?;
        // SAFETY: the caller promises `out` is writable for 32 bytes.
        unsafe { args::write(out.cast::<[u8; 32]>(), params_digest(&value), "out") }
    })
}

/// Keys by id: seals with the current one, opens with any (opaque).
pub struct mrtr_keyring {
    inner: KeyRing,
}

impl Handle for mrtr_keyring {
    const KIND: Kind = Kind::KeyRing;
}

/// A key from the caller's secret (exactly 32 bytes, else `MRTR_ERR_INVALID_ARGUMENT`).
///
/// # Safety
/// `secret` is valid for `secret_len` bytes.
unsafe fn key(id: u8, alg: mrtr_algorithm, secret: *const u8, secret_len: usize) -> Result<Key, Failure> {
    let alg = algorithm(alg)?;
    if secret.is_null() {
        return Err(Failure::null("secret"));
    }
    // SAFETY: passed on from the caller.
    let bytes = unsafe { args::bytes(secret, secret_len, "secret") }?;
    let secret: Zeroizing<[u8; 32]> = Zeroizing::new(
        bytes.try_into().map_err(|_| Failure::invalid(format!("a secret is 32 bytes, not {secret_len}")))?,
    );
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
        unsafe { handles::new_handle(out, mrtr_keyring { inner: KeyRing::new(key) }) }
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
        let (ring, key) = unsafe { (handles::get_mut(ring, "ring")?, key(id, alg, secret, secret_len)?) };
        ring.inner.add(key);
        Ok(())
    })
}

/// Makes the key with `id` the sealing key; `MRTR_ERR_INVALID_ARGUMENT` if the ring lacks it.
///
/// # Safety
/// `ring` is a live ring used by no one else meanwhile.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_set_current(ring: *mut mrtr_keyring, id: u8) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let ring = unsafe { handles::get_mut(ring, "ring") }?;
        if ring.inner.set_current(id) {
            Ok(())
        } else {
            Err(Failure::invalid(format!("the ring holds no key with id {id}")))
        }
    })
}

/// Drops the key with `id` (its tokens become `state-unknown-key`);
/// `MRTR_ERR_INVALID_ARGUMENT` if the ring lacks it or it is the current key.
///
/// # Safety
/// `ring` is a live ring used by no one else meanwhile.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_remove(ring: *mut mrtr_keyring, id: u8) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let ring = unsafe { handles::get_mut(ring, "ring") }?;
        if ring.inner.remove(id) {
            Ok(())
        } else {
            Err(Failure::invalid(format!("the ring holds no key with id {id} it may drop (not the current one)")))
        }
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
        let ring = unsafe { handles::get_mut(ring, "ring") }?;
        ring.inner.set_max_token_bytes(max);
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
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, ring, b, payload) = unsafe {
            (
                Out::new(out)?,
                handles::get(ring, "ring")?,
                self::binding(binding)?,
                args::bytes(payload, payload_len, "payload")?,
            )
        };
        let token = ring.inner.seal_os(&b, now, ttl, payload)?;
        out.set(token.into_bytes());
        Ok(())
    })
}

/// `mrtr_keyring_seal` with the caller's nonce (12 bytes for AES-256-GCM, 24
/// for XChaCha20-Poly1305; else `state-malformed`). **For test vectors only**:
/// reusing a nonce under one key breaks AES-GCM.
///
/// # Safety
/// As `mrtr_keyring_seal`; `nonce` is valid for `nonce_len` bytes.
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
                handles::get(ring, "ring")?,
                self::binding(binding)?,
                args::bytes(payload, payload_len, "payload")?,
                args::bytes(nonce, nonce_len, "nonce")?,
            )
        };
        let token = ring.inner.seal_with_nonce(&b, now, ttl, payload, nonce)?;
        out.set(token.into_bytes());
        Ok(())
    })
}

/// Opens `token` for `*binding` at `now`: `*out` is the payload, or the call
/// fails with exactly one of `state-too-large`, `state-malformed`,
/// `state-unknown-key`, `state-tampered`, `state-expired`,
/// `state-wrong-subject`, `state-wrong-request`.
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
            (
                Out::new(out)?,
                handles::get(ring, "ring")?,
                args::required(token, token_len, "token")?,
                self::binding(binding)?,
            )
        };
        // A token that is not UTF-8 is not base64url either: the core's answer to that.
        let token = std::str::from_utf8(token)
            .map_err(|_| Failure::from(mrtr::Error::new(RuleId::StateMalformed, "requestState is not base64url")))?;
        let payload = ring.inner.open(token, &b, now)?;
        out.set(payload);
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

/// Reads the rounds settings the caller passed.
///
/// # Safety
/// `ring` is a live ring; `rounds` is readable, its strings and `limits` valid.
unsafe fn sealed_rounds<'a>(
    ring: *const mrtr_keyring,
    rounds: *const mrtr_rounds,
) -> Result<SealedRounds<'a>, Failure> {
    // SAFETY: passed on from the caller.
    let (ring, r) = unsafe { (handles::get(ring, "ring")?, args::read(rounds, "rounds")?) };
    // SAFETY: passed on from the caller.
    let (subject, limits) =
        unsafe { (args::text(r.subject, r.subject_len, "rounds.subject")?, args::limits(r.limits)) };
    Ok(SealedRounds { ring: &ring.inner, subject, now: r.now, ttl: r.ttl, protocol: protocol(r.protocol)?, limits })
}

fn round_json(round: &Round) -> Value {
    json!({
        "answers": round.answers,
        "missing": round.missing,
        "ignored": round.ignored,
        "data": round.data,
        "complete": round.is_complete(),
    })
}

fn round_of(value: Value) -> Result<Round, Failure> {
    let bad = || {
        Failure::invalid("a round is what mrtr_rounds_resume returned: {\"answers\": {...}, \"missing\": [...], ...}")
    };
    let Value::Object(mut fields) = value else { return Err(bad()) };
    let keys = |v: Option<Value>| -> Result<Vec<String>, Failure> {
        match v {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => {
                items.into_iter().map(|k| k.as_str().map(String::from).ok_or_else(bad)).collect()
            }
            Some(_) => Err(bad()),
        }
    };
    let answers = match fields.shift_remove("answers") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a,
        Some(_) => return Err(bad()),
    };
    Ok(Round {
        answers,
        missing: keys(fields.shift_remove("missing"))?,
        ignored: keys(fields.shift_remove("ignored"))?,
        data: fields.shift_remove("data").filter(|d| !d.is_null()),
    })
}

/// Server, sealed rounds: reads `request` against `needs` (an
/// `inputRequests` object): the answers it carries plus those earlier rounds
/// sealed in its `requestState`. `*out` is `{"answers": {...}, "missing": [...],
/// "ignored": [...], "data": <the tool's data or null>, "complete": <bool>}`.
/// Fails with the request's rule or a `state-*` rule.
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
        let (out, rounds) = unsafe { (Out::new(out)?, sealed_rounds(ring, rounds)?) };
        let l = rounds.limits;
        // SAFETY: as above.
        let (request, needs) =
            unsafe { (args::json(request, request_len, "request", &l)?, args::json(needs, needs_len, "needs", &l)?) };
        out.set(json::to_vec(&round_json(&rounds.resume(&request, &needs)?)));
        Ok(())
    })
}

/// A random source that hands out bytes drawn from the operating system
/// beforehand, so that drawing cannot fail inside the core.
struct Drawn(Zeroizing<[u8; 64]>, usize);

impl rand_core::TryRng for Drawn {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for d in dst {
            // 64 bytes cover a 24-byte nonce; past them (never, today) the pool is redrawn.
            if self.1 == self.0.len() {
                getrandom::fill(self.0.as_mut())
                    .unwrap_or_else(|_| panic!("the operating system gave no random numbers"));
                self.1 = 0;
            }
            *d = self.0[self.1];
            self.1 += 1;
        }
        Ok(())
    }
}

impl rand_core::TryCryptoRng for Drawn {}

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
        let (out, rounds) = unsafe { (Out::new(out)?, sealed_rounds(ring, rounds)?) };
        let l = rounds.limits;
        // SAFETY: as above.
        let (request, round, needs, data) = unsafe {
            (
                args::json(request, request_len, "request", &l)?,
                args::json(round, round_len, "round", &l)?,
                args::json(needs, needs_len, "needs", &l)?,
                args::optional_json(data, data_len, "data", &l)?,
            )
        };
        let mut pool = Zeroizing::new([0u8; 64]);
        getrandom::fill(pool.as_mut()).map_err(|_| {
            Failure::from(mrtr::Error::new(RuleId::StateMalformed, "the operating system gave no random numbers"))
        })?;
        let mut rng = Drawn(pool, 0);
        let response = rounds.respond(&request, &round_of(round)?, &needs, data, &mut rng)?;
        out.set(json::to_vec(&response));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ring_may_be_shared_between_threads() {
        fn sync<T: Send + Sync>() {}
        sync::<KeyRing>();
    }
}
