//! The conversation checker over HTTP entries: recorded exchanges, as in the
//! corpus format "check with HTTP entries" and `mrtr check`.
//!
//! [`Audit`] wraps the message [`Checker`]: every JSON-RPC message in a body
//! or an event goes through every message rule, on the stream its exchange
//! belongs to, at the index of its entry; the `sse-*` rules of the configured
//! transport ([`CheckConfig::transport`]) and `message-after-input-required`
//! are checked on the exchanges themselves.
//!
//! Exchanges of one call form a *flow*: the POST that carried the request,
//! and every exchange that continues its stream (a request to a `rel="stream"`
//! URL it gave, or one whose `Last-Event-ID` names an event it sent). A flow's
//! server messages are on stream `post:<id>` of its request.

use super::Part;
use crate::machines::http::{header, link, Answering, Headers, Mode};
use crate::{
    base::error::Error,
    base::rules::RuleId,
    conversation::check::{CheckConfig, Checker, Entry, Side, Violation, TRACKED_MAX},
    one_message::envelope::Id,
};
use alloc::{
    collections::{BTreeMap, BTreeSet, VecDeque},
    format,
    string::{String, ToString},
    vec::Vec,
};
use serde_json::Value;

/// Bytes where a JSON-RPC message was due that are no JSON value (not
/// UTF-8, malformed, past a bound): kept as they came, with why they are
/// not one. The checker reports `error` at the entry that carries them, as
/// the proxy did live; a recording writes `bytes` as the entry's `text`
/// (base64 with `"encoding": "base64"` when they are not UTF-8), which
/// reads back as the same.
#[derive(Clone, Debug, PartialEq)]
pub struct Unparsed {
    /// The bytes, as they came.
    pub bytes: Vec<u8>,
    /// Why they are not a message (`jsonrpc-parse-error`, `limit-exceeded`, …).
    pub error: Error,
}

impl Unparsed {
    /// `bytes` read under `limits`: `Ok(None)` when blank (no message),
    /// `Ok(Some(value))` when they are JSON, else the bytes with the error.
    pub fn parse(bytes: &[u8], limits: &crate::base::limits::Limits) -> Result<Option<Value>, Unparsed> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        crate::one_message::envelope::parse(bytes, limits)
            .map(Some)
            .map_err(|error| Unparsed { bytes: bytes.to_vec(), error })
    }
}

/// One block of a recorded event stream; `data` holds the JSON value it carried.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    /// The `event` field.
    pub event: Option<String>,
    /// The JSON value of the `data` field.
    pub data: Option<Value>,
    /// The `data` field when it is no JSON value (then `data` is `None`).
    pub unparsed: Option<Unparsed>,
    /// The `id` field.
    pub id: Option<String>,
    /// The `retry` field.
    pub retry: Option<u64>,
}

/// One recorded HTTP entry: a client's request, or (part of) a server's response.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpEntry {
    /// Who sent it.
    pub from: Side,
    /// When, in milliseconds, if recorded.
    pub at: Option<u64>,
    /// The exchange it belongs to.
    pub exchange: String,
    /// Client: the method.
    pub method: Option<String>,
    /// Client: the absolute URL.
    pub url: Option<String>,
    /// The header fields, lower-case names (server: on the first entry).
    pub headers: Headers,
    /// Server: the status, on the first entry of the response.
    pub status: Option<u16>,
    /// Server: event-stream blocks.
    pub events: Vec<Block>,
    /// The JSON body, if any.
    pub body: Option<Value>,
    /// The body when its bytes are no JSON value (then `body` is `None`).
    pub unparsed: Option<Unparsed>,
    /// Server: the response ends here.
    pub end: bool,
}

/// One line of a transcript: a message entry or an HTTP entry.
#[derive(Clone, Debug, PartialEq)]
pub enum Line {
    /// `{"from", "message", "stream"}`.
    Message(Entry),
    /// `{"from", "at", "http": {…}}`.
    Http(HttpEntry),
}

impl Line {
    /// The protocol version this entry declares, if any: an HTTP entry's
    /// `MCP-Protocol-Version` header, a request's `_meta` version
    /// (`2026-07-28`), or the `protocolVersion` an `initialize` asks for or
    /// agrees on. `mrtr check` warns when it names another protocol than the
    /// one checked: a recording checked under the wrong protocol shows
    /// violations that are not there.
    pub fn declared_version(&self) -> Option<&str> {
        match self {
            Line::Http(h) => h
                .headers
                .iter()
                .find(|(name, _)| name == "mcp-protocol-version")
                .map(|(_, value)| value.as_str())
                .or_else(|| h.body.as_ref().and_then(message_version)),
            Line::Message(e) => message_version(&e.message),
        }
    }

