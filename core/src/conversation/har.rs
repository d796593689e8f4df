//! Conversations recorded as HTTP Archives (HAR 1.2, as browsers and proxies
//! export them), turned into the checker's [`Entry`]s. Sans-IO: bytes in.
//!
//! Needs the feature `state`, the one that brings the `base64` crate, since
//! HAR bodies may be base64 (`content.encoding`).

use crate::{
    base::error::{err, Error},
    base::limits::Limits,
    base::rules::RuleId,
    conversation::check::{Block, Entry, HttpEntry, Line, Side, Unparsed},
    one_message::envelope::Id,
    read::sse,
};
use alloc::{format, string::String, vec, vec::Vec};
use base64::{engine::general_purpose::STANDARD, Engine};
use serde_json::Value;

/// Reads a HAR into the checker's entries, in the order of the HAR's entries.
///
/// - A request's body (`postData.text`: a JSON-RPC message, or an array, a
///   batch: one entry per element) gives client entries.
/// - A response whose content is `application/json` gives server entries; one
///   that is `text/event-stream` is decoded with [`sse::Decoder`], and each
///   event's `data` gives a server entry (data that is not JSON at all, such
///   as the empty data of a priming event, gives none).
///   A recorded stream is complete, so its last block counts even without
///   the closing blank line (a capture often stops right after the data).
/// - Server messages on the response of a POST carrying a request with id `N`
///   are on stream `post:N` (a response to another request of the same batch:
///   on that request's stream); on the response of a GET, on stream `get`.
/// - `encoding: "base64"` content is decoded first. Notifications, `202
///   Accepted` and other empty bodies give nothing; other media types are skipped.
///
/// Bodies are read under the core's bad-input rules ([`crate::parse`]), so a
/// bad body fails with that rule, as a bad line of [`crate::check::read_jsonl`]
/// does. The `usize` is the 1-based index of the HAR entry; a file that is no
/// HAR at all is `(0, usage-invalid-argument)`, and so is a malformed HAR
/// entry (with its index): the file is the caller's, not a peer's message.
pub fn read_har(bytes: &[u8], limits: &Limits) -> Result<Vec<(usize, Entry)>, (usize, Error)> {
    let lines = read(bytes, limits, false)?;
    // Without `keep`, every line is a message.
    Ok(lines
        .into_iter()
        .filter_map(|(n, line)| if let Line::Message(e) = line { Some((n, e)) } else { None })
        .collect())
}

/// [`read_har`], keeping what was checked: a body that is no JSON value (not
/// UTF-8, malformed, past a bound), an event's data that is none and a
/// stream the decoder refuses are not an error of the HAR but lines that
/// carry them ([`Unparsed`], in an HTTP entry of exchange `har:<N>`, `N` the
/// HAR entry), which the checker reports at their place, as the proxy did
/// live (`mrtr check` reads a HAR so). A malformed HAR entry is still
/// `usage-invalid-argument`.
pub fn read_har_lines(bytes: &[u8], limits: &Limits) -> Result<Vec<(usize, Line)>, (usize, Error)> {
    read(bytes, limits, true)
}

/// Reads the HAR; `keep`: bad bodies are lines ([`read_har_lines`]), else errors ([`read_har`]).
fn read(bytes: &[u8], limits: &Limits, keep: bool) -> Result<Vec<(usize, Line)>, (usize, Error)> {
    let har: Value =
        serde_json::from_slice(bytes).map_err(|e| (0, err!(UsageInvalidArgument, "not a HAR (JSON): {e}")))?;
    let entries = har
        .get("log")
        .and_then(|log| log.get("entries"))
        .and_then(Value::as_array)
        .ok_or((0, Error::new(RuleId::UsageInvalidArgument, "a HAR has \"log\": {\"entries\": […]}")))?;
    let mut out = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let mut reader = Reader { limits, keep, har_entry: i + 1, out: &mut out };
        reader.read_entry(entry).map_err(|e| (i + 1, e))?;
        for e in out.iter_mut().rev().take_while(|(n, _)| *n == 0) {
            e.0 = i + 1;
        }
    }
    Ok(out)
}

/// Reads one HAR entry into `out`, its lines numbered 0 (the caller numbers them).
struct Reader<'a> {
    limits: &'a Limits,
    /// Whether bad bodies are lines ([`read_har_lines`]) rather than errors.
    keep: bool,
    /// The HAR entry's index (1-based), which names its exchange.
    har_entry: usize,
    out: &'a mut Vec<(usize, Line)>,
}

