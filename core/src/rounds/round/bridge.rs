//! The legacy bridge: an await-style tool served to a `2025-11-25` client,
//! whose server requests travel on the POST's event stream (SEP-2260).
//!
//! A `2025-11-25` client cannot retry with `inputResponses`; it answers
//! server requests, one POST each, while the call's stream stays open. So the
//! instance holding that stream keeps the call: [`Bridge`] replays the tool
//! from the answers collected so far ([`Bridge::replay`]), sends each round's
//! missing questions as server requests on the stream ([`Bridge::ask`]),
//! takes the answers the host routes to it by id ([`Bridge::handle_answer`]),
//! and replays again once a round is answered. This is the design the
//! multi-round texts replace: the call lives on one instance. It is here so
//! one handler serves both generations of clients.
//!
//! **Server-request ids are capabilities.** Each is `<key>-<round>-<question
//! key>`, where `key` is the caller's random key of at least 64 bits
//! ([`Bridge::MIN_KEY_CHARS`] characters: 16 hex digits), never derived from
//! the client's request id: ids of different calls never collide, and no
//! other client can guess one. The host routes a POSTed answer only to a
//! call of the same session (`Mcp-Session-Id`) whose [`pending`](Bridge::pending)
//! holds its id, so that even a leaked id answers nothing across clients.
//!
//! Sans-IO, in the quinn-proto shape: inputs are `handle_answer(…, now)` and
//! `handle_timeout(now)`; outputs are [`Bridge::poll_write`] (event-stream
//! text for the call's response, in order) and [`Bridge::poll_timeout`]. A
//! round not answered within [`Bridge::round_timeout_ms`] ends the call with a
//! JSON-RPC error (`limit-exceeded`); so does a tool still asking after
//! [`Bridge::max_rounds`] rounds (`retry-rounds-exceeded`).

use super::{question_digest, replay::Replay, Carried};
use crate::base::settings::DEFAULT_MAX_ROUNDS;
use crate::{
    base::error::{err, Error, Result},
    base::limits::Limits,
    base::protocol::Protocol,
    base::time::Millis,
    machines::http::{serve::ServerStream, Mode},
    machines::server,
    one_message::envelope::Id,
};
use alloc::{collections::VecDeque, format, string::String, vec::Vec};
use serde_json::{json, Map, Value};

/// One `2025-11-25` call of an await-style tool, held by the instance whose
/// response stream it writes. See the [module](self).
#[derive(Debug)]
pub struct Bridge {
    /// The caller's random key: the prefix of every server request's id.
    key: String,
    request: Value,
    limits: Limits,
    stream: ServerStream,
    /// Answers collected, by question key, and the digest of the question each answered.
    answers: Map<String, Value>,
    pins: Map<String, Value>,
    /// The server requests of the current round: their id (as text) → (key, question).
    pending: Vec<(String, String, Value)>,
    rounds: u32,
    deadline: Option<Millis>,
    writes: VecDeque<String>,
    done: bool,
    /// Rounds a call may take. Default 10.
    pub max_rounds: u32,
    /// How long a round may wait for its answers, in milliseconds. Default 300 000.
    pub round_timeout_ms: u64,
}

impl Bridge {
    /// The fewest characters of a bridge's key: 16 hex digits hold 64 bits.
    pub const MIN_KEY_CHARS: usize = 16;

    /// A bridge for `request` (a `2025-11-25` `tools/call`, `prompts/get` or
    /// `resources/read`), its stream's event ids and server-request ids under
    /// `key`: at least 64 random bits, fresh per call (16 hex digits or more;
    /// a shorter key is `usage-invalid-argument`).
    pub fn new(request: &Value, key: &str, limits: Limits) -> Result<Bridge> {
        let c = crate::one_message::envelope::classify_value(request, Protocol::V2025_11_25, &limits)?;
        if c.kind != crate::base::kind::Kind::Request {
            return Err(err!(UsageInvalidArgument, "a bridge serves a JSON-RPC request"));
        }
        if key.chars().count() < Self::MIN_KEY_CHARS {
            let min = Self::MIN_KEY_CHARS;
            return Err(err!(
                UsageInvalidArgument,
                "a bridge's key names its server requests: {min} random characters or more"
            ));
        }
        Ok(Bridge {
            key: key.into(),
            request: request.clone(),
            limits,
            stream: ServerStream::new(Mode::Legacy, key, 1)?,
            answers: Map::new(),
            pins: Map::new(),
            pending: Vec::new(),
            rounds: 0,
            deadline: None,
            writes: VecDeque::new(),
            done: false,
            max_rounds: DEFAULT_MAX_ROUNDS,
            round_timeout_ms: 300_000,
        })
    }

    /// A replay of the tool from the answers collected so far: run the tool
    /// with it, then [`complete`](Bridge::complete) or [`ask`](Bridge::ask).
    pub fn replay(&self) -> Replay {
        let carried = Carried {
            round: self.rounds,
            answers: self.answers.clone(),
            answered: self.pins.clone(),
            ..Carried::default()
        };
        Replay::from_carried(carried, Protocol::V2025_11_25, self.limits)
    }