    /// Reads one transcript entry of either form; a body or an event's
    /// data given as its `text` is read under the default [`Limits`](crate::Limits).
    pub fn from_value(value: &Value) -> Result<Line, Error> {
        Line::from_value_with(value, &crate::base::limits::Limits::DEFAULT)
    }

    /// [`Line::from_value`], a body or an event's data given as its raw
    /// `text` (what a recording writes for bytes that are no JSON value)
    /// read under `limits`: JSON text is the body (or the data), other
    /// bytes are [`Unparsed`], with why.
    pub fn from_value_with(value: &Value, limits: &crate::base::limits::Limits) -> Result<Line, Error> {
        match value.get("http") {
            None => Entry::from_value(value).map(Line::Message),
            Some(http) => http_entry(value, http, limits).map(Line::Http),
        }
    }
}

/// When an entry was recorded: an HTTP entry's `at`.
fn line_at(line: &Line) -> Option<u64> {
    match line {
        Line::Http(h) => h.at,
        Line::Message(_) => None,
    }
}

/// The version a message declares: its `_meta` version, or `initialize`'s.
fn message_version(message: &Value) -> Option<&str> {
    let params = message.get("params");
    let meta = params.and_then(|p| p.get("_meta")).and_then(|m| m.get(crate::base::protocol::META_PROTOCOL_VERSION));
    let initialize = params.filter(|_| message.get("method").and_then(Value::as_str) == Some("initialize"));
    let agreed = message.get("result").filter(|r| r.get("serverInfo").is_some());
    meta.or_else(|| initialize.or(agreed)?.get("protocolVersion")).and_then(Value::as_str)
}

/// The raw text of a body or of an event's data, `field` of `object`, if
/// given: its bytes, decoded when `encoding` is `base64`.
fn raw_text(object: &Value, field: &str) -> Result<Option<Vec<u8>>, Error> {
    let invalid = |what: &'static str| Error::new(RuleId::UsageInvalidArgument, what);
    let Some(text) = object.get(field) else { return Ok(None) };
    let text = text.as_str().ok_or(invalid("a body's \"text\" is a string"))?;
    match object.get("encoding") {
        None | Some(Value::Null) => Ok(Some(text.as_bytes().to_vec())),
        Some(Value::String(e)) if e.eq_ignore_ascii_case("base64") => {
            use base64::{engine::general_purpose::STANDARD, Engine};
            STANDARD.decode(text).map(Some).map_err(|_| invalid("a \"text\" with \"encoding\": \"base64\" is base64"))
        }
        Some(_) => Err(invalid("a body's \"encoding\" is \"base64\" or absent")),
    }
}

/// A JSON value `json` or raw bytes `raw` (not both): the value, or the bytes read under `limits`.
fn value_or_raw(
    json: Option<&Value>,
    raw: Option<Vec<u8>>,
    limits: &crate::base::limits::Limits,
) -> Result<(Option<Value>, Option<Unparsed>), Error> {
    match (json, raw) {
        (Some(_), Some(_)) => Err(Error::new(
            RuleId::UsageInvalidArgument,
            "a body (or data) is its JSON value or its \"text\", not both",
        )),
        (json, None) => Ok((json.cloned(), None)),
        (None, Some(bytes)) => match Unparsed::parse(&bytes, limits) {
            Ok(value) => Ok((value, None)),
            Err(unparsed) => Ok((None, Some(unparsed))),
        },
    }
}

