//! Sealed `requestState`: what is the binding's own around the table's key
//! ring (`crate::exports` has its rows and the `Binding` record): a key as a
//! secret or a master, the replay guard as a callback interface, the ring
//! under a read-write lock that the guard may call back into.

use crate::error::{guard, read, write, MrtrError, Result};
use crate::exports::Binding;
use crate::ints::{long, unsigned};
use crate::transport::json_of;
use mrtr::state::{self, StateId, Subject};
use mrtr_facade::{self as facade, BindingSpec};
use std::cell::RefCell;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};
use zeroize::Zeroizing;

/// The record of a binding the core made.
fn binding_of(b: &state::Binding<'_>) -> Binding {
    let (subject, anonymous) = match b.subject {
        Subject::Principal(p) => (Some(p.to_string()), false),
        Subject::Anonymous => (None, true),
    };
    Binding {
        subject,
        anonymous,
        protocol: b.protocol.name().into(),
        method: b.method.into(),
        target: b.target.into(),
        params_digest: b.params_digest.to_vec(),
    }
}

/// The binding of `request_json` (the request's raw JSON text) for a subject
/// (a principal, or `anonymous`): its method, the target the method names
/// (`params.name`, `params.uri`, `params.taskId`) and the exact digest of its params.
#[uniffi::export]
pub fn binding_for_request(
    request_json: String,
    subject: Option<String>,
    anonymous: bool,
    protocol: String,
) -> Result<Binding> {
    guard(|| {
        let json = facade::binding_for(request_json.as_bytes(), subject.as_deref(), anonymous, Some(&protocol))?;
        Ok(binding_of(&BindingSpec::from_json(json.as_bytes())?.binding()))
    })
}

/// A binding from its JSON text: `{"subject": "<principal>" | "anonymous":
/// true, "protocol", "method", "target", "params": {…} | "paramsDigest":
/// "<64 hex digits>"}`, the digest of `params` computed from its exact text.
#[uniffi::export]
pub fn binding_from_json(json: String) -> Result<Binding> {
    guard(|| Ok(binding_of(&BindingSpec::from_json(json.as_bytes())?.binding())))
}

/// A single-use store: makes each sealed state open once.
///
/// `first_use` records the state `state_id` (lowercase hex) and returns true
/// the first time, false after (the open then fails with `state-replayed`);
/// the store may forget the id after `expiry` (seconds since the Unix epoch).
/// Behind a load balancer the store is shared (Redis `SET id 1 NX EXAT
/// expiry`). An exception it throws fails the open (never opens the state)
/// and is raised from `open`: an `MrtrException`/`MrtrError` as it was
/// thrown, any other as `Usage` (`usage-invalid-argument`) naming it. It runs
/// while the ring's read lock is held: changing the ring from inside it is
/// `usage-out-of-turn` (rotate after the call returns), never a deadlock.
#[uniffi::export(callback_interface)]
pub trait ReplayGuard: Send + Sync {
    /// Records the use of `state_id`: true the first time, false after.
    fn first_use(&self, state_id: String, expiry: i64) -> Result<bool>;
}

/// The host's guard as the core's: an exception fails closed and is kept.
struct HostGuard<'a> {
    host: &'a dyn ReplayGuard,
    raised: Option<MrtrError>,
}

impl state::ReplayGuard for HostGuard<'_> {
    fn first_use(&mut self, id: &StateId, expiry: u64) -> bool {
        match self.host.first_use(id.to_string(), long(expiry)) {
            Ok(first) => first,
            Err(e) => {
                self.raised = Some(e);
                false
            }
        }
    }
}

/// A token that opened.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Opened {
    /// The sealed bytes.
    pub payload: Vec<u8>,
    /// The state's id (its nonce) as lowercase hex: the key of a single-use store.
    pub state_id: String,
    /// When the state expires, seconds since the Unix epoch.
    pub expiry: i64,
}

/// What anyone can read off a token without a key (nothing of it is
/// authenticated until the token opens).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct TokenInfo {
    /// The state's id as lowercase hex.
    pub state_id: String,
    /// The key id it names.
    pub key_id: i32,
    /// The algorithm it names (`aes-256-gcm`, `xchacha20-poly1305`, `xaes-256-gcm`).
    pub algorithm: String,
    /// Its expiry, seconds since the Unix epoch.
    pub expiry: i64,
}