    /// The tool asked what `replay` misses: each question goes on the stream
    /// as a server request (ids `<key>-<round>-<question key>`), and the round
    /// waits for the answers until `now + round_timeout_ms`.
    pub fn ask(&mut self, replay: &Replay, now: Millis) -> Result<()> {
        self.live()?;
        if replay.is_complete() {
            return Err(err!(UsageOutOfTurn, "every question has its answer: the tool completes"));
        }
        if self.rounds >= self.max_rounds {
            let e = err!(RetryRoundsExceeded, "the tool still asks after {} rounds", self.rounds);
            return self.fail(&e);
        }
        self.rounds += 1;
        let mut requests = Vec::new();
        for k in replay.missing() {
            let question = replay.question(k).cloned().unwrap_or(Value::Null);
            let id = format!("{}-{}-{k}", self.key, self.rounds);
            requests
                .push(json!({"jsonrpc": "2.0", "id": id, "method": question["method"], "params": question["params"]}));
            self.pending.push((id, k.clone(), question));
        }
        self.stream.ask(&requests, 0)?;
        self.flush();
        self.deadline = Some(now.saturating_add(self.round_timeout_ms));
        Ok(())
    }

    /// The tool completed with `result`: the final response goes on the stream.
    pub fn complete(&mut self, result: &Value) -> Result<()> {
        self.live()?;
        let response = server::complete(&self.request, result, Protocol::V2025_11_25)?;
        self.finish(&response)
    }

    /// The tool's run was refused (an answer that does not fit, a capability
    /// the client lacks…): `error`'s JSON-RPC error response goes on the
    /// stream, and the call is over.
    pub fn refuse(&mut self, error: &Error) -> Result<()> {
        self.live()?;
        let (response, _) = server::error_response(&self.request["id"], error);
        self.finish(&response)
    }

    /// A JSON-RPC response the client POSTed. `Ok(true)` when it completed
    /// the round (replay the tool now); an answer that does not fit its
    /// question is refused with `retry-input-response-invalid` (the host
    /// answers that POST with the error; the round still waits for a fitting
    /// answer). A response to no pending request is `usage-out-of-turn`.
    pub fn handle_answer(&mut self, response: &Value, _now: Millis) -> Result<bool> {
        self.live()?;
        let id = response.get("id").map(Id::text).unwrap_or_default();
        let Some(i) = self.pending.iter().position(|(pending, _, _)| *pending == id) else {
            return Err(err!(UsageOutOfTurn, "no server request of this call has the id {id:?}"));
        };
        let (_, key, question) = &self.pending[i];
        let answer = match (response.get("result"), response.get("error")) {
            (Some(result), None) => result.clone(),
            // The client refused the request: the tool sees a cancelled elicitation.
            _ => json!({"action": "cancel"}),
        };
        if !server::fits(key, &answer, question) {
            return Err(err!(RetryInputResponseInvalid, "the answer to {id:?} does not fit its question"));
        }
        self.pins.insert(key.clone(), question_digest(question));
        self.answers.insert(key.clone(), answer);
        self.pending.remove(i);
        if self.pending.is_empty() {
            self.deadline = None;
        }
        Ok(self.pending.is_empty())
    }

    /// The time [`poll_timeout`](Bridge::poll_timeout) named came: a round
    /// still unanswered ends the call (`limit-exceeded`).
    pub fn handle_timeout(&mut self, now: Millis) {
        if self.deadline.is_some_and(|d| d <= now) && !self.done {
            let e = err!(LimitExceeded, "the round was not answered within {} ms", self.round_timeout_ms);
            let _ = self.fail(&e);
        }
    }

    /// The next text to write on the call's event stream.
    #[must_use]
    pub fn poll_write(&mut self) -> Option<String> {
        self.writes.pop_front()
    }

    /// When to call [`handle_timeout`](Bridge::handle_timeout), if a round waits.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        self.deadline.filter(|_| !self.done)
    }

    /// Whether the call's final response (or error) was written: the host
    /// ends the stream once [`poll_write`](Bridge::poll_write) is drained.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The ids of the server requests still waiting for an answer.
    pub fn pending(&self) -> impl Iterator<Item = &str> {
        self.pending.iter().map(|(id, _, _)| id.as_str())
    }

    fn live(&self) -> Result<()> {
        if self.done {
            Err(err!(UsageOutOfTurn, "the call is over"))
        } else {
            Ok(())
        }
    }

    /// Ends the call with `error` as its JSON-RPC error response; returns it.
    fn fail(&mut self, error: &Error) -> Result<()> {
        self.refuse(error)?;
        Err(error.clone())
    }

    fn finish(&mut self, response: &Value) -> Result<()> {
        self.stream.message(response)?;
        self.flush();
        self.done = true;
        self.deadline = None;
        self.pending.clear();
        Ok(())
    }

    fn flush(&mut self) {
        let text = self.stream.take();
        if !text.is_empty() {
            self.writes.push_back(text);
        }
    }
}
