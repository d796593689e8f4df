//! The calls the reverse bridge carries upstream: each a task that owns one
//! `2025-11-25` operation ([`Pump`]) with its stream open, parked between
//! the MRTR client's rounds.
//!
//! A turn is one HTTP request of the client: the first `tools/call` (no
//! answers) or a retry (its `inputResponses`). The task answers the turn
//! with an [`Outcome`] once upstream gets there: questions it asks on the
//! stream (a round), or the final response. Then, after a round, it parks:
//! it keeps feeding what the upstream stream sends, and waits for the next
//! turn until the park timeout, when it ends, dropping the operation and its
//! exchanges, which closes the upstream stream. Nothing is left behind: the
//! [`Calls`] entry goes with the task ([`Entry`]).

use super::pump::{Pump, Woke};
use super::upstreams::Upstream;
use crate::Shared;
use mrtr::client::operation::Event;
use mrtr::{Error, RuleId};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// What upstream came to, for the client.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Questions by key (as the operation asked them: `{"method", "params"}`),
    /// and the round they make.
    Ask(Map<String, Value>, u32),
    /// Upstream's final response (a result or a JSON-RPC error).
    Done(Value),
    /// The call cannot go on.
    Failed(Error),
    /// Upstream does not know the session (`404`) and asked nothing yet:
    /// nothing ran there, a new session may serve the call.
    SessionGone(Error),
}

/// A retry's answers, and where the outcome goes.
pub(crate) struct Turn {
    /// The round the answers are for (the state's).
    pub(crate) round: u32,
    pub(crate) answers: Map<String, Value>,
    pub(crate) reply: oneshot::Sender<Outcome>,
}

/// The calls under way, bounded in all and per peer address: a call parks
/// for `--timeout`, so without a peer's own bound one peer's cheap calls
/// that upstream asks on would refuse everyone for that long (review N5).
pub(crate) struct Calls {
    max: usize,
    max_per_peer: usize,
    by_key: Mutex<HashMap<String, (IpAddr, mpsc::Sender<Turn>)>>,
}

/// A call's place in [`Calls`], given up when its task ends however it ends.
struct Entry {
    shared: Arc<Shared>,
    key: String,
}

impl Drop for Entry {
    fn drop(&mut self) {
        if let Some(reverse) = &self.shared.reverse {
            reverse.calls.lock().remove(&self.key);
        }
    }
}