fn http_entry(value: &Value, http: &Value, limits: &crate::base::limits::Limits) -> Result<HttpEntry, Error> {
    let invalid = |what: &'static str| Error::new(RuleId::UsageInvalidArgument, what);
    let from = match value.get("from").and_then(Value::as_str) {
        Some("client") => Side::Client,
        Some("server") => Side::Server,
        _ => return Err(invalid("an entry's \"from\" is \"client\" or \"server\"")),
    };
    let at = match value.get("at") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or(invalid("an entry's \"at\" is a non-negative integer (ms)"))?),
    };
    let text = |name: &str| http.get(name).and_then(Value::as_str).map(String::from);
    let exchange = match http.get("exchange") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err(invalid("an HTTP entry names its \"exchange\"")),
    };
    let headers = match http.get("headers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(h)) => h
            .iter()
            .map(|(n, v)| Ok((n.to_ascii_lowercase(), v.as_str().ok_or(invalid("header values are strings"))?.into())))
            .collect::<Result<_, Error>>()?,
        Some(_) => return Err(invalid("an HTTP entry's \"headers\" is an object")),
    };
    let status = match http.get("status") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().and_then(|s| u16::try_from(s).ok()).ok_or(invalid("a status is an integer"))?),
    };
    let events = match http.get("events") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(blocks)) => blocks.iter().map(|b| block(b, limits)).collect::<Result<_, Error>>()?,
        Some(_) => return Err(invalid("an HTTP entry's \"events\" is an array")),
    };
    if from == Side::Client && (text("method").is_none() || text("url").is_none()) {
        return Err(invalid("a client HTTP entry has a \"method\" and a \"url\""));
    }
    let (body, unparsed) = value_or_raw(http.get("body"), raw_text(http, "text")?, limits)?;
    Ok(HttpEntry {
        from,
        at,
        exchange,
        method: text("method"),
        url: text("url"),
        headers,
        status,
        events,
        body,
        unparsed,
        end: http.get("end").and_then(Value::as_bool).unwrap_or(false),
    })
}

fn block(v: &Value, limits: &crate::base::limits::Limits) -> Result<Block, Error> {
    let invalid = || Error::new(RuleId::UsageInvalidArgument, "an event block is {event, data, id, retry}");
    let text = |name: &str| match v.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid()),
    };
    let (data, unparsed) = value_or_raw(v.get("data"), raw_text(v, "text")?, limits)?;
    Ok(Block {
        event: text("event")?,
        id: text("id")?,
        data,
        unparsed,
        retry: match v.get("retry") {
            None => None,
            Some(r) => Some(r.as_u64().ok_or_else(invalid)?),
        },
    })
}

/// One entry with what the checker reads of it before it looks at the
/// conversation ([`prepare`]), for [`Audit::handle_prepared`].
pub struct Prepared {
    line: Line,
    /// Each JSON-RPC message's part, in the order the audit reads them (the
    /// body's, then each block's data's).
    parts: VecDeque<Part>,
    /// A client request's header fields against its body
    /// (`crate::server::check_headers`), when it is one request.
    headers: Option<Result<(), Error>>,
}

impl Prepared {
    /// The entry.
    pub fn line(&self) -> &Line {
        &self.line
    }

    /// The entry, given back.
    pub fn into_line(self) -> Line {
        self.line
    }

    /// Sets an HTTP entry's `at` (a host that stamps entries in the order
    /// it checks them), which nothing prepared depends on.
    pub fn set_at(&mut self, at: u64) {
        if let Line::Http(h) = &mut self.line {
            h.at = Some(at);
        }
    }
}

/// Works out, for `line`, everything the checker reads that depends on the
/// entry alone: each message's kind and the faults of its content (its
/// dialect converted first), a request's compact text and the params a
/// retry is compared by, a request's header fields against its body. A host
/// checking entries from several threads in one order (the proxy) prepares
/// each before it takes its lock, and has [`Audit::handle_prepared`] do the
/// rest under it: the same violations, in the same order, as
/// [`Audit::handle`].
pub fn prepare(line: Line, config: &CheckConfig) -> Prepared {
    let (parts, headers) = parts_of(&line, config);
    Prepared { line, parts, headers }
}

/// What [`prepare`] works out of `line`: each message's part, in the order
/// the audit reads them, and a client request's header check.
fn parts_of(line: &Line, config: &CheckConfig) -> (VecDeque<Part>, Option<Result<(), Error>>) {
    let mut parts = VecDeque::new();
    let mut headers = None;
    match line {
        Line::Message(entry) => parts.push_back(Part::of(entry.from, &entry.message, config)),
        Line::Http(h) => {
            let body = messages(h.body.as_ref());
            let data = h.events.iter().flat_map(|b| messages(b.data.as_ref()));
            parts.extend(body.iter().chain(data).map(|m| Part::of(h.from, m, config)));
            if let (Side::Client, [request]) = (h.from, body) {
                if request.get("method").is_some() && request.get("id").is_some() {
                    headers =
                        Some(crate::machines::server::check_headers(request, &h.headers, config.settings.protocol));
                }
            }
        }
    }
    (parts, headers)
}

