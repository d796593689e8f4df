//! Security review I3: a replay guard that calls back into the ring whose
//! call is running it (the façade's `KeyRing` refuses a change there and
//! lets a read through). Each body runs on its own thread and the test
//! waits for it with a timeout, so a deadlock fails the test instead of
//! hanging it.

use super::*;
use crate::exports::{
    mrtr_keyring, mrtr_keyring_add, mrtr_keyring_free, mrtr_keyring_new, mrtr_keyring_open, mrtr_keyring_remove,
    mrtr_keyring_seal, mrtr_keyring_seals, mrtr_keyring_set_context, mrtr_keyring_set_current,
    mrtr_keyring_set_max_token_bytes, mrtr_keyring_set_seal_budget,
};
use crate::status::{mrtr_last_error_code, mrtr_status, MRTR_OK};
use mrtr::RuleId;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

const OUT_OF_TURN: mrtr_status = RuleId::UsageOutOfTurn as mrtr_status;
const BINDING: &str = r#"{"subject":"alice","protocol":"2026-07-28","method":"tools/call","target":"t","paramsDigest":"0707070707070707070707070707070707070707070707070707070707070707"}"#;
const AES: &str = "aes-256-gcm";
const XCHACHA: &str = "xchacha20-poly1305";

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

/// Adds the key `id` of `alg` from `secret` to `ring`: the status.
///
/// # Safety
/// `ring` is a live ring.
unsafe fn add(ring: *mut mrtr_keyring, id: u8, alg: &str, secret: u8) -> mrtr_status {
    let secret = [secret; 32];
    // SAFETY: the caller's live ring; the name and the secret are valid for their lengths.
    unsafe { mrtr_keyring_add(ring, id, alg.as_ptr().cast(), alg.len(), secret.as_ptr(), 32, std::ptr::null(), 0) }
}

/// Whether a `bool`-answering change of `ring` went through: its status, and the answer.
fn changed(call: impl FnOnce(*mut bool) -> mrtr_status) -> mrtr_status {
    let mut done = false;
    let status = call(&mut done);
    if status == MRTR_OK && !done {
        RuleId::UsageInvalidArgument as mrtr_status
    } else {
        status
    }
}

/// A live ring's address, to cross into a thread (the ring is `Sync`: its lock).
#[derive(Clone, Copy)]
struct Ring(usize);

impl Ring {
    fn new(secret: u8) -> Ring {
        let mut ring = std::ptr::null_mut();
        let secret = [secret; 32];
        // SAFETY: the name and the secret are valid for their lengths; `ring` is writable.
        let status = unsafe {
            mrtr_keyring_new(1, AES.as_ptr().cast(), AES.len(), secret.as_ptr(), 32, std::ptr::null(), 0, &mut ring)
        };
        assert_eq!(status, MRTR_OK);
        Ring(ring as usize)
    }

    fn ptr(self) -> *mut mrtr_keyring {
        self.0 as *mut mrtr_keyring
    }

    fn seal(self) -> Vec<u8> {
        let mut out = mrtr_buf::EMPTY;
        // SAFETY: a live ring, a binding valid for its length, an empty payload, a writable buffer.
        let status = unsafe {
            mrtr_keyring_seal(
                self.ptr(),
                BINDING.as_ptr().cast(),
                BINDING.len(),
                1000,
                60,
                std::ptr::null(),
                0,
                &mut out,
            )
        };
        assert_eq!(status, MRTR_OK);
        // SAFETY: a buffer this library filled holds `len` bytes.
        let token = unsafe { std::slice::from_raw_parts(out.ptr, out.len) }.to_vec();
        // SAFETY: a buffer this library filled, freed once.
        unsafe { crate::buf::mrtr_buf_free(&mut out) };
        token
    }

    /// Opens `token` under `first_use` with `user`: the status.
    fn open(self, token: &[u8], first_use: mrtr_first_use, user: *mut c_void) -> mrtr_status {
        let mut opened = mrtr_opened { payload: mrtr_buf::EMPTY, state_id: [0; MRTR_STATE_ID_TEXT_BYTES], expiry: 0 };
        // SAFETY: a live ring, a token and a binding valid for their lengths, a guard callable with `user`, a
        // writable `opened`.
        let status = unsafe {
            let b = (BINDING.as_ptr().cast(), BINDING.len());
            mrtr_keyring_open(self.ptr(), token.as_ptr(), token.len(), b.0, b.1, 1001, first_use, user, &mut opened)
        };
        // SAFETY: a buffer this library filled (or left empty), freed once.
        unsafe { crate::buf::mrtr_buf_free(&mut opened.payload) };
        status
    }