impl Calls {
    /// At most `max` calls at once, `max_per_peer` of them from one peer address.
    pub(crate) fn new(max: usize, max_per_peer: usize) -> Calls {
        Calls { max, max_per_peer: max_per_peer.clamp(1, max.max(1)), by_key: Mutex::new(HashMap::new()) }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, (IpAddr, mpsc::Sender<Turn>)>> {
        self.by_key.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Calls under way (running or parked).
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// The parked call `key`'s turn channel, if it is still there.
    pub(crate) fn get(&self, key: &str) -> Option<mpsc::Sender<Turn>> {
        self.lock().get(key).map(|(_, turns)| turns.clone())
    }

    /// Ends the call `key` (its task sees no more turns and drops it).
    pub(crate) fn cancel(&self, key: &str) {
        self.lock().remove(key);
    }

    /// A place for a new call of `peer` under a fresh random key;
    /// `limit-exceeded` past a bound.
    fn reserve(&self, turns: mpsc::Sender<Turn>, peer: IpAddr) -> Result<String, Error> {
        let mut by_key = self.lock();
        if by_key.len() >= self.max {
            let why = format!("the bridge carries as many calls as it may ({})", self.max);
            return Err(Error::with(RuleId::LimitExceeded, why));
        }
        if by_key.values().filter(|(p, _)| *p == peer).count() >= self.max_per_peer {
            let why =
                format!("the bridge carries as many calls of one client address as it may ({})", self.max_per_peer);
            return Err(Error::with(RuleId::LimitExceeded, why));
        }
        let key = crate::sessions::random_id()
            .ok_or_else(|| Error::with(RuleId::InternalPanic, "no randomness from the OS".into()))?;
        by_key.insert(key.clone(), (peer, turns));
        Ok(key)
    }
}

/// Starts `request` (upstream's: its id, `_meta` without `2026-07-28`'s keys)
/// in `session`, which the call holds until it ends: the call's key, and
/// its first outcome.
pub(crate) async fn start(
    shared: &Arc<Shared>,
    request: Value,
    session: Arc<Upstream>,
    peer: IpAddr,
) -> (Option<String>, Outcome) {
    let Some(reverse) = &shared.reverse else {
        return (None, Outcome::Failed(Error::with(RuleId::InternalPanic, "not a reverse bridge".into())));
    };
    let (turns_tx, turns) = mpsc::channel(1);
    let key = match reverse.calls.reserve(turns_tx, peer) {
        Ok(key) => key,
        Err(e) => return (None, Outcome::Failed(e)),
    };
    let entry = Entry { shared: shared.clone(), key: key.clone() };
    let pump = match Pump::start(shared.clone(), request, session.headers()) {
        Ok(p) => p,
        Err(e) => return (None, Outcome::Failed(e)),
    };
    let (reply, outcome) = oneshot::channel();
    let task = Task { pump, asking: Map::new(), round: 0, timeout: shared.timeout, _entry: entry, _session: session };
    tokio::spawn(task.run(reply, turns));
    let outcome = outcome.await.unwrap_or_else(|_| Outcome::Failed(gone()));
    (Some(key), outcome)
}

/// The refusal of a turn whose call ended meanwhile.
pub(crate) fn gone() -> Error {
    Error::with(RuleId::StateExpired, "the call this requestState names is no longer parked here".into())
}

/// One call's task.
struct Task {
    pump: Pump,
    /// Questions asked and not answered yet, by key.
    asking: Map<String, Value>,
    /// Rounds handed to the client so far.
    round: u32,
    timeout: Duration,
    _entry: Entry,
    /// The upstream session the call runs in: a session of one request
    /// ends when the call does.
    _session: Arc<Upstream>,
}

impl Task {
    /// Answers each turn with the next outcome; parks between them.
    /// A call that ends any other way than with upstream's final response
    /// (a timeout, the client gone, an answer upstream cannot take) closes
    /// its upstream stream.
    async fn run(mut self, reply: oneshot::Sender<Outcome>, mut turns: mpsc::Receiver<Turn>) {
        if !self.rounds(reply, &mut turns).await {
            self.pump.abort();
        }
    }

    /// The rounds until the call ends; whether upstream gave its final response.
    async fn rounds(&mut self, mut reply: oneshot::Sender<Outcome>, turns: &mut mpsc::Receiver<Turn>) -> bool {
        loop {
            let outcome = self.progress().await;
            let (parks, done) = (matches!(outcome, Outcome::Ask(..)), matches!(outcome, Outcome::Done(_)));
            if reply.send(outcome).is_err() || !parks {
                return done; // the client left, or the call is over
            }
            match self.park(turns).await {
                Some(next) => reply = next,
                None => return false,
            }
        }
    }

    /// Runs the operation until it asks the client something or ends
    /// (within the timeout: past it, `limit-exceeded`).
    async fn progress(&mut self) -> Outcome {
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(end) = self.take_events() {
                return end;
            }
            if !self.asking.is_empty() {
                self.round += 1;
                return Outcome::Ask(self.asking.clone(), self.round);
            }
            if let Woke::Deadline = self.pump.wait(deadline).await {
                let why = format!("upstream neither asked nor answered within {:?}", self.timeout);
                return Outcome::Failed(Error::with(RuleId::LimitExceeded, why));
            }
        }
    }

    /// The operation's events: questions join those asked; the final one returned.
    fn take_events(&mut self) -> Option<Outcome> {
        for event in self.pump.events() {
            match event {
                Event::InputRequired { requests, .. } => self.asking.extend(requests),
                Event::Failed(e) if self.round == 0 && self.pump.session_gone() => {
                    return Some(Outcome::SessionGone(e))
                }
                Event::Done(response) if self.round == 0 && self.pump.refuses_session(&response) => {
                    let why = format!("upstream does not know the session: {}", response["error"]["message"]);
                    return Some(Outcome::SessionGone(Error::with(RuleId::HttpStatusUnexpected, why)));
                }
                Event::Done(response) => return Some(Outcome::Done(response)),
                Event::Failed(e) => return Some(Outcome::Failed(e)),
                Event::Message(_) | Event::Violation(_) => {}
            }
        }
        None
    }

    /// Waits for the client's retry, feeding upstream's stream meanwhile;
    /// the retry's answers go upstream. `None`: no retry in time, or a retry
    /// whose answers upstream cannot take (it was told why): the call ends.
    async fn park(&mut self, turns: &mut mpsc::Receiver<Turn>) -> Option<oneshot::Sender<Outcome>> {
        let deadline = Instant::now() + self.timeout;
        loop {
            tokio::select! {
                turn = turns.recv() => {
                    let turn = turn?;
                    if turn.round == self.round {
                        return self.take_turn(turn);
                    }
                    // A state of another round: refused, and the call waits on for its own.
                    let why = format!("requestState answers round {}; the call waits on round {}", turn.round, self.round);
                    let _ = turn.reply.send(Outcome::Failed(Error::with(RuleId::StateReplayed, why)));
                }
                woke = self.pump.wait(deadline) => if let Woke::Deadline = woke { return None },
            }
        }
    }

    /// A retry: its answers to the questions asked, each to the operation
    /// (checked by the core); unanswered questions stay asked. An answer
    /// the core refuses ends the call (its state is spent: the client could
    /// not retry it), with that refusal.
    fn take_turn(&mut self, turn: Turn) -> Option<oneshot::Sender<Outcome>> {
        let keys: Vec<String> = self.asking.keys().cloned().collect();
        for key in keys {
            let Some(answer) = turn.answers.get(&key) else { continue };
            if let Err(e) = self.pump.answer(&key, answer.clone()) {
                let _ = turn.reply.send(Outcome::Failed(e));
                return None;
            }
            self.asking.remove(&key);
        }
        Some(turn.reply)
    }
}
