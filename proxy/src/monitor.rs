//! The checking side of the proxy: one [`Audit`] for the whole conversation,
//! fed the HTTP entries of what the proxy relays (the corpus format "check
//! with HTTP entries"), behind one mutex held only while one entry is
//! checked, recorded and reported.

use crate::har::HarLog;
use crate::page::{Shown, Snapshot, Timeline};
use http::HeaderMap;
use mrtr::check::{Audit, Block, CheckConfig, Entry, HttpEntry, Line, Operation, Side, Unparsed};
use mrtr::http::Headers;
use mrtr::sse::Event;
use mrtr::{Error, Limits};
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

/// How many reports [`Monitor::reports`] keeps (the oldest go first).
pub const REPORTS_KEPT: usize = 10_000;

/// Something the proxy reports as the conversation flows.
#[derive(Clone, Debug, PartialEq)]
pub enum Report {
    /// A broken rule (from the checker, or bytes that are not a message).
    Violation {
        /// The rule id (`retry-request-state-mismatch`, `jsonrpc-parse-error`, …).
        rule: String,
        /// The index of the HTTP entry (for a request refused before it was
        /// forwarded: the index the next entry gets).
        index: usize,
        /// Who sent the entry (unknown for bytes that never became one of a
        /// side's messages).
        from: Option<Side>,
        /// One sentence.
        message: String,
    },
    /// An interop warning (`mrtr::check::Interop`): no rule broken, but a
    /// peer failing its users; it names the client.
    Warning {
        /// The warning's name (`state-only-not-retried`, `ask-unanswered`, …).
        warning: String,
        /// The index of the entry it is about.
        index: usize,
        /// The client's `clientInfo` (`name version`), when it sent one.
        client: Option<String>,
        /// One sentence.
        message: String,
    },
    /// A multi-round operation finished (a final result after ≥1 `input_required`).
    Operation {
        /// `tools/call`, `prompts/get`, `resources/read`, …
        method: String,
        /// `params.name` or `params.uri`.
        target: Option<String>,
        /// How many `input_required` answers it took.
        rounds: u32,
        /// From the first request to the final result (unknown when the
        /// first request is older than the proxy's memory of arrivals).
        latency_ms: Option<u128>,
    },
}

impl Report {
    /// The text line printed on stdout.
    pub fn line(&self) -> String {
        match self {
            Report::Violation { rule, index, from, message } => match from {
                Some(from) => format!("violation {rule} at entry {index} from the {}: {message}", side_name(*from)),
                None => format!("violation {rule} at entry {index}: {message}"),
            },
            Report::Warning { warning, index, client, message } => match client {
                Some(client) => format!("interop warning {warning} at entry {index}, client {client}: {message}"),
                None => format!("interop warning {warning} at entry {index}: {message}"),
            },
            Report::Operation { method, target, rounds, latency_ms } => format!(
                "operation {method} {} rounds={rounds} latency_ms={}",
                target.as_deref().unwrap_or("-"),
                latency_ms.map_or_else(|| "-".to_string(), |ms| ms.to_string())
            ),
        }
    }

    /// The line printed for this report under `output` (text or JSON).
    pub fn to_output(&self, output: Output) -> String {
        match output {
            Output::Json => self.to_json().to_string(),
            _ => self.line(),
        }
    }

    /// The JSON object printed with `--json`.
    pub fn to_json(&self) -> Value {
        match self {
            Report::Violation { rule, index, from, message } => {
                json!({"type": "violation", "rule": rule, "index": index, "from": from.map(side_name), "message": message})
            }
            Report::Warning { warning, index, client, message } => {
                json!({"type": "warning", "warning": warning, "index": index, "client": client, "message": message})
            }
            Report::Operation { method, target, rounds, latency_ms } => json!({"type": "operation",
                "method": method, "target": target, "rounds": rounds, "latency_ms": latency_ms}),
        }
    }
}

/// Counts at the end (or so far).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// JSON-RPC messages checked (in the bodies and events of the entries).
    pub messages: u64,
    /// Violations reported.
    pub violations: u64,
    /// Multi-round operations finished.
    pub operations: u64,
    /// Interop warnings reported.
    pub warnings: u64,
}

impl Summary {
    /// The text line printed at shutdown.
    pub fn line(&self) -> String {
        let warnings = if self.warnings > 0 { format!(", interop warnings {}", self.warnings) } else { String::new() };
        format!(
            "summary: messages {}, violations {}, operations {}{warnings}",
            self.messages, self.violations, self.operations
        )
    }

    /// The line printed at shutdown under `output` (text or JSON).
    pub fn to_output(&self, output: Output) -> String {
        match output {
            Output::Json => self.to_json().to_string(),
            _ => self.line(),
        }
    }

