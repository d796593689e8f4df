//! The reverse bridge (`--upstream-protocol 2025-11-25`): MRTR clients
//! (`2026-07-28`) in front of servers that speak only `2025-11-25`.
//!
//! Programs nobody here wrote: the official SDKs' clients in `2026-07-28`
//! mode (`peers/py_client.py`, `peers/ts_client.mjs`) and mrtr's own
//! (`peers/mrtr_client.mjs`) running the peers' scenarios through the bridge
//! to `2025-11-25` servers (mrtr's `peers/mrtr_server.py`, the Go SDK's
//! `target/peers-go/go-server`, the Python SDK's `peers/py_server.py`); both
//! sides' checkers (live, and the records again offline) must find nothing.
//! Then a hand-written MRTR client for what no SDK client does on purpose:
//! a retry that lands on another instance, a tampered state, a replay, a
//! client that never retries.

mod common;

use bytes::Bytes;
use common::{answer_to, bridge, free_port, mrtr_server, python, recheck, root, upstream, violations, Running};
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::{Frame, Incoming};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mrtr::Protocol;
use mrtr_bridge::Config;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::process::Command;

/// A reverse bridge to `upstream`, `adjust`ed.
async fn reverse(upstream: &str, adjust: impl FnOnce(&mut Config)) -> Running {
    bridge(upstream, |c| {
        c.upstream_protocol = Protocol::V2025_11_25;
        adjust(c);
    })
    .await
}

// ---- The SDKs' clients -----------------------------------------------------------------------

/// Runs `client URL 2026-07-28` (scenarios `scenarios`) through a reverse
/// bridge to `server`: its exit status and what it printed; the bridge stopped.
async fn run_client(bridge: &mut Running, client: &[PathBuf], scenarios: &str) -> (bool, String) {
    let run = Command::new(&client[0])
        .args(&client[1..])
        .arg(bridge.url())
        .arg("2026-07-28")
        .env("PEER_SCENARIOS", scenarios)
        .current_dir(root())
        .kill_on_drop(true)
        .output();
    let done = tokio::time::timeout(Duration::from_secs(90), run).await.expect("the client hung").unwrap();
    bridge.stop().await;
    let said = format!("{}{}", String::from_utf8_lossy(&done.stdout), String::from_utf8_lossy(&done.stderr));
    (done.status.success(), said)
}

/// Both sides compliant, live and recorded; `operations` multi-round
/// operations on the client side; nothing left under way.
fn assert_clean(bridge: &Running, operations: u64) {
    assert_eq!(violations(&bridge.client), Vec::<String>::new());
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
    assert_eq!(bridge.client.summary().operations, operations, "{:?}", bridge.client.monitor().reports());
    assert_eq!(bridge.upstream.summary().operations, 0, "no input_required goes upstream");
    assert_eq!(recheck(&bridge.records.0, Protocol::V2026_07_28), Vec::<String>::new());
    assert_eq!(recheck(&bridge.records.1, Protocol::V2025_11_25), Vec::<String>::new());
    assert_eq!(bridge.gauges.calls(), 0, "a call left under way");
}

fn py_client() -> Vec<PathBuf> {
    vec![python(), root().join("peers/py_client.py")]
}

fn node(script: &str) -> Vec<PathBuf> {
    vec!["node".into(), root().join(script)]
}

/// The key pairing: the Python SDK client (2026-07-28) through every
/// scenario it runs (a one-round elicitation first) to mrtr's server in
/// 2025-11-25. Nine operations: the six tool calls' rounds, review, notes,
/// sign_in; reserve is answered at once (no state to shed load with), and
/// no_capability is refused by the bridge with -32021 (its ask needs
/// elicitation, which that request did not declare).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_to_the_mrtr_server() {
    let server = mrtr_server().await;
    let mut bridge = reverse(&server.url, |_| {}).await;
    let (ok, said) = run_client(&mut bridge, &py_client(), "reserve,sign_in,no_capability").await;
    assert!(ok, "{said}");
    assert_clean(&bridge, 9);
}

