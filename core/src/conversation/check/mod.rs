//! The conversation checker: every rule of the catalogue that a recorded
//! conversation can show (all but sealed state and the SSE transports).
//!
//! [`Checker`] is a sans-IO machine fed one [`Entry`] at a time
//! ([`Checker::handle`]); [`check`] runs it over a whole transcript. A
//! [`Violation`] names the rule and the index of the offending entry.
//!
//! One fault, one report: a message with a fault still does what its valid
//! parts do (an `input_required` result with a bad input request opens its
//! round; a retry with a bad `requestState` pairs with its round), so the
//! honest messages after it are judged as if the fault were not there.
//! `conformance/README.md` ("One fault, one report") lists the readings.

use crate::{
    base::error::Error,
    base::error::Result,
    base::limits::Limits,
    base::protocol::{Protocol, ResultTypeRule, TasksFlavor, INPUT_METHODS},
    base::rules::RuleId,
    base::settings::Settings,
    base::tasks::{Task, TaskStatus},
    one_message::envelope::{self, Id, Kind, ResultType},
    read::validate,
    read::view::{InputRequestView, Obj, ParamsView, ResponseView, J},
    request::dialect::to_sep_in,
    request::input,
    request::message::target,
    request::message::{check_capabilities, check_task_input, is_task_input, read_view, required_meta},
    request::retry::{self, Requests},
};
use alloc::{
    collections::{BTreeMap, BTreeSet, VecDeque},
    string::{String, ToString},
    vec::Vec,
};
use serde_json::{Map as JsonMap, Value};

/// Who sent a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The MCP client.
    Client,
    /// The MCP server.
    Server,
}

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Its sender.
    pub from: Side,
    /// The JSON-RPC message.
    pub message: Value,
    /// For server messages over Streamable HTTP: `"post:<id>"` (the stream of
    /// the client's POST of request `<id>`) or `"get"` (the standalone stream).
    pub stream: Option<String>,
}

impl Entry {
    /// Reads one entry `{"from": "client"|"server", "message": …, "stream": …}`
    /// (the format of the conformance corpus and of `mrtr check`).
    pub fn from_value(value: &Value) -> Result<Entry, Error> {
        // A malformed entry is the caller's transcript, not a peer's message.
        let invalid = |what: &'static str| Error::new(RuleId::UsageInvalidArgument, what);
        let from = match value.get("from").and_then(Value::as_str) {
            Some("client") => Side::Client,
            Some("server") => Side::Server,
            _ => return Err(invalid("an entry's \"from\" is \"client\" or \"server\"")),
        };
        let message = value.get("message").cloned().ok_or(invalid("an entry needs a \"message\""))?;
        let stream = match value.get("stream") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(invalid("an entry's \"stream\" is a string")),
        };
        Ok(Entry { from, message, stream })
    }
}

mod audit;
mod interop;
pub use audit::{check as check_lines, prepare, Audit, Block, HttpEntry, Line, Prepared, Unparsed};
pub use interop::{Interop, InteropInfo, InteropWarning, ASK_WINDOW_MS, HUMAN_MS, WARNINGS};

/// What the checker reads of one message before it looks at the
/// conversation: everything that depends on the message alone (its dialect
/// converted, its kind and the faults of its content, a request's compact
/// text and the params a retry is compared by). Worked out by [`prepare`],
/// outside whatever serializes the conversation, and used by the checker
/// as if computed in place: the same violations, in the same order.
struct Part {
    /// The message in the `sep-2322` shape, when the protocol's differs.
    converted: Option<Value>,
    /// Its kind, result type and whether `resultType` was present; `None`:
    /// the envelope is at fault (the last of `faults`).
    class: Option<(Kind, Option<ResultType>, bool)>,
    faults: Vec<Error>,
    /// A request's compact JSON text (as held in flight).
    text: Option<String>,
    /// A request carrying MRTR fields (not a task's input): its params
    /// without them.
    salient: Option<JsonMap<String, Value>>,
}

impl Part {
    fn of(from: Side, message: &Value, config: &CheckConfig) -> Part {
        let converted = match to_sep_in(message, config.settings.protocol) {
            alloc::borrow::Cow::Owned(v) => Some(v),
            alloc::borrow::Cow::Borrowed(_) => None,
        };
        let m = converted.as_ref().unwrap_or(message);
        let mut faults = Vec::new();
        let class =
            match envelope::classify_value_into(m, config.settings.protocol, &config.settings.limits, &mut faults) {
                Ok(c) => Some((c.kind, c.result_type, c.result_type_present)),
                Err(e) => {
                    faults.push(e);
                    None
                }
            };
        let (mut text, mut salient) = (None, None);
        if from == Side::Client && matches!(class, Some((Kind::Request, ..))) {
            if let Ok(view) = envelope::read(m) {
                let method = view.method.as_str().unwrap_or_default();
                let carries =
                    view.params.get().is_some_and(|p| p.input_responses.is_present() || p.request_state.is_present());
                if carries && !is_task_input(method, config.settings.protocol) {
                    salient = Some(salient_of(m));
                }
                text = Some(serde_json::to_string(m).unwrap_or_default());
            }
        }
        Part { converted, class, faults, text, salient }
    }
}

