//! Sealed `requestState`: the key ring as an object, the binding as a record,
//! the replay guard as a callback interface.

use crate::error::{guard, read, usage, write, MrtrError, Result};
use crate::exports::ToolReplay;
use crate::ints::{long, unsigned};
use mrtr::state::{self, Key, StateId, Subject};
use mrtr::Protocol;
use mrtr_facade::{self as facade, BindingSpec};
use std::cell::RefCell;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};
use zeroize::Zeroizing;

/// What a token is bound to, checked when it is opened.
///
/// The subject is explicit: `subject`, the authenticated principal
/// (non-empty), or `anonymous` true and no subject. Neither, both, or an
/// empty subject is `usage-invalid-argument`, so a missing auth context never
/// binds as anonymous by accident. `params_digest` is [`params_digest`] of
/// the request's params (or comes with [`binding_for_request`],
/// [`binding_from_json`]); 32 zero bytes (a placeholder) are refused.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Binding {
    /// The authenticated principal; none only when `anonymous`.
    pub subject: Option<String>,
    /// No principal, by explicit choice: such a token opens for any anonymous
    /// caller, so it must carry nothing user-specific.
    pub anonymous: bool,
    /// The protocol of the conversation (`2026-07-28`, …).
    pub protocol: String,
    /// The request's method.
    pub method: String,
    /// What the method acts on: the tool or prompt name, the resource URI, the task id.
    pub target: String,
    /// SHA-256 of the request's params: 32 bytes from [`params_digest`].
    pub params_digest: Vec<u8>,
}

impl Binding {
    fn core(&self) -> Result<state::Binding<'_>> {
        let digest: [u8; 32] =
            self.params_digest.as_slice().try_into().map_err(|_| usage("params_digest is 32 bytes"))?;
        if digest == [0; 32] {
            return Err(usage("params_digest is unset (32 zero bytes): use params_digest() of the request's params"));
        }
        Ok(state::Binding {
            subject: facade::subject(self.subject.as_deref(), self.anonymous)?,
            protocol: Protocol::parse(&self.protocol)?,
            method: &self.method,
            target: &self.target,
            params_digest: digest,
        })
    }

    /// The record of a binding the core made.
    fn of(b: &state::Binding<'_>) -> Binding {
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
        Ok(Binding::of(&BindingSpec::from_json(json.as_bytes())?.binding()))
    })
}

