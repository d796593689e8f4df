//! The client side of one JSON-RPC request over HTTP, in any [`Mode`].
//!
//! [`Call`] is a plain machine in the quinn-proto shape: the host feeds it
//! what its HTTP stack received and the time, and drains what it asks for.
//!
//! - Inputs: [`Call::handle_head`] (status and header fields of a response),
//!   [`Call::handle_body`] (bytes of it, any chunking), [`Call::handle_end`]
//!   (the response ended, by the server or a cut connection),
//!   [`Call::handle_timeout`], and [`Call::answer`] (the host's response to a
//!   server request the machine reported).
//! - Outputs, drained in this order after every input: [`Call::poll_transmit`]
//!   (HTTP requests to send, each with the exchange number the host quotes
//!   back), [`Call::poll_event`] (server requests, other messages, peer
//!   violations, and at last the response or the failure), and
//!   [`Call::poll_timeout`] (when to call [`Call::handle_timeout`]).
//!
//! A response that is an event stream is read as its bytes come; any other
//! (JSON, `202`, `204`, an error status) is read whole and judged when it
//! ends. After [`StreamLimits::max_reconnects`] reconnects in a row that
//! brought no message, the call fails (`sse-stream-ended`) rather than waiting
//! again. Each such reconnect waits twice as long as the one before (from the
//! last `retry`, never less than [`MIN_RETRY_MS`], up to
//! [`StreamLimits::max_retry_ms`]): a server that ends every stream after an
//! empty block with `retry: 0` gets a few spaced reconnects, not a storm.
//!
//! What each mode does:
//! - every mode: the request is POSTed with `Accept: application/json,
//!   text/event-stream`; a JSON answer or an event stream carries the response.
//!   A stream that ends before it is resumed after the last `retry` (or
//!   [`CallConfig::default_retry_ms`]) with `Last-Event-ID`, as Streamable
//!   HTTP allows, while the server gave an event id; with nothing to resume
//!   from the call fails with `sse-stream-ended`.
//! - `2026-07-28`: an input request on the stream breaks
//!   `server-request-on-stream`: reported as a [`Event::Violation`] and
//!   answered -32602, since MRTR asks only inside results.
//! - `2025-11-25`: server requests on the POST's stream are associated with
//!   the call (SEP-2260) and reported; each answer is POSTed on its own.
//! - `sep-1858`: after `buffer_input` answers are kept; on `input_required`
//!   the machine stops reading that response, does not reconnect, and once
//!   every request is answered POSTs them as one JSON array with
//!   `Last-Event-ID`; that POST's response goes on like the first.
//! - `sep-1335`: the `rel="stream"` URL of a response (same origin only:
//!   another is reported as `sse-stream-url-cross-origin` and not followed)
//!   is where the machine reconnects, no sooner than the last `retry`;
//!   answers are always kept; after `204 No Content` they go as a JSON array
//!   to that URL, whose response is a new stream.
//!
//! Whether the call reads, keeps answers, waits to reconnect, waits for the
//! host's answers or is over is one state, moved only through the table
//! `CALL_TRANSITIONS` (in `call/state.rs`, printed in `docs/machines.md`).

use super::{is_event_stream, link, over, Answering, Headers, Mode, Request, StreamLimits};
use crate::{
    base::error::{err, Error},
    base::protocol::INPUT_METHODS,
    base::rules::RuleId,
    base::settings::Settings,
    base::time::Millis,
    one_message::envelope::{self, Id, Kind},
    read::sse,
};
use alloc::{
    collections::VecDeque,
    string::{String, ToString},
    vec::Vec,
};
use serde_json::{json, Value};
#[cfg(test)]
pub(crate) use state::CALL_TRANSITIONS;
use state::{CallInput, CallState};