/// A request's params without the fields a retry adds or changes
/// ([`crate::protocol::RETRY_FREE_PARAMS`]): what a retry must repeat. Only
/// the kept fields are copied.
fn salient_of(message: &Value) -> JsonMap<String, Value> {
    let salient = match message.get("params").and_then(Value::as_object) {
        Some(p) => p
            .iter()
            .filter(|(k, _)| !crate::base::protocol::RETRY_FREE_PARAMS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        None => JsonMap::new(),
    };
    // The same map as the shared helper's, which copies the whole params first.
    debug_assert_eq!(salient, crate::request::message::salient_params(message));
    salient
}

/// Reads a transcript in JSON Lines, one entry (message or HTTP) per non-blank line, each line
/// parsed under the core's bad-input rules ([`crate::parse`]). An error names
/// its line (1-based).
pub fn read_jsonl(text: &str, limits: &Limits) -> Result<Vec<(usize, Line)>, (usize, Error)> {
    read_jsonl_bytes(text.as_bytes(), limits)
}

/// [`read_jsonl`] over bytes, as read from a file: a line that is not UTF-8
/// fails with `jsonrpc-parse-error` and its line number, like any bad line.
pub fn read_jsonl_bytes(bytes: &[u8], limits: &Limits) -> Result<Vec<(usize, Line)>, (usize, Error)> {
    // Lines as `str::lines` cuts them: at LF, without a CR before it, no empty last line.
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let lines = bytes.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l)).enumerate();
    let blank = |line: &[u8]| core::str::from_utf8(line).is_ok_and(|l| l.trim().is_empty());
    lines
        .filter(|(_, l)| !blank(l))
        .map(|(i, line)| {
            let value = crate::one_message::envelope::parse(line, limits).map_err(|e| (i + 1, e))?;
            Line::from_value_with(&value, limits).map(|e| (i + 1, e)).map_err(|e| (i + 1, e))
        })
        .collect()
}

/// Settings of a check: the conversation's protocol, the bounds on each
/// message and the retries allowed per request, and the transport of its
/// HTTP entries. Build one from [`CheckConfig::default`] (or
/// [`CheckConfig::new`]) with the `with_*` methods.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct CheckConfig {
    /// The protocol, the limits, the round bound.
    pub settings: Settings,
    /// The multi-turn transport of HTTP entries (`sep-1858`, `sep-1335`), whose
    /// `sse-*` rules are checked; `None`: plain Streamable HTTP.
    pub transport: Option<crate::machines::http::Mode>,
    /// How long a client may leave an ask open before the interop warning
    /// `ask-unanswered` (or a state-only round unretried): [`ASK_WINDOW_MS`].
    pub ask_window_ms: u64,
    /// An elicitation declined or cancelled sooner than this after its ask
    /// is `answer-too-fast`: [`HUMAN_MS`].
    pub human_ms: u64,
}

impl Default for CheckConfig {
    fn default() -> CheckConfig {
        CheckConfig::new(Settings::DEFAULT)
    }
}

impl CheckConfig {
    /// A check under `settings`, of plain Streamable HTTP.
    pub const fn new(settings: Settings) -> CheckConfig {
        CheckConfig { settings, transport: None, ask_window_ms: ASK_WINDOW_MS, human_ms: HUMAN_MS }
    }

    /// This check warning of asks left open `ms` after they came (`ask-unanswered`).
    #[must_use]
    pub const fn with_ask_window_ms(self, ms: u64) -> CheckConfig {
        CheckConfig { ask_window_ms: ms, ..self }
    }

    /// This check warning of elicitations declined sooner than `ms` after they came (`answer-too-fast`).
    #[must_use]
    pub const fn with_human_ms(self, ms: u64) -> CheckConfig {
        CheckConfig { human_ms: ms, ..self }
    }

    /// This check of a conversation in `protocol`.
    #[must_use]
    pub const fn with_protocol(self, protocol: Protocol) -> CheckConfig {
        CheckConfig { settings: self.settings.with_protocol(protocol), ..self }
    }

    /// This check with `limits` on each message.
    #[must_use]
    pub const fn with_limits(self, limits: Limits) -> CheckConfig {
        CheckConfig { settings: self.settings.with_limits(limits), ..self }
    }

    /// This check allowing `max_rounds` retries per request.
    #[must_use]
    pub const fn with_max_rounds(self, max_rounds: u32) -> CheckConfig {
        CheckConfig { settings: self.settings.with_max_rounds(max_rounds), ..self }
    }

    /// This check of HTTP entries in the multi-turn `transport` (none: plain Streamable HTTP).
    #[must_use]
    pub const fn with_transport(self, transport: Option<crate::machines::http::Mode>) -> CheckConfig {
        CheckConfig { transport, ..self }
    }
}

/// A rule broken by the entry at `index`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The rule.
    pub rule: RuleId,
    /// The index of the offending entry in the transcript.
    pub index: usize,
    /// What is wrong, in one sentence.
    pub message: String,
}

/// Checks a whole conversation. Violations come in transcript order, each
/// (rule, index) once.
pub fn check(entries: &[Entry], config: CheckConfig) -> Vec<Violation> {
    let mut checker = Checker::new(config);
    for entry in entries {
        checker.handle(entry);
    }
    checker.into_violations()
}

/// A multi-round operation the server finished: a final result (or a task)
/// after at least one `input_required` answer. A proxy prints one line each;
/// its host maps the entry indices to its own clock for a latency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// `tools/call`, `prompts/get` or `resources/read`.
    pub method: String,
    /// `params.name` or `params.uri`.
    pub target: Option<String>,
    /// How many `input_required` answers it took.
    pub rounds: u32,
    /// The index of its first request.
    pub started: usize,
    /// The index of its final result.
    pub finished: usize,
    /// Each round in order: the index of its request and of its answer
    /// (an `input_required`, the last one the final result), so that a
    /// host can lay the rounds out on its clock. The latest [`SPANS_KEPT`].
    pub spans: Vec<(usize, usize)>,
}

/// How many rounds' spans an [`Operation`] keeps (the latest).
pub const SPANS_KEPT: usize = 64;

/// `spans` and the round (`request`, `answer`) after them, the latest
/// [`SPANS_KEPT`] kept.
fn spans_then(spans: &[(usize, usize)], request: usize, answer: usize) -> Vec<(usize, usize)> {
    let skip = (spans.len() + 1).saturating_sub(SPANS_KEPT);
    spans.iter().copied().skip(skip).chain([(request, answer)]).collect()
}

