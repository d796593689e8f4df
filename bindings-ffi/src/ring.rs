//! The C shapes the key ring's rows leave to each binding: the replay guard
//! as a function pointer and its `void *user`, an opened token as a struct.
//! The ring, its lock and its refusal of a re-entering guard are the
//! façade's `KeyRing`; its exports are generated (`exports`).

#[cfg(test)]
mod tests;

use crate::buf::mrtr_buf;
use mrtr::state::{Opened, ReplayGuard, StateId};
use std::ffi::{c_char, c_void};

/// Bytes of a state id as text: 48 lowercase hex digits at most (a
/// 24-byte XAES-256-GCM or XChaCha20-Poly1305 nonce; 24 for AES-256-GCM), then a NUL.
pub const MRTR_STATE_ID_TEXT_BYTES: usize = 49;

/// A replay guard: records the first use of the state `state_id_hex` (lowercase hex, NUL-terminated,
/// valid during the call only) and returns true, or false when it was used before (the call then
/// fails with `state-replayed`). `expiry` (seconds since the Unix epoch) is when the store may forget
/// the id; `user` is the pointer given beside the guard. Behind a load balancer the store is shared
/// (Redis `SET id 1 NX EXAT expiry`). It runs while the call holds the ring's read lock: on the same
/// thread, changing or freeing that ring (`mrtr_keyring_add`, `_set_*`, `_remove`, `_free`) fails with
/// `usage-out-of-turn` rather than deadlocking, and reading it (`_seal`, `_open`, `_seals`, the rounds)
/// takes the read lock again, which never waits. The guard must not unwind or longjmp.
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

    /// The guard as the façade takes it.
    pub(crate) fn as_dyn(&mut self) -> &mut dyn ReplayGuard {
        self
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

impl mrtr_opened {
    /// What a failed open leaves in `*out`: `{NULL, 0}`, `""`, 0.
    pub(crate) const EMPTY: mrtr_opened =
        mrtr_opened { payload: mrtr_buf::EMPTY, state_id: [0; MRTR_STATE_ID_TEXT_BYTES], expiry: 0 };
}

impl From<Opened> for mrtr_opened {
    fn from(o: Opened) -> mrtr_opened {
        mrtr_opened { payload: mrtr_buf::from_vec(o.payload), state_id: id_text(&o.id), expiry: o.expiry }
    }
}

/// **Test vectors only** (built with the crate feature `test-vectors`,
/// declared with `MRTR_TEST_VECTORS`; the released library lacks it):
/// `mrtr_keyring_seal` with the caller's nonce (12 bytes for AES-256-GCM, 24
/// for XChaCha20-Poly1305 and XAES-256-GCM; else `state-malformed`). Reusing
/// a nonce under one AES-GCM key gives away its plaintexts and its forgery power.
///
/// # Safety
/// As `mrtr_keyring_seal`; `nonce` is valid for `nonce_len` bytes.
#[cfg(feature = "test-vectors")]
#[no_mangle]
pub unsafe extern "C" fn mrtr_keyring_seal_with_nonce(
    keyring: *const crate::exports::mrtr_keyring,
    binding: *const c_char,
    binding_len: usize,
    now: u64,
    ttl: u64,
    payload: *const u8,
    payload_len: usize,
    nonce: *const u8,
    nonce_len: usize,
    out: *mut mrtr_buf,
) -> crate::status::mrtr_status {
    use crate::args::{bytes, required};
    crate::status::guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, ring, b, payload, nonce) = unsafe {
            (
                crate::buf::Out::new(out)?,
                crate::handles::get(keyring, "keyring")?,
                required(binding, binding_len, "binding")?,
                bytes(payload, payload_len, "payload")?,
                required(nonce, nonce_len, "nonce")?,
            )
        };
        let ttl = u32::try_from(ttl).unwrap_or(u32::MAX);
        out.set(mrtr_facade::seal_with_nonce(&ring.0, b, now, ttl, payload, nonce)?);
        Ok(())
    })
}
