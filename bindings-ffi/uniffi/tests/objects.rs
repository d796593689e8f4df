//! The UniFFI objects driven from Rust through their exported API: the key
//! ring under a guard that meddles with it, and every event and incoming
//! shape of the transports read back into the binding's records. (The Kotlin,
//! Python and Swift sides are tested in tests/kotlin, tests/python, tests/swift.)

use mrtr_uniffi::HttpCall;
use mrtr_uniffi::{read_http_request, Binding, HttpCallEvent, Incoming, KeyRing, ReplayGuard, Result};
use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn binding() -> Binding {
    Binding {
        subject: Some("alice".into()),
        anonymous: false,
        protocol: "2026-07-28".into(),
        method: "tools/call".into(),
        target: "t".into(),
        params_digest: vec![7; 32],
    }
}

/// A guard that changes and uses its own ring, recording each outcome's rule ("ok" when it worked).
struct Meddling {
    ring: Arc<KeyRing>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl ReplayGuard for Meddling {
    fn first_use(&self, _: String, _: i64) -> Result<bool> {
        let outcome = |r: Result<()>| r.err().map_or("ok".into(), |e| e.rule().to_string());
        let mut seen = self.seen.lock().unwrap();
        seen.push(outcome(self.ring.set_current(1).map(drop)));
        seen.push(outcome(self.ring.add(2, "xchacha20-poly1305".into(), vec![9; 32])));
        seen.push(outcome(self.ring.seal(binding(), 1000, 60, b"inner".to_vec()).map(drop)));
        Ok(true)
    }
}

#[test]
fn a_guard_that_changes_its_own_ring_is_refused_not_deadlocked() {
    // Security review I3: the guard runs under the ring's read lock, and asking for the write lock
    // on the same thread waited forever. Run on a thread with a deadline, so a regression fails.
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let ring = KeyRing::new(1, "xchacha20-poly1305".into(), vec![5; 32]).unwrap();
        let token = ring.seal(binding(), 1000, 60, b"x".to_vec()).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let guard = Meddling { ring: ring.clone(), seen: seen.clone() };
        let opened = ring.open(token, binding(), 1000, Some(Box::new(guard))).map(|o| o.payload);
        let after = ring.set_current(1).is_ok();
        let _ = done.send((opened.ok(), seen.lock().unwrap().clone(), after));
    });
    let (opened, seen, after) = finished.recv_timeout(Duration::from_secs(20)).expect("deadlock");
    assert_eq!(opened, Some(b"x".to_vec()), "the open completes");
    assert_eq!(seen, ["usage-out-of-turn", "usage-out-of-turn", "ok"]);
    assert!(after, "the ring changes once the call returned");
}

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
    let answers = read("sep-1335", "POST", "https://e.com/mcp?stream=k", [b"[", &answer[..], b"]"].concat()).unwrap();
    assert!(matches!(&answers, Incoming::Answers { key, responses_json } if key == "k" && responses_json.len() == 1));
    let call = read("sep-1335", "POST", "https://e.com/mcp", CALL.into()).unwrap();
    assert_eq!(call, Incoming::Call { message_json: CALL.into() });
    let resume = read("sep-1858", "GET", "https://e.com/mcp", Vec::new()).unwrap();
    assert_eq!(resume, Incoming::Resume { key: None, last_event_id: None });
    let e = read("sep-1335", "POST", "https://e.com/mcp", b"[\"\xff\"]".to_vec()).unwrap_err();
    assert_eq!(e.rule(), "jsonrpc-parse-error");
}
