//! A client's host running one [`Operation`]: it sends what the operation
//! asks, hands it each part of each response, answers its questions as a
//! user would, and records the conversation as the client saw it.
//!
//! Most hosts are what an HTTP library gives: a JSON body is handed over
//! whole once its `content-length` bytes came (a body cut short is handed
//! over as nothing, so the operation sees a response without its message,
//! `http-status-unexpected`, and sends the round again). Some hand a JSON
//! body over byte by byte as it comes, as a streaming host does (a body cut
//! short then fails the operation with `jsonrpc-parse-error`). An event
//! stream is handed over chunk by chunk as it arrives. It gives up on an exchange
//! [`HTTP_TIMEOUT_MS`] after sending it (no response, or no end).
//!
//! The recording is what the checker judges, in the HTTP-entry form `mrtr
//! check` reads: each request as sent (method, URL, header fields, body),
//! each response's head, each event-stream block as it arrived, a JSON body
//! when it came whole, and each end, in order.

use crate::net::{HttpRequest, Part};
use mrtr::check::{Block, CheckConfig, HttpEntry, Line, Side};
use mrtr::client::operation::{Config, Event, Hedge};
use mrtr::client::Operation;
use mrtr::http::{header, is_event_stream, Mode};
use mrtr::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use mrtr::{sse, Limits, Millis, Protocol, RuleId};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The endpoint, as the balancer serves it.
pub const ENDPOINT: &str = "http://balancer.sim/mcp";
/// The path of the endpoint that serves the tool as a task (the Tasks extension).
pub const TASKS_PATH: &str = "/tasks";
/// The path of the endpoint that serves the legacy `2025-11-25` design.
pub const LEGACY_PATH: &str = "/legacy";
/// How long the host waits for an exchange to end.
pub const HTTP_TIMEOUT_MS: u64 = 3000;

/// One operation to run: its name (the tool's `op` argument) and how many
/// rounds the tool asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpSpec {
    /// `c<client>o<n>`.
    pub name: String,
    /// 0 (the tool completes, with its effect, at the first request) to 3.
    pub rounds: u64,
    /// Whether its host says the first request is harmless twice
    /// (`Config::idempotent`): true of `plan` with a round or more (it asks
    /// before any effect), false of the one-round tool.
    pub idempotent: bool,
    /// The operation's `max_resends` (the default 2 most of the time).
    pub resends: u32,
    /// Whether its host hands a JSON body over whole (most HTTP libraries),
    /// or byte by byte as it comes (a streaming host).
    pub buffered: bool,
    /// How it calls the tool.
    pub way: Way,
    /// Hedged rounds (MRTR, tasks): a request without a response head after
    /// `.0` ms goes again, at most `.1` more copies; in the SEP ways, `.0` is
    /// the stall (`CallConfig::stall_ms`) after which a silent exchange is
    /// given up.
    pub hedge: Option<(u64, u32)>,
}

/// How an operation calls the tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// `2026-07-28` MRTR rounds: `input_required` and sealed `requestState`.
    Mrtr,
    /// `2026-07-28` with the Tasks extension: `tasks/get`, `tasks/update`.
    Tasks,
    /// `2025-11-25` over SEP-1858 (`buffer_input`, `input_required` events, `Last-Event-ID`).
    Sep1858,
    /// `2025-11-25` over SEP-1335 (`rel="stream"`, `retry`, `204`).
    Sep1335,
    /// `2025-11-25` as it was: server requests on the POST's stream, each
    /// answer POSTed on its own (the contrast).
    Legacy,
}

impl Way {
    /// Its name in counts.
    pub fn name(self) -> &'static str {
        match self {
            Way::Mrtr => "mrtr",
            Way::Tasks => "tasks",
            Way::Sep1858 => "sep-1858",
            Way::Sep1335 => "sep-1335",
            Way::Legacy => "legacy",
        }
    }

    /// The transport mode of its calls.
    pub fn mode(self) -> Mode {
        match self {
            Way::Mrtr | Way::Tasks => Mode::Streamable,
            Way::Sep1858 => Mode::Sep1858,
            Way::Sep1335 => Mode::Sep1335,
            Way::Legacy => Mode::Legacy,
        }
    }

    /// The checker's settings for its conversations.
    pub fn check_config(self) -> CheckConfig {
        match self {
            Way::Mrtr | Way::Tasks => CheckConfig::default(),
            Way::Sep1858 | Way::Sep1335 => {
                CheckConfig::default().with_protocol(Protocol::V2025_11_25).with_transport(Some(self.mode()))
            }
            Way::Legacy => CheckConfig::default().with_protocol(Protocol::V2025_11_25),
        }
    }

    /// The endpoint's URL.
    fn url(self) -> String {
        match self {
            Way::Mrtr => ENDPOINT.to_string(),
            Way::Tasks => format!("{ENDPOINT}{TASKS_PATH}"),
            Way::Sep1858 | Way::Sep1335 => format!("{ENDPOINT}/{}", self.mode().name()),
            Way::Legacy => format!("{ENDPOINT}{LEGACY_PATH}"),
        }
    }
}

