//! The record as an HTTP Archive (HAR 1.2), the format browsers' developer
//! tools and other proxies export and `mrtr check` reads: one entry per
//! exchange, written when its response ends.
//!
//! The file is a valid HAR after every entry: it ends with the closing
//! `]}}`, which the next entry overwrites. Entries are written in the order
//! exchanges end. What an exchange holds until then is bounded: its content
//! up to the message bound, and all exchanges together up to
//! [`HELD_BYTES`]; past either, the rest of the content is left out and the
//! entry says so in its `comment`. An exchange the client left before its
//! end, or still open at shutdown, is written with what came, and says so.

use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::time::{Instant, SystemTime};

/// The bytes of content all open exchanges may hold together.
pub const HELD_BYTES: usize = 64 << 20;

/// Open exchanges held at most; past it the oldest is written as it is.
const OPEN_KEPT: usize = 4096;

/// What closes the file after the last entry.
const TAIL: &[u8] = b"]}}\n";

/// One exchange on its way into the HAR.
struct Pending {
    started: SystemTime,
    start: Instant,
    request: Value,
    /// Status, headers, media type, when the head came.
    response: Option<(u16, Value, String, Instant)>,
    content: Vec<u8>,
    /// Why content was left out.
    left_out: Option<&'static str>,
}

/// The HAR file being written.
pub(crate) struct HarLog {
    file: File,
    written: usize,
    open: BTreeMap<u64, Pending>,
    held: usize,
    per_exchange: usize,
}

impl HarLog {
    /// Starts the archive in `file` (truncated): an empty log.
    pub(crate) fn new(mut file: File, per_exchange: usize) -> std::io::Result<HarLog> {
        let creator = json!({"name": "mrtr proxy", "version": env!("CARGO_PKG_VERSION")});
        let head = format!(r#"{{"log":{{"version":"1.2","creator":{creator},"entries":["#);
        file.set_len(0)?;
        file.write_all(head.as_bytes())?;
        file.write_all(TAIL)?;
        Ok(HarLog { file, written: 0, open: BTreeMap::new(), held: 0, per_exchange })
    }

    /// A request went upstream: `headers` as an entry's header object.
    pub(crate) fn request(&mut self, exchange: &str, method: &str, url: &str, headers: &Value, body: &[u8]) {
        let Ok(key) = exchange.parse::<u64>() else { return };
        let mut request = json!({"method": method, "url": url, "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": har_headers(headers), "queryString": [], "headersSize": -1, "bodySize": body.len()});
        if !body.is_empty() {
            let mime = header(headers, "content-type").unwrap_or("application/octet-stream");
            request["postData"] = json!({"mimeType": mime});
            put_text(&mut request["postData"], body);
        }
        let pending = Pending {
            started: SystemTime::now(),
            start: Instant::now(),
            request,
            response: None,
            content: Vec::new(),
            left_out: None,
        };
        self.open.insert(key, pending);
        if self.open.len() > OPEN_KEPT {
            if let Some((oldest, _)) = self.open.first_key_value() {
                let oldest = *oldest;
                self.write(oldest, Some("still open when the proxy held too many exchanges"));
            }
        }
    }

    /// The response's head (and its whole body, when it was read).
    pub(crate) fn response(&mut self, exchange: &str, status: u16, headers: &Value, body: Option<&[u8]>) {
        let Some(pending) = exchange.parse().ok().and_then(|k: u64| self.open.get_mut(&k)) else { return };
        let mime = header(headers, "content-type").unwrap_or("").to_string();
        pending.response = Some((status, har_headers(headers), mime, Instant::now()));
        if let Some(body) = body {
            self.content(exchange, body);
        }
    }

    /// Bytes of the response body as they went by.
    pub(crate) fn content(&mut self, exchange: &str, bytes: &[u8]) {
        let Some(pending) = exchange.parse().ok().and_then(|k: u64| self.open.get_mut(&k)) else { return };
        if pending.left_out.is_some() {
            return;
        }
        if pending.content.len() + bytes.len() > self.per_exchange {
            pending.left_out = Some("content past the message bound left out");
        } else if self.held + bytes.len() > HELD_BYTES {
            pending.left_out = Some("content left out: the proxy held too much content at once");
        } else {
            pending.content.extend_from_slice(bytes);
            self.held += bytes.len();
        }
    }

    /// The response ended: the entry is written.
    pub(crate) fn end(&mut self, exchange: &str) {
        if let Ok(key) = exchange.parse() {
            self.write(key, None);
        }
    }

    /// The client left before the response ended.
    pub(crate) fn cut(&mut self, exchange: &str) {
        if let Ok(key) = exchange.parse() {
            self.write(key, Some("the client left before the response ended"));
        }
    }

    /// Shutdown: every exchange still open is written as it is.
    pub(crate) fn finish(&mut self) -> std::io::Result<()> {
        while let Some((&key, _)) = self.open.first_key_value() {
            self.write(key, Some("still open when the proxy stopped"));
        }
        self.file.flush()
    }

    fn write(&mut self, key: u64, why: Option<&'static str>) {
        let Some(pending) = self.open.remove(&key) else { return };
        self.held -= pending.content.len();
        let entry = entry(pending, why);
        if let Err(e) = self.append(&entry) {
            eprintln!("mrtr-proxy: cannot write the HAR file: {e}");
        }
    }

    /// Overwrites the closing `]}}` with the entry, then closes again.
    fn append(&mut self, entry: &Value) -> std::io::Result<()> {
        let back = i64::try_from(TAIL.len()).unwrap_or(0);
        self.file.seek(SeekFrom::End(-back))?;
        if self.written > 0 {
            self.file.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut self.file, entry)?;
        self.file.write_all(TAIL)?;
        self.written += 1;
        Ok(())
    }
}

/// The HAR entry of an exchange; `why`: how it ended early, if it did.
fn entry(pending: Pending, why: Option<&'static str>) -> Value {
    let now = Instant::now();
    let ms = |from: Instant, to: Instant| to.saturating_duration_since(from).as_secs_f64() * 1000.0;
    let (status, headers, mime, head_at) = pending.response.unwrap_or((0, json!([]), String::new(), now));
    let (wait, receive) = (ms(pending.start, head_at), ms(head_at, now));
    let started = time::OffsetDateTime::from(pending.started)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default();
    let mut entry = json!({
        "startedDateTime": started,
        "time": wait + receive,
        "request": pending.request,
        "response": {"status": status, "statusText": "", "httpVersion": "HTTP/1.1", "cookies": [], "headers": headers,
            "content": {"size": pending.content.len(), "mimeType": mime},
            "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {},
        "timings": {"send": 0, "wait": wait, "receive": receive},
    });
    put_text(&mut entry["response"]["content"], &pending.content);
    let comments: Vec<&str> = [why, pending.left_out].into_iter().flatten().collect();
    if !comments.is_empty() {
        entry["comment"] = Value::String(comments.join("; "));
    }
    entry
}

/// A body's bytes into a HAR `postData` or `content`: its `text`, or when
/// they are not UTF-8, their base64 with `"encoding": "base64"`, so that
/// bytes the proxy found are no message read back as the same bytes.
fn put_text(object: &mut Value, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) => object["text"] = Value::from(text),
        Err(_) => {
            use base64::{engine::general_purpose::STANDARD, Engine};
            object["text"] = Value::from(STANDARD.encode(bytes));
            object["encoding"] = Value::from("base64");
        }
    }
}

