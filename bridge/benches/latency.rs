//! What the bridge and the proxy add to a call, side by side in one run.
//!
//! One two-round `tools/call` (an `input_required` round asking one form
//! question, then the final result) against an MRTR server in this process
//! on 127.0.0.1, made three ways on kept-alive connections:
//! - `direct`: an MRTR client, two POSTs (the call, then its retry with the
//!   answer and the exact `requestState`);
//! - `through mrtr proxy`: the same two POSTs through the checking proxy;
//! - `through mrtr bridge`: a `2025-11-25` client through the bridge: the
//!   call's POST stream, the question read off it, the answer POSTed, the
//!   final result read (the bridge making the two POSTs upstream).
//!
//! `cargo bench -p mrtr-bridge --bench latency`

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mrtr::sse::Decoder;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use tokio::runtime::Runtime;

type Http = Client<HttpConnector, Full<Bytes>>;

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}})
}

/// The upstream's answer: `server/discover`; a first call asks for a name
/// under state `s`; a retry completes.
fn answer(request: &Value) -> Value {
    let id = &request["id"];
    let result = match (request["method"].as_str(), request["params"]["requestState"].as_str()) {
        (Some("server/discover"), _) => json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "private"}),
        (_, None) => json!({"resultType": "input_required", "requestState": "s",
            "inputRequests": {"name": {"method": "elicitation/create", "params": {"mode": "form",
                "message": "Your name?", "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}}),
        (_, Some(_)) => json!({"resultType": "complete", "content": [{"type": "text", "text": "hello"}]}),
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

async fn upstream() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            stream.set_nodelay(true).unwrap();
            let service = service_fn(|req: Request<Incoming>| async move {
                let body = req.into_body().collect().await.unwrap().to_bytes();
                let reply = answer(&serde_json::from_slice(&body).unwrap()).to_string();
                let response = Response::builder().header("content-type", "application/json");
                Ok::<_, Infallible>(response.body(Full::new(Bytes::from(reply))).unwrap())
            });
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    addr
}

fn client() -> Http {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    Client::builder(TokioExecutor::new()).build(connector)
}

async fn post(http: &Http, url: &str, body: &Value, headers: &[(&str, &str)]) -> Response<Incoming> {
    let mut request = Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    http.request(request.body(Full::new(Bytes::from(body.to_string()))).unwrap()).await.unwrap()
}

async fn json_of(response: Response<Incoming>) -> Value {
    serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes()).unwrap()
}

/// The MRTR client's call: the first request, then the retry.
async fn mrtr_call(http: &Http, url: &str) {
    let headers = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "greet")];
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "greet", "arguments": {}, "_meta": meta()}});
    let asked = json_of(post(http, url, &call, &headers).await).await;
    let mut retry = call.clone();
    retry["id"] = json!(2);
    retry["params"]["inputResponses"] = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    retry["params"]["requestState"] = asked["result"]["requestState"].clone();
    let done = json_of(post(http, url, &retry, &headers).await).await;
    assert_eq!(done["result"]["resultType"], "complete");
}

/// A `2025-11-25` session with the bridge: its id.
async fn legacy_session(http: &Http, url: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {"form": {}}}, "clientInfo": {"name": "bench", "version": "1"}}});
    let response = post(http, url, &init, &[]).await;
    let session = response.headers()["mcp-session-id"].to_str().unwrap().to_string();
    json_of(response).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    post(http, url, &initialized, &headers).await.into_body().collect().await.unwrap();
    session
}

/// The next JSON-RPC message on an event stream.
async fn next_message(body: &mut Incoming, decoder: &mut Decoder) -> Value {
    loop {
        while let Some(event) = decoder.poll_event() {
            if let Some(data) = event.unwrap().data.filter(|d| !d.trim().is_empty()) {
                return serde_json::from_str(&data).unwrap();
            }
        }
        let frame = body.frame().await.expect("the stream ended early").unwrap();
        if let Some(data) = frame.data_ref() {
            decoder.feed(data);
        }
    }
}

/// The `2025-11-25` client's call: the question off the stream, the answer POSTed, the result.
async fn legacy_call(http: &Http, url: &str, session: &str) {
    let headers = [("mcp-session-id", session), ("mcp-protocol-version", "2025-11-25")];
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet", "arguments": {}}});
    let mut body = post(http, url, &call, &headers).await.into_body();
    let mut decoder = Decoder::new();
    let question = next_message(&mut body, &mut decoder).await;
    let answer =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": "Ada"}}});
    post(http, url, &answer, &headers).await.into_body().collect().await.unwrap();
    let done = next_message(&mut body, &mut decoder).await;
    assert_eq!(done["result"]["content"][0]["text"], "hello");
}

fn bench(c: &mut Criterion) {
    let runtime = Runtime::new().unwrap();
    let (direct, proxied, bridged, session, http) = runtime.block_on(async {
        let up = upstream().await;
        let direct = format!("http://{up}/mcp");
        let proxy =
            mrtr_proxy::Proxy::bind(mrtr_proxy::Config::new("127.0.0.1:0".parse().unwrap(), direct.parse().unwrap()))
                .await
                .unwrap();
        let proxied = format!("http://{}/mcp", proxy.local_addr().unwrap());
        tokio::spawn(proxy.serve(std::future::pending()));
        let bridge = mrtr_bridge::Bridge::bind(mrtr_bridge::Config::new(
            "127.0.0.1:0".parse().unwrap(),
            direct.parse().unwrap(),
        ))
        .await
        .unwrap();
        let bridged = format!("http://{}/mcp", bridge.local_addr().unwrap());
        tokio::spawn(bridge.serve(std::future::pending()));
        let http = client();
        let session = legacy_session(&http, &bridged).await;
        (direct, proxied, bridged, session, http)
    });
    let mut group = c.benchmark_group("two-round tools/call");
    group.bench_function("direct", |b| b.iter(|| runtime.block_on(mrtr_call(&http, &direct))));
    group.bench_function("through mrtr proxy", |b| b.iter(|| runtime.block_on(mrtr_call(&http, &proxied))));
    group
        .bench_function("through mrtr bridge", |b| b.iter(|| runtime.block_on(legacy_call(&http, &bridged, &session))));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