/// Reads the public part of `token` (`state-malformed` when it is not a
/// version 2 token): how a host finds the stored answer of a replayed final
/// round, or logs a state without opening it.
#[uniffi::export]
pub fn inspect(token: String) -> Result<TokenInfo> {
    guard(|| {
        let info = state::inspect(&token)?;
        Ok(TokenInfo {
            state_id: info.id.to_string(),
            key_id: info.key_id.into(),
            algorithm: info.algorithm.name().into(),
            expiry: long(info.expiry),
        })
    })
}

/// A key id: one byte (0–255) in the token.
fn key_id(id: i32) -> Result<u64> {
    unsigned::<u8>(id, "id").map(u64::from)
}

/// Sealing keys by id (AES-256-GCM, XChaCha20-Poly1305 or XAES-256-GCM, the algorithm for
/// a fleet): seals with the current key and opens with any it holds, so
/// rotation never breaks a round in flight. Key material stays in Rust and is
/// wiped on drop. Sealing and opening take a read lock and run on many
/// threads at once; adding, rotating and the settings take the write lock.
/// Its methods but these, which take a key as a secret or a master, are the
/// table's rows (`crate::exports`).
#[derive(uniffi::Object)]
pub struct KeyRing {
    inner: RwLock<facade::KeyRing>,
}

/// A key's bytes as the façade takes them: its `(secret, master)`, one of them.
fn split(bytes: &[u8], derived: bool) -> (Option<&[u8]>, Option<&[u8]>) {
    if derived {
        (None, Some(bytes))
    } else {
        (Some(bytes), None)
    }
}

/// A ring of one key, from its secret or (`derived`) its master.
fn ring(id: i32, algorithm: &str, bytes: Vec<u8>, derived: bool) -> Result<Arc<KeyRing>> {
    let bytes = Zeroizing::new(bytes);
    let (secret, master) = split(&bytes, derived);
    let ring = facade::KeyRing::new(key_id(id)?, algorithm, secret, master)?;
    Ok(Arc::new(KeyRing { inner: RwLock::new(ring) }))
}

#[uniffi::export]
impl KeyRing {
    /// A ring whose current (sealing) key is `id`, for `algorithm`
    /// (`aes-256-gcm`, `xchacha20-poly1305`, `xaes-256-gcm`), from 32 uniformly random secret bytes.
    #[uniffi::constructor]
    pub fn new(id: i32, algorithm: String, secret: Vec<u8>) -> Result<Arc<KeyRing>> {
        guard(|| ring(id, &algorithm, secret, false))
    }

