//! Sealed `requestState`: confidentiality, integrity, binding, expiry and
//! single use.
//!
//! The client is an untrusted intermediary (001 "Server Behavior"): a server
//! must validate the state it gets back, and should bind it to the principal,
//! the originating request and a short expiry. [`KeyRing::seal`] does all of
//! that once, with RustCrypto's AEADs; [`KeyRing::open`] refuses a token with
//! exactly one `state-*` rule, and says nothing more. `SECURITY.md` holds the
//! threat model.
//!
//! # Token format (version 2)
//!
//! `base64url(header ‖ nonce ‖ AEAD(subject tag ‖ request tag ‖ payload))`,
//! without padding:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | `0x20 \| alg`: format version 2, algorithm (1 AES-256-GCM, 2 XChaCha20-Poly1305, 3 XAES-256-GCM) |
//! | 1 | key id |
//! | 4 | expiry, seconds since the Unix epoch, big-endian (`now`'s whole seconds `+ ttl` at sealing) |
//! | 12 / 24 | nonce, from the caller's random source: also the state's [`StateId`] |
//! | 8 | *encrypted* subject tag: HMAC-SHA-256(tag key, `"subject"`, principal) or (`"anonymous"`, ``), first 8 bytes |
//! | 8 | *encrypted* request tag: HMAC-SHA-256(tag key, `"request"`, protocol, method, target, params digest), first 8 bytes |
//! | n | the payload, encrypted |
//! | 16 | the AEAD tag |
//!
//! HMAC inputs are length-prefixed parts (each an 8-byte big-endian length,
//! then its bytes). The associated data is `header ‖ purpose ‖ context`: the
//! 6 header bytes, one byte saying what sealed the token (0 [`KeyRing::seal`],
//! 1 [`SealedRounds`](crate::round::SealedRounds)), and the ring's deployment
//! label ([`KeyRing::set_context`], empty by default). So every header field
//! is authenticated, a token of one purpose or deployment never opens as
//! another (`state-tampered`), and the binding tags travel encrypted: tokens
//! of one principal or one request look unrelated to anyone without the key,
//! and a token is no oracle for guessing another's arguments. Inside, the tags
//! still give the precise refusal (`state-wrong-subject` vs
//! `state-wrong-request`); 64 bits each is ample against an online guesser,
//! who cannot see them.
//!
//! The fixed overhead is 50 bytes with AES-256-GCM and 62 with
//! XChaCha20-Poly1305 or XAES-256-GCM, before base64. Version 1 tokens (mrtr 0.1, tags in
//! clear) are refused as `state-malformed`: a client holding one starts its
//! call again.
//!
//! # Keys
//!
//! Each [`Key`] is 32 caller bytes (or derived from one master secret of at
//! least [`MASTER_MIN_BYTES`] uniformly random bytes with [`Key::derive`]).
//! HKDF-SHA-256 (salt `"mrtr state v2"`) derives from them the AEAD key (info
//! `"aead" ‖ alg ‖ id`) and the tag key (info `"binding tags" ‖ alg ‖ id`). A
//! [`KeyRing`] seals with its current key and opens with any key it holds, so
//! rotating the current key never breaks a round in flight. Key material is
//! zeroized on drop and never appears in `Debug` or error text.
//!
//! # Nonces and the seal budget
//!
//! Every seal draws a fresh random nonce. AES-256-GCM's 96-bit random nonces
//! are safe for 2^32 seals per key (NIST SP 800-38D §8.3), counted across
//! every instance that shares the key; XChaCha20-Poly1305's 192-bit nonces
//! for about 2^80. XAES-256-GCM ([C2SP](https://c2sp.org/XAES-256-GCM)) has the
//! same 192-bit random nonces at close to AES-256-GCM's cost on machines with
//! AES instructions: it derives a key per message from the first half of the
//! nonce (two AES blocks under the key) and runs AES-256-GCM under it with the
//! second half. It is the recommended algorithm for a fleet;
//! XChaCha20-Poly1305 suits machines without AES instructions.
//! Each key counts its seals ([`KeyRing::seals`]) and refuses past its budget
//! (`usage-seal-budget-spent`): [`Algorithm::seal_budget`] by default, or an
//! instance's share of it ([`KeyRing::set_seal_budget`]). Rotate before then.
//!
//! With feature `std` the count belongs to the key material, process-wide:
//! every [`Key`] built from the same secret, algorithm and id shares one
//! counter, so rings built again from the same secret (a secrets reload, a
//! ring per worker or per request) do not restart it (security review I4).
//! Without `std` (`alloc` only) each [`Key`] object counts its own seals, and
//! a host that builds a key twice must add up the counts itself. Either way,
//! keep one long-lived ring per process.

mod binding;
mod canonical;
mod guard;
mod tags;

pub use binding::{
    params_digest, params_digest_json, params_digest_text, target_field, value_digest, Binding, Subject, UNBOUND_PARAMS,
};
pub(crate) use guard::spend;
pub use guard::{MemoryGuard, ReplayGuard, StateId};
pub(crate) use tags::{sealed::Tags as BindingTags, TagMemo};
pub use tags::{Binds, Bound};

use crate::base::error::{err, Result};
use crate::base::time::Millis;
use aes_gcm::{
    aead::{AeadInOut, KeyInit},
    Aes256Gcm,
};
use alloc::{string::String, vec::Vec};
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use chacha20poly1305::XChaCha20Poly1305;
use core::{fmt, sync::atomic::Ordering};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;
use xaes_256_gcm::Xaes256Gcm;
use zeroize::Zeroizing;

const VERSION: u8 = 0x20;
const HEADER: usize = 6;
pub(crate) const TAGS: usize = 16;
const AEAD_TAG: usize = 16;
/// The longest deployment label [`KeyRing::set_context`] takes.
pub const CONTEXT_MAX_BYTES: usize = 64;

/// Bytes a sealed token adds to its payload before base64: header, nonce,
/// binding tags, AEAD tag.
pub const fn overhead(alg: Algorithm) -> usize {
    HEADER + alg.nonce_len() + TAGS + AEAD_TAG
}

/// What sealed a token: part of the associated data, so a token never opens
/// for another purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// [`KeyRing::seal`]: the host's own bytes.
    Raw = 0,
    /// [`SealedRounds`](crate::round::SealedRounds): answers, round, data.
    Rounds = 1,
}

/// The AEAD a key seals with. `Algorithm as u8` is its code in the token
/// format (and the C ABI's `mrtr_algorithm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Algorithm {
    /// AES-256-GCM, 96-bit random nonces.
    Aes256Gcm = 1,
    /// XChaCha20-Poly1305, 192-bit random nonces.
    XChaCha20Poly1305 = 2,
    /// XAES-256-GCM (C2SP), 192-bit random nonces: the fleet default.
    Xaes256Gcm = 3,
}

impl Algorithm {
    /// Every algorithm.
    pub const ALL: [Algorithm; 3] = [Algorithm::Aes256Gcm, Algorithm::XChaCha20Poly1305, Algorithm::Xaes256Gcm];

    /// The nonce length in bytes.
    pub const fn nonce_len(self) -> usize {
        match self {
            Algorithm::Aes256Gcm => 12,
            Algorithm::XChaCha20Poly1305 | Algorithm::Xaes256Gcm => 24,
        }
    }

