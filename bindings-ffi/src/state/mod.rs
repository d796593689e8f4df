//! Sealed `requestState`: the key ring, the replay guard, and (submodules)
//! bindings and sealed server rounds. Secrets come from the caller's bytes,
//! are copied once into the core's keys (zeroized on drop, the copy here
//! too) and never appear in any output or message.
//!
//! The ring is behind a read-write lock (security review L9): sealing,
//! opening and the rounds take the read lock, so they run concurrently;
//! adding, rotating, removing and the settings take the write lock, so a
//! rotation while other threads open is safe.
//!
//! A host's replay guard runs while its call holds the ring's read lock
//! (security review I3). A guard that changed the ring would ask for the
//! write lock on the same thread and wait forever, and one that sealed or
//! opened with it could deadlock too: std's lock lets a waiting writer go
//! first, so a second read lock on a thread that holds one waits behind
//! the writer, which waits for the first. So this thread remembers which
//! rings' read locks it holds (`Reading`): a write to one of them is
//! `usage-out-of-turn`, as Python and Node refuse the same re-entry, and a
//! read uses the lock already held instead of taking it again.

mod binding;
mod rounds;
#[cfg(test)]
mod tests;

pub use binding::{mrtr_binding, mrtr_binding_for_request, mrtr_binding_from_json};
pub use rounds::{mrtr_call, mrtr_keyring_start_tool_replay, mrtr_rounds, mrtr_rounds_respond, mrtr_rounds_resume};

use crate::args::{bytes, required, write};
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, get, Handle, Kind};
use crate::status::{guard, mrtr_status, usage};
use crate::tables::mrtr_algorithm;
use crate::types::algorithm;
use binding::binding as read_binding;
use mrtr::state::{self, Key, KeyRing, ReplayGuard, StateId};
use mrtr::{Error, RuleId};
use std::cell::RefCell;
use std::ffi::{c_char, c_void};
use std::ops::Deref;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use zeroize::Zeroizing;

/// Bytes of a state id as text: 48 lowercase hex digits at most (a
/// 24-byte XAES-256-GCM or XChaCha20-Poly1305 nonce; 24 for AES-256-GCM), then a NUL.
pub const MRTR_STATE_ID_TEXT_BYTES: usize = 49;

/// Keys by id: seals with the current one, opens with any (opaque). Safe to
/// share between threads (see the header's conventions).
pub struct mrtr_keyring(RwLock<KeyRing>);

impl Handle for mrtr_keyring {
    const KIND: Kind = Kind::KeyRing;
}

fn poisoned<E>(_: E) -> Error {
    Error::new(RuleId::InternalPanic, "the key ring panicked in an earlier call and is unusable: free it")
}

thread_local! {
    /// The rings whose read lock this thread holds (a handle's address, and
    /// the ring inside the lock), innermost last: a call that holds one
    /// runs the host's replay guard, which may call back in.
    static HELD: RefCell<Vec<(usize, *const KeyRing)>> = const { RefCell::new(Vec::new()) };
}

/// The ring inside `ring`'s lock when this thread holds its read lock.
fn held(ring: *const mrtr_keyring) -> Option<*const KeyRing> {
    let found = HELD.try_with(|h| h.borrow().iter().rev().find(|(r, _)| *r == ring as usize).map(|(_, k)| *k));
    // During the thread's teardown the list is gone, and no guard runs.
    found.ok().flatten()
}

/// A change of `ring` (or its free) from inside a call that holds its read lock.
fn out_of_turn() -> Error {
    Error::new(
        RuleId::UsageOutOfTurn,
        "the ring is in use by a call further up this thread (its replay guard is running): \
         change or free the ring after that call returns",
    )
}

/// A ring's read lock, as one export holds it: taken by this call (and
/// marked held on this thread until dropped, also when a panic unwinds), or
/// the one a call further up this thread's stack holds while it runs the
/// host's replay guard.
pub(crate) enum Reading<'a> {
    /// Taken here; the handle's address.
    Locked(RwLockReadGuard<'a, KeyRing>, usize),
    /// Held by an outer call on this thread, which waits for this one to return.
    Borrowed(&'a KeyRing),
}

impl Deref for Reading<'_> {
    type Target = KeyRing;
    fn deref(&self) -> &KeyRing {
        match self {
            Reading::Locked(lock, _) => lock,
            Reading::Borrowed(ring) => ring,
        }
    }
}

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        if let Reading::Locked(_, addr) = self {
            // The last mark of this ring (marks are dropped innermost first; searching is merely robust).
            let _ = HELD.try_with(|h| {
                let mut h = h.borrow_mut();
                if let Some(i) = h.iter().rposition(|(r, _)| r == addr) {
                    h.remove(i);
                }
            });
        }
    }
}

