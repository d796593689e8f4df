//! The transports over the façade (`mrtr::facade`): the event-stream decoder
//! and encoder, the client machine of one call over HTTP, the server's
//! response stream and what an incoming HTTP request asks.
//!
//! Messages cross as JSON text, header fields as maps (names in any case on
//! the way in, lower-case on the way out), bodies and stream bytes as bytes.
//! Modes are named as in a call's configuration: `2026-07-28`, `2025-11-25`,
//! `sep-1858`, `sep-1335`.

use crate::error::{guard, lock, wire, Result};
use crate::ops::{json_text, options};
use mrtr::facade;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// Header fields as the façade reads them: a JSON object (names sorted, so
/// that the text is the same whatever the host map's order).
fn headers_json(headers: HashMap<String, String>) -> Vec<u8> {
    let sorted: BTreeMap<String, String> = headers.into_iter().collect();
    // A map of strings always serializes.
    serde_json::to_vec(&sorted).unwrap_or_default()
}

/// An optional JSON value of the façade's output as JSON text.
fn json_text_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<serde_json::Value>::deserialize(d).map(|v| v.map(|v| v.to_string()))
}

/// A JSON array of the façade's output as one JSON text per element.
fn json_texts<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Vec::<serde_json::Value>::deserialize(d).map(|vs| vs.iter().map(serde_json::Value::to_string).collect())
}

/// One block of an event stream: the fields its lines set.
#[derive(Clone, Debug, Default, PartialEq, Eq, uniffi::Record, Serialize, Deserialize)]
pub struct SseEvent {
    /// The last `event` field.
    #[uniffi(default = None)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The `data` fields, joined with LF (SEP-1858's `buffer_input` and `input_required` have none).
    #[uniffi(default = None)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    /// The last `id` field without NUL.
    #[uniffi(default = None)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The last `retry` field made of ASCII digits (milliseconds).
    #[uniffi(default = None)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<u64>,
}

/// The incremental event-stream (`text/event-stream`) decoder: [`feed`](SseDecoder::feed)
/// bytes in any chunking, [`finish`](SseDecoder::finish) at the end of the
/// stream, and take the blocks with [`poll_event`](SseDecoder::poll_event).
#[derive(uniffi::Object)]
pub struct SseDecoder {
    inner: Mutex<facade::SseDecoder>,
}

#[uniffi::export]
impl SseDecoder {
    /// A decoder bounding each block by `max_block_bytes` (line bytes; absent:
    /// the core's 16 MiB bound of a message).
    #[uniffi::constructor(default(max_block_bytes = None))]
    pub fn new(max_block_bytes: Option<u64>) -> Result<Arc<SseDecoder>> {
        guard(|| {
            let mut o = facade::Options::default();
            if let Some(n) = max_block_bytes {
                o.limits.max_message_bytes = usize::try_from(n).unwrap_or(usize::MAX);
            }
            Ok(Arc::new(SseDecoder { inner: Mutex::new(facade::SseDecoder::new(&o)) }))
        })
    }

    /// Decodes the next bytes of the stream. Bytes that are not UTF-8 are not
    /// refused here: [`poll_event`](SseDecoder::poll_event) raises for the
    /// block holding them.
    pub fn feed(&self, chunk: Vec<u8>) -> Result<()> {
        guard(|| lock(&self.inner).map(|mut d| d.feed(&chunk)))
    }

    /// Ends the stream: a block not ended by a blank line is discarded.
    /// Blocks already decoded stay to be polled.
    pub fn finish(&self) -> Result<()> {
        guard(|| lock(&self.inner).map(|mut d| d.finish()))
    }

    /// The next decoded block, or none when none is ready. A block the
    /// decoder could not read raises its rule (`jsonrpc-parse-error`: a line
    /// that is not UTF-8; `limit-exceeded`: a block over the bound); decoding
    /// went on after it, so keep polling.
    pub fn poll_event(&self) -> Result<Option<SseEvent>> {
        guard(|| lock(&self.inner)?.poll_event().map(|block| wire(&block?)).transpose())
    }
}

/// Writes one block as event-stream text: what a decoder reads back as the
/// same block (nothing for a block without fields). An `event` or `id` with a
/// line end, or an `id` with NUL, is `usage-invalid-argument`.
#[uniffi::export]
pub fn sse_encode(event: SseEvent) -> Result<String> {
    guard(|| {
        // A record of strings and a number always serializes.
        let text = serde_json::to_vec(&event).unwrap_or_default();
        Ok(facade::sse_encode(&text)?)
    })
}

