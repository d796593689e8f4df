//! Recordings keep what was checked (issue #46): bytes the live proxy found
//! are no message (malformed JSON, not UTF-8, an event's data that is not
//! JSON) are in its JSON Lines record and in its HAR as they came, so that
//! `mrtr check` of either gives the live verdict, at the same place.

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mrtr::check::{check_lines, read_jsonl, CheckConfig, Line};
use mrtr::Limits;
use mrtr_proxy::{Config, Proxy, Report};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::time::timeout;

const META: &str =
    r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}"#;

fn ping(id: u64) -> String {
    let meta: Value = serde_json::from_str(META).unwrap();
    json!({"jsonrpc": "2.0", "id": id, "method": "ping", "params": {"_meta": meta}}).to_string()
}

/// A body cut short, and one that is not UTF-8 (a string holding FF FE).
const CUT: &[u8] = b"{\"jsonrpc\": \"2.0\", \"id\": 2, \"result\": {";
const NOT_UTF8: &[u8] = b"{\"jsonrpc\": \"2.0\", \"id\": 3, \"result\": {\"text\": \"\xff\xfe\"}}";

/// An upstream answering by path: `/mcp/cut` and `/mcp/bytes` with the bad
/// JSON bodies above, `/mcp/sse` with a stream whose first event's data is
/// not JSON, anything else with an empty result (for a body that is no
/// request: a JSON-RPC parse error, as servers answer one).
async fn upstream() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(|req: Request<Incoming>| async move {
                    let path = req.uri().path().to_string();
                    let bytes = req.into_body().collect().await.unwrap().to_bytes();
                    let id = serde_json::from_slice::<Value>(&bytes).map(|m| m["id"].clone()).unwrap_or(Value::Null);
                    let (media, body) = match path.as_str() {
                        "/mcp/cut" => ("application/json", Bytes::from_static(CUT)),
                        "/mcp/bytes" => ("application/json", Bytes::from_static(NOT_UTF8)),
                        "/mcp/sse" => {
                            let result = json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete"}});
                            ("text/event-stream", Bytes::from(format!("data: hello\n\ndata: {result}\n\n")))
                        }
                        _ if id.is_null() => {
                            let error = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}});
                            ("application/json", Bytes::from(error.to_string()))
                        }
                        _ => {
                            let result = json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete"}});
                            ("application/json", Bytes::from(result.to_string()))
                        }
                    };
                    let response = Response::builder().header("content-type", media).body(Full::new(body)).unwrap();
                    Ok::<_, Infallible>(response)
                });
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    addr
}

fn temp_file(name: &str, ext: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    std::env::temp_dir().join(format!("mrtr-recording-{name}-{}-{nanos}.{ext}", std::process::id()))
}

/// The file's bytes (the file removed).
fn take(path: &PathBuf) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let _ = std::fs::remove_file(path);
    bytes
}

async fn post(c: &Client<HttpConnector, Full<Bytes>>, addr: SocketAddr, path: &str, body: &[u8]) -> StatusCode {
    let req = Request::builder()
        .method(Method::POST)
        .uri(format!("http://{addr}{path}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "ping")
        .body(Full::new(Bytes::copy_from_slice(body)))
        .unwrap();
    let response = timeout(Duration::from_secs(10), c.request(req)).await.unwrap().unwrap();
    let status = response.status();
    timeout(Duration::from_secs(10), response.into_body().collect()).await.unwrap().unwrap();
    status
}

/// The live proxy's violations, (rule, entry index).
fn live(reports: &[Report]) -> Vec<(String, usize)> {
    reports
        .iter()
        .filter_map(|r| match r {
            Report::Violation { rule, index, .. } => Some((rule.clone(), *index)),
            Report::Warning { .. } | Report::Operation { .. } => None,
        })
        .collect()
}

/// What the checker finds in `lines`, (rule, index).
fn rechecked(lines: &[Line]) -> Vec<(String, usize)> {
    check_lines(lines, CheckConfig::default()).into_iter().map(|v| (v.rule.name().to_string(), v.index)).collect()
}

#[tokio::test]
async fn a_recording_and_a_har_recheck_as_the_live_proxy_checked() {
    let up = upstream().await;
    let (record, har) = (temp_file("record", "jsonl"), temp_file("har", "har"));
    let url = format!("http://{up}/mcp").parse().unwrap();
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), url);
    (config.record, config.har) = (Some(record.clone()), Some(har.clone()));
    let proxy = Proxy::bind(config).await.unwrap();
    let (addr, monitor) = (proxy.local_addr().unwrap(), proxy.monitor());
    let (stop, rx) = oneshot::channel::<()>();
    let done = tokio::spawn(proxy.serve(async move {
        let _ = rx.await;
    }));
    let c: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    // From the client: malformed JSON, then bytes that are not UTF-8.
    assert_eq!(post(&c, addr, "/mcp", b"{\"jsonrpc\": \"2.0\", \"id\": 1,").await, StatusCode::OK);
    assert_eq!(post(&c, addr, "/mcp", b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"\xff\"}").await, StatusCode::OK);
    // From upstream: a body cut short, one not UTF-8, an event's data that is not JSON.
    post(&c, addr, "/mcp/cut", ping(2).as_bytes()).await;
    post(&c, addr, "/mcp/bytes", ping(3).as_bytes()).await;
    post(&c, addr, "/mcp/sse", ping(4).as_bytes()).await;
    // And the conversation goes on: a compliant ping.
    post(&c, addr, "/mcp", ping(5).as_bytes()).await;
    let live = live(&monitor.reports());
    let _ = stop.send(());
    done.await.unwrap();

    // Each bad body reported once, at its entry: 0 and 2 the client's
    // requests, 5 and 7 upstream's JSON bodies, 10 the event (9 the stream's head).
    let at = |index| ("jsonrpc-parse-error".to_string(), index);
    assert_eq!(live, [at(0), at(2), at(5), at(7), at(10)]);

    // The JSON Lines record: the same violations at the same entries.
    let text = String::from_utf8(take(&record)).unwrap();
    assert!(text.contains(r#""text":"{\"jsonrpc\": \"2.0\", \"id\": 1,""#), "the body as it came: {text}");
    assert!(text.contains(r#""encoding":"base64""#), "bytes that are not UTF-8 in base64: {text}");
    assert!(text.contains(r#""text":"hello""#), "the event's data as it came: {text}");
    let lines: Vec<Line> = read_jsonl(&text, &Limits::default()).unwrap().into_iter().map(|(_, l)| l).collect();
    assert_eq!(rechecked(&lines), live, "{text}");

    // The HAR: no longer "not a conversation", and the same rules found, in
    // order (its entries are the messages of each exchange, not the proxy's).
    let bytes = take(&har);
    let har_lines: Vec<Line> =
        mrtr::har::read_har_lines(&bytes, &Limits::default()).unwrap().into_iter().map(|(_, l)| l).collect();
    let rules = |found: &[(String, usize)]| found.iter().map(|(rule, _)| rule.clone()).collect::<Vec<_>>();
    assert_eq!(rules(&rechecked(&har_lines)), rules(&live), "{}", String::from_utf8_lossy(&bytes));
}