/// The TypeScript SDK client: every scenario, form_only too (ten operations).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_client_to_the_mrtr_server() {
    let server = mrtr_server().await;
    let mut bridge = reverse(&server.url, |_| {}).await;
    let (ok, said) =
        run_client(&mut bridge, &node("peers/ts_client.mjs"), "reserve,sign_in,no_capability,form_only").await;
    assert!(ok, "{said}");
    assert_clean(&bridge, 10);
}

/// mrtr's own client (the Node binding's operation) to the Go SDK's server
/// in 2025-11-25: every tool and prompt round goes through; the Go SDK does
/// not ask a resources/read handler's questions on 2025-11-25 (its own
/// error), so the client stops there, with compliant traffic on both sides.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mrtr_client_to_the_go_sdk_server() {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from);
    let go = target.join("peers-go/go-server");
    assert!(go.exists(), "build it: bash peers/go/build.sh");
    let server = upstream(&go, &[]).await;
    let mut bridge = reverse(&server.url, |_| {}).await;
    let (ok, said) = run_client(&mut bridge, &node("peers/mrtr_client.mjs"), "").await;
    assert!(!ok && said.contains("read handler returned nil information"), "{said}");
    assert!(said.contains("ok   prompts/get review"), "{said}");
    assert_clean(&bridge, 7);
}

/// The Python SDK client to the Python SDK's own server in 2025-11-25: the
/// tools' rounds go through (their `Resolve` parameters become server
/// requests); the server answers a prompt that needs input with -32603 on
/// 2025-11-25, where the client stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_to_the_python_sdk_server() {
    let script = root().join("peers/py_server.py");
    let server = upstream(&python(), &[script.to_str().unwrap()]).await;
    let mut bridge = reverse(&server.url, |_| {}).await;
    let (ok, said) = run_client(&mut bridge, &py_client(), "").await;
    assert!(!ok && said.contains("Handler returned an invalid result"), "{said}");
    assert_clean(&bridge, 6);
}

// ---- A hand-written MRTR client ---------------------------------------------------------------

/// POSTs `message` as a `2026-07-28` client does (the mirrored header
/// fields from its body): the status and the JSON body.
async fn post(url: &str, message: &Value) -> (StatusCode, Value) {
    post_with(url, message, &[]).await
}

/// The same, with header fields `instead` in place of the mirrored ones of
/// those names, and any other field of `instead` added.
async fn post_with(url: &str, message: &Value, instead: &[(&str, &str)]) -> (StatusCode, Value) {
    let http: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(HttpConnector::new());
    let mut request = Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in mrtr::protocol::mirrored_fields(message) {
        let given = instead.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
        if let Some(value) = given.or(value) {
            request = request.header(name, value);
        }
    }
    for (name, value) in
        instead.iter().filter(|(n, _)| mrtr::protocol::mirrored_fields(message).iter().all(|(m, _)| m != n))
    {
        request = request.header(*name, *value);
    }
    let response = http.request(request.body(Full::new(Bytes::from(message.to_string()))).unwrap()).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// `tools/call` of `name` with `arguments`, declaring elicitation.
fn call(id: u64, name: &str, arguments: Value) -> Value {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
                      "io.modelcontextprotocol/clientInfo": {"name": "reverse-test", "version": "1.0.0"}});
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments, "_meta": meta}})
}

/// The retry of `first` (answered `asked`, an input_required result) under
/// `id`, each question answered, with `state`.
fn retry(first: &Value, asked: &Value, id: u64, state: &str) -> Value {
    let questions = asked["result"]["inputRequests"].as_object().unwrap();
    let answers: serde_json::Map<String, Value> = questions.iter().map(|(k, q)| (k.clone(), answer_to(q))).collect();
    let mut again = first.clone();
    again["id"] = id.into();
    again["params"]["inputResponses"] = Value::Object(answers);
    again["params"]["requestState"] = state.into();
    again
}

/// The rule a refusal names.
fn rule(response: &Value) -> &str {
    response["error"]["data"]["rule"].as_str().unwrap_or_default()
}

