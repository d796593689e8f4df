//! One client operation: a request carried over HTTP until its final
//! response, in any transport mode, with one way to answer what the server
//! asks in every mode.
//!
//! A host used to glue a [`Client`](super::Client) (rounds) to one
//! [`Call`] per round (HTTP), pick the retries' ids, answer differently per
//! mode, and keep the set of open exchanges. An [`Operation`] owns all of it:
//!
//! - `2026-07-28` (and the SEP texts' MRTR): each round is a [`Call`]; an
//!   `input_required` result becomes [`Event::InputRequired`] (key → question);
//!   once every key is answered the retry ([`super::retry`]: new id, the
//!   answers, the exact `requestState`) goes out as the next round. A result
//!   with state only is retried at once. A round whose response was cut
//!   before it came (the stream ended with no event id to resume from, or a
//!   status without the response) is sent again under a new id, at most
//!   [`Config::max_resends`] times in a row, when it is harmless twice
//!   ([`super::repeat`]): a retry, whose single-use state
//!   ([`crate::state::ReplayGuard`]) keeps a round done once, or a first
//!   request the host calls [`Config::idempotent`].
//! - The Tasks extension (`2026-07-28`): a result that is a task is followed
//!   to its end: `tasks/get` every `pollIntervalMs` (or
//!   [`Config::task_poll_ms`]), each `input_required` status raised as
//!   [`Event::InputRequired`] and answered with `tasks/update`
//!   ([`super::task_update`]), until the task completes ([`Event::Done`] with
//!   its result under the host's id), fails (its error) or is cancelled (the
//!   task itself as the result).
//! - `2025-11-25`, SEP-1858, SEP-1335: one [`Call`]; each server request
//!   (elicitation, sampling, roots) on its stream becomes
//!   [`Event::InputRequired`] keyed by its id's text ([`Id::text`]), and the
//!   answer goes back as that mode sends answers (a POST each, or buffered).
//!   A call cut before its response and before any answer is begun again
//!   under a new id (within [`Config::max_resends`]) when its request is
//!   [`Config::idempotent`]; after an answer, the cut is the failure (the
//!   server may have moved on).
//!
//! A first request refused for its protocol version (-32022) is sent again
//! under a version both sides speak ([`Config::versions`]).
//!
//! An HTTP request that got no server's response (the connection failed
//! before a response, or a gateway answered 502, 503 or 504) is sent again
//! after a growing wait ([`Config::backoff_ms`], never before its
//! `Retry-After`): in MRTR as the round under a new id (the server may have
//! seen it), in the stream modes as the same HTTP request, which its call is
//! waiting on. A first request that is not harmless twice goes again only
//! after a `503`, the one answer that says no server took it
//! ([`super::repeat`]).
//!
//! In every mode a `ping` on the stream is answered `{}` and any other server
//! request the operation does not know is answered -32601, without the host.
//!
//! The machine is in the quinn-proto shape:
//! - Inputs: [`Operation::handle_head`], [`Operation::handle_body`],
//!   [`Operation::handle_end`] for the exchange the host sent,
//!   [`Operation::handle_timeout`], and [`Operation::answer`].
//! - Outputs, drained in this order after every input (and after
//!   [`Operation::new`]): [`Operation::poll_transmit`] (HTTP requests to
//!   send, each with the exchange number to quote back), then
//!   [`Operation::poll_event`] (an answer given while draining is an input:
//!   drain transmits again), then [`Operation::poll_timeout`] (when to call
//!   [`Operation::handle_timeout`]). [`Event::Done`] or [`Event::Failed`] is
//!   the last event; the host may drop the operation once
//!   [`Operation::is_drained`] (exchanges such as a `202` to a POSTed answer
//!   can still be open after the response).
//!
//! Times are the host's milliseconds, from any monotonic clock.
//!
//! What the operation waits for is one phase, moved only through the table
//! `OPERATION_TRANSITIONS` (in `operation/state.rs`, printed in
//! `docs/machines.md`).

use super::{build_retry, check_answer, repeat, task_update, Answers};
use crate::{
    base::error::{err, Error, Result},
    base::kind::ResultType,
    base::protocol::{TasksFlavor, INPUT_METHODS, META_PROTOCOL_VERSION},
    base::rules::RuleId,
    base::tasks::TaskStatus,
    base::time::Millis,
    machines::http::{
        call::{Call, CallConfig, Event as CallEvent},
        Mode, Request,
    },
    one_message::envelope::{self, Id, Kind},
    request::dialect::to_sep_in,
    request::retry as rules,
};
use alloc::{boxed::Box, collections::BTreeMap, collections::VecDeque, format, string::String, vec::Vec};
use serde_json::{json, Map, Value};
use state::{OperationInput, OperationState};

/// How an [`Operation`] reaches its server and how far it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Config {
    /// The transport: mode, endpoint, header fields, and the settings
    /// (protocol, bounds, and the retries allowed before
    /// `retry-rounds-exceeded`, `call.settings.max_rounds`).
    pub call: CallConfig,
    /// Times in a row one round is sent again after it was cut before its
    /// response, and times in a row a request is sent again after it reached
    /// no server (any server's answer starts that count again) (default 2;
    /// 0: never).
    pub max_resends: u32,
    /// The first wait before sending again what reached no server, in
    /// milliseconds; it doubles with each try, up to
    /// [`backoff_max_ms`](Config::backoff_max_ms), and is never shorter than
    /// the `Retry-After` the answer named (default 50).
    pub backoff_ms: u64,
    /// The longest of those waits (default 1000).
    pub backoff_max_ms: u64,
    /// (Tasks) The wait between two `tasks/get`, in milliseconds, when the
    /// server names no `pollIntervalMs` (default 1000).
    pub task_poll_ms: u64,
    /// The protocol versions the client speaks, preferred first (default
    /// none: the request's `_meta` version only). When the first request is
    /// refused with `protocol-version-unsupported` (-32022), the first of
    /// these the server lists in `data.supported` (one not tried yet first) is
    /// put in the request's `_meta` and the request sent again under a new
    /// id, at most once per version listed here; with none in common, the
    /// refusal is the final response.
    pub versions: Vec<String>,
    /// (MRTR) Hedged rounds (default none): see [`Hedge`].
    pub hedge: Option<Hedge>,
    /// Whether the host knows that running the first request twice is
    /// harmless (default no): a read-only or idempotent tool (the server's
    /// own annotations, [`super::repeat::Tools`]), or a tool that asks before
    /// any effect. Only then is a first request hedged, or sent again once a
    /// server may have taken it: it carries nothing a server could recognise
    /// a copy by ([`super::repeat`]).
    pub idempotent: bool,
}