    /// The name callers use: `"aes-256-gcm"`, `"xchacha20-poly1305"`, `"xaes-256-gcm"`.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Aes256Gcm => "aes-256-gcm",
            Algorithm::XChaCha20Poly1305 => "xchacha20-poly1305",
            Algorithm::Xaes256Gcm => "xaes-256-gcm",
        }
    }

    /// The algorithm with this name.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name() == name)
    }

    /// How many seals one key of this algorithm makes before it must be
    /// retired, fleet-wide: 2^32 for AES-256-GCM's random 96-bit nonces
    /// (NIST SP 800-38D §8.3), 2^64 - 1 (no practical bound) for the
    /// 192-bit ones of XChaCha20-Poly1305 and XAES-256-GCM (about 2^80 each).
    pub const fn seal_budget(self) -> u64 {
        match self {
            Algorithm::Aes256Gcm => 1 << 32,
            Algorithm::XChaCha20Poly1305 | Algorithm::Xaes256Gcm => u64::MAX,
        }
    }

    /// The algorithm with this code in a token's first byte.
    const fn from_code(code: u8) -> Option<Algorithm> {
        match code {
            1 => Some(Algorithm::Aes256Gcm),
            2 => Some(Algorithm::XChaCha20Poly1305),
            3 => Some(Algorithm::Xaes256Gcm),
            _ => None,
        }
    }

    const fn code(self) -> u8 {
        self as u8
    }
}

enum Cipher {
    /// Boxed: the AES key schedule and GHASH tables are large.
    Aes(alloc::boxed::Box<Aes256Gcm>),
    XChaCha(XChaCha20Poly1305),
    /// Boxed for the same reason as AES-256-GCM.
    Xaes(alloc::boxed::Box<Xaes256Gcm>),
}

/// One sealing key: an id, an algorithm, and key material that never leaves it.
pub struct Key {
    id: u8,
    alg: Algorithm,
    cipher: Cipher,
    /// HMAC-SHA-256 keyed with the tag key (its pads already absorbed).
    tagger: Hmac<Sha256>,
    /// Seals made with this key in this process: with `std`, by every key of
    /// the same material (`counts`); without, by this object.
    seals: counts::Count,
}

/// The seal counts of the key materials this process has built (feature
/// `std`; security review I4).
///
/// One counter per key material, named by an HKDF-SHA-256 output of the
/// secret for this algorithm and id (info `"seal count" ‖ alg ‖ id`): a
/// one-way digest that tells keys apart without holding or revealing their
/// material, and is unrelated to the AEAD and tag keys. The table holds its
/// counters for the life of the process (strong references): a counter
/// dropped with the last ring of its key would restart at 0 when the ring is
/// built again, which is the failure this table exists to prevent. So it
/// grows by one entry (about 100 bytes) per distinct key material the
/// process ever builds, and never shrinks: bounded by the keys a deployment
/// configures, not by traffic. A host that builds keys from unbounded input
/// (a key per tenant from an open-ended set) pays that per key.
///
/// A process-wide counter keeps the core sans-IO: it is memory, no clock,
/// file, socket or randomness, and it counts exactly what the budget is
/// defined over, the seals this process made under a key. The lock is taken
/// only when a key is built; sealing touches the counter alone.
#[cfg(feature = "std")]
mod counts {
    use alloc::collections::BTreeMap;
    use core::sync::atomic::AtomicU64;
    use std::sync::{Arc, Mutex, PoisonError};

    /// A key's counter, shared with every key of the same material.
    pub(super) type Count = Arc<AtomicU64>;

    /// The counters by key material's name.
    static COUNTS: Mutex<BTreeMap<[u8; 32], Count>> = Mutex::new(BTreeMap::new());

    /// The counter of the key material named `name`.
    pub(super) fn count(name: [u8; 32]) -> Count {
        // A panic elsewhere while the table was held leaves it whole: every change is one insert.
        let mut counts = COUNTS.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(counts.entry(name).or_default())
    }
}

/// Without `std` each key object counts its own seals.
#[cfg(not(feature = "std"))]
mod counts {
    /// A key's own counter.
    pub(super) type Count = core::sync::atomic::AtomicU64;
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key").field("id", &self.id).field("alg", &self.alg).finish_non_exhaustive()
    }
}

/// The shortest master secret [`Key::derive`] takes: as many bytes as a key.
pub const MASTER_MIN_BYTES: usize = 32;

impl Key {
    /// A key from 32 secret bytes. HKDF-SHA-256 derives from them the AEAD
    /// key and the binding-tag key, each for this id and algorithm, so the
    /// same bytes never serve two purposes.
    pub fn new(id: u8, alg: Algorithm, secret: &[u8; 32]) -> Key {
        let hk = hkdf::Hkdf::<Sha256>::new(Some(b"mrtr state v2"), secret);
        let mut aead_key = Zeroizing::new([0u8; 32]);
        let mut tag_key = Zeroizing::new([0u8; 32]);
        let context = [alg.code(), id];
        // 32 bytes is far below HKDF-SHA-256's 8160-byte output bound.
        let _ = hk.expand_multi_info(&[b"aead", &context], aead_key.as_mut());
        let _ = hk.expand_multi_info(&[b"binding tags", &context], tag_key.as_mut());
        // Both ciphers take exactly 32-byte keys: these cannot fail.
        let cipher = match alg {
            Algorithm::Aes256Gcm => Cipher::Aes(alloc::boxed::Box::new(
                Aes256Gcm::new_from_slice(aead_key.as_ref()).unwrap_or_else(|_| unreachable!()),
            )),
            Algorithm::XChaCha20Poly1305 => {
                Cipher::XChaCha(XChaCha20Poly1305::new_from_slice(aead_key.as_ref()).unwrap_or_else(|_| unreachable!()))
            }
            Algorithm::Xaes256Gcm => Cipher::Xaes(alloc::boxed::Box::new(
                Xaes256Gcm::new_from_slice(aead_key.as_ref()).unwrap_or_else(|_| unreachable!()),
            )),
        };
        // HMAC takes a key of any length: this cannot fail.
        let tagger = <Hmac<Sha256> as KeyInit>::new_from_slice(tag_key.as_ref()).unwrap_or_else(|_| unreachable!());
        #[cfg(feature = "std")]
        let seals = {
            let mut name = [0u8; 32];
            let _ = hk.expand_multi_info(&[b"seal count", &context], &mut name);
            counts::count(name)
        };
        #[cfg(not(feature = "std"))]
        let seals = counts::Count::new(0);
        Key { id, alg, cipher, tagger, seals }
    }

    /// A key derived from one master secret and the key id (HKDF-SHA-256), so a
    /// deployment can rotate by id from a single secret.
    ///
    /// The master is a uniformly random secret of at least
    /// [`MASTER_MIN_BYTES`] bytes (from a CSPRNG or a secrets manager), not a
    /// password: HKDF does not stretch a guessable input, so a short or
    /// empty master would make every key computable by anyone. A shorter one
    /// is refused (`usage-invalid-argument`).
    pub fn derive(id: u8, alg: Algorithm, master: &[u8]) -> Result<Key> {
        if master.len() < MASTER_MIN_BYTES {
            return Err(err!(
                UsageInvalidArgument,
                "a master secret is at least 32 uniformly random bytes, not a password"
            ));
        }
        let hk = hkdf::Hkdf::<Sha256>::new(Some(b"mrtr state master v1"), master);
        let mut secret = Zeroizing::new([0u8; 32]);
        let _ = hk.expand(&[b'k', id], secret.as_mut());
        Ok(Key::new(id, alg, &secret))
    }

