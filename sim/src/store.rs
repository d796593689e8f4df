//! The shared store every instance reaches (Redis in `deploy/cluster`): the
//! single-use record of spent states, the completions, and the side-effect
//! counter the invariants read.
//!
//! It restarts as an append-only Redis does: away for a while, then back with
//! everything committed. Every write here is one atomic call, as the cluster's
//! `SET NX` and `commit.lua` are, so a restart never splits one.

use mrtr::state::StateId;
use serde_json::Value;
use std::collections::BTreeMap;

/// The store's data and whether it answers.
#[derive(Debug, Default)]
pub struct Store {
    /// Spent states: id → expiry (the `ReplayGuard`'s `SET id 1 NX EXAT expiry`).
    spent: BTreeMap<StateId, u64>,
    /// Completions: completion key → the committed final response.
    done: BTreeMap<String, Value>,
    /// The side effect, counted per operation (`HINCRBY effects op 1`).
    effects: BTreeMap<String, u32>,
    /// Records of calls in flight: `task:<id>` (the Tasks extension),
    /// `call:<key>` (a SEP-1858 or SEP-1335 continuation) → record.
    records: BTreeMap<String, Value>,
    /// Until when it is away (simulated ms); `0`: up.
    away_until: u64,
}

/// What [`Store::commit`] did.
#[derive(Debug, PartialEq)]
pub enum Commit {
    /// This call committed: the side effect ran once, send this response.
    Committed(Value),
    /// A response was committed under this key before: send it, run nothing.
    Before(Value),
}

impl Store {
    /// Whether it answers at `now`.
    pub fn is_up(&self, now: u64) -> bool {
        now >= self.away_until
    }

    /// Goes away until `until`; keeps everything.
    pub fn restart(&mut self, until: u64) {
        self.away_until = self.away_until.max(until);
    }

    /// The guard's first use of `id`: `true` once, `false` after.
    pub fn first_use(&mut self, id: &StateId, expiry: u64) -> bool {
        self.spent.insert(*id, expiry).is_none()
    }

    /// The response committed under `key`, if any.
    pub fn completed(&self, key: &str) -> Option<&Value> {
        self.done.get(key)
    }

    /// `commit.lua`: `response` under `key` unless one is there (`SET NX`),
    /// and then, only then, the operation's side effect (`HINCRBY`).
    pub fn commit(&mut self, key: &str, response: Value, op: &str) -> Commit {
        if let Some(before) = self.done.get(key) {
            return Commit::Before(before.clone());
        }
        self.done.insert(key.into(), response.clone());
        self.count_effect(op);
        Commit::Committed(response)
    }

    /// Keeps a round's `input_required` answer under `key` (`SET NX`, no
    /// side effect), for [`crate::instance::Flavor::Memo`].
    pub fn remember(&mut self, key: &str, response: &Value) {
        self.done.entry(key.into()).or_insert_with(|| response.clone());
    }

    /// The side effect alone, for the broken server of the tests that has no
    /// completion store.
    pub fn count_effect(&mut self, op: &str) {
        *self.effects.entry(op.into()).or_default() += 1;
    }

    /// How often the side effect of `op` ran.
    pub fn effects(&self, op: &str) -> u32 {
        self.effects.get(op).copied().unwrap_or(0)
    }

    /// The response committed for `op`: the one completion whose response
    /// names it (the tool's text carries the op), if any.
    pub fn committed_for(&self, op: &str) -> Vec<&Value> {
        self.done.values().filter(|v| crate::tool::op_of_result(&v["result"]) == Some(op)).collect()
    }

    /// The record `key`, if any.
    pub fn record(&self, key: &str) -> Option<&Value> {
        self.records.get(key)
    }

    /// Writes the record `key` (`SET`: a write repeated is harmless).
    pub fn save(&mut self, key: &str, record: Value) {
        self.records.insert(key.into(), record);
    }

    /// Records held: what must stay bounded by the work done.
    pub fn len(&self) -> usize {
        self.spent.len() + self.done.len() + self.effects.len() + self.records.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