/// (MRTR) When a round is sent again while its first copy has no answer yet.
///
/// Why: a request that reaches a hung instance waits until it wakes, and the
/// tail of the whole system is that wait ("The Tail at Scale": hedged
/// requests). Under MRTR any instance can take a round, so a round whose
/// response has not begun [`after_ms`](Hedge::after_ms) after it was sent
/// goes again, as it was, under a new id, to the same endpoint (the balancer
/// picks an instance). The first response wins; the other copies' events are
/// dropped ([`Operation::abandoned`] names their exchanges, for the host to
/// cut). A host sets `after_ms` from its own round times: a fixed time, or a
/// high percentile of recent rounds.
///
/// Only a request that is harmless twice is hedged ([`super::repeat`]): a
/// retry, whose `requestState` the server's replay guard makes single-use
/// (`state-replayed` for the second copy, which this client does not take for
/// the answer while another copy may still give it; a server that keeps its
/// final responses answers a repeated final round from them); a `tasks/get`
/// or `tasks/update`; and a first request only when [`Config::idempotent`]
/// says so. A first request carries no state: two copies of a one-round
/// `pay` would pay twice, and no server could tell them apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hedge {
    /// How long a round's copies may all be without a response head before
    /// one more goes, in milliseconds.
    pub after_ms: u64,
    /// Copies of one round sent on top of the first.
    pub max: u32,
}

impl Config {
    /// The defaults of [`CallConfig::new`] and of every other field.
    pub fn new(mode: Mode, url: impl Into<String>) -> Config {
        Config {
            call: CallConfig::new(mode, url),
            max_resends: 2,
            backoff_ms: 50,
            backoff_max_ms: 1000,
            task_poll_ms: 1000,
            versions: Vec::new(),
            hedge: None,
            idempotent: false,
        }
    }
}

/// What an [`Operation`] tells its host.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The server asks: answer each key with [`Operation::answer`]. A
    /// question is `{"method", "params"}` (an elicitation, a sampling call, a
    /// roots list).
    InputRequired {
        /// The round asked for: 1 for the first retry (MRTR), or the number of
        /// server requests so far (the stream modes).
        round: u32,
        /// The questions, by key.
        requests: Map<String, Value>,
    },
    /// A notification, or a message that is not this operation's, to pass on.
    Message(Value),
    /// The server broke a rule; the operation goes on.
    Violation(Error),
    /// The final response: a complete result, a task, or a JSON-RPC error.
    Done(Value),
    /// The operation cannot go on, and why.
    Failed(Error),
}

/// A [`Call`] of this operation: one per round (MRTR) or one in all; a
/// hedged round has one per copy.
#[derive(Debug)]
struct Slot {
    serial: u32,
    /// The round it carries (copies of one round share it).
    round: u32,
    /// Whether it gave its response or failed.
    over: bool,
    /// The id of the request it carries (copies of a round differ only in it).
    id: Value,
    call: Call,
}

/// What the operation waits for, with the data of each state
/// ([`OperationState`]); it changes only through
/// [`state::OPERATION_TRANSITIONS`] ([`Operation::step`]).
#[derive(Debug)]
enum Phase {
    /// The current round's response.
    Sending,
    /// (Stream modes) The call's response, after the host answered on it.
    Answered,
    /// (MRTR) Answers to an `input_required` result or task.
    Asking(Box<Asking>),
    /// (Tasks) Nothing in flight until `at`, when `tasks/get` goes out.
    Polling { at: Millis },
    /// The final event was queued.
    Over,
}

impl Phase {
    /// The state, without its data.
    fn state(&self) -> OperationState {
        match self {
            Phase::Sending => OperationState::Sending,
            Phase::Answered => OperationState::Answered,
            Phase::Asking(_) => OperationState::Asking,
            Phase::Polling { .. } => OperationState::Polling,
            Phase::Over => OperationState::Over,
        }
    }
}

/// (MRTR) A round the server asked in, and the answers so far.
#[derive(Debug)]
struct Asking {
    /// The `input_required` response (a result, or a `tasks/get` answer).
    asked: Value,
    questions: Map<String, Value>,
    answers: Map<String, Value>,
}

/// An exchange the host was asked to make and has not ended.
#[derive(Debug)]
struct Open {
    /// The call that asked for it, and the call's own number for it.
    serial: u32,
    local: u64,
    /// (Stream modes) The request, kept to send it again as it was (MRTR
    /// sends the round again under a new id instead: nothing to keep).
    request: Option<Request>,
    /// Whether a server answered it.
    reached: Reached,
    /// When it was handed to the host.
    sent_at: Millis,
}

/// Whether an exchange reached a server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reached {
    /// No response head yet.
    NotYet,
    /// A gateway's 502, 503 or 504: no server took it.
    No { status: u16, retry_after_ms: Option<u64> },
    /// A server's response.
    Yes,
}

/// What is sent again once its wait is over.
#[derive(Debug)]
enum Again {
    /// (MRTR) The round, under a new id.
    Round,
    /// (Stream modes) The same HTTP request, for the call that waits on it.
    Request { serial: u32, local: u64, request: Request },
}

/// (Tasks) The task an operation follows.
#[derive(Debug)]
struct Followed {
    id: String,
    /// The `_meta` of the request that started it, carried by every task request.
    meta: Option<Value>,
    /// The wait before the next `tasks/get`.
    poll_ms: u64,
}

