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
//! Sessions are bounded ([`Sessions::open`]): past the bound, a session idle
//! for longer than the idle limit, with no call under way, makes room; if
//! none is, the new one is refused. A client that never sends `DELETE` thus
//! holds a place only while it is in use or recently was.

use mrtr::client::Session as Declared;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
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
    /// What the client declared, and the ids of the upstream requests.
    declared: Mutex<Declared>,
    /// Server request id → the call that waits for its answer.
    asked: Mutex<HashMap<String, Asked>>,
    /// When the client last sent anything in this session.
    used: Mutex<Instant>,
    /// Stream key → the call writing that stream, for a resuming `GET`.
    streams: Mutex<HashMap<String, mpsc::UnboundedSender<Resume>>>,
    /// The client's request id (as text) → its running call, for a
    /// `notifications/cancelled`.
    calls: Mutex<HashMap<String, mpsc::UnboundedSender<Option<String>>>>,
}

impl Session {
    /// A session for what the client declared.
    pub(crate) fn new(declared: Declared) -> Session {
        Session {
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

    fn streams(&self) -> MutexGuard<'_, HashMap<String, mpsc::UnboundedSender<Resume>>> {
        self.streams.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The call writing the stream `key` takes resuming `GET`s on `resumes`.
    pub(crate) fn hold_stream(&self, key: &str, resumes: mpsc::UnboundedSender<Resume>) {
        self.streams().insert(key.to_string(), resumes);
    }

    /// Where a `GET` resuming the stream `key` goes; `None`: no call of this
    /// session writes it (it ended, or never was).
    pub(crate) fn stream(&self, key: &str) -> Option<mpsc::UnboundedSender<Resume>> {
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
        self.calls().insert(id.to_string(), cancels);
    }

    /// The call for the client's request `id` ended.
    pub(crate) fn release_call(&self, id: &str) {
        self.calls().remove(id);
    }

    /// The client cancelled its request `id` (`reason`): whether a call of
    /// this session was running it.
    pub(crate) fn cancel(&self, id: &str, reason: Option<String>) -> bool {
        self.calls().get(id).is_some_and(|call| call.send(reason).is_ok())
    }

    /// Questions waiting for an answer.
    pub(crate) fn waiting(&self) -> usize {
        self.asked().len()
    }

    /// The client sent something in this session now.
    pub(crate) fn touch(&self) {
        *self.used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    /// How long since the client last sent anything.
    fn idle(&self) -> Duration {
        self.used.lock().unwrap_or_else(|p| p.into_inner()).elapsed()
    }
}

/// Every session, bounded.
pub(crate) struct Sessions {
    max: usize,
    /// How long a session may sit unused before a new one may take its place.
    idle: Duration,
    by_id: Mutex<HashMap<String, Arc<Session>>>,
}

impl Sessions {
    /// At most `max` sessions at once; one unused for `idle` may be replaced.
    pub(crate) fn new(max: usize, idle: Duration) -> Sessions {
        Sessions { max, idle, by_id: Mutex::new(HashMap::new()) }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.by_id.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Opens a session under a fresh random id; `None` past the bound when
    /// no session may make room (or without randomness).
    pub(crate) fn open(&self, session: Session) -> Option<String> {
        let mut by_id = self.lock();
        if by_id.len() >= self.max {
            let stale = by_id.iter().find(|(_, s)| s.idle() >= self.idle && Arc::strong_count(s) == 1);
            let stale = stale.map(|(id, _)| id.clone())?;
            by_id.remove(&stale);
        }
        let id = random_id()?;
        by_id.insert(id.clone(), Arc::new(session));
        Some(id)
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
