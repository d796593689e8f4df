//! Sealed `requestState`: the key ring as an object, the binding as a record.

use crate::error::{guard, read, write, MrtrError, Result};
use crate::json::parse;
use crate::ops;
use mrtr::state::{self, Algorithm, Key};
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
    fn with_core<T>(&self, body: impl FnOnce(&state::Binding<'_>) -> Result<T>) -> Result<T> {
        let digest: [u8; 32] = self
            .params_digest
            .as_slice()
            .try_into()
            .map_err(|_| MrtrError::argument("params_digest is 32 bytes (SHA-256)"))?;
        let binding = state::Binding {
            subject: &self.subject,
            protocol: ops::protocol(&self.protocol)?,
            method: &self.method,
            target: &self.target,
            params_digest: digest,
        };
        body(&binding)
    }
}

/// SHA-256 of the canonical JSON of `salient_json` (keys sorted, no spaces):
/// key order and formatting never change it.
#[uniffi::export]
pub fn params_digest(salient_json: String) -> Result<Vec<u8>> {
    guard(|| Ok(state::params_digest(&parse(&salient_json, "salient params", &mrtr::Limits::default())?).to_vec()))
}

/// The binding of `request_json` for `subject`: its method, its target
/// (`params.name` or `params.uri`) and the digest of its `arguments` (absent reads as `{}`).
#[uniffi::export]
pub fn binding_for_request(request_json: String, subject: String, protocol: String) -> Result<Binding> {
    guard(|| {
        let request = parse(&request_json, "request", &mrtr::Limits::default())?;
        let b = state::Binding::for_request(&request, &subject, ops::protocol(&protocol)?);
        Ok(Binding {
            subject: b.subject.into(),
            protocol: b.protocol.name().into(),
            method: b.method.into(),
            target: b.target.into(),
            params_digest: b.params_digest.to_vec(),
        })
    })
}

fn algorithm(name: &str) -> Result<Algorithm> {
    Algorithm::from_name(name)
        .ok_or_else(|| MrtrError::argument(format!("unknown algorithm {name:?} (aes-256-gcm, xchacha20-poly1305)")))
}

fn key(id: u8, alg: &str, secret: Vec<u8>) -> Result<Key> {
    let secret = Zeroizing::new(secret);
    let bytes: Zeroizing<[u8; 32]> =
        Zeroizing::new(secret.as_slice().try_into().map_err(|_| MrtrError::argument("a secret is 32 bytes"))?);
    Ok(Key::new(id, algorithm(alg)?, &bytes))
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
        guard(|| Ok(Arc::new(KeyRing { inner: RwLock::new(state::KeyRing::new(key(id, &algorithm, secret)?)) })))
    }

    /// A ring whose current key is derived from one master secret and the id (HKDF-SHA-256).
    #[uniffi::constructor]
    pub fn derived(id: u8, algorithm: String, master: Vec<u8>) -> Result<Arc<KeyRing>> {
        guard(|| {
            let master = Zeroizing::new(master);
            let key = Key::derive(id, self::algorithm(&algorithm)?, &master);
            Ok(Arc::new(KeyRing { inner: RwLock::new(state::KeyRing::new(key)) }))
        })
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    pub fn add(&self, id: u8, algorithm: String, secret: Vec<u8>) -> Result<()> {
        guard(|| {
            let key = key(id, &algorithm, secret)?;
            write(&self.inner)?.add(key);
            Ok(())
        })
    }

    /// Adds a key derived from a master secret (see [`KeyRing::derived`]).
    pub fn add_derived(&self, id: u8, algorithm: String, master: Vec<u8>) -> Result<()> {
        guard(|| {
            let master = Zeroizing::new(master);
            let key = Key::derive(id, self::algorithm(&algorithm)?, &master);
            write(&self.inner)?.add(key);
            Ok(())
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
        guard(|| {
            write(&self.inner)?.set_max_token_bytes(usize::try_from(max).unwrap_or(usize::MAX));
            Ok(())
        })
    }

    /// Seals `payload` bound to `binding`, expiring `ttl` seconds after `now`
    /// (seconds since the Unix epoch), with a nonce from the OS's random numbers.
    pub fn seal(&self, binding: Binding, now: u64, ttl: u32, payload: Vec<u8>) -> Result<String> {
        guard(|| binding.with_core(|b| Ok(read(&self.inner)?.seal_os(b, now, ttl, &payload)?)))
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
        guard(|| binding.with_core(|b| Ok(read(&self.inner)?.seal_with_nonce(b, now, ttl, &payload, &nonce)?)))
    }

    /// Opens `token` for `binding` at `now`: the payload, or exactly one of
    /// `state-too-large`, `state-malformed`, `state-unknown-key`,
    /// `state-tampered`, `state-expired`, `state-wrong-subject`, `state-wrong-request`.
    pub fn open(&self, token: String, binding: Binding, now: u64) -> Result<Vec<u8>> {
        guard(|| binding.with_core(|b| Ok(read(&self.inner)?.open(&token, b, now)?)))
    }
}