    /// The JSON object printed at shutdown with `--json`.
    pub fn to_json(&self) -> Value {
        json!({"type": "summary", "messages": self.messages, "violations": self.violations, "operations": self.operations,
            "warnings": self.warnings})
    }
}

/// Where reports go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// Nowhere but [`Monitor::reports`] (tests).
    Quiet,
    /// One text line each on stdout.
    Text,
    /// One JSON object per line on stdout.
    Json,
}

/// When each recent client request arrived, by entry index: the checker
/// names an operation's first request by index, the proxy's clock gives the
/// latency. Bounded: an operation whose first request is older than the last
/// [`STARTS_KEPT`] client requests is reported without a latency.
const STARTS_KEPT: usize = 2 * mrtr::check::TRACKED_MAX + 1;

/// The header fields whose values an entry keeps: those the checker reads,
/// and `host`.
/// Every other value (credentials such as `authorization`, `x-api-key`,
/// cookies, `mcp-session-id`) is `[redacted]`, the name kept, in what is
/// checked and recorded alike, so that a recording re-checks the same.
const KEPT: [&str; 8] =
    ["host", "content-type", "accept", "last-event-id", "link", "mcp-protocol-version", "mcp-method", "mcp-name"];

/// What is checked in order: the one checker of the conversation and what
/// follows it entry by entry (indices, counts, reports, the record file, the
/// live page). Held only while one entry is checked: an entry is built,
/// parsed, redacted and counted before, outside it.
struct Inner {
    audit: Audit,
    /// The index the next entry gets.
    entries: usize,
    summary: Summary,
    reports: VecDeque<Report>,
    record: Option<Record>,
    record_error: bool,
    /// Arrival times of recent client entries, by index.
    starts: BTreeMap<usize, Instant>,
    /// What the live page shows, when there is one (bounded text: see
    /// [`crate::page`]).
    timeline: Option<Timeline>,
    /// Report lines not printed yet: printed once the entry is checked, in
    /// order, but not under this lock ([`Monitor::unlock`]).
    unprinted: Vec<String>,
}

/// The HAR, when asked for: behind its own lock, and not locked at all
/// (one atomic load) when there is none.
#[derive(Default)]
struct HarSlot {
    on: AtomicBool,
    log: Mutex<Option<HarLog>>,
}

/// The shared checker, recorder and reporter. Cheap to clone.
#[derive(Clone)]
pub struct Monitor {
    inner: Arc<Mutex<Inner>>,
    har: Arc<HarSlot>,
    output: Output,
    limits: Limits,
    /// What the checker checks under: entries are prepared under it
    /// ([`mrtr::check::prepare`]) before the lock is taken.
    check: CheckConfig,
    recording: bool,
    /// The proxy's clock: an entry's `at` is the milliseconds since then.
    started: Instant,
    /// The last exchange id given.
    exchanges: Arc<AtomicU64>,
    /// Reports go to stderr, not stdout (which a stdio conversation uses).
    to_stderr: bool,
    /// Whether `inner` keeps a timeline (shared by the clones, like the
    /// HAR's): each entry is then shown ([`Shown::of`]) before the lock.
    timeline: Arc<AtomicBool>,
}

impl Monitor {
    /// A monitor checking under `config` (protocol, transport), appending
    /// HTTP entries to `record`.
    pub fn new(config: CheckConfig, record: Option<File>, output: Output) -> Monitor {
        let recording = record.is_some();
        let inner = Inner {
            audit: Audit::new(config),
            entries: 0,
            summary: Summary::default(),
            reports: VecDeque::new(),
            record: record.map(Record::new),
            record_error: false,
            starts: BTreeMap::new(),
            timeline: None,
            unprinted: Vec::new(),
        };
        Monitor {
            inner: Arc::new(Mutex::new(inner)),
            har: Arc::default(),
            output,
            limits: config.settings.limits,
            check: config,
            recording,
            started: Instant::now(),
            exchanges: Arc::new(AtomicU64::new(0)),
            to_stderr: false,
            timeline: Arc::default(),
        }
    }

    /// The same monitor, its record file `path` rotated once it holds
    /// `max_bytes`: renamed `path.1` (replacing the one before) and begun
    /// again, so that a long-running proxy's record stays bounded (two
    /// files). Call before cloning.
    pub fn rotating(self, path: PathBuf, max_bytes: u64) -> Monitor {
        if let Some(record) = self.lock().record.as_mut() {
            record.written = record.writer.get_ref().metadata().map_or(0, |m| m.len());
            record.rotate = Some((path, max_bytes));
        }
        self
    }

    /// The same monitor, also writing the exchanges it sees as a HAR to
    /// `file` (truncated), each when its response ends. Call before cloning.
    pub fn with_har(self, file: File) -> std::io::Result<Monitor> {
        let har = HarLog::new(file, self.limits.max_message_bytes)?;
        *self.har.log.lock().unwrap_or_else(PoisonError::into_inner) = Some(har);
        self.har.on.store(true, Ordering::Release);
        Ok(self)
    }