/// A client request still waiting for its answer, kept as its compact JSON
/// text and read again when its answer comes: a parsed tree costs some 36
/// times the text (security review M1), and most requests are read again
/// once.
struct InFlight {
    text: String,
    method: String,
    /// `Id::text` of its id: a server request on its stream names it.
    id: String,
    rounds: u32,
    /// The index of the operation's first request (this one's, or the
    /// original's when it retries).
    started: usize,
    /// When it retries a round: that round, re-opened if the server answers
    /// the retry with an error (so a corrected retry is not a cascade).
    retries: Option<Awaiting>,
    /// Arrival order, for pruning.
    seq: u64,
    /// Its own index.
    index: usize,
    /// The operation's earlier rounds (request, answer), when it retries.
    spans: Vec<(usize, usize)>,
    /// What a final result reads of the request, so that it is not parsed
    /// again for it; `None`: read it from `text` (a target over
    /// [`BRIEF_TARGET_MAX`] bytes, a `taskId`).
    brief: Option<Brief>,
}

/// What a final result reads of its request ([`Checker::server_result`]).
struct Brief {
    /// [`target`].
    target: Option<String>,
    /// Whether its params carry `inputResponses` or `requestState`.
    retrying: bool,
}

/// The longest target a [`Brief`] copies: a request held in flight is held
/// as its text (within [`TRACKED_BYTES_MAX`]), and a copy of a long target
/// would double it.
const BRIEF_TARGET_MAX: usize = 256;

impl Brief {
    fn of(request: &Value) -> Option<Brief> {
        let params = &request["params"];
        let target = target(request);
        if params.get("taskId").is_some() || target.is_some_and(|t| t.len() > BRIEF_TARGET_MAX) {
            return None;
        }
        let retrying = params.get("inputResponses").is_some() || params.get("requestState").is_some();
        Some(Brief { target: target.map(String::from), retrying })
    }
}

impl InFlight {
    /// The request again. It was written from a `Value`, so it reads back;
    /// `Null` is the impossible case, which matches nothing.
    fn message(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or(Value::Null)
    }
}

/// How many flows the checker tracks at most, of each kind: requests in
/// flight, rounds awaiting their retry, streams closed by `input_required`,
/// and tasks. Past a bound the oldest flow is forgotten (a later message of it
/// may then be reported as unsolicited or unknown), so memory stays bounded on
/// a long-lived stream whatever the peers do.
pub const TRACKED_MAX: usize = 4096;

/// How many bytes of request text the requests in flight may hold together
/// (as compact JSON). Past it the oldest are forgotten, as past
/// [`TRACKED_MAX`]: a client cannot make a checker hold more by sending
/// large requests nobody answers.
pub const TRACKED_BYTES_MAX: usize = 64 << 20;

/// A request answered with `input_required` and not retried since.
#[derive(Clone)]
struct Awaiting {
    method: String,
    target: Option<String>,
    id: Value,
    params: serde_json::Map<String, Value>,
    result: Value,
    /// `result.result.requestState` when it is a string: what a retry that
    /// echoes it is matched by, read once.
    state: Option<String>,
    /// The index of the entry that carried `result`: where a retry's reader
    /// looks for the state it should have echoed.
    answered: usize,
    /// The operation's rounds so far, this one last.
    spans: Vec<(usize, usize)>,
    rounds: u32,
    started: usize,
    reported: bool,
    /// What the interop warnings follow of it.
    watch: interop::Watch,
}

/// The incremental checker.
pub struct Checker {
    config: CheckConfig,
    index: usize,
    seq: u64,
    in_flight: BTreeMap<String, InFlight>,
    /// The bytes of text the requests in flight hold.
    in_flight_bytes: usize,
    awaiting: VecDeque<Awaiting>,
    closed_streams: BTreeSet<String>,
    closed_order: VecDeque<String>,
    tasks: BTreeMap<String, Task>,
    task_order: VecDeque<String>,
    violations: Vec<Violation>,
    operations: VecDeque<Operation>,
    /// Server requests (`2025-11-25`, the SSE transports) awaiting the
    /// client's answer.
    asked: VecDeque<Value>,
    /// The interop warnings (`interop`), below the violations.
    warnings: Vec<InteropWarning>,
    /// The host's clock at the current entry, when it gives one.
    now: Option<crate::base::time::Millis>,
    /// When the open rounds were last swept for their windows.
    last_sweep: Option<crate::base::time::Millis>,
    /// The `clientInfo` of the conversation's `initialize`.
    client_info: Option<String>,
}

impl Checker {
    /// A checker with `config`.
    pub fn new(config: CheckConfig) -> Checker {
        Checker {
            config,
            index: 0,
            seq: 0,
            in_flight: BTreeMap::new(),
            in_flight_bytes: 0,
            awaiting: VecDeque::new(),
            closed_streams: BTreeSet::new(),
            closed_order: VecDeque::new(),
            tasks: BTreeMap::new(),
            task_order: VecDeque::new(),
            violations: Vec::new(),
            operations: VecDeque::new(),
            asked: VecDeque::new(),
            warnings: Vec::new(),
            now: None,
            last_sweep: None,
            client_info: None,
        }
    }

    /// Checks the next entry.
    pub fn handle(&mut self, entry: &Entry) {
        self.handle_part(entry);
        self.advance();
    }

    /// Checks one message of a larger entry (an HTTP entry carries several):
    /// its violations take the current index, which does not move.
    pub(crate) fn handle_part(&mut self, entry: &Entry) {
        self.handle_message(entry.from, &entry.message, entry.stream.as_deref());
    }

    /// [`Checker::handle_part`] of a borrowed message (an HTTP entry's body
    /// or event data, not copied into an [`Entry`]).
    pub(crate) fn handle_message(&mut self, from: Side, message: &Value, stream: Option<&str>) {
        self.handle_prepared_message(from, message, stream, None);
    }