/// One request carried to its final response. See the [module](self).
#[derive(Debug)]
pub struct Operation {
    config: Config,
    /// The id of the request the host started; retries' ids derive from it.
    origin: Value,
    /// The request of the current round.
    sent: Value,
    /// Requests sent so far (the first, retries, re-sends).
    sends: u32,
    /// The protocol versions offered so far (the first request's, then each
    /// one a -32022 made it try).
    tried: Vec<String>,
    /// Retries that answered a round.
    rounds: u32,
    /// Re-sends of the current round in a row.
    resends: u32,
    /// Requests in a row that reached no server (any answer from a server
    /// resets it): the backoff's exponent and what `max_resends` bounds.
    unreached: u32,
    phase: Phase,
    /// (Tasks) The task the first request started.
    task: Option<Followed>,
    /// (Stream modes) Server requests asked and not answered: key → (id, question).
    pending: BTreeMap<String, (Value, Value)>,
    asked: u32,
    calls: Vec<Slot>,
    next_serial: u32,
    /// The round the current calls carry (see [`Slot::round`]).
    round_tag: u32,
    /// (Hedged rounds) When the next copy of the round goes, and copies sent so far.
    hedge_at: Option<Millis>,
    hedges: u32,
    /// (Hedged rounds) A copy's `state-replayed` refusal, kept while another copy may answer.
    held: Option<Value>,
    /// The host's exchange numbers → the open exchange.
    exchanges: BTreeMap<u64, Open>,
    /// What waits to be sent again, and when.
    waiting: Vec<(Millis, Again)>,
    next_exchange: u64,
    transmits: VecDeque<Request>,
    events: VecDeque<Event>,
    /// Every move the operation made, for the tests that walk [`state::OPERATION_TRANSITIONS`].
    #[cfg(test)]
    trail: Vec<(OperationState, OperationInput, OperationState)>,
}

impl Operation {
    /// Starts `request` (a JSON-RPC request with an id, the host's own): the
    /// first output is its POST.
    pub fn new(config: Config, request: Value, now: Millis) -> Result<Operation> {
        let offered = request["params"]["_meta"][META_PROTOCOL_VERSION].as_str().map(String::from);
        let mut op = Operation::fresh(config);
        op.tried = offered.into_iter().collect();
        op.origin = request.get("id").cloned().unwrap_or(Value::Null);
        op.start(request, now)?;
        Ok(op)
    }

    /// An operation that has sent nothing and knows nothing yet: what
    /// [`new`](Operation::new) and [`restore`](Operation::restore) start from.
    fn fresh(config: Config) -> Operation {
        Operation {
            tried: Vec::new(),
            origin: Value::Null,
            sent: Value::Null,
            sends: 0,
            rounds: 0,
            resends: 0,
            unreached: 0,
            phase: Phase::Sending,
            task: None,
            pending: BTreeMap::new(),
            asked: 0,
            calls: Vec::new(),
            next_serial: 0,
            round_tag: 0,
            hedge_at: None,
            hedges: 0,
            held: None,
            exchanges: BTreeMap::new(),
            waiting: Vec::new(),
            next_exchange: 1,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            #[cfg(test)]
            trail: Vec::new(),
            config,
        }
    }

    /// `usage-out-of-turn` unless [`state::OPERATION_TRANSITIONS`] lists
    /// `input` from the current state; else the state it moves to.
    fn may(&self, input: OperationInput) -> Result<OperationState> {
        let from = self.phase.state();
        from.next(input).ok_or_else(|| err!(UsageOutOfTurn, "{input:?} is out of turn for an operation {from:?}"))
    }

    /// Moves the operation by `input` to `phase`, where the table lists the
    /// move (the phase left is returned, with its data); else
    /// `usage-out-of-turn`, and the phase stays.
    fn step(&mut self, input: OperationInput, phase: Phase) -> Result<Phase> {
        let next = self.may(input)?;
        debug_assert_eq!(next, phase.state(), "{input:?} leads to {next:?}");
        #[cfg(test)]
        self.trail.push((self.phase.state(), input, next));
        Ok(core::mem::replace(&mut self.phase, phase))
    }

    /// A move the machine itself decided on: the table must list it (a path
    /// that does not is a bug of this file, caught by the tests).
    fn go(&mut self, input: OperationInput, phase: Phase) {
        let moved = self.step(input, phase);
        debug_assert!(moved.is_ok(), "{moved:?}");
    }

    /// The response head of `exchange`.
    pub fn handle_head(&mut self, exchange: u64, status: u16, headers: &[(String, String)], now: Millis) -> Result<()> {
        let open = self.open(exchange)?;
        if open.reached != Reached::NotYet {
            return Err(err!(UsageOutOfTurn, "exchange {exchange} already has its response head"));
        }
        if matches!(status, 502..=504) {
            let retry_after_ms = crate::machines::http::header(headers, "retry-after")
                .and_then(|v| v.trim().parse::<u64>().ok())
                .map(|s| s.saturating_mul(1000));
            open.reached = Reached::No { status, retry_after_ms };
            return Ok(());
        }
        open.reached = Reached::Yes;
        self.unreached = 0;
        if self.is_current_round(self.exchanges.get(&exchange).map(|o| o.serial)) {
            // A server took the round: its answer is coming.
            self.hedge_at = None;
        }
        let (call, local) = self.route(exchange)?;
        call.handle_head(local, status, headers, now)?;
        self.pump(now);
        Ok(())
    }

    /// Bytes of the body of `exchange`, in any chunking.
    pub fn handle_body(&mut self, exchange: u64, chunk: &[u8], now: Millis) -> Result<()> {
        match self.open(exchange)?.reached {
            Reached::Yes => {}
            Reached::No { .. } => return Ok(()), // a gateway's page: nothing of the call's
            Reached::NotYet => return Err(err!(UsageOutOfTurn, "a body for exchange {exchange} before its head")),
        }
        let (call, local) = self.route(exchange)?;
        call.handle_body(local, chunk, now)?;
        self.pump(now);
        Ok(())
    }