/// The operation's configuration for `client`: Streamable HTTP to the
/// balancer, the client's principal in `authorization`.
fn config(client: &str, spec: &OpSpec) -> Config {
    let mut config = Config::new(spec.way.mode(), spec.way.url());
    config.call.headers.push(("authorization".into(), format!("Bearer {client}")));
    if spec.way == Way::Legacy {
        // A session of its own (no `initialize` here): what scopes its answers on the instance.
        config.call.headers.push(("mcp-session-id".into(), format!("{client}-{}", spec.name)));
    }
    config.max_resends = spec.resends;
    config.task_poll_ms = 100;
    config.idempotent = spec.idempotent;
    match spec.way {
        Way::Mrtr | Way::Tasks => config.hedge = spec.hedge.map(|(after_ms, max)| Hedge { after_ms, max }),
        Way::Sep1858 | Way::Sep1335 => config.call.stall_ms = spec.hedge.map(|(after_ms, _)| after_ms),
        Way::Legacy => {}
    }
    config
}

/// How an operation ended, as its host saw it.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// `Event::Done` with a result.
    Complete(Value),
    /// `Event::Done` with a JSON-RPC error (its `error` object).
    Error(Value),
    /// `Event::Failed`.
    Failed(RuleId, String),
}

/// What the host asks the world to do after an input.
#[derive(Debug, Default)]
pub struct Actions {
    /// HTTP requests to send, each with the operation's exchange number.
    pub sends: Vec<(u64, HttpRequest)>,
    /// Questions to answer, each after the user's think time.
    pub answers: Vec<String>,
    /// When to call the operation's `handle_timeout`.
    pub timer: Option<u64>,
    /// Exchanges whose answer no longer matters (a hedged round's losing
    /// copies): the host closes their connections.
    pub cut: Vec<u64>,
    /// The operation's events, summarized, for the trace.
    pub seen: Vec<String>,
}

/// An exchange the host has open.
#[derive(Debug, Default)]
struct Open {
    /// Its name in the recording.
    name: String,
    /// Whether its head came.
    head: bool,
    /// A JSON body, held until it is whole.
    json: Option<(Vec<u8>, usize)>,
    /// An event stream, decoded for the recording.
    stream: Option<sse::Decoder>,
}

/// One operation and everything its host knows of it.
#[derive(Debug)]
pub struct OpRun {
    /// What it runs.
    pub spec: OpSpec,
    op: Operation,
    open: BTreeMap<u64, Open>,
    /// The conversation as the client saw it: HTTP entries, as `mrtr check` reads them.
    pub http: Vec<Line>,
    /// Exchanges recorded so far (their names stay unique across restarts).
    recorded: u64,
    /// Every final event (`Done`, `Failed`) seen: exactly one, in the end.
    pub outcomes: Vec<Outcome>,
    /// Events seen after the final one.
    pub after_final: usize,
    /// Misuse the operation reported, or answers it refused: a harness or core bug.
    pub problems: Vec<String>,
    /// The largest the operation's state was (bytes of its debug form).
    pub max_held: usize,
    /// Questions asked and not answered yet, by key.
    questions: BTreeMap<String, Value>,
    /// The client it runs for (the principal).
    client: String,
    /// Times its host restarted it from a snapshot.
    pub restarts: u32,
}

