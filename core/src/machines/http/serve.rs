//! The server side of the transports, sans-IO: what a server writes on a
//! response stream in each [`Mode`], and what an incoming HTTP request asks.
//!
//! A server that wants input writes its requests with [`ServerStream::ask`]:
//! - `2025-11-25`: the requests as events; the answers come one POST each.
//! - `sep-1858`: `buffer_input`, the requests, `input_required`, and the host
//!   closes the response; the answers come in one POST with `Last-Event-ID`,
//!   which [`read_request`] turns back into the continuation key.
//! - `sep-1335`: the requests and a `retry`, after a response head carrying
//!   the `rel="stream"` URL ([`ServerStream::head`], [`stream_url`]), and the
//!   host closes the response; a reconnect to that URL while the server waits
//!   is answered `204 No Content` ([`WAITING`]); the answers come as a JSON
//!   array POSTed to that URL, whose key [`read_request`] returns.
//!
//! The continuation key is the host's: it names the call's state in the
//! host's own store (an event id here is `<key>.<n>`, a stream URL carries
//! `?stream=<key>`), so any instance can take the call up.

use super::{header, Answering, Asking, Continuation, Headers, Mode};
use crate::{
    base::error::{err, Error},
    base::limits::Limits,
    base::protocol::Protocol,
    one_message::envelope::{self, Kind},
    read::sse,
};
use alloc::{
    format,
    string::{String, ToString},
    vec::Vec,
};
use serde_json::Value;

/// The status that answers a reconnect to a stream URL while the server
/// waits for the client's answers (SEP-1335): `204 No Content`.
pub const WAITING: u16 = 204;

/// The query parameter of a stream URL that carries the continuation key.
const STREAM_PARAM: &str = "stream";