/// An HTTP request the call asks its host to send.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record, Deserialize)]
pub struct HttpRequest {
    /// The call's number for this exchange: quote it with every part of the response.
    pub exchange: u64,
    /// `POST` or `GET`.
    pub method: String,
    /// The absolute URL.
    pub url: String,
    /// The header fields to send (lower-case names).
    pub headers: HashMap<String, String>,
    /// The body, JSON text (a message, or an array of them), if any.
    #[serde(default, rename = "body", deserialize_with = "json_text_opt")]
    pub body_json: Option<String>,
}

/// What a call tells its host ([`HttpCall::poll_event`]).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum HttpEvent {
    /// A server request (elicitation, sampling, roots, ping): answer it with [`HttpCall::answer`].
    ServerRequest {
        /// The request (JSON).
        #[serde(rename = "message", deserialize_with = "json_text")]
        message_json: String,
    },
    /// A notification, or a response that is not the call's, to pass on.
    Message {
        /// The message (JSON).
        #[serde(rename = "message", deserialize_with = "json_text")]
        message_json: String,
    },
    /// The server broke a rule; the call goes on.
    Violation {
        /// The rule id.
        rule: String,
        /// What is wrong, in one sentence.
        message: String,
    },
    /// The call's JSON-RPC response (a result, an `input_required` result, or an error): the call is over.
    Response {
        /// The response (JSON).
        #[serde(rename = "message", deserialize_with = "json_text")]
        message_json: String,
    },
    /// The call cannot go on, and why: the last event.
    Failed {
        /// The rule id.
        rule: String,
        /// Why, in one sentence.
        message: String,
    },
}

/// The client machine of one JSON-RPC call over HTTP (sans-IO): the host's
/// HTTP stack sends what [`poll_transmit`](HttpCall::poll_transmit) asks and
/// hands back each response's head, body bytes and end. After creating it and
/// after every input, drain `poll_transmit`, then `poll_event`, then read
/// `poll_timeout`.
#[derive(uniffi::Object)]
pub struct HttpCall {
    inner: Mutex<facade::HttpCall>,
}

#[uniffi::export]
impl HttpCall {
    /// Starts the call of `request_json` (a JSON-RPC request with an id) at
    /// `now_ms` under `config_json`: `{"mode", "url", "headers": {…},
    /// "protocol", "limits": {…}, "maxEvents", "maxLinks", "maxLinkBytes",
    /// "maxRetryMs", "maxReconnects", "defaultRetryMs"}` (`mode` and `url`
    /// required; a bad one is `usage-invalid-argument`).
    #[uniffi::constructor]
    pub fn new(config_json: String, request_json: String, now_ms: u64) -> Result<Arc<HttpCall>> {
        guard(|| {
            let call = facade::HttpCall::new(config_json.as_bytes(), request_json.as_bytes(), now_ms)?;
            Ok(Arc::new(HttpCall { inner: Mutex::new(call) }))
        })
    }

    /// The status and header fields of the response to `exchange`. A second
    /// head is `usage-out-of-turn`, an exchange the call does not know (or
    /// that ended) `usage-unknown-handle`.
    pub fn handle_head(&self, exchange: u64, status: u16, headers: HashMap<String, String>, now_ms: u64) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.handle_head(exchange, status, &headers_json(headers), now_ms)?))
    }

    /// Bytes of the body of the response to `exchange`, in any chunking.
    pub fn handle_body(&self, exchange: u64, chunk: Vec<u8>, now_ms: u64) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.handle_body(exchange, &chunk, now_ms)?))
    }

    /// The response to `exchange` ended (closed by the server, or cut).
    pub fn handle_end(&self, exchange: u64, now_ms: u64) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.handle_end(exchange, now_ms)?))
    }

    /// The time [`poll_timeout`](HttpCall::poll_timeout) named came.
    pub fn handle_timeout(&self, now_ms: u64) -> Result<()> {
        guard(|| lock(&self.inner).map(|mut c| c.handle_timeout(now_ms)))
    }

    /// The host's JSON-RPC response to a server request the call reported.
    pub fn answer(&self, response_json: String, now_ms: u64) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.answer(response_json.as_bytes(), now_ms)?))
    }

    /// The next HTTP request to send, if any.
    pub fn poll_transmit(&self) -> Result<Option<HttpRequest>> {
        guard(|| lock(&self.inner)?.poll_transmit().map(|r| wire(&r)).transpose())
    }

    /// The next event for the host, if any.
    pub fn poll_event(&self) -> Result<Option<HttpEvent>> {
        guard(|| lock(&self.inner)?.poll_event().map(|e| wire(&e)).transpose())
    }

    /// When to call [`handle_timeout`](HttpCall::handle_timeout) (the host's
    /// milliseconds), if anything waits.
    pub fn poll_timeout(&self) -> Result<Option<u64>> {
        guard(|| Ok(lock(&self.inner)?.poll_timeout()))
    }

    /// Whether the call is over (its `Response` or `Failed` event was queued).
    pub fn is_done(&self) -> Result<bool> {
        guard(|| Ok(lock(&self.inner)?.is_done()))
    }
}