/// An entry's header object (name → value) as HAR's list of name/value pairs.
fn har_headers(headers: &Value) -> Value {
    let pairs = headers.as_object().map(Map::iter).into_iter().flatten();
    Value::Array(pairs.map(|(name, value)| json!({"name": name, "value": value})).collect())
}

fn header<'a>(headers: &'a Value, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(format!("mrtr-har-{name}-{}.har", std::process::id()))
    }

    fn read(path: &std::path::Path) -> Value {
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }

    /// The file is a HAR after every entry, and the entries come in the
    /// order their exchanges ended, with what each carried.
    #[test]
    fn the_file_is_a_valid_har_after_every_entry() {
        let path = temp("valid");
        let mut log = HarLog::new(File::create(&path).unwrap(), 1024).unwrap();
        assert_eq!(read(&path)["log"]["entries"], json!([]));
        let headers = json!({"content-type": "application/json"});
        log.request("1", "POST", "http://h/mcp", &headers, br#"{"id":1}"#);
        log.request("2", "GET", "http://h/mcp", &json!({}), b"");
        log.response("1", 200, &headers, Some(br#"{"result":{}}"#));
        log.end("1");
        let har = read(&path);
        assert_eq!(har["log"]["entries"].as_array().unwrap().len(), 1);
        let first = &har["log"]["entries"][0];
        assert_eq!(first["request"]["postData"]["text"], r#"{"id":1}"#);
        assert_eq!(first["response"]["content"]["text"], r#"{"result":{}}"#);
        assert_eq!(first["response"]["headers"], json!([{"name": "content-type", "value": "application/json"}]));
        log.response("2", 200, &json!({"content-type": "text/event-stream"}), None);
        log.content("2", b"data: {}\n\n");
        log.finish().unwrap();
        let har = read(&path);
        let _ = std::fs::remove_file(&path);
        let second = &har["log"]["entries"][1];
        assert_eq!(second["response"]["content"]["text"], "data: {}\n\n");
        assert_eq!(second["comment"], "still open when the proxy stopped");
        assert!(second.get("request").unwrap().get("postData").is_none());
    }

    /// Content past the bound is left out, and the entry says so.
    #[test]
    fn content_past_the_bound_is_left_out_and_said() {
        let path = temp("bound");
        let mut log = HarLog::new(File::create(&path).unwrap(), 8).unwrap();
        log.request("1", "POST", "http://h/mcp", &json!({}), b"{}");
        log.response("1", 200, &json!({"content-type": "text/event-stream"}), None);
        log.content("1", b"12345");
        log.content("1", b"67890");
        log.cut("1");
        let har = read(&path);
        let _ = std::fs::remove_file(&path);
        let entry = &har["log"]["entries"][0];
        assert_eq!(entry["response"]["content"]["text"], "12345");
        assert_eq!(
            entry["comment"],
            "the client left before the response ended; content past the message bound left out"
        );
        assert_eq!(log.held, 0);
    }
}