/// How a [`Call`] reaches its server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallConfig {
    /// The transport.
    pub mode: Mode,
    /// The MCP endpoint, an absolute URL.
    pub url: String,
    /// Header fields sent with every request (`mcp-session-id`,
    /// `mcp-protocol-version`, `authorization`…), lower-case names.
    pub headers: Headers,
    /// The protocol the messages are read under and the bounds on each
    /// message (an event-stream block is bounded by `max_message_bytes`,
    /// line bytes, so a line that never ends is cut there); its round bound
    /// is the [`Operation`](crate::client::Operation)'s, a call makes one.
    pub settings: Settings,
    /// Bounds on the streams, links and reconnects of what the server sends.
    pub limits: StreamLimits,
    /// The wait before a reconnect when the server sent no `retry`, in
    /// milliseconds. Default 1000.
    pub default_retry_ms: u64,
    /// How long an exchange that may go again may be silent (no response
    /// head, or no bytes on its stream) before it is given up, in
    /// milliseconds (default none: wait for the server). A stream that
    /// stalls with an event id to resume from is resumed from it; a resume
    /// or a POST of answers (keyed by their request ids) goes again as it
    /// was; the host cuts what was given up ([`Call::abandoned`]). A hung
    /// server keeps its connections open, and a balancer keeps sending it
    /// requests: this is what moves the call to another instance. The
    /// call's own request is not given up here (whether it may go twice is
    /// the [`crate::client::Operation`]'s to decide).
    pub stall_ms: Option<u64>,
    /// Whether a message with faults in its content still does what its
    /// valid parts do (the checker's reading: one fault, one report): each
    /// fault is an [`Event::Violation`] and the call goes on, where by
    /// default the first fault fails the call. Only a fault of the envelope
    /// (the kind of the message unknown) fails it either way. Off by
    /// default: a client refuses a faulty answer. A gateway, whose job is to
    /// get the call through while saying what is wrong, turns it on (`mrtr
    /// bridge`: an MRTR server's URL-mode ask that carries the
    /// `elicitationId` `2026-07-28` removed is still asked, in the
    /// `2025-11-25` words that need one). With the `std` feature only: the
    /// hosts gateways run on have it, and the wasm and `no_std` builds are
    /// spared its code (some 640 bytes of the gzipped wasm module).
    #[cfg(feature = "std")]
    pub lenient: bool,
}

impl CallConfig {
    /// A configuration with the defaults of every other field.
    pub fn new(mode: Mode, url: impl Into<String>) -> CallConfig {
        CallConfig {
            mode,
            url: url.into(),
            headers: Vec::new(),
            settings: Settings::DEFAULT.with_protocol(mode.rules().protocol),
            limits: StreamLimits::DEFAULT,
            default_retry_ms: 1000,
            stall_ms: None,
            #[cfg(feature = "std")]
            lenient: false,
        }
    }

    /// Whether a faulty message still does what its valid parts do
    /// ([`CallConfig::lenient`]; never without the `std` feature).
    pub fn is_lenient(&self) -> bool {
        #[cfg(feature = "std")]
        return self.lenient;
        #[cfg(not(feature = "std"))]
        false
    }
}

/// What a [`Call`] tells its host.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A server request (elicitation, sampling, roots, ping) to answer with
    /// [`Call::answer`].
    ServerRequest(Value),
    /// A notification, or a response that is not this call's, to pass on.
    Message(Value),
    /// The server broke a rule; the call goes on.
    Violation(Error),
    /// The JSON-RPC response to the call (a result, an `input_required`
    /// result, or an error): the call is over.
    Response(Value),
    /// The call cannot go on, and why: the last event.
    Failed(Error),
}

/// What an exchange is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// A POST whose response may carry the call's response: the request
    /// itself, or buffered answers.
    Carrier,
    /// A GET that resumes the call's stream.
    Resume,
    /// A POST of one answer (`202 Accepted` expected).
    Answer,
}

#[derive(Debug)]
struct Exchange {
    number: u64,
    purpose: Purpose,
    /// Where it was sent (a `rel="stream"` URL resolves against it).
    url: String,
    status: Option<u16>,
    /// The decoder of an event-stream response.
    stream: Option<sse::Decoder>,
    /// The bytes of any other response.
    body: Vec<u8>,
    events: usize,
    /// Whether the machine still reads it (1858 stops at `input_required`).
    reading: bool,
    /// When it last made progress: sent, its head, bytes of its body.
    since: Millis,
    /// The request, kept while it may go again as it was (a resume, a POST of answers).
    sent: Option<Request>,
    /// It stalled past [`CallConfig::stall_ms`] and is the host's to cut.
    given_up: bool,
    /// It stalled before its head and a copy of it went: it stays open (the
    /// first copy with a head wins), no longer watched itself.
    copied: bool,
    /// The number of the first exchange of its copies, when it has any.
    copies_of: Option<u64>,
    /// No server took it and the host holds it to send again as it was
    /// ([`Call::handle_unreached`]): not watched for a stall meanwhile.
    held: bool,
}

