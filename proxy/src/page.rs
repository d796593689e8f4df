//! Something to look at: a conversation as one self-contained HTML page
//! (no network access: its style, script and data are inline). One row per
//! multi-round operation, its rounds laid out on a time axis (a bar from
//! each round's request to its answer), each violation a marker where it
//! happened, and a click on either shows the entries behind it.
//!
//! The same page serves `mrtr check --html` (the data inline) and the
//! proxy's `--ui` (the page polls `state.json`). [`Timeline`] gathers the
//! data; [`html`] writes the page.

use mrtr::check::{HttpEntry, Line, Operation, Side, Violation};
use serde_json::{json, Map, Value};
use std::collections::VecDeque;

/// Entries a live timeline keeps (the latest): operations and violations
/// that point at older ones are still shown, without their messages.
pub const ENTRIES_KEPT: usize = 2000;

/// Operations and violations a live timeline keeps (the latest of each).
const ITEMS_KEPT: usize = 2000;

/// The data of one page: entries, operations, violations.
#[derive(Debug, Default)]
pub struct Timeline {
    title: String,
    entries: VecDeque<Value>,
    operations: VecDeque<Value>,
    violations: VecDeque<Value>,
    /// Whether every entry had a time (`at`): the axis is milliseconds, else entry indices.
    timed: bool,
    seen: usize,
}

impl Timeline {
    /// An empty timeline under `title`.
    pub fn new(title: impl Into<String>) -> Timeline {
        Timeline { title: title.into(), timed: true, ..Timeline::default() }
    }

    /// The entry of index `index`.
    pub fn entry(&mut self, index: usize, line: &Line) {
        let (from, at) = match line {
            Line::Message(e) => (e.from, None),
            Line::Http(h) => (h.from, h.at),
        };
        self.timed &= at.is_some();
        self.seen += 1;
        push_bounded(
            &mut self.entries,
            json!({"index": index, "from": side(from), "at": at, "label": label(line), "line": line_json(line)}),
            ENTRIES_KEPT,
        );
    }

    /// A finished multi-round operation.
    pub fn operation(&mut self, op: &Operation) {
        let item = json!({"method": op.method, "target": op.target, "rounds": op.rounds,
            "started": op.started, "finished": op.finished, "spans": op.spans});
        push_bounded(&mut self.operations, item, ITEMS_KEPT);
    }

    /// A violation at entry `index`, sent from `from` (when known).
    pub fn violation(&mut self, rule: &str, index: usize, from: Option<Side>, message: &str) {
        let item = json!({"rule": rule, "index": index, "from": from.map(side), "message": message});
        push_bounded(&mut self.violations, item, ITEMS_KEPT);
    }

    /// [`Timeline::violation`] of the checker's.
    pub fn checked(&mut self, v: &Violation, from: Option<Side>) {
        self.violation(v.rule.name(), v.index, from, &v.message);
    }

    /// The page's data, as `state.json` serves it.
    pub fn to_json(&self) -> Value {
        let timed = self.timed && self.seen > 0;
        json!({"title": self.title, "clock": if timed { "ms" } else { "entry" },
            "entries": self.entries, "operations": self.operations, "violations": self.violations})
    }
}

fn push_bounded(queue: &mut VecDeque<Value>, item: Value, kept: usize) {
    if queue.len() >= kept {
        queue.pop_front();
    }
    queue.push_back(item);
}

fn side(from: Side) -> &'static str {
    match from {
        Side::Client => "client",
        Side::Server => "server",
    }
}

/// A line as the transcript format writes it.
fn line_json(line: &Line) -> Value {
    match line {
        Line::Message(e) => json!({"from": side(e.from), "message": e.message, "stream": e.stream}),
        Line::Http(h) => json!({"from": side(h.from), "at": h.at, "http": http_json(h)}),
    }
}

