//! The transports over the façade (`mrtr::facade`): the event-stream decoder
//! and encoder, the client machine of one call over HTTP, the server's
//! response stream and what an incoming HTTP request asks.
//!
//! Messages cross as JSON text, header fields as maps (names in any case on
//! the way in, lower-case on the way out), bodies and stream bytes as bytes.
//! Modes are named as in a call's configuration: `2026-07-28`, `2025-11-25`,
//! `sep-1858`, `sep-1335`.

use crate::error::{guard, Result};
use mrtr::facade;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// Header fields as the façade reads them: a JSON object (names sorted, so
/// that the text is the same whatever the host map's order).
pub(crate) fn headers_json(headers: HashMap<String, String>) -> Vec<u8> {
    let sorted: BTreeMap<String, String> = headers.into_iter().collect();
    // A map of strings always serializes.
    serde_json::to_vec(&sorted).unwrap_or_default()
}

/// A record as the JSON text the façade reads (its fields are strings and numbers: it always serializes).
pub(crate) fn json_of<T: Serialize>(record: &T) -> Vec<u8> {
    serde_json::to_vec(record).unwrap_or_default()
}

/// An optional JSON value of the façade's output as JSON text.
pub(crate) fn json_text_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<serde_json::Value>::deserialize(d).map(|v| v.map(|v| v.to_string()))
}

/// A JSON array of the façade's output as one JSON text per element.
pub(crate) fn json_texts<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Vec::<serde_json::Value>::deserialize(d).map(|vs| vs.iter().map(serde_json::Value::to_string).collect())
}

/// The incremental event-stream (`text/event-stream`) decoder: [`feed`](SseDecoder::feed)
/// bytes in any chunking, [`finish`](SseDecoder::finish) at the end of the
/// stream, and take the blocks with [`poll_event`](SseDecoder::poll_event).
#[derive(uniffi::Object)]
pub struct SseDecoder {
    pub(crate) inner: Mutex<facade::SseDecoder>,
}

#[uniffi::export]
impl SseDecoder {
    /// A decoder bounding each block by `max_block_bytes` (line bytes; absent:
    /// the core's 16 MiB bound of a message).
    #[uniffi::constructor(default(max_block_bytes = None))]
    pub fn new(max_block_bytes: Option<i64>) -> Result<Arc<SseDecoder>> {
        guard(|| {
            let mut o = facade::Options::default();
            if let Some(n) = crate::ints::unsigned_opt::<u64>(max_block_bytes, "max_block_bytes")? {
                o.limits.max_message_bytes = usize::try_from(n).unwrap_or(usize::MAX);
            }
            Ok(Arc::new(SseDecoder { inner: Mutex::new(facade::SseDecoder::new(&o)) }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{read_http_request, HttpCall, HttpCallEvent, Incoming};

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
        let events: Vec<HttpCallEvent> = std::iter::from_fn(|| call.poll_event().unwrap()).collect();
        assert!(matches!(&events[0], HttpCallEvent::Message { message_json } if message_json.contains("progress")));
        assert!(matches!(&events[1], HttpCallEvent::Violation { rule, .. } if rule == "server-request-on-stream"));
        assert!(matches!(events.last(), Some(HttpCallEvent::Response { .. })), "{events:?}");
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
