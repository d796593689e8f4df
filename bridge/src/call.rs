//! One client request carried upstream by one [`mrtr::client::Operation`]
//! (MRTR mode), and what the client sees of it.
//!
//! The operation decides everything about the upstream conversation (each
//! round's request, the retry with the answers and the exact
//! `requestState`, a state-only round retried at once, a `ping` answered,
//! the bounds on rounds and bytes); the [`Driver`] only runs its HTTP
//! exchanges ([`crate::upstream`]), feeds it their parts and the time, and
//! drains it in the machine's order: transmits, then events.
//!
//! - [`plain`]: a request that asks nothing of the client (`tools/list`,
//!   `server/discover`, …): its final response, as JSON.
//! - [`streamed`]: `tools/call`, `prompts/get`, `resources/read`: each
//!   question of an `input_required` round goes on the client's POST stream
//!   as a `2025-11-25` server request under a random id, routed back through
//!   the session ([`crate::sessions`]); the final response (or a JSON-RPC
//!   error) ends the stream. A round the client does not answer within the
//!   timeout ends the call with `limit-exceeded`; a client that drops its
//!   stream ends the call, and its questions are forgotten.

use crate::sessions::{random_id, Answer, Asking, Session};
use crate::side::Side;
use crate::upstream::{self, Part};
use crate::Shared;
use bytes::Bytes;
use mrtr::client::operation::{Config, Event};
use mrtr::client::Operation;
use mrtr::http::serve::ServerStream;
use mrtr::http::Mode;
use mrtr::sse::Decoder;
use mrtr::{server, Error, Protocol, RuleId};
use serde_json::{json, Map, Value};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// What the host does next, from the operation's events.
enum Step {
    /// Questions for the client, by key.
    Ask(Map<String, Value>),
    /// A message for the client's stream (a notification).
    Pass(Value),
    /// The final response, under the upstream request's id.
    Done(Value),
    /// The operation cannot go on.
    Failed(Error),
}

/// What woke the driver.
enum Wake {
    Part(Part),
    Answer(Answer),
    Timer,
    Deadline,
    Closed,
}

/// An operation and its HTTP exchanges in flight.
struct Driver {
    shared: Arc<Shared>,
    op: Operation,
    clock: Instant,
    parts_tx: mpsc::UnboundedSender<Part>,
    parts_rx: mpsc::UnboundedReceiver<Part>,
}

impl Driver {
    /// Starts `request` (an upstream request: `_meta` written, the session's id).
    fn start(shared: Arc<Shared>, request: Value) -> Result<Driver, Error> {
        let mut config = Config::new(Mode::Streamable, shared.upstream_url.clone());
        config.call.limits.message = shared.upstream.limits();
        let op = Operation::new(config, request, 0)?;
        let (parts_tx, parts_rx) = mpsc::unbounded_channel();
        Ok(Driver { shared, op, clock: Instant::now(), parts_tx, parts_rx })
    }