    /// The response to `exchange` ended (closed by the server or cut), or
    /// none came (the connection failed).
    pub fn handle_end(&mut self, exchange: u64, now: Millis) -> Result<()> {
        let reached = self.open(exchange)?.reached;
        // An exchange its call gave up as stalled went again already, and one with a copy still open may
        // yet be answered by the copy: the end of either (the host's cut, say) is no news.
        let unanswered = reached != Reached::Yes && !self.is_given_up(exchange) && !self.has_open_copy(exchange);
        if unanswered && self.send_again(exchange, now) {
            return Ok(());
        }
        if unanswered && self.is_sole_copy(exchange) {
            // No tries left: the call judges what came (or that nothing did), and its failure is final.
            self.resends = self.config.max_resends;
        }
        let (call, local) = self.route(exchange)?;
        if let Reached::No { status, .. } = reached {
            call.handle_head(local, status, &[], now)?;
        }
        call.handle_end(local, now)?;
        self.exchanges.remove(&exchange);
        self.pump(now);
        self.forget_finished_calls();
        Ok(())
    }

    /// The time came that [`poll_timeout`](Operation::poll_timeout) named.
    pub fn handle_timeout(&mut self, now: Millis) {
        if self.hedge_at.is_some_and(|at| at <= now) {
            return self.hedge(now);
        }
        if self.stall_at().is_some_and(|at| at <= now) {
            // The old call's exchange is an earlier round's now: the host's to cut.
            self.resends += 1;
            self.pending.clear();
            return self.send_round_again(now);
        }
        if self.waiting.iter().any(|(at, _)| *at <= now) {
            let (due, later): (Vec<_>, Vec<_>) =
                core::mem::take(&mut self.waiting).into_iter().partition(|(at, _)| *at <= now);
            self.waiting = later;
            for (_, again) in due {
                self.again(again, now);
            }
            return;
        }
        if let Phase::Polling { at } = self.phase {
            if at <= now {
                self.get_task(now);
            }
            return;
        }
        if let Some(slot) = self.current() {
            slot.call.handle_timeout(now);
        }
        self.pump(now);
    }

    /// Answers the question `key` of an [`Event::InputRequired`] with
    /// `result` (an elicitation's `{"action", …}`, a sampling result, a roots
    /// list). An answer that does not fit its question is refused with its
    /// rule, and the question stays open.
    pub fn answer(&mut self, key: &str, result: Value, now: Millis) -> Result<()> {
        if let Some((id, question)) = self.pending.get(key).cloned() {
            self.check(key, &question, &result)?;
            let response = json!({"jsonrpc": "2.0", "id": id, "result": result});
            self.may(OperationInput::Answer)?;
            let call = self.current().ok_or_else(|| err!(UsageOutOfTurn, "the operation is over"))?;
            call.call.answer(&response, now)?;
            self.pending.remove(key);
            self.go(OperationInput::Answer, Phase::Answered);
            self.pump(now);
            return Ok(());
        }
        let question = self.open_question(key)?;
        self.check(key, &question, &result)?;
        let Phase::Asking(asking) = &mut self.phase else { return Ok(()) };
        asking.answers.insert(key.into(), result);
        if asking.answers.len() == asking.questions.len() {
            self.send_retry(now)?;
        }
        Ok(())
    }

    /// The question `key` of the round asked, not answered yet.
    fn open_question(&self, key: &str) -> Result<Value> {
        let Phase::Asking(asking) = &self.phase else {
            return Err(err!(UsageOutOfTurn, "the server asks nothing of this operation now"));
        };
        let Some(question) = asking.questions.get(key) else {
            return Err(err!(UsageUnknownHandle, "the server asked nothing under the key {key:?}"));
        };
        if asking.answers.contains_key(key) {
            return Err(err!(UsageOutOfTurn, "the question {key:?} is answered already"));
        }
        Ok(question.clone())
    }

    /// The host's answer to `key` fits its question; lenient, an answer to
    /// a question that is itself faulty is judged by the question's kind
    /// alone, as the checker judges it (a URL-mode accept carries no
    /// `content`, whatever the ask got wrong).
    fn check(&self, key: &str, question: &Value, answer: &Value) -> Result<()> {
        let call = &self.config.call;
        if call.is_lenient() && !super::sound_question(key, question, call.settings.protocol) {
            return super::check_answer_by_kind(key, question, answer, &call.settings.limits);
        }
        check_answer(key, question, answer, &call.settings.limits)
    }

    /// The next HTTP request to send.
    #[must_use]
    pub fn poll_transmit(&mut self) -> Option<Request> {
        self.transmits.pop_front()
    }