    /// The same monitor, keeping a [`Timeline`] of what it sees (the latest
    /// entries, operations and violations) for a live page under `title`.
    /// Call before cloning.
    pub fn with_timeline(self, title: &str) -> Monitor {
        self.lock().timeline = Some(Timeline::new(title));
        self.timeline.store(true, Ordering::Release);
        self
    }

    /// What the live page shows now ([`Timeline::snapshot`]: the lock is
    /// held only to share the kept texts; its `state.json` is written
    /// after); `None` without [`Monitor::with_timeline`].
    pub fn timeline(&self) -> Option<Snapshot> {
        self.lock().timeline.as_ref().map(Timeline::snapshot)
    }

    /// Whether a HAR is written (so its inputs are worth building).
    fn har_on(&self) -> bool {
        self.har.on.load(Ordering::Acquire)
    }

    /// Runs `write` on the HAR, if there is one.
    fn har(&self, write: impl FnOnce(&mut HarLog)) {
        if self.har_on() {
            if let Some(har) = self.har.log.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
                write(har);
            }
        }
    }

    /// Bytes of a response body as they go by (for the HAR).
    pub fn content(&self, exchange: &str, bytes: &[u8]) {
        self.har(|har| har.content(exchange, bytes));
    }

    /// The client left before the response of `exchange` ended.
    pub fn cut(&self, exchange: &str) {
        self.har(|har| har.cut(exchange));
    }

    /// The same monitor, printing its reports on stderr: under stdio the
    /// proxy's stdout is the conversation.
    pub fn reporting_on_stderr(mut self) -> Monitor {
        self.to_stderr = true;
        self
    }

    /// Prints one report or summary line where reports go.
    pub fn print(&self, line: &str) {
        if self.to_stderr {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }

    /// How many flows the checker holds now (`mrtr::check::Checker::tracked`).
    pub fn tracked(&self) -> usize {
        self.lock().audit.checker().tracked()
    }

    /// The bytes of request text the checker holds for requests awaiting
    /// their answer (`mrtr::check::Checker::held_bytes`: at most
    /// `mrtr::check::TRACKED_BYTES_MAX`).
    pub fn held_bytes(&self) -> usize {
        self.lock().audit.checker().held_bytes()
    }

    /// The bounds on one message.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// A new exchange id (`"1"`, `"2"`, …): one per request the proxy relays.
    pub fn exchange(&self) -> String {
        (self.exchanges.fetch_add(1, Ordering::Relaxed) + 1).to_string()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock (a bug) must not stop the proxy.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The counts so far.
    pub fn summary(&self) -> Summary {
        self.lock().summary
    }

    /// The last [`REPORTS_KEPT`] reports.
    pub fn reports(&self) -> Vec<Report> {
        self.lock().reports.iter().cloned().collect()
    }

    /// At shutdown: flushes the record file, and writes every exchange still
    /// open into the HAR.
    pub fn flush(&self) {
        let mut inner = self.lock();
        if let Some(record) = inner.record.as_mut() {
            if let Err(e) = record.writer.flush() {
                eprintln!("mrtr-proxy: cannot write the record file: {e}");
            }
        }
        drop(inner);
        if let Some(Err(e)) = self.har.log.lock().unwrap_or_else(PoisonError::into_inner).as_mut().map(HarLog::finish) {
            eprintln!("mrtr-proxy: cannot write the HAR file: {e}");
        }
    }

    fn report(&self, inner: &mut Inner, report: Report) {
        match &report {
            Report::Violation { .. } => inner.summary.violations += 1,
            Report::Warning { .. } => inner.summary.warnings += 1,
            Report::Operation { .. } => inner.summary.operations += 1,
        }
        match self.output {
            Output::Quiet => {}
            Output::Text | Output::Json => inner.unprinted.push(report.to_output(self.output)),
        }
        if inner.reports.len() >= REPORTS_KEPT {
            inner.reports.pop_front();
        }
        inner.reports.push_back(report);
    }

    fn violation(&self, inner: &mut Inner, index: usize, from: Option<Side>, error: &Error) {
        let (rule, message) = (error.rule().name().to_string(), error.message().to_string());
        if let Some(timeline) = inner.timeline.as_mut() {
            timeline.violation(&rule, index, from, &message);
        }
        self.report(inner, Report::Violation { rule, index, from, message });
    }

    /// Reports bytes that never became part of an entry (a request refused
    /// before it was forwarded): a violation at the index the next entry gets.
    pub fn bad_bytes(&self, error: &Error) {
        let mut inner = self.lock();
        let index = inner.entries;
        self.violation(&mut inner, index, None, error);
        self.unlock(inner);
    }

    /// Releases the lock, then prints the report lines of what it checked:
    /// the output's own lock is taken first, so that the lines of
    /// successive entries still come out in their order, but the checker
    /// waits for no write.
    fn unlock(&self, mut inner: MutexGuard<'_, Inner>) {
        if inner.unprinted.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut inner.unprinted);
        // An error writing a report (a closed stdout) is ignored, where `println!` would panic.
        if self.to_stderr {
            let mut out = std::io::stderr().lock();
            drop(inner);
            lines.iter().for_each(|line| drop(writeln!(out, "{line}")));
        } else {
            let mut out = std::io::stdout().lock();
            drop(inner);
            lines.iter().for_each(|line| drop(writeln!(out, "{line}")));
        }
    }

    /// [`Monitor::bad_bytes`] from a known side.
    pub fn bad_bytes_from(&self, from: Side, error: &Error) {
        let mut inner = self.lock();
        let index = inner.entries;
        self.violation(&mut inner, index, Some(from), error);
        self.unlock(inner);
    }

    /// A body or an event's data as JSON, under the core's bad-input rules;
    /// bytes that are not JSON add their error to `errors`.
    fn json(&self, bytes: &[u8], errors: &mut Vec<Error>) -> Option<Value> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        mrtr::parse(bytes, &self.limits).map_err(|e| errors.push(e)).ok()
    }

    /// A body or an event's data as JSON, under the core's bad-input rules;
    /// bytes that are no JSON value are kept as they came, with why
    /// ([`Unparsed`]): the checker reports them at their entry, and the
    /// record keeps them, so that a recording re-checks the same.
    fn body(&self, bytes: &[u8]) -> (Option<Value>, Option<Unparsed>) {
        match Unparsed::parse(bytes, &self.limits) {
            Ok(value) => (value, None),
            Err(unparsed) => (None, Some(unparsed)),
        }
    }

    /// Feeds the client entry of a request the proxy forwards: `url` is the
    /// upstream URL it goes to, `headers` those forwarded. A body that is
    /// not JSON is reported at this entry, which keeps its bytes. Returns
    /// the entry's index.
    pub fn request(&self, exchange: &str, method: &str, url: &str, headers: &HeaderMap, body: &[u8]) -> usize {
        let headers = header_fields(headers);
        let url = redact_query(url);
        self.har(|har| har.request(exchange, method, &url, &header_object(&headers), body));
        let (body, unparsed) = self.body(body);
        let entry = HttpEntry {
            from: Side::Client,
            at: None,
            exchange: exchange.to_string(),
            method: Some(method.to_string()),
            url: Some(url),
            headers,
            status: None,
            events: Vec::new(),
            body,
            unparsed,
            end: false,
        };
        self.feed(Side::Client, Line::Http(entry), &[])
    }

    /// Feeds the first server entry of a response: its status and headers,
    /// with its whole JSON body when it was read (`body`), `end` when the
    /// response ends there. `errors`: what is wrong with bytes it carries.
    /// Returns the entry's index.
    pub fn response(
        &self,
        exchange: &str,
        status: u16,
        headers: &HeaderMap,
        body: Option<&[u8]>,
        end: bool,
        errors: Vec<Error>,
    ) -> usize {
        let headers = header_fields(headers);
        self.har(|har| {
            har.response(exchange, status, &header_object(&headers), body);
            if end {
                har.end(exchange);
            }
        });
        let (body, unparsed) = body.map_or((None, None), |b| self.body(b));
        let entry = HttpEntry {
            from: Side::Server,
            at: None,
            exchange: exchange.to_string(),
            method: None,
            url: None,
            headers,
            status: Some(status),
            events: Vec::new(),
            body,
            unparsed,
            end,
        };
        self.feed(Side::Server, Line::Http(entry), &errors)
    }

    /// Feeds one decoded event-stream block of a response as a server entry
    /// (its `data` as JSON; data that is not JSON is reported at this entry,
    /// which keeps it; empty data is no message). A block the decoder
    /// refused is reported at the index the next entry gets. Returns the
    /// entry's index (none for a refused block).
    pub fn event(&self, exchange: &str, event: Result<Event, Error>) -> Option<usize> {
        let event = match event {
            Ok(event) => event,
            Err(e) => {
                self.bad_bytes_from(Side::Server, &e);
                return None;
            }
        };
        let (data, unparsed) = event.data.map_or((None, None), |d| self.body(d.as_bytes()));
        let block = Block { event: event.event, data, unparsed, id: event.id, retry: event.retry };
        Some(self.feed(Side::Server, Line::Http(server_entry(exchange, vec![block], false)), &[]))
    }

    /// Feeds the end of a response: upstream finished its body. Returns
    /// the entry's index.
    pub fn end(&self, exchange: &str) -> usize {
        self.har(|har| har.end(exchange));
        self.feed(Side::Server, Line::Http(server_entry(exchange, Vec::new(), true)), &[])
    }

    /// Shows on the live page (when there is one) a multi-round operation
    /// its host followed itself, its spans indices of this monitor's
    /// entries: the bridge's `2025-11-25` side, whose calls ask on their
    /// stream, where the checker sees no `input_required` round. Not
    /// reported: reports are the checker's.
    pub fn show_operation(&self, op: &Operation) {
        if self.timeline.load(Ordering::Acquire) {
            if let Some(timeline) = self.lock().timeline.as_mut() {
                timeline.operation(op);
            }
        }
    }

    /// Feeds one message of a stdio conversation (one line, its newline
    /// left off) as an entry `from` that side. A line that is not JSON is
    /// reported at the index the next entry gets and is no entry; a blank
    /// line is nothing.
    pub fn message(&self, from: Side, line: &[u8]) {
        let mut errors = Vec::new();
        match self.json(line, &mut errors) {
            Some(message) => {
                self.feed(from, Line::Message(Entry { from, message, stream: None }), &[]);
            }
            None => errors.iter().for_each(|e| self.bad_bytes_from(from, e)),
        }
    }

    /// Feeds one entry: reports `errors` at its index, checks it, records
    /// it, follows its operations, reports. Everything that does not depend
    /// on the order of entries was done before, outside the lock: parsing,
    /// redaction and counting by the caller, and here what the checker reads
    /// of each message alone (`mrtr::check::prepare`); the entry's trees
    /// are dropped and its report lines written after the lock; the record
    /// line is written only when there is a record. Returns the entry's index.
    fn feed(&self, from: Side, line: Line, errors: &[Error]) -> usize {
        let messages = match &line {
            Line::Http(h) => count(h.body.as_ref()) + h.events.iter().map(|b| count(b.data.as_ref())).sum::<u64>(),
            Line::Message(entry) => count(Some(&entry.message)),
        };
        // What the checker reads of the entry alone, and what the page
        // shows of it, before the lock (and dropped after it).
        let mut prepared = mrtr::check::prepare(line, &self.check);
        let shown = self.timeline.load(Ordering::Acquire).then(|| Shown::of(prepared.line()));
        let mut guard = self.lock();
        let inner = &mut *guard;
        // Taken under the lock: the entries' times grow with their indices.
        let now = Instant::now();
        let at = u64::try_from(now.duration_since(self.started).as_millis()).unwrap_or(u64::MAX);
        prepared.set_at(at);
        let index = inner.entries;
        for e in errors {
            self.violation(inner, index, Some(from), e);
        }
        if let (Some(timeline), Some(shown)) = (inner.timeline.as_mut(), shown) {
            let at = match prepared.line() {
                Line::Http(h) => h.at,
                Line::Message(_) => None,
            };
            timeline.entry_shown(index, at, shown);
        }
        if from == Side::Client {
            inner.starts.insert(index, now);
            if inner.starts.len() > STARTS_KEPT {
                inner.starts.pop_first();
            }
        }
        inner.audit.handle_prepared(&mut prepared);
        inner.entries += 1;
        inner.summary.messages += messages;
        let checker = inner.audit.checker();
        if !checker.violations().is_empty() {
            for v in checker.take_violations() {
                // Its entry's side: a checker reports at the entry it reads.
                let sent = (v.index == index).then_some(from);
                if let Some(timeline) = inner.timeline.as_mut() {
                    timeline.checked(&v, sent);
                }
                let report = Report::Violation {
                    rule: v.rule.name().to_string(),
                    index: v.index,
                    from: sent,
                    message: v.message,
                };
                self.report(inner, report);
            }
        }
        if self.recording {
            if let Some(record) = inner.record.as_mut() {
                if let Err(e) = record.write_line(&record_line(from, at, prepared.line())) {
                    if !inner.record_error {
                        eprintln!("mrtr-proxy: cannot write the record file: {e}");
                    }
                    inner.record_error = true;
                }
            }
        }
        for w in inner.audit.checker().take_warnings() {
            if let Some(timeline) = inner.timeline.as_mut() {
                timeline.warned(&w);
            }
            let report =
                Report::Warning { warning: w.kind.name().into(), index: w.index, client: w.client, message: w.message };
            self.report(inner, report);
        }
        for op in inner.audit.checker().take_operations() {
            if let Some(timeline) = inner.timeline.as_mut() {
                timeline.operation(&op);
            }
            let latency_ms = inner.starts.remove(&op.started).map(|t| now.duration_since(t).as_millis());
            let report = Report::Operation { method: op.method, target: op.target, rounds: op.rounds, latency_ms };
            self.report(inner, report);
        }
        self.unlock(guard);
        index
    }
}

