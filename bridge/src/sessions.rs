//! The `2025-11-25` sessions the bridge holds, and the routing of a client's
//! answers to the call that asked.
//!
//! A session is what the client declared at `initialize` (its capabilities
//! and name, written into every upstream request's `_meta` by a
//! [`mrtr::client::Session`], because a `2026-07-28` server reads them from
//! each request and must not infer them) and the server requests it has not
//! answered yet. Session ids and server-request ids are 128 random bits from
//! the OS ([`random_id`]): a client cannot guess another's session, nor
//! answer a question another session was asked, since each session looks its
//! answers up only among its own questions.
//!
//! Sessions are bounded, in all and per peer address ([`Sessions::open`]),
//! because a session costs one unauthenticated `initialize`: one peer must
//! not hold every place (review N5). A new session past a bound takes the
//! place of the least recently used session with no call under way (of that
//! peer when the peer is at its own bound), those that never made a call
//! first, whatever their age; only when every candidate has a call under way
//! is it refused (503). A client whose session was evicted gets 404 on its
//! next request, on which `2025-11-25` clients start a new session.

use mrtr::client::Session as Declared;
use serde_json::Value;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// 128 bits from the OS's random source, as 32 lower-case hex digits; `None`
/// when the OS has none to give (the caller refuses the request: a guessable
/// id would let one client act in another's session).
pub(crate) fn random_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// A client's answer to a server request, on its way to the call that asked.
#[derive(Debug)]
pub(crate) struct Answer {
    /// The question's key in the operation.
    pub key: String,
    /// The JSON-RPC response the client POSTed (a `result` or an `error`).
    pub response: Value,
    /// The index of the client side's entry of the POST that carried it.
    pub entry: usize,
    /// Whether the call took it (`Err`: the JSON-RPC error to answer the POST with, and its status).
    pub reply: oneshot::Sender<Result<(), (Value, u16)>>,
}

/// A client's `GET` with `Last-Event-ID`: where a call's stream goes on.
#[derive(Debug)]
pub(crate) struct Resume {
    /// The number of the last event the client has (`<key>.<n>`).
    pub after: u64,
    /// The new response's body.
    pub tx: mpsc::Sender<bytes::Bytes>,
    /// The `GET`'s exchange, for the client side's checker.
    pub exchange: String,
}

/// A question asked on a call's stream and not answered yet.
struct Asked {
    key: String,
    call: mpsc::UnboundedSender<Answer>,
}

/// One client's session.
pub(crate) struct Session {
    /// The address of the peer that opened it (its quota's key).
    peer: IpAddr,
    /// Whether it ever made a call (a session that never did is evicted first).
    called: AtomicBool,
    /// What the client declared, and the ids of the upstream requests.
    declared: Mutex<Declared>,
    /// Server request id → the call that waits for its answer.
    asked: Mutex<HashMap<String, Asked>>,
    /// When the client last sent anything in this session.
    used: Mutex<Instant>,
    /// Stream key → the call writing that stream, for a resuming `GET`.
    streams: Mutex<HashMap<String, mpsc::Sender<Resume>>>,
    /// The client's request id (as text) → its running call, for a
    /// `notifications/cancelled`.
    calls: Mutex<HashMap<String, mpsc::UnboundedSender<Option<String>>>>,
}

impl Session {
    /// A session for what the client at `peer` declared.
    pub(crate) fn new(declared: Declared, peer: IpAddr) -> Session {
        Session {
            peer,
            called: AtomicBool::new(false),
            declared: Mutex::new(declared),
            asked: Mutex::new(HashMap::new()),
            used: Mutex::new(Instant::now()),
            streams: Mutex::new(HashMap::new()),
            calls: Mutex::new(HashMap::new()),
        }
    }

    /// The declared `_meta` and a fresh id, written into an upstream request.
    pub(crate) fn declared(&self) -> MutexGuard<'_, Declared> {
        self.declared.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn asked(&self) -> MutexGuard<'_, HashMap<String, Asked>> {
        self.asked.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The call behind `call` asked `key` under the server request id `id`.
    pub(crate) fn ask(&self, id: &str, key: &str, call: &mpsc::UnboundedSender<Answer>) {
        self.asked().insert(id.to_string(), Asked { key: key.to_string(), call: call.clone() });
    }

    /// Takes the question asked under `id`: its key and the call's channel.
    /// `None`: this session asked nothing under that id (or it was answered).
    pub(crate) fn take(&self, id: &str) -> Option<(String, mpsc::UnboundedSender<Answer>)> {
        self.asked().remove(id).map(|a| (a.key, a.call))
    }