    /// The next event for the host.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// When to call [`handle_timeout`](Operation::handle_timeout), if anything waits.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        let waiting = self.waiting.iter().map(|(at, _)| *at).min();
        let phase = match self.phase {
            Phase::Over => return None,
            Phase::Polling { at } => Some(at),
            _ => self.calls.last().and_then(|slot| slot.call.poll_timeout()),
        };
        waiting.into_iter().chain(phase).chain(self.hedge_at).chain(self.stall_at()).min()
    }

    /// Whether the final event was taken and no exchange is open: the host
    /// may drop the operation.
    pub fn is_drained(&self) -> bool {
        matches!(self.phase, Phase::Over) && self.events.is_empty() && self.exchanges.is_empty()
    }

    /// The open exchanges whose answer no longer matters: those of an earlier
    /// round's calls, such as a hedged round's losing copies (see [`Hedge`]).
    /// The host may cut them (then [`handle_end`](Operation::handle_end)
    /// each) rather than wait for a slow server.
    pub fn abandoned(&self) -> Vec<u64> {
        let current =
            |serial: u32| self.calls.iter().any(|s| s.serial == serial && s.round == self.round_tag && !s.over);
        let live = !matches!(self.phase, Phase::Over);
        let stale = |n: u64, o: &Open| !(live && current(o.serial)) || self.is_given_up(n);
        self.exchanges.iter().filter(|(n, o)| stale(**n, o)).map(|(n, _)| *n).collect()
    }

    /// Whether the call of `exchange` gave it up as stalled ([`CallConfig::stall_ms`]).
    fn is_given_up(&self, exchange: u64) -> bool {
        self.call_of(exchange).is_some_and(|(call, local)| call.abandoned().contains(&local))
    }

    /// Whether the call of `exchange` has another copy of it open ([`CallConfig::stall_ms`]).
    fn has_open_copy(&self, exchange: u64) -> bool {
        self.call_of(exchange).is_some_and(|(call, local)| call.has_open_copy(local))
    }

    /// The call that sent `exchange`, and its own number for it.
    fn call_of(&self, exchange: u64) -> Option<(&Call, u64)> {
        let open = self.exchanges.get(&exchange)?;
        let slot = self.calls.iter().find(|s| s.serial == open.serial)?;
        Some((&slot.call, open.local))
    }

    /// (Stream modes) When the call's request, with no response head after
    /// [`CallConfig::stall_ms`], is given up and the call begun again under
    /// a new id: only while nothing was answered on it, it is harmless twice
    /// ([`super::repeat`]), and re-sends are left. (MRTR rounds are hedged
    /// instead: [`Hedge`].)
    fn stall_at(&self) -> Option<Millis> {
        let ms = self.config.call.stall_ms?;
        // `Sending`, not `Answered`: only while nothing was answered on the call.
        let stream = self.config.call.mode.server_requests();
        if !(stream && matches!(self.phase, Phase::Sending) && self.is_repeatable())
            || self.resends >= self.config.max_resends
        {
            return None;
        }
        let serial = self.calls.last()?.serial;
        let request = self.exchanges.values().find(|o| o.serial == serial && o.local == 1)?;
        (request.reached == Reached::NotYet).then(|| request.sent_at.saturating_add(ms))
    }

    /// The id of the request in flight: the current round's, while its
    /// response is awaited (in the stream modes, the whole call). It is
    /// what a `notifications/cancelled` names when the host gives the
    /// operation up ([`super::cancelled`]). `None` while the operation waits
    /// for the host's answers (nothing is in flight), polls a task (that is
    /// `tasks/cancel`'s business), or is over.
    pub fn request_id(&self) -> Option<&Value> {
        match self.phase {
            Phase::Sending | Phase::Answered => self.sent.get("id"),
            Phase::Asking(_) | Phase::Polling { .. } | Phase::Over => None,
        }
    }

    /// Retries that answered a round so far.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// Sends `request` as the current round, in a new [`Call`].
    fn start(&mut self, request: Value, now: Millis) -> Result<()> {
        self.round_tag += 1;
        self.hedges = 0;
        self.held = None;
        self.hedge_at = None;
        self.carry(request, now)?;
        // Read once the round's request is the one sent: whether it may be hedged depends on it.
        self.hedge_at = self.hedge_delay().map(|ms| now.saturating_add(ms));
        Ok(())
    }

    /// Sends `request` in a new [`Call`] of the current round.
    fn carry(&mut self, request: Value, now: Millis) -> Result<()> {
        let call = Call::new(self.config.call.clone(), &request, now)?;
        self.sends += 1;
        self.sent = request;
        self.go(OperationInput::Send, Phase::Sending);
        let id = self.sent.get("id").cloned().unwrap_or(Value::Null);
        self.calls.push(Slot { serial: self.next_serial, round: self.round_tag, over: false, id, call });
        self.next_serial += 1;
        self.pump(now);
        Ok(())
    }

    /// (Hedged rounds) The wait before the next copy of the round, while
    /// copies are left: MRTR rounds (a stream mode's call holds the server's
    /// requests) and task requests that are harmless twice.
    fn hedge_delay(&self) -> Option<u64> {
        let hedge = self.config.hedge?;
        let mrtr = self.config.call.settings.protocol.rules().mrtr && !self.config.call.mode.server_requests();
        (mrtr && self.is_repeatable() && self.hedges < hedge.max).then_some(hedge.after_ms)
    }

    /// Whether the current round's request may run twice ([`super::repeat`]).
    fn is_repeatable(&self) -> bool {
        repeat::is_repeatable(&self.sent, self.config.idempotent)
    }

    /// (Hedged rounds) No copy of the round has a response head after the
    /// wait: one more copy goes, under a new id.
    fn hedge(&mut self, now: Millis) {
        self.hedge_at = None;
        if !matches!(self.phase, Phase::Sending) {
            return;
        }
        self.hedges += 1;
        self.hedge_at = self.hedge_delay().map(|ms| now.saturating_add(ms));
        let mut request = self.sent.clone();
        request["id"] = self.next_id();
        if let Err(e) = self.carry(request, now) {
            self.finish(Event::Failed(e));
        }
    }

    /// Whether the call `serial` carries the current round.
    fn is_current_round(&self, serial: Option<u32>) -> bool {
        serial.is_some_and(|serial| self.calls.iter().any(|s| s.serial == serial && s.round == self.round_tag))
    }

    /// The id of the next request this operation sends: the host's id with
    /// the number of requests sent so far (`7` → `"7.1"`, `"7.2"`, …),
    /// unique among the operation's requests and apart from the host's own.
    fn next_id(&self) -> Value {
        Value::String(format!("{}.{}", Id::text(&self.origin), self.sends))
    }

    /// Every key answered: the retry goes out as the next round.
    fn send_retry(&mut self, now: Millis) -> Result<()> {
        if !matches!(self.phase, Phase::Asking(_)) {
            return Ok(());
        }
        // The retry goes (one that cannot be built then fails the operation).
        let Ok(Phase::Asking(asking)) = self.step(OperationInput::Send, Phase::Sending) else { return Ok(()) };
        let Asking { asked, answers, .. } = *asking;
        let id = self.next_id();
        let (protocol, limits) = (self.config.call.settings.protocol, self.config.call.settings.limits);
        let answers = Value::Object(answers);
        let built = match self.task {
            Some(_) => task_update(&self.sent, &asked, &answers, &id, &limits),
            // Each answer was checked against its question as it came, and every question has one.
            None => build_retry(&self.sent, &asked, &answers, &id, protocol, &limits, Answers::Checked),
        };
        let request = match built {
            Ok(r) => r,
            Err(e) => {
                self.finish(Event::Failed(e));
                return Ok(());
            }
        };
        self.rounds += 1;
        self.resends = 0;
        self.start(request, now)
    }

    /// Moves every call's transmits out, then handles the current call's
    /// events until none is left (handling one may answer, which transmits).
    fn pump(&mut self, now: Millis) {
        loop {
            for i in 0..self.calls.len() {
                while let Some(request) = self.calls[i].call.poll_transmit() {
                    let (serial, local) = (self.calls[i].serial, request.exchange);
                    self.transmit(serial, local, request, now);
                }
            }
            let mut events = Vec::new();
            for slot in self.calls.iter_mut() {
                while let Some(event) = slot.call.poll_event() {
                    // An earlier round's call is over: what it still says is stale.
                    if slot.round == self.round_tag && !slot.over {
                        slot.over = matches!(event, CallEvent::Response(_) | CallEvent::Failed(_));
                        events.push((slot.serial, event));
                    }
                }
            }
            if events.is_empty() {
                return;
            }
            for (serial, event) in events {
                self.on_call_event(serial, event, now);
            }
        }
    }

    fn on_call_event(&mut self, serial: u32, event: CallEvent, now: Millis) {
        // A copy of a round that another copy settled (or an earlier round) says nothing more.
        if matches!(self.phase, Phase::Over) || !self.is_current_round(Some(serial)) {
            return;
        }
        match event {
            CallEvent::ServerRequest(request) => self.server_request(request, now),
            CallEvent::Message(m) => self.events.push_back(Event::Message(m)),
            CallEvent::Violation(e) => self.events.push_back(Event::Violation(e)),
            CallEvent::Response(response) if self.other_copy_may_answer(serial) && is_state_replayed(&response) => {
                self.held = Some(response);
            }
            CallEvent::Response(response) => {
                self.settle(serial);
                self.response(response, now)
            }
            CallEvent::Failed(_) if self.other_copy_may_answer(serial) => {}
            CallEvent::Failed(e) => match self.held.take() {
                // Every copy is over: the refusal one of them got is the round's answer.
                Some(refused) => {
                    let refused_by = self.calls.iter().find(|s| Some(&s.id) == refused.get("id")).map(|s| s.serial);
                    self.settle(refused_by.unwrap_or(serial));
                    self.response(refused, now)
                }
                None => self.call_failed(e, now),
            },
        }
    }

    /// Whether `exchange` belongs to the current round's call and no other
    /// copy of the round may still answer: what it ends with is the round's.
    fn is_sole_copy(&self, exchange: u64) -> bool {
        let serial = self.exchanges.get(&exchange).map(|o| o.serial);
        self.is_current_round(serial) && serial.is_some_and(|s| !self.other_copy_may_answer(s))
    }

    /// (Hedged rounds) Whether a copy of the round other than `serial` is still waiting for its response.
    fn other_copy_may_answer(&self, serial: u32) -> bool {
        self.calls.iter().any(|s| s.serial != serial && s.round == self.round_tag && !s.over)
    }

    /// The round has its answer, from the copy `serial`: the round's request
    /// is that copy's (the next round retries the request the server
    /// answered), and the other copies are stale from now on.
    fn settle(&mut self, serial: u32) {
        if let Some(slot) = self.calls.iter().find(|s| s.serial == serial) {
            self.sent["id"] = slot.id.clone();
        }
        self.hedge_at = None;
        self.held = None;
        // A re-send of the round that waits its turn (a copy that reached no server) is moot now.
        self.waiting.retain(|(_, again)| !matches!(again, Again::Round));
        self.round_tag += 1;
    }

    /// A server request on the current call's stream.
    fn server_request(&mut self, request: Value, now: Millis) {
        let method = request["method"].as_str().unwrap_or_default();
        let id = request["id"].clone();
        let reply = match method {
            "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            m if INPUT_METHODS.contains(&m) && self.config.call.mode.server_requests() => {
                let key = Id::text(&id);
                let question = json!({"method": method, "params": request.get("params").cloned().unwrap_or(json!({}))});
                self.pending.insert(key.clone(), (id, question.clone()));
                self.asked += 1;
                let mut requests = Map::new();
                requests.insert(key, question);
                return self.events.push_back(Event::InputRequired { round: self.asked, requests });
            }
            _ => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "Method not found"}}),
        };
        if let Some(slot) = self.current() {
            // The call reported this request and is not over: it takes the answer.
            let _ = slot.call.answer(&reply, now);
        }
    }

    /// The current round's response.
    fn response(&mut self, response: Value, now: Millis) {
        let (protocol, limits) = (self.config.call.settings.protocol, self.config.call.settings.limits);
        if !protocol.rules().mrtr || self.config.call.mode.server_requests() {
            return self.finish(Event::Done(response));
        }
        if self.task.is_some() {
            return self.task_response(response, now);
        }
        if self.rounds == 0 && self.renegotiate(&response, now) {
            return;
        }
        let extension = protocol.rules().tasks == TasksFlavor::Extension;
        // Lenient: the call reported the content's faults; the kind decides.
        let classified = if self.config.call.is_lenient() {
            envelope::classify_value_into(&response, protocol, &limits, &mut Vec::new())
        } else {
            envelope::classify_value(&response, protocol, &limits)
        };
        match classified {
            Ok(c) if c.kind == Kind::InputRequired => {}
            Ok(c) if c.result_type == Some(ResultType::Task) && extension => return self.task_created(&response, now),
            _ => return self.finish(Event::Done(response)),
        }
        if let Err(e) = rules::rounds_exceeded(self.rounds.saturating_add(1), self.config.call.settings.max_rounds) {
            return self.finish(Event::Failed(e));
        }
        let questions = match to_sep_in(&response, protocol)["result"].get("inputRequests") {
            Some(Value::Object(q)) => q.clone(),
            _ => Map::new(),
        };
        let empty = questions.is_empty();
        let asking = Asking { asked: response, questions: questions.clone(), answers: Map::new() };
        self.go(OperationInput::Ask, Phase::Asking(Box::new(asking)));
        if empty {
            // State only (the server shed load): retry at once.
            if let Err(e) = self.send_retry(now) {
                self.finish(Event::Failed(e));
            }
            return;
        }
        self.events.push_back(Event::InputRequired { round: self.rounds + 1, requests: questions });
    }

    /// A refusal of the first request's version (-32022) that names a version
    /// of [`Config::versions`]: the request goes again under it
    /// (only the first round: sealed state binds the version). Whether it did.
    fn renegotiate(&mut self, response: &Value, now: Millis) -> bool {
        let refused = RuleId::ProtocolVersionUnsupported.code().map(i64::from);
        if response["error"]["code"].as_i64() != refused {
            return false;
        }
        let Some(supported) = response["error"]["data"]["supported"].as_array() else { return false };
        let offered = |v: &&String| supported.iter().any(|s| s.as_str() == Some(v.as_str()));
        // One more try per version the client speaks, at most: a version not tried yet first, else
        // (the server refused one it lists as served) the first it lists, once more.
        if self.tried.len() > self.config.versions.len() {
            return false;
        }
        let mut common = self.config.versions.iter().filter(offered);
        let Some(version) = common.clone().find(|v| !self.tried.contains(v)).or_else(|| common.next()).cloned() else {
            return false;
        };
        let mut request = self.sent.clone();
        request["id"] = self.next_id();
        request["params"]["_meta"][META_PROTOCOL_VERSION] = Value::String(version.clone());
        self.tried.push(version);
        self.send(request, now);
        true
    }

    /// (Tasks) The first request started a task: follow it.
    fn task_created(&mut self, response: &Value, now: Millis) {
        let task = &response["result"];
        let Some(id) = task["taskId"].as_str() else {
            return self.finish(Event::Failed(err!(TaskInputResponseWithoutTask, "a task result names its taskId")));
        };
        let meta = self.sent["params"].get("_meta").cloned();
        self.task = Some(Followed { id: id.into(), meta, poll_ms: self.config.task_poll_ms });
        self.task_status(task, now);
    }

    /// (Tasks) The answer to `tasks/get` or `tasks/update`.
    fn task_response(&mut self, response: Value, now: Millis) {
        if response.get("error").is_some() {
            return self.finish(Event::Done(response));
        }
        if self.sent["method"] == "tasks/update" {
            return self.poll(now);
        }
        let task = response["result"].clone();
        if task["status"] == "input_required" {
            return self.task_asks(response, now);
        }
        self.task_status(&task, now);
    }

    /// (Tasks) A task as the server shows it: poll again, or the end.
    fn task_status(&mut self, task: &Value, now: Millis) {
        let Some(status) = self.seen_status(task) else { return };
        let id = self.origin.clone();
        // A task created already over (a tool that asked nothing) shows no outcome in its
        // CreateTaskResult: `tasks/get` does (found by the simulation's one-round tool).
        let outcome = task.get("result").is_some() || task.get("error").is_some();
        let created = self.sent["method"] != "tasks/get";
        match status {
            TaskStatus::Completed | TaskStatus::Failed if created && !outcome => {
                self.go(OperationInput::Wait, Phase::Polling { at: now });
            }
            TaskStatus::Working | TaskStatus::InputRequired => self.poll(now),
            TaskStatus::Completed => {
                let result = task.get("result").cloned().unwrap_or_else(|| json!({}));
                self.finish(Event::Done(json!({"jsonrpc": "2.0", "id": id, "result": result})));
            }
            TaskStatus::Failed => {
                let error =
                    task.get("error").cloned().unwrap_or_else(|| json!({"code": -32603, "message": "the task failed"}));
                self.finish(Event::Done(json!({"jsonrpc": "2.0", "id": id, "error": error})));
            }
            TaskStatus::Cancelled => self.finish(Event::Done(json!({"jsonrpc": "2.0", "id": id, "result": task}))),
        }
    }

    /// (Tasks) The status `task` shows, its poll interval kept; `None` when
    /// it is no status at all (the operation failed). (Following stops at the
    /// first terminal status, so no status the table forbids can follow.)
    fn seen_status(&mut self, task: &Value) -> Option<TaskStatus> {
        let status = match TaskStatus::from_name(task["status"].as_str().unwrap_or("")) {
            Ok(s) => s,
            Err(e) => {
                self.finish(Event::Failed(e));
                return None;
            }
        };
        let followed = self.task.as_mut()?;
        if let Some(ms) = task["pollIntervalMs"].as_u64() {
            followed.poll_ms = ms;
        }
        Some(status)
    }

    /// (Tasks) An `input_required` task: its unanswered requests are the questions.
    fn task_asks(&mut self, response: Value, now: Millis) {
        if self.seen_status(&response["result"]).is_none() {
            return;
        }
        let questions = match response["result"].get("inputRequests") {
            Some(Value::Object(q)) if !q.is_empty() => q.clone(),
            _ => {
                let e = err!(TaskInputRequestsMissing, "an input_required task shows the requests it waits on");
                self.events.push_back(Event::Violation(e));
                return self.poll(now);
            }
        };
        if let Err(e) = rules::rounds_exceeded(self.rounds.saturating_add(1), self.config.call.settings.max_rounds) {
            return self.finish(Event::Failed(e));
        }
        let asking = Asking { asked: response, questions: questions.clone(), answers: Map::new() };
        self.go(OperationInput::Ask, Phase::Asking(Box::new(asking)));
        self.events.push_back(Event::InputRequired { round: self.rounds + 1, requests: questions });
    }

    /// (Tasks) Waits the poll interval, then asks how the task is.
    fn poll(&mut self, now: Millis) {
        let wait = self.task.as_ref().map_or(self.config.task_poll_ms, |t| t.poll_ms);
        self.go(OperationInput::Wait, Phase::Polling { at: now.saturating_add(wait) });
    }

    /// (Tasks) `tasks/get` of the followed task, carrying the first request's `_meta`.
    fn get_task(&mut self, now: Millis) {
        let Some(task) = &self.task else { return };
        let mut params = json!({"taskId": task.id});
        if let Some(meta) = &task.meta {
            params["_meta"] = meta.clone();
        }
        let request = json!({"jsonrpc": "2.0", "id": self.next_id(), "method": "tasks/get", "params": params});
        self.resends = 0;
        self.send(request, now);
    }

    /// The current call failed: a round cut before its response is sent
    /// again (MRTR, within the bound); anything else ends the operation.
    fn call_failed(&mut self, error: Error, now: Millis) {
        let cut = matches!(error.rule(), RuleId::SseStreamEnded | RuleId::HttpStatusUnexpected);
        // A stream mode's call is begun again only while nothing was answered on it: an
        // answer may have moved the server on, and the new call could not carry it.
        let fresh = !matches!(self.phase, Phase::Answered);
        // A request a server may have taken goes again only if it is harmless twice.
        if !(cut && fresh && self.is_repeatable() && self.resends < self.config.max_resends) {
            return self.finish(Event::Failed(error));
        }
        self.resends += 1;
        self.pending.clear();
        self.send_round_again(now);
    }

    /// The current round's request again, under a new id (the server may
    /// have seen the first).
    fn send_round_again(&mut self, now: Millis) {
        let mut request = self.sent.clone();
        request["id"] = self.next_id();
        self.send(request, now);
    }

    /// [`start`](Operation::start), its refusal the operation's failure.
    fn send(&mut self, request: Value, now: Millis) {
        if let Err(e) = self.start(request, now) {
            self.finish(Event::Failed(e));
        }
    }

    fn finish(&mut self, event: Event) {
        self.go(OperationInput::Finish, Phase::Over);
        self.pending.clear();
        self.waiting.clear();
        self.events.push_back(event);
    }

    /// The call of the current round, while the operation goes on.
    fn current(&mut self) -> Option<&mut Slot> {
        match self.phase {
            Phase::Over => None,
            _ => self.calls.last_mut(),
        }
    }

    /// Hands `request` (the call `serial`'s exchange `local`) to the host
    /// under a number of the operation's.
    fn transmit(&mut self, serial: u32, local: u64, mut request: Request, now: Millis) {
        let number = self.next_exchange;
        self.next_exchange += 1;
        request.exchange = number;
        let kept = self.config.call.mode.server_requests().then(|| request.clone());
        self.exchanges.insert(number, Open { serial, local, request: kept, reached: Reached::NotYet, sent_at: now });
        self.transmits.push_back(request);
    }

    /// The open exchange `exchange`.
    fn open(&mut self, exchange: u64) -> Result<&mut Open> {
        self.exchanges.get_mut(&exchange).ok_or_else(|| err!(UsageUnknownHandle, "no open exchange {exchange}"))
    }

    /// `exchange` reached no server: it waits to be sent again, if tries are
    /// left and its call is the current one. Whether it does.
    fn send_again(&mut self, exchange: u64, now: Millis) -> bool {
        // A settled round's exchange, or a hedged copy while another may still answer, just ends.
        if matches!(self.phase, Phase::Over)
            || !self.is_sole_copy(exchange)
            || self.unreached >= self.config.max_resends
            || !self.may_have_run_twice_safely(exchange)
        {
            return false;
        }
        let Some(open) = self.exchanges.remove(&exchange) else { return false };
        self.unreached += 1;
        let doubled = self.config.backoff_ms.saturating_mul(1 << (self.unreached - 1).min(20));
        let mut wait = doubled.min(self.config.backoff_max_ms);
        if let Reached::No { retry_after_ms: Some(ms), .. } = open.reached {
            wait = wait.max(ms);
        }
        let again = match open.request {
            Some(request) => {
                if let Some(slot) = self.calls.iter_mut().find(|s| s.serial == open.serial) {
                    let _ = slot.call.handle_unreached(open.local);
                }
                Again::Request { serial: open.serial, local: open.local, request }
            }
            None => Again::Round,
        };
        self.waiting.push((now.saturating_add(wait), again));
        true
    }

    /// Whether `exchange`, which got no server's response, may go again: it
    /// is harmless twice, or a `503` says no server took it. Only a call's
    /// first exchange carries its request ([`Call::new`] POSTs it first); a
    /// stream mode's resumes only read, and its answers are keyed by their ids.
    fn may_have_run_twice_safely(&self, exchange: u64) -> bool {
        let Some(open) = self.exchanges.get(&exchange) else { return false };
        let carries_request = open.local == 1;
        let untaken = matches!(open.reached, Reached::No { status, .. } if repeat::proves_untaken(status));
        !carries_request || untaken || self.is_repeatable()
    }

    /// Sends again what waited.
    fn again(&mut self, again: Again, now: Millis) {
        if matches!(self.phase, Phase::Over) {
            return;
        }
        match again {
            Again::Request { serial, local, request } => {
                let Some(slot) = self.calls.iter_mut().find(|s| s.serial == serial) else { return };
                if slot.call.abandoned().contains(&local) || slot.call.has_open_copy(local) {
                    // While it waited, its call gave it up or sent a copy: the copy carries it.
                    let _ = slot.call.handle_end(local, now);
                    return self.pump(now);
                }
                // Its stall is counted from now: it waited its backoff, not a server.
                let _ = slot.call.handle_resent(local, now);
                self.transmit(serial, local, request, now)
            }
            Again::Round => self.send_round_again(now),
        }
    }

    /// The call that sent `exchange`, and its own number for it.
    fn route(&mut self, exchange: u64) -> Result<(&mut Call, u64)> {
        let Some(&Open { serial, local, .. }) = self.exchanges.get(&exchange) else {
            return Err(err!(UsageUnknownHandle, "no open exchange {exchange}"));
        };
        let slot = self.calls.iter_mut().find(|s| s.serial == serial);
        slot.map(|s| (&mut s.call, local)).ok_or_else(|| err!(UsageUnknownHandle, "no open exchange {exchange}"))
    }

    /// Drops earlier rounds' calls once none of their exchanges is open.
    fn forget_finished_calls(&mut self) {
        let last = self.calls.last().map(|s| s.serial);
        let open: Vec<u32> = self.exchanges.values().map(|o| o.serial).collect();
        self.calls.retain(|s| Some(s.serial) == last || open.contains(&s.serial));
    }
}

/// Whether `response` is a server's `state-replayed` refusal: the answer a
/// second copy of a round gets once the first used its state.
fn is_state_replayed(response: &Value) -> bool {
    response["error"]["data"]["rule"] == RuleId::StateReplayed.name()
}

mod snapshot;
mod state;

#[cfg(test)]
mod walk;

#[cfg(test)]
mod page;

#[cfg(test)]
mod tests;
