//! Security review I3: a replay guard that calls back into the ring whose
//! call is running it. Each body runs on its own thread and the test waits
//! for it with a timeout, so a deadlock fails the test instead of hanging it.

use super::*;
use crate::status::{mrtr_last_error_code, MRTR_OK};
use crate::tables::{mrtr_protocol, MRTR_ALG_AES_256_GCM, MRTR_ALG_XCHACHA20_POLY1305, MRTR_PROTOCOL_2026_07_28};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

const OUT_OF_TURN: mrtr_status = RuleId::UsageOutOfTurn as mrtr_status;

/// Runs `body` on a thread: its result, or a failure naming the deadlock after 20 seconds.
fn within_time<T: Send + 'static>(body: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(body());
    });
    match rx.recv_timeout(Duration::from_secs(20)) {
        Ok(out) => out,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("deadlock: the call never returned"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the body panicked (its message is above)"),
    }
}

const SUBJECT: &str = "alice";
const METHOD: &str = "tools/call";
const TARGET: &str = "t";
const PROTOCOL: mrtr_protocol = MRTR_PROTOCOL_2026_07_28;

fn binding() -> mrtr_binding {
    mrtr_binding {
        subject: SUBJECT.as_ptr().cast(),
        subject_len: SUBJECT.len(),
        anonymous: false,
        protocol: PROTOCOL,
        method: METHOD.as_ptr().cast(),
        method_len: METHOD.len(),
        target: TARGET.as_ptr().cast(),
        target_len: TARGET.len(),
        params_digest: [7; 32],
    }
}

/// A live ring's address, to cross into a thread (the ring is `Sync`: its lock).
#[derive(Clone, Copy)]
struct Ring(usize);

impl Ring {
    fn new(secret: u8) -> Ring {
        let mut ring = std::ptr::null_mut();
        // SAFETY: the secret is 32 readable bytes; `ring` is writable.
        let status = unsafe { mrtr_keyring_new(1, MRTR_ALG_AES_256_GCM, [secret; 32].as_ptr(), 32, &mut ring) };
        assert_eq!(status, MRTR_OK);
        Ring(ring as usize)
    }

    fn ptr(self) -> *mut mrtr_keyring {
        self.0 as *mut mrtr_keyring
    }

    fn seal(self) -> Vec<u8> {
        let b = binding();
        let mut out = mrtr_buf::EMPTY;
        // SAFETY: a live ring, a binding with valid strings, an empty payload, a writable buffer.
        let status = unsafe { mrtr_keyring_seal(self.ptr(), &b, 1000, 60, std::ptr::null(), 0, &mut out) };
        assert_eq!(status, MRTR_OK);
        // SAFETY: a buffer this library filled holds `len` bytes.
        let token = unsafe { std::slice::from_raw_parts(out.ptr, out.len) }.to_vec();
        // SAFETY: a buffer this library filled, freed once.
        unsafe { crate::buf::mrtr_buf_free(&mut out) };
        token
    }

    /// Opens `token` under `first_use` with `user`: the status.
    fn open(self, token: &[u8], first_use: mrtr_first_use, user: *mut c_void) -> mrtr_status {
        let b = binding();
        let mut opened = mrtr_opened { payload: mrtr_buf::EMPTY, state_id: [0; MRTR_STATE_ID_TEXT_BYTES], expiry: 0 };
        // SAFETY: a live ring, a token valid for its length, a binding with valid strings, a guard callable
        // with `user`, a writable `opened`.
        let status = unsafe {
            mrtr_keyring_open(self.ptr(), token.as_ptr().cast(), token.len(), &b, 1001, first_use, user, &mut opened)
        };
        // SAFETY: a buffer this library filled (or left empty), freed once.
        unsafe { crate::buf::mrtr_buf_free(&mut opened.payload) };
        status
    }

    fn free(self) {
        // SAFETY: a live ring, used by no one else now.
        assert_eq!(unsafe { mrtr_keyring_free(self.ptr()) }, MRTR_OK);
    }
}

/// What the guard saw when it called back into its ring.
#[derive(Debug, Default)]
struct Inside {
    ring: usize,
    writes: Vec<mrtr_status>,
    seals: Option<(mrtr_status, u64)>,
    sealed: Option<mrtr_status>,
    /// Set when a thread is to be waiting for the write lock meanwhile.
    writer_waiting: Option<mpsc::Sender<()>>,
}

/// A guard that tries to rotate and free the ring that is running it, then reads it; first use always.
unsafe extern "C" fn rotating_guard(user: *mut c_void, _id: *const c_char, _expiry: u64) -> bool {
    // SAFETY: the tests pass a live `Inside`, used by nothing else during the call.
    let inside = unsafe { &mut *user.cast::<Inside>() };
    let ring = inside.ring as *mut mrtr_keyring;
    if let Some(start) = inside.writer_waiting.take() {
        // Let a writer queue up behind this thread's read lock (std's lock then holds back new readers).
        let _ = start.send(());
        thread::sleep(Duration::from_millis(200));
    }
    let secret = [9u8; 32];
    // SAFETY: a live ring, a 32-byte secret; `usage-out-of-turn` is expected, not the write lock.
    inside.writes = unsafe {
        vec![
            mrtr_keyring_add(ring, 2, MRTR_ALG_XCHACHA20_POLY1305, secret.as_ptr(), 32),
            mrtr_keyring_set_current(ring, 1),
            mrtr_keyring_remove(ring, 1),
            mrtr_keyring_set_max_token_bytes(ring, 1),
            mrtr_keyring_set_context(ring, std::ptr::null(), 0),
            mrtr_keyring_set_seal_budget(ring, 0),
            mrtr_keyring_free(ring),
        ]
    };
    let mut seals = 0;
    // SAFETY: a live ring and a writable count.
    inside.seals = Some((unsafe { mrtr_keyring_seals(ring, 1, &mut seals) }, seals));
    let b = binding();
    let mut out = mrtr_buf::EMPTY;
    // SAFETY: a live ring, a binding with valid strings, an empty payload, a writable buffer.
    inside.sealed = Some(unsafe { mrtr_keyring_seal(ring, &b, 1000, 60, std::ptr::null(), 0, &mut out) });
    // SAFETY: a buffer this library filled, freed once.
    unsafe { crate::buf::mrtr_buf_free(&mut out) };
    true
}

