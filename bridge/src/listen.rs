//! The client's standalone stream (`2025-11-25`: a `GET` without
//! `Last-Event-ID`), from the upstream's notification stream.
//!
//! `2026-07-28` replaced the `GET` stream with `subscriptions/listen`: a
//! long-lived request whose stream carries the notifications the client opts
//! in to. For a client's `GET` the bridge opens one upstream, asking for the
//! list changes (tools, prompts, resources; the server acknowledges the ones
//! it honours and sends no other), and writes each notification on the
//! client's stream, without the subscription's `_meta` (a `2025-11-25`
//! client knows none). The acknowledgement is the bridge's business. An
//! upstream that opens no such stream leaves the `GET` `405`, as before; a
//! client that leaves closes the upstream stream.

use crate::call::Writer;
use crate::sessions::{random_id, Session};
use crate::upstream::{self, Part};
use crate::Shared;
use mrtr::sse::Decoder;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::mpsc;

/// The notification that acknowledges a subscription: not the client's.
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";

/// The `_meta` key naming the subscription a notification came on.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// Opens the upstream's notification stream for `session`; `None` when the
/// upstream opens none (the `GET` is then `405`). Else the stream's events
/// go to `writer` from a task of their own, which ends with either side.
pub(crate) async fn open(shared: &Arc<Shared>, session: &Session, url: &str) -> Option<Listening> {
    let filter = json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true});
    let request = session.declared().request("subscriptions/listen", Some(json!({"notifications": filter}))).ok()?;
    let field = |name: &str, value: &str| (name.to_string(), value.to_string());
    let headers = vec![
        field("content-type", "application/json"),
        field("accept", "application/json, text/event-stream"),
        field("mcp-protocol-version", mrtr::Protocol::default().name()),
        field("mcp-method", "subscriptions/listen"),
    ];
    let body = Some(request.to_string());
    let request = mrtr::http::Request { exchange: 0, method: "POST", url: url.to_string(), headers, body };
    let (parts_tx, mut parts) = upstream::parts();
    let exchange = tokio::spawn(upstream::exchange(shared.clone(), request, parts_tx));
    let opened = matches!(parts.recv().await, Some(Part::Head(_, 200, ref fields))
        if fields.iter().any(|(n, v)| n == "content-type" && v.starts_with("text/event-stream")));
    if !opened {
        exchange.abort();
        return None;
    }
    Some(Listening { exchange, parts, key: random_id()? })
}

/// An upstream notification stream, open.
pub(crate) struct Listening {
    exchange: tokio::task::JoinHandle<()>,
    /// Bounded ([`upstream::PARTS`]): while [`Listening::relay`] waits on
    /// the client's stream, the upstream's is not read.
    parts: mpsc::Receiver<Part>,
    /// The client stream's key (its events are `<key>.<n>`).
    pub(crate) key: String,
}

impl Listening {
    /// Relays the notifications to `writer` until either side ends.
    pub(crate) async fn relay(mut self, mut writer: Writer) {
        let mut decoder = Decoder::new();
        'stream: loop {
            let part = tokio::select! {
                part = self.parts.recv() => part,
                () = writer.closed() => break, // the client left while upstream was silent
            };
            let Some(Part::Body(_, bytes)) = part else { break };
            decoder.feed(&bytes);
            while let Some(event) = decoder.poll_event() {
                let Some(message) = notification(event.ok().and_then(|e| e.data)) else { continue };
                if !writer.write(&message).await {
                    break 'stream; // the client left
                }
            }
        }
        self.exchange.abort();
        writer.end();
    }
}

/// An event's data as a notification for the client: `None` for anything
/// else (the acknowledgement, the listen's response, no JSON), the
/// subscription's `_meta` taken out.
fn notification(data: Option<String>) -> Option<Value> {
    let mut message: Value = serde_json::from_str(&data?).ok()?;
    let method = message.get("method")?.as_str()?;
    if message.get("id").is_some() || method == ACKNOWLEDGED {
        return None;
    }
    let params = message.get_mut("params").and_then(Value::as_object_mut);
    if let Some(meta) = params.and_then(|p| p.get_mut("_meta")).and_then(Value::as_object_mut) {
        meta.remove(SUBSCRIPTION_ID);
    }
    Some(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list change reaches the client without the subscription's `_meta`;
    /// the acknowledgement and the listen's own response do not.
    #[test]
    fn only_notifications_reach_the_client() {
        let changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
            "params": {"_meta": {SUBSCRIPTION_ID: 7}}});
        assert_eq!(
            notification(Some(changed.to_string())),
            Some(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {}}}))
        );
        let ack = json!({"jsonrpc": "2.0", "method": ACKNOWLEDGED, "params": {"notifications": {}}});
        assert_eq!(notification(Some(ack.to_string())), None);
        assert_eq!(notification(Some(json!({"jsonrpc": "2.0", "id": 7, "result": {}}).to_string())), None);
        assert_eq!(notification(Some("not json".into())), None);
        assert_eq!(notification(None), None);
    }
}