/// What an operation tells its host ([`Operation::poll_event`]).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum OperationEvent {
    /// The server asks: answer each key of `requests_json` (an object of key
    /// → `{"method", "params"}`) with [`Operation::answer`].
    InputRequired {
        /// The round asked for.
        round: u32,
        /// The questions by key (JSON).
        #[serde(rename = "requests", deserialize_with = "json_text")]
        requests_json: String,
    },
    /// A notification, or a message that is not the operation's, to pass on.
    Message {
        /// The message (JSON).
        #[serde(rename = "message", deserialize_with = "json_text")]
        message_json: String,
    },
    /// The server broke a rule; the operation goes on.
    Violation {
        /// The rule id.
        rule: String,
        /// What is wrong, in one sentence.
        message: String,
    },
    /// The final JSON-RPC response (a result, or an error the server answered): the last event.
    Done {
        /// The response (JSON).
        #[serde(rename = "response", deserialize_with = "json_text")]
        response_json: String,
    },
    /// The operation cannot go on, and why: the last event.
    Failed {
        /// The rule id.
        rule: String,
        /// Why, in one sentence.
        message: String,
    },
}

/// One client operation over HTTP (sans-IO): a call carried to its final
/// response in any transport mode, every question answered by key with
/// [`answer`](Operation::answer). After creating it and after every input,
/// drain `poll_transmit`, then `poll_event`, then read `poll_timeout`; drop it
/// once `is_drained`.
#[derive(uniffi::Object)]
pub struct Operation {
    inner: Mutex<facade::Operation>,
}

#[uniffi::export]
impl Operation {
    /// Starts the operation of `request_json` (a JSON-RPC request with an id)
    /// at `now_ms` under `config_json`: an [`HttpCall`] configuration plus
    /// `"maxRounds"`, `"maxResends"` and `"taskPollMs"`.
    #[uniffi::constructor]
    pub fn new(config_json: String, request_json: String, now_ms: u64) -> Result<Arc<Operation>> {
        guard(|| {
            let op = facade::Operation::new(config_json.as_bytes(), request_json.as_bytes(), now_ms)?;
            Ok(Arc::new(Operation { inner: Mutex::new(op) }))
        })
    }

    /// The status and header fields of the response to `exchange`.
    pub fn handle_head(&self, exchange: u64, status: u16, headers: HashMap<String, String>, now_ms: u64) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.handle_head(exchange, status, &headers_json(headers), now_ms)?))
    }

    /// Bytes of the body of the response to `exchange`, in any chunking.
    pub fn handle_body(&self, exchange: u64, chunk: Vec<u8>, now_ms: u64) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.handle_body(exchange, &chunk, now_ms)?))
    }

    /// The response to `exchange` ended (closed by the server, or cut).
    pub fn handle_end(&self, exchange: u64, now_ms: u64) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.handle_end(exchange, now_ms)?))
    }

    /// The time [`poll_timeout`](Operation::poll_timeout) named came.
    pub fn handle_timeout(&self, now_ms: u64) -> Result<()> {
        guard(|| lock(&self.inner).map(|mut o| o.handle_timeout(now_ms)))
    }

    /// Answers the question `key` with `result_json`; one that does not fit
    /// its question fails with its rule, and the question stays open.
    pub fn answer(&self, key: String, result_json: String, now_ms: u64) -> Result<()> {
        guard(|| Ok(lock(&self.inner)?.answer(&key, result_json.as_bytes(), now_ms)?))
    }

    /// The next HTTP request to send, if any.
    pub fn poll_transmit(&self) -> Result<Option<HttpRequest>> {
        guard(|| lock(&self.inner)?.poll_transmit().map(|r| wire(&r)).transpose())
    }

    /// The next event for the host, if any.
    pub fn poll_event(&self) -> Result<Option<OperationEvent>> {
        guard(|| lock(&self.inner)?.poll_event().map(|e| wire(&e)).transpose())
    }

    /// When to call [`handle_timeout`](Operation::handle_timeout), if anything waits.
    pub fn poll_timeout(&self) -> Result<Option<u64>> {
        guard(|| Ok(lock(&self.inner)?.poll_timeout()))
    }

    /// Whether the final event was taken and no exchange is open.
    pub fn is_drained(&self) -> Result<bool> {
        guard(|| Ok(lock(&self.inner)?.is_drained()))
    }

    /// What the operation knows, as JSON, to go on from with
    /// [`restore`](Operation::restore) after the host restarts (in this
    /// process or another, in this language or another): not the
    /// configuration, nor the open exchanges.
    pub fn snapshot(&self, now_ms: u64) -> Result<String> {
        guard(|| Ok(lock(&self.inner)?.snapshot(now_ms)?))
    }

    /// The operation of `snapshot_json` under `config_json` (as the
    /// constructor reads it) at `now_ms`: the round in flight goes again under
    /// a new id, an open round asks its unanswered questions again.
    #[uniffi::constructor]
    pub fn restore(config_json: String, snapshot_json: String, now_ms: u64) -> Result<Arc<Operation>> {
        guard(|| {
            let op = facade::Operation::restore(config_json.as_bytes(), snapshot_json.as_bytes(), now_ms)?;
            Ok(Arc::new(Operation { inner: Mutex::new(op) }))
        })
    }
}

