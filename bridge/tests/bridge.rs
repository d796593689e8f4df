//! The bridge's promises to a `2025-11-25` client, over real sockets on
//! 127.0.0.1, against mrtr's own MRTR server (`peers/mrtr_server.py`,
//! 2026-07-28): every kind of round completes, questions travel under
//! unguessable ids routed only within their session, and every bound holds
//! (sessions, the time a round may wait, a client that leaves).

mod common;

use common::{answer_to, bridge, call, json_body, mrtr_server, recheck, violations, Events, Legacy};
use http::{Method, StatusCode};
use mrtr::Protocol;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::Duration;

const CAPABILITIES: &str = r#"{"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}"#;

fn capabilities() -> Value {
    serde_json::from_str(CAPABILITIES).unwrap()
}

fn tool(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

fn text(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {response}"))
}

/// Every kind of round, through every multi-round method: elicitation (one
/// round, two rounds, URL mode), sampling, roots, a state-only round,
/// prompts/get and resources/read; plain requests relayed; both sides
/// compliant, live and recorded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_kind_of_round_completes_and_both_sides_stay_compliant() {
    let server = mrtr_server().await;
    let mut bridge = bridge(&server.url, |_| {}).await;
    let mut client = Legacy::new(&bridge.url());
    let init = client.initialize(capabilities()).await;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    assert_eq!(init["serverInfo"]["name"], "mrtr-peer", "upstream's server/discover names it");
    assert!(init["capabilities"]["tools"].is_object());
    let ping = json_body(client.post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).await).await;
    assert_eq!(ping, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    let tools = json_body(client.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).await).await;
    assert_eq!(tools["id"], 2);
    assert!(tools["result"]["tools"].as_array().unwrap().iter().any(|t| t["name"] == "get_weather"), "{tools}");

    let mut asked = Vec::new();
    let cases = [
        (tool(3, "get_weather", json!({"location": "Paris"})), "Paris: 22 degrees celsius", 1),
        (tool(4, "book_trip", json!({"destination": "Rome"})), "Rome on 2026-12-01, seat 12A", 2),
        (tool(5, "summarize", json!({"text": "a long text"})), "summary: short", 1),
        (tool(6, "list_roots", json!({})), "file:///work", 1),
        (tool(7, "reserve", json!({"table": "7"})), "table 7 reserved", 0),
        (tool(8, "sign_in", json!({})), "signed in", 1),
    ];
    for (request, want, questions) in &cases {
        let (response, seen) = call(&client, request).await;
        assert_eq!(response["id"], request["id"], "the final response has the client's own id");
        assert_eq!(text(&response), *want);
        assert_eq!(seen.len(), *questions, "{seen:?}");
        asked.extend(seen);
    }
    let sign_in = asked.last().unwrap();
    assert_eq!(sign_in["params"]["mode"], "url");
    assert!(sign_in["params"]["elicitationId"].is_string(), "2025-11-25 needs one: {sign_in}");

    let prompt = json!({"jsonrpc": "2.0", "id": 9, "method": "prompts/get", "params": {"name": "review", "arguments": {"pr": "12"}}});
    let (response, seen) = call(&client, &prompt).await;
    assert_eq!(response["result"]["messages"][0]["content"]["text"], "Review 12: tests");
    asked.extend(seen);
    let read = json!({"jsonrpc": "2.0", "id": 10, "method": "resources/read", "params": {"uri": "notes://today"}});
    let (response, seen) = call(&client, &read).await;
    assert_eq!(response["result"]["contents"][0]["text"], "notes on mrtr");
    asked.extend(seen);

    // Server-request ids: 128 random bits each, never a counter.
    let ids: HashSet<&str> = asked.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), asked.len());
    assert!(ids.iter().all(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())), "{ids:?}");

    assert_eq!(client.bare(Method::DELETE).await, StatusCode::OK);
    bridge.stop().await;
    assert_eq!(violations(&bridge.client), Vec::<String>::new());
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
    assert_eq!(bridge.upstream.summary().operations, 8, "every call but the plain ones took rounds upstream");
    assert_eq!(recheck(&bridge.records.0, Protocol::V2025_11_25), Vec::<String>::new());
    assert_eq!(recheck(&bridge.records.1, Protocol::V2026_07_28), Vec::<String>::new());
}

