//! Single use: each sealed state has an id and an expiry the host can see,
//! and a [`ReplayGuard`] (a store hook: first use wins) refuses a second use.
//!
//! Without a guard a state opens as often as it is presented until it
//! expires: round 1's state replayed after round 2 brings back round 1's
//! answers and data, and a final round replayed runs its action again. A
//! host whose rounds count attempts, take payment or change anything keeps
//! such counters on the server and passes a guard (`SECURITY.md`, "Replay").

use crate::base::time::Millis;
use alloc::collections::BTreeMap;
use core::fmt;

/// A sealed state's id: its nonce, 12 bytes (AES-256-GCM) or 24
/// (XChaCha20-Poly1305). Unique (drawn at random for every seal),
/// authenticated (a token with another nonce does not open) and public (it
/// is in the token: [`inspect`](super::inspect) reads it without a key).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StateId {
    bytes: [u8; 24],
    len: u8,
}

impl StateId {
    pub(super) fn new(nonce: &[u8]) -> StateId {
        let mut bytes = [0u8; 24];
        let len = nonce.len().min(24);
        bytes[..len].copy_from_slice(&nonce[..len]);
        StateId { bytes, len: len as u8 }
    }

    /// The id whose lower-case or upper-case hex is `text` (12 or 24 bytes).
    pub fn from_hex(text: &str) -> Option<StateId> {
        let bytes = text.as_bytes();
        if !matches!(bytes.len(), 24 | 48) {
            return None;
        }
        let mut out = [0u8; 24];
        for (i, pair) in bytes.chunks(2).enumerate() {
            let digit = |c: u8| (c as char).to_digit(16);
            out[i] = (digit(pair[0])? * 16 + digit(pair[1])?) as u8;
        }
        Some(StateId { bytes: out, len: (bytes.len() / 2) as u8 })
    }

    /// The id's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }
}

/// Lower-case hex, the form the bindings and stores use.
impl fmt::Display for StateId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_bytes().iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl fmt::Debug for StateId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateId({self})")
    }
}

/// A store hook that makes sealed states single-use.
///
/// [`first_use`](ReplayGuard::first_use) records `id` atomically and says
/// whether this was its first use; the store may forget it after `expiry`
/// (seconds since the Unix epoch), when the state no longer opens anyway.
/// Behind a load balancer the store is shared (Redis `SET id 1 NX EXAT
/// expiry` is one call), or a replay on another instance passes.
///
/// A closure `FnMut(&StateId, u64) -> bool` is a guard, and so is
/// [`MemoryGuard`] for one process.
pub trait ReplayGuard {
    /// Records the use of `id`: `true` the first time, `false` after.
    fn first_use(&mut self, id: &StateId, expiry: u64) -> bool;
}

impl<F: FnMut(&StateId, u64) -> bool> ReplayGuard for F {
    fn first_use(&mut self, id: &StateId, expiry: u64) -> bool {
        self(id, expiry)
    }
}

/// Spends `id` with `guard`: `state-replayed` when it was used before.
pub(crate) fn spend(guard: &mut dyn ReplayGuard, id: &StateId, expiry: u64) -> crate::base::error::Result<()> {
    if guard.first_use(id, expiry) {
        Ok(())
    } else {
        Err(crate::base::error::err!(StateReplayed, "requestState was used before: a sealed state is single-use here"))
    }
}

/// A [`ReplayGuard`] in this process's memory: for one instance, and tests.
#[derive(Clone, Debug, Default)]
pub struct MemoryGuard {
    used: BTreeMap<StateId, u64>,
}

impl MemoryGuard {
    /// An empty guard.
    pub fn new() -> MemoryGuard {
        MemoryGuard::default()
    }

    /// Forgets the ids whose states have expired at `now` (the host's clock
    /// since the Unix epoch; expiries are whole seconds).
    pub fn prune(&mut self, now: Millis) {
        self.used.retain(|_, expiry| *expiry > now.as_secs());
    }

    /// How many ids it holds.
    pub fn len(&self) -> usize {
        self.used.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.used.is_empty()
    }
}

impl ReplayGuard for MemoryGuard {
    fn first_use(&mut self, id: &StateId, expiry: u64) -> bool {
        self.used.insert(*id, expiry).is_none()
    }
}