/// Whether `key` can name a continuation: 1 to 128 characters among RFC
/// 3986's unreserved ones (letters, digits, `-`, `.`, `_`, `~`), so that it
/// travels unchanged in a URL query and in an event id.
fn valid_key(key: &str) -> bool {
    (1..=128).contains(&key.len()) && key.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

fn check_key(key: &str) -> Result<(), Error> {
    if valid_key(key) {
        Ok(())
    } else {
        Err(err!(UsageInvalidArgument, "a continuation key is 1 to 128 of A-Z a-z 0-9 - . _ ~"))
    }
}

/// The `rel="stream"` URL of a continuation: the endpoint with `stream=<key>`
/// added to its query.
pub fn stream_url(endpoint: &str, key: &str) -> Result<String, Error> {
    check_key(key)?;
    if super::link::normal(endpoint).is_none() || endpoint.contains('#') {
        return Err(err!(UsageInvalidArgument, "the endpoint {endpoint:?} is no absolute URL without fragment"));
    }
    let join = if endpoint.contains('?') { '&' } else { '?' };
    Ok(format!("{endpoint}{join}{STREAM_PARAM}={key}"))
}

/// The continuation key of a stream URL, if it is one.
pub fn stream_key(url: &str) -> Option<String> {
    let query = fluent_uri::Uri::parse(url).ok()?.query()?.as_str();
    let key = query.split('&').find_map(|pair| pair.strip_prefix(STREAM_PARAM)?.strip_prefix('='))?;
    valid_key(key).then(|| String::from(key))
}

/// The continuation key an event id names (`<key>.<n>`): `None` unless the
/// key is one this module writes (1 to 128 unreserved characters) and `n`
/// a number. `Last-Event-ID` is the client's to send: a key read from it
/// names the host's store, so it must not be `../../etc/passwd` or 4000
/// characters (security review L5).
pub fn event_key(event_id: &str) -> Option<&str> {
    let (key, n) = event_id.rsplit_once('.')?;
    let numbered = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    (numbered && valid_key(key)).then_some(key)
}

/// A response stream being written: event ids numbered under the call's
/// continuation key, and each mode's sequence.
#[derive(Debug)]
pub struct ServerStream {
    mode: Mode,
    key: String,
    next: u64,
    out: String,
    /// `input_required` was written: the stream must end (SEP-1858).
    closed: bool,
}

impl ServerStream {
    /// A stream for the call whose continuation key is `key`; its first event
    /// id is `<key>.<first>` (a continuation starts after the ids already used,
    /// so that `Last-Event-ID` stays unambiguous).
    pub fn new(mode: Mode, key: &str, first: u64) -> Result<ServerStream, Error> {
        check_key(key)?;
        Ok(ServerStream { mode, key: key.into(), next: first, out: String::new(), closed: false })
    }

    /// The response head: `200` with `text/event-stream`, and under SEP-1335
    /// the `Link` to `stream_url` (see [`stream_url`]).
    pub fn head(&self, stream_url: Option<&str>) -> Headers {
        let mut headers: Headers = Vec::from([
            ("content-type".into(), "text/event-stream".into()),
            ("cache-control".into(), "no-cache".into()),
        ]);
        if let (true, Some(url)) = (self.mode.rules().stream_url, stream_url) {
            headers.push(("link".into(), format!("<{url}>; rel=\"stream\"")));
        }
        headers
    }

    /// The id the next event takes.
    pub fn next_id(&self) -> String {
        format!("{}.{}", self.key, self.next)
    }

    /// Writes one JSON-RPC message as an event; returns its id.
    pub fn message(&mut self, message: &Value) -> Result<String, Error> {
        self.block(None, Some(message.to_string()), None)
    }

    /// Writes a `retry` field (in its own block, with an id so that a client
    /// can resume from it).
    pub fn retry(&mut self, ms: u64) -> Result<String, Error> {
        self.block(None, None, Some(ms))
    }

    /// Writes the mode's sequence asking the client for input: each of
    /// `requests` (JSON-RPC requests), wrapped in `buffer_input` …
    /// `input_required` under SEP-1858, followed by `retry: retry_ms` under
    /// SEP-1335. After it, a SEP-1858 or SEP-1335 server ends the response.
    /// Returns the id of the last event written.
    pub fn ask(&mut self, requests: &[Value], retry_ms: u64) -> Result<String, Error> {
        if self.mode.rules().asking == Asking::InResults {
            return Err(err!(
                UsageInvalidArgument,
                "a 2026-07-28 server asks inside results (input_required), not on a stream"
            ));
        }
        let answering = self.mode.rules().answering;
        if answering == Answering::UntilInputRequired {
            self.block(Some("buffer_input"), None, None)?;
        }
        let mut last = String::new();
        for request in requests {
            last = self.message(request)?;
        }
        match answering {
            Answering::UntilInputRequired => {
                last = self.block(Some("input_required"), None, None)?;
                self.closed = true;
            }
            Answering::UntilStreamEnds => last = self.retry(retry_ms)?,
            Answering::EachPosted | Answering::Retry => {}
        }
        Ok(last)
    }

    /// Takes the bytes written so far.
    pub fn take(&mut self) -> String {
        core::mem::take(&mut self.out)
    }

    fn block(&mut self, event: Option<&str>, data: Option<String>, retry: Option<u64>) -> Result<String, Error> {
        if self.closed {
            return Err(err!(UsageOutOfTurn, "nothing follows input_required on a SEP-1858 stream"));
        }
        let id = self.next_id();
        let block = sse::Event { event: event.map(String::from), data, id: Some(id.clone()), retry };
        sse::encode(&block, &mut self.out)?;
        self.next += 1;
        Ok(id)
    }
}

/// What an incoming HTTP request to an MCP endpoint (or to a stream URL) asks.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming {
    /// A JSON-RPC request: a new call (or an MRTR retry, which is one too).
    Call(Value),
    /// Notifications or responses outside any continuation (a `2025-11-25`
    /// answer POSTed on its own): `202 Accepted`.
    Messages(Vec<Value>),
    /// Buffered answers of a continuation (SEP-1858: a JSON array with
    /// `Last-Event-ID`; SEP-1335: a JSON array POSTed to the stream URL): the
    /// host looks `key` up in its store, feeds the answers, and answers this
    /// POST with the continued stream.
    Answers {
        /// The continuation key.
        key: String,
        /// The JSON-RPC responses, in order.
        responses: Vec<Value>,
    },
    /// A GET that resumes a stream: of the continuation `key` (a stream URL,
    /// or an event id it issued), from after `last_event_id`. Under SEP-1335 a
    /// server still waiting for answers replies [`WAITING`].
    Resume {
        /// The continuation key, when the URL or the event id names one.
        key: Option<String>,
        /// The `Last-Event-ID` sent.
        last_event_id: Option<String>,
    },
}

