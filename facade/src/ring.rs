//! A ring of sealing keys as every binding holds it: [`state::KeyRing`]
//! behind a lock, with the façade's sealed-state calls as its methods, each
//! taking what a binding's table row passes (numbers as whole numbers,
//! bindings and settings as JSON text), so that its exports are generated
//! from the table like every other machine's.
//!
//! Every method takes `&self`: a ring is shared between threads. Sealing,
//! opening and the rounds take the read lock, so they run concurrently;
//! adding, rotating, removing and the settings take the write lock, so a
//! rotation while other threads open is safe (security review L9).
//!
//! A host's replay guard runs while its call holds the read lock (security
//! review I3). A guard that changed the ring would wait for itself forever;
//! so each thread remembers the rings whose read lock it holds, and a change
//! of one of them there (or its release) is `usage-out-of-turn`. A guard
//! that seals or opens with its ring takes the read lock again, which never
//! waits: the lock lets readers go first (with std's, a waiting writer goes
//! first, and a second read lock on a thread that holds one would wait
//! behind a writer waiting for the first). Without the standard library
//! (wasm, one thread) the lock is a `RefCell`, which refuses the same change.

use super::{key, open, respond_round, resume_round, seal, Randomness, ToolReplay};
use crate::kinds::*;
use alloc::string::String;
use mrtr::error::{Error, Result};
use mrtr::state::{self, Opened};
use mrtr::RuleId;
use mrtr_facade_macros::export;

/// Keys by id (AES-256-GCM, XChaCha20-Poly1305, XAES-256-GCM): the current seals, any opens.
///
/// A ring of sealing keys: seals with the current key, opens with any; safe to share between threads.
#[export(machine)]
pub struct KeyRing(lock::Lock);

/// A change of a ring (or its release) from inside a call that holds it.
fn out_of_turn() -> Error {
    Error::new(
        RuleId::UsageOutOfTurn,
        "the ring is in use by a call further up this thread (its replay guard is running): \
         change or free the ring after that call returns",
    )
}

#[cfg(feature = "std")]
mod lock {
    use super::out_of_turn;
    use core::cell::RefCell;
    use core::ops::{Deref, DerefMut};
    use mrtr::error::{Error, Result};
    use mrtr::state::KeyRing;
    use mrtr::RuleId;
    use std::sync::{Condvar, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
    use std::vec::Vec;

    /// The ring behind a read-write lock that lets readers go first: a
    /// writer takes the ring only once no reader holds it (`readers`, under
    /// the gate), and holds the gate meanwhile. So a writer never waits in
    /// the `RwLock` itself, and a second read lock on a thread that holds one
    /// never waits behind it.
    pub(super) struct Lock {
        ring: RwLock<KeyRing>,
        readers: Mutex<usize>,
        none_reading: Condvar,
    }

    impl Lock {
        pub(super) fn new(ring: KeyRing) -> Lock {
            Lock { ring: RwLock::new(ring), readers: Mutex::new(0), none_reading: Condvar::new() }
        }

        fn gate(&self) -> MutexGuard<'_, usize> {
            // The count is right whatever panicked: it changes in one statement.
            self.readers.lock().unwrap_or_else(PoisonError::into_inner)
        }
    }

    std::thread_local! {
        /// The rings (by address) whose read lock this thread holds, innermost last.
        static HELD: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
    }

    fn held(addr: usize) -> bool {
        // During the thread's teardown the list is gone, and no guard runs.
        HELD.try_with(|h| h.borrow().contains(&addr)).unwrap_or(false)
    }

    fn poisoned<E>(_: E) -> Error {
        Error::new(RuleId::InternalPanic, "the key ring panicked in an earlier call and is unusable: free it")
    }

