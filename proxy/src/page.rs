//! Something to look at: a conversation as one self-contained HTML page
//! (no network access: its style, script and data are inline). One row per
//! multi-round operation, its rounds laid out on a time axis (a bar from
//! each round's request to its answer), each violation a marker where it
//! happened, each interop warning (`mrtr::check::Interop`, naming the client)
//! a paler one, and a click on any shows the entries behind it.
//!
//! The same page serves `mrtr check --html` (the data inline) and the
//! proxy's `--ui` (the page polls `state.json`). [`Timeline`] gathers the
//! data; [`html`] writes the page.
//!
//! # Memory
//!
//! Traffic is untrusted and a live timeline runs as long as the proxy, so
//! it keeps text, never trees, and a bounded amount of it. Each entry is its
//! compact JSON text, cut to [`SHOWN_BYTES`] (with a marker such as
//! `… 15.0 MiB, cut`); operations, violations and warnings are short texts
//! too. What a timeline holds is at most
//!
//! ```text
//! fixed + ENTRY_BYTES_KEPT + 3 × ITEM_BYTES_KEPT
//! ```
//!
//! where `fixed` is its title plus about 48 bytes of bookkeeping per kept
//! item (at most [`ENTRIES_KEPT`] entries and 2000 each of operations,
//! violations and warnings: under 400 KiB). With the defaults: about 22.4 MiB. An
//! entry's message is written once, through a counter that keeps only its
//! first [`SHOWN_BYTES`], so making an entry costs no more than that,
//! whatever the message's size; the page parses nothing. A [`Snapshot`] shares
//! the kept texts (no copy); its `state.json` is one string of about their
//! size, made outside any lock.
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
use mrtr::check::{HttpEntry, InteropWarning, Line, Operation, Side, Violation};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::VecDeque;
use std::io::Write;
use std::sync::Arc;

/// Entries a live timeline keeps (the latest): operations and violations
/// that point at older ones are still shown, without their messages.
pub const ENTRIES_KEPT: usize = 2000;

/// The bytes of text a timeline's entries keep, over all of them: the
/// oldest go first once the latest would pass it.
pub const ENTRY_BYTES_KEPT: usize = 16 << 20;

/// How much of an entry's compact text the page shows: a longer one is
/// cut there, with a marker saying how long it was.
pub const SHOWN_BYTES: usize = 8 << 10;

/// Operations and violations a live timeline keeps (the latest of each).
const ITEMS_KEPT: usize = 2000;

/// The bytes of text the operations keep, and the violations, and the warnings (each).
pub const ITEM_BYTES_KEPT: usize = 2 << 20;

/// How much of a short text (a label, an operation's name or target, a
/// violation's sentence) the page shows.
const SHORT_BYTES: usize = 1024;

/// The data of one page: entries, operations, violations, each as the JSON
/// text the page reads, within the bounds above.
#[derive(Debug)]
pub struct Timeline {
    title: Arc<str>,
    entries: Kept,
    operations: Kept,
    violations: Kept,
    warnings: Kept,
    /// Whether every entry had a time (`at`): the axis is milliseconds, else entry indices.
    timed: bool,
    seen: usize,
}

impl Timeline {
    /// An empty timeline under `title`.
    pub fn new(title: impl Into<String>) -> Timeline {
        Timeline {
            title: title.into().into(),
            entries: Kept::new(ENTRIES_KEPT, ENTRY_BYTES_KEPT),
            operations: Kept::new(ITEMS_KEPT, ITEM_BYTES_KEPT),
            violations: Kept::new(ITEMS_KEPT, ITEM_BYTES_KEPT),
            warnings: Kept::new(ITEMS_KEPT, ITEM_BYTES_KEPT),
            timed: true,
            seen: 0,
        }
    }