/// A server's response stream for one continuation: the mode's event
/// sequence as event-stream text, event ids `<key>.<n>`.
#[derive(uniffi::Object)]
pub struct ServerStream {
    inner: Mutex<facade::ServerStream>,
}

#[uniffi::export]
impl ServerStream {
    /// A stream of `mode` for the continuation `key` (the host's name for the
    /// call's state in its store), numbering events from `first`.
    #[uniffi::constructor]
    pub fn new(mode: String, key: String, first: u64) -> Result<Arc<ServerStream>> {
        guard(|| Ok(Arc::new(ServerStream { inner: Mutex::new(facade::ServerStream::new(&mode, &key, first)?) })))
    }

    /// The header fields of the response head (200): the content type, and
    /// under `sep-1335` the `link` to `stream_url`.
    pub fn head(&self, stream_url: Option<String>) -> Result<HashMap<String, String>> {
        guard(|| wire(&lock(&self.inner)?.head(stream_url.as_deref())))
    }

    /// Writes the JSON-RPC message `message_json` as an event; returns its id.
    pub fn message(&self, message_json: String) -> Result<String> {
        guard(|| Ok(lock(&self.inner)?.message(message_json.as_bytes())?))
    }

    /// Writes a `retry` block; returns its id.
    pub fn retry(&self, retry_ms: u64) -> Result<String> {
        guard(|| Ok(lock(&self.inner)?.retry(retry_ms)?))
    }

    /// Writes the mode's sequence asking for `requests_json` (a JSON array of
    /// requests): `sep-1858` wraps them in `buffer_input` … `input_required`,
    /// `sep-1335` follows them with `retry: retry_ms`; returns the last id.
    pub fn ask(&self, requests_json: String, retry_ms: u64) -> Result<String> {
        guard(|| Ok(lock(&self.inner)?.ask(requests_json.as_bytes(), retry_ms)?))
    }

    /// The text written since the last take, for the response body.
    pub fn take(&self) -> Result<String> {
        guard(|| Ok(lock(&self.inner)?.take()))
    }
}

/// What an incoming HTTP request asks ([`read_http_request`]).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Incoming {
    /// A JSON-RPC request: a new call.
    Call {
        /// The request (JSON).
        #[serde(rename = "message", deserialize_with = "json_text")]
        message_json: String,
    },
    /// Notifications or responses outside any continuation: answer `202 Accepted`.
    Messages {
        /// Each message (JSON).
        #[serde(rename = "messages", deserialize_with = "json_texts")]
        messages_json: Vec<String>,
    },
    /// Buffered answers of the continuation `key`.
    Answers {
        /// The continuation key.
        key: String,
        /// The JSON-RPC responses (JSON), in order.
        #[serde(rename = "responses", deserialize_with = "json_texts")]
        responses_json: Vec<String>,
    },
    /// A GET resuming a stream.
    Resume {
        /// The continuation key, when the URL or the event id names one.
        key: Option<String>,
        /// The `Last-Event-ID` sent.
        #[serde(rename = "lastEventId")]
        last_event_id: Option<String>,
    },
}