    /// [`Checker::handle_message`] with what [`prepare`] read of the
    /// message already, if it did.
    fn handle_prepared_message(&mut self, from: Side, message: &Value, stream: Option<&str>, part: Option<Part>) {
        let part = part.unwrap_or_else(|| Part::of(from, message, &self.config));
        self.handle_part_of(from, message, stream, part);
    }

    /// [`Checker::handle_message`] with what [`Part::of`] read of it
    /// already (outside the caller's lock).
    fn handle_part_of(&mut self, from: Side, message: &Value, stream: Option<&str>, mut part: Part) {
        let converted = part.converted.take();
        let message = converted.as_ref().unwrap_or(message);
        match from {
            Side::Client => self.client_message(message, part),
            Side::Server => self.server_message(message, stream, part),
        }
    }

    /// The protocol checked.
    pub(crate) fn protocol(&self) -> Protocol {
        self.config.settings.protocol
    }

    /// Moves on to the next entry.
    pub(crate) fn advance(&mut self) {
        self.index += 1;
    }

    /// Reports a rule broken by the current entry (the HTTP-level rules).
    pub(crate) fn report_rule(&mut self, rule: RuleId, message: String) {
        self.report(rule, message);
    }

    /// The violations so far, without draining them.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// The violations found.
    pub fn into_violations(self) -> Vec<Violation> {
        self.violations
    }

    /// Takes the violations found so far (a long-lived checker drains them,
    /// so that they do not accumulate).
    pub fn take_violations(&mut self) -> Vec<Violation> {
        core::mem::take(&mut self.violations)
    }

    /// Takes the multi-round operations finished since the last call, in
    /// order. Undrained, only the latest [`TRACKED_MAX`] are kept.
    pub fn take_operations(&mut self) -> Vec<Operation> {
        self.operations.drain(..).collect()
    }

    /// How many flows the checker holds now (requests in flight, rounds
    /// awaiting a retry, closed streams, tasks, server requests awaiting an
    /// answer): each kind at most [`TRACKED_MAX`].
    pub fn tracked(&self) -> usize {
        self.in_flight.len() + self.awaiting.len() + self.closed_streams.len() + self.tasks.len() + self.asked.len()
    }

    /// Stops holding the request `id` in flight: its exchange ended without
    /// an answer. A retry's round opens again, as after a refusal.
    pub(crate) fn forget(&mut self, id: &Value) {
        if let Some(round) = self.release(&id_key(id)).and_then(|f| f.retries) {
            self.awaiting.push_back(round);
        }
    }

    /// Holds a request in flight under `key`, within [`TRACKED_MAX`] and
    /// [`TRACKED_BYTES_MAX`] (the oldest go first).
    fn hold(&mut self, key: String, flight: InFlight) {
        self.in_flight_bytes += flight.text.len();
        if let Some(old) = self.in_flight.insert(key, flight) {
            self.in_flight_bytes -= old.text.len();
        }
        while self.in_flight.len() > TRACKED_MAX || self.in_flight_bytes > TRACKED_BYTES_MAX {
            let Some(oldest) = self.in_flight.iter().min_by_key(|(_, f)| f.seq).map(|(k, _)| k.clone()) else { break };
            self.release(&oldest);
        }
    }

    /// Stops holding the request in flight under `key`.
    fn release(&mut self, key: &str) -> Option<InFlight> {
        let flight = self.in_flight.remove(key)?;
        self.in_flight_bytes -= flight.text.len();
        Some(flight)
    }

    /// The bytes of request text held in flight (at most [`TRACKED_BYTES_MAX`]).
    pub fn held_bytes(&self) -> usize {
        self.in_flight_bytes
    }

    fn report(&mut self, rule: RuleId, message: impl Into<String>) {
        let index = self.index;
        // Violations come in index order: only this entry's can repeat.
        if !self.violations.iter().rev().take_while(|v| v.index == index).any(|v| v.rule == rule) {
            self.violations.push(Violation { rule, index, message: message.into() });
        }
    }

    fn report_error(&mut self, e: Error) {
        self.report(e.rule(), e.message().to_string());
    }

    fn report_all(&mut self, faults: Vec<Error>) {
        faults.into_iter().for_each(|e| self.report_error(e));
    }

    /// Reports the rule a shared check (`retry`) failed with, if it failed.
    fn report_failed(&mut self, checked: Result<()>) {
        if let Err(e) = checked {
            self.report_error(e);
        }
    }

    /// The faults of one message, each once; a message whose kind is
    /// unknown (`Err`) has its faults reported and is followed no further.
    fn classify(
        &mut self,
        class: Option<(Kind, Option<ResultType>, bool)>,
        faults: Vec<Error>,
    ) -> Option<(Kind, Option<ResultType>, bool, Vec<Error>)> {
        match class {
            Some((kind, result_type, present)) => Some((kind, result_type, present, faults)),
            None => {
                self.report_all(faults);
                None
            }
        }
    }