    /// The key id written in tokens.
    pub fn id(&self) -> u8 {
        self.id
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.alg
    }

    fn tag(&self, parts: &[&[u8]]) -> [u8; 8] {
        let mut mac = self.tagger.clone();
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        let full = mac.finalize().into_bytes();
        let mut tag = [0u8; 8];
        tag.copy_from_slice(&full[..8]);
        tag
    }

    /// The subject tag and the request tag of `b`, as sealed inside a token.
    pub(crate) fn binding_tags(&self, b: &Binding<'_>) -> [u8; TAGS] {
        let mut tags = [0u8; TAGS];
        tags[..8].copy_from_slice(&self.tag(&b.subject.tag_parts()));
        let request = [b"request", b.protocol.name().as_bytes(), b.method.as_bytes(), b.target.as_bytes()];
        tags[8..].copy_from_slice(&self.tag(&[request[0], request[1], request[2], request[3], &b.params_digest]));
        tags
    }

    /// Encrypts `buffer` in place; returns the 16-byte tag.
    fn encrypt(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<[u8; AEAD_TAG]> {
        let tag = match &self.cipher {
            Cipher::Aes(c) => c.encrypt_inout_detached(nonce.try_into().map_err(|_| bad_nonce())?, aad, buffer.into()),
            Cipher::XChaCha(c) => {
                c.encrypt_inout_detached(nonce.try_into().map_err(|_| bad_nonce())?, aad, buffer.into())
            }
            Cipher::Xaes(c) => c.encrypt_inout_detached(nonce.try_into().map_err(|_| bad_nonce())?, aad, buffer.into()),
        };
        let tag = tag.map_err(|_| err!(StateTooLarge, "the payload is too large to seal"))?;
        let mut out = [0u8; AEAD_TAG];
        out.copy_from_slice(&tag);
        Ok(out)
    }

    /// Decrypts `buffer` in place if `tag` authenticates it and `aad`.
    fn decrypt(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &[u8]) -> Result<()> {
        let opened = match &self.cipher {
            Cipher::Aes(c) => c.decrypt_inout_detached(
                nonce.try_into().map_err(|_| tampered())?,
                aad,
                buffer.into(),
                tag.try_into().map_err(|_| tampered())?,
            ),
            Cipher::XChaCha(c) => c.decrypt_inout_detached(
                nonce.try_into().map_err(|_| tampered())?,
                aad,
                buffer.into(),
                tag.try_into().map_err(|_| tampered())?,
            ),
            Cipher::Xaes(c) => c.decrypt_inout_detached(
                nonce.try_into().map_err(|_| tampered())?,
                aad,
                buffer.into(),
                tag.try_into().map_err(|_| tampered())?,
            ),
        };
        opened.map_err(|_| tampered())
    }
}

fn bad_nonce() -> crate::base::error::Error {
    err!(StateMalformed, "the nonce has the wrong length for the key's algorithm")
}

fn tampered() -> crate::base::error::Error {
    // The likeliest cause on a fleet is no attacker at all: say so.
    err!(
        StateTampered,
        "requestState failed its integrity check (altered, or another key or deployment label sealed it)"
    )
}

/// What anyone can read off a token without a key: nothing here is
/// authenticated until the token opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenInfo {
    /// The state's id (its nonce): the key of a host's single-use store.
    pub id: StateId,
    /// The key id it names.
    pub key_id: u8,
    /// The algorithm it names.
    pub algorithm: Algorithm,
    /// Its expiry, seconds since the Unix epoch.
    pub expiry: u64,
}

/// Reads the public part of `token` (`state-malformed` when it is not a
/// version 2 token): how a host finds the stored answer of a replayed final
/// round, or logs a state without opening it.
pub fn inspect(token: impl AsRef<[u8]>) -> Result<TokenInfo> {
    let bytes = Zeroizing::new(
        URL_SAFE_NO_PAD.decode(token.as_ref()).map_err(|_| err!(StateMalformed, "requestState is not base64url"))?,
    );
    read_info(&bytes)
}

fn read_info(bytes: &[u8]) -> Result<TokenInfo> {
    match bytes.first().map(|b| b & 0xF0) {
        Some(VERSION) if bytes.len() >= HEADER => {}
        Some(0x10) => {
            return Err(err!(StateMalformed, "requestState is a version 1 token (mrtr 0.1): start the call again"))
        }
        _ => return Err(err!(StateMalformed, "requestState is not a sealed state of a known format")),
    }
    let Some(algorithm) = Algorithm::from_code(bytes[0] & 0x0F) else {
        return Err(err!(StateMalformed, "requestState names no known algorithm"));
    };
    if bytes.len() < overhead(algorithm) {
        return Err(err!(StateMalformed, "requestState is too short"));
    }
    Ok(TokenInfo {
        id: StateId::new(&bytes[HEADER..HEADER + algorithm.nonce_len()]),
        key_id: bytes[1],
        algorithm,
        expiry: u64::from(u32::from_be_bytes([bytes[2], bytes[3], bytes[4], bytes[5]])),
    })
}

/// A token that opened: its payload, and what the host may keep of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opened {
    /// The sealed bytes.
    pub payload: Vec<u8>,
    /// The state's id, for a single-use store.
    pub id: StateId,
    /// When it expires, seconds since the Unix epoch.
    pub expiry: u64,
}

/// Keys by id: seals with the current one, opens with any.
///
/// Every method takes `&self` but the ones that change which keys it holds,
/// so one ring serves many threads; a host that rotates while others seal
/// and open puts it behind a read-write lock (the C and UniFFI rings do).
#[derive(Debug)]
pub struct KeyRing {
    keys: Vec<Key>,
    current: u8,
    max_token_bytes: usize,
    context: heapless::Vec<u8, CONTEXT_MAX_BYTES>,
    seal_budget: Option<u64>,
}