/// The exchanges of one call.
#[derive(Debug, Default)]
struct Flow {
    /// The stream its server messages are on.
    stream: Option<String>,
    /// SEP-1335: its `rel="stream"` URLs (as resolved), with whether each is
    /// of another origin than the request that received it.
    links: Vec<(String, bool)>,
    /// Server requests answers are owed to, buffered (1858 after
    /// `buffer_input`; 1335 all), by id.
    buffered: BTreeSet<String>,
    /// 1858: the exchange that sent `input_required`, or the stream ended:
    /// the buffered answers may go.
    released: bool,
    /// 1858: event ids sent on an exchange that then sent `input_required`.
    closed_ids: BTreeSet<String>,
    /// 1335: a reconnect was answered `204`.
    waiting: bool,
    /// 1335: the last `retry` sent, and when the last response ended.
    retry: Option<u64>,
    ended_at: Option<u64>,
}

/// One exchange, from its client entry on.
#[derive(Debug)]
struct Exchange {
    flow: usize,
    method: String,
    url: String,
    /// Event ids it sent.
    ids: Vec<String>,
    input_required: bool,
    buffer_input: bool,
    /// The ids of the requests its client entry carried that no server
    /// message of it has answered yet.
    unanswered: Vec<Value>,
    /// Whether its response was an event stream (which a later GET may resume).
    streamed: bool,
}

/// The incremental checker of transcripts with HTTP entries.
pub struct Audit {
    checker: Checker,
    transport: Option<Mode>,
    flows: VecDeque<Flow>,
    /// Flows dropped from the front of `flows` (so indices stay stable).
    dropped: usize,
    /// How many of `flows` have `rel="stream"` URLs: none (plain Streamable
    /// HTTP, most SEP-1858), and a request is matched to no link without
    /// looking.
    linked: usize,
    exchanges: Recent<Exchange>,
    /// Event id → flow.
    event_flows: Recent<usize>,
}

impl Audit {
    /// An audit with `config`.
    pub fn new(config: CheckConfig) -> Audit {
        Audit {
            checker: Checker::new(config),
            transport: config.transport,
            flows: VecDeque::new(),
            dropped: 0,
            linked: 0,
            exchanges: Recent::default(),
            event_flows: Recent::default(),
        }
    }

    /// Checks the next line.
    pub fn handle(&mut self, line: &Line) {
        let (mut parts, headers) = parts_of(line, &self.checker.config);
        self.handle_with(line, &mut parts, headers);
    }

    /// Checks the next line, prepared ([`prepare`]) under this audit's
    /// configuration; what was prepared is used up, the line left.
    pub fn handle_prepared(&mut self, prepared: &mut Prepared) {
        let (mut parts, headers) = (core::mem::take(&mut prepared.parts), prepared.headers.take());
        self.handle_with(&prepared.line, &mut parts, headers);
    }

    /// Checks `line` with its messages' `parts` ([`parts_of`]), each used
    /// up by the message it was worked out for.
    fn handle_with(&mut self, line: &Line, parts: &mut VecDeque<Part>, headers: Option<Result<(), Error>>) {
        if let Some(at) = line_at(line) {
            self.checker.set_now(crate::base::time::Millis(at));
        }
        if let Line::Http(h) = line {
            // Bytes that are no message first, as the proxy reports them live.
            for unparsed in h.unparsed.iter().chain(h.events.iter().filter_map(|b| b.unparsed.as_ref())) {
                self.checker.report_error(unparsed.error.clone());
            }
        }
        match line {
            Line::Message(entry) => {
                let stream = entry.stream.as_deref();
                self.checker.handle_prepared_message(entry.from, &entry.message, stream, parts.pop_front());
            }
            Line::Http(h) if h.from == Side::Client => self.client(h, parts, headers),
            Line::Http(h) => self.server(h, parts),
        }
        debug_assert!(parts.is_empty(), "a part left over: the messages were read in another order");
        self.checker.advance();
    }

    /// The message checker underneath (violations, operations, tracked flows).
    pub fn checker(&mut self) -> &mut Checker {
        &mut self.checker
    }

    /// The violations so far, without draining them.
    pub fn violations(&self) -> &[Violation] {
        self.checker.violations()
    }

    /// The violations found.
    pub fn into_violations(self) -> Vec<Violation> {
        self.checker.into_violations()
    }

    /// The conversation ended: the interop warnings of the rounds it left
    /// open ([`Checker::finish`]).
    pub fn finish(&mut self) {
        self.checker.finish();
    }