    /// Forgets the questions under `ids` (their call ended).
    pub(crate) fn forget(&self, ids: &[String]) {
        let mut asked = self.asked();
        for id in ids {
            asked.remove(id);
        }
    }

    fn streams(&self) -> MutexGuard<'_, HashMap<String, mpsc::Sender<Resume>>> {
        self.streams.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The call writing the stream `key` takes resuming `GET`s on `resumes`.
    pub(crate) fn hold_stream(&self, key: &str, resumes: mpsc::Sender<Resume>) {
        self.streams().insert(key.to_string(), resumes);
    }

    /// Where a `GET` resuming the stream `key` goes; `None`: no call of this
    /// session writes it (it ended, or never was).
    pub(crate) fn stream(&self, key: &str) -> Option<mpsc::Sender<Resume>> {
        self.streams().get(key).cloned()
    }

    /// The call writing the stream `key` ended.
    pub(crate) fn release_stream(&self, key: &str) {
        self.streams().remove(key);
    }

    fn calls(&self) -> MutexGuard<'_, HashMap<String, mpsc::UnboundedSender<Option<String>>>> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The call for the client's request `id` takes its cancellation on `cancels`.
    pub(crate) fn hold_call(&self, id: &str, cancels: mpsc::UnboundedSender<Option<String>>) {
        self.called.store(true, Ordering::Relaxed);
        self.calls().insert(id.to_string(), cancels);
    }

    /// The call for the client's request `id` ended.
    pub(crate) fn release_call(&self, id: &str) {
        self.calls().remove(id);
    }

    /// The client cancelled its request `id` (`reason`): whether a call of
    /// this session was running it. A call is cancelled once: its entry is
    /// taken, so that repeated cancellations cannot pile up in its channel
    /// while it waits on its client's stream.
    pub(crate) fn cancel(&self, id: &str, reason: Option<String>) -> bool {
        self.calls().remove(id).is_some_and(|call| call.send(reason).is_ok())
    }

    /// Questions waiting for an answer.
    pub(crate) fn waiting(&self) -> usize {
        self.asked().len()
    }