    /// The entry of index `index`.
    pub fn entry(&mut self, index: usize, line: &Line) {
        let at = match line {
            Line::Message(_) => None,
            Line::Http(h) => h.at,
        };
        self.entry_shown(index, at, Shown::of(line));
    }

    /// The entry of index `index` at time `at`, shown as `shown` (made
    /// beforehand, outside whatever lock orders the entries).
    pub fn entry_shown(&mut self, index: usize, at: Option<u64>, shown: Shown) {
        self.timed &= at.is_some();
        self.seen += 1;
        self.entries.push(shown.into_entry(index, at));
    }

    /// A finished multi-round operation.
    pub fn operation(&mut self, op: &Operation) {
        let target = op.target.as_deref().map(|t| cut(t, SHORT_BYTES));
        let item = json!({"method": cut(&op.method, SHORT_BYTES), "target": target, "rounds": op.rounds,
            "started": op.started, "finished": op.finished, "spans": op.spans});
        self.operations.push(script_safe(&item.to_string()).into());
    }

    /// A violation at entry `index`, sent from `from` (when known).
    pub fn violation(&mut self, rule: &str, index: usize, from: Option<Side>, message: &str) {
        let item = json!({"rule": cut(rule, SHORT_BYTES), "index": index, "from": from.map(side),
            "message": cut(message, SHORT_BYTES)});
        self.violations.push(script_safe(&item.to_string()).into());
    }

    /// [`Timeline::violation`] of the checker's.
    pub fn checked(&mut self, v: &Violation, from: Option<Side>) {
        self.violation(v.rule.name(), v.index, from, &v.message);
    }

    /// An interop warning of the checker's, with the client it names.
    pub fn warned(&mut self, w: &InteropWarning) {
        let client = w.client.as_deref().map(|c| cut(c, SHORT_BYTES));
        let item = json!({"warning": w.kind.name(), "index": w.index, "client": client,
            "message": cut(&w.message, SHORT_BYTES)});
        self.warnings.push(script_safe(&item.to_string()).into());
    }

    /// What is kept now, sharing its texts: cheap to take under a lock,
    /// to be written out after it.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            title: self.title.clone(),
            timed: self.timed && self.seen > 0,
            entries: self.entries.texts.iter().cloned().collect(),
            operations: self.operations.texts.iter().cloned().collect(),
            violations: self.violations.texts.iter().cloned().collect(),
            warnings: self.warnings.texts.iter().cloned().collect(),
        }
    }

    /// The page's data, as `state.json` serves it.
    pub fn to_json(&self) -> String {
        self.snapshot().to_json(None)
    }
}

/// A timeline's texts at one moment (see [`Timeline::snapshot`]).
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    title: Arc<str>,
    timed: bool,
    entries: Vec<Arc<str>>,
    operations: Vec<Arc<str>>,
    violations: Vec<Arc<str>>,
    warnings: Vec<Arc<str>>,
}

