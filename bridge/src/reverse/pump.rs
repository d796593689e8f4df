//! One [`mrtr::client::Operation`] in `2025-11-25` mode against the
//! upstream, and its HTTP exchanges in flight: what every upstream request
//! of the reverse bridge runs on (`initialize`, a relayed `tools/list`, a
//! parked `tools/call`).
//!
//! The operation decides (its POST with `Accept: application/json,
//! text/event-stream`, each server request on the call's stream as
//! [`Event::InputRequired`] keyed by its id's text, each answer POSTed as a
//! JSON-RPC response to that id, a `ping` answered); this module only moves
//! its requests through [`crate::upstream::exchange`] (which feeds the
//! upstream side's checker) and its parts back in.

use crate::upstream::{self, Part};
use crate::Shared;
use mrtr::client::operation::{Config, Event};
use mrtr::client::Operation;
use mrtr::http::{Headers, Mode};
use mrtr::{Error, Millis, Protocol};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// The protocol the upstream speaks.
pub(crate) const UPSTREAM: Protocol = Protocol::V2025_11_25;

/// An operation and its exchanges in flight.
pub(crate) struct Pump {
    shared: Arc<Shared>,
    op: Operation,
    clock: Instant,
    /// Bounded ([`upstream::PARTS`]): an exchange reads upstream's stream
    /// no further ahead of the operation than these slots (a parked call's
    /// task goes on feeding them to the operation, whose `StreamLimits`
    /// bound the stream; a pump no one waits on stops its exchanges).
    parts_tx: mpsc::Sender<Part>,
    parts_rx: mpsc::Receiver<Part>,
    /// The header fields of the first response head (`mcp-session-id` of `initialize`).
    pub(crate) first_head: Option<Vec<(String, String)>>,
    /// The exchanges' tasks: an exchange whose stream never sends again
    /// would never notice that nobody reads it, so an abandoned call aborts
    /// them ([`Pump::abort`]), which closes their connections.
    exchanges: Vec<tokio::task::AbortHandle>,
    /// Upstream answered `404`: it does not know the session (it restarted,
    /// or let the session go), so nothing of this request ran there.
    session_gone: bool,
    /// The id of the request upstream gets.
    id: Value,
}

/// Why a relayed request got no response.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) error: Error,
    /// Upstream does not know the session: a new one may serve the request.
    pub(crate) session_gone: bool,
}

/// What woke a waiting pump.
pub(crate) enum Woke {
    /// A part was fed (or refused: the operation fails on its own).
    Fed,
    /// The deadline passed.
    Deadline,
}

impl Pump {
    /// Starts `request` (an upstream request with its id) with `headers` on every exchange.
    pub(crate) fn start(shared: Arc<Shared>, request: Value, headers: Headers) -> Result<Pump, Error> {
        let mut config = Config::new(Mode::Legacy, shared.upstream_url.clone());
        config.call.settings.limits = shared.upstream.limits();
        config.call.headers = headers;
        let id = request.get("id").cloned().unwrap_or(Value::Null);
        let op = Operation::new(config, request, Millis(0))?;
        let (parts_tx, parts_rx) = upstream::parts();
        let mut pump = Pump {
            shared,
            op,
            clock: Instant::now(),
            parts_tx,
            parts_rx,
            first_head: None,
            exchanges: Vec::new(),
            session_gone: false,
            id,
        };
        pump.send();
        Ok(pump)
    }

    /// The operation's clock: milliseconds since it started.
    fn now(&self) -> Millis {
        Millis(u64::try_from(self.clock.elapsed().as_millis()).unwrap_or(u64::MAX))
    }

    /// Sends every HTTP request the operation has queued.
    fn send(&mut self) {
        while let Some(request) = self.op.poll_transmit() {
            self.exchanges.retain(|task| !task.is_finished());
            let task = tokio::spawn(upstream::exchange(self.shared.clone(), request, self.parts_tx.clone()));
            self.exchanges.push(task.abort_handle());
        }
    }

    /// Whether upstream answered `404` (see [`Failure::session_gone`]).
    pub(crate) fn session_gone(&self) -> bool {
        self.session_gone
    }