    /// The seals of key `id`: the status and the count.
    fn seals(self, id: u8) -> (mrtr_status, u64) {
        let (mut set, mut seals) = (false, 0);
        // SAFETY: a live ring and writable outputs.
        let status = unsafe { mrtr_keyring_seals(self.ptr(), id, &mut set, &mut seals) };
        (if status == MRTR_OK && !set { RuleId::UsageInvalidArgument as mrtr_status } else { status }, seals)
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
    let ring = Ring(inside.ring);
    if let Some(start) = inside.writer_waiting.take() {
        // Let a writer queue up behind this thread's read lock.
        let _ = start.send(());
        thread::sleep(Duration::from_millis(200));
    }
    let p = ring.ptr();
    // SAFETY: a live ring; `usage-out-of-turn` is expected, not the write lock.
    inside.writes = unsafe {
        vec![
            add(p, 2, XCHACHA, 9),
            changed(|out| mrtr_keyring_set_current(p, 1, out)),
            changed(|out| mrtr_keyring_remove(p, 1, out)),
            mrtr_keyring_set_max_token_bytes(p, 1),
            mrtr_keyring_set_context(p, std::ptr::null(), 0),
            mrtr_keyring_set_seal_budget(p, 0),
            mrtr_keyring_free(p),
        ]
    };
    inside.seals = Some(ring.seals(1));
    let mut out = mrtr_buf::EMPTY;
    // SAFETY: a live ring, a binding valid for its length, an empty payload, a writable buffer.
    inside.sealed = Some(unsafe {
        mrtr_keyring_seal(p, BINDING.as_ptr().cast(), BINDING.len(), 1000, 60, std::ptr::null(), 0, &mut out)
    });
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
    assert_eq!(inside.seals, Some((MRTR_OK, 1)), "reading the ring inside its guard works");
    assert_eq!(inside.sealed, Some(MRTR_OK));
    // Nothing changed (key 2 is absent; the bound, the budget and the current key let it seal), and once
    // the open has returned the ring changes again.
    let token = within_time(move || {
        assert_eq!(ring.seals(2).0, RuleId::UsageInvalidArgument as i32);
        let token = ring.seal();
        // SAFETY: a live ring.
        assert_eq!(unsafe { add(ring.ptr(), 2, XCHACHA, 9) }, MRTR_OK);
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
    assert_eq!(inside.seals, Some((MRTR_OK, 1)), "the read inside the guard goes before the waiting writer");
    assert_eq!(inside.sealed, Some(MRTR_OK));
    assert_eq!(within_time(move || writer.join().unwrap()), MRTR_OK, "the other thread's change went through after");
    ring.free();
}

#[test]
fn the_mark_is_per_ring_and_per_thread_and_is_gone_after_the_call() {
    // A guard of one ring may change another ring.
    unsafe extern "C" fn rotates_other(user: *mut c_void, _id: *const c_char, _expiry: u64) -> bool {
        // SAFETY: the test passes a live ring's address.
        unsafe { add(user.cast(), 2, XCHACHA, 5) == MRTR_OK }
    }
    within_time(|| {
        let (ring, other) = (Ring::new(33), Ring::new(34));
        let token = ring.seal();
        assert_eq!(ring.open(&token, Some(rotates_other), other.ptr().cast()), MRTR_OK);
        // SAFETY: a live ring: changed on this thread once the call returned.
        assert_eq!(unsafe { add(ring.ptr(), 3, XCHACHA, 6) }, MRTR_OK, "no ring is marked once the call returned");
        // SAFETY: a live ring.
        assert_eq!(changed(|out| unsafe { mrtr_keyring_set_current(other.ptr(), 2, out) }), MRTR_OK);
        ring.free();
        other.free();
    });
}

#[test]
fn a_ring_is_shared_between_threads_sealing_and_rotating_at_once() {
    let ring = Ring::new(36);
    let token = ring.seal();
    let readers: Vec<_> = (0..4)
        .map(|_| {
            let token = token.clone();
            thread::spawn(move || (0..50).all(|_| ring.open(&token, None, std::ptr::null_mut()) == MRTR_OK))
        })
        .collect();
    // SAFETY: a live ring, changed while other threads open with it.
    let rotated = (0..50).all(|i| unsafe { add(ring.ptr(), 2 + (i % 3) as u8, XCHACHA, i as u8) } == MRTR_OK);
    assert!(rotated);
    assert!(within_time(move || readers.into_iter().all(|r| r.join().unwrap())));
    ring.free();
}
