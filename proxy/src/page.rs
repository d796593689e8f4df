//! Something to look at: a conversation as one self-contained HTML page
//! (no network access: its style, script and data are inline). One row per
//! multi-round operation, its rounds laid out on a time axis (a bar from
//! each round's request to its answer), each violation a marker where it
//! happened, and a click on either shows the entries behind it.
//!
//! The same page serves `mrtr check --html` (the data inline) and the
//! proxy's `--ui` (the page polls `state.json`). [`Timeline`] gathers the
//! data; [`html`] writes the page.
//!
//! # The page is inert to what it shows
//!
//! The data sits in a `<script type="application/json">` element, every
//! `<`, `>`, `&`, U+2028 and U+2029 in it escaped (`\u003c`…), so nothing
//! in traffic can end or re-open that element. The template is filled in
//! one pass (no value is ever scanned for a placeholder), the title is set
//! from the data with `textContent`, and the page carries its own Content
//! Security Policy (a `<meta>`), which allows only its own script and style
//! by their SHA-256: a page opened from disk is protected as well as the
//! one `--ui` serves.

use base64::{engine::general_purpose::STANDARD, Engine};
use mrtr::check::{HttpEntry, Line, Operation, Side, Violation};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
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

/// JSON text made safe inside a `<script>` element: every `<`, `>`, `&`,
/// U+2028 and U+2029 written as a `\u` escape. Those characters can only
/// be inside strings in JSON, where the escape means the same, so the
/// text stays valid JSON of the same value; and with no `<` left, nothing
/// (`</script>`, `<!--<script>`) can end or re-open the element.
fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The page: `data` inline (as [`Timeline::to_json`] gives it); with
/// `live`, the page also fetches `state.json` beside it every second.
pub fn html(data: &Value, live: bool) -> String {
    let policy = content_security_policy(live);
    fill(PAGE, &[("CSP", &policy), ("LIVE", live_value(live)), ("DATA", &script_safe(&data.to_string()))])
}

/// The page's Content Security Policy: nothing but its own script and
/// style (by their SHA-256) and, when `live`, fetching from where it came.
/// The page carries it in a `<meta>`; a server of the page can send it as
/// a header too.
pub fn content_security_policy(live: bool) -> String {
    let script = fill(element_text(PAGE, "<script>", "</script>"), &[("LIVE", live_value(live))]);
    let style = element_text(PAGE, "<style>", "</style>");
    let connect = if live { " connect-src 'self';" } else { "" };
    format!(
        "default-src 'none'; script-src 'sha256-{}'; style-src 'sha256-{}';{connect} base-uri 'none'; form-action 'none'",
        sha256_base64(&script),
        sha256_base64(style)
    )
}

fn live_value(live: bool) -> &'static str {
    if live {
        "true"
    } else {
        "false"
    }
}

fn sha256_base64(text: &str) -> String {
    STANDARD.encode(Sha256::digest(text.as_bytes()))
}

/// The text of the first element of `page` that opens exactly with `open`
/// (`<script>`: the code, as the data's element has attributes), up to
/// `close`.
fn element_text<'a>(page: &'a str, open: &str, close: &str) -> &'a str {
    let Some(start) = page.find(open).map(|i| i + open.len()) else { return "" };
    let end = page[start..].find(close).map_or(page.len(), |i| start + i);
    &page[start..end]
}

