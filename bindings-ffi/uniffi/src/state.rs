//! Sealed `requestState`: the key ring as an object, the binding as a record.

use crate::error::{guard, read, usage, write, Result};
use mrtr::state::{self, Key};
use mrtr::{facade, Limits, Protocol};
use std::sync::{Arc, RwLock};
use zeroize::Zeroizing;

/// What a token is bound to, checked when it is opened.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Binding {
    /// The authenticated principal (empty for an anonymous one).
    pub subject: String,
    /// The protocol of the conversation (`2026-07-28`, …).
    pub protocol: String,
    /// The request's method.
    pub method: String,
    /// The tool or prompt name, or the resource URI.
    pub target: String,
    /// SHA-256 of the salient params: 32 bytes from [`params_digest`].
    pub params_digest: Vec<u8>,
}

impl Binding {
    fn core(&self) -> Result<state::Binding<'_>> {
        let digest = self.params_digest.as_slice().try_into().map_err(|_| usage("params_digest is 32 bytes"))?;
        let (subject, method, target) = (&self.subject, &self.method, &self.target);
        Ok(state::Binding {
            subject,
            protocol: Protocol::parse(&self.protocol)?,
            method,
            target,
            params_digest: digest,
        })
    }
}

/// SHA-256 of the canonical JSON of `salient_json` (keys sorted, no spaces):
/// key order and formatting never change it.
#[uniffi::export]
pub fn params_digest(salient_json: String) -> Result<Vec<u8>> {
    guard(|| Ok(facade::params_digest(salient_json.as_bytes())?.to_vec()))
}

/// The binding of `request_json` for `subject`: its method, its target
/// (`params.name` or `params.uri`) and the digest of its `arguments` (absent reads as `{}`).
#[uniffi::export]
pub fn binding_for_request(request_json: String, subject: String, protocol: String) -> Result<Binding> {
    guard(|| {
        let request = mrtr::parse(request_json.as_bytes(), &Limits::DEFAULT)?;
        let b = state::Binding::for_request(&request, &subject, Protocol::parse(&protocol)?)?;
        let (subject, method, target, params_digest) =
            (b.subject.into(), b.method.into(), b.target.into(), b.params_digest);
        Ok(Binding { subject, protocol, method, target, params_digest: params_digest.to_vec() })
    })
}

/// The core's key: `id`, an algorithm name, exactly one of a 32-byte `secret` or a `master` to derive it from.
fn key(id: u8, algorithm: &str, secret: Option<Vec<u8>>, master: Option<Vec<u8>>) -> Result<Key> {
    let (secret, master) = (secret.map(Zeroizing::new), master.map(Zeroizing::new));
    Ok(facade::key(id.into(), algorithm, secret.as_deref().map(Vec::as_slice), master.as_deref().map(Vec::as_slice))?)
}

/// Sealing keys by id (AES-256-GCM or XChaCha20-Poly1305): seals with the
/// current key and opens with any it holds, so rotation never breaks a round
/// in flight. Key material stays in Rust and is wiped on drop. Sealing and
/// opening may run on many threads at once.
#[derive(uniffi::Object)]
pub struct KeyRing {
    inner: RwLock<state::KeyRing>,
}

#[uniffi::export]
impl KeyRing {
    /// A ring whose current (sealing) key is `id`, for `algorithm`
    /// (`aes-256-gcm`, `xchacha20-poly1305`), from 32 secret bytes.
    #[uniffi::constructor]
    pub fn new(id: u8, algorithm: String, secret: Vec<u8>) -> Result<Arc<KeyRing>> {
        guard(|| {
            Ok(Arc::new(KeyRing { inner: RwLock::new(state::KeyRing::new(key(id, &algorithm, Some(secret), None)?)) }))
        })
    }

    /// A ring whose current key is derived from one master secret and the id (HKDF-SHA-256).
    #[uniffi::constructor]
    pub fn derived(id: u8, algorithm: String, master: Vec<u8>) -> Result<Arc<KeyRing>> {
        guard(|| {
            Ok(Arc::new(KeyRing { inner: RwLock::new(state::KeyRing::new(key(id, &algorithm, None, Some(master))?)) }))
        })
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    pub fn add(&self, id: u8, algorithm: String, secret: Vec<u8>) -> Result<()> {
        guard(|| {
            let key = key(id, &algorithm, Some(secret), None)?;
            write(&self.inner).map(|mut r| r.add(key))
        })
    }

    /// Adds a key derived from a master secret (see [`KeyRing::derived`]).
    pub fn add_derived(&self, id: u8, algorithm: String, master: Vec<u8>) -> Result<()> {
        guard(|| {
            let key = key(id, &algorithm, None, Some(master))?;
            write(&self.inner).map(|mut r| r.add(key))
        })
    }

    /// Makes the key `id` the sealing key; false if the ring lacks it.
    pub fn set_current(&self, id: u8) -> Result<bool> {
        guard(|| Ok(write(&self.inner)?.set_current(id)))
    }

    /// Drops the key `id` (never the current one): its tokens become `state-unknown-key`.
    pub fn remove(&self, id: u8) -> Result<bool> {
        guard(|| Ok(write(&self.inner)?.remove(id)))
    }

    /// The bound on a token's length (default 65536), checked before decoding.
    pub fn set_max_token_bytes(&self, max: u64) -> Result<()> {
        guard(|| write(&self.inner).map(|mut r| r.set_max_token_bytes(usize::try_from(max).unwrap_or(usize::MAX))))
    }

    /// Seals `payload` bound to `binding`, expiring `ttl` seconds after `now`
    /// (seconds since the Unix epoch), with a nonce from the OS's random numbers.
    pub fn seal(&self, binding: Binding, now: u64, ttl: u32, payload: Vec<u8>) -> Result<String> {
        guard(|| Ok(read(&self.inner)?.seal_os(&binding.core()?, now, ttl, &payload)?))
    }

    /// Seals with an explicit nonce: for test vectors only (reusing a nonce
    /// under one key breaks AES-GCM).
    pub fn seal_with_nonce(
        &self,
        binding: Binding,
        now: u64,
        ttl: u32,
        payload: Vec<u8>,
        nonce: Vec<u8>,
    ) -> Result<String> {
        guard(|| Ok(read(&self.inner)?.seal_with_nonce(&binding.core()?, now, ttl, &payload, &nonce)?))
    }

    /// Opens `token` for `binding` at `now`: the payload, or exactly one of
    /// `state-too-large`, `state-malformed`, `state-unknown-key`,
    /// `state-tampered`, `state-expired`, `state-wrong-subject`, `state-wrong-request`.
    pub fn open(&self, token: String, binding: Binding, now: u64) -> Result<Vec<u8>> {
        guard(|| Ok(read(&self.inner)?.open(token, &binding.core()?, now)?))
    }
}