    /// The ring, for sealing and opening: its read lock, counted and marked
    /// held on this thread until dropped (also when a panic unwinds).
    pub(crate) struct Reading<'a> {
        ring: Option<RwLockReadGuard<'a, KeyRing>>,
        lock: &'a Lock,
    }

    impl Deref for Reading<'_> {
        type Target = KeyRing;
        fn deref(&self) -> &KeyRing {
            self.ring.as_deref().unwrap_or_else(|| unreachable!("taken only when dropped"))
        }
    }

    impl Drop for Reading<'_> {
        fn drop(&mut self) {
            drop(self.ring.take());
            let addr = self.lock as *const Lock as usize;
            let _ = HELD.try_with(|h| {
                let mut h = h.borrow_mut();
                if let Some(i) = h.iter().rposition(|a| *a == addr) {
                    h.remove(i);
                }
            });
            let mut readers = self.lock.gate();
            *readers -= 1;
            if *readers == 0 {
                self.lock.none_reading.notify_all();
            }
        }
    }

    /// The ring, for changing it: the gate and the write lock.
    pub(crate) struct Writing<'a> {
        ring: RwLockWriteGuard<'a, KeyRing>,
        _gate: MutexGuard<'a, usize>,
    }

    impl Deref for Writing<'_> {
        type Target = KeyRing;
        fn deref(&self) -> &KeyRing {
            &self.ring
        }
    }

    impl DerefMut for Writing<'_> {
        fn deref_mut(&mut self) -> &mut KeyRing {
            &mut self.ring
        }
    }

    pub(super) fn reading(lock: &Lock) -> Result<Reading<'_>> {
        *lock.gate() += 1;
        let _ = HELD.try_with(|h| h.borrow_mut().push(lock as *const Lock as usize));
        // Counted first, so that no writer holds or waits for the ring meanwhile: this never waits.
        let mut reading = Reading { ring: None, lock };
        reading.ring = Some(lock.ring.read().map_err(poisoned)?);
        Ok(reading)
    }

    pub(super) fn writing(lock: &Lock) -> Result<Writing<'_>> {
        idle(lock)?;
        let gate = lock.none_reading.wait_while(lock.gate(), |readers| *readers > 0);
        let gate = gate.unwrap_or_else(PoisonError::into_inner);
        Ok(Writing { ring: lock.ring.write().map_err(poisoned)?, _gate: gate })
    }

    pub(super) fn idle(lock: &Lock) -> Result<()> {
        if held(lock as *const Lock as usize) {
            return Err(out_of_turn());
        }
        Ok(())
    }
}

#[cfg(not(feature = "std"))]
mod lock {
    use super::out_of_turn;
    use core::cell::{Ref, RefCell, RefMut};
    use mrtr::error::Result;
    use mrtr::state::KeyRing;

    /// The ring of one thread: shared while read, a change refused meanwhile.
    pub(super) type Lock = RefCell<KeyRing>;
    /// The ring, for sealing and opening.
    pub(crate) type Reading<'a> = Ref<'a, KeyRing>;
    /// The ring, for changing it.
    pub(crate) type Writing<'a> = RefMut<'a, KeyRing>;

    pub(super) fn reading(lock: &Lock) -> Result<Reading<'_>> {
        lock.try_borrow().map_err(|_| out_of_turn())
    }

    pub(super) fn writing(lock: &Lock) -> Result<Writing<'_>> {
        lock.try_borrow_mut().map_err(|_| out_of_turn())
    }

    pub(super) fn idle(lock: &Lock) -> Result<()> {
        lock.try_borrow_mut().map(drop).map_err(|_| out_of_turn())
    }
}

pub(crate) use lock::{Reading, Writing};

/// A key id as the ring reads it: ids above 255 name no key.
fn key_id(id: u64) -> Option<u8> {
    u8::try_from(id).ok()
}

impl KeyRing {
    /// The ring, for sealing and opening (the read lock; see the module's doc).
    pub(crate) fn reading(&self) -> Result<Reading<'_>> {
        lock::reading(&self.0)
    }

    /// The ring, for changing it (the write lock); `usage-out-of-turn` from
    /// inside a call that holds it on this thread.
    pub(crate) fn writing(&self) -> Result<Writing<'_>> {
        lock::writing(&self.0)
    }

    /// `usage-out-of-turn` when a call further up this thread holds the ring
    /// (its replay guard is running): a host checks it before freeing the ring.
    pub fn idle(&self) -> Result<()> {
        lock::idle(&self.0)
    }
}

