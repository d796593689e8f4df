//! The gateway's repairs (`--repair`, `mrtr::gateway`), over real sockets on
//! 127.0.0.1: an upstream that sheds load five times in a row (mcp-go's
//! client gives up after three), as the Go SDK server does it
//! (`"inputRequests": {}`) and with mcp-go's `content: []`, and a client
//! that never retries a state-only round.

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mrtr::check::{check_lines, read_jsonl, CheckConfig};
use mrtr::gateway::Repair;
use mrtr::Limits;
use mrtr_proxy::{Config, Proxy};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// How many state-only rounds upstream answers before the final result.
const SHEDS: usize = 5;

/// An upstream whose `reserve` sheds load [`SHEDS`] times (each round's
/// state counting the rounds, each with mcp-go's `content: []` and the Go
/// SDK's empty `inputRequests`), then completes; it counts the requests.
async fn upstream(seen: Arc<AtomicUsize>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req: Request<Incoming>| {
                    let seen = seen.clone();
                    async move {
                        seen.fetch_add(1, Ordering::SeqCst);
                        let bytes = req.into_body().collect().await.unwrap().to_bytes();
                        let request: Value = serde_json::from_slice(&bytes).unwrap();
                        let round: usize = request["params"]["requestState"]
                            .as_str()
                            .and_then(|s| s.strip_prefix("round="))
                            .map_or(0, |n| n.parse().unwrap());
                        let result = if round < SHEDS {
                            json!({"resultType": "input_required", "inputRequests": {}, "content": [],
                                "requestState": format!("round={}", round + 1)})
                        } else {
                            json!({"resultType": "complete", "content": [{"type": "text", "text": "table 7 reserved"}]})
                        };
                        let body = json!({"jsonrpc": "2.0", "id": request["id"], "result": result}).to_string();
                        let response = Response::builder().header("content-type", "application/json");
                        Ok::<_, Infallible>(response.body(Full::new(Bytes::from(body))).unwrap())
                    }
                });
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    addr
}

struct Run {
    url: String,
    record: std::path::PathBuf,
    seen: Arc<AtomicUsize>,
    stop: oneshot::Sender<()>,
    done: tokio::task::JoinHandle<mrtr_proxy::Summary>,
}

async fn proxy(repairs: Vec<Repair>, name: &str) -> Run {
    let seen = Arc::new(AtomicUsize::new(0));
    let up = upstream(seen.clone()).await;
    let record = std::env::temp_dir().join(format!("mrtr-repairs-{name}-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&record);
    let config = Config {
        record: Some(record.clone()),
        repairs,
        ..Config::new("127.0.0.1:0".parse().unwrap(), format!("http://{up}/mcp").parse().unwrap())
    };
    let proxy = Proxy::bind(config).await.unwrap();
    let url = format!("http://{}/mcp", proxy.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel();
    let done = tokio::spawn(proxy.serve(async {
        let _ = stopped.await;
    }));
    Run { url, record, seen, stop, done }
}

/// A client that never retries: it sends `reserve` once and takes what comes.
async fn call_once(url: &str) -> Value {
    let client: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "never-retries", "version": "1"}});
    let body = json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
        "params": {"name": "reserve", "arguments": {"table": 7}, "_meta": meta}});
    let request = Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "reserve")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = client.request(request).await.unwrap();
    serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes()).unwrap()
}

fn recorded(record: &std::path::Path) -> Vec<mrtr::check::Line> {
    let text = std::fs::read_to_string(record).unwrap();
    read_jsonl(&text, &Limits::DEFAULT).unwrap().into_iter().map(|(_, line)| line).collect()
}

#[tokio::test]
async fn without_repairs_the_client_gets_the_state_only_round_as_it_came() {
    let run = proxy(Vec::new(), "none").await;
    let answer = call_once(&run.url).await;
    assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
    assert_eq!(answer["result"]["content"], json!([]));
    assert_eq!(run.seen.load(Ordering::SeqCst), 1);
    let _ = run.stop.send(());
    run.done.await.unwrap();
}

/// `state-only-retry` and `final-fields` together: five state-only rounds in
/// a row, each retried by the gateway after its backoff, and the client that
/// never retries gets the final result under its own id; every exchange is
/// recorded and checks clean (the gateway's retries are compliant retries).
#[tokio::test]
async fn five_state_only_rounds_in_a_row_are_retried_for_the_client() {
    let run = proxy(vec![Repair::StateOnlyRetry, Repair::FinalFields], "retry").await;
    let started = std::time::Instant::now();
    let answer = call_once(&run.url).await;
    assert_eq!(answer["id"], 41, "{answer}");
    assert_eq!(answer["result"]["content"][0]["text"], "table 7 reserved", "{answer}");
    assert_eq!(run.seen.load(Ordering::SeqCst), 1 + SHEDS, "one retry a round");
    // 50 + 100 + 200 + 400 + 800 ms of backoff.
    assert!(started.elapsed() >= std::time::Duration::from_millis(1550), "{:?}", started.elapsed());
    let Run { record, stop, done, .. } = run;
    let _ = stop.send(());
    done.await.unwrap();
    let lines = recorded(&record);
    assert_eq!(lines.len(), 2 * (1 + SHEDS), "each exchange's request and response");
    let violations = check_lines(&lines, CheckConfig::default());
    assert!(violations.is_empty(), "{violations:?}");
}

/// `final-fields` alone: the round reaches the client without `content`,
/// so that a client that reads it as final sees a round to retry.
#[tokio::test]
async fn final_fields_leave_the_input_required_the_client_sees() {
    let run = proxy(vec![Repair::FinalFields], "fields").await;
    let answer = call_once(&run.url).await;
    assert_eq!(answer["result"]["resultType"], "input_required");
    assert!(answer["result"].get("content").is_none(), "{answer}");
    assert_eq!(answer["result"]["requestState"], "round=1");
    let _ = run.stop.send(());
    run.done.await.unwrap();
}