/// What the client declared at initialize travels in every upstream
/// request's `_meta` (2026-07-28 reads it per request, never infers it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_declared_capabilities_travel_in_every_upstream_request() {
    let server = mrtr_server().await;
    let mut bridge = bridge(&server.url, |_| {}).await;
    let mut client = Legacy::new(&bridge.url());
    client.initialize(json!({"elicitation": {"form": {}}})).await;
    let (response, _) = call(&client, &tool(1, "get_weather", json!({"location": "Oslo"}))).await;
    assert_eq!(text(&response), "Oslo: 22 degrees celsius");
    // sampling is not declared: upstream refuses summarize with -32021, passed on.
    let (refused, asked) = call(&client, &tool(2, "summarize", json!({"text": "t"}))).await;
    assert!(asked.is_empty());
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    bridge.stop().await;
    let record = std::fs::read_to_string(&bridge.records.1).unwrap();
    let requests: Vec<Value> = record
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["from"] == "client")
        .map(|e| e["http"]["body"].clone())
        .collect();
    assert!(requests.len() >= 4, "discover, the call, its retry, summarize");
    for request in &requests {
        let meta = &request["params"]["_meta"];
        assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "{request}");
        assert_eq!(meta["io.modelcontextprotocol/clientCapabilities"], json!({"elicitation": {"form": {}}}));
        assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "bridge-test");
    }
}

/// Sessions are bounded (503 past the bound while every session has a call
/// under way, room again after DELETE); a request names its session (400
/// without, 404 for an unknown one); an answer is taken only by the session
/// that was asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_bounded_and_answers_stay_in_their_session() {
    let server = mrtr_server().await;
    let bridge = bridge(&server.url, |c| c.max_sessions = 2).await;
    let (mut a, mut b, mut c) = (Legacy::new(&bridge.url()), Legacy::new(&bridge.url()), Legacy::new(&bridge.url()));
    a.initialize(capabilities()).await;
    b.initialize(capabilities()).await;
    assert_ne!(a.session, b.session);
    let mut events = Events::new(a.post(&tool(1, "get_weather", json!({"location": "Lima"}))).await);
    let question = events.next().await.unwrap();
    let mut b_events = Events::new(b.post(&tool(9, "get_weather", json!({"location": "Kyiv"}))).await);
    let b_question = b_events.next().await.unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}}});
    let full = c.post(&init).await;
    assert_eq!(full.status(), StatusCode::SERVICE_UNAVAILABLE, "both sessions have a call under way");
    assert_eq!(json_body(full).await["error"]["data"]["rule"], "limit-exceeded");
    let b_answer = json!({"jsonrpc": "2.0", "id": b_question["id"], "result": {"action": "accept", "content": {"units": "celsius"}}});
    assert_eq!(b.post(&b_answer).await.status(), StatusCode::ACCEPTED);
    assert_eq!(text(&b_events.next().await.unwrap()), "Kyiv: 22 degrees celsius");
    assert_eq!(question["method"], "elicitation/create");
    let answer =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"units": "kelvin"}}});
    let stolen = b.post(&answer).await;
    assert_eq!(stolen.status(), StatusCode::BAD_REQUEST, "another session's question");
    assert_eq!(json_body(stolen).await["error"]["data"]["rule"], "usage-unknown-handle");
    assert_eq!(a.post(&answer).await.status(), StatusCode::ACCEPTED);
    assert_eq!(text(&events.next().await.unwrap()), "Lima: 22 degrees kelvin");
    assert!(events.next().await.is_none());

    assert_eq!(b.bare(Method::DELETE).await, StatusCode::OK);
    assert_eq!(b.bare(Method::DELETE).await, StatusCode::NOT_FOUND, "ended");
    assert_eq!(b.post(&tool(2, "get_weather", json!({}))).await.status(), StatusCode::NOT_FOUND);
    c.initialize(capabilities()).await;
    let nameless = Legacy::new(&bridge.url());
    assert_eq!(nameless.post(&tool(3, "get_weather", json!({}))).await.status(), StatusCode::BAD_REQUEST);
    assert_eq!(a.bare(Method::GET).await, StatusCode::METHOD_NOT_ALLOWED, "no standalone stream");
    assert_eq!(bridge.gauges.sessions(), 2);
}

