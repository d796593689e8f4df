//! A ring of sealing keys as the JavaScript backends hold it: [`state::KeyRing`]
//! with the façade's sealed-state calls as its methods, each taking what a
//! binding's table row passes (numbers as whole numbers, bindings and
//! settings as JSON text), so that its exports are generated from the table
//! like every other machine's. The typed bindings (C, UniFFI, Python) hold
//! `state::KeyRing` itself, with keys and bindings as their own records.

use super::{key, open, respond_round, resume_round, seal, Randomness, ToolReplay};
use crate::kinds::*;
use alloc::string::String;
use core::ops::Deref;
use mrtr::error::Result;
use mrtr::state::{self, Opened};
use mrtr_facade_macros::export;

/// Keys by id (AES-256-GCM, XChaCha20-Poly1305, XAES-256-GCM): the current seals, any opens.
///
/// A ring of sealing keys: seals with the current key, opens with any.
#[export(machine, left_out = crate::exports::TYPED_RING)]
pub struct KeyRing(state::KeyRing);

impl Deref for KeyRing {
    type Target = state::KeyRing;

    fn deref(&self) -> &state::KeyRing {
        &self.0
    }
}

/// A key id as the ring reads it: ids above 255 name no key.
fn key_id(id: u64) -> Option<u8> {
    u8::try_from(id).ok()
}

impl KeyRing {
    /// A ring holding the key `id` (0–255) of `algorithm`, with exactly one of a 32-byte `secret` or a
    /// `master` secret (at least 32 uniformly random bytes) to derive it from; the key seals.
    #[export]
    pub fn new(id: KeyId, algorithm: &str, secret: OptRawBytes, master: OptRawBytes) -> Result<KeyRing> {
        Ok(KeyRing(state::KeyRing::new(key(i64::try_from(id).unwrap_or(i64::MAX), algorithm, secret, master)?)))
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    #[export]
    pub fn add(&mut self, id: KeyId, algorithm: &str, secret: OptRawBytes, master: OptRawBytes) -> Result<()> {
        self.0.add(key(i64::try_from(id).unwrap_or(i64::MAX), algorithm, secret, master)?);
        Ok(())
    }

    /// Makes the key `id` the sealing key; false when the ring lacks it.
    #[export]
    pub fn set_current(&mut self, id: KeyId) -> bool {
        key_id(id).is_some_and(|i| self.0.set_current(i))
    }

    /// Drops the key `id` (not the current one); false when it could not.
    #[export]
    pub fn remove(&mut self, id: KeyId) -> bool {
        key_id(id).is_some_and(|i| self.0.remove(i))
    }

    /// The bound on a token's length, checked before any decoding.
    #[export]
    pub fn set_max_token_bytes(&mut self, max: Whole) {
        self.0.set_max_token_bytes(usize::try_from(max).unwrap_or(usize::MAX));
    }

    /// The deployment label every token is sealed and opened under (at most 64 bytes).
    #[export]
    pub fn set_context(&mut self, label: RawBytes) -> Result<()> {
        self.0.set_context(label)
    }

    /// How many seals each key may make in this process.
    #[export]
    pub fn set_seal_budget(&mut self, seals: Whole) {
        self.0.set_seal_budget(seals);
    }

    /// How many seals the key `id` has made in this process, or none when the ring lacks it.
    #[must_use]
    #[export]
    pub fn seals(&self, id: KeyId) -> OptWhole {
        key_id(id).and_then(|i| self.0.seals(i))
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
        seal(&self.0, binding, now, u32::try_from(ttl).unwrap_or(u32::MAX), payload, random)
    }

    /// Opens `token` for `binding` at `now`, single-use under `guard` when there is one (a second use is
    /// `state-replayed`): its payload, state id and expiry.
    ///
    /// [`open`]: `token` opened for `binding` at `now`, single-use under `guard`.
    #[export(shapes(binding = Binding))]
    pub fn open(&self, token: RawBytes, binding: JsonText, now: Whole, guard: Guard) -> Result<Opened> {
        open(&self.0, token, binding, now, guard)
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
        resume_round(&self.0, request, needs, settings, call, guard)
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
        respond_round(&self.0, request, round, needs, data, settings, call, random)
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
        ToolReplay::start(&self.0, request, settings, call, guard)
    }
}