/// The client side of one JSON-RPC request. See the [module](self) for the
/// inputs, the outputs and their drain order.
#[derive(Debug)]
pub struct Call {
    config: CallConfig,
    id: Value,
    next_exchange: u64,
    exchanges: Vec<Exchange>,
    transmits: VecDeque<Request>,
    events: VecDeque<Event>,
    /// The id of the last event with one (what `Last-Event-ID` resumes from).
    last_event_id: Option<String>,
    /// The last `retry` the server sent, in milliseconds.
    retry_ms: Option<u64>,
    /// SEP-1335: where to reconnect (normalised).
    stream_url: Option<String>,
    /// What the call is doing: moved only through [`state::CALL_TRANSITIONS`]
    /// ([`Call::step`]).
    state: CallState,
    /// (SEP-1858, [`CallState::AwaitingAnswers`]) The event id the POST of
    /// the answers quotes as `Last-Event-ID`.
    quote: Option<String>,
    /// The host's time at its latest input (what a request sent now is stamped with).
    now: Millis,
    /// Server requests reported and not answered yet (their ids).
    pending: Vec<Value>,
    /// Answers kept for the buffered POST.
    buffered: Vec<Value>,
    /// ([`CallState::awaits_reconnect`]) When the GET that resumes goes.
    reconnect_at: Millis,
    /// Reconnects in a row that brought no event.
    reconnects: u32,
    /// Stalls in a row, with no server's answer since ([`CallConfig::stall_ms`]).
    stalls: u32,
    /// (`2026-07-28`) The header fields that mirror the request's body
    /// ([`super::mirrored_fields`]): all of them on the POST of the request,
    /// `mcp-protocol-version` on every other request of the call, each in
    /// place of a field of that name the host configured.
    mirrored: Headers,
    /// Every move the call made, for the tests that walk [`state::CALL_TRANSITIONS`].
    #[cfg(test)]
    trail: Vec<(CallState, CallInput, CallState)>,
}

impl Call {
    /// Starts `request` (a JSON-RPC request with an id): the first output is
    /// its POST.
    pub fn new(config: CallConfig, request: &Value, now: Millis) -> Result<Call, Error> {
        if link::normal(&config.url).is_none() {
            return Err(err!(UsageInvalidArgument, "the endpoint {:?} is no absolute URL with a host", config.url));
        }
        let c = envelope::classify_value(request, config.settings.protocol, &config.settings.limits)
            .map_err(|e| err!(UsageInvalidArgument, "the call's request is no JSON-RPC request: {e}"))?;
        if c.kind != Kind::Request {
            return Err(Error::new(RuleId::UsageInvalidArgument, "a call starts with a JSON-RPC request with an id"));
        }
        let mode = config.mode;
        let mut call = Call {
            id: request["id"].clone(),
            config,
            next_exchange: 1,
            exchanges: Vec::new(),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            last_event_id: None,
            retry_ms: None,
            stream_url: None,
            state: CallState::start(mode),
            quote: None,
            now,
            pending: Vec::new(),
            buffered: Vec::new(),
            reconnect_at: Millis(0),
            reconnects: 0,
            stalls: 0,
            mirrored: Vec::new(),
            #[cfg(test)]
            trail: Vec::new(),
        };
        if call.config.mode.rules().mirrors_body {
            call.mirrored = super::mirror_headers(request);
        }
        let url = call.config.url.clone();
        call.post(Purpose::Carrier, url, request.to_string(), None);
        Ok(call)
    }

    /// The id of the call's request.
    pub fn id(&self) -> &Value {
        &self.id
    }

    /// Whether the call is over (its response or its failure was reported).
    pub fn is_done(&self) -> bool {
        self.state.is_over()
    }

    /// Moves the call by `input` where [`state::CALL_TRANSITIONS`] lists it from
    /// the current state; else `usage-out-of-turn`, and the state stays.
    fn step(&mut self, input: CallInput) -> Result<CallState, Error> {
        let Some(next) = self.state.next(input) else {
            return Err(err!(UsageOutOfTurn, "{input:?} is out of turn for a call that is {:?}", self.state));
        };
        #[cfg(test)]
        self.trail.push((self.state, input, next));
        self.state = next;
        Ok(next)
    }

    /// A move the machine itself decided on: the table must list it (a
    /// path that does not is a bug of this file, caught by the tests).
    fn go(&mut self, input: CallInput) {
        let moved = self.step(input);
        debug_assert!(moved.is_ok(), "{moved:?}");
    }

    /// The status and header fields of the response to `exchange`.
    pub fn handle_head(
        &mut self,
        exchange: u64,
        status: u16,
        headers: &[(String, String)],
        now: Millis,
    ) -> Result<(), Error> {
        self.now = now;
        let mode = self.config.mode;
        let x = self.exchange(exchange)?;
        if x.status.is_some() {
            return Err(err!(UsageOutOfTurn, "exchange {exchange} already has its response head"));
        }
        x.status = Some(status);
        x.since = now;
        let (purpose, copies_of) = (x.purpose, x.copies_of);
        if is_servers_answer(status) {
            // A server answered: the give-ups in a row start again (a gateway's page says nothing of one),
            // and this copy won: the others are the host's to cut.
            self.stalls = 0;
            if let Some(first) = copies_of {
                self.give_up_copies(first, exchange);
            }
        }
        if (200..300).contains(&status) && status != 204 && is_event_stream(headers) {
            let limits = self.config.settings.limits;
            self.exchange(exchange)?.stream = Some(sse::Decoder::with_limits(&limits));
        }
        if self.is_done() {
            return Ok(());
        }
        if mode.rules().stream_url && purpose != Purpose::Answer {
            self.read_link(exchange, headers)?;
        }
        Ok(())
    }