impl KeyRing {
    /// A ring holding `current`, which seals. Tokens over 64 KiB are refused.
    pub fn new(current: Key) -> KeyRing {
        KeyRing {
            current: current.id,
            keys: alloc::vec![current],
            max_token_bytes: 64 << 10,
            context: heapless::Vec::new(),
            seal_budget: None,
        }
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    pub fn add(&mut self, key: Key) {
        self.keys.retain(|k| k.id != key.id);
        self.keys.push(key);
    }

    /// Makes the key with `id` the sealing key; false if the ring lacks it.
    pub fn set_current(&mut self, id: u8) -> bool {
        let held = self.keys.iter().any(|k| k.id == id);
        if held {
            self.current = id;
        }
        held
    }

    /// Drops the key with `id` (not the current one): its tokens become
    /// `state-unknown-key`.
    pub fn remove(&mut self, id: u8) -> bool {
        let before = self.keys.len();
        if id != self.current {
            self.keys.retain(|k| k.id != id);
        }
        self.keys.len() != before
    }

    /// The bound on a token's length, checked before any decoding.
    pub fn set_max_token_bytes(&mut self, max: usize) {
        self.max_token_bytes = max;
    }

    /// The deployment label every token of this ring is sealed and opened
    /// under (at most [`CONTEXT_MAX_BYTES`]): staging and production, or two
    /// tenants, that share a master never open each other's tokens.
    pub fn set_context(&mut self, label: &[u8]) -> Result<()> {
        self.context = heapless::Vec::from_slice(label)
            .map_err(|_| err!(UsageInvalidArgument, "a deployment label is at most 64 bytes"))?;
        Ok(())
    }

    /// How many seals each key of this ring may make in this process: the
    /// instance's share of the fleet's budget. Without it, each key's
    /// [`Algorithm::seal_budget`]. With feature `std` the seals of every ring
    /// holding the same key material count against it (see
    /// [`seals`](KeyRing::seals)).
    pub fn set_seal_budget(&mut self, seals: u64) {
        self.seal_budget = Some(seals);
    }

    /// How many seals the key `id` has made in this process: with feature
    /// `std`, every key built from the same material, algorithm and id
    /// counts together, in any ring; without it, this ring's key object only.
    pub fn seals(&self, id: u8) -> Option<u64> {
        self.keys.iter().find(|k| k.id == id).map(|k| k.seals.load(Ordering::Relaxed))
    }

    fn current(&self) -> &Key {
        // `new` inserts the current key; `remove` never removes it.
        self.keys.iter().find(|k| k.id == self.current).unwrap_or(&self.keys[0])
    }

    /// Seals `payload`, bound to `binding`, expiring `ttl` seconds after `now`
    /// (the host's clock since the Unix epoch; the token holds its whole
    /// seconds), with a nonce from `rng`.
    pub fn seal<R: rand_core::CryptoRng + ?Sized>(
        &self,
        binding: &impl Binds,
        now: Millis,
        ttl: u32,
        payload: &[u8],
        rng: &mut R,
    ) -> Result<String> {
        self.seal_as(Purpose::Raw, binding, now, ttl, payload, rng)
    }

    pub(crate) fn seal_as<R: rand_core::CryptoRng + ?Sized>(
        &self,
        purpose: Purpose,
        binding: &impl Binds,
        now: Millis,
        ttl: u32,
        payload: &[u8],
        rng: &mut R,
    ) -> Result<String> {
        let mut nonce = [0u8; 24];
        let nonce = &mut nonce[..self.current().alg.nonce_len()];
        rng.fill_bytes(nonce);
        self.seal_nonce(purpose, binding, now, ttl, payload, nonce)
    }

    /// Seals with the operating system's random numbers.
    #[cfg(feature = "os-rng")]
    pub fn seal_os(&self, binding: &impl Binds, now: Millis, ttl: u32, payload: &[u8]) -> Result<String> {
        self.seal(binding, now, ttl, payload, &mut SeedRng::Os)
    }

    /// Seals with an explicit nonce: for test vectors only (feature
    /// `test-vectors`, which released packages leave off). Reusing a nonce
    /// under one AES-GCM key gives away its plaintexts and forgery power.
    #[cfg(feature = "test-vectors")]
    pub fn seal_with_nonce(
        &self,
        binding: &impl Binds,
        now: Millis,
        ttl: u32,
        payload: &[u8],
        nonce: &[u8],
    ) -> Result<String> {
        self.seal_nonce(Purpose::Raw, binding, now, ttl, payload, nonce)
    }

    fn seal_nonce(
        &self,
        purpose: Purpose,
        binding: &impl Binds,
        now: Millis,
        ttl: u32,
        payload: &[u8],
        nonce: &[u8],
    ) -> Result<String> {
        let key = self.current();
        if nonce.len() != key.alg.nonce_len() {
            return Err(bad_nonce());
        }
        let expiry = now.as_secs().saturating_add(u64::from(ttl));
        let Ok(expiry) = u32::try_from(expiry) else {
            return Err(err!(UsageInvalidArgument, "the expiry does not fit the token format (after 2106)"));
        };
        self.spend(key)?;
        let header = header(key, expiry);
        let start = HEADER + nonce.len();
        // Not zeroized: the plaintext is encrypted in place below, so the
        // buffer ends up holding only what the token shows anyone.
        let mut token = Vec::with_capacity(start + TAGS + payload.len() + AEAD_TAG);
        token.extend_from_slice(&header);
        token.extend_from_slice(nonce);
        token.extend_from_slice(&binding.tags(key));
        token.extend_from_slice(payload);
        let tag = key.encrypt(nonce, &self.aad(&header, purpose), &mut token[start..])?;
        token.extend_from_slice(&tag);
        let text = URL_SAFE_NO_PAD.encode(token.as_slice());
        if text.len() > self.max_token_bytes {
            return Err(err!(StateTooLarge, "the sealed state is over the bound of {} bytes", self.max_token_bytes));
        }
        Ok(text)
    }

    /// Counts a seal against the key's budget; refuses past it.
    fn spend(&self, key: &Key) -> Result<()> {
        let budget = self.seal_budget.unwrap_or(key.alg.seal_budget());
        if key.seals.fetch_add(1, Ordering::Relaxed) >= budget {
            key.seals.fetch_sub(1, Ordering::Relaxed);
            return Err(err!(
                UsageSealBudgetSpent,
                "key {} has made its {budget} seals: make another key current (SECURITY.md, nonces)",
                key.id
            ));
        }
        Ok(())
    }

    fn aad(&self, header: &[u8; HEADER], purpose: Purpose) -> heapless::Vec<u8, { HEADER + 1 + CONTEXT_MAX_BYTES }> {
        let mut aad = heapless::Vec::new();
        // Within capacity by construction: 6 + 1 + at most 64 bytes.
        let _ = aad.extend_from_slice(header);
        let _ = aad.push(purpose as u8);
        let _ = aad.extend_from_slice(&self.context);
        aad
    }

    /// Opens `token` for `binding` at `now`: the payload with its id and
    /// expiry, or exactly one of `state-too-large`, `state-malformed`,
    /// `state-unknown-key`, `state-tampered`, `state-expired`,
    /// `state-wrong-subject`, `state-wrong-request`.
    ///
    /// The token may be given as text or as raw bytes (as it came off the
    /// wire): bytes that are not base64url, non-UTF-8 ones included, are
    /// `state-malformed`, decided here once for every binding. Without a
    /// guard the same token opens again until it expires: see
    /// [`open_once`](KeyRing::open_once).
    pub fn open(&self, token: impl AsRef<[u8]>, binding: &impl Binds, now: Millis) -> Result<Opened> {
        self.open_as(Purpose::Raw, token.as_ref(), binding, now, None)
    }

    /// [`open`](KeyRing::open), then the `guard` records the state's first use:
    /// any later use is `state-replayed`.
    pub fn open_once(
        &self,
        token: impl AsRef<[u8]>,
        binding: &impl Binds,
        now: Millis,
        guard: &mut dyn ReplayGuard,
    ) -> Result<Opened> {
        self.open_as(Purpose::Raw, token.as_ref(), binding, now, Some(guard))
    }

    pub(crate) fn open_as(
        &self,
        purpose: Purpose,
        token: &[u8],
        binding: &impl Binds,
        now: Millis,
        guard: Option<&mut dyn ReplayGuard>,
    ) -> Result<Opened> {
        if token.len() > self.max_token_bytes {
            return Err(err!(StateTooLarge, "requestState is over the bound of {} bytes", self.max_token_bytes));
        }
        let mut bytes = Zeroizing::new(
            URL_SAFE_NO_PAD.decode(token).map_err(|_| err!(StateMalformed, "requestState is not base64url"))?,
        );
        let info = read_info(&bytes)?;
        let Some(key) = self.keys.iter().find(|k| k.id == info.key_id) else {
            return Err(err!(StateUnknownKey, "requestState was sealed under a key this server does not hold"));
        };
        if key.alg != info.algorithm {
            return Err(tampered());
        }
        let start = HEADER + info.algorithm.nonce_len();
        let end = bytes.len() - AEAD_TAG;
        let (head, rest) = bytes.split_at_mut(start);
        let (body, tag) = rest.split_at_mut(end - start);
        let header: [u8; HEADER] = head[..HEADER].try_into().unwrap_or([0; HEADER]);
        key.decrypt(&head[HEADER..], &self.aad(&header, purpose), body, tag)?;
        if now.as_secs() >= info.expiry {
            return Err(err!(StateExpired, "requestState has expired"));
        }
        let expected = binding.tags(key);
        if !bool::from(body[..8].ct_eq(&expected[..8])) {
            return Err(err!(StateWrongSubject, "requestState belongs to another principal"));
        }
        if !bool::from(body[8..TAGS].ct_eq(&expected[8..])) {
            return Err(err!(StateWrongRequest, "requestState was issued for another request"));
        }
        if let Some(guard) = guard {
            guard::spend(guard, &info.id, info.expiry)?;
        }
        let mut payload = core::mem::take(&mut *bytes);
        payload.truncate(end);
        payload.drain(..start + TAGS);
        Ok(Opened { payload, id: info.id, expiry: info.expiry })
    }
}

fn header(key: &Key, expiry: u32) -> [u8; HEADER] {
    let mut h = [0u8; HEADER];
    h[0] = VERSION | key.alg.code();
    h[1] = key.id;
    h[2..6].copy_from_slice(&expiry.to_be_bytes());
    h
}

/// Randomness a host hands to [`KeyRing::seal`]: bytes from its own CSPRNG
/// (a browser's `crypto.getRandomValues`), or, with feature `os-rng`, the
/// operating system's. One seal draws one nonce (at most 24 bytes), so
/// [`SeedRng::Bytes`] needs at least [`SeedRng::MIN_BYTES`].
#[derive(Debug)]
pub enum SeedRng<'a> {
    /// Caller-supplied random bytes, drawn in order, each at most once.
    Bytes(&'a [u8]),
    /// The operating system's random numbers.
    #[cfg(feature = "os-rng")]
    Os,
}

impl SeedRng<'_> {
    /// The fewest bytes [`SeedRng::Bytes`] must hold for one seal.
    pub const MIN_BYTES: usize = 24;
}