/// A key file both instances read.
fn key_file() -> PathBuf {
    let path = std::env::temp_dir().join(format!("mrtr-reverse-key-{}-{}", std::process::id(), free_port()));
    std::fs::write(&path, "8f3a61c2d94e07b5a1f6e8239c4d70b2e5196a3fc8d24b0e7f5a91c36e2d48b7").unwrap();
    path
}

/// Behind a load balancer, two instances share the key: a retry that lands
/// on the instance that did not seal its state is refused,
/// `state-wrong-request`, naming the instance where the call is parked; the
/// same retry on that instance completes the call, and once answered the
/// state cannot be replayed (`state-replayed`). A state changed by one byte
/// is `state-tampered`; an instance without the key calls it
/// `state-unknown-key`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_on_another_instance_is_refused_and_a_state_is_used_once() {
    let server = mrtr_server().await;
    let key = key_file();
    let mut a = reverse(&server.url, |c| (c.state_key_file, c.instance) = (Some(key.clone()), Some("a".into()))).await;
    let mut b = reverse(&server.url, |c| (c.state_key_file, c.instance) = (Some(key.clone()), Some("b".into()))).await;
    let mut c = reverse(&server.url, |_| {}).await; // a random key of its own
    let first = call(1, "get_weather", json!({"location": "Oslo"}));
    let (status, asked) = post(&a.url(), &first).await;
    assert_eq!((status, &asked["result"]["resultType"]), (StatusCode::OK, &json!("input_required")), "{asked}");
    let state = asked["result"]["requestState"].as_str().unwrap().to_string();

    let (status, refused) = post(&b.url(), &retry(&first, &asked, 2, &state)).await;
    assert_eq!(
        (status, refused["error"]["code"].as_i64(), rule(&refused)),
        (StatusCode::BAD_REQUEST, Some(-32602), "state-wrong-request")
    );
    assert!(refused["error"]["message"].as_str().unwrap().contains("\"a\""), "{refused}");
    let (_, unknown) = post(&c.url(), &retry(&first, &asked, 3, &state)).await;
    assert_eq!(rule(&unknown), "state-unknown-key", "{unknown}");
    let mut bytes = state.clone().into_bytes();
    bytes[20] = if bytes[20] == b'A' { b'B' } else { b'A' };
    let (_, tampered) = post(&a.url(), &retry(&first, &asked, 4, &String::from_utf8(bytes).unwrap())).await;
    assert_eq!(rule(&tampered), "state-tampered", "{tampered}");

    let (status, done) = post(&a.url(), &retry(&first, &asked, 5, &state)).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "Oslo: 22 degrees celsius");
    assert_eq!(done["result"]["resultType"], "complete");
    let (_, replayed) = post(&a.url(), &retry(&first, &asked, 6, &state)).await;
    assert_eq!(rule(&replayed), "state-replayed", "{replayed}");
    for bridge in [&mut a, &mut b, &mut c] {
        bridge.stop().await;
        assert_eq!(bridge.gauges.calls(), 0);
    }
    // The refusals are the bridge's own answers to a compliant client's retries: nothing to report.
    assert_eq!(violations(&a.upstream), Vec::<String>::new());
    let _ = std::fs::remove_file(key);
}

/// A retry must be of the same request: other arguments under the state
/// are `state-wrong-request` (the binding), and the parked call goes on
/// waiting for the right one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_answers_only_its_own_request() {
    let server = mrtr_server().await;
    let mut bridge = reverse(&server.url, |_| {}).await;
    let first = call(1, "get_weather", json!({"location": "Oslo"}));
    let (_, asked) = post(&bridge.url(), &first).await;
    let state = asked["result"]["requestState"].as_str().unwrap().to_string();
    let mut other = retry(&first, &asked, 2, &state);
    other["params"]["arguments"]["location"] = "Lima".into();
    let (_, refused) = post(&bridge.url(), &other).await;
    assert_eq!(rule(&refused), "state-wrong-request", "{refused}");
    assert_eq!(bridge.gauges.calls(), 1, "the call still waits for its retry");
    bridge.stop().await;
}