    /// Bytes of the body of the response to `exchange`, in any chunking.
    pub fn handle_body(&mut self, exchange: u64, chunk: &[u8], now: Millis) -> Result<(), Error> {
        self.now = now;
        let max = self.config.settings.limits.max_message_bytes;
        let x = self.exchange(exchange)?;
        if x.status.is_none() {
            return Err(err!(UsageOutOfTurn, "a body for exchange {exchange} before its head"));
        }
        x.since = now;
        if !x.reading {
            return Ok(());
        }
        let Some(decoder) = x.stream.as_mut() else {
            if x.body.len() + chunk.len() > max {
                x.reading = false;
                self.fail(over("a response body's bytes", max));
            } else {
                x.body.extend_from_slice(chunk);
            }
            return Ok(());
        };
        decoder.feed(chunk);
        self.drain_blocks(exchange);
        Ok(())
    }

    /// The response to `exchange` ended: the server closed it, or the
    /// connection was cut (a host often cannot tell which; nor need it).
    pub fn handle_end(&mut self, exchange: u64, now: Millis) -> Result<(), Error> {
        self.now = now;
        if self.has_open_copy(exchange) && !self.exchange(exchange)?.status.is_some_and(is_servers_answer) {
            // A copy that no server answered, while another copy may: nothing of the call's.
            self.exchanges.retain(|x| x.number != exchange);
            return Ok(());
        }
        let x = self.exchange(exchange)?;
        let (purpose, status, streamed) = (x.purpose, x.status, x.stream.is_some());
        if let Some(decoder) = x.stream.as_mut() {
            decoder.finish();
            self.drain_blocks(exchange);
        }
        // Still read to its end: not stopped by `input_required` or a failure.
        let reading = self.exchange(exchange)?.reading;
        let body = core::mem::take(&mut self.exchange(exchange)?.body);
        self.exchanges.retain(|x| x.number != exchange);
        if self.is_done() || !reading {
            return Ok(());
        }
        match status {
            _ if streamed => self.stream_ended(now),
            Some(status) => self.read_whole(purpose, status, &body),
            None => self.fail(err!(
                HttpStatusUnexpected,
                "no response from the server: the connection failed or was closed before any status ({purpose:?} exchange)"
            )),
        }
        Ok(())
    }

    /// The time came that [`poll_timeout`](Call::poll_timeout) named.
    pub fn handle_timeout(&mut self, now: Millis) {
        self.now = now;
        if self.is_done() {
            return;
        }
        self.give_up_stalled(now);
        if !self.state.awaits_reconnect() || self.reconnect_at > now {
            return;
        }
        self.reconnects += 1;
        self.resume();
    }

    /// A GET that resumes the call's stream, from the last event id.
    fn resume(&mut self) {
        self.go(CallInput::Reconnect);
        let url = self.stream_url.clone().unwrap_or_else(|| self.config.url.clone());
        let mut headers = self.config.headers.clone();
        headers.push(("accept".into(), "text/event-stream".into()));
        if let Some(id) = &self.last_event_id {
            headers.push(("last-event-id".into(), id.clone()));
        }
        self.send(Purpose::Resume, "GET", url, headers, None);
    }

    /// No server took `exchange` (a gateway's 502-504, a failed connection),
    /// and the host holds it to send again as it was, after a wait: it is not
    /// watched for a stall ([`CallConfig::stall_ms`]) until
    /// [`handle_resent`](Call::handle_resent). (A copy made meanwhile would go
    /// sooner than the wait, and than the server's `retry`.) It takes no
    /// time: nothing of the exchange is timed while it is held, and
    /// `handle_resent` stamps it when it goes again.
    pub fn handle_unreached(&mut self, exchange: u64) -> Result<(), Error> {
        self.exchange(exchange)?.held = true;
        Ok(())
    }

    /// The host sent `exchange` again at `now`, as it was.
    pub fn handle_resent(&mut self, exchange: u64, now: Millis) -> Result<(), Error> {
        self.now = now;
        let x = self.exchange(exchange)?;
        (x.held, x.since) = (false, now);
        Ok(())
    }

