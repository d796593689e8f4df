//! Sealed `requestState`: confidentiality, integrity, binding and expiry.
//!
//! The client is an untrusted intermediary (001 "Server Behavior"): a server
//! must validate the state it gets back, and should bind it to the principal,
//! the originating request and a short expiry. [`KeyRing::seal`] does all of
//! that once, with RustCrypto's AEADs; [`KeyRing::open`] refuses a token with
//! exactly one `state-*` rule, and says nothing more.
//!
//! # Token format (version 1)
//!
//! `base64url(header ‖ nonce ‖ ciphertext ‖ tag)`, without padding:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | `0x10 \| alg`: format version 1, algorithm (1 AES-256-GCM, 2 XChaCha20-Poly1305) |
//! | 1 | key id |
//! | 4 | expiry, seconds since the Unix epoch, big-endian (`now + ttl` at sealing) |
//! | 8 | subject tag: HMAC-SHA-256(tag key, `"subject\0" ‖ subject`), first 8 bytes |
//! | 8 | request tag: HMAC-SHA-256(tag key, protocol, method, target, SHA-256 of the salient params), first 8 bytes |
//! | 12 / 24 | nonce (from the caller's random source) |
//! | n + 16 | the payload, encrypted; the AEAD tag |
//!
//! The 22-byte header is the AEAD's associated data, so every field is
//! authenticated; the tags are keyed, so they reveal nothing about the subject
//! or the request to anyone without the key, but they are deterministic: two
//! tokens of one subject carry the same subject tag (see `SECURITY.md`). The fixed overhead is therefore
//! 50 bytes with AES-256-GCM and 62 with XChaCha20-Poly1305 (before base64).
//! It is over the 40-byte goal by the 16 bytes of binding tags, which buy a
//! precise refusal (`state-wrong-subject` vs `state-wrong-request` vs
//! `state-tampered`) while binding at full strength.
//!
//! # Keys
//!
//! Each [`Key`] is 32 caller bytes (or derived from one master secret of at
//! least [`MASTER_MIN_BYTES`] uniformly random bytes with [`Key::derive`]), from which HKDF-SHA-256 derives the AEAD key and the tag
//! key. A [`KeyRing`] seals with its current key and opens with any key it
//! holds, so rotating the current key never breaks a round in flight. Key
//! material is zeroized on drop and never appears in `Debug` or error text.

use crate::{
    error::{err, Result},
    protocol::Protocol,
};
use aes_gcm::{
    aead::{AeadInOut, KeyInit},
    Aes256Gcm,
};
use alloc::{string::String, vec::Vec};
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use chacha20poly1305::XChaCha20Poly1305;
use core::fmt;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

const VERSION: u8 = 0x10;
const HEADER: usize = 22;
const TAG: usize = 16;

/// Bytes a sealed token adds to its payload before base64: header, nonce, AEAD tag.
pub const fn overhead(alg: Algorithm) -> usize {
    HEADER + alg.nonce_len() + TAG
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
}

impl Algorithm {
    /// Both algorithms.
    pub const ALL: [Algorithm; 2] = [Algorithm::Aes256Gcm, Algorithm::XChaCha20Poly1305];

    /// The nonce length in bytes.
    pub const fn nonce_len(self) -> usize {
        match self {
            Algorithm::Aes256Gcm => 12,
            Algorithm::XChaCha20Poly1305 => 24,
        }
    }

    /// The name callers use: `"aes-256-gcm"`, `"xchacha20-poly1305"`.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Aes256Gcm => "aes-256-gcm",
            Algorithm::XChaCha20Poly1305 => "xchacha20-poly1305",
        }
    }

    /// The algorithm with this name.
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL.into_iter().find(|a| a.name() == name)
    }

    const fn code(self) -> u8 {
        self as u8
    }
}

enum Cipher {
    /// Boxed: the AES key schedule and GHASH tables are large.
    Aes(alloc::boxed::Box<Aes256Gcm>),
    XChaCha(XChaCha20Poly1305),
}