/// What a `2026-07-28` server refuses, the bridge refuses with the core's
/// rule and status, before anything goes upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_refused_with_their_rules() {
    let server = mrtr_server().await;
    let mut bridge = reverse(&server.url, |_| {}).await;
    let mut bare = call(1, "get_weather", json!({}));
    bare["params"].as_object_mut().unwrap().remove("_meta");
    let (status, refused) = post(&bridge.url(), &bare).await;
    assert_eq!((status, rule(&refused)), (StatusCode::BAD_REQUEST, "request-meta-missing"));
    let mut older = call(2, "get_weather", json!({}));
    older["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01".into();
    let (_, refused) = post(&bridge.url(), &older).await;
    assert_eq!((rule(&refused), &refused["error"]["code"]), ("protocol-version-unsupported", &json!(-32022)));
    assert_eq!(refused["error"]["data"]["supported"], json!(["2026-07-28"]));
    let mismatched = call(5, "get_weather", json!({}));
    let (status, refused) = post_with(&bridge.url(), &mismatched, &[("mcp-name", "book_trip")]).await;
    assert_eq!((status, rule(&refused)), (StatusCode::BAD_REQUEST, "request-header-mismatch"), "{refused}");
    let text = Client::builder(TokioExecutor::new()).build(HttpConnector::new());
    let request = Request::post(bridge.url()).header("content-type", "application/json");
    let response: Response<Incoming> = text.request(request.body(Full::new(Bytes::from("{"))).unwrap()).await.unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let get = Request::get(bridge.url()).body(Full::new(Bytes::new())).unwrap();
    assert_eq!(text.request(get).await.unwrap().status(), StatusCode::METHOD_NOT_ALLOWED);
    let (status, found) = post(
        &bridge.url(),
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
        "params": {"_meta": call(0, "x", json!({}))["params"]["_meta"]}}),
    )
    .await;
    assert_eq!((status, &found["result"]["resultType"]), (StatusCode::OK, &json!("complete")), "{found}");
    bridge.stop().await;
    let rules: Vec<String> = violations(&bridge.client).iter().map(|v| v.split(' ').nth(2).unwrap().into()).collect();
    // The checker sees the faults the bridge refused: no header for a body without _meta to mirror.
    let want = ["request-header-mismatch", "request-meta-missing", "request-header-mismatch", "jsonrpc-parse-error"];
    assert_eq!(rules, want);
}

// ---- A client that never retries ------------------------------------------------------------

/// A `2025-11-25` server that asks one elicitation on a call's stream and
/// waits. It counts the call streams open now (a stream's body dropped is
/// its connection closed by the bridge) and the `initialize`s; a restart
/// forgets its sessions (a request naming one is `404`, as Streamable HTTP
/// answers an unknown `Mcp-Session-Id`).
#[derive(Clone, Default)]
struct Asking {
    url: String,
    open: Arc<AtomicUsize>,
    initialized: Arc<AtomicUsize>,
    /// The session id it knows: `s-N` after its Nth restart.
    generation: Arc<AtomicUsize>,
}