/// The ring of a live handle, for sealing and opening (the read lock, or
/// the one this thread already holds: see `Reading`).
///
/// # Safety
/// `ring` is NULL or a live ring.
pub(crate) unsafe fn reading<'a>(ring: *const mrtr_keyring) -> Result<Reading<'a>, Error> {
    // SAFETY: passed on from the caller.
    let handle = unsafe { get(ring, "ring") }?;
    if let Some(inner) = held(ring) {
        // SAFETY: `inner` points into `ring`'s lock, whose read guard a call further up this thread's stack
        // holds (it is marked only while that guard lives); that call is waiting for the host's replay guard,
        // which is waiting for this one, so the ring stays locked for reading, and shared only, while this runs.
        return Ok(Reading::Borrowed(unsafe { &*inner }));
    }
    let lock = handle.0.read().map_err(poisoned)?;
    let inner: *const KeyRing = &*lock;
    // Marked before anything can call back; if the list is gone (thread teardown), nothing calls back.
    let _ = HELD.try_with(|h| h.borrow_mut().push((ring as usize, inner)));
    Ok(Reading::Locked(lock, ring as usize))
}

/// The ring of a live handle, for changing it (the write lock);
/// `usage-out-of-turn` when this thread holds its read lock (a replay
/// guard calling back), which would wait for itself forever.
///
/// # Safety
/// `ring` is NULL or a live ring.
unsafe fn writing<'a>(ring: *const mrtr_keyring) -> Result<RwLockWriteGuard<'a, KeyRing>, Error> {
    // SAFETY: passed on from the caller.
    let handle = unsafe { get(ring, "ring") }?;
    if held(ring).is_some() {
        return Err(out_of_turn());
    }
    handle.0.write().map_err(poisoned)
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

/// A ring holding one key, which seals. The 32 secret bytes (uniformly
/// random, from a CSPRNG or a secrets manager) are copied (and may be wiped
/// by the caller at once). Tokens over 64 KiB are refused
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
        unsafe { handles::new_handle(out, mrtr_keyring(RwLock::new(KeyRing::new(key)))) }
    })
}

/// Adds a key that opens tokens (replacing one with the same id). It seals
/// only once made current. Takes the ring's write lock.
///
/// # Safety
/// `ring` is a live ring; `secret` is valid for `secret_len` bytes.
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
        let key = unsafe { key(id, alg, secret, secret_len) }?;
        // SAFETY: the caller's contract, passed on.
        unsafe { writing(ring) }?.add(key);
        Ok(())
    })
}

/// Makes the key with `id` the sealing key; `usage-invalid-argument` if the
/// ring lacks it. Takes the ring's write lock.
///
/// # Safety
/// `ring` is a live ring.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_set_current(ring: *mut mrtr_keyring, id: u8) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let found = unsafe { writing(ring) }?.set_current(id);
        found.then_some(()).ok_or_else(|| usage(format!("the ring holds no key with id {id}")))
    })
}

/// Drops the key with `id` (its tokens become `state-unknown-key`);
/// `usage-invalid-argument` if the ring lacks it or it is the current key.
/// Takes the ring's write lock.
///
/// # Safety
/// `ring` is a live ring.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_remove(ring: *mut mrtr_keyring, id: u8) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let removed = unsafe { writing(ring) }?.remove(id);
        removed.then_some(()).ok_or_else(|| usage(format!("the ring holds no key with id {id} but the current one")))
    })
}

/// The bound on a token's length (bytes of base64url), checked before any
/// decoding. Takes the ring's write lock.
///
/// # Safety
/// `ring` is a live ring.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_set_max_token_bytes(ring: *mut mrtr_keyring, max: usize) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { writing(ring) }?.set_max_token_bytes(max);
        Ok(())
    })
}

/// The deployment label every token of this ring is sealed and opened under
/// (at most 64 bytes, else `usage-invalid-argument`; `(NULL, 0)` is the
/// default, empty label): staging and production, or two tenants, that share
/// a secret never open each other's tokens (`state-tampered`). Takes the
/// ring's write lock.
///
/// # Safety
/// `ring` is a live ring; `label` is valid for `label_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_set_context(
    ring: *mut mrtr_keyring,
    label: *const u8,
    label_len: usize,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let label = unsafe { bytes(label, label_len, "label") }?;
        // SAFETY: the caller's contract.
        unsafe { writing(ring) }?.set_context(label)
    })
}

/// How many seals each key of this ring may make in this process (this
/// instance's share of the fleet's budget), counted with the seals of every
/// ring built from the same secret, algorithm and id. Sealing past it is
/// `usage-seal-budget-spent`: make another key current. Without it, each
/// key's algorithm's budget (2^32 for AES-256-GCM; XChaCha20-Poly1305, the
/// algorithm for a fleet, has no practical bound). Takes the ring's write lock.
///
/// # Safety
/// `ring` is a live ring.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_set_seal_budget(ring: *mut mrtr_keyring, seals: u64) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        unsafe { writing(ring) }?.set_seal_budget(seals);
        Ok(())
    })
}