impl rand_core::TryRng for SeedRng<'_> {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> core::result::Result<u32, Self::Error> {
        let mut b = [0; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn try_next_u64(&mut self) -> core::result::Result<u64, Self::Error> {
        let mut b = [0; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> core::result::Result<(), Self::Error> {
        match self {
            SeedRng::Bytes(b) => {
                // Never reuse a byte: running dry is a bug in the caller's
                // bookkeeping (checked against MIN_BYTES before sealing), and
                // a panic here is caught at the binding's boundary.
                assert!(dest.len() <= b.len(), "the caller gave {} random bytes, {} needed", b.len(), dest.len());
                let (now, rest) = b.split_at(dest.len());
                dest.copy_from_slice(now);
                *b = rest;
            }
            #[cfg(feature = "os-rng")]
            SeedRng::Os => {
                getrandom::fill(dest).unwrap_or_else(|e| panic!("the operating system gave no random numbers: {e}"))
            }
        }
        Ok(())
    }
}

impl rand_core::TryCryptoRng for SeedRng<'_> {}

/// Unsealed state: base64url of the payload, still refused when it is not
/// base64url or too large. **Unsafe for anything user-specific**: the client
/// can read and rewrite it. For hosts whose state cannot cause harm (a
/// load-shedding cursor, a public computation).
pub mod unsealed {
    use super::*;

    /// Encodes `payload`.
    pub fn encode(payload: &[u8]) -> String {
        URL_SAFE_NO_PAD.encode(payload)
    }

    /// Decodes `token` (`state-too-large` over `max_bytes`, `state-malformed`
    /// when it is not base64url).
    pub fn decode(token: &str, max_bytes: usize) -> Result<Vec<u8>> {
        if token.len() > max_bytes {
            return Err(err!(StateTooLarge, "requestState is over the bound of {max_bytes} bytes"));
        }
        URL_SAFE_NO_PAD.decode(token).map_err(|_| err!(StateMalformed, "requestState is not base64url"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{base::protocol::Protocol, base::rules::RuleId};
    use serde_json::json;

    const ALICE: Subject<'static> = Subject::Principal("alice");

    fn call(args: serde_json::Value) -> serde_json::Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "weather", "arguments": args}})
    }

    fn ring() -> KeyRing {
        KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &[7; 32]))
    }

    fn rng(seed: u8) -> SeedRng<'static> {
        SeedRng::Bytes(match seed {
            0 => &[0; 24],
            1 => &[1; 24],
            _ => &[2; 24],
        })
    }

    fn rule<T: fmt::Debug>(r: Result<T>) -> RuleId {
        r.unwrap_err().rule()
    }

    #[test]
    fn round_trip_and_every_refusal() {
        let ring = ring();
        let req = call(json!({"city": "Paris"}));
        let alice = Binding::for_request(&req, ALICE, Protocol::default()).unwrap();
        let token = ring.seal(&alice, Millis::from_secs(1000), 60, b"hello", &mut rng(0)).unwrap();
        assert_eq!(URL_SAFE_NO_PAD.decode(&token).unwrap().len(), 5 + overhead(Algorithm::Aes256Gcm));
        let opened = ring.open(&token, &alice, Millis::from_secs(1059)).unwrap();
        assert_eq!((opened.payload.as_slice(), opened.expiry), (&b"hello"[..], 1060));
        assert_eq!(alloc::format!("{}", opened.id), "00".repeat(12), "the state id is the nonce");
        assert_eq!(ring.open(token.as_bytes(), &alice, Millis::from_secs(1059)).unwrap().payload, b"hello");
        assert_eq!(rule(ring.open(b"\xff\xfe", &alice, Millis::from_secs(1001))), RuleId::StateMalformed);
        assert_eq!(rule(ring.open(&token, &alice, Millis::from_secs(1060))), RuleId::StateExpired);
        let bob = Binding { subject: Subject::Principal("bob"), ..alice.clone() };
        assert_eq!(rule(ring.open(&token, &bob, Millis::from_secs(1001))), RuleId::StateWrongSubject);
        let other_req = call(json!({"city": "Rome"}));
        let other = Binding::for_request(&other_req, ALICE, Protocol::default()).unwrap();
        assert_eq!(rule(ring.open(&token, &other, Millis::from_secs(1001))), RuleId::StateWrongRequest);
        assert_eq!(rule(ring.open("!!", &alice, Millis::from_secs(1001))), RuleId::StateMalformed);
        let mut flipped = URL_SAFE_NO_PAD.decode(&token).unwrap();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(
            rule(ring.open(URL_SAFE_NO_PAD.encode(&flipped), &alice, Millis::from_secs(1001))),
            RuleId::StateTampered
        );
        let other_ring = KeyRing::new(Key::new(2, Algorithm::XChaCha20Poly1305, &[7; 32]));
        assert_eq!(rule(other_ring.open(&token, &alice, Millis::from_secs(1001))), RuleId::StateUnknownKey);
        let mut small = self::ring();
        small.set_max_token_bytes(10);
        assert_eq!(rule(small.open(&token, &alice, Millis::from_secs(1001))), RuleId::StateTooLarge);
        let info = inspect(&token).unwrap();
        assert_eq!((info.id, info.key_id, info.algorithm, info.expiry), (opened.id, 1, Algorithm::Aes256Gcm, 1060));
    }

    #[test]
    fn the_target_is_chosen_by_method_and_a_missing_one_is_refused() {
        let ring = ring();
        let read = |uri: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri, "name": "public"}});
        let (public, private) = (read("file:///public"), read("file:///private"));
        let b = Binding::for_request(&public, ALICE, Protocol::default()).unwrap();
        assert_eq!(b.target, "file:///public", "a resources/read is bound to its uri, not to a name beside it");
        let token = ring.seal(&b, Millis::from_secs(0), 60, b"consent", &mut rng(0)).unwrap();
        let moved = Binding::for_request(&private, ALICE, Protocol::default()).unwrap();
        assert_eq!(rule(ring.open(&token, &moved, Millis::from_secs(1))), RuleId::StateWrongRequest);

        let result =
            |task: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/result", "params": {"taskId": task}});
        let (a, b) = (result("task-a"), result("task-b"));
        let bound = Binding::for_request(&a, ALICE, Protocol::Sep2322).unwrap();
        let token = ring.seal(&bound, Millis::from_secs(0), 60, b"a", &mut rng(1)).unwrap();
        let other = Binding::for_request(&b, ALICE, Protocol::Sep2322).unwrap();
        assert_eq!(rule(ring.open(&token, &other, Millis::from_secs(1))), RuleId::StateWrongRequest);

        let refused = |request: serde_json::Value| rule(Binding::for_request(&request, ALICE, Protocol::default()));
        assert_eq!(refused(json!({"method": "tools/call", "params": {"uri": "x"}})), RuleId::JsonrpcInvalid);
        assert_eq!(refused(json!({"method": "tools/call", "params": {"name": 7}})), RuleId::JsonrpcInvalid);
        assert_eq!(refused(json!({"method": "ping", "params": {"name": "x"}})), RuleId::InputRequiredMethodNotAllowed);
    }

    #[test]
    fn every_param_but_the_retry_carriers_is_bound() {
        let digest = |params: serde_json::Value| params_digest(&params);
        let base = digest(json!({"name": "t", "arguments": {"a": 1}}));
        // A param beside `arguments` (a task request, a newer param) is bound too.
        assert_ne!(base, digest(json!({"name": "t", "arguments": {"a": 1}, "task": {"ttl": 60}})));
        assert_ne!(base, digest(json!({"name": "u", "arguments": {"a": 1}})));
        // The retry's carriers and metadata are not.
        let carriers = json!({"name": "t", "arguments": {"a": 1}, "inputResponses": {"k": {}}, "requestState": "s",
                               "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}});
        assert_eq!(base, digest(carriers));
        // Key order and spacing never change it.
        let text =
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{ "arguments": {"a": 1.0}, "name": "t" }}"#;
        assert_eq!(base, params_digest_text(text).unwrap());
    }

    #[test]
    fn numbers_bind_by_their_exact_value() {
        // Security review L1: 10**20 and 10**20 + 1 are one f64, and would bind alike.
        let request = |n: &str| {
            alloc::format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"pay","arguments":{{"amount":{n}}}}}}}"#
            )
        };
        let (a, b) = (request("100000000000000000000"), request("100000000000000000001"));
        let (va, vb): (serde_json::Value, serde_json::Value) =
            (serde_json::from_str(&a).unwrap(), serde_json::from_str(&b).unwrap());
        assert_eq!(va, vb, "serde_json's Value cannot tell them apart");
        let bind = |v, text: &str| {
            Binding::for_request(v, ALICE, Protocol::default()).unwrap().with_exact_digest(text.as_bytes())
        };
        let (ba, bb) = (bind(&va, &a).unwrap(), bind(&vb, &b).unwrap());
        let ring = ring();
        let token = ring.seal(&ba, Millis::from_secs(0), 60, b"ok", &mut rng(0)).unwrap();
        assert_eq!(rule(ring.open(&token, &bb, Millis::from_secs(1))), RuleId::StateWrongRequest);
        assert!(
            ring.open(&token, &bind(&va, &request("1e20")).unwrap(), Millis::from_secs(1)).is_ok(),
            "equal values bind alike"
        );
        // The one-step constructor digests the text as the two steps do, and only the text.
        assert_eq!(Binding::for_request_text(&va, a.as_bytes(), ALICE, Protocol::default()).unwrap(), ba);
        assert_eq!(Binding::for_request_text(&va, b.as_bytes(), ALICE, Protocol::default()).unwrap(), bb);
        let not_a_request = Binding::for_request_text(&va, b"[", ALICE, Protocol::default());
        assert_eq!(rule(not_a_request), RuleId::JsonrpcParseError);
    }

    #[test]
    fn the_tags_travel_encrypted_so_tokens_do_not_link() {
        // Security review L2: v1 tokens of one principal shared 8 clear bytes, of one request 8 more.
        let ring = ring();
        let (ra, rb) = (call(json!({"x": 1})), call(json!({"x": 1})));
        let alice = Binding::for_request(&ra, ALICE, Protocol::default()).unwrap();
        let bob = Binding::for_request(&rb, Subject::Principal("bob"), Protocol::default()).unwrap();
        let tokens = [
            ring.seal(&alice, Millis::from_secs(0), 60, b"p", &mut rng(0)).unwrap(),
            ring.seal(&alice, Millis::from_secs(0), 60, b"p", &mut rng(1)).unwrap(),
            ring.seal(&bob, Millis::from_secs(0), 60, b"p", &mut rng(2)).unwrap(),
        ];
        let raw: Vec<Vec<u8>> = tokens.iter().map(|t| URL_SAFE_NO_PAD.decode(t).unwrap()).collect();
        let after_nonce = HEADER + 12;
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            let same = raw[i][after_nonce..].iter().zip(&raw[j][after_nonce..]).filter(|(a, b)| a == b).count();
            assert!(same < 8, "tokens {i} and {j} share {same} bytes after their nonces");
        }
    }

    #[test]
    fn anonymous_is_a_choice_and_never_a_principal() {
        let req = call(json!({}));
        assert_eq!(
            rule(Binding::for_request(&req, Subject::Principal(""), Protocol::default())),
            RuleId::UsageInvalidArgument
        );
        let anon = Binding::for_request(&req, Subject::Anonymous, Protocol::default()).unwrap();
        let ring = ring();
        let token = ring.seal(&anon, Millis::from_secs(0), 60, b"p", &mut rng(0)).unwrap();
        assert!(ring.open(&token, &anon, Millis::from_secs(1)).is_ok());
        let named = Binding { subject: Subject::Principal("anonymous"), ..anon.clone() };
        assert_eq!(rule(ring.open(&token, &named, Millis::from_secs(1))), RuleId::StateWrongSubject);
    }

    #[test]
    fn purpose_and_deployment_separate_tokens() {
        // Security review L8.
        let req = call(json!({}));
        let b = Binding::for_request(&req, ALICE, Protocol::default()).unwrap();
        let mut prod = ring();
        prod.set_context(b"prod").unwrap();
        let mut staging = ring();
        staging.set_context(b"staging").unwrap();
        let token = prod.seal(&b, Millis::from_secs(0), 60, br#"{"admin":true}"#, &mut rng(0)).unwrap();
        assert!(prod.open(&token, &b, Millis::from_secs(1)).is_ok());
        assert_eq!(rule(staging.open(&token, &b, Millis::from_secs(1))), RuleId::StateTampered);
        // An operator reading the refusal learns the fleet's usual cause.
        let refused = staging.open(&token, &b, Millis::from_secs(1)).unwrap_err();
        assert!(refused.message().contains("another key or deployment label"), "{}", refused.message());
        assert_eq!(rule(ring().open(&token, &b, Millis::from_secs(1))), RuleId::StateTampered);
        let raw = prod.seal_as(Purpose::Raw, &b, Millis::from_secs(0), 60, b"x", &mut rng(1)).unwrap();
        let rounds = prod.seal_as(Purpose::Rounds, &b, Millis::from_secs(0), 60, b"x", &mut rng(2)).unwrap();
        assert_eq!(
            rule(prod.open_as(Purpose::Rounds, raw.as_bytes(), &b, Millis::from_secs(1), None)),
            RuleId::StateTampered
        );
        assert_eq!(rule(prod.open(&rounds, &b, Millis::from_secs(1))), RuleId::StateTampered);
        assert_eq!(rule(prod.set_context(&[0; CONTEXT_MAX_BYTES + 1])), RuleId::UsageInvalidArgument);
    }

    #[test]
    fn a_guard_makes_a_state_single_use_and_sees_only_authentic_ones() {
        // Security review M2.
        let ring = ring();
        let req = call(json!({}));
        let b = Binding::for_request(&req, ALICE, Protocol::default()).unwrap();
        let token = ring.seal(&b, Millis::from_secs(0), 60, b"p", &mut rng(0)).unwrap();
        let mut guard = MemoryGuard::new();
        let mut flipped = URL_SAFE_NO_PAD.decode(&token).unwrap();
        flipped[HEADER + 12] ^= 1;
        assert_eq!(
            rule(ring.open_once(URL_SAFE_NO_PAD.encode(&flipped), &b, Millis::from_secs(1), &mut guard)),
            RuleId::StateTampered
        );
        let bob = Binding { subject: Subject::Principal("bob"), ..b.clone() };
        assert_eq!(rule(ring.open_once(&token, &bob, Millis::from_secs(1), &mut guard)), RuleId::StateWrongSubject);
        assert!(guard.is_empty(), "a refused token does not use up its state");
        assert!(ring.open_once(&token, &b, Millis::from_secs(1), &mut guard).is_ok());
        assert_eq!(rule(ring.open_once(&token, &b, Millis::from_secs(2), &mut guard)), RuleId::StateReplayed);
        guard.prune(Millis::from_secs(59));
        assert_eq!(guard.len(), 1);
        guard.prune(Millis::from_secs(60));
        assert!(guard.is_empty(), "forgotten once the state has expired");
        let mut seen = alloc::vec::Vec::new();
        let mut closure = |id: &StateId, expiry: u64| {
            seen.push((*id, expiry));
            false
        };
        assert_eq!(rule(ring.open_once(&token, &b, Millis::from_secs(1), &mut closure)), RuleId::StateReplayed);
        assert_eq!(seen, [(inspect(&token).unwrap().id, 60)]);
    }

    #[test]
    fn each_key_counts_its_seals_against_a_budget() {
        // Security review L3.
        assert_eq!(Algorithm::Aes256Gcm.seal_budget(), 1 << 32);
        // A secret of its own: with `std` the count is the material's, and other tests seal with `ring()`'s.
        let mut ring = KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &[41; 32]));
        ring.set_seal_budget(2);
        let req = call(json!({}));
        let b = Binding::for_request(&req, ALICE, Protocol::default()).unwrap();
        for seed in 0..2 {
            ring.seal(&b, Millis::from_secs(0), 60, b"p", &mut rng(seed)).unwrap();
        }
        assert_eq!(rule(ring.seal(&b, Millis::from_secs(0), 60, b"p", &mut rng(2))), RuleId::UsageSealBudgetSpent);
        assert_eq!(ring.seals(1), Some(2));
        ring.add(Key::new(2, Algorithm::XChaCha20Poly1305, &[8; 32]));
        assert!(ring.set_current(2));
        assert!(ring.seal(&b, Millis::from_secs(0), 60, b"p", &mut rng(0)).is_ok(), "rotation restores sealing");
    }

    /// Seals with `ring` until it refuses: how many it made.
    fn seal_until_refused(ring: &KeyRing) -> u64 {
        let req = call(json!({}));
        let b = Binding::for_request(&req, ALICE, Protocol::default()).unwrap();
        let mut made = 0;
        while ring.seal(&b, Millis::from_secs(0), 60, b"p", &mut rng(0)).is_ok() {
            made += 1;
            assert!(made < 100, "no budget");
        }
        made
    }

    #[cfg(feature = "std")]
    #[test]
    fn keys_built_from_the_same_material_share_one_count_in_the_process() {
        // Security review I4: `KeyRing(k)` built three times gave each copy the whole budget.
        let secret = [42; 32];
        let build = |budget| {
            let mut ring = KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &secret));
            ring.set_seal_budget(budget);
            ring
        };
        let (first, second) = (build(2), build(2));
        assert_eq!(seal_until_refused(&first), 2);
        assert_eq!(seal_until_refused(&second), 0, "a second ring of the same key has nothing left");
        drop((first, second));
        let third = build(2);
        assert_eq!((third.seals(1), seal_until_refused(&third)), (Some(2), 0), "nor one built after they are gone");
        // Derived keys are keys of their material too; another id, algorithm or secret counts apart.
        let master = [43; MASTER_MIN_BYTES];
        let mut derived = KeyRing::new(Key::derive(1, Algorithm::Aes256Gcm, &master).unwrap());
        derived.set_seal_budget(1);
        assert_eq!(seal_until_refused(&derived), 1);
        assert_eq!(KeyRing::new(Key::derive(1, Algorithm::Aes256Gcm, &master).unwrap()).seals(1), Some(1));
        for other in [
            Key::new(2, Algorithm::Aes256Gcm, &secret),
            Key::new(1, Algorithm::XChaCha20Poly1305, &secret),
            Key::new(1, Algorithm::Aes256Gcm, &[44; 32]),
        ] {
            let id = other.id();
            assert_eq!(KeyRing::new(other).seals(id), Some(0));
        }
        // Rotating into a fresh key still restores sealing.
        let mut rotated = build(2);
        rotated.add(Key::new(2, Algorithm::XChaCha20Poly1305, &[45; 32]));
        assert!(rotated.set_current(2));
        assert_eq!(seal_until_refused(&rotated), 2);
    }

    #[cfg(not(feature = "std"))]
    #[test]
    fn without_std_each_key_object_counts_its_own_seals() {
        let build = || {
            let mut ring = KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &[46; 32]));
            ring.set_seal_budget(2);
            ring
        };
        let (first, second) = (build(), build());
        assert_eq!((seal_until_refused(&first), seal_until_refused(&second)), (2, 2));
    }

    #[test]
    fn version_1_tokens_are_refused_clearly() {
        let mut v1 = alloc::vec![0x11u8, 1];
        v1.extend_from_slice(&[0; 48]);
        let e = inspect(URL_SAFE_NO_PAD.encode(&v1)).unwrap_err();
        assert_eq!(e.rule(), RuleId::StateMalformed);
        assert!(e.message().contains("version 1"), "{}", e.message());
    }

    #[test]
    fn a_master_shorter_than_a_key_is_refused() {
        // Empty, a password, one byte short: HKDF over these is computable or guessable.
        for master in [&b""[..], b"correct horse battery staple", &[1; MASTER_MIN_BYTES - 1]] {
            let e = Key::derive(1, Algorithm::Aes256Gcm, master).unwrap_err();
            assert_eq!(e.rule(), RuleId::UsageInvalidArgument, "{} bytes", master.len());
        }
        assert!(Key::derive(1, Algorithm::Aes256Gcm, &[1; MASTER_MIN_BYTES]).is_ok());
    }

    #[test]
    fn rotation_keeps_rounds_in_flight() {
        let master = [9u8; MASTER_MIN_BYTES];
        let mut ring = KeyRing::new(Key::derive(1, Algorithm::Aes256Gcm, &master).unwrap());
        let req = call(json!({}));
        let b = Binding::for_request(&req, ALICE, Protocol::default()).unwrap();
        let old = ring.seal(&b, Millis::from_secs(0), 60, b"x", &mut rng(0)).unwrap();
        ring.add(Key::derive(2, Algorithm::XChaCha20Poly1305, &master).unwrap());
        assert!(ring.set_current(2));
        let new = ring.seal(&b, Millis::from_secs(0), 60, b"y", &mut rng(1)).unwrap();
        assert_eq!(ring.open(&old, &b, Millis::from_secs(1)).unwrap().payload, b"x");
        assert_eq!(ring.open(&new, &b, Millis::from_secs(1)).unwrap().payload, b"y");
        assert!(ring.remove(1));
        assert_eq!(rule(ring.open(&old, &b, Millis::from_secs(1))), RuleId::StateUnknownKey);
    }

    #[test]
    fn one_secret_under_two_ids_or_algorithms_gives_unrelated_keys() {
        // Security review I2: the HKDF info names the algorithm and the id.
        let req = call(json!({}));
        let b = Binding::for_request(&req, ALICE, Protocol::default()).unwrap();
        let token = KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &[7; 32]))
            .seal(&b, Millis::from_secs(0), 60, b"x", &mut rng(0))
            .unwrap();
        let mut raw = URL_SAFE_NO_PAD.decode(&token).unwrap();
        raw[1] = 3;
        let moved = URL_SAFE_NO_PAD.encode(&raw);
        let same_secret = KeyRing::new(Key::new(3, Algorithm::Aes256Gcm, &[7; 32]));
        assert_eq!(rule(same_secret.open(&moved, &b, Millis::from_secs(1))), RuleId::StateTampered);
    }

    #[test]
    fn every_algorithm_seals_opens_and_authenticates_its_whole_nonce() {
        let req = call(json!({"city": "Paris"}));
        let alice = Binding::for_request(&req, ALICE, Protocol::default()).unwrap();
        for alg in Algorithm::ALL {
            let ring = KeyRing::new(Key::new(4, alg, &[5; 32]));
            let token = ring.seal(&alice, Millis::from_secs(0), 60, b"payload", &mut rng(1)).unwrap();
            let raw = URL_SAFE_NO_PAD.decode(&token).unwrap();
            assert_eq!(raw.len(), 7 + overhead(alg), "{alg:?}");
            assert_eq!(inspect(&token).unwrap().algorithm, alg);
            assert_eq!(ring.open(&token, &alice, Millis::from_secs(1)).unwrap().payload, b"payload", "{alg:?}");
            // XAES-256-GCM derives its key from the nonce's first half and runs under the second.
            for at in [HEADER, HEADER + alg.nonce_len() - 1] {
                let mut changed = raw.clone();
                changed[at] ^= 1;
                assert_eq!(
                    rule(ring.open(URL_SAFE_NO_PAD.encode(&changed), &alice, Millis::from_secs(1))),
                    RuleId::StateTampered
                );
            }
            assert_eq!(Algorithm::from_name(alg.name()), Some(alg));
        }
    }

    #[test]
    fn a_bound_request_opens_and_seals_as_its_binding_does_under_every_key() {
        let req = call(json!({"city": "Paris"}));
        let alice = Binding::for_request(&req, ALICE, Protocol::default()).unwrap();
        let bound = Bound::new(alice.clone());
        let mut ring = KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &[7; 32]));
        ring.add(Key::new(2, Algorithm::Xaes256Gcm, &[8; 32]));
        let first = ring.seal(&alice, Millis::from_secs(0), 60, b"one", &mut rng(0)).unwrap();
        assert_eq!(ring.open(&first, &bound, Millis::from_secs(1)).unwrap().payload, b"one");
        assert!(ring.set_current(2));
        // The memo holds key 1's tags now: key 2 computes its own.
        let second = ring.seal(&bound, Millis::from_secs(0), 60, b"two", &mut rng(1)).unwrap();
        assert_eq!(ring.open(&second, &alice, Millis::from_secs(1)).unwrap().payload, b"two");
        assert_eq!(ring.open(&first, &bound, Millis::from_secs(1)).unwrap().payload, b"one");
        let bob = Binding { subject: Subject::Principal("bob"), ..alice.clone() };
        assert_eq!(rule(ring.open(&second, &Bound::new(bob), Millis::from_secs(1))), RuleId::StateWrongSubject);
        assert_eq!(bound.binding(), &alice);
    }

    #[test]
    fn keys_never_print() {
        let key = Key::new(3, Algorithm::Aes256Gcm, &[0xAB; 32]);
        let one = alloc::format!("{key:?}");
        let text = alloc::format!("{one} {:?}", KeyRing::new(key));
        assert!(!text.to_lowercase().contains("ab, ") && !text.contains("171"), "{text}");
    }
}