/// A binding from its JSON text: `{"subject": "<principal>" | "anonymous":
/// true, "protocol", "method", "target", "params": {…} | "paramsDigest":
/// "<64 hex digits>"}`, the digest of `params` computed from its exact text.
#[uniffi::export]
pub fn binding_from_json(json: String) -> Result<Binding> {
    guard(|| Ok(Binding::of(&BindingSpec::from_json(json.as_bytes())?.binding())))
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
fn key_id(id: i32) -> Result<u8> {
    unsigned(id, "id")
}

/// The core's key: `id`, an algorithm name, exactly one of a 32-byte `secret` or a `master` to derive it from.
fn key(id: i32, algorithm: &str, secret: Option<Vec<u8>>, master: Option<Vec<u8>>) -> Result<Key> {
    let (secret, master) = (secret.map(Zeroizing::new), master.map(Zeroizing::new));
    Ok(facade::key(
        key_id(id)?.into(),
        algorithm,
        secret.as_deref().map(Vec::as_slice),
        master.as_deref().map(Vec::as_slice),
    )?)
}

/// Sealing keys by id (AES-256-GCM, XChaCha20-Poly1305 or XAES-256-GCM, the algorithm for
/// a fleet): seals with the current key and opens with any it holds, so
/// rotation never breaks a round in flight. Key material stays in Rust and is
/// wiped on drop. Sealing and opening take a read lock and run on many
/// threads at once; adding, rotating and the settings take the write lock.
#[derive(uniffi::Object)]
pub struct KeyRing {
    inner: RwLock<state::KeyRing>,
}

#[uniffi::export]
impl KeyRing {
    /// A ring whose current (sealing) key is `id`, for `algorithm`
    /// (`aes-256-gcm`, `xchacha20-poly1305`, `xaes-256-gcm`), from 32 uniformly random secret bytes.
    #[uniffi::constructor]
    pub fn new(id: i32, algorithm: String, secret: Vec<u8>) -> Result<Arc<KeyRing>> {
        guard(|| {
            Ok(Arc::new(KeyRing { inner: RwLock::new(state::KeyRing::new(key(id, &algorithm, Some(secret), None)?)) }))
        })
    }

    /// A ring whose current key is derived from one master secret (at least
    /// 32 uniformly random bytes, not a password) and the id (HKDF-SHA-256).
    #[uniffi::constructor]
    pub fn derived(id: i32, algorithm: String, master: Vec<u8>) -> Result<Arc<KeyRing>> {
        guard(|| {
            Ok(Arc::new(KeyRing { inner: RwLock::new(state::KeyRing::new(key(id, &algorithm, None, Some(master))?)) }))
        })
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    pub fn add(&self, id: i32, algorithm: String, secret: Vec<u8>) -> Result<()> {
        guard(|| {
            let key = key(id, &algorithm, Some(secret), None)?;
            self.writing().map(|mut r| r.add(key))
        })
    }

    /// Adds a key derived from a master secret (see [`KeyRing::derived`]).
    pub fn add_derived(&self, id: i32, algorithm: String, master: Vec<u8>) -> Result<()> {
        guard(|| {
            let key = key(id, &algorithm, None, Some(master))?;
            self.writing().map(|mut r| r.add(key))
        })
    }

    /// Makes the key `id` the sealing key; false if the ring lacks it.
    pub fn set_current(&self, id: i32) -> Result<bool> {
        guard(|| Ok(self.writing()?.set_current(key_id(id)?)))
    }

    /// Drops the key `id` (never the current one): its tokens become `state-unknown-key`.
    pub fn remove(&self, id: i32) -> Result<bool> {
        guard(|| Ok(self.writing()?.remove(key_id(id)?)))
    }

    /// The bound on a token's length (default 65536), checked before decoding.
    pub fn set_max_token_bytes(&self, max: i64) -> Result<()> {
        guard(|| {
            let max = usize::try_from(unsigned::<u64>(max, "max")?).unwrap_or(usize::MAX);
            self.writing().map(|mut r| r.set_max_token_bytes(max))
        })
    }

    /// The deployment label every token of this ring is sealed and opened
    /// under (at most 64 bytes; empty by default): staging and production,
    /// or two tenants, that share a secret never open each other's tokens
    /// (`state-tampered`).
    pub fn set_context(&self, label: Vec<u8>) -> Result<()> {
        guard(|| Ok(self.writing()?.set_context(&label)?))
    }

    /// How many seals each key of this ring may make in this process (this
    /// instance's share of the fleet's budget); past it, sealing is
    /// `usage-seal-budget-spent`: make another key current.
    pub fn set_seal_budget(&self, seals: i64) -> Result<()> {
        guard(|| {
            let seals = unsigned(seals, "seals")?;
            self.writing().map(|mut r| r.set_seal_budget(seals))
        })
    }

    /// How many seals the key `id` has made in this process (none if the ring lacks it).
    pub fn seals(&self, id: i32) -> Result<Option<i64>> {
        guard(|| Ok(self.ring()?.seals(key_id(id)?).map(long)))
    }

    /// Seals `payload` bound to `binding`, expiring `ttl` seconds after `now`
    /// (seconds since the Unix epoch), with a nonce from the OS's random numbers.
    pub fn seal(&self, binding: Binding, now: i64, ttl: i64, payload: Vec<u8>) -> Result<String> {
        guard(|| {
            let (now, ttl) = (unsigned(now, "now")?, unsigned(ttl, "ttl")?);
            Ok(self.ring()?.seal_os(&binding.core()?, now, ttl, &payload)?)
        })
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
        crate::error::guard(|| {
            let (ring, b, now) = (self.ring()?, binding.core()?, unsigned(now, "now")?);
            let _mark = Guarding::enter(self);
            let mut host = guard.as_deref().map(|host| HostGuard { host, raised: None });
            let opened = match host.as_mut() {
                Some(g) => ring.open_once(&token, &b, now, g),
                None => ring.open(&token, &b, now),
            };
            if let Some(raised) = host.and_then(|g| g.raised) {
                return Err(raised);
            }
            let opened = opened?;
            Ok(Opened { payload: opened.payload, state_id: opened.id.to_string(), expiry: long(opened.expiry) })
        })
    }

    /// Server, sealed rounds: reads `request_json` against `needs_json` (an
    /// `inputRequests` object): the answers it carries plus those earlier
    /// rounds sealed in its `requestState`, as the round's JSON (`{"answers",
    /// "missing", "ignored", "data", "round", "stateId", "expiry"}`).
    /// `settings_json` is the deployment's `{"ttl", "protocol", "limits",
    /// "pinAnswers"}`, `call_json` the request's `{"subject" | "anonymous",
    /// "now"}` (seconds); with a `guard`, a state used before is `state-replayed`.
    pub fn resume_round(
        &self,
        request_json: String,
        needs_json: String,
        settings_json: String,
        call_json: String,
        guard: Option<Box<dyn ReplayGuard>>,
    ) -> Result<String> {
        let (request, needs) = (request_json.as_bytes(), needs_json.as_bytes());
        let (settings, call) = (settings_json.as_bytes(), call_json.as_bytes());
        self.guarded(guard, |ring, g| facade::resume_round(ring, request, needs, settings, call, g))
    }

    /// Server, sealed rounds: the `input_required` response to `request_json`
    /// asking what `round_json` (as `resume_round` wrote it) still misses of
    /// `needs_json`, sealing the round with `data_json` (any JSON, or none)
    /// under a nonce from the operating system.
    pub fn respond_round(
        &self,
        request_json: String,
        round_json: String,
        needs_json: String,
        data_json: Option<String>,
        settings_json: String,
        call_json: String,
    ) -> Result<String> {
        guard(|| {
            let (request, round, needs) = (request_json.as_bytes(), round_json.as_bytes(), needs_json.as_bytes());
            let (data, settings, call) =
                (data_json.as_deref().map(str::as_bytes), settings_json.as_bytes(), call_json.as_bytes());
            let ring = self.ring()?;
            Ok(facade::respond_round(&ring, request, round, needs, data, settings, call, facade::Randomness::Os)?)
        })
    }

    /// Server, an await-style tool: the replay of the tool on `request_json`
    /// (settings and call as in `resume_round`), its questions asked again in
    /// the tool's order with `ToolReplay.ask`.
    pub fn start_tool_replay(
        &self,
        request_json: String,
        settings_json: String,
        call_json: String,
        guard: Option<Box<dyn ReplayGuard>>,
    ) -> Result<Arc<ToolReplay>> {
        let (request, settings, call) = (request_json.as_bytes(), settings_json.as_bytes(), call_json.as_bytes());
        let replay = self.guarded(guard, |ring, g| facade::ToolReplay::start(ring, request, settings, call, g))?;
        Ok(Arc::new(ToolReplay { inner: Mutex::new(replay) }))
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
    pub(crate) fn ring(&self) -> Result<RwLockReadGuard<'_, state::KeyRing>> {
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
    fn writing(&self) -> Result<RwLockWriteGuard<'_, state::KeyRing>> {
        if Guarding::holds(self) {
            return Err(out_of_turn(
                "the ring's replay guard runs on this thread: change the ring after the call returns",
            ));
        }
        write(&self.inner)
    }

    /// Runs `f` on the ring under the host's replay guard, if any, under the
    /// panic boundary; an `MrtrError` the guard raised comes back as it was.
    fn guarded<T>(
        &self,
        host: Option<Box<dyn ReplayGuard>>,
        f: impl FnOnce(&state::KeyRing, Option<&mut dyn state::ReplayGuard>) -> mrtr::Result<T>,
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
            let (now, ttl) = (unsigned(now, "now")?, unsigned(ttl, "ttl")?);
            Ok(read(&self.inner)?.seal_with_nonce(&binding.core()?, now, ttl, &payload, &nonce)?)
        })
    }
}