    /// The host's JSON-RPC response to a server request this machine reported.
    pub fn answer(&mut self, response: &Value, now: Millis) -> Result<(), Error> {
        self.now = now;
        let id = response.get("id").filter(|_| response.get("method").is_none());
        let Some(i) = id.and_then(|id| self.pending.iter().position(|p| p == id)) else {
            return Err(err!(UsageOutOfTurn, "an answer to no server request this call reported"));
        };
        envelope::classify_value(response, self.config.settings.protocol, &self.config.settings.limits)
            .map_err(|e| err!(UsageInvalidArgument, "the answer is no JSON-RPC response: {e}"))?;
        self.pending.remove(i);
        if self.is_done() {
            return Ok(());
        }
        if self.state.keeps_answers() {
            self.buffered.push(response.clone());
            self.flush();
        } else {
            let url = self.config.url.clone();
            self.post(Purpose::Answer, url, response.to_string(), None);
        }
        Ok(())
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

    /// When to call [`handle_timeout`](Call::handle_timeout), in the host's
    /// milliseconds, if anything waits.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Millis> {
        if self.is_done() {
            return None;
        }
        let reconnect = self.state.awaits_reconnect().then_some(self.reconnect_at);
        reconnect.into_iter().chain(self.stall_deadline()).min()
    }

    /// The exchanges given up as stalled ([`CallConfig::stall_ms`]) and
    /// still open: the host may cut them (then [`handle_end`](Call::handle_end)
    /// each) rather than wait for a hung server.
    pub fn abandoned(&self) -> Vec<u64> {
        self.exchanges.iter().filter(|x| x.given_up).map(|x| x.number).collect()
    }

    /// When the earliest watched exchange stalls ([`CallConfig::stall_ms`]).
    fn stall_deadline(&self) -> Option<Millis> {
        let ms = self.stall_wait()?;
        self.exchanges.iter().filter(|x| self.watched(x)).map(|x| self.stalls_at(x, ms)).min()
    }

    /// When `x` stalls, given the wait `ms`: between half of it and all of
    /// it, the point drawn from the call's id and the exchange's number.
    /// Calls that waited alike would otherwise send their requests again in
    /// step, and behind a plain round robin the same call's requests would
    /// reach the same (hung) instance every time ("equal jitter"; no
    /// randomness taken from the host: the same call is the same in a replay).
    fn stalls_at(&self, x: &Exchange, ms: u64) -> Millis {
        let half = ms / 2;
        x.since.saturating_add(ms - half).saturating_add(spread(&self.id, x.number) % (half + 1))
    }

    /// How long a watched exchange may be silent now: [`CallConfig::stall_ms`]
    /// (each time alike, as hedged requests are spaced: a copy leaves what
    /// it copies open, so a slow server loses nothing by it, and a wait that
    /// grew would leave a call on a hung instance for most of its hang); after
    /// [`StreamLimits::max_reconnects`] stalls in a row with no server's
    /// answer, none: the call waits for the server, as it does without
    /// `stall_ms` (a silence is no failure).
    fn stall_wait(&self) -> Option<u64> {
        self.config.stall_ms.filter(|_| self.stalls < self.config.limits.max_reconnects)
    }

    /// Whether `x` is given up once it stalls: a resume or a POST of
    /// answers (they may go again as they were), or the request's own
    /// stream once it has something to resume from. Never the request's
    /// POST before its head: that is the operation's to send again.
    fn watched(&self, x: &Exchange) -> bool {
        if !x.reading || x.given_up || x.copied || x.held {
            return false;
        }
        x.sent.is_some() || (x.stream.is_some() && self.is_resumable())
    }

    /// Acts on every watched exchange silent for the stall at `now`: one
    /// with no head yet gets a copy (and stays open: the first copy with a
    /// head wins, as a hedged request's; a server slow to take it, say behind
    /// a lock a hung instance holds, is not cut off); a stream with something
    /// to resume from is given up and resumed (after the server's `retry`,
    /// if it sent one); any other is given up and goes again as it was.
    fn give_up_stalled(&mut self, now: Millis) {
        let Some(ms) = self.stall_wait() else { return };
        let stalled: Vec<u64> = self
            .exchanges
            .iter()
            .filter(|x| self.watched(x) && self.stalls_at(x, ms) <= now)
            .map(|x| x.number)
            .collect();
        for number in stalled {
            let resumable = self.is_resumable();
            self.stalls += 1;
            let Ok(x) = self.exchange(number) else { continue };
            let (purpose, streamed, headed, again) =
                (x.purpose, x.stream.is_some(), x.status.is_some(), x.sent.clone());
            match again {
                Some(request) if !headed => {
                    x.copied = true;
                    let first = *x.copies_of.get_or_insert(number);
                    let copy = self.send(purpose, request.method, request.url, request.headers, request.body);
                    if let Ok(c) = self.exchange(copy) {
                        c.copies_of = Some(first);
                    }
                }
                Some(request) if !(streamed && resumable) => {
                    x.reading = false;
                    x.given_up = true;
                    self.send(purpose, request.method, request.url, request.headers, request.body);
                }
                _ => {
                    x.reading = false;
                    x.given_up = true;
                    // Resumed from its last event, no sooner than the server's last `retry` after the cut
                    // (`sse-retry-ignored`, which the simulation's checker found).
                    self.cut(now.saturating_add(self.retry_ms.unwrap_or(0)));
                }
            }
        }
    }