/// A client that drops its stream mid-round and does not come back leaves
/// nothing behind once the timeout passes: the call's questions are
/// forgotten (an answer to one is refused), the session stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_leaves_mid_round_leaves_nothing_behind() {
    let server = mrtr_server().await;
    let bridge = bridge(&server.url, |c| c.timeout = Duration::from_secs(1)).await;
    let mut client = Legacy::new(&bridge.url());
    client.initialize(capabilities()).await;
    let mut events = Events::new(client.post(&tool(1, "book_trip", json!({"destination": "Rome"}))).await);
    let question = events.next().await.unwrap();
    assert_eq!(bridge.gauges.waiting(), 1);
    drop(events); // the connection closes with the stream unread
    let mut left = false;
    for _ in 0..100 {
        if bridge.gauges.waiting() == 0 {
            left = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(left, "the question is still held");
    let late =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"date": "x"}}});
    assert_eq!(client.post(&late).await.status(), StatusCode::BAD_REQUEST);
    assert_eq!(bridge.gauges.sessions(), 1, "the session stays; only the call is gone");
}

/// A client whose stream drops mid-round resumes it (`GET` with
/// `Last-Event-ID`, 2025-11-25's resumability): it answers the question it
/// had, and the resumed stream carries what it missed, then the final
/// response. Both sides stay compliant, live and recorded. Another session
/// cannot resume the stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_is_resumed_with_last_event_id() {
    let server = mrtr_server().await;
    let mut bridge = bridge(&server.url, |_| {}).await;
    let mut client = Legacy::new(&bridge.url());
    client.initialize(capabilities()).await;
    let mut events = Events::new(client.post(&tool(1, "get_weather", json!({"location": "Paris"}))).await);
    let question = events.next().await.unwrap();
    let last = events.last_id.clone().expect("the question's event id");
    drop(events);
    let mut other = Legacy::new(&bridge.url());
    other.initialize(capabilities()).await;
    assert_eq!(other.resume(&last).await.status(), StatusCode::NOT_FOUND, "another session's stream");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result": answer_to(&question)});
    assert_eq!(client.post(&answer).await.status(), StatusCode::ACCEPTED);
    let mut resumed = Events::new(client.resume(&last).await);
    let last_message = resumed.next().await.expect("the final response, on the resumed stream");
    assert_eq!(last_message["id"], 1);
    assert_eq!(text(&last_message), "Paris: 22 degrees celsius");
    assert!(resumed.next().await.is_none(), "the stream ends after the final response");
    bridge.stop().await;
    assert_eq!(violations(&bridge.client), Vec::<String>::new());
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
    assert_eq!(recheck(&bridge.records.0, Protocol::V2025_11_25), Vec::<String>::new());
    assert_eq!(recheck(&bridge.records.1, Protocol::V2026_07_28), Vec::<String>::new());
}

/// A round whose answers do not come within the timeout ends the call with
/// a JSON-RPC error (`limit-exceeded`) under the client's id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_not_answered_in_time_ends_the_call() {
    let server = mrtr_server().await;
    let bridge = bridge(&server.url, |c| c.timeout = Duration::from_secs(1)).await;
    let mut client = Legacy::new(&bridge.url());
    client.initialize(capabilities()).await;
    let mut events = Events::new(client.post(&tool(7, "get_weather", json!({"location": "Rome"}))).await);
    assert_eq!(events.next().await.unwrap()["method"], "elicitation/create");
    let ended = events.next().await.unwrap();
    assert_eq!(ended["id"], 7);
    assert_eq!(ended["error"]["data"]["rule"], "limit-exceeded", "{ended}");
    assert!(events.next().await.is_none());
    assert_eq!(bridge.gauges.waiting(), 0);
}

/// Bad input gets a clear JSON-RPC error with the core's rule: bytes that
/// are not JSON (400), and an answer that does not fit its question (the
/// POST 400, and the call ends with that rule at once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_refused_with_its_rule() {
    let server = mrtr_server().await;
    let bridge = bridge(&server.url, |_| {}).await;
    let mut client = Legacy::new(&bridge.url());
    client.initialize(capabilities()).await;
    let garbage = client.post_text("{\"jsonrpc\": ").await;
    assert_eq!(garbage.status(), StatusCode::BAD_REQUEST);
    assert_eq!(json_body(garbage).await["error"]["data"]["rule"], "jsonrpc-parse-error");

    let mut events = Events::new(client.post(&tool(4, "get_weather", json!({"location": "Bern"}))).await);
    let question = events.next().await.unwrap();
    let wrong = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "maybe"}});
    let refused = client.post(&wrong).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    let rule = json_body(refused).await["error"]["data"]["rule"].clone();
    assert!(rule.is_string(), "{rule}");
    let ended = events.next().await.unwrap();
    assert_eq!((&ended["id"], &ended["error"]["data"]["rule"]), (&json!(4), &rule), "{ended}");
    assert!(events.next().await.is_none());
    assert_eq!(bridge.gauges.waiting(), 0);
}