/// Reads an incoming request: its method, URL, header fields and body.
/// A body that is not JSON-RPC fails with its rule (`jsonrpc-parse-error`,
/// `jsonrpc-invalid`, `limit-exceeded`), which the host answers with HTTP 400.
pub fn read_request(
    mode: Mode,
    method: &str,
    url: &str,
    headers: &[(String, String)],
    body: &[u8],
    protocol: Protocol,
    limits: &Limits,
) -> Result<Incoming, Error> {
    let last_event_id = header(headers, "last-event-id").map(String::from);
    let url_key = stream_key(url);
    if method.eq_ignore_ascii_case("GET") {
        let key = url_key.or_else(|| last_event_id.as_deref().and_then(event_key).map(String::from));
        return Ok(Incoming::Resume { key, last_event_id });
    }
    let value = crate::one_message::envelope::parse(body, limits)?;
    let mut messages = match value {
        Value::Array(items) => items,
        one => Vec::from([one]),
    };
    let mut kinds = Vec::new();
    for m in &messages {
        kinds.push(envelope::classify_value(m, protocol, limits)?.kind);
    }
    let continuation = match mode.rules().continuation {
        Continuation::LastEventId => last_event_id.as_deref().and_then(event_key).map(String::from),
        Continuation::StreamUrl => url_key,
        Continuation::None => None,
    };
    let answers = kinds.iter().all(|k| !matches!(k, Kind::Request | Kind::Notification));
    match (continuation, answers) {
        (Some(key), true) if !kinds.is_empty() => Ok(Incoming::Answers { key, responses: messages }),
        _ => match kinds.iter().position(|k| *k == Kind::Request) {
            Some(i) if messages.len() == 1 => Ok(Incoming::Call(messages.swap_remove(i))),
            Some(_) => Err(err!(JsonrpcInvalid, "one request per POST: JSON-RPC batches are gone since 2025-06-18")),
            None => Ok(Incoming::Messages(messages)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{base::rules::RuleId, machines::http::call::unassociated_reply};
    use serde_json::json;

    fn read(mode: Mode, method: &str, url: &str, headers: &[(&str, &str)], body: &str) -> Result<Incoming, Error> {
        let headers: Headers = headers.iter().map(|(n, v)| (String::from(*n), String::from(*v))).collect();
        read_request(mode, method, url, &headers, body.as_bytes(), Protocol::V2025_11_25, &Limits::DEFAULT)
    }

    #[test]
    fn a_continuation_is_found_by_its_key_in_each_mode() {
        let answers = r#"[{"jsonrpc":"2.0","id":"s1","result":{}}]"#;
        let by_id = read(Mode::Sep1858, "POST", "http://h/mcp", &[("last-event-id", "a.b.7")], answers).unwrap();
        assert!(matches!(by_id, Incoming::Answers { key, .. } if key == "a.b"));
        // Security review L5: a key that is none this module writes continues nothing.
        let hostile = [("last-event-id", "../../etc/passwd.1")];
        let refused = read(Mode::Sep1858, "POST", "http://h/mcp", &hostile, answers).unwrap();
        assert!(matches!(refused, Incoming::Messages(_)), "{refused:?}");
        let resume = read(Mode::Legacy, "GET", "http://h/mcp", &hostile, "").unwrap();
        assert!(matches!(resume, Incoming::Resume { key: None, .. }), "{resume:?}");
        let url = stream_url("http://h/mcp?tenant=a", "k-1_x~").unwrap();
        assert_eq!(url, "http://h/mcp?tenant=a&stream=k-1_x~");
        assert_eq!(stream_key(&url).as_deref(), Some("k-1_x~"));
        // Security review L5: a key read from Last-Event-ID is one this module writes.
        assert_eq!(event_key("k-1_x~.3"), Some("k-1_x~"));
        assert_eq!(event_key("a.b.12"), Some("a.b"));
        let long = format!("{}.1", "k".repeat(129));
        for bad in ["../../etc/passwd.1", "a b\u{0}c:d/e.1", ".1", "k.", "k.x", "k", long.as_str()] {
            assert_eq!(event_key(bad), None, "{bad:?}");
        }
        let posted = read(Mode::Sep1335, "POST", &url, &[], answers).unwrap();
        assert!(matches!(posted, Incoming::Answers { key, .. } if key == "k-1_x~"));
        let resume = read(Mode::Sep1335, "GET", &url, &[("last-event-id", "k.2")], "").unwrap();
        assert_eq!(resume, Incoming::Resume { key: Some("k-1_x~".into()), last_event_id: Some("k.2".into()) });
        for bad in ["", "a b", "a&b", "ü"] {
            assert_eq!(stream_url("http://h/mcp", bad).unwrap_err().rule(), RuleId::UsageInvalidArgument, "{bad:?}");
        }
        // Without the mode's mark, answers are plain messages (a 2025-11-25 answer).
        assert!(
            matches!(read(Mode::Legacy, "POST", "http://h/mcp", &[], answers).unwrap(), Incoming::Messages(m) if m.len() == 1)
        );
    }

    #[test]
    fn one_request_per_post_and_bad_bodies_keep_their_rules() {
        let two = r#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]"#;
        assert_eq!(read(Mode::Legacy, "POST", "http://h/mcp", &[], two).unwrap_err().rule(), RuleId::JsonrpcInvalid);
        assert_eq!(read(Mode::Legacy, "POST", "http://h/mcp", &[], "{").unwrap_err().rule(), RuleId::JsonrpcParseError);
        let bytes =
            read_request(Mode::Legacy, "POST", "http://h/mcp", &[], b"\xff", Protocol::V2025_11_25, &Limits::DEFAULT);
        assert_eq!(bytes.unwrap_err().rule(), RuleId::JsonrpcParseError);
    }

    #[test]
    fn streams_write_each_modes_sequence() {
        let mut s = ServerStream::new(Mode::Sep1858, "k", 1).unwrap();
        let ask = json!({"jsonrpc": "2.0", "id": "s1", "method": "roots/list"});
        assert_eq!(s.ask(core::slice::from_ref(&ask), 0).unwrap(), "k.3");
        let text = s.take();
        assert!(
            text.starts_with("event: buffer_input\nid: k.1\n\n")
                && text.ends_with("event: input_required\nid: k.3\n\n"),
            "{text}"
        );
        let mut s = ServerStream::new(Mode::Sep1335, "k", 1).unwrap();
        assert_eq!(s.head(Some("http://h/mcp?stream=k"))[2].1, "<http://h/mcp?stream=k>; rel=\"stream\"");
        s.ask(&[ask], 250).unwrap();
        assert!(s.take().ends_with("id: k.2\nretry: 250\n\n"));
        assert_eq!(ServerStream::new(Mode::Legacy, "a\nb", 1).unwrap_err().rule(), RuleId::UsageInvalidArgument);
        let mut plain = ServerStream::new(Mode::Streamable, "k", 1).unwrap();
        assert_eq!(plain.ask(&[], 0).unwrap_err().rule(), RuleId::UsageInvalidArgument);
    }

    #[test]
    fn an_unassociated_input_request_is_answered_32602_and_ping_is_exempt() {
        let elicit = json!({"jsonrpc": "2.0", "id": 9, "method": "elicitation/create", "params": {}});
        assert_eq!(unassociated_reply(&elicit).unwrap()["error"]["code"], -32602);
        assert_eq!(unassociated_reply(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"})), None);
        assert_eq!(unassociated_reply(&json!({"jsonrpc": "2.0", "method": "roots/list"})), None);
    }
}
