//! The checking side of the proxy: one [`Checker`] for the whole
//! conversation, behind one mutex held only while one entry is fed, recorded
//! and reported.

use mrtr::check::{id_text, CheckConfig, Checker, Entry, Side};
use mrtr::{Error, Limits, Protocol};
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// How many reports [`Monitor::reports`] keeps (the oldest go first).
pub const REPORTS_KEPT: usize = 10_000;

/// Something the proxy reports as the conversation flows.
#[derive(Clone, Debug, PartialEq)]
pub enum Report {
    /// A broken rule (from the checker, or bad bytes that never became an entry).
    Violation {
        /// The rule id (`retry-request-state-mismatch`, `jsonrpc-parse-error`, …).
        rule: String,
        /// The index of the entry (for bad bytes: the index the next entry gets).
        index: usize,
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
            Report::Violation { rule, index, message } => format!("violation {rule} at entry {index}: {message}"),
            Report::Operation { method, target, rounds, latency_ms } => format!(
                "operation {method} {} rounds={rounds} latency_ms={}",
                target.as_deref().unwrap_or("-"),
                latency_ms.map_or_else(|| "-".to_string(), |ms| ms.to_string())
            ),
        }
    }

    /// The JSON object printed with `--json`.
    pub fn to_json(&self) -> Value {
        match self {
            Report::Violation { rule, index, message } => {
                json!({"type": "violation", "rule": rule, "index": index, "message": message})
            }
            Report::Operation { method, target, rounds, latency_ms } => json!({"type": "operation",
                "method": method, "target": target, "rounds": rounds, "latency_ms": latency_ms}),
        }
    }
}

/// Counts at the end (or so far).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Messages checked (entries fed to the checker).
    pub messages: u64,
    /// Violations reported.
    pub violations: u64,
    /// Multi-round operations finished.
    pub operations: u64,
}

impl Summary {
    /// The text line printed at shutdown.
    pub fn line(&self) -> String {
        format!("summary: messages {}, violations {}, operations {}", self.messages, self.violations, self.operations)
    }

    /// The JSON object printed at shutdown with `--json`.
    pub fn to_json(&self) -> Value {
        json!({"type": "summary", "messages": self.messages, "violations": self.violations, "operations": self.operations})
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

struct Inner {
    checker: Checker,
    summary: Summary,
    reports: VecDeque<Report>,
    record: Option<BufWriter<File>>,
    record_error: bool,
    /// Arrival times of recent client entries, by index.
    starts: BTreeMap<usize, Instant>,
}

/// The shared checker, recorder and reporter. Cheap to clone.
#[derive(Clone)]
pub struct Monitor {
    inner: Arc<Mutex<Inner>>,
    output: Output,
    limits: Limits,
    recording: bool,
}

impl Monitor {
    /// A monitor checking under `protocol`, appending entries to `record`.
    pub fn new(protocol: Protocol, record: Option<File>, output: Output) -> Monitor {
        let config = CheckConfig { protocol, ..CheckConfig::default() };
        let recording = record.is_some();
        let inner = Inner {
            checker: Checker::new(config),
            summary: Summary::default(),
            reports: VecDeque::new(),
            record: record.map(BufWriter::new),
            record_error: false,
            starts: BTreeMap::new(),
        };
        Monitor { inner: Arc::new(Mutex::new(inner)), output, limits: config.limits, recording }
    }

    /// The bounds on one message.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock (a bug) must not stop the proxy.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The counts so far.
    pub fn summary(&self) -> Summary {
        self.lock().summary
    }

    /// The last [`REPORTS_KEPT`] reports.
    pub fn reports(&self) -> Vec<Report> {
        self.lock().reports.iter().cloned().collect()
    }

    /// Flushes the record file.
    pub fn flush(&self) {
        let mut inner = self.lock();
        if let Some(w) = inner.record.as_mut() {
            if let Err(e) = w.flush() {
                eprintln!("mrtr-proxy: cannot write the record file: {e}");
            }
        }
    }

    fn report(&self, inner: &mut Inner, report: Report) {
        match &report {
            Report::Violation { .. } => inner.summary.violations += 1,
            Report::Operation { .. } => inner.summary.operations += 1,
        }
        match self.output {
            Output::Quiet => {}
            Output::Text => println!("{}", report.line()),
            Output::Json => println!("{}", report.to_json()),
        }
        if inner.reports.len() >= REPORTS_KEPT {
            inner.reports.pop_front();
        }
        inner.reports.push_back(report);
    }

    /// Reports bytes that never became an entry (bad JSON, bad UTF-8, over a
    /// bound): a violation at the index the next entry gets.
    pub fn bad_bytes(&self, error: &Error) {
        let mut inner = self.lock();
        let index = usize::try_from(inner.summary.messages).unwrap_or(usize::MAX);
        let report =
            Report::Violation { rule: error.rule().name().to_string(), index, message: error.message().to_string() };
        self.report(&mut inner, report);
    }

    /// Parses one HTTP body or SSE event's data and feeds each message (each
    /// element of a batch) as an entry. Returns the id of the first request,
    /// as a stream name's `<id>`.
    pub fn feed_bytes(&self, from: Side, bytes: &[u8], stream: Option<&str>) -> Option<String> {
        let value = match mrtr::parse(bytes, &self.limits) {
            Ok(v) => v,
            Err(e) => {
                self.bad_bytes(&e);
                return None;
            }
        };
        let messages = match value {
            Value::Array(items) if !items.is_empty() => items,
            other => vec![other],
        };
        let first_request = messages
            .iter()
            .find(|m| m.get("method").is_some() && m.get("id").is_some_and(|id| !id.is_null()))
            .and_then(|m| m.get("id"))
            .map(id_text);
        for message in messages {
            self.feed(Entry { from, message, stream: stream.map(str::to_string) });
        }
        first_request
    }

    /// Feeds one entry: checks it, records it, follows its operation, reports.
    pub fn feed(&self, entry: Entry) {
        let now = Instant::now();
        let line = self.recording.then(|| record_line(&entry));
        let mut inner = self.lock();
        let inner = &mut *inner;
        if entry.from == Side::Client {
            let index = usize::try_from(inner.summary.messages).unwrap_or(usize::MAX);
            inner.starts.insert(index, now);
            if inner.starts.len() > STARTS_KEPT {
                inner.starts.pop_first();
            }
        }
        inner.checker.handle(&entry);
        inner.summary.messages += 1;
        for v in inner.checker.take_violations() {
            let report = Report::Violation { rule: v.rule.name().to_string(), index: v.index, message: v.message };
            self.report(inner, report);
        }
        if let (Some(line), Some(w)) = (line, inner.record.as_mut()) {
            if let Err(e) = writeln!(w, "{line}").and_then(|()| w.flush()) {
                if !inner.record_error {
                    eprintln!("mrtr-proxy: cannot write the record file: {e}");
                }
                inner.record_error = true;
            }
        }
        for op in inner.checker.take_operations() {
            let latency_ms = inner.starts.remove(&op.started).map(|t| now.duration_since(t).as_millis());
            let report = Report::Operation { method: op.method, target: op.target, rounds: op.rounds, latency_ms };
            self.report(inner, report);
        }
    }
}

/// The entry as one line of the `mrtr check` transcript format.
fn record_line(entry: &Entry) -> String {
    let from = match entry.from {
        Side::Client => "client",
        Side::Server => "server",
    };
    match &entry.stream {
        Some(s) if entry.from == Side::Server => json!({"from": from, "message": entry.message, "stream": s}),
        _ => json!({"from": from, "message": entry.message}),
    }
    .to_string()
}