impl OpRun {
    /// Starts `spec` for `client` at `now`.
    pub fn start(spec: OpSpec, client: &str, now: u64, actions: &mut Actions) -> Result<OpRun, mrtr::Error> {
        let config = config(client, &spec);
        let mut capabilities = json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}});
        if spec.way == Way::Tasks {
            capabilities["extensions"] = json!({crate::tasks::TASKS: {}});
        }
        let mut request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "plan", "arguments": {"op": spec.name, "rounds": spec.rounds},
            "_meta": {META_PROTOCOL_VERSION: crate::instance::VERSION, META_CLIENT_CAPABILITIES: capabilities}}});
        if matches!(spec.way, Way::Sep1858 | Way::Sep1335 | Way::Legacy) {
            // `2025-11-25`: the capabilities were given at `initialize`, no `_meta`.
            request["params"].as_object_mut().map(|p| p.remove("_meta"));
        }
        let op = Operation::new(config, request, Millis(now))?;
        let mut run = OpRun {
            spec,
            op,
            open: BTreeMap::new(),
            http: Vec::new(),
            recorded: 0,
            outcomes: Vec::new(),
            after_final: 0,
            problems: Vec::new(),
            max_held: 0,
            questions: BTreeMap::new(),
            client: client.to_string(),
            restarts: 0,
        };
        run.drain(now, actions);
        Ok(run)
    }

    /// Whether the final event came and nothing is open.
    pub fn is_over(&self) -> bool {
        !self.outcomes.is_empty() && self.op.is_drained()
    }

    /// Whether the operation holds nothing open (for the end-of-run check).
    pub fn is_drained(&self) -> bool {
        self.op.is_drained()
    }

    /// A part of the response to `exchange`.
    pub fn on_part(&mut self, exchange: u64, part: Part, now: u64, actions: &mut Actions) {
        let Some(open) = self.open.get_mut(&exchange) else { return };
        let result = match part {
            Part::Head(status, headers) => {
                open.head = true;
                let entry = server_entry(&open.name, now, Some(status), headers.clone());
                self.http.push(entry);
                if is_event_stream(&headers) && (200..300).contains(&status) {
                    open.stream = Some(sse::Decoder::with_limits(&Limits::DEFAULT));
                } else {
                    let length = header(&headers, "content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
                    open.json = Some((Vec::new(), length));
                }
                self.op.handle_head(exchange, status, &headers, Millis(now))
            }
            Part::Body(bytes) => self.body(exchange, bytes, now),
            Part::End => return self.end(exchange, now, actions),
        };
        self.note(result, "handle_head/handle_body");
        self.drain(now, actions);
    }

    fn body(&mut self, exchange: u64, bytes: Vec<u8>, now: u64) -> mrtr::Result<()> {
        let Some(open) = self.open.get_mut(&exchange) else { return Ok(()) };
        if let Some((held, _)) = open.json.as_mut() {
            held.extend_from_slice(&bytes);
            if !self.spec.buffered {
                return self.op.handle_body(exchange, &bytes, Millis(now));
            }
            return Ok(());
        }
        let mut received = Vec::new();
        if let Some(decoder) = open.stream.as_mut() {
            decoder.feed(&bytes);
            while let Some(Ok(event)) = decoder.poll_event() {
                let data = event.data.and_then(|d| serde_json::from_str::<Value>(&d).ok());
                received.push(Block { event: event.event, data, id: event.id, retry: event.retry, unparsed: None });
            }
        }
        for block in received {
            let mut entry = server_entry(&open.name, now, None, Vec::new());
            if let Line::Http(h) = &mut entry {
                h.events.push(block);
            }
            self.http.push(entry);
        }
        self.op.handle_body(exchange, &bytes, Millis(now))
    }

    /// The exchange ended: closed by its server, cut, or given up by the host.
    pub fn end(&mut self, exchange: u64, now: u64, actions: &mut Actions) {
        let Some(open) = self.open.remove(&exchange) else { return };
        let mut last = server_entry(&open.name, now, None, Vec::new());
        if let Some((body, length)) = open.json {
            let whole = body.len() == length && !body.is_empty();
            if let (true, Line::Http(h)) = (whole, &mut last) {
                h.body = serde_json::from_slice::<Value>(&body).ok();
            }
            if whole && self.spec.buffered {
                let fed = self.op.handle_body(exchange, &body, Millis(now));
                self.note(fed, "handle_body");
            }
        }
        if open.head {
            if let Line::Http(h) = &mut last {
                h.end = true;
            }
            self.http.push(last);
        }
        let ended = self.op.handle_end(exchange, Millis(now));
        self.note(ended, "handle_end");
        self.drain(now, actions);
    }

    /// Whether the operation can be carried across a restart of its host (an
    /// operation that is over cannot, nor a stream mode's call that answered
    /// on its stream: its answers lived on that stream).
    pub fn can_restart(&self, now: u64) -> bool {
        self.outcomes.is_empty() && self.op.snapshot(Millis(now)).is_ok()
    }

    /// The host dies and comes back at once: the operation is carried across
    /// in its snapshot (as JSON text, as to another process), every exchange
    /// it had open dies with the host, and questions not answered yet are
    /// asked again by the restored operation. Whether it restarted (an
    /// operation that is over has nothing to carry).
    pub fn restart(&mut self, now: u64, actions: &mut Actions) -> bool {
        let Ok(snapshot) = self.op.snapshot(Millis(now)) else { return false };
        let carried: Value = match serde_json::from_str(&snapshot.to_string()) {
            Ok(v) => v,
            Err(e) => {
                self.problems.push(format!("the snapshot does not read back: {e}"));
                return false;
            }
        };
        match Operation::restore(config(&self.client, &self.spec), &carried, Millis(now)) {
            Ok(op) => self.op = op,
            Err(e) => {
                self.problems.push(format!("the snapshot did not restore: {e}"));
                return false;
            }
        }
        self.restarts += 1;
        self.open.clear();
        self.questions.clear();
        self.drain(now, actions);
        true
    }

    /// The time the operation named came.
    pub fn on_timer(&mut self, now: u64, actions: &mut Actions) {
        if self.op.poll_timeout().is_some_and(|at| at <= Millis(now)) {
            self.op.handle_timeout(Millis(now));
        }
        self.drain(now, actions);
    }

    /// The user answers the question `key`, if it is still asked.
    pub fn on_answer(&mut self, key: &str, now: u64, actions: &mut Actions) {
        let Some(question) = self.questions.remove(key) else { return };
        if !self.outcomes.is_empty() {
            return;
        }
        if let Err(e) = self.op.answer(key, answer(&question), Millis(now)) {
            self.problems.push(format!("the answer to {key} was refused: {e}"));
        }
        self.drain(now, actions);
    }

    /// The operation's outputs, in the documented order.
    fn drain(&mut self, now: u64, actions: &mut Actions) {
        loop {
            while let Some(request) = self.op.poll_transmit() {
                let exchange = request.exchange;
                self.recorded += 1;
                let name = format!("x{}", self.recorded);
                self.http.push(Line::Http(HttpEntry {
                    from: Side::Client,
                    at: Some(now),
                    exchange: name.clone(),
                    method: Some(request.method.to_string()),
                    url: Some(request.url.clone()),
                    headers: request.headers.clone(),
                    status: None,
                    events: Vec::new(),
                    body: request.body.as_deref().and_then(|b| serde_json::from_str(b).ok()),
                    unparsed: None,
                    end: false,
                }));
                self.open.insert(exchange, Open { name, ..Open::default() });
                actions.sends.push((exchange, request.into()));
            }
            let Some(event) = self.op.poll_event() else { break };
            self.event(event, actions);
        }
        actions.timer = self.op.poll_timeout().map(|t| t.0);
        actions.cut = self.op.abandoned().into_iter().filter(|x| self.open.contains_key(x)).collect();
    }

    fn event(&mut self, event: Event, actions: &mut Actions) {
        actions.seen.push(match &event {
            Event::InputRequired { round, requests } => {
                format!("input required (round {round}): {:?}", requests.keys().collect::<Vec<_>>())
            }
            other => format!("{other:?}").chars().take(160).collect(),
        });
        if !self.outcomes.is_empty() {
            self.after_final += 1;
        }
        match event {
            Event::InputRequired { requests, .. } => {
                // Measured where the operation holds the most: a round asked, its request kept.
                self.max_held = self.max_held.max(format!("{:?}", self.op).len());
                for (key, question) in requests {
                    actions.answers.push(key.clone());
                    self.questions.insert(key, question);
                }
            }
            Event::Done(response) => match response.get("error") {
                Some(error) => self.outcomes.push(Outcome::Error(error.clone())),
                None => self.outcomes.push(Outcome::Complete(response["result"].clone())),
            },
            Event::Failed(e) => self.outcomes.push(Outcome::Failed(e.rule(), e.message().to_string())),
            Event::Violation(e) => self.problems.push(format!("the operation reported a violation: {e}")),
            Event::Message(m) => self.problems.push(format!("a message that is no one's: {m}")),
        }
    }

    fn note(&mut self, result: mrtr::Result<()>, what: &str) {
        if let Err(e) = result {
            self.problems.push(format!("{what} refused: {e}"));
        }
    }
}

