//! The web's rules on the bridge's endpoint, both directions, and on its
//! live pages (review N3, L9): a DNS-rebinding request and a cross-site
//! `text/plain` POST open no session and reach no upstream; an honest
//! client on the same machine is served. No upstream runs: the honest
//! `initialize` gets the bridge's own answer for an upstream that does not
//! discover.

mod common;

use bytes::Bytes;
use common::{bridge, free_port, violations};
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use mrtr::Protocol;
use serde_json::{json, Value};
use std::net::SocketAddr;

/// A request to `url` with these header fields; its status and JSON body.
async fn send(method: &str, url: &str, fields: &[(&str, &str)], body: &Value) -> (StatusCode, Value) {
    let http: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut request = Request::builder().method(method).uri(url);
    for (name, value) in fields {
        request = request.header(*name, *value);
    }
    let response = http.request(request.body(Full::new(Bytes::from(body.to_string()))).unwrap()).await.unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

const JSON: (&str, &str) = ("content-type", "application/json");
const REBIND: [(&str, &str); 3] =
    [("host", "rebind.attacker.example"), ("origin", "http://rebind.attacker.example"), JSON];

/// Nothing listens there: the upstream is never reached in these tests.
fn nowhere() -> String {
    format!("http://127.0.0.1:{}/mcp", free_port())
}

/// The `2025-11-25` endpoint: the review's two requests open no session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rebinding_and_cross_site_posts_open_no_session() {
    let mut bridge = bridge(&nowhere(), |c| c.ui = Some("127.0.0.1:0".parse().unwrap())).await;
    let (status, refused) = send("POST", &bridge.url(), &REBIND, &initialize()).await;
    assert_eq!(
        (status, refused["error"]["data"]["rule"].as_str()),
        (StatusCode::FORBIDDEN, Some("http-origin-refused"))
    );
    let simple = [("origin", "https://attacker.example"), ("content-type", "text/plain")];
    assert_eq!(send("POST", &bridge.url(), &simple, &initialize()).await.0, StatusCode::FORBIDDEN);
    let simple = [("content-type", "text/plain")];
    let (status, refused) = send("POST", &bridge.url(), &simple, &initialize()).await;
    assert_eq!(
        (status, refused["error"]["data"]["rule"].as_str()),
        (StatusCode::UNSUPPORTED_MEDIA_TYPE, Some("http-content-type-unsupported"))
    );
    assert_eq!(bridge.gauges.sessions(), 0);
    let (status, _) = send("POST", &bridge.url(), &[JSON, ("origin", "http://localhost:5173")], &initialize()).await;
    assert_eq!((status, bridge.gauges.sessions()), (StatusCode::OK, 1), "the honest local client");
    let ui: SocketAddr = bridge.ui.unwrap();
    let page = format!("http://{ui}/upstream/state.json");
    assert_eq!(send("GET", &page, &[("host", "rebind.attacker.example")], &Value::Null).await.0, StatusCode::FORBIDDEN);
    assert_eq!(send("GET", &page, &[], &Value::Null).await.0, StatusCode::OK);
    bridge.stop().await;
    let found = violations(&bridge.client);
    let refused = |rule: &str| found.iter().filter(|line| line.contains(rule)).count();
    assert_eq!(refused("http-origin-refused"), 2, "each refusal reported once: {found:?}");
    assert_eq!(refused("http-content-type-unsupported"), 1, "{found:?}");
}

/// The reverse bridge's `2026-07-28` endpoint keeps the same rules.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reverse_bridge_keeps_the_same_rules() {
    let mut bridge = bridge(&nowhere(), |c| c.upstream_protocol = Protocol::V2025_11_25).await;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}});
    assert_eq!(send("POST", &bridge.url(), &REBIND, &ping).await.0, StatusCode::FORBIDDEN);
    assert_eq!(
        send("POST", &bridge.url(), &[("content-type", "text/plain")], &ping).await.0,
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    let honest = [JSON, ("mcp-protocol-version", "2026-07-28"), ("mcp-method", "ping")];
    let (status, answer) = send("POST", &bridge.url(), &honest, &ping).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    bridge.stop().await;
}

/// What a session keeps is bounded apart from the message bound: an
/// `initialize` declaring more than 64 KiB opens no session; a body that
/// would parse to many times its text (one-digit numbers, review N6's
/// shape) is refused before anything parses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_client_sends_is_bounded_parsed_and_kept() {
    let mut bridge = bridge(&nowhere(), |_| ()).await;
    let mut declares = initialize();
    declares["params"]["capabilities"] = json!({"experimental": {"pad": "x".repeat(65 << 10)}});
    let (status, refused) = send("POST", &bridge.url(), &[JSON], &declares).await;
    assert_eq!((status, refused["error"]["data"]["rule"].as_str()), (StatusCode::BAD_REQUEST, Some("limit-exceeded")));
    let numbers: Vec<u8> = (0..600_000).map(|_| 1).collect();
    let mut heavy = initialize();
    heavy["params"]["capabilities"] = json!({"experimental": {"n": numbers}});
    assert_eq!(send("POST", &bridge.url(), &[JSON], &heavy).await.0, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(bridge.gauges.sessions(), 0);
    assert_eq!(send("POST", &bridge.url(), &[JSON], &initialize()).await.0, StatusCode::OK);
    bridge.stop().await;
}