/// One sealing key: an id, an algorithm, and key material that never leaves it.
pub struct Key {
    id: u8,
    alg: Algorithm,
    cipher: Cipher,
    /// HMAC-SHA-256 keyed with the tag key (its pads already absorbed).
    tagger: Hmac<Sha256>,
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
    /// key and the binding-tag key, so the same bytes never serve two purposes.
    pub fn new(id: u8, alg: Algorithm, secret: &[u8; 32]) -> Key {
        let hk = hkdf::Hkdf::<Sha256>::new(Some(b"mrtr state v1"), secret);
        let mut aead_key = Zeroizing::new([0u8; 32]);
        let mut tag_key = Zeroizing::new([0u8; 32]);
        // 32 bytes is far below HKDF-SHA-256's 8160-byte output bound.
        let _ = hk.expand(b"aead", aead_key.as_mut());
        let _ = hk.expand(b"binding tags", tag_key.as_mut());
        // Both ciphers take exactly 32-byte keys: these cannot fail.
        let cipher = match alg {
            Algorithm::Aes256Gcm => Cipher::Aes(alloc::boxed::Box::new(
                Aes256Gcm::new_from_slice(aead_key.as_ref()).unwrap_or_else(|_| unreachable!()),
            )),
            Algorithm::XChaCha20Poly1305 => {
                Cipher::XChaCha(XChaCha20Poly1305::new_from_slice(aead_key.as_ref()).unwrap_or_else(|_| unreachable!()))
            }
        };
        // HMAC takes a key of any length: this cannot fail.
        let tagger = <Hmac<Sha256> as KeyInit>::new_from_slice(tag_key.as_ref()).unwrap_or_else(|_| unreachable!());
        Key { id, alg, cipher, tagger }
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

    /// Encrypts `buffer` in place; returns the 16-byte tag.
    fn encrypt(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<[u8; TAG]> {
        let tag = match &self.cipher {
            Cipher::Aes(c) => c.encrypt_inout_detached(nonce.try_into().map_err(|_| bad_nonce())?, aad, buffer.into()),
            Cipher::XChaCha(c) => {
                c.encrypt_inout_detached(nonce.try_into().map_err(|_| bad_nonce())?, aad, buffer.into())
            }
        };
        let tag = tag.map_err(|_| err!(StateTooLarge, "the payload is too large to seal"))?;
        let mut out = [0u8; TAG];
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
        };
        opened.map_err(|_| tampered())
    }
}

fn bad_nonce() -> crate::Error {
    err!(StateMalformed, "the nonce has the wrong length for the key's algorithm")
}

fn tampered() -> crate::Error {
    err!(StateTampered, "requestState failed its integrity check")
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

/// What a token is bound to: checked when it is opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding<'a> {
    /// The authenticated principal (empty for an anonymous one).
    pub subject: &'a str,
    /// The protocol of the conversation.
    pub protocol: Protocol,
    /// The request's method.
    pub method: &'a str,
    /// The tool or prompt name, or the resource URI.
    pub target: &'a str,
    /// SHA-256 of the salient params (see [`params_digest`]).
    pub params_digest: [u8; 32],
}

impl<'a> Binding<'a> {
    /// The binding of `request` for `subject`, with the default salient params:
    /// the request's `arguments` (absent reads as `{}`).
    ///
    /// The target is the param that names what the method acts on, chosen by
    /// method ([`target_field`]) and never by whichever field is present: a
    /// `resources/read` carrying a `name` as well stays bound to its `uri`,
    /// and a task's state to its `taskId`. A request without a method that
    /// takes sealed state is refused (`input-required-method-not-allowed`), a
    /// missing or non-string target too (`jsonrpc-invalid`): binding it to
    /// the empty string would let its state open for any other such request.
    pub fn for_request(request: &'a serde_json::Value, subject: &'a str, protocol: Protocol) -> Result<Binding<'a>> {
        let method =
            request["method"].as_str().ok_or_else(|| err!(JsonrpcInvalid, "a request's method is a string"))?;
        let field = target_field(method)
            .ok_or_else(|| err!(InputRequiredMethodNotAllowed, "{method} carries no sealed requestState"))?;
        let params = &request["params"];
        let target = params
            .get(field)
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| err!(JsonrpcInvalid, "{method} names its target in params.{field}, a string"))?;
        let empty = serde_json::Value::Object(serde_json::Map::new());
        Ok(Binding {
            subject,
            protocol,
            method,
            target,
            params_digest: params_digest(params.get("arguments").unwrap_or(&empty)),
        })
    }
}

/// The param of a request that names its target, by method: `name` for
/// `tools/call` and `prompts/get`, `uri` for `resources/read`, `taskId` for
/// the task methods; `None` for a method that never carries sealed state.
pub fn target_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        m if m.starts_with("tasks/") => Some("taskId"),
        _ => None,
    }
}

/// SHA-256 of the canonical JSON of `salient` (object keys sorted, no spaces),
/// so that key order and formatting never change the binding.
pub fn params_digest(salient: &serde_json::Value) -> [u8; 32] {
    let mut hasher = Sha256::new();
    canonical(salient, &mut |bytes| hasher.update(bytes));
    hasher.finalize().into()
}