impl Reader<'_> {
    /// The messages of a body, or (keeping) none and a line with the bytes.
    fn messages_or_kept(&mut self, body: &[u8], http: HttpEntry) -> Result<Vec<Value>, Error> {
        match messages(body, self.limits) {
            Ok(list) => Ok(list),
            Err(error) if self.keep => {
                let unparsed = Some(Unparsed { bytes: body.to_vec(), error });
                self.out.push((0, Line::Http(HttpEntry { unparsed, ..http })));
                Ok(Vec::new())
            }
            Err(e) => Err(e),
        }
    }

    /// An HTTP entry of this HAR entry's exchange, with nothing in it.
    fn http(&self, from: Side) -> HttpEntry {
        HttpEntry {
            from,
            at: None,
            exchange: format!("har:{}", self.har_entry),
            method: None,
            url: None,
            headers: Vec::new(),
            status: None,
            events: Vec::new(),
            body: None,
            unparsed: None,
            end: false,
        }
    }

    fn read_entry(&mut self, entry: &Value) -> Result<(), Error> {
        let invalid = |what: &'static str| Error::new(RuleId::UsageInvalidArgument, what);
        let request = entry.get("request").ok_or(invalid("a HAR entry has a \"request\""))?;
        let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
        // The ids of the requests this POST carries, in order.
        let mut ids = Vec::new();
        if let Some(post) = request.get("postData") {
            let body = body(post, "text")?;
            let url = request.get("url").and_then(Value::as_str).unwrap_or_default();
            let http = HttpEntry { method: Some(method.into()), url: Some(url.into()), ..self.http(Side::Client) };
            for message in self.messages_or_kept(&body, http)? {
                if message.get("method").is_some() {
                    if let Some(id) = message.get("id").filter(|id| !id.is_null()) {
                        ids.push(Id::text(id));
                    }
                }
                self.out.push((0, Line::Message(Entry { from: Side::Client, message, stream: None })));
            }
        }
        let stream_of = |message: &Value| -> Option<String> {
            if method.eq_ignore_ascii_case("GET") {
                return Some("get".into());
            }
            let own = message.get("id").filter(|_| message.get("method").is_none()).map(Id::text);
            let id = own.filter(|id| ids.contains(id)).or_else(|| ids.first().cloned())?;
            Some(format!("post:{id}"))
        };
        let Some(response) = entry.get("response") else { return Ok(()) };
        let Some(content) = response.get("content") else { return Ok(()) };
        let media = content
            .get("mimeType")
            .and_then(Value::as_str)
            .or_else(|| header(response, "content-type"))
            .unwrap_or_default();
        let media = media.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
        let server = |message: Value| {
            let stream = stream_of(&message);
            (0, Line::Message(Entry { from: Side::Server, message, stream }))
        };
        match media.as_str() {
            "application/json" => {
                let body = body(content, "text")?;
                let http = self.http(Side::Server);
                for message in self.messages_or_kept(&body, http)? {
                    self.out.push(server(message));
                }
            }
            "text/event-stream" => {
                let body = body(content, "text")?;
                let mut decoder = sse::Decoder::with_limits(self.limits);
                decoder.feed(&body);
                // A recorded stream may stop without its last blank line.
                decoder.feed(b"\n\n");
                decoder.finish();
                while let Some(event) = decoder.poll_event() {
                    let event = match event {
                        Ok(event) => event,
                        // A stream the decoder refuses: said where it is, as the proxy does.
                        Err(error) if self.keep => {
                            let line = HttpEntry {
                                unparsed: Some(Unparsed { bytes: Vec::new(), error }),
                                ..self.http(Side::Server)
                            };
                            self.out.push((0, Line::Http(line)));
                            continue;
                        }
                        Err(e) => return Err(e),
                    };
                    let Some(data) = event.data else { continue };
                    match messages(data.as_bytes(), self.limits) {
                        Ok(list) => self.out.extend(list.into_iter().map(server)),
                        // Data that is no JSON: the proxy reports it live.
                        Err(error) if self.keep => {
                            let block = Block {
                                event: event.event,
                                id: event.id,
                                unparsed: Some(Unparsed { bytes: data.into_bytes(), error }),
                                ..Block::default()
                            };
                            let line = HttpEntry { events: vec![block], ..self.http(Side::Server) };
                            self.out.push((0, Line::Http(line)));
                        }
                        Err(e) if e.rule() == RuleId::JsonrpcParseError => {}
                        Err(e) => return Err(e),
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// A body's bytes: `field` of `object`, decoded when `encoding` is `base64`.
fn body(object: &Value, field: &str) -> Result<Vec<u8>, Error> {
    let text = object.get(field).and_then(Value::as_str).unwrap_or_default();
    match object.get("encoding").and_then(Value::as_str) {
        Some(enc) if enc.eq_ignore_ascii_case("base64") => {
            let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
            STANDARD.decode(compact).map_err(|e| err!(UsageInvalidArgument, "a HAR body is not base64: {e}"))
        }
        _ => Ok(text.as_bytes().to_vec()),
    }
}

/// The messages of a JSON-RPC body: none when it is blank, the elements of a batch.
fn messages(body: &[u8], limits: &Limits) -> Result<Vec<Value>, Error> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    match crate::one_message::envelope::parse(body, limits)? {
        Value::Array(batch) => Ok(batch),
        message => Ok(vec![message]),
    }
}

/// The value of a header (names are case-insensitive).
fn header<'a>(message: &'a Value, name: &str) -> Option<&'a str> {
    message.get("headers")?.as_array()?.iter().find_map(|h| {
        let n = h.get("name")?.as_str()?;
        n.eq_ignore_ascii_case(name).then(|| h.get("value")?.as_str()).flatten()
    })
}

/// Whether `bytes` look like a HAR: a JSON object with a `log` key.
pub fn is_har(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes).is_ok_and(|v| v.get("log").is_some())
}