    fn flow(&mut self, i: usize) -> Option<&mut Flow> {
        i.checked_sub(self.dropped).and_then(|i| self.flows.get_mut(i))
    }

    fn new_flow(&mut self, stream: Option<String>) -> usize {
        if self.flows.len() >= TRACKED_MAX {
            if self.flows.pop_front().is_some_and(|f| !f.links.is_empty()) {
                self.linked -= 1;
            }
            self.dropped += 1;
        }
        self.flows.push_back(Flow { stream, ..Flow::default() });
        self.dropped + self.flows.len() - 1
    }

    /// How the transport under check has answers travel (none: plain Streamable HTTP).
    fn answering(&self) -> Option<Answering> {
        self.transport.map(|m| m.rules().answering)
    }

    /// Whether the transport under check gives `rel="stream"` URLs (SEP-1335).
    fn stream_url(&self) -> bool {
        self.transport.is_some_and(|m| m.rules().stream_url)
    }

    fn report(&mut self, rule: RuleId, message: String) {
        self.checker.report_rule(rule, message);
    }

    fn client(&mut self, h: &HttpEntry, parts: &mut VecDeque<Part>, headers: Option<Result<(), Error>>) {
        let method = h.method.clone().unwrap_or_default();
        let url = h.url.clone().unwrap_or_default();
        let last_event_id = header(&h.headers, "last-event-id");
        let messages = messages(h.body.as_ref());
        // The flow this request continues: by its URL, else by Last-Event-ID.
        let by_link = match self.linked {
            0 => None,
            _ => self.flows.iter().position(|f| f.links.iter().any(|(u, _)| same_url(u, &url))),
        };
        let by_link = by_link.map(|i| i + self.dropped);
        let by_id = last_event_id.and_then(|id| self.event_flows.get(id).copied());
        let flow = match by_link.or(by_id) {
            Some(f) => f,
            None => {
                let request = messages.iter().find(|m| m.get("method").is_some() && m.get("id").is_some());
                let stream = match request {
                    Some(r) => Some(format!("post:{}", Id::text(&r["id"]))),
                    None if method.eq_ignore_ascii_case("GET") => Some("get".into()),
                    None => None,
                };
                self.new_flow(stream)
            }
        };
        if let Some(i) = by_link {
            self.followed_link(i, &url, &method, h.at);
        }
        let answers_post = method.eq_ignore_ascii_case("POST") && matches!(h.body, Some(Value::Array(_)));
        if let (Some(Answering::UntilInputRequired), true, Some(id)) = (self.answering(), answers_post, last_event_id) {
            // The answers carry the stream on from its input_required event: a GET that resumes
            // from that event now resumes the stream they continued (when their response is cut).
            if let Some(f) = self.flow(flow) {
                f.closed_ids.remove(id);
            }
        }
        if self.answering() == Some(Answering::UntilInputRequired) && method.eq_ignore_ascii_case("GET") {
            if let Some(id) = last_event_id.filter(|id| self.flow(flow).is_some_and(|f| f.closed_ids.contains(*id))) {
                self.report(
                    RuleId::SseReconnectedAfterInputRequired,
                    format!("a GET resumes from {id:?}, on a stream that ended with input_required"),
                );
            }
        }
        self.answers(flow, h, &url, messages, by_link.is_some());
        if let [request] = messages {
            if request.get("method").is_some() && request.get("id").is_some() {
                let checked = headers.unwrap_or_else(|| {
                    crate::machines::server::check_headers(request, &h.headers, self.checker.protocol())
                });
                if let Err(e) = checked {
                    self.report(e.rule(), String::from(e.message()));
                }
            }
        }
        for message in messages {
            self.checker.handle_prepared_message(Side::Client, message, None, parts.pop_front());
        }
        let unanswered =
            messages.iter().filter(|m| m.get("method").is_some()).filter_map(|m| m.get("id").cloned()).collect();
        let exchange = Exchange {
            flow,
            method,
            url,
            ids: Vec::new(),
            input_required: false,
            buffer_input: false,
            unanswered,
            streamed: false,
        };
        self.exchanges.insert(&h.exchange, exchange);
    }