    /// A client message, followed as far as its valid parts go: a request
    /// with a bad `requestState` or `inputResponses` is still in flight and
    /// still retries its round (one fault, one report).
    fn client_message(&mut self, m: &Value, part: Part) {
        let Part { class, faults, text, salient, .. } = part;
        let Some((kind, _, _, mut faults)) = self.classify(class, faults) else { return };
        if kind == Kind::Result {
            self.client_answer(m);
        }
        let view = envelope::read(m).ok().filter(|_| kind == Kind::Request);
        let Some(view) = view else { return self.report_all(faults) };
        let method = view.method.as_str().unwrap_or_default().to_string();
        self.note_initialize(&method, m);
        let empty = ParamsView::default();
        let params = view.params.get().unwrap_or(&empty);
        let carries = params.input_responses.is_present() || params.request_state.is_present();
        // Only a request carrying MRTR fields has its params read again (most requests do not).
        let paired = (carries && !is_task_input(&method, self.config.settings.protocol)).then(|| {
            let salient = salient.unwrap_or_else(|| salient_of(m));
            let round = self.pair_retry(m, &salient, &method, params);
            (salient, round)
        });
        let round = paired.as_ref().and_then(|(_, r)| r.as_ref());
        let own = Faulty::of(&faults);
        // A state the retry echoes from its round is the server's fault, reported with the round.
        let echoed = round.is_some_and(|r| r.result["result"].get("requestState") == m["params"].get("requestState"));
        if echoed {
            faults.retain(|e| !STATE_FAULTS.contains(&e.rule()));
        }
        self.report_all(faults);
        if let Err(e) = required_meta(view.params.get(), self.config.settings.protocol) {
            self.report_error(e);
        }
        self.client_task_request(&method, params);
        let (mut rounds, mut started, mut retries, mut spans) = (0, self.index, None, Vec::new());
        match paired {
            Some((salient, Some(round))) => {
                self.check_retry(&round, m, &salient, params, own);
                self.watch_answers(&round.watch, &round.result, m);
                rounds = round.rounds + 1;
                started = round.started;
                spans.clone_from(&round.spans);
                retries = Some(round);
            }
            Some((_, None)) => self.report(
                RuleId::InputResponsesUnsolicited,
                "inputResponses or requestState on a request that retries nothing",
            ),
            None => {}
        }
        self.seq += 1;
        let text = text.unwrap_or_else(|| serde_json::to_string(m).unwrap_or_default());
        let (method, id) = (method.to_string(), Id::text(&m["id"]));
        // A POST with this id opens a new stream, even where an earlier one
        // with the same id (another client's, or a reused id) was closed.
        self.closed_streams.remove(&alloc::format!("post:{id}"));
        let index = self.index;
        let brief = Brief::of(m);
        let flight = InFlight { text, method, id, rounds, started, retries, seq: self.seq, index, spans, brief };
        self.hold(id_key(&m["id"]), flight);
    }

    /// The round a retry answers, among the open rounds of its method and
    /// target: the one whose `requestState` it echoes (`true`: an exact
    /// match), else the best of them all. Parallel calls to one tool each keep
    /// their own round, even when their servers sent the same plain state
    /// (`size=large`): among the rounds with its state, the retry's is the
    /// best (`best_round`).
    fn round_of(
        &self,
        m: &Value,
        salient: &JsonMap<String, Value>,
        method: &str,
        params: &ParamsView<'_>,
    ) -> Option<(usize, bool)> {
        let tgt = target(m);
        let state = params.request_state.as_str();
        let candidates =
            || self.awaiting.iter().enumerate().rev().filter(|(_, a)| a.method == method && a.target.as_deref() == tgt);
        if state.is_some() {
            let same_state = || candidates().filter(|(_, a)| a.state.as_deref() == state);
            // Latest first; the one round with its state is the round (compared as read once).
            let mut found = same_state().map(|(i, _)| i);
            if let Some(first) = found.next() {
                let only = found.next().is_none();
                let round = if only { first } else { Self::best_round(same_state(), salient, params).unwrap_or(first) };
                return Some((round, true));
            }
        }
        Self::best_round(candidates(), salient, params).map(|i| (i, false))
    }

    /// Among `rounds` (latest first), the one whose params the retry repeats,
    /// else the one whose params it repeats most of (`likeness`), then whose
    /// input-request keys it answers, then the latest: a retry that changed
    /// one argument is paired with its own call, so that its fault is not
    /// passed on to another call's retry.
    fn best_round<'a>(
        rounds: impl Iterator<Item = (usize, &'a Awaiting)>,
        salient: &JsonMap<String, Value>,
        params: &ParamsView<'_>,
    ) -> Option<usize> {
        let answers_keys = |a: &Awaiting| {
            a.result["result"]["inputRequests"]
                .as_object()
                .is_some_and(|r| !r.is_empty() && r.keys().all(|k| params.input_responses.get(k).is_some()))
        };
        let mut best = None::<(usize, (usize, bool))>;
        for (i, a) in rounds {
            if a.params == *salient {
                return Some(i);
            }
            let score = (likeness(&a.params, salient), answers_keys(a));
            if best.is_none_or(|(_, top)| score > top) {
                best = Some((i, score));
            }
        }
        best.map(|(i, _)| i)
    }

    /// The round of a retry in flight that got no response and that the
    /// request `m` sends again (same method, target and params, and the same
    /// `requestState`). The earlier send stays in flight: its connection may
    /// have been cut (a recording then ends its exchange, which forgets it),
    /// or it may be a hedged copy still on its way, whose answer, if it comes
    /// first, is the one the next round follows.
    fn unanswered_retry(
        &self,
        method: &str,
        m: &Value,
        salient: &JsonMap<String, Value>,
        params: &ParamsView<'_>,
    ) -> Option<Awaiting> {
        let (tgt, state) = (target(m), params.request_state.as_str());
        let key = self
            .in_flight
            .iter()
            .filter(|(_, f)| f.retries.is_some() && f.method == method)
            .filter(|(_, f)| {
                let sent = f.message();
                target(&sent) == tgt
                    && sent["params"]["requestState"].as_str() == state
                    && salient_of(&sent) == *salient
            })
            .max_by_key(|(_, f)| f.seq)
            .map(|(k, _)| k.clone())?;
        self.in_flight.get(&key)?.retries.clone()
    }

    /// The round a request carrying MRTR fields answers, taken out of the
    /// open ones (`salient`: its params without those fields); `None`: it
    /// retries nothing.
    fn pair_retry(
        &mut self,
        m: &Value,
        salient: &JsonMap<String, Value>,
        method: &str,
        params: &ParamsView<'_>,
    ) -> Option<Awaiting> {
        let found = self.round_of(m, salient, method, params);
        let pos = match found {
            Some((pos, true)) => pos,
            // A retry whose response never came, sent again: its round is open to it.
            _ => match self.unanswered_retry(method, m, salient, params) {
                Some(round) => {
                    self.awaiting.push_back(round);
                    self.awaiting.len() - 1
                }
                None => found?.0,
            },
        };
        self.awaiting.remove(pos)
    }