/// `*out` is how many seals the key `id` has made in this process, through
/// any ring built from the same secret, algorithm and id (a ring built again
/// does not restart the count); `usage-invalid-argument` if the ring lacks it.
///
/// # Safety
/// `ring` is a live ring; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_seals(ring: *const mrtr_keyring, id: u8, out: *mut u64) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let seals = unsafe { reading(ring) }?.seals(id);
        let seals = seals.ok_or_else(|| usage(format!("the ring holds no key with id {id}")))?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { write(out, seals, "out") }
    })
}

/// Seals `payload` bound to `*binding`, expiring `ttl` seconds after `now`
/// (seconds since the Unix epoch), with a nonce from the operating system's
/// random numbers. `*out` is the token (base64url text). Fails with
/// `usage-invalid-argument` (a binding without its subject or its params
/// digest), `usage-seal-budget-spent`, `state-too-large`.
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
        let (out, b, payload) =
            unsafe { (Out::new(out)?, read_binding(binding)?, bytes(payload, payload_len, "payload")?) };
        // SAFETY: the caller's contract.
        out.set(unsafe { reading(ring) }?.seal_os(&b, mrtr::Millis::from_secs(now), ttl, payload)?);
        Ok(())
    })
}

/// **Test vectors only** (built with the crate feature `test-vectors`,
/// declared with `MRTR_TEST_VECTORS`; the released library lacks it):
/// `mrtr_keyring_seal` with the caller's nonce (12 bytes for AES-256-GCM, 24
/// for XChaCha20-Poly1305; else `state-malformed`). Reusing a nonce under one
/// AES-GCM key gives away its plaintexts and its forgery power.
///
/// # Safety
/// As `mrtr_keyring_seal`; `nonce` is valid for `nonce_len` bytes.
#[cfg(feature = "test-vectors")]
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
        let (out, b, payload, nonce) = unsafe {
            (
                Out::new(out)?,
                read_binding(binding)?,
                bytes(payload, payload_len, "payload")?,
                required(nonce, nonce_len, "nonce")?,
            )
        };
        // SAFETY: the caller's contract.
        out.set(unsafe { reading(ring) }?.seal_with_nonce(&b, mrtr::Millis::from_secs(now), ttl, payload, nonce)?);
        Ok(())
    })
}

/// A replay guard: records the first use of the state `state_id_hex` (its
/// id as lowercase hex, NUL-terminated, valid during the call only) and
/// returns true, or returns false when it was used before (the call then
/// fails with `state-replayed`). `expiry` (seconds since the Unix epoch) is
/// when the store may forget the id. `user` is the pointer given beside the
/// guard. Behind a load balancer the store is shared (Redis `SET id 1 NX
/// EXAT expiry`). The guard runs while the call holds the ring's read lock:
/// on the same thread, changing or freeing that ring (`mrtr_keyring_add`,
/// `_set_current`, `_remove`, `_set_*`, `_free`) fails with
/// `usage-out-of-turn` rather than deadlocking (change it after the call
/// returns), and reading it (`mrtr_keyring_seals`, `_seal`, `_open`,
/// `mrtr_rounds_*`) shares the lock already held. The guard must not unwind
/// or longjmp.
pub type mrtr_first_use =
    Option<unsafe extern "C" fn(user: *mut c_void, state_id_hex: *const c_char, expiry: u64) -> bool>;

/// A state's id as NUL-terminated lowercase hex (`StateId`'s text).
fn id_text(id: &StateId) -> [c_char; MRTR_STATE_ID_TEXT_BYTES] {
    let mut out = [0 as c_char; MRTR_STATE_ID_TEXT_BYTES];
    for (o, b) in out.iter_mut().zip(id.to_string().bytes().take(MRTR_STATE_ID_TEXT_BYTES - 1)) {
        *o = b as c_char;
    }
    out
}

/// The caller's guard as the core's.
pub(crate) struct CGuard {
    first_use: unsafe extern "C" fn(*mut c_void, *const c_char, u64) -> bool,
    user: *mut c_void,
}

impl CGuard {
    /// The guard of `(first_use, user)`; none when `first_use` is NULL.
    pub(crate) fn of(first_use: mrtr_first_use, user: *mut c_void) -> Option<CGuard> {
        first_use.map(|first_use| CGuard { first_use, user })
    }
}

impl ReplayGuard for CGuard {
    fn first_use(&mut self, id: &StateId, expiry: u64) -> bool {
        let text = id_text(id);
        // SAFETY: the caller of the export gave a function callable with its `user` pointer (its contract);
        // `text` is NUL-terminated and outlives the call.
        unsafe { (self.first_use)(self.user, text.as_ptr(), expiry) }
    }
}