    /// The operation's clock: milliseconds since it started.
    fn now(&self) -> u64 {
        u64::try_from(self.clock.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Sends what the operation transmits, then takes its events.
    fn drain(&mut self) -> Vec<Step> {
        let mut steps = Vec::new();
        loop {
            while let Some(request) = self.op.poll_transmit() {
                tokio::spawn(upstream::exchange(self.shared.clone(), request, self.parts_tx.clone()));
            }
            let Some(event) = self.op.poll_event() else { return steps };
            match event {
                Event::InputRequired { requests, .. } => steps.push(Step::Ask(requests)),
                Event::Message(message) => steps.push(Step::Pass(message)),
                // The upstream side's monitor reports it too, with its entry.
                Event::Violation(e) => eprintln!("mrtr-bridge: upstream: {}: {}", e.rule().name(), e.message()),
                Event::Done(response) => steps.push(Step::Done(response)),
                Event::Failed(e) => steps.push(Step::Failed(e)),
            }
        }
    }

    /// A part of an exchange's response, into the operation.
    fn feed(&mut self, part: Part) -> Result<(), Error> {
        let now = self.now();
        match part {
            Part::Head(n, status, headers) => self.op.handle_head(n, status, &headers, now),
            Part::Body(n, bytes) => self.op.handle_body(n, &bytes, now),
            Part::End(n) => self.op.handle_end(n, now),
        }
    }

    /// The client's answer to the question `key`: a result goes to the
    /// operation (refused with its rule when it does not fit the question);
    /// an error ends the call, since MRTR carries no refusal upstream.
    fn answer(&mut self, key: &str, response: &Value) -> Result<(), Error> {
        let now = self.now();
        match response.get("result") {
            Some(result) => self.op.answer(key, result.clone(), now),
            None => Err(Error::with(RuleId::RetryInputResponseInvalid, "the client answered with an error".into())),
        }
    }

    /// Waits for the next thing: a part of a response, an answer, the
    /// operation's timer, the round's deadline, or the client gone.
    async fn wait(
        &mut self,
        deadline: Option<Instant>,
        answers: &mut mpsc::UnboundedReceiver<Answer>,
        closed: impl Future<Output = ()>,
    ) -> Wake {
        let timer = self.op.poll_timeout().map(|ms| self.clock + Duration::from_millis(ms));
        tokio::select! {
            Some(part) = self.parts_rx.recv() => Wake::Part(part),
            Some(answer) = answers.recv() => Wake::Answer(answer),
            () = sleep_until(timer) => Wake::Timer,
            () = sleep_until(deadline) => Wake::Deadline,
            () = closed => Wake::Closed,
        }
    }
}

/// Sleeps until `at`, or forever.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// The JSON-RPC error response for `error`, under the client's `id`.
fn error(id: &Value, error: &Error) -> Value {
    server::error_response(id, error).0
}

/// Carries `request` upstream to its final response, under the client's
/// `id`: for requests that ask nothing of the client. Returns it with the
/// HTTP status to send: `200` for what upstream answered (its result, or its
/// JSON-RPC error), the core's status for the bridge's own error
/// (`server::error_response`: a JSON-RPC error never goes with a 2xx).
pub(crate) async fn plain(shared: Arc<Shared>, id: &Value, request: Value) -> (Value, u16) {
    let own = |e: &Error| server::error_response(id, e);
    let mut driver = match Driver::start(shared, request) {
        Ok(d) => d,
        Err(e) => return own(&e),
    };
    let (_keep, mut answers) = mpsc::unbounded_channel();
    loop {
        for step in driver.drain() {
            match step {
                Step::Done(response) => return (with_id(response, id), 200),
                Step::Failed(e) => return own(&e),
                Step::Ask(_) => {
                    return own(&Error::with(RuleId::InputRequiredMethodNotAllowed, "upstream asked for input".into()));
                }
                Step::Pass(_) => {} // no stream to write it on
            }
        }
        match driver.wait(None, &mut answers, std::future::pending()).await {
            Wake::Part(part) => {
                if let Err(e) = driver.feed(part) {
                    return own(&e);
                }
            }
            Wake::Timer => {
                let now = driver.now();
                driver.op.handle_timeout(now);
            }
            Wake::Answer(_) | Wake::Deadline | Wake::Closed => {}
        }
    }
}

/// `response` under the client's `id`.
fn with_id(mut response: Value, id: &Value) -> Value {
    if let Some(fields) = response.as_object_mut() {
        fields.insert("id".into(), id.clone());
    }
    response
}

/// The client's POST stream: events written by a [`ServerStream`] in mode
/// `2025-11-25`, each fed to the client side's checker as it goes.
pub(crate) struct Writer {
    tx: mpsc::Sender<Bytes>,
    stream: ServerStream,
    decoder: Decoder,
    side: Side,
    exchange: String,
}

impl Writer {
    /// A stream whose bytes go to `tx`, checked as `exchange` of `side`.
    pub(crate) fn new(tx: mpsc::Sender<Bytes>, stream: ServerStream, side: Side, exchange: String) -> Writer {
        Writer { tx, decoder: Decoder::with_limits(&side.limits()), stream, side, exchange }
    }

    /// Writes one message; `false` when the client is gone.
    async fn write(&mut self, message: &Value) -> bool {
        if let Err(e) = self.stream.message(message) {
            eprintln!("mrtr-bridge: cannot write an event: {e}");
            return false;
        }
        let text = self.stream.take();
        self.decoder.feed(text.as_bytes());
        self.side.events(&self.exchange, &mut self.decoder);
        self.tx.send(Bytes::from(text)).await.is_ok()
    }

    /// The stream's end, as the client side's checker sees it.
    fn end(mut self) {
        self.decoder.finish();
        self.side.events(&self.exchange, &mut self.decoder);
        self.side.end(&self.exchange);
    }
}

/// What a streamed call is: the client's id, its session, the upstream request.
pub(crate) struct Streamed {
    pub(crate) id: Value,
    pub(crate) session: Arc<Session>,
    pub(crate) request: Value,
}

/// Carries a call whose questions go on the client's stream; ends the stream
/// with the final response or an error. See the [module](self).
pub(crate) async fn streamed(shared: Arc<Shared>, call: Streamed, mut writer: Writer) {
    let timeout = shared.timeout;
    let last = match Driver::start(shared, call.request) {
        Ok(driver) => Running::new(driver, call.id, call.session, timeout).run(&mut writer).await,
        Err(e) => Some(error(&call.id, &e)),
    };
    if let Some(last) = last {
        writer.write(&last).await;
    }
    writer.end();
}

/// Whether a streamed call goes on.
enum Flow {
    Go,
    /// It ended: the last message for the stream (none: the client is gone).
    End(Option<Value>),
}

/// A streamed call under way: its operation, the questions it asked in the
/// session, and the round's deadline.
struct Running {
    driver: Driver,
    /// The client's id for the call.
    id: Value,
    asking: Asking,
    answers_tx: mpsc::UnboundedSender<Answer>,
    answers: mpsc::UnboundedReceiver<Answer>,
    /// When the current round's answers are due, while it waits for them.
    deadline: Option<Instant>,
    timeout: Duration,
}

impl Running {
    fn new(driver: Driver, id: Value, session: Arc<Session>, timeout: Duration) -> Running {
        let (answers_tx, answers) = mpsc::unbounded_channel();
        let asking = Asking::new(session);
        Running { driver, id, asking, answers_tx, answers, deadline: None, timeout }
    }

    /// Drains the operation, acts on each step, waits for the next input; until the call ends.
    async fn run(mut self, writer: &mut Writer) -> Option<Value> {
        loop {
            for step in self.driver.drain() {
                if let Flow::End(last) = self.step(step, writer).await {
                    return last;
                }
            }
            if self.deadline.is_some() && self.asking.all_answered() {
                self.deadline = None;
            }
            let closed = writer.tx.closed();
            let wake = self.driver.wait(self.deadline, &mut self.answers, closed).await;
            if let Flow::End(last) = self.wake(wake) {
                return last;
            }
        }
    }

    /// One of the operation's steps, for the client.
    async fn step(&mut self, step: Step, writer: &mut Writer) -> Flow {
        match step {
            Step::Done(response) => Flow::End(Some(with_id(response, &self.id))),
            Step::Failed(e) => Flow::End(Some(error(&self.id, &e))),
            Step::Pass(message) if !writer.write(&message).await => Flow::End(None),
            Step::Pass(_) => Flow::Go,
            Step::Ask(requests) => self.ask(requests, writer).await,
        }
    }

    /// A round's questions, each a server request on the stream under a
    /// random id (and a random `elicitationId` where `2025-11-25` needs one);
    /// the round's answers due within the timeout.
    async fn ask(&mut self, requests: Map<String, Value>, writer: &mut Writer) -> Flow {
        for (key, question) in requests {
            let (Some(asked), Some(elicitation)) = (random_id(), random_id()) else {
                let e = Error::with(RuleId::InternalPanic, "no randomness from the OS".into());
                return Flow::End(Some(error(&self.id, &e)));
            };
            let message = server::stream_request(&json!(asked), &question, Protocol::V2025_11_25, &elicitation);
            self.asking.ask(asked, &key, &self.answers_tx);
            if !writer.write(&message).await {
                return Flow::End(None);
            }
        }
        self.deadline = Some(Instant::now() + self.timeout);
        Flow::Go
    }

    /// What woke the call, into the operation.
    fn wake(&mut self, wake: Wake) -> Flow {
        match wake {
            Wake::Part(part) => match self.driver.feed(part) {
                Ok(()) => Flow::Go,
                Err(e) => Flow::End(Some(error(&self.id, &e))),
            },
            Wake::Answer(answer) => match answered(&mut self.driver, &self.id, answer) {
                Some(last) => Flow::End(Some(last)),
                None => Flow::Go,
            },
            Wake::Timer => {
                let now = self.driver.now();
                self.driver.op.handle_timeout(now);
                Flow::Go
            }
            Wake::Deadline => {
                let why = format!("the client did not answer the server's questions within {:?}", self.timeout);
                Flow::End(Some(error(&self.id, &Error::with(RuleId::LimitExceeded, why))))
            }
            Wake::Closed => Flow::End(None),
        }
    }
}

/// Hands a client's answer to the operation and says how it went to the POST
/// that carried it. An answer that does not fit its question (refused by
/// the core with its rule) and an error from the client both end the call:
/// a `2025-11-25` client answers each server request once, so waiting for a
/// better answer would only hold the call until the timeout. Returns the
/// last message for the stream when the call ends.
fn answered(driver: &mut Driver, id: &Value, answer: Answer) -> Option<Value> {
    let Answer { key, response, reply, .. } = answer;
    if let Some(refusal) = response.get("error") {
        let _ = reply.send(Ok(()));
        let code = refusal.get("code").cloned().unwrap_or(json!(-32603));
        let said = refusal.get("message").and_then(Value::as_str).unwrap_or("");
        let message = format!("the client refused the server's question {key:?}: {said}");
        return Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}));
    }
    match driver.answer(&key, &response) {
        Ok(()) => {
            let _ = reply.send(Ok(()));
            None
        }
        Err(e) => {
            // The POST's error has no id (2025-11-25: the server "cannot accept the input").
            let _ = reply.send(Err(server::error_response(&Value::Null, &e)));
            Some(error(id, &e))
        }
    }
}