    /// Whether `response` is upstream's refusal of the session rather than
    /// an answer to the request: a `404` (Streamable HTTP's answer to an
    /// unknown `Mcp-Session-Id`) whose body answers no request of ours (the
    /// Python SDK's `"id": null`).
    pub(crate) fn refuses_session(&self, response: &Value) -> bool {
        self.session_gone && response.get("id") != Some(&self.id)
    }

    /// Abandons the operation's exchanges still open: their connections
    /// close, so upstream sees the call's stream end. (A call that ended
    /// normally is not aborted: its stream ends on its own, and the
    /// upstream side's checker sees that end.)
    pub(crate) fn abort(&mut self) {
        for task in self.exchanges.drain(..) {
            task.abort();
        }
    }

    /// The operation's events so far (after sending what it queued).
    pub(crate) fn events(&mut self) -> Vec<Event> {
        self.send();
        let mut events = Vec::new();
        while let Some(event) = self.op.poll_event() {
            self.send();
            if let Event::Violation(e) = &event {
                // The upstream side's monitor reports it too, with its entry.
                eprintln!("mrtr-bridge: upstream: {}: {}", e.rule().name(), e.message());
                continue;
            }
            events.push(event);
        }
        events
    }

    /// Answers the question `key` (refused with the core's rule when it does not fit).
    pub(crate) fn answer(&mut self, key: &str, result: Value) -> Result<(), Error> {
        let now = self.now();
        let answered = self.op.answer(key, result, now);
        self.send();
        answered
    }

    /// Waits for a part of a response (fed into the operation), the
    /// operation's timer, or `deadline`.
    pub(crate) async fn wait(&mut self, deadline: Instant) -> Woke {
        let timer = self.op.poll_timeout().map(|at| self.clock + Duration::from_millis(at.0));
        let timer = async move {
            match timer {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            Some(part) = self.parts_rx.recv() => {
                self.feed(part);
                Woke::Fed
            }
            () = timer => {
                let now = self.now();
                self.op.handle_timeout(now);
                Woke::Fed
            }
            () = tokio::time::sleep_until(deadline.into()) => Woke::Deadline,
        }
    }

    /// A part into the operation. A part it refuses (out of turn) changes
    /// nothing: the operation reports what it makes of the exchange itself.
    fn feed(&mut self, part: Part) {
        let now = self.now();
        let fed = match part {
            Part::Head(n, status, headers) => {
                self.session_gone |= status == 404;
                if self.first_head.is_none() {
                    self.first_head = Some(headers.clone());
                }
                self.op.handle_head(n, status, &headers, now)
            }
            Part::Body(n, bytes) => self.op.handle_body(n, &bytes, now),
            Part::End(n) => self.op.handle_end(n, now),
        };
        if let Err(e) = fed {
            eprintln!("mrtr-bridge: upstream exchange: {}: {}", e.rule().name(), e.message());
        }
    }
}

/// Carries `request` upstream to its final response (for a request that
/// asks nothing of the client); `Err` when it cannot get one within `timeout`
/// or upstream asks the client something (nobody could answer).
pub(crate) async fn relay(shared: Arc<Shared>, request: Value, headers: Headers) -> Result<(Value, Pump), Failure> {
    let deadline = Instant::now() + shared.timeout;
    let mut pump = Pump::start(shared, request, headers).map_err(|error| Failure { error, session_gone: false })?;
    loop {
        for event in pump.events() {
            let error = match event {
                Event::Done(response) if pump.refuses_session(&response) => {
                    let why = format!("upstream does not know the session: {}", response["error"]["message"]);
                    Error::with(mrtr::RuleId::HttpStatusUnexpected, why)
                }
                Event::Done(response) => return Ok((response, pump)),
                Event::Failed(e) => e,
                Event::InputRequired { .. } => {
                    let why = "upstream asked the client something outside tools/call, prompts/get, resources/read";
                    Error::with(mrtr::RuleId::InputRequiredMethodNotAllowed, why.into())
                }
                Event::Message(_) | Event::Violation(_) => continue,
            };
            pump.abort();
            return Err(Failure { error, session_gone: pump.session_gone() });
        }
        if let Woke::Deadline = pump.wait(deadline).await {
            pump.abort();
            let why = format!("upstream did not answer within {:?}", pump.shared.timeout);
            return Err(Failure { error: Error::with(mrtr::RuleId::LimitExceeded, why), session_gone: false });
        }
    }
}