    /// A copy of `first` (other than `winner`) got its head: every other
    /// copy is given up, the host's to cut.
    fn give_up_copies(&mut self, first: u64, winner: u64) {
        for x in self.exchanges.iter_mut().filter(|x| x.copies_of == Some(first) && x.number != winner) {
            x.reading = false;
            x.given_up = true;
        }
    }

    /// Whether another copy of `exchange` is open and may still answer.
    pub fn has_open_copy(&self, exchange: u64) -> bool {
        let Some(first) = self.exchanges.iter().find(|x| x.number == exchange).and_then(|x| x.copies_of) else {
            return false;
        };
        self.exchanges.iter().any(|x| x.copies_of == Some(first) && x.number != exchange && !x.given_up)
    }

    /// Whether the call's stream can be resumed: an event id, or (SEP-1335) its stream URL.
    fn is_resumable(&self) -> bool {
        (self.config.mode.rules().stream_url && self.stream_url.is_some()) || self.last_event_id.is_some()
    }

    fn exchange(&mut self, number: u64) -> Result<&mut Exchange, Error> {
        self.exchanges
            .iter_mut()
            .find(|x| x.number == number)
            .ok_or_else(|| err!(UsageUnknownHandle, "no open exchange {number}"))
    }

    fn post(&mut self, purpose: Purpose, url: String, body: String, last_event_id: Option<String>) {
        let mut headers = self.config.headers.clone();
        headers.push(("accept".into(), "application/json, text/event-stream".into()));
        headers.push(("content-type".into(), "application/json".into()));
        if let Some(id) = last_event_id {
            headers.push(("last-event-id".into(), id));
        }
        self.send(purpose, "POST", url, headers, Some(body));
    }

    fn send(
        &mut self,
        purpose: Purpose,
        method: &'static str,
        url: String,
        mut headers: Headers,
        body: Option<String>,
    ) -> u64 {
        let carrier = purpose == Purpose::Carrier && method == "POST";
        for (name, value) in &self.mirrored {
            if carrier || name == "mcp-protocol-version" {
                headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                headers.insert(0, (name.clone(), value.clone()));
            }
        }
        let number = self.next_exchange;
        self.next_exchange += 1;
        let request = Request { exchange: number, method, url: url.clone(), headers, body };
        // Only what may go again as it was is kept: not the call's own request.
        let sent = (self.config.stall_ms.is_some() && number > 1).then(|| request.clone());
        let exchange = Exchange {
            number,
            purpose,
            url,
            status: None,
            stream: None,
            body: Vec::new(),
            events: 0,
            reading: true,
            since: self.now,
            sent,
            given_up: false,
            copied: false,
            copies_of: None,
            held: false,
        };
        self.exchanges.push(exchange);
        self.transmits.push_back(request);
        number
    }

    fn fail(&mut self, error: Error) {
        if !self.is_done() {
            self.go(CallInput::Fail);
            self.events.push_back(Event::Failed(error));
        }
    }

    /// The call's response came: the last event.
    fn respond(&mut self, message: Value) {
        self.go(CallInput::Response);
        self.events.push_back(Event::Response(message));
    }

    /// A stream with something to resume from ended or stalled: the GET
    /// that resumes goes `at`, where the state allows (not after
    /// `input_required` or a `204`, which wait for the host's answers).
    fn cut(&mut self, at: Millis) {
        if self.step(CallInput::Cut).is_ok() {
            self.reconnect_at = at;
        }
    }

