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
//!   timeout ends the call with `limit-exceeded`.
//!
//! A client whose stream drops may resume it (`GET` with `Last-Event-ID`,
//! the `2025-11-25` resumability): the call goes on for the timeout
//! without a stream, its latest events kept ([`REPLAY_KEPT`]), and a resuming
//! client gets the events after the last one it had, then the rest live.
//! A client that does not come back within the timeout leaves nothing
//! behind: the call ends and its questions are forgotten.
//!
//! A streamed call that asked is shown on the client side's live page as a
//! multi-round operation ([`Shown`]): in `2025-11-25` the questions go on
//! the call's stream, so the checker of that side sees no round of its own.

use crate::sessions::{random_id, Answer, Asking, Resume, Session};
use crate::side::Side;
use crate::upstream::{self, Part};
use crate::Shared;
use bytes::Bytes;
use mrtr::client::operation::{Config, Event};
use mrtr::client::Operation;
use mrtr::http::serve::ServerStream;
use mrtr::http::Mode;
use mrtr::sse::Decoder;
use mrtr::{server, Error, Millis, Protocol, RuleId};
use serde_json::{json, Map, Value};
use std::collections::VecDeque;
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
    /// The endpoint of the upstream this call runs against (one of several
    /// when the bridge aggregates: [`crate::fleet`]).
    url: String,
    op: Operation,
    clock: Instant,
    /// Where every exchange of the operation sends its parts: bounded
    /// ([`upstream::PARTS`]), so that while the driver waits on the client's
    /// stream ([`Writer::deliver`]) its exchanges stop reading upstream
    /// instead of piling chunks up before the operation's `StreamLimits`
    /// could see them.
    parts_tx: mpsc::Sender<Part>,
    parts_rx: mpsc::Receiver<Part>,
    /// The exchanges under way, aborted with the driver: an upstream stream
    /// that goes silent must not outlive the call that read it.
    exchanges: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Driver {
    fn drop(&mut self) {
        self.exchanges.iter().for_each(tokio::task::JoinHandle::abort);
    }
}

impl Driver {
    /// Starts `request` (an upstream request: `_meta` written, the session's
    /// id) against the upstream at `url`.
    fn start(shared: Arc<Shared>, url: String, request: Value) -> Result<Driver, Error> {
        let mut config = Config::new(Mode::Streamable, url.clone());
        config.call.settings.limits = shared.upstream.limits();
        // A gateway gets the call through while saying what is wrong: a
        // faulty round is still asked (the upstream side's checker reports it).
        config.call.lenient = true;
        let op = Operation::new(config, request, Millis(0))?;
        let (parts_tx, parts_rx) = upstream::parts();
        Ok(Driver { shared, url, op, clock: Instant::now(), parts_tx, parts_rx, exchanges: Vec::new() })
    }

    /// The operation's clock: milliseconds since it started.
    fn now(&self) -> Millis {
        Millis(u64::try_from(self.clock.elapsed().as_millis()).unwrap_or(u64::MAX))
    }