impl Snapshot {
    /// The page's data (`state.json`): title, clock, entries, operations,
    /// violations, warnings, and `links` to other pages when given. Safe inside a
    /// `<script>` as it is.
    pub fn to_json(&self, links: Option<&Value>) -> String {
        let mut out = String::with_capacity(self.kept_bytes() + 256);
        let title = script_safe(&Value::from(&*self.title).to_string());
        let clock = if self.timed { "ms" } else { "entry" };
        out.push_str(&format!(r#"{{"title":{title},"clock":"{clock}""#));
        let lists = [
            ("entries", &self.entries),
            ("operations", &self.operations),
            ("violations", &self.violations),
            ("warnings", &self.warnings),
        ];
        for (name, texts) in lists {
            out.push_str(&format!(r#","{name}":["#));
            for (i, text) in texts.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(text);
            }
            out.push(']');
        }
        if let Some(links) = links {
            out.push_str(&format!(r#","links":{}"#, script_safe(&links.to_string())));
        }
        out.push('}');
        out
    }

    /// The bytes of the texts it shares: what the timeline keeps, within
    /// `ENTRY_BYTES_KEPT + 3 × ITEM_BYTES_KEPT`.
    pub fn kept_bytes(&self) -> usize {
        let lists = [&self.entries, &self.operations, &self.violations, &self.warnings];
        lists.iter().flat_map(|t| t.iter()).map(|t| t.len()).sum()
    }
}

/// Texts kept newest last, the oldest dropped while there are more than
/// `max_items` or they hold more than `max_bytes`.
#[derive(Debug)]
struct Kept {
    texts: VecDeque<Arc<str>>,
    bytes: usize,
    max_items: usize,
    max_bytes: usize,
}

impl Kept {
    fn new(max_items: usize, max_bytes: usize) -> Kept {
        Kept { texts: VecDeque::new(), bytes: 0, max_items, max_bytes }
    }

    fn push(&mut self, text: Arc<str>) {
        self.bytes += text.len();
        self.texts.push_back(text);
        while self.texts.len() > self.max_items || self.bytes > self.max_bytes {
            let Some(oldest) = self.texts.pop_front() else { break };
            self.bytes -= oldest.len();
        }
    }
}

/// An entry as the page shows it, before its index and time are known:
/// who sent it, a label, and its compact text cut to [`SHOWN_BYTES`]
/// (for an HTTP entry, the text of its `http` object: its time goes
/// before it once known).
#[derive(Debug)]
pub struct Shown {
    from: Side,
    http: bool,
    label: String,
    text: Prefix,
}

impl Shown {
    /// `line`, shown: its message text is written once, through a counter
    /// that keeps only [`SHOWN_BYTES`] of it.
    pub fn of(line: &Line) -> Shown {
        let mut text = Prefix::new(SHOWN_BYTES);
        let (from, http) = match line {
            Line::Message(e) => {
                text.raw(format!(r#"{{"from":"{}","message":"#, side(e.from)).as_bytes());
                text.value(&e.message);
                text.raw(br#","stream":"#);
                text.value(&e.stream.as_deref().map_or(Value::Null, Value::from));
                text.raw(b"}");
                (e.from, false)
            }
            Line::Http(h) => {
                write_http(&mut text, h);
                (h.from, true)
            }
        };
        Shown { from, http, label: cut(&label(line), SHORT_BYTES), text }
    }

    /// The entry's JSON text: `{"index","from","at","label","line"}`, its
    /// `line` the transcript line (an object), or, when that was longer
    /// than [`SHOWN_BYTES`], a string of its start and a marker.
    fn into_entry(self, index: usize, at: Option<u64>) -> Arc<str> {
        let at = at.map_or_else(|| "null".to_string(), |at| at.to_string());
        let (head, tail) = if self.http {
            (format!(r#"{{"from":"{}","at":{at},"http":"#, side(self.from)), "}")
        } else {
            (String::new(), "")
        };
        let line = match self.text.whole() {
            Some(text) => format!("{head}{text}{tail}"),
            None => {
                let total = self.text.total + (head.len() + tail.len()) as u64;
                let start = format!("{head}{}… {}, cut", self.text.start(), size(total));
                Value::from(start).to_string()
            }
        };
        let label = Value::from(self.label);
        let entry =
            format!(r#"{{"index":{index},"from":"{}","at":{at},"label":{label},"line":{line}}}"#, side(self.from));
        script_safe(&entry).into()
    }
}

/// The `http` object of a transcript line, as the page has always shown
/// it (every field the entry has, `headers` always).
fn write_http(out: &mut Prefix, h: &HttpEntry) {
    out.raw(br#"{"exchange":"#);
    out.string(&h.exchange);
    for (name, value) in [("method", &h.method), ("url", &h.url)] {
        if let Some(value) = value {
            out.raw(format!(r#","{name}":"#).as_bytes());
            out.string(value);
        }
    }
    if let Some(status) = h.status {
        out.raw(format!(r#","status":{status}"#).as_bytes());
    }
    out.raw(br#","headers":{"#);
    for (i, (name, value)) in h.headers.iter().enumerate() {
        out.raw(if i > 0 { b"," } else { b"" });
        out.string(name);
        out.raw(b":");
        out.string(value);
    }
    out.raw(b"}");
    if let Some(body) = &h.body {
        out.raw(br#","body":"#);
        out.value(body);
    }
    if let Some(unparsed) = &h.unparsed {
        out.raw(br#","text":"#);
        raw_string(out, &unparsed.bytes);
    }
    if !h.events.is_empty() {
        out.raw(br#","events":["#);
        for (i, b) in h.events.iter().enumerate() {
            out.raw(if i > 0 { b"," } else { b"" });
            let retry = b.retry.map_or(Value::Null, Value::from);
            let fields = [("event", b.event.as_deref()), ("id", b.id.as_deref())];
            out.raw(b"{");
            for (name, value) in fields {
                out.raw(format!(r#""{name}":"#).as_bytes());
                out.value(&value.map_or(Value::Null, Value::from));
                out.raw(b",");
            }
            out.raw(format!(r#""retry":{retry},"data":"#).as_bytes());
            out.value(b.data.as_ref().unwrap_or(&Value::Null));
            if let Some(unparsed) = &b.unparsed {
                out.raw(br#","text":"#);
                raw_string(out, &unparsed.bytes);
            }
            out.raw(b"}");
        }
        out.raw(b"]");
    }
    if h.end {
        out.raw(br#","end":true"#);
    }
    out.raw(b"}");
}

/// Bytes that are no JSON value, as the page shows them: a JSON string of
/// their text. UTF-8 goes through `out` as it is (no copy); other bytes are
/// shown replaced (U+FFFD), only their first [`SHOWN_BYTES`] and their size
/// past it, so that showing them costs no more than that either.
fn raw_string(out: &mut Prefix, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => out.string(text),
        Err(_) => {
            let start = &bytes[..bytes.len().min(SHOWN_BYTES)];
            let mut text = String::from_utf8_lossy(start).into_owned();
            if start.len() < bytes.len() {
                text.push_str(&format!("… {}, cut", size(bytes.len() as u64)));
            }
            out.string(&text);
        }
    }
}

/// Text written to it: the first `limit` bytes kept, all of them counted.
/// A message of any size is written through it in the space of `limit`.
#[derive(Debug)]
struct Prefix {
    kept: Vec<u8>,
    limit: usize,
    total: u64,
}

impl Prefix {
    fn new(limit: usize) -> Prefix {
        Prefix { kept: Vec::new(), limit, total: 0 }
    }

    fn raw(&mut self, bytes: &[u8]) {
        let room = self.limit.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..room.min(bytes.len())]);
        self.total += bytes.len() as u64;
    }

    fn value(&mut self, value: &Value) {
        // Writing to a `Prefix` cannot fail, nor can serializing a `Value`.
        let _ = serde_json::to_writer(&mut *self, value);
    }

    fn string(&mut self, text: &str) {
        let _ = serde_json::to_writer(&mut *self, text);
    }

    /// All that was written, if it fit.
    fn whole(&self) -> Option<&str> {
        let fit = self.total <= self.kept.len() as u64;
        fit.then(|| std::str::from_utf8(&self.kept).ok()).flatten()
    }

    /// What was kept, up to its last whole character.
    fn start(&self) -> &str {
        match std::str::from_utf8(&self.kept) {
            Ok(text) => text,
            Err(e) => std::str::from_utf8(&self.kept[..e.valid_up_to()]).unwrap_or_default(),
        }
    }
}

impl Write for Prefix {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.raw(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `text`, or its first `max` bytes (whole characters) and a marker.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… {}, cut", &text[..end], size(text.len() as u64))
}

/// A size for people: `512 B`, `8.0 KiB`, `15.0 MiB`.
fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1 << 10 => format!("{b} B"),
        b if b < 1 << 20 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
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

fn side(from: Side) -> &'static str {
    match from {
        Side::Client => "client",
        Side::Server => "server",
    }
}

/// A short name for an entry: what it carries.
fn label(line: &Line) -> String {
    match line {
        Line::Message(e) => message_label(&e.message),
        Line::Http(h) => {
            let unparsed = h.unparsed.iter().chain(h.events.iter().filter_map(|b| b.unparsed.as_ref()));
            let carried: Vec<String> = h
                .body
                .iter()
                .chain(h.events.iter().filter_map(|b| b.data.as_ref()))
                .map(message_label)
                .chain(unparsed.map(|_| "not JSON".to_string()))
                .collect();
            let head = match (&h.method, h.status) {
                (Some(method), _) => cut(method, SHORT_BYTES),
                (None, Some(status)) => status.to_string(),
                (None, None) if carried.is_empty() && h.end => "end".into(),
                (None, None) => "event".into(),
            };
            [head].into_iter().chain(carried).collect::<Vec<_>>().join(" ")
        }
    }
}

/// A message's name: its method (or result kind, or error code) and id,
/// each cut short, whatever their size.
fn message_label(message: &Value) -> String {
    if let Value::Array(batch) = message {
        return format!("batch of {}", batch.len());
    }
    let id = message.get("id").map(|id| format!(" #{}", short_json(id))).unwrap_or_default();
    match (message.get("method").and_then(Value::as_str), message.get("result"), message.get("error")) {
        (Some(method), _, _) => format!("{}{id}", cut(method, SHORT_BYTES)),
        (None, Some(result), _) => {
            let kind = result.get("resultType").and_then(Value::as_str).unwrap_or("result");
            format!("{}{id}", cut(kind, SHORT_BYTES))
        }
        (None, None, Some(error)) => format!("error {}{id}", short_json(error.get("code").unwrap_or(&Value::Null))),
        _ => "message".into(),
    }
}

/// A value's compact text, cut to [`SHORT_BYTES`] (written through a
/// [`Prefix`], so a large one costs no more).
fn short_json(value: &Value) -> String {
    let mut text = Prefix::new(SHORT_BYTES);
    text.value(value);
    match text.whole() {
        Some(whole) => whole.to_string(),
        None => format!("{}… {}, cut", text.start(), size(text.total)),
    }
}

/// The page: `data` inline (the JSON text [`Timeline::to_json`] or
/// [`Snapshot::to_json`] gives); with `live`, the page also fetches
/// `state.json` beside it every second.
pub fn html(data: &str, live: bool) -> String {
    let policy = content_security_policy(live);
    fill(PAGE, &[("CSP", &policy), ("LIVE", live_value(live)), ("DATA", &script_safe(data))])
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
        let page = html(raw, false);
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

    /// Security review N6: whatever the traffic, a timeline keeps text
    /// within its budget, each large entry cut with a marker.
    #[test]
    fn a_timeline_keeps_bounded_text() {
        let mut timeline = Timeline::new("t");
        let big = "x".repeat(2 << 20);
        for index in 0..20 {
            timeline.entry(index, &call(&big));
        }
        let snapshot = timeline.snapshot();
        assert_eq!(snapshot.entries.len(), 20);
        assert!(snapshot.kept_bytes() <= 20 * (SHOWN_BYTES + 512), "{}", snapshot.kept_bytes());
        let data: Value = serde_json::from_str(&timeline.to_json()).unwrap();
        for entry in data["entries"].as_array().unwrap() {
            let line = entry["line"].as_str().expect("a cut line is a string");
            assert!(line.starts_with(r#"{"from":"client","message":{"jsonrpc":"2.0""#), "{line:.80}");
            assert!(line.ends_with("… 2.0 MiB, cut"), "{}", &line[line.len() - 40..]);
            assert_eq!(entry["label"], "tools/call #1");
        }
        // Text that grows sixfold when escaped: the budget, not the count, binds.
        let angles = "<".repeat(SHOWN_BYTES - 100);
        for index in 20..1000 {
            timeline.entry(index, &call(&angles));
        }
        let snapshot = timeline.snapshot();
        assert!(snapshot.kept_bytes() <= ENTRY_BYTES_KEPT, "{}", snapshot.kept_bytes());
        assert!(snapshot.entries.len() < 980, "the oldest dropped: {}", snapshot.entries.len());
        assert!(timeline.to_json().len() <= ENTRY_BYTES_KEPT + 4096);
    }

    /// Small entries are the transcript lines the page always showed.
    #[test]
    fn a_small_entry_is_its_transcript_line() {
        let h = HttpEntry {
            from: Side::Server,
            at: Some(7),
            exchange: "3".into(),
            method: None,
            url: None,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            status: Some(200),
            events: vec![mrtr::check::Block {
                event: Some("message".into()),
                data: Some(json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
                id: None,
                retry: Some(5),
                unparsed: None,
            }],
            body: None,
            unparsed: None,
            end: true,
        };
        let mut timeline = Timeline::new("t");
        timeline.entry(4, &Line::Http(h));
        let data: Value = serde_json::from_str(&timeline.to_json()).unwrap();
        let line = json!({"from": "server", "at": 7, "http": {"exchange": "3", "status": 200,
            "headers": {"content-type": "text/event-stream"},
            "events": [{"event": "message", "id": null, "retry": 5, "data": {"jsonrpc": "2.0", "id": 1, "result": {}}}],
            "end": true}});
        assert_eq!(
            data["entries"][0],
            json!({"index": 4, "from": "server", "at": 7, "label": "200 result #1", "line": line})
        );
        assert_eq!(data["clock"], "ms");
    }

    /// Bytes that are no JSON value (what the checker flagged) are shown as
    /// their text: UTF-8 as it is, other bytes replaced, their start only
    /// past the shown bound, with their size.
    #[test]
    fn bytes_that_are_no_message_are_shown_as_text() {
        let limits = mrtr::Limits::default();
        let entry = |bytes: &[u8]| {
            Line::Http(HttpEntry {
                from: Side::Client,
                at: Some(1),
                exchange: "1".into(),
                method: Some("POST".into()),
                url: Some("http://h/mcp".into()),
                headers: Vec::new(),
                status: None,
                events: Vec::new(),
                body: None,
                unparsed: mrtr::check::Unparsed::parse(bytes, &limits).err(),
                end: false,
            })
        };
        let mut timeline = Timeline::new("t");
        timeline.entry(0, &entry(b"{\"id\": 1,"));
        let mut big = vec![0xff_u8];
        big.extend(std::iter::repeat_n(b'a', 3 * SHOWN_BYTES));
        timeline.entry(1, &entry(&big));
        let data: Value = serde_json::from_str(&timeline.to_json()).unwrap();
        assert_eq!(data["entries"][0]["label"], "POST not JSON");
        assert_eq!(data["entries"][0]["line"]["http"]["text"], "{\"id\": 1,");
        assert_eq!(data["entries"][1]["label"], "POST not JSON");
        let line = data["entries"][1]["line"].as_str().expect("cut");
        assert!(line.contains("\"text\":\"\u{fffd}aaa"), "{line:.200}");
        assert!(line.len() < 2 * SHOWN_BYTES, "{}", line.len());
    }

    #[test]
    fn fill_is_one_pass() {
        let filled = fill("a{{X}}b{{Y}}c{{Z}}{{", &[("X", "{{Y}}"), ("Y", "{{X}}")]);
        assert_eq!(filled, "a{{Y}}b{{X}}c{{Z}}{{");
    }
}