    /// Checks a retry against the round it answers. A field the retry got
    /// wrong in itself (`own`) was reported as such, not compared again.
    fn check_retry(
        &mut self,
        round: &Awaiting,
        m: &Value,
        salient: &JsonMap<String, Value>,
        params: &ParamsView<'_>,
        own: Faulty,
    ) {
        let in_flight = self.in_flight.contains_key(&id_key(&m["id"]));
        self.report_failed(retry::id_reused(&m["id"], Some(&round.id), in_flight));
        self.report_failed(retry::request_changed(&round.params, salient));
        if !own.responses {
            self.check_answers(&round.result, params);
        }
        if !own.state {
            let answered = round.answered;
            let from = |e: Error| {
                Error::with(e.rule(), alloc::format!("{} (the input_required of entry {answered})", e.message()))
            };
            self.report_failed(retry::request_state_mismatch(&round.result, m).map_err(from));
            self.report_failed(retry::request_state_unexpected(&round.result, m).map_err(from));
        }
        if !round.reported {
            self.report_failed(retry::rounds_exceeded(round.rounds.saturating_add(1), self.config.settings.max_rounds));
        }
    }

    /// Every key of the round's `inputRequests` answered, each answer fitting
    /// its request. Keys the server did not ask for are not checked: it
    /// ignores them. A request that is itself invalid (the server's fault,
    /// reported with its result) need not be answered, and its answer is
    /// judged by what can be read of it, its kind (`answer_fits`).
    fn check_answers(&mut self, result: &Value, params: &ParamsView<'_>) {
        let Some(Value::Object(asked)) = result["result"].get("inputRequests") else { return };
        let protocol = self.config.settings.protocol;
        let sound = |key: &str| {
            asked.get(key).is_some_and(|r| validate::input_request(J::Key(key), J::Value(r), protocol).is_ok())
        };
        let Ok(requests) = read_view::<Requests<'_>>(&result["result"]["inputRequests"]) else { return };
        self.report_failed(retry::missing_input_response(&requests, &params.input_responses, &sound));
        for (key, request) in requests.entries().unwrap_or_default() {
            if let (Some(Obj::Present(response)), Obj::Present(request)) = (params.input_responses.get(key), request) {
                self.report_failed(answer_fits(key, response, request, sound(key)));
            }
        }
    }

    fn client_task_request(&mut self, method: &str, params: &ParamsView<'_>) {
        if !matches!(method, "tasks/get" | "tasks/result" | "tasks/cancel" | "tasks/update" | "tasks/input_response") {
            return;
        }
        if is_task_input(method, self.config.settings.protocol) {
            if let Err(e) = check_task_input(method, params) {
                return self.report_error(e);
            }
        }
        let related = params.meta.get().and_then(|m| m.related_task.get()).and_then(|t| t.task_id.as_str());
        let Some(task_id) = params.task_id.as_str().or(related) else { return };
        let Some(task) = self.tasks.get_mut(task_id) else {
            return self.report(RuleId::TaskUnknown, "a task id the server never returned");
        };
        if is_task_input(method, self.config.settings.protocol) {
            task.answer(params.input_responses.entries().unwrap_or_default().iter().map(|(k, _)| k.as_ref()));
        }
    }

    fn server_message(&mut self, m: &Value, stream: Option<&str>, part: Part) {
        if let Some(s) = stream.filter(|s| self.closed_streams.contains(*s)) {
            let s = s.to_string();
            self.report(
                RuleId::MessageAfterInputRequired,
                alloc::format!("a message on {s} after its input_required answer"),
            );
        }
        // Ids are unique per sender: a server request with the id of a client
        // request in flight is not its answer. Only a response ends a flight.
        let is_response = m.get("method").is_none();
        let request = m.get("id").filter(|_| is_response).and_then(|id| self.release(&id_key(id)));
        // A result with a fault in its content still does what its valid
        // parts do: an `input_required` one still opens its round.
        let Some((kind, result_type, present, faults)) = self.classify(part.class, part.faults) else { return };
        self.report_all(faults);
        match kind {
            Kind::Request => self.server_request(m, stream),
            Kind::Notification => {}
            Kind::Error => {
                if let Some(request) = &request {
                    self.check_refusal(m, &request.message());
                }
                // A refused retry leaves its round open: the client may correct it.
                if let Some(round) = request.and_then(|r| r.retries) {
                    self.awaiting.push_back(round);
                }
            }
            Kind::Result | Kind::InputRequired => {
                if let Some(request) = request {
                    self.server_result(m, &request, kind, result_type, present, stream);
                }
            }
        }
    }

    fn server_request(&mut self, m: &Value, stream: Option<&str>) {
        let method = m["method"].as_str().unwrap_or_default();
        if !INPUT_METHODS.contains(&method) {
            return;
        }
        if self.config.settings.protocol.rules().mrtr {
            return self.report(
                RuleId::ServerRequestOnStream,
                alloc::format!("{method} reaches the client only as inputRequests"),
            );
        }
        let associated = match stream {
            Some("get") => false,
            Some(s) => s.strip_prefix("post:").is_some_and(|id| self.in_flight.values().any(|r| r.id == id)),
            None => !self.in_flight.is_empty(),
        };
        if !associated {
            self.report(
                RuleId::ServerRequestUnassociated,
                alloc::format!("{method} outside any client request in flight"),
            );
        }
        if self.asked.len() >= TRACKED_MAX {
            self.asked.pop_front();
        }
        self.asked.push_back(m.clone());
    }