    /// Sends what the operation transmits, then takes its events.
    fn drain(&mut self) -> Vec<Step> {
        let mut steps = Vec::new();
        loop {
            while let Some(request) = self.op.poll_transmit() {
                self.exchanges.retain(|task| !task.is_finished());
                let exchange = upstream::exchange(self.shared.clone(), request, self.parts_tx.clone());
                self.exchanges.push(tokio::spawn(exchange));
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

    /// Tells upstream the current round's request is given up: a
    /// `notifications/cancelled` POSTed (and checked), its `202` not awaited.
    fn cancel_upstream(&self, reason: Option<&str>) {
        let Some(id) = self.op.request_id() else { return };
        let notice = mrtr::client::cancelled(id, reason);
        let field = |name: &str, value: &str| (name.to_string(), value.to_string());
        let headers = vec![
            field("content-type", "application/json"),
            field("accept", "application/json, text/event-stream"),
            field("mcp-protocol-version", Protocol::default().name()),
            field("mcp-method", "notifications/cancelled"),
        ];
        let url = self.url.clone();
        let request = mrtr::http::Request { exchange: 0, method: "POST", url, headers, body: Some(notice.to_string()) };
        let (parts, _) = upstream::parts();
        tokio::spawn(upstream::exchange(self.shared.clone(), request, parts));
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
        let timer = self.op.poll_timeout().map(|at| self.clock + Duration::from_millis(at.0));
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
    let url = shared.upstream_url.clone();
    plain_to(shared, url, id, request).await
}

/// [`plain`] against the upstream at `url` (one of an aggregating bridge's).
pub(crate) async fn plain_to(shared: Arc<Shared>, url: String, id: &Value, request: Value) -> (Value, u16) {
    let own = |e: &Error| server::error_response(id, e);
    let mut driver = match Driver::start(shared, url, request) {
        Ok(d) => d,
        Err(e) => return own(&e),
    };
    let (_keep, mut answers) = mpsc::unbounded_channel(); // never sent on: nothing is asked
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

/// How many of a call's events its writer keeps for a client that resumes
/// (a call's stream carries its questions and its final response: a few).
/// Their bytes together are bounded too: by the message bound of the
/// client's side, the newest event always kept ([`Writer::keep`]).
pub(crate) const REPLAY_KEPT: usize = 64;

/// The client's stream of a call: events written by a [`ServerStream`] in
/// mode `2025-11-25`, each kept for a client that resumes, and sent (and fed
/// to the client side's checker) while a client reads the stream.
pub(crate) struct Writer {
    /// The response body being read, if a client reads one now.
    tx: Option<mpsc::Sender<Bytes>>,
    stream: ServerStream,
    decoder: Decoder,
    side: Side,
    exchange: String,
    /// The stream's key (its events are `<key>.<n>`).
    key: String,
    /// The index of the last event entry fed to the side's checker.
    fed: Option<usize>,
    /// The latest events written, by number.
    sent: VecDeque<(u64, String)>,
    /// The bytes of `sent`.
    sent_bytes: usize,
}

impl Writer {
    /// A stream `key` whose bytes go to `tx`, checked as `exchange` of `side`.
    pub(crate) fn new(tx: mpsc::Sender<Bytes>, key: String, side: Side, exchange: String) -> Option<Writer> {
        let stream = ServerStream::new(Mode::Legacy, &key, 1).ok()?;
        let decoder = Decoder::with_limits(&side.limits());
        let sent = VecDeque::new();
        Some(Writer { tx: Some(tx), stream, decoder, side, exchange, key, fed: None, sent, sent_bytes: 0 })
    }

    /// The response head of the stream (and of a resumed one).
    pub(crate) fn head(&self) -> mrtr::http::Headers {
        self.stream.head(None)
    }

    /// Resolves when the client reading the stream is gone (never, while
    /// none reads it).
    pub(crate) async fn closed(&self) {
        match &self.tx {
            Some(tx) => tx.closed().await,
            None => std::future::pending().await,
        }
    }

    /// Whether a client reads the stream now.
    fn attached(&self) -> bool {
        self.tx.is_some()
    }

    /// Writes one message: kept, and sent while a client reads; `false` when
    /// none does.
    pub(crate) async fn write(&mut self, message: &Value) -> bool {
        let id = match self.stream.message(message) {
            Ok(id) => id,
            Err(e) => {
                eprintln!("mrtr-bridge: cannot write an event: {e}");
                return false;
            }
        };
        let text = self.stream.take();
        let number = id.rsplit_once('.').and_then(|(_, n)| n.parse().ok()).unwrap_or(0);
        self.keep(number, text.clone());
        self.deliver(text).await
    }

    /// Keeps event `number` for a client that resumes, dropping the oldest
    /// past [`REPLAY_KEPT`] events or past one message bound of bytes (the
    /// newest always stays). Without the byte bound an upstream's large
    /// notifications would hold up to 64 message bounds (1 GiB by default)
    /// per call, read or not.
    fn keep(&mut self, number: u64, text: String) {
        self.sent_bytes += text.len();
        self.sent.push_back((number, text));
        let bound = self.side.limits().max_message_bytes;
        while self.sent.len() > REPLAY_KEPT || (self.sent.len() > 1 && self.sent_bytes > bound) {
            let Some((_, old)) = self.sent.pop_front() else { break };
            self.sent_bytes -= old.len();
        }
    }

    /// Sends an event's text to the client reading, checked as it goes.
    async fn deliver(&mut self, text: String) -> bool {
        let Some(tx) = &self.tx else { return false };
        self.decoder.feed(text.as_bytes());
        self.fed = self.side.events(&self.exchange, &mut self.decoder).or(self.fed);
        if tx.send(Bytes::from(text)).await.is_ok() {
            return true;
        }
        self.detach();
        false
    }

    /// The client's stream is gone: its response ended, as the checker sees it.
    fn detach(&mut self) {
        if self.tx.take().is_some() {
            self.decoder.finish();
            self.fed = self.side.events(&self.exchange, &mut self.decoder).or(self.fed);
            self.side.end(&self.exchange);
            self.decoder = Decoder::with_limits(&self.side.limits());
        }
    }

    /// A client resumed after event `resume.after`: the events it missed,
    /// then the rest as they come. An earlier stream still open is ended.
    async fn resume(&mut self, resume: Resume) -> bool {
        self.detach();
        self.tx = Some(resume.tx);
        self.exchange = resume.exchange;
        let missed: Vec<String> =
            self.sent.iter().filter(|(n, _)| *n > resume.after).map(|(_, text)| text.clone()).collect();
        for text in missed {
            if !self.deliver(text).await {
                return false;
            }
        }
        true
    }

    /// The call's end: the stream's end, as the checker sees it.
    pub(crate) fn end(mut self) {
        self.detach();
    }
}

/// What a streamed call is: the client's id, its session, the upstream
/// request and the endpoint of the upstream it goes to.
pub(crate) struct Streamed {
    /// The index of the client side's entry of the request.
    pub(crate) entry: usize,
    pub(crate) id: Value,
    pub(crate) session: Arc<Session>,
    pub(crate) request: Value,
    pub(crate) url: String,
}

/// Starts a call whose questions go on the client's stream: registered in
/// its session at once, so that a cancellation or a resuming `GET` the
/// client sends as soon as the stream's head arrives finds it; then carried
/// on a task of its own ([`streamed`]).
pub(crate) fn start_streamed(shared: Arc<Shared>, call: Streamed, writer: Writer) {
    let registered = Registered::new(call.session.clone(), writer.key.clone(), &call.id);
    tokio::spawn(streamed(shared, call, writer, registered));
}

/// Carries a call whose questions go on the client's stream; ends the stream
/// with the final response or an error. See the [module](self).
async fn streamed(shared: Arc<Shared>, call: Streamed, mut writer: Writer, registered: (Registered, Held)) {
    let timeout = shared.timeout;
    let (_registered, held) = registered;
    let shown = Shown::new(&call.request, call.entry);
    let mut running = match Driver::start(shared, call.url, call.request) {
        Ok(driver) => Running::new(driver, call.id, call.session, timeout, held, shown),
        Err(e) => {
            writer.write(&error(&call.id, &e)).await;
            return writer.end();
        }
    };
    if let Some(last) = running.run(&mut writer).await {
        if !writer.write(&last).await {
            running.deliver_to_a_returning_client(&mut writer).await;
        }
        if let Some(op) = running.shown.finished(writer.fed) {
            writer.side.show_operation(&op);
        }
    }
    writer.end();
}

/// A streamed call as the client side's live page shows it: a multi-round
/// operation on that side's entries, each round from the entry that opened
/// it (the request, then the client's latest answer) to the last entry of
/// what answered it (the round's questions, then the final response). In
/// `2025-11-25` the questions go on the call's stream: the side's checker
/// sees no `input_required` round, and without this its page had entries
/// but an empty timeline.
#[derive(Debug)]
struct Shown {
    method: String,
    target: Option<String>,
    started: usize,
    /// The entry that opened the current round.
    opened: usize,
    /// The latest [`mrtr::check::SPANS_KEPT`] rounds' spans.
    spans: VecDeque<(usize, usize)>,
    rounds: u32,
}

impl Shown {
    /// The call `request` (its method and target), whose entry is `entry`.
    fn new(request: &Value, entry: usize) -> Shown {
        let method = request.get("method").and_then(Value::as_str).unwrap_or_default().to_string();
        let field = mrtr::protocol::name_field(&method);
        let target = field.and_then(|f| request["params"].get(f)).and_then(Value::as_str).map(String::from);
        Shown { method, target, started: entry, opened: entry, spans: VecDeque::new(), rounds: 0 }
    }

    /// A round closed by the entry `at` (none fed: no client read the stream).
    fn close(&mut self, at: Option<usize>) {
        if let Some(at) = at.filter(|at| *at >= self.opened) {
            if self.spans.len() >= mrtr::check::SPANS_KEPT {
                self.spans.pop_front();
            }
            self.spans.push_back((self.opened, at));
        }
    }

    /// A round's questions went out, the last at entry `at`.
    fn asked(&mut self, at: Option<usize>) {
        self.close(at);
        self.rounds = self.rounds.saturating_add(1);
    }

    /// The client answered, in the POST of entry `entry`: the next round opens there.
    fn answered(&mut self, entry: usize) {
        self.opened = self.opened.max(entry);
    }

    /// The call ended at entry `at`: the operation, when it asked.
    fn finished(&mut self, at: Option<usize>) -> Option<mrtr::check::Operation> {
        if self.rounds == 0 {
            return None;
        }
        self.close(at);
        Some(mrtr::check::Operation {
            method: self.method.clone(),
            target: self.target.clone(),
            rounds: self.rounds,
            started: self.started,
            finished: at.unwrap_or(self.opened),
            spans: self.spans.iter().copied().collect(),
        })
    }
}

/// A running call, found in its session by its stream's key (a resuming
/// `GET`) and by the client's request id (its `notifications/cancelled`),
/// for as long as it runs.
struct Registered {
    session: Arc<Session>,
    key: String,
    id: String,
}

/// Resuming `GET`s a call holds while it cannot take them (it waits on its
/// client's stream, for the timeout at most): a client resumes one stream
/// at a time, and the call serves the latest anyway. A `GET` past them is
/// refused `503` rather than kept.
pub(crate) const RESUMES: usize = 4;

/// What reaches a registered call.
struct Held {
    resumes: mpsc::Receiver<Resume>,
    /// Unbounded, yet one message at most: the session hands a call's
    /// cancellation out once ([`Session::cancel`]).
    cancels: mpsc::UnboundedReceiver<Option<String>>,
}

impl Registered {
    fn new(session: Arc<Session>, key: String, id: &Value) -> (Registered, Held) {
        let (resumes_tx, resumes) = mpsc::channel(RESUMES);
        let (cancels_tx, cancels) = mpsc::unbounded_channel();
        let id = mrtr::Id::text(id);
        session.hold_stream(&key, resumes_tx);
        session.hold_call(&id, cancels_tx);
        (Registered { session, key, id }, Held { resumes, cancels })
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.session.release_stream(&self.key);
        self.session.release_call(&self.id);
    }
}

/// Whether a streamed call goes on.
enum Flow {
    Go,
    /// It ended: the last message for the stream (none: the client is gone
    /// and did not come back).
    End(Option<Value>),
}

/// A streamed call under way: its operation, the questions it asked in the
/// session, and the round's deadline.
struct Running {
    driver: Driver,
    /// The client's id for the call.
    id: Value,
    asking: Asking,
    /// The client's answers. Unbounded, yet no more than the questions
    /// asked: the session hands each question's sender out once
    /// ([`Session::take`]), and each answer is one client POST's, within the
    /// message bound.
    answers_tx: mpsc::UnboundedSender<Answer>,
    answers: mpsc::UnboundedReceiver<Answer>,
    /// When the current round's answers are due, while it waits for them.
    deadline: Option<Instant>,
    timeout: Duration,
    /// Resuming `GET`s of the call's stream ([`RESUMES`] at most).
    resumes: mpsc::Receiver<Resume>,
    /// While no client reads the stream: when the call ends unless one
    /// comes back.
    grace: Option<Instant>,
    /// The client's `notifications/cancelled` for the call (its reason).
    cancels: mpsc::UnboundedReceiver<Option<String>>,
    /// The call as the client side's live page shows it.
    shown: Shown,
}

impl Running {
    fn new(driver: Driver, id: Value, session: Arc<Session>, timeout: Duration, held: Held, shown: Shown) -> Running {
        let (answers_tx, answers) = mpsc::unbounded_channel();
        let asking = Asking::new(session);
        let Held { resumes, cancels } = held;
        Running {
            driver,
            id,
            asking,
            answers_tx,
            answers,
            deadline: None,
            timeout,
            resumes,
            grace: None,
            cancels,
            shown,
        }
    }

    /// No client reads the stream: the call goes on for the timeout.
    fn detached(&mut self) {
        self.grace.get_or_insert_with(|| Instant::now() + self.timeout);
    }

    /// The call ended while no client read its stream: its last message
    /// goes to a client that resumes within the grace time, if one does.
    async fn deliver_to_a_returning_client(&mut self, writer: &mut Writer) {
        self.detached();
        while !writer.attached() {
            tokio::select! {
                Some(resume) = self.resumes.recv() => { writer.resume(resume).await; }
                () = sleep_until(self.grace) => return,
            }
        }
    }

    /// Drains the operation, acts on each step, waits for the next input; until the call ends.
    async fn run(&mut self, writer: &mut Writer) -> Option<Value> {
        loop {
            for step in self.driver.drain() {
                if let Flow::End(last) = self.step(step, writer).await {
                    return last;
                }
            }
            if self.deadline.is_some() && self.asking.all_answered() {
                self.deadline = None;
            }
            let wake = {
                let closed = writer.closed();
                let due = [self.deadline, self.grace].into_iter().flatten().min();
                tokio::select! {
                    wake = self.driver.wait(due, &mut self.answers, closed) => Some(wake),
                    Some(resume) = self.resumes.recv() => {
                        if writer.resume(resume).await {
                            self.grace = None;
                        }
                        None
                    }
                    Some(reason) = self.cancels.recv() => {
                        // The client cancelled: upstream is told, and no response follows.
                        self.driver.cancel_upstream(reason.as_deref());
                        return None;
                    }
                }
            };
            let Some(wake) = wake else { continue };
            if let Flow::End(last) = self.wake(wake, writer) {
                return last;
            }
        }
    }

    /// One of the operation's steps, for the client.
    async fn step(&mut self, step: Step, writer: &mut Writer) -> Flow {
        match step {
            Step::Done(response) => Flow::End(Some(with_id(response, &self.id))),
            Step::Failed(e) => Flow::End(Some(error(&self.id, &e))),
            Step::Pass(message) => {
                if !writer.write(&message).await {
                    self.detached();
                }
                Flow::Go
            }
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
                self.detached();
            }
        }
        self.shown.asked(writer.fed);
        self.deadline = Some(Instant::now() + self.timeout);
        Flow::Go
    }

    /// What woke the call, into the operation.
    fn wake(&mut self, wake: Wake, writer: &mut Writer) -> Flow {
        match wake {
            Wake::Part(part) => match self.driver.feed(part) {
                Ok(()) => Flow::Go,
                Err(e) => Flow::End(Some(error(&self.id, &e))),
            },
            Wake::Answer(answer) => {
                self.shown.answered(answer.entry);
                match answered(&mut self.driver, &self.id, answer) {
                    Some(last) => Flow::End(Some(last)),
                    None => Flow::Go,
                }
            }
            Wake::Timer => {
                let now = self.driver.now();
                self.driver.op.handle_timeout(now);
                Flow::Go
            }
            Wake::Deadline if self.grace.is_some_and(|g| Instant::now() >= g) => Flow::End(None),
            Wake::Deadline => {
                let why = format!("the client did not answer the server's questions within {:?}", self.timeout);
                Flow::End(Some(error(&self.id, &Error::with(RuleId::LimitExceeded, why))))
            }
            Wake::Closed => {
                writer.detach();
                self.detached();
                Flow::Go
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr::check::CheckConfig;
    use mrtr::Limits;

    /// A writer whose client left at once, on a side whose messages are
    /// bounded at `bound` bytes.
    fn detached_writer(bound: usize) -> Writer {
        let limits = Limits { max_message_bytes: bound, ..Limits::DEFAULT };
        let config = CheckConfig::default().with_protocol(Protocol::V2025_11_25).with_limits(limits);
        let side = Side::new("client", config, None, mrtr_proxy::Output::Quiet);
        let (tx, _) = mpsc::channel(1);
        Writer::new(tx, "k".into(), side, "0".into()).unwrap()
    }

    fn notification(bytes: usize) -> Value {
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x".repeat(bytes)}})
    }

    /// A call as the client side's page shows it: a round per batch of
    /// questions, each span from the entry that opened it to the one that
    /// closed it; a round asked while no client read the stream (no entry
    /// fed) is counted, without a span; the spans kept are bounded; a call
    /// that asked nothing is no operation.
    #[test]
    fn a_shown_call_is_an_operation_of_the_sides_entries() {
        let request = json!({"method": "resources/read", "params": {"uri": "file:///a"}});
        assert_eq!(Shown::new(&request, 3).finished(Some(5)), None, "asked nothing");
        let mut shown = Shown::new(&request, 3);
        shown.asked(Some(5));
        shown.answered(6);
        shown.asked(Some(4)); // fed before the answer: the writer was detached
        shown.answered(9);
        let op = shown.finished(Some(11)).unwrap();
        assert_eq!((op.method.as_str(), op.target.as_deref()), ("resources/read", Some("file:///a")));
        assert_eq!((op.rounds, op.started, op.finished, op.spans), (2, 3, 11, vec![(3, 5), (9, 11)]));
        let mut long = Shown::new(&request, 0);
        for round in 0..100 {
            long.asked(Some(2 * round + 1));
            long.answered(2 * round + 2);
        }
        let op = long.finished(Some(500)).unwrap();
        assert_eq!((op.rounds, op.spans.len()), (100, mrtr::check::SPANS_KEPT));
        assert_eq!(op.spans.last(), Some(&(200, 500)));
    }

    /// The events kept for a resuming client hold at most one message bound
    /// of bytes (the newest always kept), and at most [`REPLAY_KEPT`] events.
    #[tokio::test]
    async fn kept_events_are_bounded_in_bytes_and_count() {
        let mut writer = detached_writer(10_000);
        for _ in 0..10 {
            assert!(!writer.write(&notification(3_000)).await, "no client reads");
        }
        assert_eq!(writer.sent.len(), 3, "three of about 3 KB fit in 10 KB");
        assert!(writer.sent_bytes <= 10_000);
        assert_eq!(writer.sent.back().map(|(n, _)| *n), Some(10), "the newest are kept");
        writer.write(&notification(20_000)).await;
        assert_eq!(writer.sent.len(), 1, "an event over the bound is still kept, alone");
        for _ in 0..100 {
            writer.write(&notification(1)).await;
        }
        assert_eq!(writer.sent.len(), REPLAY_KEPT);
        assert_eq!(writer.sent_bytes, writer.sent.iter().map(|(_, t)| t.len()).sum::<usize>());
    }
}