    /// SEP-1335: the response's `rel="stream"` URL, followed only within the origin.
    fn read_link(&mut self, exchange: u64, headers: &[(String, String)]) -> Result<(), Error> {
        let fields = headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case("link")).map(|(_, v)| v.as_str());
        let base = self.exchange(exchange)?.url.clone();
        match link::stream_url(fields, &base, &self.config.limits) {
            Ok(Some(url)) if link::same_origin(&url, &self.config.url) => self.stream_url = Some(url),
            Ok(Some(url)) => self.events.push_back(Event::Violation(err!(
                SseStreamUrlCrossOrigin,
                "the rel=\"stream\" URL {url} is not of the endpoint's origin; not followed"
            ))),
            Ok(None) => {}
            Err(e) => self.fail(e),
        }
        Ok(())
    }

    fn drain_blocks(&mut self, exchange: u64) {
        let max_events = self.config.limits.max_events;
        loop {
            let Ok(x) = self.exchange(exchange) else { return };
            if !x.reading {
                return;
            }
            let Some(block) = x.stream.as_mut().and_then(sse::Decoder::poll_event) else { return };
            x.events += 1;
            if x.events > max_events {
                x.reading = false;
                return self.fail(over("the event-stream blocks of a response", max_events));
            }
            match block {
                Ok(event) => self.event(exchange, event),
                Err(e) => {
                    if let Ok(x) = self.exchange(exchange) {
                        x.reading = false;
                    }
                    return self.fail(e);
                }
            }
            if self.is_done() {
                return;
            }
        }
    }

    /// One block of a response stream.
    fn event(&mut self, exchange: u64, event: sse::Event) {
        if event.data.is_some() {
            // Only a message is progress: an id or a retry alone is not.
            self.reconnects = 0;
            self.stalls = 0;
        }
        if let Some(id) = &event.id {
            self.last_event_id = Some(id.clone()).filter(|id| !id.is_empty());
        }
        if let Some(ms) = event.retry {
            if ms > self.config.limits.max_retry_ms {
                return self.fail(over("the server's retry (ms)", self.config.limits.max_retry_ms));
            }
            self.retry_ms = Some(ms);
        }
        let custom = self.config.mode.rules().answering == Answering::UntilInputRequired;
        match event.event.as_deref() {
            // Out of turn (a second one), it changes nothing: answers are kept already.
            Some("buffer_input") if custom => {
                let _ = self.step(CallInput::BufferInput);
            }
            // Out of turn (the call waits for answers already), it changes nothing.
            Some("input_required") if custom && self.step(CallInput::InputRequired).is_ok() => {
                self.quote = event.id.clone().or_else(|| self.last_event_id.clone());
                if let Ok(x) = self.exchange(exchange) {
                    x.reading = false;
                }
                self.flush();
            }
            _ => {
                if let Some(data) = event.data.filter(|d| !d.is_empty()) {
                    self.message(data.as_bytes());
                }
            }
        }
    }

    /// The kind of a message from the server; `Err`: the fault that fails
    /// the call (any, by default; lenient, only a fault of the envelope,
    /// the content's faults reported as [`Event::Violation`]s).
    fn classify(&mut self, message: &Value) -> Result<Kind, Error> {
        let (protocol, limits) = (self.config.settings.protocol, self.config.settings.limits);
        if !self.config.is_lenient() {
            return envelope::classify_value(message, protocol, &limits).map(|c| c.kind);
        }
        let mut faults = Vec::new();
        let kind = envelope::classify_value_into(message, protocol, &limits, &mut faults).map(|c| c.kind);
        self.events.extend(faults.into_iter().map(Event::Violation));
        kind
    }

    /// One JSON-RPC message from the server.
    fn message(&mut self, bytes: &[u8]) {
        let limits = self.config.settings.limits;
        let message = match crate::one_message::envelope::parse(bytes, &limits) {
            Ok(m) => m,
            Err(e) => return self.fail(e),
        };
        let kind = match self.classify(&message) {
            Ok(kind) => kind,
            Err(e) => return self.fail(e),
        };
        match kind {
            Kind::Request => self.server_request(message),
            Kind::Notification => self.events.push_back(Event::Message(message)),
            _ if message["id"] == self.id => self.respond(message),
            _ => self.events.push_back(Event::Message(message)),
        }
    }

    fn server_request(&mut self, message: Value) {
        let method = message["method"].as_str().unwrap_or_default();
        if self.config.mode.server_requests() || !INPUT_METHODS.contains(&method) {
            self.pending.push(message["id"].clone());
            return self.events.push_back(Event::ServerRequest(message));
        }
        self.events.push_back(Event::Violation(err!(
            ServerRequestOnStream,
            "{method} on a {} stream: MRTR asks for input inside results",
            self.config.mode
        )));
        let url = self.config.url.clone();
        if let Some(reply) = unassociated_reply(&message) {
            self.post(Purpose::Answer, url, reply.to_string(), None);
        }
    }

    /// A response that is no event stream, read whole: judged by its purpose and status.
    fn read_whole(&mut self, purpose: Purpose, status: u16, body: &[u8]) {
        match (purpose, status) {
            (Purpose::Answer, 200..=299) => {}
            (Purpose::Resume, 204) if self.config.mode.rules().stream_url => {
                self.go(CallInput::NoContent);
                self.flush();
            }
            (Purpose::Resume, 204) => {
                self.fail(err!(SseStreamEnded, "the resumed stream ended (204) before the response"))
            }
            (Purpose::Carrier, _) => self.read_body(status, body),
            (_, _) => self.fail(err!(HttpStatusUnexpected, "the server answered {status} to a {purpose:?} exchange")),
        }
    }

    /// A JSON (not event-stream) response to a carrier ended: it must be the call's response.
    /// A 2xx body that does not parse fails with its own rule (a peer's bad
    /// JSON is `jsonrpc-parse-error`, not a bad status); any other status
    /// without the call's response is `http-status-unexpected`.
    fn read_body(&mut self, status: u16, body: &[u8]) {
        let limits = self.config.settings.limits;
        let ok = (200..300).contains(&status);
        let message = match crate::one_message::envelope::parse(body, &limits) {
            Ok(m) => Some(m).filter(|m| m.get("id") == Some(&self.id)),
            Err(e) if ok && !body.is_empty() => return self.fail(e),
            Err(_) => None,
        };
        match message {
            Some(m) if m.get("error").is_some() || ok => {
                if let Err(e) = self.classify(&m) {
                    return self.fail(e);
                }
                self.respond(m);
            }
            _ => self.fail(err!(HttpStatusUnexpected, "the server answered {status} without the call's response")),
        }
    }

    /// A response stream ended before the call's response: reconnect after
    /// `retry` where the mode allows, else fail.
    fn stream_ended(&mut self, now: Millis) {
        if self.state.next(CallInput::Cut).is_none() {
            // After `input_required` or a `204` the call waits for the host's answers, not for a stream.
            return;
        }
        if !self.is_resumable() {
            return self
                .fail(err!(SseStreamEnded, "the stream ended before the response, with no event id to resume from"));
        }
        if self.reconnects >= self.config.limits.max_reconnects {
            return self.fail(err!(SseStreamEnded, "{} reconnects in a row brought no event", self.reconnects));
        }
        let base = self.retry_ms.unwrap_or(self.config.default_retry_ms).max(MIN_RETRY_MS);
        let backoff = base.saturating_mul(1 << self.reconnects.min(20));
        self.cut(now.saturating_add(backoff.min(self.config.limits.max_retry_ms.max(base))));
    }

    /// Sends the buffered answers once every reported request is answered:
    /// 1858 after `input_required`, 1335 after `204`.
    fn flush(&mut self) {
        if !self.pending.is_empty() {
            return;
        }
        let (url, last_event_id) = match self.state {
            CallState::AwaitingAnswers => (self.config.url.clone(), self.quote.take()),
            CallState::Ended => {
                if self.buffered.is_empty() {
                    return self
                        .fail(err!(SseStreamEnded, "the stream ended (204) with no answer owed and no response"));
                }
                match &self.stream_url {
                    Some(u) => (u.clone(), None),
                    None => {
                        return self.fail(err!(SseStreamEnded, "204 with no rel=\"stream\" URL to POST the answers to"))
                    }
                }
            }
            _ => return,
        };
        let body = Value::Array(core::mem::take(&mut self.buffered)).to_string();
        self.go(CallInput::Flush);
        self.reconnects = 0;
        self.post(Purpose::Carrier, url, body, last_event_id);
    }
}