/// Reads an incoming HTTP request under `mode`: its method, URL, header
/// fields and body. A body that is not JSON-RPC raises its rule
/// (`jsonrpc-parse-error`, `jsonrpc-invalid`, `limit-exceeded`): answer 400.
#[uniffi::export]
pub fn read_http_request(
    mode: String,
    method: String,
    url: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
    protocol: String,
) -> Result<Incoming> {
    guard(|| {
        let o = options(&protocol, None)?;
        wire(&facade::read_http_request(&mode, &method, &url, &headers_json(headers), &body, &o)?)
    })
}

/// The `rel="stream"` URL of the continuation `key` at `endpoint` (SEP-1335).
#[uniffi::export]
pub fn stream_url(endpoint: String, key: String) -> Result<String> {
    guard(|| Ok(facade::stream_url(&endpoint, &key)?))
}

/// The JSON-RPC error response (-32602) a client sends back for a server
/// request that arrived outside any request of its own in flight (SEP-2260),
/// or none when the message needs no answer.
#[uniffi::export]
pub fn unassociated_reply(request_json: String) -> Result<Option<String>> {
    guard(|| Ok(facade::unassociated_reply(request_json.as_bytes())?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"deploy","arguments":{}}}"#;

    #[test]
    fn every_event_shape_of_the_facade_reads_back() {
        let config = r#"{"mode":"2026-07-28","url":"https://example.com/mcp"}"#;
        let call = HttpCall::new(config.into(), CALL.into(), 0).unwrap();
        let post = call.poll_transmit().unwrap().unwrap();
        assert_eq!((post.exchange, post.method.as_str()), (1, "POST"));
        assert_eq!(post.body_json.as_deref(), Some(CALL));
        let sse = HashMap::from([("Content-Type".to_string(), "text/event-stream".to_string())]);
        call.handle_head(1, 200, sse, 0).unwrap();
        let body = concat!(
            "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n",
            "id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"e1\",\"method\":\"elicitation/create\",\"params\":{}}\n\n",
            "id: 3\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"resultType\":\"complete\",\"content\":[]}}\n\n",
        );
        call.handle_body(1, body.as_bytes().to_vec(), 0).unwrap();
        let events: Vec<HttpEvent> = std::iter::from_fn(|| call.poll_event().unwrap()).collect();
        assert!(matches!(&events[0], HttpEvent::Message { message_json } if message_json.contains("progress")));
        assert!(matches!(&events[1], HttpEvent::Violation { rule, .. } if rule == "server-request-on-stream"));
        assert!(matches!(events.last(), Some(HttpEvent::Response { .. })), "{events:?}");
        // The -32602 answer to the elicitation MRTR does not allow on a stream, POSTed on its own.
        let answer = call.poll_transmit().unwrap().unwrap();
        assert!(answer.body_json.unwrap().contains("-32602"));
    }

    #[test]
    fn every_incoming_shape_reads_back() {
        let answer = br#"{"jsonrpc":"2.0","id":"e1","result":{"action":"accept"}}"#.to_vec();
        let p = || "2025-11-25".to_string();
        let read = |mode: &str, method: &str, url: &str, body: Vec<u8>| {
            read_http_request(mode.into(), method.into(), url.into(), HashMap::new(), body, p())
        };
        let messages = read("2025-11-25", "POST", "https://e.com/mcp", answer.clone()).unwrap();
        assert!(matches!(&messages, Incoming::Messages { messages_json } if messages_json.len() == 1), "{messages:?}");
        let answers =
            read("sep-1335", "POST", "https://e.com/mcp?stream=k", [b"[", &answer[..], b"]"].concat()).unwrap();
        assert!(
            matches!(&answers, Incoming::Answers { key, responses_json } if key == "k" && responses_json.len() == 1)
        );
        let call = read("sep-1335", "POST", "https://e.com/mcp", CALL.into()).unwrap();
        assert_eq!(call, Incoming::Call { message_json: CALL.into() });
        let resume = read("sep-1858", "GET", "https://e.com/mcp", Vec::new()).unwrap();
        assert_eq!(resume, Incoming::Resume { key: None, last_event_id: None });
        let e = read("sep-1335", "POST", "https://e.com/mcp", b"[\"\xff\"]".to_vec()).unwrap_err();
        assert_eq!(e.rule(), "jsonrpc-parse-error");
    }
}