fn canonical(v: &serde_json::Value, out: &mut impl FnMut(&[u8])) {
    use serde_json::Value;
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out(b"{");
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out(b",");
                }
                canonical(&Value::String(k.clone()), out);
                out(b":");
                canonical(&map[k], out);
            }
            out(b"}");
        }
        Value::Array(items) => {
            out(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out(b",");
                }
                canonical(item, out);
            }
            out(b"]");
        }
        scalar => out(serde_json::to_string(scalar).unwrap_or_default().as_bytes()),
    }
}

/// Keys by id: seals with the current one, opens with any.
#[derive(Debug)]
pub struct KeyRing {
    keys: Vec<Key>,
    current: u8,
    max_token_bytes: usize,
}

impl KeyRing {
    /// A ring holding `current`, which seals. Tokens over 64 KiB are refused.
    pub fn new(current: Key) -> KeyRing {
        KeyRing { current: current.id, keys: alloc::vec![current], max_token_bytes: 64 << 10 }
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

    fn current(&self) -> &Key {
        // `new` inserts the current key; `remove` never removes it.
        self.keys.iter().find(|k| k.id == self.current).unwrap_or(&self.keys[0])
    }

    /// Seals `payload`, bound to `binding`, expiring `ttl` seconds after `now`
    /// (seconds since the Unix epoch), with a nonce from `rng`.
    pub fn seal<R: rand_core::CryptoRng + ?Sized>(
        &self,
        binding: &Binding<'_>,
        now: u64,
        ttl: u32,
        payload: &[u8],
        rng: &mut R,
    ) -> Result<String> {
        let mut nonce = [0u8; 24];
        let nonce = &mut nonce[..self.current().alg.nonce_len()];
        rng.fill_bytes(nonce);
        self.seal_with_nonce(binding, now, ttl, payload, nonce)
    }

    /// Seals with the operating system's random numbers.
    #[cfg(feature = "os-rng")]
    pub fn seal_os(&self, binding: &Binding<'_>, now: u64, ttl: u32, payload: &[u8]) -> Result<String> {
        let mut nonce = [0u8; 24];
        let nonce = &mut nonce[..self.current().alg.nonce_len()];
        getrandom::fill(nonce).map_err(|_| err!(StateMalformed, "the operating system gave no random numbers"))?;
        self.seal_with_nonce(binding, now, ttl, payload, nonce)
    }

    /// Seals with an explicit nonce: for test vectors only. Reusing a nonce
    /// under one key breaks AES-GCM; use [`seal`](KeyRing::seal) otherwise.
    pub fn seal_with_nonce(
        &self,
        binding: &Binding<'_>,
        now: u64,
        ttl: u32,
        payload: &[u8],
        nonce: &[u8],
    ) -> Result<String> {
        let key = self.current();
        if nonce.len() != key.alg.nonce_len() {
            return Err(bad_nonce());
        }
        let expiry = now.saturating_add(u64::from(ttl));
        let Ok(expiry) = u32::try_from(expiry) else {
            return Err(err!(StateExpired, "the expiry does not fit the token format (after 2106)"));
        };
        let header = header(key, expiry, binding);
        let start = HEADER + nonce.len();
        let mut token = Zeroizing::new(Vec::with_capacity(start + payload.len() + TAG));
        token.extend_from_slice(&header);
        token.extend_from_slice(nonce);
        token.extend_from_slice(payload);
        let tag = key.encrypt(nonce, &header, &mut token[start..])?;
        token.extend_from_slice(&tag);
        let text = URL_SAFE_NO_PAD.encode(token.as_slice());
        if text.len() > self.max_token_bytes {
            return Err(err!(StateTooLarge, "the sealed state is over the bound of {} bytes", self.max_token_bytes));
        }
        Ok(text)
    }

    /// Opens `token` for `binding` at `now`: the payload, or exactly one of
    /// `state-too-large`, `state-malformed`, `state-unknown-key`,
    /// `state-tampered`, `state-expired`, `state-wrong-subject`,
    /// `state-wrong-request`.
    ///
    /// The token may be given as text or as raw bytes (as it came off the
    /// wire): bytes that are not base64url, non-UTF-8 ones included, are
    /// `state-malformed`, decided here once for every binding.
    pub fn open(&self, token: impl AsRef<[u8]>, binding: &Binding<'_>, now: u64) -> Result<Vec<u8>> {
        let token = token.as_ref();
        if token.len() > self.max_token_bytes {
            return Err(err!(StateTooLarge, "requestState is over the bound of {} bytes", self.max_token_bytes));
        }
        let bytes = Zeroizing::new(
            URL_SAFE_NO_PAD.decode(token).map_err(|_| err!(StateMalformed, "requestState is not base64url"))?,
        );
        if bytes.len() < HEADER || bytes[0] & 0xF0 != VERSION {
            return Err(err!(StateMalformed, "requestState is not a sealed state of a known format"));
        }
        let alg = match bytes[0] & 0x0F {
            1 => Algorithm::Aes256Gcm,
            2 => Algorithm::XChaCha20Poly1305,
            _ => return Err(err!(StateMalformed, "requestState names no known algorithm")),
        };
        if bytes.len() < overhead(alg) {
            return Err(err!(StateMalformed, "requestState is too short"));
        }
        let Some(key) = self.keys.iter().find(|k| k.id == bytes[1]) else {
            return Err(err!(StateUnknownKey, "requestState was sealed under a key this server does not hold"));
        };
        if key.alg != alg {
            return Err(tampered());
        }
        let mut bytes = bytes;
        let (header, rest) = bytes.split_at_mut(HEADER);
        let (nonce, sealed) = rest.split_at_mut(alg.nonce_len());
        let (body, tag) = sealed.split_at_mut(sealed.len() - TAG);
        key.decrypt(nonce, header, body, tag)?;
        let header: [u8; HEADER] = header.try_into().unwrap_or([0; HEADER]);
        let expiry = u32::from_be_bytes([header[2], header[3], header[4], header[5]]);
        if now >= u64::from(expiry) {
            return Err(err!(StateExpired, "requestState has expired"));
        }
        let (subject, request) = binding_tags(key, binding);
        if !bool::from(header[6..14].ct_eq(&subject)) {
            return Err(err!(StateWrongSubject, "requestState belongs to another principal"));
        }
        if !bool::from(header[14..22].ct_eq(&request)) {
            return Err(err!(StateWrongRequest, "requestState was issued for another request"));
        }
        let end = bytes.len() - TAG;
        Ok(bytes[HEADER + alg.nonce_len()..end].to_vec())
    }
}

fn binding_tags(key: &Key, b: &Binding<'_>) -> ([u8; 8], [u8; 8]) {
    let subject = key.tag(&[b"subject", b.subject.as_bytes()]);
    let request = key.tag(&[
        b"request",
        b.protocol.name().as_bytes(),
        b.method.as_bytes(),
        b.target.as_bytes(),
        &b.params_digest,
    ]);
    (subject, request)
}

fn header(key: &Key, expiry: u32, binding: &Binding<'_>) -> [u8; HEADER] {
    let (subject, request) = binding_tags(key, binding);
    let mut h = [0u8; HEADER];
    h[0] = VERSION | key.alg.code();
    h[1] = key.id;
    h[2..6].copy_from_slice(&expiry.to_be_bytes());
    h[6..14].copy_from_slice(&subject);
    h[14..22].copy_from_slice(&request);
    h
}

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
    use crate::RuleId;
    use serde_json::json;