fn http_json(h: &HttpEntry) -> Value {
    let mut http = Map::new();
    http.insert("exchange".into(), h.exchange.clone().into());
    for (name, value) in [("method", &h.method), ("url", &h.url)] {
        if let Some(value) = value {
            http.insert(name.into(), value.clone().into());
        }
    }
    if let Some(status) = h.status {
        http.insert("status".into(), status.into());
    }
    let headers: Map<String, Value> = h.headers.iter().map(|(n, v)| (n.clone(), v.clone().into())).collect();
    http.insert("headers".into(), headers.into());
    if let Some(body) = &h.body {
        http.insert("body".into(), body.clone());
    }
    if !h.events.is_empty() {
        let blocks = h.events.iter().map(|b| json!({"event": b.event, "id": b.id, "retry": b.retry, "data": b.data}));
        http.insert("events".into(), blocks.collect());
    }
    if h.end {
        http.insert("end".into(), true.into());
    }
    http.into()
}

/// A short name for an entry: what it carries.
fn label(line: &Line) -> String {
    match line {
        Line::Message(e) => message_label(&e.message),
        Line::Http(h) => {
            let carried: Vec<String> =
                h.body.iter().chain(h.events.iter().filter_map(|b| b.data.as_ref())).map(message_label).collect();
            let head = match (&h.method, h.status) {
                (Some(method), _) => method.clone(),
                (None, Some(status)) => status.to_string(),
                (None, None) if carried.is_empty() && h.end => "end".into(),
                (None, None) => "event".into(),
            };
            [head].into_iter().chain(carried).collect::<Vec<_>>().join(" ")
        }
    }
}

fn message_label(message: &Value) -> String {
    if let Value::Array(batch) = message {
        return format!("batch of {}", batch.len());
    }
    let id = message.get("id").map(|id| format!(" #{id}")).unwrap_or_default();
    match (message.get("method").and_then(Value::as_str), message.get("result"), message.get("error")) {
        (Some(method), _, _) => format!("{method}{id}"),
        (None, Some(result), _) => {
            let kind = result.get("resultType").and_then(Value::as_str).unwrap_or("result");
            format!("{kind}{id}")
        }
        (None, None, Some(error)) => format!("error {}{id}", error.get("code").unwrap_or(&Value::Null)),
        _ => "message".into(),
    }
}

/// The page: `data` inline (as [`Timeline::to_json`] gives it); with
/// `live`, the page also fetches `state.json` beside it every second.
pub fn html(data: &Value, live: bool) -> String {
    // Inside <script>, "</" would end the element: JSON allows "<\/".
    let data = data.to_string().replace("</", "<\\/");
    let title = data_title(&data);
    PAGE.replace("{{TITLE}}", &title)
        .replace("{{LIVE}}", if live { "true" } else { "false" })
        .replace("{{DATA}}", &data)
}

/// The title, escaped for HTML text.
fn data_title(data: &str) -> String {
    let title = serde_json::from_str::<Value>(data).ok().and_then(|v| v["title"].as_str().map(String::from));
    let title = title.unwrap_or_default();
    title.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

const PAGE: &str = include_str!("page.html");

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr::check::Entry;

    #[test]
    fn the_data_is_inline_and_cannot_end_its_script() {
        let mut timeline = Timeline::new("a <b> & c");
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "</script><x>"}});
        timeline.entry(0, &Line::Message(Entry { from: Side::Client, message, stream: None }));
        let page = html(&timeline.to_json(), false);
        assert_eq!(page.matches("</script>").count(), page.matches("<script").count(), "one end per script");
        assert!(page.contains("<title>mrtr: a &lt;b&gt; &amp; c</title>"));
        assert!(!page.contains("http://") && !page.contains("https://"), "no network access");
        let data = timeline.to_json();
        assert_eq!(data["clock"], "entry", "message entries have no time");
        assert_eq!(data["entries"][0]["label"], "tools/call #1");
    }
}