/// A token that opened: its payload, its id and its expiry.
#[repr(C)]
#[derive(Debug)]
pub struct mrtr_opened {
    /// The sealed bytes; free with `mrtr_buf_free(&opened.payload)`.
    pub payload: mrtr_buf,
    /// The state's id (its nonce) as lowercase hex, NUL-terminated: the key
    /// of a single-use store, or of the stored answer of a replayed final round.
    pub state_id: [c_char; MRTR_STATE_ID_TEXT_BYTES],
    /// When the state expires, seconds since the Unix epoch.
    pub expiry: u64,
}

/// Opens `token` for `*binding` at `now`. With a guard (`first_use` not
/// NULL, called with `user`) the state is single-use: a state the guard has
/// seen is `state-replayed` (the guard is asked last, so a token refused for
/// another reason is not used up). `*out` is the payload, the state id and
/// the expiry; or the call fails with exactly one of `state-too-large`,
/// `state-malformed` (bytes that are not base64url, not UTF-8 ones included;
/// a version 1 token), `state-unknown-key`, `state-tampered` (another
/// deployment label too), `state-expired`, `state-wrong-subject`,
/// `state-wrong-request`, `state-replayed`, and `*out` is empty
/// (`{NULL, 0}`, `""`, 0).
///
/// # Safety
/// `ring` is a live ring; `token` is valid for `token_len` bytes; `binding`
/// is readable with valid strings; `first_use` is NULL or a function that
/// may be called with `user`; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_open(
    ring: *const mrtr_keyring,
    token: *const c_char,
    token_len: usize,
    binding: *const mrtr_binding,
    now: u64,
    first_use: mrtr_first_use,
    user: *mut c_void,
    out: *mut mrtr_opened,
) -> mrtr_status {
    guard(|| {
        let empty = mrtr_opened { payload: mrtr_buf::EMPTY, state_id: [0; MRTR_STATE_ID_TEXT_BYTES], expiry: 0 };
        // SAFETY: the caller promises `out` is writable.
        unsafe { write(out, empty, "out") }?;
        // SAFETY: the caller's contract, passed on.
        let (token, b) = unsafe { (required(token, token_len, "token")?, read_binding(binding)?) };
        let mut guard = CGuard::of(first_use, user);
        // SAFETY: the caller's contract.
        let ring = unsafe { reading(ring) }?;
        let opened = match guard.as_mut() {
            Some(guard) => ring.open_once(token, &b, mrtr::Millis::from_secs(now), guard)?,
            None => ring.open(token, &b, mrtr::Millis::from_secs(now))?,
        };
        let done = mrtr_opened {
            payload: mrtr_buf::from_vec(opened.payload),
            state_id: id_text(&opened.id),
            expiry: opened.expiry,
        };
        // SAFETY: checked non-null above; the caller promises it is writable.
        unsafe { out.write(done) };
        Ok(())
    })
}

/// What anyone can read off a token without a key (nothing of it is
/// authenticated until the token opens).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_token_info {
    /// The state's id as lowercase hex, NUL-terminated.
    pub state_id: [c_char; MRTR_STATE_ID_TEXT_BYTES],
    /// The key id it names.
    pub key_id: u8,
    /// The algorithm it names (`MRTR_ALG_*`).
    pub algorithm: mrtr_algorithm,
    /// Its expiry, seconds since the Unix epoch.
    pub expiry: u64,
}

/// Reads the public part of `token` (`state-malformed` when it is not a
/// version 2 token): how a host finds the stored answer of a replayed final
/// round, or logs a state without opening it.
///
/// # Safety
/// `token` is valid for `token_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_inspect(
    token: *const c_char,
    token_len: usize,
    out: *mut mrtr_token_info,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let info = state::inspect(unsafe { required(token, token_len, "token") }?)?;
        let info = mrtr_token_info {
            state_id: id_text(&info.id),
            key_id: info.key_id,
            algorithm: mrtr_algorithm::from(info.algorithm as u8),
            expiry: info.expiry,
        };
        // SAFETY: the caller promises `out` is writable.
        unsafe { write(out, info, "out") }
    })
}

/// Frees a ring (its key material is zeroized). NULL is a no-op.
/// `usage-out-of-turn` (and the ring stays) from inside its own replay guard.
///
/// # Safety
/// `ring` is NULL or a live ring, in use by no other thread and not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_free(ring: *mut mrtr_keyring) -> mrtr_status {
    guard(|| {
        if held(ring).is_some() {
            return Err(out_of_turn());
        }
        // SAFETY: the caller's contract.
        unsafe { handles::free(ring) }
    })
}