    /// SEP-1335: a request to a flow's `rel="stream"` URL: of its origin, and
    /// (a reconnect) no sooner than the last `retry`.
    fn followed_link(&mut self, flow: usize, url: &str, method: &str, at: Option<u64>) {
        if !self.stream_url() {
            return;
        }
        let Some(f) = self.flow(flow) else { return };
        let cross = f.links.iter().any(|(u, cross)| *cross && same_url(u, url));
        let early = match (method.eq_ignore_ascii_case("GET"), at, f.ended_at, f.retry) {
            (true, Some(at), Some(ended), Some(retry)) => at < ended.saturating_add(retry),
            _ => false,
        };
        if cross {
            self.report(RuleId::SseStreamUrlCrossOrigin, format!("{url} is not of the origin that gave it"));
        }
        if early {
            self.report(RuleId::SseRetryIgnored, "a reconnect sooner than the last retry".to_string());
        }
    }

    /// A client POST carrying answers to buffered server requests.
    fn answers(&mut self, flow: usize, h: &HttpEntry, url: &str, messages: &[Value], to_link: bool) {
        let is_array = matches!(h.body, Some(Value::Array(_)));
        let has_id = header(&h.headers, "last-event-id").is_some();
        let owed: Vec<String> =
            messages.iter().filter(|m| m.get("method").is_none()).filter_map(|m| m.get("id").map(Id::text)).collect();
        // The flow the answers are owed on: this one, or the one whose requests they answer.
        let Some(fi) = self.owing_flow(flow, &owed) else { return };
        let (released, waiting, links) = match self.flow(fi) {
            Some(f) => (f.released, f.waiting, f.links.iter().map(|(u, _)| u.clone()).collect::<Vec<_>>()),
            None => return,
        };
        if self.answering() == Some(Answering::UntilInputRequired) {
            if !is_array || !released {
                self.report(
                    RuleId::SseResponseNotBuffered,
                    "after buffer_input, answers wait for input_required and go as one JSON array".into(),
                );
            } else if !has_id {
                self.report(RuleId::SseLastEventIdMissing, "the POST of buffered answers carries Last-Event-ID".into());
            }
        }
        if self.answering() == Some(Answering::UntilStreamEnds)
            && waiting
            && (!is_array || !(to_link || links.iter().any(|u| same_url(u, url))))
        {
            self.report(
                RuleId::SseBufferedPostTarget,
                "after 204, the buffered answers go as a JSON array to the rel=\"stream\" URL".into(),
            );
        }
        if let Some(f) = self.flow(fi) {
            owed.iter().for_each(|id| {
                f.buffered.remove(id);
            });
            if f.buffered.is_empty() {
                f.released = false;
                f.waiting = false;
            }
        }
    }

    fn owing_flow(&self, flow: usize, owed: &[String]) -> Option<usize> {
        if owed.is_empty() {
            return None;
        }
        let owes = |f: &Flow| owed.iter().any(|id| f.buffered.contains(id));
        if self.flows.get(flow.checked_sub(self.dropped)?).is_some_and(owes) {
            return Some(flow);
        }
        self.flows.iter().rposition(owes).map(|i| i + self.dropped)
    }

    fn server(&mut self, h: &HttpEntry, parts: &mut VecDeque<Part>) {
        // Found once: nothing below adds an exchange, so its slot stays.
        let Some((slot, x)) = self.exchanges.slot(&h.exchange).and_then(|i| Some((i, self.exchanges.at(i)?))) else {
            // A response to no recorded request: its messages carry no stream.
            for message in
                messages(h.body.as_ref()).iter().chain(h.events.iter().flat_map(|b| messages(b.data.as_ref())))
            {
                self.checker.handle_prepared_message(Side::Server, message, None, parts.pop_front());
            }
            return;
        };
        let (flow, url, method) = (x.flow, x.url.clone(), x.method.clone());
        if let Some(status) = h.status {
            self.head(flow, &url, &method, status, &h.headers);
        }
        let stream = self.flow(flow).and_then(|f| f.stream.clone());
        for message in messages(h.body.as_ref()) {
            self.answered(slot, message);
            self.checker.handle_prepared_message(Side::Server, message, stream.as_deref(), parts.pop_front());
        }
        if let Some(x) = self.exchanges.at_mut(slot) {
            // An event stream may be resumed, even one cut before its first whole event.
            let event_stream = h.status.is_some() && crate::machines::http::is_event_stream(&h.headers);
            x.streamed |= event_stream || !h.events.is_empty();
        }
        for b in &h.events {
            self.block(slot, flow, b, stream.as_ref(), parts);
        }
        if h.end {
            self.forget_unanswered(slot);
            let input_required = self.exchanges.at(slot).is_some_and(|x| x.input_required);
            let at = h.at;
            if let Some(f) = self.flow(flow) {
                f.ended_at = at.or(f.ended_at);
                f.released |= !f.buffered.is_empty() || input_required;
            }
        }
    }

