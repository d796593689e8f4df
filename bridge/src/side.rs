//! One side of the bridge, checked: a [`Monitor`] (the proxy's checker,
//! recorder and reporter) under that side's protocol, whose reports are
//! printed tagged with the side (`client` or `upstream`), so that a reader
//! knows which conversation broke a rule.
//!
//! The monitor itself stays quiet ([`Output::Quiet`]): it prints untagged.
//! After each entry fed, the reports it added are printed here, in order.

use http::HeaderMap;
use mrtr::check::CheckConfig;
use mrtr::sse::Decoder;
use mrtr::{Error, Limits};
use mrtr_proxy::{Monitor, Output, Report, Summary};
use std::fs::File;
use std::sync::{Arc, Mutex};

/// A checked side of the bridge. Cheap to clone.
#[derive(Clone)]
pub struct Side {
    name: &'static str,
    monitor: Monitor,
    output: Output,
    /// Reports printed so far (violations + operations of the summary).
    printed: Arc<Mutex<u64>>,
}

impl Side {
    /// A side named `name`, checked under `config`, recorded to `record`.
    pub(crate) fn new(name: &'static str, config: CheckConfig, record: Option<File>, output: Output) -> Side {
        Side { name, monitor: Monitor::new(config, record, Output::Quiet), output, printed: Arc::new(Mutex::new(0)) }
    }

    /// Keeps a timeline of this side for a live page titled `title`
    /// (before the side is shared).
    pub(crate) fn keep_timeline(&mut self, title: &str) {
        self.monitor = self.monitor.clone().with_timeline(title);
    }

    /// The side's name: `client` or `upstream`.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Its monitor: reports and counts so far.
    pub fn monitor(&self) -> &Monitor {
        &self.monitor
    }

    /// The bounds on one message.
    pub fn limits(&self) -> Limits {
        self.monitor.limits()
    }

    /// The counts so far.
    pub fn summary(&self) -> Summary {
        self.monitor.summary()
    }

    /// A new exchange id.
    pub(crate) fn exchange(&self) -> String {
        self.monitor.exchange()
    }

    /// A request entry (see [`Monitor::request`]): its index.
    pub(crate) fn request(&self, exchange: &str, method: &str, url: &str, headers: &HeaderMap, body: &[u8]) -> usize {
        let index = self.monitor.request(exchange, method, url, headers, body);
        self.print_new();
        index
    }

    /// A response head entry, with its whole body when read (see [`Monitor::response`]).
    pub(crate) fn response(&self, exchange: &str, status: u16, headers: &HeaderMap, body: Option<&[u8]>, end: bool) {
        self.monitor.response(exchange, status, headers, body, end, Vec::new());
        self.print_new();
    }

    /// Each block `decoder` has ready, as an event entry: the index of the
    /// last one, if any.
    pub(crate) fn events(&self, exchange: &str, decoder: &mut Decoder) -> Option<usize> {
        let mut last = None;
        while let Some(event) = decoder.poll_event() {
            last = self.monitor.event(exchange, event).or(last);
        }
        self.print_new();
        last
    }

    /// Shows a call the bridge carried as an operation on this side's live
    /// page (see [`Monitor::show_operation`]).
    pub(crate) fn show_operation(&self, op: &mrtr::check::Operation) {
        self.monitor.show_operation(op);
    }

    /// The end of a response.
    pub(crate) fn end(&self, exchange: &str) {
        self.monitor.end(exchange);
        self.print_new();
    }

    /// Bytes that never became an entry (a body over the bound).
    pub(crate) fn bad_bytes(&self, from: mrtr::check::Side, error: &Error) {
        self.monitor.bad_bytes_from(from, error);
        self.print_new();
    }

    /// Prints the reports the monitor added since the last call, tagged.
    fn print_new(&self) {
        if self.output == Output::Quiet {
            return;
        }
        let mut printed = self.printed.lock().unwrap_or_else(|p| p.into_inner());
        let summary = self.monitor.summary();
        let total = summary.violations + summary.operations;
        if total == *printed {
            return;
        }
        let fresh = usize::try_from(total - *printed).unwrap_or(usize::MAX);
        let reports = self.monitor.reports();
        for report in reports.iter().skip(reports.len().saturating_sub(fresh)) {
            println!("{}", self.line(report));
        }
        *printed = total;
    }

    /// A report as printed: `client: violation …`, or its JSON with `"side"`.
    pub fn line(&self, report: &Report) -> String {
        match self.output {
            Output::Json => {
                let mut json = report.to_json();
                json["side"] = self.name.into();
                json.to_string()
            }
            _ => format!("{}: {}", self.name, report.line()),
        }
    }

    /// The summary as printed at shutdown, tagged.
    pub fn summary_line(&self) -> String {
        let summary = self.summary();
        match self.output {
            Output::Json => {
                let mut json = summary.to_json();
                json["side"] = self.name.into();
                json.to_string()
            }
            _ => format!("{}: {}", self.name, summary.line()),
        }
    }

    /// Flushes the record file.
    pub(crate) fn flush(&self) {
        self.monitor.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report names its side: `client: …` in text, `"side"` in JSON, so
    /// that a reader of one output knows which conversation broke a rule.
    #[test]
    fn reports_are_tagged_with_their_side() {
        let report =
            Report::Violation { rule: "limit-exceeded".into(), index: 3, from: None, message: "too big".into() };
        let text = Side::new("client", CheckConfig::default(), None, Output::Text);
        assert_eq!(text.line(&report), "client: violation limit-exceeded at entry 3: too big");
        assert_eq!(text.summary_line(), "client: summary: messages 0, violations 0, operations 0");
        let json = Side::new("upstream", CheckConfig::default(), None, Output::Json);
        let line: serde_json::Value = serde_json::from_str(&json.line(&report)).unwrap();
        assert_eq!(
            (&line["side"], &line["rule"], &line["type"]),
            (&"upstream".into(), &"limit-exceeded".into(), &"violation".into())
        );
        let summary: serde_json::Value = serde_json::from_str(&json.summary_line()).unwrap();
        assert_eq!((&summary["side"], &summary["type"]), (&"upstream".into(), &"summary".into()));
    }
}