impl Asking {
    fn restart(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    fn session(&self) -> String {
        format!("s-{}", self.generation.load(Ordering::SeqCst))
    }
}

/// A stream body's count in [`Asking::open`], given back when it is dropped.
struct Counted {
    open: Arc<AtomicUsize>,
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn asking_server() -> Asking {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Asking { url: format!("http://{}/mcp", listener.local_addr().unwrap()), ..Asking::default() };
    let serving = server.clone();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let server = serving.clone();
            let service = hyper::service::service_fn(move |req| serve_asking(req, server.clone()));
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    server
}

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// A JSON (or empty) response in the server's session.
fn reply(status: u16, body: Option<Value>, session: &str) -> Response<Body> {
    let text = body.map(|b| b.to_string()).unwrap_or_default();
    let mut r = Response::new(Full::new(Bytes::from(text)).map_err(|e| match e {}).boxed());
    *r.status_mut() = StatusCode::from_u16(status).unwrap();
    r.headers_mut().insert("content-type", "application/json".parse().unwrap());
    r.headers_mut().insert("mcp-session-id", session.parse().unwrap());
    r
}

/// `initialize` → the session; a request naming another session → `404`;
/// `tools/call` → an event stream with one elicitation, held open;
/// `tools/list` → no tools; anything else → `202`.
async fn serve_asking(req: Request<Incoming>, server: Asking) -> Result<Response<Body>, Infallible> {
    let named = req.headers().get("mcp-session-id").and_then(|v| v.to_str().ok()).map(String::from);
    let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (session, id) = (server.session(), message["id"].clone());
    if message["method"] == "initialize" {
        server.initialized.fetch_add(1, Ordering::SeqCst);
        let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                            "serverInfo": {"name": "asking", "version": "1"}});
        return Ok(reply(200, Some(json!({"jsonrpc": "2.0", "id": id, "result": result})), &session));
    }
    if named.as_deref() != Some(session.as_str()) {
        let gone = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Session not found"}});
        return Ok(reply(404, Some(gone), &session));
    }
    match message["method"].as_str() {
        Some("tools/call") => {
            let ask = json!({"jsonrpc": "2.0", "id": 7, "method": "elicitation/create", "params": {
                "mode": "form", "message": "Which units?",
                "requestedSchema": {"type": "object", "properties": {"units": {"type": "string"}}}}});
            server.open.fetch_add(1, Ordering::SeqCst);
            let counted = Counted { open: server.open.clone() };
            let held = Held { first: Some(Bytes::from(format!("data: {ask}\n\n"))), _counted: counted };
            let mut r = Response::new(held.boxed());
            r.headers_mut().insert("content-type", "text/event-stream".parse().unwrap());
            Ok(r)
        }
        Some("tools/list") => {
            Ok(reply(200, Some(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}})), &session))
        }
        _ => Ok(reply(202, None, &session)),
    }
}

/// A response body: `first`, then nothing, open for as long as the bridge
/// keeps it (`counted` goes with it).
struct Held {
    first: Option<Bytes>,
    _counted: Counted,
}

impl http_body::Body for Held {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.first.take() {
            Some(bytes) => std::task::Poll::Ready(Some(Ok(Frame::data(bytes)))),
            None => std::task::Poll::Pending,
        }
    }
}

/// Upstream restarted and forgot the bridge's (shared) session: the next request
/// (a relayed `tools/list`, then a call) opens a new one and goes through,
/// rather than failing for as long as the bridge runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_upstream_forgot_is_opened_again() {
    let server = asking_server().await;
    let mut bridge = reverse(&server.url, |c| c.share_upstream_sessions = true).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                      "params": {"_meta": call(0, "x", json!({}))["params"]["_meta"]}});
    let (status, listed) = post(&bridge.url(), &list).await;
    assert_eq!((status, &listed["result"]["tools"]), (StatusCode::OK, &json!([])), "{listed}");
    server.restart();
    let (status, listed) = post(&bridge.url(), &list).await;
    assert_eq!((status, &listed["result"]["tools"]), (StatusCode::OK, &json!([])), "{listed}");
    assert_eq!(server.initialized.load(Ordering::SeqCst), 2);
    server.restart();
    let (status, asked) = post(&bridge.url(), &call(2, "get_weather", json!({"location": "Oslo"}))).await;
    assert_eq!((status, &asked["result"]["resultType"]), (StatusCode::OK, &json!("input_required")), "{asked}");
    assert_eq!((server.initialized.load(Ordering::SeqCst), bridge.gauges.upstream_sessions()), (3, 1));
    bridge.stop().await;
}