/// An upstream that is not there: initialize still answers (the bridge's
/// own server info, the capabilities of an MRTR server), and each request
/// ends with a clear JSON-RPC error under the client's id instead of hanging.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_that_is_down_gets_clear_errors() {
    let nowhere = format!("http://127.0.0.1:{}/mcp", common::free_port());
    let bridge = bridge(&nowhere, |c| c.timeout = Duration::from_secs(2)).await;
    let mut client = Legacy::new(&bridge.url());
    let init = client.initialize(capabilities()).await;
    assert_eq!((&init["protocolVersion"], &init["serverInfo"]["name"]), (&json!("2025-11-25"), &json!("mrtr-bridge")));
    let listed = client.post(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"})).await;
    assert_eq!(listed.status(), StatusCode::BAD_REQUEST, "the bridge's own error: not a 2xx");
    let listed = json_body(listed).await;
    assert_eq!(listed["id"], 5);
    assert!(listed["error"]["data"]["rule"].is_string(), "{listed}");
    let mut events = Events::new(client.post(&tool(6, "get_weather", json!({"location": "Oslo"}))).await);
    let ended = events.next().await.unwrap();
    assert_eq!(ended["id"], 6);
    assert!(ended["error"]["data"]["rule"].is_string(), "{ended}");
    assert!(events.next().await.is_none());
}

/// A request body over the message bound is refused `413` before anything
/// reads it, and reported on the client side (`limit-exceeded`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_message_bound_is_refused() {
    let server = mrtr_server().await;
    let bridge = bridge(&server.url, |_| {}).await;
    let mut client = Legacy::new(&bridge.url());
    client.initialize(capabilities()).await;
    let bound = bridge.client.limits().max_message_bytes;
    let huge =
        format!(r#"{{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {{"pad": "{}"}}}}"#, "x".repeat(bound));
    assert_eq!(client.post_text(&huge).await.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let found = violations(&bridge.client);
    assert!(found.len() == 1 && found[0].starts_with("client: violation limit-exceeded"), "{found:?}");
}

/// Past `max_sessions`, a new session takes the place of one with no call
/// under way, whatever its age (review N5: one peer's idle sessions must not
/// lock everyone out), but never of one with a call under way; the evicted
/// client's next request is 404, on which `2025-11-25` clients begin again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_session_evicts_an_idle_one_but_never_one_in_use() {
    let server = mrtr_server().await;
    let bridge = bridge(&server.url, |c| c.max_sessions = 1).await;
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}}});
    let (mut a, b) = (Legacy::new(&bridge.url()), Legacy::new(&bridge.url()));
    a.initialize(capabilities()).await;
    let mut events = Events::new(a.post(&tool(1, "get_weather", json!({"location": "Kyiv"}))).await);
    let question = events.next().await.unwrap();
    assert_eq!(b.post(&init).await.status(), StatusCode::SERVICE_UNAVAILABLE, "a's call is under way");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"units": "celsius"}}});
    assert_eq!(a.post(&answer).await.status(), StatusCode::ACCEPTED);
    assert_eq!(text(&events.next().await.unwrap()), "Kyiv: 22 degrees celsius");
    assert!(events.next().await.is_none());
    assert_eq!(b.post(&init).await.status(), StatusCode::OK, "a has no call under way now");
    assert_eq!(a.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})).await.status(), StatusCode::NOT_FOUND);
    assert_eq!(bridge.gauges.sessions(), 1);
}

