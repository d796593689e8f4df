//! The client side's live page draws its timeline (issue #46): a call
//! through the bridge that asked is an operation on the `2025-11-25` side's
//! page, its rounds spans of that side's entries, though that side's checker
//! sees no `input_required` round (the questions go on the call's stream).
//! Against a small MRTR upstream written here, so the test needs no peer.

mod common;

use common::{bridge, call, Legacy};
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};

/// An MRTR upstream (`2026-07-28`): `server/discover` answered; a first
/// `tools/call` asks `rounds` times for a login (an `input_required` with
/// the state `s<n>`), the retry of the last round completes.
async fn asking_upstream(rounds: u64) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let service = service_fn(move |req: http::Request<hyper::body::Incoming>| async move {
                let body = req.into_body().collect().await.unwrap().to_bytes();
                let message: Value = serde_json::from_slice(&body).unwrap();
                let asked = message["params"]["requestState"].as_str().and_then(|s| s.strip_prefix('s'));
                let asked: u64 = asked.map_or(0, |n| n.parse().unwrap());
                let result = match message["method"].as_str() {
                    Some("tools/call") if asked < rounds => json!({"resultType": "input_required",
                        "inputRequests": {"login": {"method": "elicitation/create", "params": {"mode": "form",
                            "message": "Your login?", "requestedSchema": {"type": "object",
                            "properties": {"units": {"type": "string"}}}}}},
                        "requestState": format!("s{}", asked + 1)}),
                    Some("tools/call") => {
                        json!({"resultType": "complete", "content": [{"type": "text", "text": "Sunny"}]})
                    }
                    _ => json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                        "capabilities": {"tools": {}}, "serverInfo": {"name": "asking", "version": "1"}}),
                };
                let reply = json!({"jsonrpc": "2.0", "id": message["id"], "result": result});
                let response = http::Response::builder().header("content-type", "application/json");
                Ok::<_, std::convert::Infallible>(
                    response.body(Full::new(bytes::Bytes::from(reply.to_string()))).unwrap(),
                )
            });
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    url
}

/// The client side's page data (`state.json`).
async fn client_page(ui: std::net::SocketAddr) -> Value {
    let (status, body) = Legacy::new(&format!("http://{ui}/state.json")).get().await;
    assert_eq!(status, http::StatusCode::OK);
    serde_json::from_str(&body).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_sides_page_shows_each_call_that_asked_as_an_operation() {
    let url = asking_upstream(2).await;
    let mut bridge = bridge(&url, |c| c.ui = Some("127.0.0.1:0".parse().unwrap())).await;
    let mut client = Legacy::new(&bridge.url());
    client.initialize(json!({"elicitation": {"form": {}}})).await;
    let ui = bridge.ui.expect("the pages' address");
    assert_eq!(client_page(ui).await["operations"], json!([]), "no call yet");
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"city": "Paris"}}});
    let (response, asked) = call(&client, &request).await;
    assert_eq!(response["result"]["content"][0]["text"], "Sunny", "{response}");
    assert_eq!(asked.len(), 2, "two rounds of questions");
    // A call that asks nothing is no operation.
    let list = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"});
    client.post(&list).await.into_body().collect().await.unwrap();

    let page = client_page(ui).await;
    let operations = page["operations"].as_array().unwrap();
    assert_eq!(operations.len(), 1, "{page}");
    let op = &operations[0];
    assert_eq!((&op["method"], &op["target"], &op["rounds"]), (&json!("tools/call"), &json!("get_weather"), &json!(2)));
    // Each round a span of the side's entries, in order, from the entry
    // that opened it (the call's POST, then each answer's POST) to the
    // question (then the final response) that closed it.
    let spans: Vec<(u64, u64)> =
        op["spans"].as_array().unwrap().iter().map(|s| (s[0].as_u64().unwrap(), s[1].as_u64().unwrap())).collect();
    assert_eq!(spans.len(), 3, "{page}");
    assert!(spans.windows(2).all(|w| w[0].1 < w[1].0) && spans.iter().all(|(a, b)| a < b), "{spans:?}");
    assert_eq!((op["started"].as_u64(), op["finished"].as_u64()), (Some(spans[0].0), Some(spans[2].1)));
    let entry = |i: u64| page["entries"].as_array().unwrap().iter().find(|e| e["index"] == i).cloned().unwrap();
    let label = |i: u64| entry(i)["label"].as_str().unwrap().to_string();
    assert_eq!(label(spans[0].0), "POST tools/call #7");
    assert!(label(spans[0].1).contains("elicitation/create"), "{}", label(spans[0].1));
    assert!(label(spans[1].0).starts_with("POST result"), "an answer's POST: {}", label(spans[1].0));
    assert!(label(spans[2].1).contains("complete #7"), "{}", label(spans[2].1));
    // The page draws them: an axis in milliseconds, every span's ends timed.
    assert_eq!(page["clock"], "ms", "{page}");
    assert!(spans.iter().all(|(a, b)| entry(*a)["at"].is_u64() && entry(*b)["at"].is_u64()));
    // Shown, not reported: the side's reports and counts are its checker's.
    assert_eq!(bridge.client.summary().operations, 0);
    assert_eq!(bridge.upstream.summary().operations, 1);
    bridge.stop().await;
}