/// A client that asks and never retries leaves nothing behind: after
/// `--timeout` the parked call is gone, its upstream stream closed, and a
/// late retry is refused `state-expired`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_retries_leaves_nothing_behind() {
    let server = asking_server().await;
    let mut bridge = reverse(&server.url, |c| c.timeout = Duration::from_secs(1)).await;
    let first = call(1, "get_weather", json!({"location": "Oslo"}));
    let (status, asked) = post(&bridge.url(), &first).await;
    assert_eq!(status, StatusCode::OK, "{asked}");
    let questions = asked["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(questions["7"]["params"]["message"], "Which units?");
    assert_eq!((bridge.gauges.calls(), server.open.load(Ordering::SeqCst)), (1, 1));
    tokio::time::sleep(Duration::from_millis(1600)).await;
    assert_eq!(bridge.gauges.calls(), 0, "the parked call is dropped");
    assert_eq!(server.open.load(Ordering::SeqCst), 0, "its upstream stream is closed");
    let state = asked["result"]["requestState"].as_str().unwrap();
    let (_, late) = post(&bridge.url(), &retry(&first, &asked, 2, state)).await;
    assert_eq!(rule(&late), "state-expired", "{late}");
    bridge.stop().await;
    assert_eq!(violations(&bridge.client), Vec::<String>::new());
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
    assert_eq!(recheck(&bridge.records.1, Protocol::V2025_11_25), Vec::<String>::new());
}

/// A bridge that may carry one call refuses a second while the first is
/// parked (`limit-exceeded`, 503), and takes it once the first is over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_under_way_are_bounded() {
    let server = mrtr_server().await;
    let mut bridge = reverse(&server.url, |c| c.max_sessions = 1).await;
    let first = call(1, "get_weather", json!({"location": "Oslo"}));
    let (_, asked) = post(&bridge.url(), &first).await;
    let (status, busy) = post(&bridge.url(), &call(2, "get_weather", json!({"location": "Lima"}))).await;
    assert_eq!((status, rule(&busy)), (StatusCode::SERVICE_UNAVAILABLE, "limit-exceeded"), "{busy}");
    let state = asked["result"]["requestState"].as_str().unwrap();
    let (_, done) = post(&bridge.url(), &retry(&first, &asked, 3, state)).await;
    assert_eq!(done["result"]["content"][0]["text"], "Oslo: 22 degrees celsius");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (_, again) = post(&bridge.url(), &call(4, "get_weather", json!({"location": "Lima"}))).await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");
    bridge.stop().await;
}

/// `--ui` in this direction: the client side's page (2026-07-28: the call's
/// rounds as one operation) and the upstream side's (2025-11-25: the server
/// request on the call's stream), each titled with its protocol.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_side_has_a_live_page() {
    let server = mrtr_server().await;
    let mut bridge = reverse(&server.url, |c| c.ui = Some("127.0.0.1:0".parse().unwrap())).await;
    let first = call(1, "get_weather", json!({"location": "Paris"}));
    let (_, asked) = post(&bridge.url(), &first).await;
    let state = asked["result"]["requestState"].as_str().unwrap();
    let (_, done) = post(&bridge.url(), &retry(&first, &asked, 2, state)).await;
    assert_eq!(done["result"]["content"][0]["text"], "Paris: 22 degrees celsius");
    let ui = bridge.ui.expect("the pages' address");
    let http: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(HttpConnector::new());
    let page = |path: &str| {
        let request = Request::get(format!("http://{ui}{path}")).body(Full::new(Bytes::new())).unwrap();
        let response = http.request(request);
        async move { json_of(response.await.unwrap()).await }
    };
    let client_side = page("/state.json").await;
    assert!(client_side["title"].as_str().unwrap().contains("client side (2026-07-28)"), "{client_side}");
    let operations = client_side["operations"].as_array().unwrap();
    assert_eq!(operations.len(), 1, "{client_side}");
    assert_eq!(operations[0]["spans"].as_array().unwrap().len(), 2, "two rounds: the call and its retry");
    let upstream_side = page("/upstream/state.json").await;
    assert!(upstream_side["title"].as_str().unwrap().contains("upstream side (2025-11-25)"), "{upstream_side}");
    let labels = upstream_side["entries"].as_array().unwrap().iter().filter_map(|e| e["label"].as_str());
    assert!(labels.clone().any(|l| l.contains("elicitation/create")), "{upstream_side}");
    bridge.stop().await;
}