impl KeyRing {
    /// A ring holding the key `id` (0–255) of `algorithm`, with exactly one of a 32-byte `secret` or a
    /// `master` secret (at least 32 uniformly random bytes) to derive it from; the key seals.
    #[export]
    pub fn new(id: KeyId, algorithm: &str, secret: OptRawBytes, master: OptRawBytes) -> Result<KeyRing> {
        Ok(KeyRing(lock::Lock::new(state::KeyRing::new(key(
            i64::try_from(id).unwrap_or(i64::MAX),
            algorithm,
            secret,
            master,
        )?))))
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    #[export]
    pub fn add(&self, id: KeyId, algorithm: &str, secret: OptRawBytes, master: OptRawBytes) -> Result<()> {
        self.writing()?.add(key(i64::try_from(id).unwrap_or(i64::MAX), algorithm, secret, master)?);
        Ok(())
    }

    /// Makes the key `id` the sealing key; false when the ring lacks it.
    #[export]
    pub fn set_current(&self, id: KeyId) -> Result<bool> {
        let mut ring = self.writing()?;
        Ok(key_id(id).is_some_and(|i| ring.set_current(i)))
    }

    /// Drops the key `id` (not the current one); false when it could not.
    #[export]
    pub fn remove(&self, id: KeyId) -> Result<bool> {
        let mut ring = self.writing()?;
        Ok(key_id(id).is_some_and(|i| ring.remove(i)))
    }

    /// The bound on a token's length, checked before any decoding.
    #[export]
    pub fn set_max_token_bytes(&self, max: Whole) -> Result<()> {
        self.writing()?.set_max_token_bytes(usize::try_from(max).unwrap_or(usize::MAX));
        Ok(())
    }

    /// The deployment label every token is sealed and opened under (at most 64 bytes).
    #[export]
    pub fn set_context(&self, label: RawBytes) -> Result<()> {
        self.writing()?.set_context(label)
    }

    /// How many seals each key may make in this process.
    #[export]
    pub fn set_seal_budget(&self, seals: Whole) -> Result<()> {
        self.writing()?.set_seal_budget(seals);
        Ok(())
    }

    /// How many seals the key `id` has made in this process, or none when the ring lacks it.
    #[export]
    pub fn seals(&self, id: KeyId) -> Result<OptWhole> {
        let ring = self.reading()?;
        Ok(key_id(id).and_then(|i| ring.seals(i)))
    }

    /// Seals `payload` for `binding` (`{subject | anonymous: true, protocol, method, target, params |
    /// paramsDigest}`), expiring `ttl` seconds after `now` (seconds since the epoch), with a nonce from
    /// `random`: the token.
    ///
    /// [`seal`]: `payload` sealed for `binding` (JSON text), expiring `ttl` seconds after `now`.
    #[export(shapes(binding = Binding))]
    pub fn seal(
        &self,
        binding: JsonText,
        now: Whole,
        ttl: Whole,
        payload: RawBytes,
        random: Randomness<'_>,
    ) -> Result<String> {
        seal(&*self.reading()?, binding, now, u32::try_from(ttl).unwrap_or(u32::MAX), payload, random)
    }

    /// Opens `token` for `binding` at `now`, single-use under `guard` when there is one (a second use is
    /// `state-replayed`): its payload, state id and expiry.
    ///
    /// [`open`]: `token` opened for `binding` at `now`, single-use under `guard`.
    #[export(shapes(binding = Binding))]
    pub fn open(&self, token: RawBytes, binding: JsonText, now: Whole, guard: Guard) -> Result<Opened> {
        open(&*self.reading()?, token, binding, now, guard)
    }

    /// A server's round with sealed state: this request's answers plus the sealed earlier ones for the
    /// deployment's `settings` (`{ttl, protocol, limits, pinAnswers, maxRounds}`) and the `call` (`{subject
    /// | anonymous: true, now}`), single-use under `guard`: `{answers, missing, ignored, data, round,
    /// stateId, expiry}`.
    ///
    /// [`resume_round`]: this request's answers plus the sealed earlier ones, as JSON text.
    #[export]
    pub fn resume_round(
        &self,
        request: JsonText,
        needs: JsonText,
        settings: JsonText,
        call: JsonText,
        guard: Guard,
    ) -> Result<JsonString> {
        resume_round(&*self.reading()?, request, needs, settings, call, guard)
    }

    /// The `input_required` response asking what `round` misses of `needs`, sealing what it has (and
    /// `data`) with a nonce from `random`.
    ///
    /// [`respond_round`]: the `input_required` response asking what `round` misses, as JSON text.
    #[allow(clippy::too_many_arguments)]
    #[export]
    pub fn respond_round(
        &self,
        request: JsonText,
        round: JsonText,
        needs: JsonText,
        data: OptJsonText,
        settings: JsonText,
        call: JsonText,
        random: Randomness<'_>,
    ) -> Result<JsonString> {
        respond_round(&*self.reading()?, request, round, needs, data, settings, call, random)
    }

    /// The replay of an await-style tool on `request` for the deployment's `settings` and the `call`,
    /// single-use under `guard`.
    ///
    /// [`ToolReplay::start`]: the replay of an await-style tool on `request`.
    #[export]
    pub fn start_tool_replay(
        &self,
        request: JsonText,
        settings: JsonText,
        call: JsonText,
        guard: Guard,
    ) -> Result<ToolReplay> {
        ToolReplay::start(&*self.reading()?, request, settings, call, guard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr::state::{ReplayGuard, StateId};

    const BINDING: &[u8] = br#"{"subject":"alice","method":"tools/call","target":"t","params":{"name":"t"}}"#;

    fn ring() -> KeyRing {
        KeyRing::new(1, "xchacha20-poly1305", Some(&[5; 32]), None).unwrap()
    }

    /// A guard that changes, then reads, the ring running it.
    struct Reentrant<'a> {
        ring: &'a KeyRing,
        changes: alloc::vec::Vec<Result<()>>,
        read: Option<Result<OptWhole>>,
    }

    impl ReplayGuard for Reentrant<'_> {
        fn first_use(&mut self, _: &StateId, _: u64) -> bool {
            self.changes = alloc::vec![
                self.ring.add(2, "aes-256-gcm", Some(&[6; 32]), None),
                self.ring.set_current(1).map(drop),
                self.ring.set_seal_budget(5),
                self.ring.idle(),
            ];
            self.read = Some(self.ring.seals(1));
            true
        }
    }

    #[test]
    fn a_guard_that_changes_its_ring_is_out_of_turn_and_may_read_it() {
        let ring = ring();
        let token = ring.seal(BINDING, 1000, 60, b"p", Randomness::Bytes(&[9; 32])).unwrap();
        let mut guard = Reentrant { ring: &ring, changes: alloc::vec![], read: None };
        assert!(ring.open(token.as_bytes(), BINDING, 1001, Some(&mut guard)).is_ok());
        assert_eq!(guard.changes.len(), 4);
        assert!(guard.changes.iter().all(|c| c.as_ref().is_err_and(|e| e.rule() == RuleId::UsageOutOfTurn)));
        assert_eq!(guard.read, Some(Ok(Some(1))));
        // Once the open returned, the ring changes again.
        assert!(ring.idle().is_ok());
        assert_eq!(ring.add(2, "aes-256-gcm", Some(&[6; 32]), None), Ok(()));
        assert_eq!(ring.set_current(2), Ok(true));
    }

    #[cfg(feature = "std")]
    #[test]
    fn a_panic_while_the_ring_is_read_clears_its_mark() {
        let ring = ring();
        let caught = std::panic::catch_unwind(core::panic::AssertUnwindSafe(|| {
            let _read = ring.reading().unwrap();
            assert!(ring.idle().is_err());
            panic!("a panic while the read lock is held (expected by this test)");
        }));
        assert!(caught.is_err());
        assert!(ring.idle().is_ok(), "the unwind dropped the mark with the lock");
        assert_eq!(ring.set_max_token_bytes(4096), Ok(()));
    }
}