/// `--ui`: a live page per side, each linking to the other: the client's
/// conversation (2025-11-25: server requests on the call's stream, the call
/// drawn as an operation of its entries) and the upstream's (its
/// multi-round operation, with each round's span).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_side_has_a_live_page() {
    let server = mrtr_server().await;
    let mut bridge = bridge(&server.url, |c| c.ui = Some("127.0.0.1:0".parse().unwrap())).await;
    let mut client = Legacy::new(&bridge.url());
    client.initialize(capabilities()).await;
    let (response, _) = call(&client, &tool(3, "get_weather", json!({"location": "Paris"}))).await;
    assert_eq!(text(&response), "Paris: 22 degrees celsius");
    let ui = bridge.ui.expect("the pages' address");
    let get = |path: &str| {
        let legacy = Legacy::new(&format!("http://{ui}{path}"));
        async move { legacy.get().await }
    };
    let (status, body) = get("/state.json").await;
    assert_eq!(status, StatusCode::OK);
    let client_side: Value = serde_json::from_str(&body).unwrap();
    assert!(client_side["title"].as_str().unwrap().contains("client side"), "{client_side}");
    assert!(client_side["entries"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["label"].as_str().unwrap().contains("elicitation/create")));
    assert_eq!(client_side["links"][0], json!({"href": "/", "text": "the client side", "here": true}));
    // The call's timeline on the client side too (issue #46): its question
    // went on its stream, and the page draws the call as an operation.
    let operations = client_side["operations"].as_array().unwrap();
    assert_eq!(operations.len(), 1, "{client_side}");
    assert_eq!(operations[0]["spans"].as_array().unwrap().len(), 2, "the call's round and the answered one");
    let (_, body) = get("/upstream/state.json").await;
    let upstream_side: Value = serde_json::from_str(&body).unwrap();
    let operations = upstream_side["operations"].as_array().unwrap();
    assert_eq!(operations.len(), 1, "{upstream_side}");
    assert_eq!(operations[0]["spans"].as_array().unwrap().len(), 2, "two rounds: the call and its retry");
    let (status, page) = get("/upstream/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("const LIVE = true;") && page.contains("the upstream side"));
    assert_eq!(get("/nowhere").await.0, StatusCode::NOT_FOUND);
    bridge.stop().await;
}

/// An MRTR upstream whose tools take their time: `server/discover` is
/// answered at once, a `tools/call` is held until a `notifications/cancelled`
/// names it; each cancellation is reported on `cancelled`.
async fn slow_upstream(cancelled: tokio::sync::mpsc::UnboundedSender<Value>) -> String {
    use http_body_util::{BodyExt, Full};
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let released = std::sync::Arc::new(tokio::sync::Notify::new());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (cancelled, released) = (cancelled.clone(), released.clone());
            let service = service_fn(move |req: http::Request<hyper::body::Incoming>| {
                let (cancelled, released) = (cancelled.clone(), released.clone());
                async move {
                    let body = req.into_body().collect().await.unwrap().to_bytes();
                    let message: Value = serde_json::from_slice(&body).unwrap();
                    let reply = match message["method"].as_str() {
                        Some("notifications/cancelled") => {
                            cancelled.send(message).unwrap();
                            released.notify_waiters();
                            return Ok::<_, std::convert::Infallible>(
                                http::Response::builder().status(202).body(Full::new(bytes::Bytes::new())).unwrap(),
                            );
                        }
                        Some("tools/call") => {
                            released.notified().await;
                            json!({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": "stopped"}})
                        }
                        _ => json!({"jsonrpc": "2.0", "id": message["id"], "result": {"resultType": "complete",
                            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}}),
                    };
                    let response = http::Response::builder().header("content-type", "application/json");
                    Ok(response.body(Full::new(bytes::Bytes::from(reply.to_string()))).unwrap())
                }
            });
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    url
}

/// A client's `notifications/cancelled`: the call ends with no response on
/// its stream, and upstream is told which of its requests is given up (the
/// round's request in flight, under the bridge's own id).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_ends_without_a_response_and_upstream_is_told() {
    let (cancelled_tx, mut cancelled) = tokio::sync::mpsc::unbounded_channel();
    let url = slow_upstream(cancelled_tx).await;
    let mut bridge = bridge(&url, |_| {}).await;
    let mut client = Legacy::new(&bridge.url());
    client.initialize(capabilities()).await;
    let mut events = Events::new(client.post(&tool(7, "get_weather", json!({"location": "Paris"}))).await);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 7, "reason": "the user left"}});
    assert_eq!(client.post(&cancel).await.status(), StatusCode::ACCEPTED);
    assert_eq!(events.next().await, None, "no response follows a cancellation");
    let told = tokio::time::timeout(Duration::from_secs(10), cancelled.recv()).await.unwrap().unwrap();
    assert_eq!(told["params"]["reason"], "the user left");
    assert!(told["params"]["requestId"].is_number(), "the bridge's own id upstream: {told}");
    assert_ne!(told["params"]["requestId"], 7, "not the client's id: {told}");
    bridge.stop().await;
    assert_eq!(violations(&bridge.client), Vec::<String>::new());
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
}