/// A whole JSON body.
async fn json_of(response: Response<Incoming>) -> Value {
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap()
}

// ---- Whose upstream session (review N4) -------------------------------------------------------

/// A `2025-11-25` server that keeps a secret per session, as servers keep
/// logins and conversations: `remember` stores its `secret` argument in the
/// caller's session, `recall` returns what the caller's session holds.
/// `DELETE` ends a session; it counts the sessions it holds and the
/// credential each `initialize` carried.
#[derive(Clone, Default)]
struct Remembering {
    url: String,
    sessions: Arc<std::sync::Mutex<std::collections::HashMap<String, String>>>,
    opened: Arc<AtomicUsize>,
    credentials: Arc<std::sync::Mutex<Vec<Option<String>>>>,
}

async fn remembering_server() -> Remembering {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Remembering { url: format!("http://{}/mcp", listener.local_addr().unwrap()), ..Default::default() };
    let serving = server.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let server = serving.clone();
            let service = hyper::service::service_fn(move |req| serve_remembering(req, server.clone()));
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    server
}

async fn serve_remembering(req: Request<Incoming>, server: Remembering) -> Result<Response<Body>, Infallible> {
    let text = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).map(String::from);
    let (named, credential, method) = (text("mcp-session-id"), text("authorization"), req.method().clone());
    let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut sessions = server.sessions.lock().unwrap();
    if message["method"] == "initialize" {
        let session = format!("r-{}", server.opened.fetch_add(1, Ordering::SeqCst));
        sessions.insert(session.clone(), String::new());
        server.credentials.lock().unwrap().push(credential);
        let result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                            "serverInfo": {"name": "remembering", "version": "1"}});
        return Ok(reply(200, Some(json!({"jsonrpc": "2.0", "id": message["id"], "result": result})), &session));
    }
    let Some(session) = named.filter(|s| sessions.contains_key(s)) else {
        return Ok(reply(
            404,
            Some(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Session not found"}})),
            "none",
        ));
    };
    if method == http::Method::DELETE {
        sessions.remove(&session);
        return Ok(reply(200, None, &session));
    }
    let arguments = &message["params"]["arguments"];
    let said = match message["params"]["name"].as_str() {
        Some("remember") => {
            sessions.insert(session.clone(), arguments["secret"].as_str().unwrap_or_default().to_string());
            "remembered".to_string()
        }
        Some("recall") => format!("secret={}", sessions[&session]),
        _ => return Ok(reply(202, None, &session)),
    };
    let result = json!({"content": [{"type": "text", "text": said}]});
    Ok(reply(200, Some(json!({"jsonrpc": "2.0", "id": message["id"], "result": result})), &session))
}

/// What a `recall` answered.
fn recalled(response: &Value) -> &str {
    response["result"]["content"][0]["text"].as_str().unwrap_or_default()
}

/// Review N4, the attack: a second MRTR client declaring the same
/// capabilities and `clientInfo` (both public) as the first must not land
/// in the first one's upstream session. Without a credential each request
/// has a session of its own, ended (`DELETE`) when it is done: nothing of
/// one client's is left for another to read, and nothing is left open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_never_reads_another_ones_upstream_session() {
    let server = remembering_server().await;
    let mut bridge = reverse(&server.url, |_| {}).await;
    let (_, stored) = post(&bridge.url(), &call(1, "remember", json!({"secret": "VICTIM-TOKEN-123"}))).await;
    assert_eq!(recalled(&stored), "remembered", "{stored}");
    let (_, stolen) = post(&bridge.url(), &call(1, "recall", json!({}))).await;
    assert_eq!(recalled(&stolen), "secret=", "{stolen}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.sessions.lock().unwrap().len(), 0, "each request's session ended with it");
    assert_eq!((server.opened.load(Ordering::SeqCst), bridge.gauges.upstream_sessions()), (2, 0));
    bridge.stop().await;
}

