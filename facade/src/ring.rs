//! A ring of sealing keys as the JavaScript backends hold it: [`state::KeyRing`]
//! with the façade's sealed-state calls as its methods, each taking what a
//! binding's table row passes (numbers as whole numbers, bindings and
//! settings as JSON text), so that its exports are generated from the table
//! like every other machine's. The typed bindings (C, UniFFI, Python) hold
//! `state::KeyRing` itself, with keys and bindings as their own records.

use super::{key, open, respond_round, resume_round, seal, Randomness, ToolReplay};
use alloc::string::String;
use core::ops::Deref;
use mrtr::error::Result;
use mrtr::state::{self, Opened, ReplayGuard};

/// A ring of sealing keys: seals with the current key, opens with any.
pub struct KeyRing(state::KeyRing);

impl Deref for KeyRing {
    type Target = state::KeyRing;

    fn deref(&self) -> &state::KeyRing {
        &self.0
    }
}

/// A key id as the ring reads it: ids above 255 name no key.
fn id(id: u64) -> Option<u8> {
    u8::try_from(id).ok()
}

impl KeyRing {
    /// A ring holding the key `id` of `algorithm` ([`key`]: a 32-byte `secret`, or a `master` secret), which seals.
    pub fn new(id: u64, algorithm: &str, secret: Option<&[u8]>, master: Option<&[u8]>) -> Result<KeyRing> {
        Ok(KeyRing(state::KeyRing::new(key(i64::try_from(id).unwrap_or(i64::MAX), algorithm, secret, master)?)))
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    pub fn add(&mut self, id: u64, algorithm: &str, secret: Option<&[u8]>, master: Option<&[u8]>) -> Result<()> {
        self.0.add(key(i64::try_from(id).unwrap_or(i64::MAX), algorithm, secret, master)?);
        Ok(())
    }

    /// Makes the key `id` the sealing key; false when the ring lacks it.
    pub fn set_current(&mut self, key_id: u64) -> bool {
        id(key_id).is_some_and(|i| self.0.set_current(i))
    }

    /// Drops the key `id` (not the current one); false when it could not.
    pub fn remove(&mut self, key_id: u64) -> bool {
        id(key_id).is_some_and(|i| self.0.remove(i))
    }

    /// The bound on a token's length, checked before any decoding.
    pub fn set_max_token_bytes(&mut self, max: u64) {
        self.0.set_max_token_bytes(usize::try_from(max).unwrap_or(usize::MAX));
    }

    /// The deployment label every token is sealed and opened under (at most 64 bytes).
    pub fn set_context(&mut self, label: &[u8]) -> Result<()> {
        self.0.set_context(label)
    }

    /// How many seals each key may make in this process.
    pub fn set_seal_budget(&mut self, seals: u64) {
        self.0.set_seal_budget(seals);
    }

    /// How many seals the key `id` has made in this process; none when the ring lacks it.
    #[must_use]
    pub fn seals(&self, key_id: u64) -> Option<u64> {
        id(key_id).and_then(|i| self.0.seals(i))
    }

    /// [`seal`]: `payload` sealed for `binding` (JSON text), expiring `ttl` seconds after `now`.
    pub fn seal(&self, binding: &[u8], now: u64, ttl: u64, payload: &[u8], random: Randomness<'_>) -> Result<String> {
        seal(&self.0, binding, now, u32::try_from(ttl).unwrap_or(u32::MAX), payload, random)
    }

    /// [`open`]: `token` opened for `binding` at `now`, single-use under `guard`.
    pub fn open(&self, token: &[u8], binding: &[u8], now: u64, guard: Option<&mut dyn ReplayGuard>) -> Result<Opened> {
        open(&self.0, token, binding, now, guard)
    }

    /// [`resume_round`]: this request's answers plus the sealed earlier ones, as JSON text.
    pub fn resume_round(
        &self,
        request: &[u8],
        needs: &[u8],
        settings: &[u8],
        call: &[u8],
        guard: Option<&mut dyn ReplayGuard>,
    ) -> Result<String> {
        resume_round(&self.0, request, needs, settings, call, guard)
    }

    /// [`respond_round`]: the `input_required` response asking what `round` misses, as JSON text.
    #[allow(clippy::too_many_arguments)]
    pub fn respond_round(
        &self,
        request: &[u8],
        round: &[u8],
        needs: &[u8],
        data: Option<&[u8]>,
        settings: &[u8],
        call: &[u8],
        random: Randomness<'_>,
    ) -> Result<String> {
        respond_round(&self.0, request, round, needs, data, settings, call, random)
    }

    /// [`ToolReplay::start`]: the replay of an await-style tool on `request`.
    pub fn start_tool_replay(
        &self,
        request: &[u8],
        settings: &[u8],
        call: &[u8],
        guard: Option<&mut dyn ReplayGuard>,
    ) -> Result<ToolReplay> {
        ToolReplay::start(&self.0, request, settings, call, guard)
    }
}