/// A response body fed from a channel, which says when it is dropped (the
/// bridge closed the connection).
struct Fed {
    rx: tokio::sync::mpsc::Receiver<bytes::Bytes>,
    dropped: Option<tokio::sync::oneshot::Sender<()>>,
}

impl http_body::Body for Fed {
    type Data = bytes::Bytes;
    type Error = std::convert::Infallible;
    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, std::convert::Infallible>>> {
        self.rx.poll_recv(cx).map(|b| b.map(|b| Ok(http_body::Frame::data(b))))
    }
}

impl Drop for Fed {
    fn drop(&mut self) {
        if let Some(dropped) = self.dropped.take() {
            let _ = dropped.send(());
        }
    }
}

/// An MRTR upstream with a notification stream: `subscriptions/listen`
/// answers an event stream (the acknowledgement, then a tools list change,
/// then nothing, held open); its end is reported on `closed`.
async fn listening_upstream(closed: tokio::sync::oneshot::Sender<()>) -> String {
    use http_body_util::{combinators::BoxBody, BodyExt, Full};
    use hyper::service::service_fn;
    use hyper_util::rt::TokioIo;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let closed = std::sync::Arc::new(std::sync::Mutex::new(Some(closed)));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let closed = closed.clone();
            let service = service_fn(move |req: http::Request<hyper::body::Incoming>| {
                let closed = closed.clone();
                async move {
                    let message: Value =
                        serde_json::from_slice(&req.into_body().collect().await.unwrap().to_bytes()).unwrap();
                    let meta = json!({"io.modelcontextprotocol/subscriptionId": message["id"]});
                    if message["method"] == "subscriptions/listen" {
                        let (tx, rx) = tokio::sync::mpsc::channel(4);
                        for event in [
                            json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                                "params": {"_meta": meta, "notifications": {"toolsListChanged": true}}}),
                            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": meta}}),
                        ] {
                            tx.send(bytes::Bytes::from(format!("data: {event}\n\n"))).await.unwrap();
                        }
                        std::mem::forget(tx); // the stream stays open
                        let body = Fed { rx, dropped: closed.lock().unwrap().take() };
                        let response = http::Response::builder().header("content-type", "text/event-stream");
                        return Ok::<_, std::convert::Infallible>(response.body(BoxBody::new(body)).unwrap());
                    }
                    let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"resultType": "complete",
                        "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": true}}}});
                    let response = http::Response::builder().header("content-type", "application/json");
                    Ok(response.body(BoxBody::new(Full::new(bytes::Bytes::from(reply.to_string())))).unwrap())
                }
            });
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    url
}

/// A `GET` without `Last-Event-ID` is the session's standalone stream: the
/// bridge opens the upstream's notification stream (`subscriptions/listen`)
/// and relays each list change, without the subscription's `_meta` and
/// without the acknowledgement; when the client leaves, the upstream stream
/// is closed. (An upstream without one leaves the `GET` `405`:
/// `sessions_are_bounded_and_answers_stay_in_their_session`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standalone_stream_relays_the_upstreams_list_changes() {
    let (closed_tx, closed) = tokio::sync::oneshot::channel();
    let url = listening_upstream(closed_tx).await;
    let mut bridge = bridge(&url, |_| {}).await;
    let mut client = Legacy::new(&bridge.url());
    client.initialize(capabilities()).await;
    let response = client.standalone().await;
    let mut events = Events::new(response);
    let changed = events.next().await.expect("a list change");
    assert_eq!(
        changed,
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {}}})
    );
    drop(events);
    tokio::time::timeout(Duration::from_secs(10), closed).await.expect("the upstream stream is closed").unwrap();
    bridge.stop().await;
    assert_eq!(violations(&bridge.client), Vec::<String>::new());
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
}