/// A client presenting a credential shares its upstream session with that
/// credential only, which goes upstream with every request; another
/// credential is another session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_keeps_its_own_upstream_session() {
    let server = remembering_server().await;
    let mut bridge = reverse(&server.url, |_| {}).await;
    let (alice, bob) = ([("authorization", "Bearer alice")], [("authorization", "Bearer bob")]);
    let (_, stored) = post_with(&bridge.url(), &call(1, "remember", json!({"secret": "alice's"})), &alice).await;
    assert_eq!(recalled(&stored), "remembered", "{stored}");
    let (_, again) = post_with(&bridge.url(), &call(2, "recall", json!({})), &alice).await;
    assert_eq!(recalled(&again), "secret=alice's", "{again}");
    let (_, other) = post_with(&bridge.url(), &call(3, "recall", json!({})), &bob).await;
    assert_eq!(recalled(&other), "secret=", "{other}");
    assert_eq!(bridge.gauges.upstream_sessions(), 2);
    let carried = server.credentials.lock().unwrap().clone();
    assert_eq!(carried, vec![Some("Bearer alice".to_string()), Some("Bearer bob".to_string())]);
    bridge.stop().await;
}

/// Opted in (`--share-upstream-sessions`, for a server that keeps nothing
/// per session), clients declaring the same thing share, as documented.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shared_upstream_sessions_are_an_opt_in() {
    let server = remembering_server().await;
    let mut bridge = reverse(&server.url, |c| c.share_upstream_sessions = true).await;
    post(&bridge.url(), &call(1, "remember", json!({"secret": "shared"}))).await;
    let (_, read) = post(&bridge.url(), &call(1, "recall", json!({}))).await;
    assert_eq!(recalled(&read), "secret=shared", "{read}");
    assert_eq!(server.opened.load(Ordering::SeqCst), 1);
    bridge.stop().await;
}

/// POSTs `message` from the loopback address `from` (the quotas key by it).
async fn post_from(from: [u8; 4], url: &str, message: &Value) -> (StatusCode, Value) {
    let mut connector = HttpConnector::new();
    connector.set_local_address(Some(from.into()));
    let http: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build(connector);
    let mut request = Request::post(url).header("content-type", "application/json");
    for (name, value) in mrtr::protocol::mirrored_fields(message) {
        if let Some(value) = value {
            request = request.header(name, value);
        }
    }
    let response = http.request(request.body(Full::new(Bytes::from(message.to_string()))).unwrap()).await.unwrap();
    let status = response.status();
    (status, serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes()).unwrap_or(Value::Null))
}

/// Review N5 in this direction: one client address's parked calls take only
/// its own share of `--max-sessions`; another address's call is still taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_peers_parked_calls_take_only_its_share() {
    let server = asking_server().await;
    let mut bridge = reverse(&server.url, |c| (c.max_sessions, c.max_sessions_per_peer) = (4, Some(2))).await;
    let url = bridge.url();
    for id in 1..=2 {
        let (status, asked) =
            post_from([127, 0, 0, 66], &url, &call(id, "get_weather", json!({"location": "Oslo"}))).await;
        assert_eq!((status, &asked["result"]["resultType"]), (StatusCode::OK, &json!("input_required")), "{asked}");
    }
    let (status, refused) =
        post_from([127, 0, 0, 66], &url, &call(3, "get_weather", json!({"location": "Oslo"}))).await;
    assert_eq!((status, rule(&refused)), (StatusCode::SERVICE_UNAVAILABLE, "limit-exceeded"), "{refused}");
    let (status, asked) = post_from([127, 0, 0, 1], &url, &call(4, "get_weather", json!({"location": "Lima"}))).await;
    assert_eq!((status, &asked["result"]["resultType"]), (StatusCode::OK, &json!("input_required")), "{asked}");
    assert_eq!(bridge.gauges.calls(), 3);
    bridge.stop().await;
}