/// A server entry of `exchange` after its head: event blocks, or its end.
fn server_entry(exchange: &str, events: Vec<Block>, end: bool) -> HttpEntry {
    HttpEntry {
        from: Side::Server,
        at: None,
        exchange: exchange.to_string(),
        method: None,
        url: None,
        headers: Vec::new(),
        status: None,
        events,
        body: None,
        unparsed: None,
        end,
    }
}

/// The record line of an entry, as `mrtr check` reads it:
/// `{"from","at","http":{…}}` (the fields in the order `exchange`, `method`,
/// `url`, `status`, `headers`, `body` or `text` (bytes that are no JSON
/// value, `encoding` after it when base64), `events` (each `data` or
/// `text`), `end`, each only where the entry has it; `headers` on a
/// request and a response head) or
/// `{"from","at","message"}`. Written straight from the entry, not through
/// a `Value`.
fn record_line(from: Side, at: u64, line: &Line) -> String {
    let mut out = Vec::with_capacity(256);
    let _ = write!(out, r#"{{"from":"{}","at":{at},"#, side_name(from));
    match line {
        Line::Message(entry) => {
            out.extend_from_slice(br#""message":"#);
            value_into(&mut out, &entry.message);
        }
        Line::Http(h) => {
            out.extend_from_slice(br#""http":{"exchange":"#);
            str_into(&mut out, &h.exchange);
            if let Some(method) = &h.method {
                out.extend_from_slice(br#","method":"#);
                str_into(&mut out, method);
            }
            if let Some(url) = &h.url {
                out.extend_from_slice(br#","url":"#);
                str_into(&mut out, url);
            }
            if let Some(status) = h.status {
                let _ = write!(out, r#","status":{status}"#);
            }
            if h.method.is_some() || h.status.is_some() {
                out.extend_from_slice(br#","headers":{"#);
                for (i, (name, value)) in h.headers.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    str_into(&mut out, name);
                    out.push(b':');
                    str_into(&mut out, value);
                }
                out.push(b'}');
            }
            if let Some(body) = &h.body {
                out.extend_from_slice(br#","body":"#);
                value_into(&mut out, body);
            }
            if let Some(unparsed) = &h.unparsed {
                out.extend_from_slice(br#","text":"#);
                raw_into(&mut out, &unparsed.bytes);
            }
            if !h.events.is_empty() {
                out.extend_from_slice(br#","events":["#);
                for (i, b) in h.events.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.push(b'{');
                    let mut first = true;
                    let mut field = |out: &mut Vec<u8>, name: &str| {
                        let comma = if first { "" } else { "," };
                        let _ = write!(out, r#"{comma}"{name}":"#);
                        first = false;
                    };
                    if let Some(event) = &b.event {
                        field(&mut out, "event");
                        str_into(&mut out, event);
                    }
                    if let Some(data) = &b.data {
                        field(&mut out, "data");
                        value_into(&mut out, data);
                    }
                    if let Some(unparsed) = &b.unparsed {
                        field(&mut out, "text");
                        raw_into(&mut out, &unparsed.bytes);
                    }
                    if let Some(id) = &b.id {
                        field(&mut out, "id");
                        str_into(&mut out, id);
                    }
                    if let Some(retry) = b.retry {
                        field(&mut out, "retry");
                        let _ = write!(out, "{retry}");
                    }
                    out.push(b'}');
                }
                out.push(b']');
            }
            if h.end {
                out.extend_from_slice(br#","end":true"#);
            }
            out.push(b'}');
        }
    }
    out.push(b'}');
    // Only JSON written by serde_json and ASCII around it: UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// `text` as a JSON string, appended to `out`.
fn str_into(out: &mut Vec<u8>, text: &str) {
    let _ = serde_json::to_writer(&mut *out, text);
}

/// Bytes that are no JSON value, as a record keeps them (the value of its
/// `text`): a JSON string, or when they are not UTF-8, their base64 then
/// `,"encoding":"base64"` (as a HAR keeps a body), appended to `out`.
fn raw_into(out: &mut Vec<u8>, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => str_into(out, text),
        Err(_) => {
            use base64::{engine::general_purpose::STANDARD, Engine};
            let _ = write!(out, r#""{}","encoding":"base64""#, STANDARD.encode(bytes));
        }
    }
}

/// `value` as compact JSON, appended to `out`.
fn value_into(out: &mut Vec<u8>, value: &Value) {
    let _ = serde_json::to_writer(&mut *out, value);
}

/// The record file being appended to.
struct Record {
    writer: BufWriter<File>,
    /// The bytes in the file now.
    written: u64,
    /// Where it is and the size past which it is rotated.
    rotate: Option<(PathBuf, u64)>,
}

impl Record {
    fn new(file: File) -> Record {
        Record { writer: BufWriter::new(file), written: 0, rotate: None }
    }

    /// Appends one entry line (and its newline), flushed; rotates first when
    /// the line would take the file past its bound (a file holds at least
    /// one line).
    fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        let size = u64::try_from(line.len() + 1).unwrap_or(u64::MAX);
        if let Some((path, max)) = &self.rotate {
            if self.written > 0 && self.written.saturating_add(size) > *max {
                self.writer.flush()?;
                let mut old = path.clone().into_os_string();
                old.push(".1");
                std::fs::rename(path, old)?;
                self.writer = BufWriter::new(crate::open_record(path)?);
                self.written = 0;
            }
        }
        writeln!(self.writer, "{line}")?;
        self.writer.flush()?;
        self.written = self.written.saturating_add(size);
        Ok(())
    }
}

fn side_name(from: Side) -> &'static str {
    match from {
        Side::Client => "client",
        Side::Server => "server",
    }
}

/// How many JSON-RPC messages a body or an event's data carries (as the
/// audit counts them: an array one per element).
fn count(value: Option<&Value>) -> u64 {
    match value {
        None | Some(Value::Null) => 0,
        Some(Value::Array(items)) => u64::try_from(items.len()).unwrap_or(u64::MAX),
        Some(_) => 1,
    }
}

/// Header fields as an entry's `headers`: lower-case names in the map's
/// order, repeated fields joined with `, `, every value but those of
/// [`KEPT`] redacted.
fn header_fields(headers: &HeaderMap) -> Headers {
    let mut out = Vec::with_capacity(headers.keys_len());
    for name in headers.keys() {
        let value = if !KEPT.contains(&name.as_str()) {
            REDACTED.to_string()
        } else {
            let mut values = headers.get_all(name).iter();
            let mut value =
                values.next().map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()).unwrap_or_default();
            for more in values {
                value.push_str(", ");
                value.push_str(&String::from_utf8_lossy(more.as_bytes()));
            }
            if name == http::header::LINK {
                redact_link(&value)
            } else {
                value
            }
        };
        out.push((name.as_str().to_string(), value));
    }
    out
}

/// What a header value the entry does not keep reads.
const REDACTED: &str = "[redacted]";

/// Header fields as the HAR takes them: a JSON object.
fn header_object(headers: &[(String, String)]) -> Value {
    Value::Object(headers.iter().map(|(n, v)| (n.clone(), Value::String(v.clone()))).collect())
}

/// Query parameters whose values an entry keeps: SEP-1335's stream key,
/// which the checker matches a followed stream URL by. A token in a URL is a
/// credential as much as one in a header: every other value is `redacted`
/// (a parameter without `=` is replaced whole).
const QUERY_KEPT: [&str; 1] = ["stream"];

/// `url` with the values of its query parameters redacted but those of
/// [`QUERY_KEPT`]; the same URL always redacts the same, so a followed link
/// still matches the link it follows.
fn redact_query(url: &str) -> String {
    let (rest, fragment) = match url.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (url, None),
    };
    let Some((base, query)) = rest.split_once('?') else { return url.to_string() };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if QUERY_KEPT.contains(&name) => pair.to_string(),
            Some((name, _)) => format!("{name}=redacted"),
            None if pair.is_empty() => String::new(),
            None => "redacted".to_string(),
        })
        .collect();
    let mut out = format!("{base}?{}", pairs.join("&"));
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// A `Link` header's value with each `<URL>`'s query redacted as an entry's
/// `url` is.
fn redact_link(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest[open..].find('>').map(|c| open + c) else { break };
        out.push_str(&rest[..=open]);
        out.push_str(&redact_query(&rest[open + 1..close]));
        out.push('>');
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record line written straight from an entry is the very text the
    /// proxy wrote when it built each entry as a `Value` (field order, escapes,
    /// numbers), and `mrtr check` reads it back as the entry checked.
    #[test]
    fn record_lines_are_the_value_built_lines() {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "w\u{e9}\"x", "arguments": {"n": 1.5, "z": [true, null]}}});
        let headers: Headers = vec![("host".into(), "h:1".into()), ("x-api-key".into(), REDACTED.into())];
        let h = |pairs: &Headers| Value::Object(pairs.iter().map(|(n, v)| (n.clone(), json!(v))).collect());
        let request = HttpEntry {
            from: Side::Client,
            at: None,
            exchange: "7".into(),
            method: Some("POST".into()),
            url: Some("http://h:1/mcp?stream=a\"b".into()),
            headers: headers.clone(),
            status: None,
            events: Vec::new(),
            body: Some(body.clone()),
            unparsed: None,
            end: false,
        };
        let old_request = json!({"exchange": "7", "method": "POST", "url": "http://h:1/mcp?stream=a\"b",
            "headers": h(&headers), "body": body});
        let head = HttpEntry {
            from: Side::Server,
            status: Some(200),
            method: None,
            url: None,
            body: None,
            end: true,
            ..request.clone()
        };
        let old_head = json!({"exchange": "7", "status": 200, "headers": h(&headers), "end": true});
        let no_headers = HttpEntry { headers: Vec::new(), ..head.clone() };
        let old_no_headers = json!({"exchange": "7", "status": 200, "headers": {}, "end": true});
        let blocks = vec![
            Block {
                event: Some("message".into()),
                data: Some(json!({"a": "\n"})),
                id: Some("1".into()),
                retry: Some(5),
                unparsed: None,
            },
            Block::default(),
            Block { id: Some("2".into()), ..Block::default() },
        ];
        let events = server_entry("7", blocks, false);
        let old_events = json!({"exchange": "7", "events": [{"event": "message", "data": {"a": "\n"}, "id": "1", "retry": 5}, {}, {"id": "2"}]});
        let end = server_entry("7", Vec::new(), true);
        let old_end = json!({"exchange": "7", "end": true});
        for (entry, old) in [
            (request, old_request),
            (head, old_head),
            (no_headers, old_no_headers),
            (events, old_events),
            (end, old_end),
        ] {
            let from = entry.from;
            let (key, name) = ("http", side_name(from));
            let line = record_line(from, 42, &Line::Http(entry.clone()));
            assert_eq!(line, format!(r#"{{"from":"{name}","at":42,"{key}":{old}}}"#));
            let back = Line::from_value(&serde_json::from_str(&line).unwrap()).unwrap();
            assert_eq!(back, Line::Http(HttpEntry { at: Some(42), ..entry }));
        }
        let message = Line::Message(Entry { from: Side::Server, message: body.clone(), stream: None });
        assert_eq!(record_line(Side::Server, 3, &message), format!(r#"{{"from":"server","at":3,"message":{body}}}"#));
    }

    /// Bytes that are no JSON value are recorded as they came: `text`, in
    /// base64 with `"encoding": "base64"` when they are not UTF-8, in a body
    /// and in an event's data; read back, they are the same bytes with the
    /// same error, which the checker reports where the proxy did.
    #[test]
    fn bytes_that_are_no_message_are_recorded_as_they_came() {
        let limits = Limits::default();
        let unparsed = |bytes: &[u8]| Unparsed::parse(bytes, &limits).unwrap_err();
        let request = |bytes: &[u8]| HttpEntry {
            from: Side::Client,
            at: Some(5),
            exchange: "1".into(),
            method: Some("POST".into()),
            url: Some("http://h/mcp".into()),
            headers: Vec::new(),
            status: None,
            events: Vec::new(),
            body: None,
            unparsed: Some(unparsed(bytes)),
            end: false,
        };
        let cut = request(b"{\"jsonrpc\": \"2.0\", \"id\": \"\n");
        let line = record_line(Side::Client, 5, &Line::Http(cut.clone()));
        assert_eq!(
            line,
            r#"{"from":"client","at":5,"http":{"exchange":"1","method":"POST","url":"http://h/mcp","headers":{},"text":"{\"jsonrpc\": \"2.0\", \"id\": \"\n"}}"#
        );
        let not_utf8 = request(b"{\"id\":\"\xff\"}");
        let line_8 = record_line(Side::Client, 5, &Line::Http(not_utf8.clone()));
        assert!(line_8.ends_with(r#""text":"eyJpZCI6Iv8ifQ==","encoding":"base64"}}"#), "{line_8}");
        let block = Block { id: Some("4".into()), unparsed: Some(unparsed(b"hello")), ..Block::default() };
        let event = server_entry("1", vec![block], false);
        let line_event = record_line(Side::Server, 6, &Line::Http(event.clone()));
        assert_eq!(
            line_event,
            r#"{"from":"server","at":6,"http":{"exchange":"1","events":[{"text":"hello","id":"4"}]}}"#
        );
        for (line, entry) in [(line, cut), (line_8, not_utf8), (line_event, event)] {
            let back = Line::from_value(&serde_json::from_str(&line).unwrap()).unwrap();
            assert_eq!(back, Line::Http(HttpEntry { at: Some(entry.at.unwrap_or(6)), ..entry }));
        }
    }

    #[test]
    fn query_values_are_redacted_but_the_stream_key() {
        assert_eq!(redact_query("http://h/mcp"), "http://h/mcp");
        assert_eq!(
            redact_query("http://h/mcp?api_key=sk-1&stream=k.1&&flag#top"),
            "http://h/mcp?api_key=redacted&stream=k.1&&redacted#top"
        );
        assert_eq!(
            redact_link(r#"<http://h/mcp?stream=k&token=t>; rel="stream", </other?a=b>"#),
            r#"<http://h/mcp?stream=k&token=redacted>; rel="stream", </other?a=redacted>"#
        );
        assert_eq!(redact_link("<broken"), "<broken");
    }
}