    /// A server message of the exchange in `slot` that answers one of its requests.
    fn answered(&mut self, slot: usize, message: &Value) {
        let Some(x) = self.exchanges.at_mut(slot) else { return };
        if message.get("method").is_none() {
            let id = message.get("id");
            x.unanswered.retain(|u| Some(u) != id);
        }
    }

    /// An exchange that ended with no JSON-RPC response to its request (a
    /// 401, a 202, an HTML error page, the proxy's own 502): nothing will
    /// answer it, so the checker stops holding it (security review M1). An
    /// event stream may be resumed by a later GET (even one cut before its
    /// first whole event), so its requests stay.
    fn forget_unanswered(&mut self, slot: usize) {
        let Some(x) = self.exchanges.at_mut(slot) else { return };
        if x.streamed {
            return;
        }
        for id in core::mem::take(&mut x.unanswered) {
            self.checker.forget(&id);
        }
    }

    fn head(&mut self, flow: usize, url: &str, method: &str, status: u16, headers: &[(String, String)]) {
        let links = headers.iter().filter(|(n, _)| n == "link").map(|(_, v)| v.as_str());
        let limits = crate::machines::http::StreamLimits::DEFAULT;
        let target = link::stream_url(links, url, &limits).ok().flatten();
        let Some(f) = self.flow(flow) else { return };
        let newly_linked = target.is_some() && f.links.is_empty();
        if let Some(target) = target {
            let cross = !link::same_origin(&target, url);
            f.links.push((target, cross));
        }
        if status == 204 && method.eq_ignore_ascii_case("GET") {
            f.waiting = true;
        }
        if newly_linked {
            self.linked += 1;
        }
    }

    fn block(&mut self, slot: usize, flow: usize, b: &Block, stream: Option<&String>, parts: &mut VecDeque<Part>) {
        let after_input_required = self.exchanges.at(slot).is_some_and(|x| x.input_required);
        if self.answering() == Some(Answering::UntilInputRequired) && after_input_required {
            self.report(RuleId::MessageAfterInputRequired, "an event after input_required on the same response".into());
        }
        let custom = self.answering() == Some(Answering::UntilInputRequired);
        if let Some(id) = &b.id {
            self.event_flows.insert(id, flow);
            // Read only when an `input_required` event closes the exchange (SEP-1858).
            if let Some(x) = self.exchanges.at_mut(slot).filter(|_| custom) {
                x.ids.push(id.clone());
            }
        }
        let (mut buffer_input, mut input_required) = (false, false);
        match b.event.as_deref() {
            Some("buffer_input") if custom => buffer_input = true,
            Some("input_required") if custom => input_required = true,
            _ => {}
        }
        if let Some(x) = self.exchanges.at_mut(slot) {
            x.buffer_input |= buffer_input;
            x.input_required |= input_required;
        }
        let buffering = self.answering() == Some(Answering::UntilStreamEnds)
            || self.exchanges.at(slot).is_some_and(|x| x.buffer_input);
        if input_required {
            let ids = self.exchanges.at(slot).map(|x| x.ids.clone()).unwrap_or_default();
            if let Some(f) = self.flow(flow) {
                f.released = true;
                f.closed_ids.extend(ids);
            }
        }
        if let Some(ms) = b.retry {
            if let Some(f) = self.flow(flow) {
                f.retry = Some(ms);
            }
        }
        for message in messages(b.data.as_ref()) {
            self.answered(slot, message);
            let request_id = message.get("method").and(message.get("id")).map(Id::text);
            if let (true, Some(id)) = (buffering, request_id) {
                if let Some(f) = self.flow(flow) {
                    f.buffered.insert(id);
                }
            }
            self.checker.handle_prepared_message(Side::Server, message, stream.map(String::as_str), parts.pop_front());
        }
    }
}

/// The latest [`TRACKED_MAX`] entries by key: a bounded map for exchanges
/// and event ids. The values sit in arrival order in a deque; an ordered
/// index (one `BTreeMap<String, u64>` type for every `V`, so the wasm build
/// carries one) finds a key's position without a scan.
#[derive(Debug)]
struct Recent<V> {
    items: VecDeque<(String, V)>,
    /// Each key's absolute position (`items[position - front]`).
    index: BTreeMap<String, u64>,
    /// The absolute position of `items[0]`.
    front: u64,
}