    /// A ring whose current key is derived from one master secret (at least
    /// 32 uniformly random bytes, not a password) and the id (HKDF-SHA-256).
    #[uniffi::constructor]
    pub fn derived(id: i32, algorithm: String, master: Vec<u8>) -> Result<Arc<KeyRing>> {
        guard(|| ring(id, &algorithm, master, true))
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    pub fn add(&self, id: i32, algorithm: String, secret: Vec<u8>) -> Result<()> {
        guard(|| self.add_key(id, &algorithm, secret, false))
    }

    /// Adds a key derived from a master secret (see [`KeyRing::derived`]).
    pub fn add_derived(&self, id: i32, algorithm: String, master: Vec<u8>) -> Result<()> {
        guard(|| self.add_key(id, &algorithm, master, true))
    }

    /// Opens `token` for `binding` at `now`: the payload, its state id and
    /// expiry, or exactly one of `state-too-large`, `state-malformed`,
    /// `state-unknown-key`, `state-tampered`, `state-expired`,
    /// `state-wrong-subject`, `state-wrong-request`, and with a `guard`
    /// `state-replayed` (the guard is asked last: a token refused for another
    /// reason is not used up). Without a guard a state opens again until it expires.
    pub fn open(
        &self,
        token: String,
        binding: Binding,
        now: i64,
        guard: Option<Box<dyn ReplayGuard>>,
    ) -> Result<Opened> {
        let (binding, now) = (json_of(&binding), unsigned(now, "now")?);
        let opened = self.guarded(guard, |ring, g| ring.open(token.as_bytes(), &binding, now, g))?;
        Ok(Opened { payload: opened.payload, state_id: opened.id.to_string(), expiry: long(opened.expiry) })
    }
}

thread_local! {
    /// The rings (by address) a call on this thread holds the read lock of
    /// while the host's replay guard runs (security review I3): the guard
    /// may call back into its ring, and taking the lock again would wait
    /// for itself.
    static GUARDING: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// The mark of one call that runs a replay guard under `ring`'s read lock,
/// taken off when it is dropped (a panic that unwinds included).
struct Guarding(usize);

impl Guarding {
    fn enter(ring: &KeyRing) -> Guarding {
        let addr = ring as *const KeyRing as usize;
        let _ = GUARDING.try_with(|g| g.borrow_mut().push(addr));
        Guarding(addr)
    }

    fn holds(ring: &KeyRing) -> bool {
        let addr = ring as *const KeyRing as usize;
        GUARDING.try_with(|g| g.borrow().contains(&addr)).unwrap_or(false)
    }
}

impl Drop for Guarding {
    fn drop(&mut self) {
        let _ = GUARDING.try_with(|g| {
            let mut g = g.borrow_mut();
            if let Some(i) = g.iter().rposition(|a| *a == self.0) {
                g.remove(i);
            }
        });
    }
}

/// A change of a ring from inside its own replay guard.
fn out_of_turn(message: &'static str) -> MrtrError {
    mrtr::Error::new(mrtr::RuleId::UsageOutOfTurn, message).into()
}

impl KeyRing {
    /// The ring, for sealing and opening (the read lock). From inside this
    /// ring's replay guard the lock is this thread's already: taken again
    /// only if no writer waits for it (std's lock lets a waiting writer go
    /// first, which would wait for this thread), else `usage-out-of-turn`.
    pub(crate) fn ring(&self) -> Result<RwLockReadGuard<'_, facade::KeyRing>> {
        if !Guarding::holds(self) {
            return read(&self.inner);
        }
        match self.inner.try_read() {
            Ok(ring) => Ok(ring),
            Err(TryLockError::WouldBlock) => Err(out_of_turn("the ring's replay guard runs on this thread and another thread waits to change the ring: use it after the call returns")),
            Err(TryLockError::Poisoned(e)) => Err(crate::error::poisoned(e)),
        }
    }

    /// The ring, for changing it (the write lock); `usage-out-of-turn` from
    /// inside its own replay guard.
    pub(crate) fn writing(&self) -> Result<RwLockWriteGuard<'_, facade::KeyRing>> {
        if Guarding::holds(self) {
            return Err(out_of_turn(
                "the ring's replay guard runs on this thread: change the ring after the call returns",
            ));
        }
        write(&self.inner)
    }

    /// Adds the key `id` from its secret or (`derived`) its master.
    fn add_key(&self, id: i32, algorithm: &str, bytes: Vec<u8>, derived: bool) -> Result<()> {
        let bytes = Zeroizing::new(bytes);
        let (secret, master) = split(&bytes, derived);
        Ok(self.writing()?.add(key_id(id)?, algorithm, secret, master)?)
    }

    /// Runs `f` on the ring under the host's replay guard, if any, under the
    /// panic boundary; an `MrtrError` the guard raised comes back as it was.
    pub(crate) fn guarded<T>(
        &self,
        host: Option<Box<dyn ReplayGuard>>,
        f: impl FnOnce(&facade::KeyRing, Option<&mut dyn state::ReplayGuard>) -> mrtr::Result<T>,
    ) -> Result<T> {
        guard(|| {
            let ring = self.ring()?;
            let _mark = Guarding::enter(self);
            let mut host = host.as_deref().map(|host| HostGuard { host, raised: None });
            let out = f(&ring, host.as_mut().map(|g| g as &mut dyn state::ReplayGuard));
            if let Some(raised) = host.and_then(|g| g.raised) {
                return Err(raised);
            }
            Ok(out?)
        })
    }
}

/// Test vectors only (crate feature `test-vectors`, which the tests and the
/// corpus runners enable and the shipped library and generated bindings lack).
#[cfg(feature = "test-vectors")]
#[uniffi::export]
impl KeyRing {
    /// **Test vectors only**: seals with the caller's `nonce` (12 bytes for
    /// AES-256-GCM, 24 for XChaCha20-Poly1305 and XAES-256-GCM). Reusing a nonce under one
    /// AES-GCM key gives away its plaintexts and its forgery power.
    #[doc(hidden)]
    pub fn test_only_seal_with_nonce(
        &self,
        binding: Binding,
        now: i64,
        ttl: i64,
        payload: Vec<u8>,
        nonce: Vec<u8>,
    ) -> Result<String> {
        guard(|| {
            let (now, ttl) = (unsigned::<u64>(now, "now")?, unsigned::<u32>(ttl, "ttl")?);
            Ok(facade::seal_with_nonce(&*read(&self.inner)?, &json_of(&binding), now, ttl, &payload, &nonce)?)
        })
    }
}