    /// A client's result answering a server request: it fits the request,
    /// as an answer in `inputResponses` fits its input request (the rule the
    /// legacy bridge refuses such an answer with, so both sides agree). The
    /// answer to a request that is itself invalid is judged by its kind.
    fn client_answer(&mut self, m: &Value) {
        let Some(at) = self.asked.iter().rposition(|r| r["id"] == m["id"]) else { return };
        let Some(mut asked) = self.asked.remove(at) else { return };
        // The request as an input request: its method and params.
        if let Some(fields) = asked.as_object_mut() {
            fields.shift_remove("jsonrpc");
            fields.shift_remove("id");
        }
        let name = Id::text(&m["id"]);
        let sound = validate::input_request(J::Key(&name), J::Value(&asked), self.config.settings.protocol).is_ok();
        let (Ok(request), Some(Ok(response))) =
            (read_view::<InputRequestView<'_>>(&asked), m.get("result").map(read_view::<ResponseView<'_>>))
        else {
            return;
        };
        self.report_failed(answer_fits(&name, &response, &request, sound));
    }

    fn server_result(
        &mut self,
        m: &Value,
        request: &InFlight,
        kind: Kind,
        rt: Option<ResultType>,
        present: bool,
        stream: Option<&str>,
    ) {
        let rules = self.config.settings.protocol.rules();
        if rules.result_type == ResultTypeRule::Required && !present {
            self.report(RuleId::ResultTypeMissing, "a server result carries resultType");
        }
        let state_in_result = rules.mrtr && !rules.draft_envelope;
        if state_in_result && kind == Kind::Result && m["result"].get("requestState").is_some() {
            self.report(RuleId::CompleteRequestState, "a final result carries requestState: only input_required does");
        }
        let method = request.method.clone();
        // A final result reads only the request's brief (most do).
        if let (true, Some(brief)) = (kind != Kind::InputRequired, &request.brief) {
            // A brief is of a request without a taskId, which reads as "".
            self.server_task_result(m, &method, "", kind, rt);
            self.check_cache_hints(m, &method, brief.retrying, kind, rt);
            return self.finish_operation(request, brief.target.as_deref(), method);
        }
        let sent = request.message();
        let task_id = sent["params"]["taskId"].as_str().unwrap_or_default();
        self.server_task_result(m, &method, task_id, kind, rt);
        let retrying = sent["params"].get("inputResponses").is_some() || sent["params"].get("requestState").is_some();
        self.check_cache_hints(m, &method, retrying, kind, rt);
        if kind != Kind::InputRequired {
            return self.finish_operation(request, target(&sent), method);
        }
        if !self.config.settings.protocol.allows_input_required(&method) {
            return self.report(
                RuleId::InputRequiredMethodNotAllowed,
                alloc::format!("{method} is not answered with input_required"),
            );
        }
        self.check_result_capabilities(m, &sent);
        if let Some(s) = stream.filter(|s| s.starts_with("post:")) {
            if self.closed_streams.insert(s.to_string()) {
                self.closed_order.push_back(s.to_string());
            }
            if self.closed_order.len() > TRACKED_MAX {
                self.closed_order.pop_front().map(|old| self.closed_streams.remove(&old));
            }
        }
        if method == "tasks/result" {
            return;
        }
        if self.awaiting.len() >= TRACKED_MAX {
            self.awaiting.pop_front();
        }
        let watch = self.watch(m, &sent, request.retries.as_ref().map(|r| &r.watch));
        self.awaiting.push_back(Awaiting {
            target: target(&sent).map(String::from),
            id: sent["id"].clone(),
            params: salient_of(&sent),
            result: m.clone(),
            state: m["result"]["requestState"].as_str().map(String::from),
            answered: self.index,
            spans: spans_then(&request.spans, request.index, self.index),
            rounds: request.rounds,
            started: request.started,
            reported: retry::rounds_exceeded(request.rounds, self.config.settings.max_rounds).is_err(),
            watch,
            method,
        });
    }

    /// (`2026-07-28`) The refusals whose `data` a client acts on carry it:
    /// -32021 names the capabilities, -32022 the versions.
    fn check_refusal(&mut self, m: &Value, request: &Value) {
        if !self.config.settings.protocol.rules().refusal_data {
            return;
        }
        let data = &m["error"]["data"];
        let code = m["error"]["code"].as_i64();
        let is = |rule: RuleId| rule.code().is_some_and(|c| code == Some(i64::from(c)));
        match () {
            _ if is(RuleId::RequestCapabilityMissing) && !data["requiredCapabilities"].is_object() => self.report(
                RuleId::RequestCapabilityMissing,
                "a -32021 error names the capabilities it needs in data.requiredCapabilities",
            ),
            _ if is(RuleId::ProtocolVersionUnsupported) => {
                let supported = data["supported"].as_array().is_some_and(|v| v.iter().all(Value::is_string));
                let asked = &request["params"]["_meta"][crate::base::protocol::META_PROTOCOL_VERSION];
                if !supported || data["requested"].as_str().is_none() || &data["requested"] != asked {
                    self.report(
                        RuleId::ProtocolVersionUnsupported,
                        "a -32022 error lists data.supported and repeats the request's version as data.requested",
                    );
                }
            }
            _ => {}
        }
    }

    /// (`2026-07-28`) No caching hints on `input_required`, and none that
    /// let a retry's result be cached.
    /// A task's `ttlMs` is its lifetime, not a caching hint.
    fn check_cache_hints(&mut self, m: &Value, method: &str, retrying: bool, kind: Kind, rt: Option<ResultType>) {
        if !self.config.settings.protocol.rules().caching_hints || rt == Some(ResultType::Task) {
            return;
        }
        let result = &m["result"];
        if kind == Kind::InputRequired {
            if result.get("ttlMs").is_some() || result.get("cacheScope").is_some() {
                self.report(
                    RuleId::InputRequiredCacheHint,
                    "input_required carries a caching hint (ttlMs, cacheScope)",
                );
            }
            return;
        }
        // A retry of an allow-listed method (the task methods carry answers by design).
        let retry = self.config.settings.protocol.allows_input_required(method) && retrying;
        if retry && result.get("ttlMs").is_some_and(|t| t.as_f64() != Some(0.0)) {
            self.report(RuleId::InputRequiredCacheHint, "a retry's result is not cacheable: its ttlMs is 0");
        }
    }

    /// A final answer to a retry ends a multi-round operation.
    fn finish_operation(&mut self, request: &InFlight, target: Option<&str>, method: String) {
        if request.rounds == 0 {
            return;
        }
        if self.operations.len() >= TRACKED_MAX {
            self.operations.pop_front();
        }
        self.operations.push_back(Operation {
            target: target.map(String::from),
            rounds: request.rounds,
            started: request.started,
            finished: self.index,
            spans: spans_then(&request.spans, request.index, self.index),
            method,
        });
    }

    fn check_result_capabilities(&mut self, m: &Value, request: &Value) {
        let Ok(view) = envelope::read(request) else { return };
        let Ok(Some(caps)) = required_meta(view.params.get(), self.config.settings.protocol) else { return };
        let Some(requests) = m["result"].get("inputRequests") else { return };
        let Ok(requests) = read_view::<Requests<'_>>(requests) else { return };
        if let Err(e) = check_capabilities(&requests, caps) {
            self.report_error(e);
        }
    }

    /// Task creation, status changes and input delivery.
    fn server_task_result(&mut self, m: &Value, method: &str, task_id: &str, kind: Kind, rt: Option<ResultType>) {
        let result = &m["result"];
        let extension = self.config.settings.protocol.rules().tasks == TasksFlavor::Extension;
        let created = if extension { (rt == Some(ResultType::Task)).then_some(result) } else { result.get("task") };
        if let Some(task) = created {
            return self.create_task(task);
        }
        if !self.tasks.contains_key(task_id) {
            return;
        }
        match method {
            "tasks/get" | "tasks/cancel" => self.task_status(task_id, result, extension),
            "tasks/result" if !extension => {
                let waiting = self.tasks.get(task_id).is_some_and(|t| t.status() == TaskStatus::InputRequired);
                let delivered = kind == Kind::InputRequired && result.get("inputRequests").is_some();
                if waiting && !delivered {
                    self.report(
                        RuleId::TaskInputRequestsMissing,
                        "tasks/result of an input_required task delivers its inputRequests",
                    );
                }
            }
            _ => {}
        }
    }

    fn create_task(&mut self, task: &Value) {
        let Some(id) = task.get("taskId").and_then(Value::as_str) else { return };
        // A task with an invalid status still exists: later requests for it are not `task-unknown`.
        let status = match task.get("status").and_then(Value::as_str).map(TaskStatus::from_name) {
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                self.report_error(e);
                TaskStatus::Working
            }
            None => TaskStatus::Working,
        };
        if self.tasks.insert(id.to_string(), Task::new(status)).is_none() {
            self.task_order.push_back(id.to_string());
        }
        if self.task_order.len() > TRACKED_MAX {
            self.task_order.pop_front().map(|old| self.tasks.remove(&old));
        }
    }

    fn task_status(&mut self, task_id: &str, result: &Value, extension: bool) {
        let Some(status) = result.get("status").and_then(Value::as_str) else { return };
        let status = match TaskStatus::from_name(status) {
            Ok(s) => s,
            Err(e) => return self.report_error(e),
        };
        let Some(task) = self.tasks.get_mut(task_id) else { return };
        let mut errors = Vec::new();
        if let Err(e) = task.set_status(status) {
            errors.push(e);
        }
        if extension && status == TaskStatus::InputRequired {
            match result.get("inputRequests").and_then(Value::as_object) {
                None => errors.push(Error::new(
                    RuleId::TaskInputRequestsMissing,
                    "an input_required task shows its inputRequests",
                )),
                Some(keys) => {
                    if let Err(e) = task.ask(keys.keys().map(String::as_str)) {
                        errors.push(e);
                    }
                }
            }
        }
        self.report_all(errors);
    }
}