/// Whether a response head of `status` is a server's answer: not a
/// gateway's 502, 503 or 504, which say that no server took the request.
fn is_servers_answer(status: u16) -> bool {
    !matches!(status, 502..=504)
}

/// A number spread over `u64` from a call's id and one of its exchanges
/// (FNV-1a): the same inputs, the same number; neighbouring ones, far apart.
fn spread(id: &Value, exchange: u64) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in Id::text(id).bytes().chain(exchange.to_le_bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The shortest wait before a reconnect, in milliseconds, whatever `retry`
/// (or [`CallConfig::default_retry_ms`]) says: `retry: 0` would have the
/// client reconnect at once, as often as the server ends its streams.
pub const MIN_RETRY_MS: u64 = 100;

/// The answer a client gives a server request that reached it outside any
/// request of its own in flight (SEP-2260), e.g. on the standalone GET
/// stream: a -32602 error for `elicitation/create`, `sampling/createMessage`
/// and `roots/list`; `None` for any other message (`ping` is exempt).
pub fn unassociated_reply(request: &Value) -> Option<Value> {
    let method = request.get("method")?.as_str()?;
    let id = request.get("id")?;
    INPUT_METHODS.contains(&method).then(|| {
        // JSON-RPC's own text for -32602: the code says it all (SEP-2260).
        json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {
                "code": -32602,
                "message": "Invalid params",
            }
        })
    })
}

/// The stream name of a server message on the response to a POST of `id`
/// (as the checker names streams): `post:<id>`.
pub fn post_stream(id: &Value) -> String {
    let mut s = String::from("post:");
    s.push_str(&Id::text(id));
    s
}

mod state;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod walk;

/// Builds `[("name", "value"), …]` header lists for tests and hosts.
pub fn headers<const N: usize>(fields: [(&str, &str); N]) -> Headers {
    fields.iter().map(|(n, v)| (String::from(*n).to_ascii_lowercase(), String::from(*v))).collect()
}