#[test]
fn a_guard_that_rotates_its_ring_is_refused_and_the_open_completes() {
    let (ring, inside, opened, after) = within_time(|| {
        let ring = Ring::new(31);
        let token = ring.seal();
        let mut inside = Inside { ring: ring.0, ..Inside::default() };
        let opened = ring.open(&token, Some(rotating_guard), (&mut inside as *mut Inside).cast());
        let after = mrtr_last_error_code();
        (ring, inside, opened, after)
    });
    assert_eq!(opened, MRTR_OK, "the open completes normally");
    assert_eq!(after, MRTR_OK, "and the thread's last error is its own");
    assert_eq!(inside.writes, [OUT_OF_TURN; 7], "every change, and the free, is out of turn inside the guard");
    assert_eq!(inside.seals, Some((MRTR_OK, 1)), "reading the ring shares the lock the open holds");
    assert_eq!(inside.sealed, Some(MRTR_OK));
    // Nothing changed (key 2 is absent; the bound, the budget and the current key let it seal), and once
    // the open has returned the ring changes again.
    let token = within_time(move || {
        let mut seals = 0;
        // SAFETY: a live ring and a writable count.
        assert_eq!(unsafe { mrtr_keyring_seals(ring.ptr(), 2, &mut seals) }, RuleId::UsageInvalidArgument as i32);
        let token = ring.seal();
        // SAFETY: a live ring, a 32-byte secret.
        let added = unsafe { mrtr_keyring_add(ring.ptr(), 2, MRTR_ALG_XCHACHA20_POLY1305, [9; 32].as_ptr(), 32) };
        assert_eq!(added, MRTR_OK);
        token
    });
    assert_eq!(within_time(move || ring.open(&token, None, std::ptr::null_mut())), MRTR_OK);
    ring.free();
}

#[test]
fn a_guard_reading_its_ring_while_a_writer_waits_does_not_deadlock() {
    let ring = Ring::new(32);
    let token = ring.seal();
    let (start, started) = mpsc::channel();
    let writer = thread::spawn(move || {
        started.recv().unwrap();
        // SAFETY: a live ring: waits for the open's read lock, then takes the write lock.
        unsafe { mrtr_keyring_set_max_token_bytes(ring.ptr(), 4096) }
    });
    let (opened, inside) = within_time(move || {
        let mut inside = Inside { ring: ring.0, writer_waiting: Some(start), ..Inside::default() };
        let opened = ring.open(&token, Some(rotating_guard), (&mut inside as *mut Inside).cast());
        (opened, inside)
    });
    assert_eq!(opened, MRTR_OK);
    assert_eq!(inside.seals, Some((MRTR_OK, 1)));
    assert_eq!(inside.sealed, Some(MRTR_OK));
    assert_eq!(within_time(move || writer.join().unwrap()), MRTR_OK, "the other thread's change went through after");
    ring.free();
}

#[test]
fn the_mark_is_per_ring_and_per_thread_and_is_gone_after_the_call() {
    // A guard of one ring may change another ring.
    unsafe extern "C" fn rotates_other(user: *mut c_void, _id: *const c_char, _expiry: u64) -> bool {
        // SAFETY: the test passes a live ring's address.
        let other = user as *mut mrtr_keyring;
        // SAFETY: a live ring, a 32-byte secret.
        unsafe { mrtr_keyring_add(other, 2, MRTR_ALG_XCHACHA20_POLY1305, [5; 32].as_ptr(), 32) == MRTR_OK }
    }
    within_time(|| {
        let (ring, other) = (Ring::new(33), Ring::new(34));
        let token = ring.seal();
        assert_eq!(ring.open(&token, Some(rotates_other), other.ptr().cast()), MRTR_OK);
        assert!(HELD.with(|h| h.borrow().is_empty()), "no ring is marked once the call returned");
        // SAFETY: a live ring.
        assert_eq!(unsafe { mrtr_keyring_set_current(other.ptr(), 2) }, MRTR_OK, "the other ring did change");
        ring.free();
        other.free();
    });
}

#[test]
fn a_panic_while_the_ring_is_read_clears_its_mark() {
    within_time(|| {
        let ring = Ring::new(35);
        let caught = std::panic::catch_unwind(|| {
            // SAFETY: a live ring.
            let _read = unsafe { reading(ring.ptr()) }.unwrap();
            assert!(held(ring.ptr()).is_some());
            panic!("a panic while the read lock is held (expected by this test)");
        });
        assert!(caught.is_err());
        assert!(held(ring.ptr()).is_none(), "the unwind dropped the mark with the lock");
        // SAFETY: a live ring.
        assert_eq!(unsafe { mrtr_keyring_set_max_token_bytes(ring.ptr(), 4096) }, MRTR_OK);
        ring.free();
    });
}