/// Whether an answer fits its question: in full when the question is `sound`,
/// else by the question's kind alone. One fault, one report: a question's own
/// fault does not turn into its answer's, nor silence the answer's own (a
/// URL-mode accept with `content`, whatever the ask got wrong).
fn answer_fits(key: &str, response: &ResponseView<'_>, request: &InputRequestView<'_>, sound: bool) -> Result<()> {
    if sound {
        input::validate_response(key, response, request)
    } else {
        input::validate_response_by_kind(key, response, request)
    }
}

/// How many of `b`'s params `a` repeats, an object param (`arguments`)
/// counted by its members: how alike two calls of one target are.
fn likeness(a: &JsonMap<String, Value>, b: &JsonMap<String, Value>) -> usize {
    b.iter()
        .map(|(k, v)| match (a.get(k), v) {
            (Some(Value::Object(x)), Value::Object(y)) => y.iter().filter(|(k, v)| x.get(*k) == Some(*v)).count(),
            (Some(x), y) => usize::from(x == y),
            (None, _) => 0,
        })
        .sum()
}

/// Which MRTR fields of a request are themselves at fault (reported as
/// such, so not compared with the round again).
#[derive(Clone, Copy, Default)]
struct Faulty {
    state: bool,
    responses: bool,
}

/// The faults of a `requestState` itself.
const STATE_FAULTS: [RuleId; 2] = [RuleId::RequestStateInvalid, RuleId::StateTooLarge];

impl Faulty {
    fn of(faults: &[Error]) -> Faulty {
        let has = |rules: &[RuleId]| faults.iter().any(|e| rules.contains(&e.rule()));
        Faulty { state: has(&STATE_FAULTS), responses: has(&[RuleId::InputResponsesMalformed, RuleId::LimitExceeded]) }
    }
}

/// A map key for a JSON-RPC id (`1` and `"1"` differ).
fn id_key(id: &Value) -> String {
    id.to_string()
}