/// A server entry of the exchange `name` (its head when `status` is given).
fn server_entry(name: &str, now: u64, status: Option<u16>, headers: mrtr::http::Headers) -> Line {
    Line::Http(HttpEntry {
        from: Side::Server,
        at: Some(now),
        exchange: name.to_string(),
        method: None,
        url: None,
        headers,
        status,
        events: Vec::new(),
        body: None,
        unparsed: None,
        end: false,
    })
}

/// The user's answer to `question`: the cluster driver's (`name` Ada, `ok`
/// true, sampling "sunny", one root).
pub fn answer(question: &Value) -> Value {
    match question["method"].as_str().unwrap_or_default() {
        "elicitation/create" => {
            let fields = question["params"]["requestedSchema"]["properties"].as_object();
            let content: serde_json::Map<String, Value> = fields
                .into_iter()
                .flatten()
                .map(|(k, _)| (k.clone(), if k == "ok" { json!(true) } else { json!("Ada") }))
                .collect();
            json!({"action": "accept", "content": content})
        }
        "sampling/createMessage" => {
            json!({"role": "assistant", "content": {"type": "text", "text": "sunny"}, "model": "m"})
        }
        "roots/list" => json!({"roots": [{"uri": "file:///trips"}]}),
        _ => json!({}),
    }
}