/// `template` with each `{{NAME}}` of `values` replaced by its value, in
/// one pass: a value is written as it is, never scanned for placeholders
/// (a title or a message holding `{{DATA}}` stays that text). Anything
/// else between braces is left as it is.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let value = after.find("}}").and_then(|close| {
            let (_, value) = values.iter().find(|(name, _)| *name == &after[..close])?;
            Some((close, *value))
        });
        match value {
            Some((close, value)) => {
                out.push_str(value);
                rest = &after[close + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

const PAGE: &str = include_str!("page.html");

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr::check::Entry;

    fn call(argument: &str) -> Line {
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "t", "arguments": {"q": argument}}});
        Line::Message(Entry { from: Side::Client, message, stream: None })
    }

    /// The text of the page's data element.
    fn data_of(page: &str) -> &str {
        element_text(page, r#"<script type="application/json" id="data">"#, "</script>")
    }

    /// The page with its data element emptied: all that is HTML.
    fn without_data(page: &str) -> String {
        page.replacen(data_of(page), "", 1)
    }

    #[test]
    fn the_data_is_inline_and_cannot_end_its_script() {
        let mut timeline = Timeline::new("a <b> & c");
        for argument in ["</script><x>", "<!--<script>", "a\u{2028}b\u{2029}c", "</SCRIPT ><!-- & -->"] {
            timeline.entry(0, &call(argument));
        }
        let page = html(&timeline.to_json(), false);
        assert_eq!(page.matches("</script>").count(), page.matches("<script").count(), "one end per script");
        let data = data_of(&page);
        for bad in ['<', '>', '&', '\u{2028}', '\u{2029}'] {
            assert!(!data.contains(bad), "{bad:?} escaped in {data}");
        }
        let data: Value = serde_json::from_str(data).unwrap();
        assert_eq!(data["title"], "a <b> & c", "the same value, escaped");
        assert_eq!(data["entries"][1]["line"]["message"]["params"]["arguments"]["q"], "<!--<script>");
        assert_eq!(data["entries"][2]["line"]["message"]["params"]["arguments"]["q"], "a\u{2028}b\u{2029}c");
        assert!(!page.contains("http://") && !page.contains("https://"), "no network access");
        assert_eq!(data["clock"], "entry", "message entries have no time");
        assert_eq!(data["entries"][0]["label"], "tools/call #1");
    }

    /// `html` escapes data it is given as it is, not only a timeline's.
    #[test]
    fn any_data_is_made_safe_for_its_script() {
        let raw = "{\"s\":\"<!--<script></script>\u{2028}&\"}";
        let page = fill(PAGE, &[("DATA", &script_safe(raw))]);
        assert_eq!(data_of(&page), r#"{"s":"\u003c!--\u003cscript\u003e\u003c/script\u003e\u2028\u0026"}"#);
        assert_eq!(serde_json::from_str::<Value>(data_of(&page)).unwrap(), serde_json::from_str::<Value>(raw).unwrap());
    }

    /// Security review L7: a title holding every placeholder and markup is
    /// text in the data and nowhere else: the page's HTML is the same as
    /// under a plain title.
    #[test]
    fn a_title_is_inert_text() {
        let hostile = "{{TITLE}}{{LIVE}}{{DATA}}{{CSP}}<img src=x onerror=alert(1)>";
        let page = |title: &str| {
            let mut timeline = Timeline::new(title);
            timeline.entry(0, &call("<img src=x onerror=alert(2)>"));
            html(&timeline.to_json(), true)
        };
        let (hostile_page, plain_page) = (page(hostile), page("plain"));
        assert_eq!(without_data(&hostile_page), without_data(&plain_page));
        assert!(!hostile_page.contains("<img"), "{hostile_page}");
        let data: Value = serde_json::from_str(data_of(&hostile_page)).unwrap();
        assert_eq!(data["title"], hostile);
        assert!(!without_data(&plain_page).contains("{{"), "every placeholder filled");
        assert!(plain_page.contains("<title>mrtr</title>") && plain_page.contains(r#"<strong id="title"></strong>"#));
    }

    /// The page's own policy names the SHA-256 of the script and the style
    /// actually in it, live or not (the script differs by `LIVE`).
    #[test]
    fn the_policy_allows_the_page_script_and_style_by_their_hash() {
        for live in [false, true] {
            let page = html(&Timeline::new("t").to_json(), live);
            let meta =
                format!(r#"<meta http-equiv="Content-Security-Policy" content="{}">"#, content_security_policy(live));
            assert!(page.contains(&meta), "{page}");
            let script = element_text(&page, "<script>", "</script>");
            assert!(script.contains(&format!("const LIVE = {live};")));
            let style = element_text(&page, "<style>", "</style>");
            assert!(script.len() > 1000 && style.len() > 500);
            let policy = content_security_policy(live);
            assert!(policy.starts_with("default-src 'none'; "), "{policy}");
            assert!(policy.contains(&format!("script-src 'sha256-{}';", sha256_base64(script))), "{policy}");
            assert!(policy.contains(&format!("style-src 'sha256-{}';", sha256_base64(style))), "{policy}");
            assert_eq!(policy.contains("connect-src 'self'"), live);
            assert!(!policy.contains("unsafe"));
        }
    }

    #[test]
    fn fill_is_one_pass() {
        let filled = fill("a{{X}}b{{Y}}c{{Z}}{{", &[("X", "{{Y}}"), ("Y", "{{X}}")]);
        assert_eq!(filled, "a{{Y}}b{{X}}c{{Z}}{{");
    }
}