    /// The client sent something in this session now.
    pub(crate) fn touch(&self) {
        *self.used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    /// When the client last sent anything.
    fn used(&self) -> Instant {
        *self.used.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether a call of this session is under way (running, or waiting
    /// for an answer): such a session is never evicted.
    fn busy(&self) -> bool {
        !self.calls().is_empty() || self.waiting() > 0
    }

    /// The eviction order: sessions that never made a call, then the least
    /// recently used.
    fn eviction_rank(&self) -> (bool, Instant) {
        (self.called.load(Ordering::Relaxed), self.used())
    }
}

/// Every session, bounded in all and per peer.
pub(crate) struct Sessions {
    max: usize,
    /// Sessions one peer address may hold.
    max_per_peer: usize,
    by_id: Mutex<HashMap<String, Arc<Session>>>,
}

/// Why a session could not be opened.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Full {
    /// Every session that could make room has a call under way.
    Busy,
    /// The OS gave no randomness for the id.
    NoRandomness,
}

impl Sessions {
    /// At most `max` sessions at once, `max_per_peer` of them per peer address.
    pub(crate) fn new(max: usize, max_per_peer: usize) -> Sessions {
        Sessions { max, max_per_peer: max_per_peer.clamp(1, max.max(1)), by_id: Mutex::new(HashMap::new()) }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.by_id.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Opens a session under a fresh random id, evicting one to make room
    /// past a bound (module docs); [`Full::Busy`] when none may go.
    pub(crate) fn open(&self, session: Session) -> Result<String, Full> {
        let mut by_id = self.lock();
        let peer = session.peer;
        if by_id.values().filter(|s| s.peer == peer).count() >= self.max_per_peer {
            evict(&mut by_id, |s| s.peer == peer)?;
        }
        if by_id.len() >= self.max {
            evict(&mut by_id, |_| true)?;
        }
        let id = random_id().ok_or(Full::NoRandomness)?;
        by_id.insert(id.clone(), Arc::new(session));
        Ok(id)
    }

    /// The session `id`, marked as used now.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Session>> {
        let session = self.lock().get(id).cloned()?;
        session.touch();
        Some(session)
    }

    /// Ends the session `id`; whether there was one.
    pub(crate) fn close(&self, id: &str) -> bool {
        self.lock().remove(id).is_some()
    }

    /// Sessions open now.
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Questions waiting for an answer, in every session.
    pub(crate) fn waiting(&self) -> usize {
        let sessions: Vec<Arc<Session>> = self.lock().values().cloned().collect();
        sessions.iter().map(|s| s.waiting()).sum()
    }
}

/// Removes the first, in [`Session::eviction_rank`] order, of the sessions
/// `among` picks that has no call under way.
fn evict(by_id: &mut HashMap<String, Arc<Session>>, among: impl Fn(&Session) -> bool) -> Result<(), Full> {
    let candidates = by_id.iter().filter(|(_, s)| among(s) && !s.busy());
    let victim = candidates.min_by_key(|(_, s)| s.eviction_rank()).map(|(id, _)| id.clone());
    by_id.remove(&victim.ok_or(Full::Busy)?);
    Ok(())
}

/// The questions a call asked, forgotten when it ends however it ends (its
/// final response, an error, or the client dropping its stream): nothing is
/// left behind in the session.
pub(crate) struct Asking {
    session: Arc<Session>,
    ids: Vec<String>,
}

impl Asking {
    /// No question asked yet in `session`.
    pub(crate) fn new(session: Arc<Session>) -> Asking {
        Asking { session, ids: Vec::new() }
    }

    /// Asks `key` under `id`, answers going to `call`.
    pub(crate) fn ask(&mut self, id: String, key: &str, call: &mpsc::UnboundedSender<Answer>) {
        self.session.ask(&id, key, call);
        self.ids.push(id);
    }

    /// Whether every question asked was answered (taken from the session).
    pub(crate) fn all_answered(&self) -> bool {
        let asked = self.session.asked();
        self.ids.iter().all(|id| !asked.contains_key(id))
    }
}

impl Drop for Asking {
    fn drop(&mut self) {
        self.session.forget(&self.ids);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr::client::SessionConfig;

    fn session(peer: [u8; 4]) -> Session {
        Session::new(Declared::new(SessionConfig::default()).unwrap(), IpAddr::from(peer))
    }

    const ATTACKER: [u8; 4] = [127, 0, 0, 66];
    const HONEST: [u8; 4] = [127, 0, 0, 1];

    /// Review N5: one peer's bare `initialize`s take only its own share; its
    /// next one evicts its own oldest session, never another peer's.
    #[test]
    fn one_peer_holds_only_its_share() {
        let sessions = Sessions::new(8, 2);
        let honest = sessions.open(session(HONEST)).unwrap();
        let flood: Vec<String> = (0..50).map(|_| sessions.open(session(ATTACKER)).unwrap()).collect();
        assert_eq!(sessions.len(), 3, "the honest session and the attacker's last two");
        assert!(sessions.get(&honest).is_some());
        assert!(sessions.get(&flood[48]).is_some() && sessions.get(&flood[49]).is_some());
        assert!(sessions.get(&flood[0]).is_none());
        let next = sessions.open(session(HONEST)).unwrap();
        assert!(sessions.get(&next).is_some() && sessions.get(&honest).is_some());
    }

    /// Full from many peers: a new session evicts one that never made a call
    /// first, then the least recently used; never one with a call under way;
    /// when every session has one, the new one is refused.
    #[test]
    fn a_full_bridge_evicts_idle_sessions_and_refuses_only_when_all_are_busy() {
        let sessions = Sessions::new(3, 3);
        let ids: Vec<String> = (1..=3).map(|n| sessions.open(session([127, 0, 0, n])).unwrap()).collect();
        let (calls_tx, _calls_rx) = mpsc::unbounded_channel();
        sessions.get(&ids[0]).unwrap().hold_call("1", calls_tx.clone()); // busy, and called
        sessions.get(&ids[1]).unwrap().hold_call("1", calls_tx.clone());
        sessions.get(&ids[1]).unwrap().release_call("1"); // called once, now idle
                                                          // ids[2] never called: it goes first, though it is the most recently opened.
        let fourth = sessions.open(session([127, 0, 0, 4])).unwrap();
        assert!(sessions.get(&ids[2]).is_none(), "never made a call: evicted first");
        sessions.get(&fourth).unwrap().hold_call("1", calls_tx.clone());
        let fifth = sessions.open(session([127, 0, 0, 5])).unwrap();
        assert!(sessions.get(&ids[1]).is_none(), "the one idle session left");
        assert!(sessions.get(&ids[0]).is_some(), "a call under way keeps its session");
        sessions.get(&fifth).unwrap().hold_call("1", calls_tx);
        assert_eq!(sessions.open(session([127, 0, 0, 6])), Err(Full::Busy));
        assert_eq!(sessions.len(), 3);
    }
}