    struct Counter(u8);
    impl rand_core::TryRng for Counter {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> core::result::Result<u32, Self::Error> {
            Ok(0)
        }
        fn try_next_u64(&mut self) -> core::result::Result<u64, Self::Error> {
            Ok(0)
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> core::result::Result<(), Self::Error> {
            self.0 = self.0.wrapping_add(1);
            dst.fill(self.0);
            Ok(())
        }
    }
    impl rand_core::TryCryptoRng for Counter {}

    fn call(args: serde_json::Value) -> serde_json::Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "weather", "arguments": args}})
    }

    #[test]
    fn round_trip_and_every_refusal() {
        let ring = KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &[7; 32]));
        let req = call(json!({"city": "Paris"}));
        let alice = Binding::for_request(&req, "alice", Protocol::default()).unwrap();
        let token = ring.seal(&alice, 1000, 60, b"hello", &mut Counter(0)).unwrap();
        assert_eq!(URL_SAFE_NO_PAD.decode(&token).unwrap().len(), 5 + overhead(Algorithm::Aes256Gcm));
        assert_eq!(ring.open(&token, &alice, 1059).unwrap(), b"hello");
        assert_eq!(ring.open(token.as_bytes(), &alice, 1059).unwrap(), b"hello");
        let rule = |r: Result<Vec<u8>>| r.unwrap_err().rule();
        assert_eq!(rule(ring.open(b"\xff\xfe", &alice, 1001)), RuleId::StateMalformed);
        assert_eq!(rule(ring.open(&token, &alice, 1060)), RuleId::StateExpired);
        let bob = Binding { subject: "bob", ..alice.clone() };
        assert_eq!(rule(ring.open(&token, &bob, 1001)), RuleId::StateWrongSubject);
        let other_req = call(json!({"city": "Rome"}));
        let other = Binding::for_request(&other_req, "alice", Protocol::default()).unwrap();
        assert_eq!(rule(ring.open(&token, &other, 1001)), RuleId::StateWrongRequest);
        assert_eq!(rule(ring.open("!!", &alice, 1001)), RuleId::StateMalformed);
        let mut flipped = URL_SAFE_NO_PAD.decode(&token).unwrap();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(rule(ring.open(URL_SAFE_NO_PAD.encode(&flipped), &alice, 1001)), RuleId::StateTampered);
        let other_ring = KeyRing::new(Key::new(2, Algorithm::XChaCha20Poly1305, &[7; 32]));
        assert_eq!(rule(other_ring.open(&token, &alice, 1001)), RuleId::StateUnknownKey);
        let mut small = KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &[7; 32]));
        small.set_max_token_bytes(10);
        assert_eq!(rule(small.open(&token, &alice, 1001)), RuleId::StateTooLarge);
    }

    #[test]
    fn the_target_is_chosen_by_method_and_a_missing_one_is_refused() {
        let ring = KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &[7; 32]));
        let read = |uri: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri, "name": "public"}});
        let (public, private) = (read("file:///public"), read("file:///private"));
        let b = Binding::for_request(&public, "alice", Protocol::default()).unwrap();
        assert_eq!(b.target, "file:///public", "a resources/read is bound to its uri, not to a name beside it");
        let token = ring.seal(&b, 0, 60, b"consent", &mut Counter(0)).unwrap();
        let moved = Binding::for_request(&private, "alice", Protocol::default()).unwrap();
        assert_eq!(ring.open(&token, &moved, 1).unwrap_err().rule(), RuleId::StateWrongRequest);

        let result =
            |task: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/result", "params": {"taskId": task}});
        let (a, b) = (result("task-a"), result("task-b"));
        let bound = Binding::for_request(&a, "alice", Protocol::Sep2322).unwrap();
        let token = ring.seal(&bound, 0, 60, b"a", &mut Counter(1)).unwrap();
        let other = Binding::for_request(&b, "alice", Protocol::Sep2322).unwrap();
        assert_eq!(ring.open(&token, &other, 1).unwrap_err().rule(), RuleId::StateWrongRequest);

        let refused =
            |request: serde_json::Value| Binding::for_request(&request, "", Protocol::default()).unwrap_err().rule();
        assert_eq!(refused(json!({"method": "tools/call", "params": {"uri": "x"}})), RuleId::JsonrpcInvalid);
        assert_eq!(refused(json!({"method": "tools/call", "params": {"name": 7}})), RuleId::JsonrpcInvalid);
        assert_eq!(refused(json!({"method": "ping", "params": {"name": "x"}})), RuleId::InputRequiredMethodNotAllowed);
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
        let b = Binding::for_request(&req, "", Protocol::default()).unwrap();
        let old = ring.seal(&b, 0, 60, b"x", &mut Counter(0)).unwrap();
        ring.add(Key::derive(2, Algorithm::XChaCha20Poly1305, &master).unwrap());
        assert!(ring.set_current(2));
        let new = ring.seal(&b, 0, 60, b"y", &mut Counter(5)).unwrap();
        assert_eq!(ring.open(&old, &b, 1).unwrap(), b"x");
        assert_eq!(ring.open(&new, &b, 1).unwrap(), b"y");
        assert!(ring.remove(1));
        assert_eq!(ring.open(&old, &b, 1).unwrap_err().rule(), RuleId::StateUnknownKey);
    }

    #[test]
    fn key_order_and_spacing_never_change_the_binding() {
        let a = params_digest(&json!({"a": 1, "b": [1, {"y": 2, "x": 1}]}));
        let b = params_digest(&serde_json::from_str(r#"{ "b": [1, {"x": 1, "y": 2}], "a": 1 }"#).unwrap());
        assert_eq!(a, b);
        assert_ne!(a, params_digest(&json!({"a": 2, "b": [1, {"y": 2, "x": 1}]})));
    }

    #[test]
    fn keys_never_print() {
        let key = Key::new(3, Algorithm::Aes256Gcm, &[0xAB; 32]);
        let one = alloc::format!("{key:?}");
        let text = alloc::format!("{one} {:?}", KeyRing::new(key));
        assert!(!text.to_lowercase().contains("ab, ") && !text.contains("171"), "{text}");
    }
}