impl<V> Default for Recent<V> {
    fn default() -> Self {
        Recent { items: VecDeque::new(), index: BTreeMap::new(), front: 0 }
    }
}

impl<V> Recent<V> {
    fn slot(&self, key: &str) -> Option<usize> {
        let at = self.index.get(key)?;
        usize::try_from(at - self.front).ok()
    }

    fn get(&self, key: &str) -> Option<&V> {
        self.slot(key).and_then(|i| self.at(i))
    }

    /// The value in `slot` ([`Recent::slot`]; valid until the next insert).
    fn at(&self, slot: usize) -> Option<&V> {
        self.items.get(slot).map(|(_, v)| v)
    }

    fn at_mut(&mut self, slot: usize) -> Option<&mut V> {
        self.items.get_mut(slot).map(|(_, v)| v)
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.slot(key).and_then(|i| self.items.get_mut(i)).map(|(_, v)| v)
    }

    /// Records `value` under `key`, replacing an older one (which keeps its
    /// place); past the bound the oldest goes.
    fn insert(&mut self, key: &str, value: V) {
        match self.get_mut(key) {
            Some(old) => *old = value,
            None => {
                if self.items.len() >= TRACKED_MAX {
                    if let Some((old, _)) = self.items.pop_front() {
                        self.index.remove(&old);
                    }
                    self.front += 1;
                }
                let at = self.front + self.items.len() as u64;
                self.items.push_back((String::from(key), value));
                self.index.insert(String::from(key), at);
            }
        }
    }
}

/// The JSON-RPC messages of a body or an event's data: an object is one, an
/// array one per element; any other value (`null` included) is one invalid
/// message. Only an absent body or data carries none.
fn messages(value: Option<&Value>) -> &[Value] {
    match value {
        None => &[],
        Some(Value::Array(items)) => items,
        Some(other) => core::slice::from_ref(other),
    }
}

/// URLs compared in their normal form (RFC 3986 §6.2.2, default ports left out).
fn same_url(a: &str, b: &str) -> bool {
    match (link::normal(a), link::normal(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// Checks a whole transcript of message and HTTP entries.
pub fn check(lines: &[Line], config: CheckConfig) -> Vec<Violation> {
    let mut audit = Audit::new(config);
    lines.iter().for_each(|l| audit.handle(l));
    audit.into_violations()
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::conversation::check::Operation;

    /// Every `check` case of the conformance corpus: each line prepared
    /// first ([`prepare`], as the proxy does outside its lock) then
    /// checked ([`Audit::handle_prepared`]) finds the same violations and
    /// the same operations, at the same indices, as [`Audit::handle`].
    #[test]
    fn prepared_lines_check_as_lines_do_over_the_corpus() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/cases");
        let (mut dirs, mut cases) = (std::vec![root], 0);
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                    continue;
                }
                let Ok(case) = serde_json::from_slice::<Value>(&std::fs::read(&path).unwrap()) else { continue };
                if case["op"] != "check" {
                    continue;
                }
                let input = &case["input"];
                let Some(Ok(lines)) = input["transcript"]
                    .as_array()
                    .map(|t| t.iter().map(Line::from_value).collect::<Result<Vec<_>, _>>())
                else {
                    continue;
                };
                let c = &input["config"];
                let Ok(protocol) = crate::base::protocol::Protocol::parse_or_default(c["protocol"].as_str()) else {
                    continue;
                };
                let transport = match c["transport"].as_str().map(Mode::from_name) {
                    Some(Ok(mode)) => Some(mode),
                    Some(Err(_)) => continue,
                    None => None,
                };
                let max_rounds =
                    c["maxRounds"].as_u64().map_or(crate::base::settings::DEFAULT_MAX_ROUNDS, |n| n as u32);
                let config = CheckConfig::default()
                    .with_protocol(protocol)
                    .with_max_rounds(max_rounds)
                    .with_transport(transport);
                let run = |prepared: bool| {
                    let mut audit = Audit::new(config);
                    let mut operations: Vec<Operation> = Vec::new();
                    for line in &lines {
                        if prepared {
                            let mut p = prepare(line.clone(), &config);
                            audit.handle_prepared(&mut p);
                            assert_eq!(p.line(), line);
                        } else {
                            audit.handle(line);
                        }
                        operations.extend(audit.checker().take_operations());
                    }
                    (audit.into_violations(), operations)
                };
                assert_eq!(run(true), run(false), "{}", path.display());
                cases += 1;
            }
        }
        assert!(cases >= 400, "{cases} check cases found");
    }
}
