//! The proxy between a real client and a small MRTR upstream, over real
//! sockets on 127.0.0.1.

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode};
use http_body::{Body, Frame};
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mrtr::check::{check_lines, read_jsonl, CheckConfig, HttpEntry, Line, Side};
use mrtr::http::serve::{read_request, Incoming as Asked, ServerStream};
use mrtr::http::Mode;
use mrtr::sse::{Decoder, Event};
use mrtr::{Limits, Protocol};
use mrtr_proxy::net::Caps;
use mrtr_proxy::{Config, Proxy, Report, Summary};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, watch, Notify};
use tokio::time::timeout;

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}"#;

/// What upstream answers a first call with (exact bytes), its requestState `s<id>`.
fn input_required(id: u64) -> String {
    format!(
        r#"{{"jsonrpc": "2.0", "id": {id}, "result": {{"resultType": "input_required", "inputRequests": {{"github_login": {{"method": "elicitation/create", "params": {{"mode": "form", "message": "Please provide your GitHub username", "requestedSchema": {{"type": "object", "properties": {{"name": {{"type": "string"}}}}, "required": ["name"]}}}}}}}}, "requestState": "s{id}"}}}}"#
    )
}

/// The SSE body upstream answers retry `id` with, in the chunks it sends: a
/// priming event, then (after the release) the final result split mid-JSON.
fn sse_chunks(id: u64) -> [String; 3] {
    [
        "id: 0\ndata:\n\n".to_string(),
        format!("event: message\nid: 1\r\ndata: {{\"jsonrpc\": \"2.0\", \"id\": {id}, \"result\": {{\"resultType\": \"complete\", "),
        "\"content\": [{\"type\": \"text\", \"text\": \"Sunny, 72F\"}], \"isError\": false}}\r\n\r\n".to_string(),
    ]
}

/// The standalone GET stream: one notification.
const GET_SSE: &str = "data: {\"jsonrpc\": \"2.0\", \"method\": \"notifications/tools/list_changed\"}\n\n";

/// Invalid UTF-8 in a JSON body.
const BAD_UTF8: &[u8] = b"{\"jsonrpc\": \"2.0\", \"id\": 7, \"result\": {\"text\": \"\xff\xfe\"}}";

fn ping(id: u64) -> String {
    let meta: Value = serde_json::from_str(META).unwrap();
    json!({"jsonrpc": "2.0", "id": id, "method": "ping", "params": {"_meta": meta}}).to_string()
}

fn call(id: u64, state: Option<&str>) -> String {
    let meta: Value = serde_json::from_str(META).unwrap();
    let mut params = json!({"name": "get_weather", "arguments": {"location": "New York"}, "_meta": meta});
    if let Some(s) = state {
        params["inputResponses"] = json!({"github_login": {"action": "accept", "content": {"name": "octocat"}}});
        params["requestState"] = json!(s);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

type UpBody = BoxBody<Bytes, Infallible>;

/// A body fed from a channel, so upstream can hold the stream open.
struct ChanBody(mpsc::Receiver<Bytes>);

impl Body for ChanBody {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0.poll_recv(cx).map(|b| b.map(|b| Ok(Frame::data(b))))
    }
}

fn reply(content_type: &str, body: UpBody) -> Response<UpBody> {
    Response::builder().header("content-type", content_type).body(body).unwrap()
}

async fn upstream_handle(
    req: Request<Incoming>,
    release: watch::Receiver<bool>,
) -> Result<Response<UpBody>, Infallible> {
    let path = req.uri().path().to_string();
    let path_and_query = req.uri().path_and_query().map(|p| p.to_string());
    let header = |name: &str| req.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
    let (session, host) = (header("mcp-session-id"), header("host"));
    assert!(req.headers().get("x-hop").is_none(), "a header named by connection was forwarded");
    if req.method() == Method::GET {
        return Ok(reply("text/event-stream", Full::new(Bytes::from_static(GET_SSE.as_bytes())).boxed()));
    }
    let bytes = req.into_body().collect().await.unwrap().to_bytes();
    if path == "/mcp/unauthorized" {
        let r = Response::builder().status(StatusCode::UNAUTHORIZED).header("content-type", "text/plain");
        return Ok(r.body(Full::new(Bytes::from_static(b"log in first\n")).boxed()).unwrap());
    }
    if path == "/mcp/bad" {
        return Ok(reply("application/json", Full::new(Bytes::from_static(BAD_UTF8)).boxed()));
    }
    let m: Value = serde_json::from_slice(&bytes).unwrap();
    if m.get("id").is_none() {
        return Ok(Response::builder().status(StatusCode::ACCEPTED).body(Full::new(Bytes::new()).boxed()).unwrap());
    }
    if m["method"] == "ping" {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let body = json!({"jsonrpc": "2.0", "id": m["id"], "result": {"resultType": "complete"}}).to_string();
        let mut r = reply("application/json", Full::new(Bytes::from(body)).boxed());
        let seen = [("x-seen-session", session), ("x-seen-host", host), ("x-seen-path", path_and_query)];
        for (name, value) in seen.into_iter().filter_map(|(n, v)| Some((n, v?))) {
            r.headers_mut().insert(name, value.parse().unwrap());
        }
        r.headers_mut().insert("mcp-session-id", "sess-up".parse().unwrap());
        return Ok(r);
    }
    let id = m["id"].as_u64().unwrap_or(0);
    let state = m["params"]["requestState"].as_str();
    match state.and_then(|s| s.strip_prefix('s')).map(str::parse::<u64>) {
        None if state.is_none() => Ok(reply("application/json", Full::new(Bytes::from(input_required(id))).boxed())),
        Some(Ok(_)) => {
            let (tx, rx) = mpsc::channel(4);
            let mut release = release;
            tokio::spawn(async move {
                let [first, rest @ ..] = sse_chunks(id);
                let _ = tx.send(Bytes::from(first)).await;
                let _ = release.wait_for(|go| *go).await;
                for chunk in rest {
                    let _ = tx.send(Bytes::from(chunk)).await;
                }
            });
            Ok(reply("text/event-stream", ChanBody(rx).boxed()))
        }
        _ => {
            let body =
                json!({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32602, "message": "bad requestState"}});
            Ok(reply("application/json", Full::new(Bytes::from(body.to_string())).boxed()))
        }
    }
}

/// Starts the upstream; returns its address and the switch that lets its SSE
/// answers finish (`send(true)`).
async fn upstream() -> (SocketAddr, Arc<watch::Sender<bool>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (release, r) = watch::channel(false);
    let release = Arc::new(release);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let r = r.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| upstream_handle(req, r.clone()));
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    (addr, release)
}

struct Running {
    addr: SocketAddr,
    monitor: mrtr_proxy::Monitor,
    stop: oneshot::Sender<()>,
    done: tokio::task::JoinHandle<Summary>,
}

async fn proxy(upstream: SocketAddr, record: Option<std::path::PathBuf>) -> Running {
    proxy_with(upstream, record, Protocol::default(), None).await
}

async fn proxy_with(
    upstream: SocketAddr,
    record: Option<std::path::PathBuf>,
    protocol: Protocol,
    transport: Option<Mode>,
) -> Running {
    proxy_config(upstream, |c| (c.record, c.protocol, c.transport) = (record, protocol, transport)).await
}

fn client() -> Client<HttpConnector, Full<Bytes>> {
    Client::builder(TokioExecutor::new()).build_http()
}

async fn post(
    c: &Client<HttpConnector, Full<Bytes>>,
    addr: SocketAddr,
    path: &str,
    body: String,
) -> Response<Incoming> {
    post_with(c, addr, path, body, &[]).await
}

async fn post_with(
    c: &Client<HttpConnector, Full<Bytes>>,
    addr: SocketAddr,
    path: &str,
    body: String,
    headers: &[(&str, &str)],
) -> Response<Incoming> {
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(format!("http://{addr}{path}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in mcp_headers(&body).iter().map(|(n, v)| (*n, v.as_str())).chain(headers.iter().copied()) {
        req = req.header(name, value);
    }
    let req = req.body(Full::new(Bytes::from(body))).unwrap();
    timeout(Duration::from_secs(10), c.request(req)).await.unwrap().unwrap()
}

/// The header fields a `2026-07-28` client sends with a request over
/// Streamable HTTP, mirroring its body (`MCP-Protocol-Version`, `Mcp-Method`,
/// `Mcp-Name`); none for a body that is not such a request.
fn mcp_headers(body: &str) -> Vec<(&'static str, String)> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else { return Vec::new() };
    let text = |v: &serde_json::Value| v.as_str().map(String::from);
    let version = text(&v["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]);
    let (Some(version), Some(method)) = (version, text(&v["method"])) else { return Vec::new() };
    let mut out = vec![("mcp-protocol-version", version), ("mcp-method", method.clone())];
    if let Some(name) = mrtr::protocol::name_field(&method).and_then(|f| text(&v["params"][f])) {
        out.push(("mcp-name", name));
    }
    out
}

async fn body_bytes(r: Response<Incoming>) -> Bytes {
    timeout(Duration::from_secs(10), r.into_body().collect()).await.unwrap().unwrap().to_bytes()
}

fn rules(reports: &[Report]) -> Vec<String> {
    reports
        .iter()
        .filter_map(|r| match r {
            Report::Violation { rule, .. } => Some(rule.clone()),
            Report::Warning { .. } | Report::Operation { .. } => None,
        })
        .collect()
}

/// The whole compliant flow, request ids `first` and `first + 1`; with
/// `release`, lets upstream finish the SSE answer once its first frame came
/// through, else reports that first frame on `primed` and waits.
async fn weather_flow(c: &Client<HttpConnector, Full<Bytes>>, addr: SocketAddr, first: u64, release: Sync2<'_>) {
    let r = post(c, addr, "/mcp", call(first, None)).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(body_bytes(r).await, input_required(first).as_bytes(), "JSON bytes unchanged");

    let retry = post(c, addr, "/mcp", call(first + 1, Some(&format!("s{first}")))).await;
    assert_eq!(retry.headers()["content-type"], "text/event-stream");
    let mut body = retry.into_body();
    // The priming event arrives while upstream still holds the stream open:
    // the proxy does not buffer SSE.
    let frame = timeout(Duration::from_secs(30), body.frame()).await.expect("first SSE frame not streamed");
    let mut got = frame.unwrap().unwrap().into_data().unwrap().to_vec();
    let chunks = sse_chunks(first + 1);
    assert_eq!(got, chunks[0].as_bytes());
    match release {
        Sync2::Release(r) => {
            let _ = r.send(true);
        }
        Sync2::Primed(p) => {
            let _ = p.send(()).await;
        }
    }
    let rest = timeout(Duration::from_secs(30), body.collect()).await.unwrap().unwrap().to_bytes();
    got.extend_from_slice(&rest);
    assert_eq!(got, chunks.concat().as_bytes(), "SSE bytes unchanged");
}

/// How a flow lets its SSE answer finish.
enum Sync2<'a> {
    /// Release upstream itself.
    Release(&'a watch::Sender<bool>),
    /// Tell the test its stream is open; the test releases.
    Primed(mpsc::Sender<()>),
}

fn temp_file(name: &str) -> std::path::PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    std::env::temp_dir().join(format!("mrtr-proxy-{name}-{}-{nanos}.jsonl", std::process::id()))
}

/// The record file's text (the file removed).
fn take_record(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let _ = std::fs::remove_file(path);
    text
}

/// The entries of a record: HTTP entries only, each with its time.
fn http_entries(text: &str) -> Vec<HttpEntry> {
    let entries: Vec<HttpEntry> = read_jsonl(text, &Limits::default())
        .unwrap()
        .into_iter()
        .map(|(_, line)| match line {
            Line::Http(h) => h,
            Line::Message(m) => panic!("the proxy recorded a message entry: {m:?}"),
        })
        .collect();
    let times: Vec<u64> = entries.iter().map(|h| h.at.expect("an entry without \"at\"")).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "times go back: {times:?}");
    entries
}

/// What `mrtr check` finds in a record under `config`: (rule, index).
fn recheck(text: &str, config: CheckConfig) -> Vec<(&'static str, usize)> {
    let lines: Vec<Line> = read_jsonl(text, &Limits::default()).unwrap().into_iter().map(|(_, l)| l).collect();
    check_lines(&lines, config).into_iter().map(|v| (v.rule.name(), v.index)).collect()
}

/// The shape of an entry: who, exchange, status, event names/ids, whether it carries a body, end.
fn shape(h: &HttpEntry) -> String {
    let who = if h.from == Side::Client { h.method.clone().unwrap() } else { "server".into() };
    let events: Vec<String> = h
        .events
        .iter()
        .map(|b| {
            format!(
                "{}#{}{}",
                b.event.as_deref().unwrap_or(""),
                b.id.as_deref().unwrap_or(""),
                if b.data.is_some() { "+data" } else { "" }
            )
        })
        .collect();
    let status = h.status.map_or(String::new(), |s| format!(" {s}"));
    let body = if h.body.is_some() { " body" } else { "" };
    let end = if h.end { " end" } else { "" };
    format!("{who} {}{status}{body}{end} [{}]", h.exchange, events.join(" "))
}

#[tokio::test]
async fn compliant_flow_is_forwarded_unchanged_checked_and_recorded() {
    let (up, release) = upstream().await;
    let record = temp_file("weather");
    let run = proxy(up, Some(record.clone())).await;
    weather_flow(&client(), run.addr, 1, Sync2::Release(&release)).await;

    let reports = run.monitor.reports();
    assert_eq!(rules(&reports), Vec::<String>::new(), "{reports:?}");
    let ops: Vec<_> = reports.iter().filter(|r| matches!(r, Report::Operation { .. })).collect();
    assert_eq!(ops.len(), 1, "{reports:?}");
    match ops[0] {
        Report::Operation { method, target, rounds, .. } => {
            assert_eq!((method.as_str(), target.as_deref(), *rounds), ("tools/call", Some("get_weather"), 1));
        }
        Report::Violation { .. } | Report::Warning { .. } => unreachable!(),
    }
    assert!(ops[0].line().starts_with("operation tools/call get_weather rounds=1 latency_ms="));

    let _ = run.stop.send(());
    let summary = run.done.await.unwrap();
    assert_eq!(summary, Summary { messages: 4, violations: 0, operations: 1, warnings: 0 });
    assert_eq!(summary.line(), "summary: messages 4, violations 0, operations 1");

    let text = take_record(&record);
    let entries = http_entries(&text);
    let shapes: Vec<String> = entries.iter().map(shape).collect();
    assert_eq!(
        shapes,
        [
            "POST 1 body []",
            "server 1 200 body end []",
            "POST 2 body []",
            "server 2 200 []",
            "server 2 [#0]",
            "server 2 [message#1+data]",
            "server 2 end []",
        ],
        "{text}"
    );
    assert_eq!(entries[0].url.as_deref(), Some(format!("http://{up}/mcp").as_str()));
    assert_eq!(entries[0].body, Some(serde_json::from_str::<Value>(&call(1, None)).unwrap()));
    assert_eq!(entries[1].body, Some(serde_json::from_str::<Value>(&input_required(1)).unwrap()));
    assert!(entries[3].headers.contains(&("content-type".into(), "text/event-stream".into())));
    assert_eq!(entries[5].events[0].data.as_ref().unwrap()["result"]["resultType"], "complete");
    assert_eq!(recheck(&text, CheckConfig::default()), [], "{text}");
}

/// `Proxy::unchecked`, the floor `scripts/bench-proxy` measures: the same
/// bytes relayed (JSON whole, SSE frame by frame while upstream holds the
/// stream open), and nothing checked, counted or reported, a broken rule
/// included.
#[tokio::test]
async fn an_unchecked_proxy_forwards_the_same_and_checks_nothing() {
    let (up, release) = upstream().await;
    let url = format!("http://{up}/mcp").parse().unwrap();
    let proxy = Proxy::bind(Config::new("127.0.0.1:0".parse().unwrap(), url)).await.unwrap().unchecked();
    let (addr, monitor) = (proxy.local_addr().unwrap(), proxy.monitor());
    let (stop, rx) = oneshot::channel::<()>();
    let done = tokio::spawn(proxy.serve(async move {
        let _ = rx.await;
    }));
    let c = client();
    weather_flow(&c, addr, 1, Sync2::Release(&release)).await;
    body_bytes(post(&c, addr, "/mcp", call(3, None)).await).await;
    body_bytes(post(&c, addr, "/mcp", call(4, Some("tampered"))).await).await;
    assert_eq!(monitor.reports(), Vec::<Report>::new());
    let _ = stop.send(());
    assert_eq!(done.await.unwrap(), Summary { messages: 0, violations: 0, operations: 0, warnings: 0 });
}

#[tokio::test]
async fn a_changed_request_state_is_exactly_one_violation() {
    let (up, _release) = upstream().await;
    let run = proxy(up, None).await;
    let c = client();
    body_bytes(post(&c, run.addr, "/mcp", call(1, None)).await).await;
    let retry = post(&c, run.addr, "/mcp", call(2, Some("tampered"))).await;
    body_bytes(retry).await;
    let reports = run.monitor.reports();
    assert_eq!(rules(&reports), vec!["retry-request-state-mismatch".to_string()], "{reports:?}");
    let line = reports[0].line();
    assert!(line.starts_with("violation retry-request-state-mismatch at entry 2 from the client: "), "{line}");
    // Who sent it, and where the state to echo came from.
    assert!(line.contains("(the input_required of entry 1)"), "{line}");
}

#[tokio::test]
async fn bad_utf8_from_upstream_is_reported_and_forwarded() {
    let (up, release) = upstream().await;
    let run = proxy(up, None).await;
    let c = client();
    let r = post(&c, run.addr, "/mcp/bad", ping(7)).await;
    assert_eq!(body_bytes(r).await, BAD_UTF8, "bad bytes forwarded unchanged");
    let reports = run.monitor.reports();
    assert_eq!(rules(&reports), vec!["jsonrpc-parse-error".to_string()], "{reports:?}");
    // Bad bytes from the client too: reported, forwarded, the proxy lives on.
    let r = post(&c, run.addr, "/mcp/bad", "{not json".to_string()).await;
    assert_eq!(body_bytes(r).await, BAD_UTF8);
    assert_eq!(rules(&run.monitor.reports())[1], "jsonrpc-parse-error");
    // Still alive: a whole flow goes through.
    let before = run.monitor.reports().len();
    weather_flow(&c, run.addr, 1, Sync2::Release(&release)).await;
    assert_eq!(rules(&run.monitor.reports()[before..]), Vec::<String>::new());
}

#[tokio::test]
async fn two_hundred_concurrent_posts_complete() {
    let (up, _release) = upstream().await;
    let run = proxy(up, None).await;
    let c = client();
    let tasks: Vec<_> = (0..200u64)
        .map(|i| {
            let c = c.clone();
            let addr = run.addr;
            tokio::spawn(async move {
                let r = post(&c, addr, "/mcp", ping(1000 + i)).await;
                assert_eq!(r.status(), StatusCode::OK);
                let got: Value = serde_json::from_slice(&body_bytes(r).await).unwrap();
                assert_eq!(got["id"], 1000 + i);
            })
        })
        .collect();
    timeout(Duration::from_secs(60), async {
        for t in tasks {
            t.await.unwrap();
        }
    })
    .await
    .expect("200 concurrent POSTs did not complete in time");
    assert_eq!(run.monitor.summary().messages, 400);
    assert_eq!(rules(&run.monitor.reports()), Vec::<String>::new());
}

#[tokio::test]
async fn the_get_stream_is_tagged_get_and_forwarded_unchanged() {
    let (up, _release) = upstream().await;
    let record = temp_file("get");
    let run = proxy(up, Some(record.clone())).await;
    let req = Request::builder()
        .method(Method::GET)
        .uri(format!("http://{}/mcp?x=1", run.addr))
        .header("accept", "text/event-stream")
        .body(Full::new(Bytes::new()))
        .unwrap();
    let r = timeout(Duration::from_secs(10), client().request(req)).await.unwrap().unwrap();
    assert_eq!(body_bytes(r).await, GET_SSE.as_bytes());
    let _ = run.stop.send(());
    assert_eq!(run.done.await.unwrap().messages, 1);
    let text = take_record(&record);
    let entries = http_entries(&text);
    let shapes: Vec<String> = entries.iter().map(shape).collect();
    assert_eq!(shapes, ["GET 1 []", "server 1 200 []", "server 1 [#+data]", "server 1 end []"], "{text}");
    // The upstream URL, its query values redacted (a token in a URL is a credential).
    assert_eq!(entries[0].url.as_deref(), Some(format!("http://{up}/mcp?x=redacted").as_str()));
    assert_eq!(
        entries[0].headers.iter().find(|(n, _)| n == "host").map(|(_, v)| v.as_str()),
        Some(up.to_string().as_str())
    );
    assert_eq!(recheck(&text, CheckConfig::default()), [], "{text}");
}

#[tokio::test]
async fn a_request_body_over_the_bound_is_refused_with_413() {
    let (up, _release) = upstream().await;
    let run = proxy(up, None).await;
    let c = client();
    let big = " ".repeat(mrtr::Limits::default().max_message_bytes + 1);
    let r = post(&c, run.addr, "/mcp", big).await;
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(rules(&run.monitor.reports()), vec!["limit-exceeded".to_string()]);
    // Alive afterwards.
    let r = post(&c, run.addr, "/mcp", ping(1)).await;
    assert_eq!(r.status(), StatusCode::OK);
}

/// `--max-message-bytes` lowers the bound an operator's memory formula
/// rests on: a body one byte past it is 413, one at it is relayed.
#[tokio::test]
async fn the_message_bound_is_the_operators_to_set() {
    let (up, _release) = upstream().await;
    let run = proxy_config(up, |c| c.max_message_bytes = 4096).await;
    let c = client();
    let r = post(&c, run.addr, "/mcp", " ".repeat(4097)).await;
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    let padded = format!("{}{}", ping(1), " ".repeat(4096 - ping(1).len()));
    assert_eq!(post(&c, run.addr, "/mcp", padded).await.status(), StatusCode::OK);
    assert_eq!(rules(&run.monitor.reports()), vec!["limit-exceeded".to_string()]);
}

/// Review N6's shape within the bound: a body of one-digit numbers would
/// parse to some 40 times its text, so it is refused (413,
/// `limit-exceeded`) before the checker builds its tree; a body as long
/// made of one string is relayed.
#[tokio::test]
async fn a_body_that_would_parse_past_the_bound_is_refused() {
    let (up, _release) = upstream().await;
    let run = proxy_config(up, |c| c.max_message_bytes = 4 << 20).await;
    let c = client();
    let numbers =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"n":[{}1]}}}}"#, "1,".repeat(1_500_000));
    let r = post(&c, run.addr, "/mcp", numbers.clone()).await;
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(rules(&run.monitor.reports()), vec!["limit-exceeded".to_string()]);
    let string = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"s":"{}"}}}}"#, "1".repeat(3_000_000));
    assert_eq!(post(&c, run.addr, "/mcp", string).await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_concurrent_sse_streams_are_held_open_and_checked() {
    const N: u64 = 200;
    let (up, release) = upstream().await;
    let run = proxy(up, None).await;
    let c = client();
    let (primed, mut primed_rx) = mpsc::channel(N as usize);
    let tasks: Vec<_> = (0..N)
        .map(|i| {
            let (c, addr, primed) = (c.clone(), run.addr, primed.clone());
            tokio::spawn(async move { weather_flow(&c, addr, 1 + 2 * i, Sync2::Primed(primed)).await })
        })
        .collect();
    // Every retry's stream is open through the proxy at once, each first frame
    // delivered, before upstream sends the rest of any of them.
    timeout(Duration::from_secs(60), async {
        for _ in 0..N {
            primed_rx.recv().await.unwrap();
        }
    })
    .await
    .expect("200 SSE streams were not open at once");
    let _ = release.send(true);
    timeout(Duration::from_secs(60), async {
        for t in tasks {
            t.await.unwrap();
        }
    })
    .await
    .expect("200 concurrent flows did not complete in time");
    let reports = run.monitor.reports();
    assert_eq!(rules(&reports), Vec::<String>::new());
    assert_eq!(run.monitor.summary(), Summary { messages: 4 * N, violations: 0, operations: N, warnings: 0 });
}

#[tokio::test]
async fn headers_path_and_query_are_forwarded() {
    let (up, _release) = upstream().await;
    let run = proxy(up, None).await;
    let req = Request::builder()
        .method(Method::POST)
        .uri(format!("http://{}/mcp/x?a=1&b=2", run.addr))
        .header("content-type", "application/json")
        .header("mcp-session-id", "sess-down")
        .header("connection", "x-hop")
        .header("x-hop", "dropped")
        .body(Full::new(Bytes::from(ping(5))))
        .unwrap();
    let r = timeout(Duration::from_secs(10), client().request(req)).await.unwrap().unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let h = r.headers();
    assert_eq!(h["x-seen-session"], "sess-down");
    assert_eq!(h["x-seen-host"], up.to_string().as_str());
    assert_eq!(h["x-seen-path"], "/mcp/x?a=1&b=2");
    assert_eq!(h["mcp-session-id"], "sess-up");
    assert_eq!(h["content-type"], "application/json");
}

#[tokio::test]
async fn a_path_the_upstream_url_does_not_name_is_answered_404_naming_the_one_served() {
    let (up, _release) = upstream().await;
    let run = proxy(up, None).await;
    let c = client();
    let r = post(&c, run.addr, "/wrong-path", ping(1)).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let text = String::from_utf8(body_bytes(r).await.to_vec()).unwrap();
    assert!(text.contains("forwards /mcp (the path of its --upstream URL), not /wrong-path"), "{text}");
    // Nothing went upstream, so nothing was checked.
    assert_eq!(run.monitor.summary().messages, 0);
    // Its trailing-slash form, a path beneath it, and the origin's metadata go.
    for path in ["/mcp", "/mcp/", "/mcp/x", "/.well-known/oauth-protected-resource/mcp"] {
        let r = post(&c, run.addr, path, ping(2)).await;
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(r.headers()["x-seen-path"], path);
    }
    // `/mcpx` only begins like it.
    assert_eq!(post(&c, run.addr, "/mcpx", ping(3)).await.status(), StatusCode::NOT_FOUND);
}

// SEP-1858 through the proxy: an upstream that asks with `buffer_input`, the
// request and `input_required`, then closes, and takes the buffered answers
// as a JSON array with `Last-Event-ID` (its bytes written by the core's
// `ServerStream`, its requests read by `read_request`).

fn protocol_2025() -> Protocol {
    Protocol::from_name("2025-11-25").unwrap()
}

fn check_1858() -> CheckConfig {
    CheckConfig::default().with_protocol(protocol_2025()).with_transport(Some(Mode::Sep1858))
}

fn weather_call(id: u64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "get_weather", "arguments": {"location": "New York"}}})
    .to_string()
}

fn elicitation() -> Value {
    json!({"jsonrpc": "2.0", "id": "s-1", "method": "elicitation/create", "params": {"mode": "form",
        "message": "Please provide your GitHub username",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
}

fn answer() -> Value {
    json!({"jsonrpc": "2.0", "id": "s-1", "result": {"action": "accept", "content": {"name": "octocat"}}})
}

fn weather_result(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "Sunny, 72F"}]}})
}

/// What the upstream first sends on the stream of call `key`: `buffer_input`,
/// the elicitation, `input_required` (ids `<key>.1` to `<key>.3`).
fn ask_1858(key: &str) -> String {
    let mut stream = ServerStream::new(Mode::Sep1858, key, 1).unwrap();
    stream.ask(&[elicitation()], 0).unwrap();
    stream.take()
}

fn sse_reply(body: UpBody) -> Response<UpBody> {
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(body)
        .unwrap()
}

fn block(event: Option<&str>, data: Option<&Value>, id: String) -> String {
    let mut out = String::new();
    let event = Event { event: event.map(String::from), data: data.map(Value::to_string), id: Some(id), retry: None };
    mrtr::sse::encode(&event, &mut out).unwrap();
    out
}

/// The SEP-1858 upstream. `POST /mcp` with a call: the ask, in two chunks
/// split mid-event, then the end. `POST /mcp/eager` with a call: `buffer_input`
/// and the elicitation, then the stream stays open until an answer comes as
/// a POST of its own (`202`), then the result. Buffered answers (a JSON array
/// with `Last-Event-ID`): a new stream with the result.
async fn upstream_1858_handle(req: Request<Incoming>, answered: Arc<Notify>) -> Result<Response<UpBody>, Infallible> {
    let eager = req.uri().path() == "/mcp/eager";
    let method = req.method().to_string();
    let headers: Vec<(String, String)> =
        req.headers().iter().map(|(n, v)| (n.as_str().to_string(), v.to_str().unwrap().to_string())).collect();
    let bytes = req.into_body().collect().await.unwrap().to_bytes();
    let url = "http://upstream.test/mcp";
    let asked = read_request(Mode::Sep1858, &method, url, &headers, &bytes, protocol_2025(), &Limits::default());
    match asked.unwrap() {
        Asked::Call(call) => {
            let id = call["id"].as_u64().unwrap();
            let key = format!("c{id}");
            let (tx, rx) = mpsc::channel(4);
            tokio::spawn(async move {
                if eager {
                    let first = block(Some("buffer_input"), None, format!("{key}.1"))
                        + &block(None, Some(&elicitation()), format!("{key}.2"));
                    let _ = tx.send(Bytes::from(first)).await;
                    answered.notified().await;
                    let _ = tx.send(Bytes::from(block(None, Some(&weather_result(id)), format!("{key}.3")))).await;
                } else {
                    let ask = ask_1858(&key);
                    let (a, b) = ask.split_at(ask.len() / 2);
                    let _ = tx.send(Bytes::from(a.to_string())).await;
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    let _ = tx.send(Bytes::from(b.to_string())).await;
                }
            });
            Ok(sse_reply(ChanBody(rx).boxed()))
        }
        Asked::Answers { key, responses } => {
            assert_eq!(responses, [answer()]);
            let id = key.strip_prefix('c').unwrap().parse().unwrap();
            let mut stream = ServerStream::new(Mode::Sep1858, &key, 4).unwrap();
            stream.message(&weather_result(id)).unwrap();
            Ok(sse_reply(Full::new(Bytes::from(stream.take())).boxed()))
        }
        Asked::Messages(_) => {
            answered.notify_one();
            Ok(Response::builder().status(StatusCode::ACCEPTED).body(Full::new(Bytes::new()).boxed()).unwrap())
        }
        Asked::Resume { .. } => Ok(Response::builder()
            .status(StatusCode::METHOD_NOT_ALLOWED)
            .body(Full::new(Bytes::new()).boxed())
            .unwrap()),
    }
}

async fn upstream_1858() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let answered = Arc::new(Notify::new());
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let answered = answered.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| upstream_1858_handle(req, answered.clone()));
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    addr
}

/// The blocks of an event stream, decoded as a client does.
fn decode(bytes: &[u8]) -> Vec<Event> {
    let mut decoder = Decoder::new();
    decoder.feed(bytes);
    decoder.finish();
    std::iter::from_fn(|| decoder.poll_event()).map(Result::unwrap).collect()
}

#[tokio::test]
async fn a_sep_1858_conversation_is_relayed_recorded_as_http_entries_and_checks_clean() {
    let up = upstream_1858().await;
    let record = temp_file("sep-1858");
    let run = proxy_with(up, Some(record.clone()), protocol_2025(), Some(Mode::Sep1858)).await;
    let c = client();

    let r = post(&c, run.addr, "/mcp", weather_call(1)).await;
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let got = body_bytes(r).await;
    assert_eq!(got, ask_1858("c1").as_bytes(), "SSE bytes unchanged");
    let blocks = decode(&got);
    let names: Vec<_> = blocks.iter().map(|b| b.event.as_deref()).collect();
    assert_eq!(names, [Some("buffer_input"), None, Some("input_required")]);
    let last_id = blocks[2].id.clone().unwrap();

    let answers = Value::Array(vec![answer()]).to_string();
    let r = post_with(&c, run.addr, "/mcp", answers, &[("last-event-id", &last_id)]).await;
    assert_eq!(r.status(), StatusCode::OK);
    let result = decode(&body_bytes(r).await);
    assert_eq!(serde_json::from_str::<Value>(result[0].data.as_deref().unwrap()).unwrap(), weather_result(1));

    assert_eq!(rules(&run.monitor.reports()), Vec::<String>::new(), "{:?}", run.monitor.reports());
    let _ = run.stop.send(());
    assert_eq!(run.done.await.unwrap(), Summary { messages: 4, violations: 0, operations: 0, warnings: 0 });

    let text = take_record(&record);
    let entries = http_entries(&text);
    let shapes: Vec<String> = entries.iter().map(shape).collect();
    assert_eq!(
        shapes,
        [
            "POST 1 body []",
            "server 1 200 []",
            "server 1 [buffer_input#c1.1]",
            "server 1 [#c1.2+data]",
            "server 1 [input_required#c1.3]",
            "server 1 end []",
            "POST 2 body []",
            "server 2 200 []",
            "server 2 [#c1.4+data]",
            "server 2 end []",
        ],
        "{text}"
    );
    assert_eq!(entries[0].url.as_deref(), Some(format!("http://{up}/mcp").as_str()));
    assert_eq!(entries[3].events[0].data, Some(elicitation()));
    assert!(entries[6].headers.contains(&("last-event-id".into(), "c1.3".into())), "{:?}", entries[6].headers);
    assert_eq!(entries[6].body, Some(json!([answer()])));
    assert_eq!(entries[8].events[0].data, Some(weather_result(1)));
    // `mrtr check FILE --protocol 2025-11-25 --transport sep-1858`: clean.
    assert_eq!(recheck(&text, check_1858()), [], "{text}");
}

#[tokio::test]
async fn a_single_answer_posted_after_buffer_input_is_exactly_sse_response_not_buffered() {
    let up = upstream_1858().await;
    let record = temp_file("sep-1858-eager");
    let run = proxy_with(up, Some(record.clone()), protocol_2025(), Some(Mode::Sep1858)).await;
    let c = client();

    let r = post(&c, run.addr, "/mcp/eager", weather_call(1)).await;
    let mut body = r.into_body();
    // Upstream holds its stream open: the request comes through as it is sent.
    let mut got = Vec::new();
    while !decode(&got).iter().any(|b| b.data.is_some()) {
        let frame = timeout(Duration::from_secs(30), body.frame()).await.expect("the request was not streamed");
        got.extend_from_slice(frame.unwrap().unwrap().data_ref().unwrap());
    }
    // The client answers at once, one object, no Last-Event-ID.
    let r = post(&c, run.addr, "/mcp", answer().to_string()).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    body_bytes(r).await;
    let rest = timeout(Duration::from_secs(30), body.collect()).await.unwrap().unwrap().to_bytes();
    got.extend_from_slice(&rest);
    let blocks = decode(&got);
    assert_eq!(serde_json::from_str::<Value>(blocks[2].data.as_deref().unwrap()).unwrap(), weather_result(1));

    // Entries: 0 the call, 1 the head, 2 buffer_input, 3 the request, 4 the answer.
    let reports = run.monitor.reports();
    assert_eq!(rules(&reports), ["sse-response-not-buffered"], "{reports:?}");
    let line = reports[0].line();
    assert!(line.starts_with("violation sse-response-not-buffered at entry 4 from the client: "), "{line}");
    let _ = run.stop.send(());
    assert_eq!(run.done.await.unwrap(), Summary { messages: 4, violations: 1, operations: 0, warnings: 0 });

    let text = take_record(&record);
    let entries = http_entries(&text);
    assert_eq!(shape(&entries[4]), "POST 2 body []", "{text}");
    assert_eq!(entries[4].body, Some(answer()));
    assert_eq!(recheck(&text, check_1858()), [("sse-response-not-buffered", 4)], "{text}");
    // Without the transport, the same record is clean (only message rules).
    let plain = CheckConfig::default().with_protocol(protocol_2025());
    assert_eq!(recheck(&text, plain), [], "{text}");
}

// Security review 2026-11-27, M2, L3 and the stall of issue #25: each attack
// or fault refused, shown over real sockets.

async fn proxy_config(upstream: SocketAddr, edit: impl FnOnce(&mut Config)) -> Running {
    let url = format!("http://{upstream}/mcp").parse().unwrap();
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), url);
    edit(&mut config);
    let proxy = Proxy::bind(config).await.unwrap();
    let addr = proxy.local_addr().unwrap();
    let monitor = proxy.monitor();
    let (stop, rx) = oneshot::channel::<()>();
    let done = tokio::spawn(proxy.serve(async move {
        let _ = rx.await;
    }));
    Running { addr, monitor, stop, done }
}

/// Reads until the peer closes (or `within` passes): what it sent, and whether it closed.
async fn read_to_close(stream: &mut tokio::net::TcpStream, within: Duration) -> (String, bool) {
    use tokio::io::AsyncReadExt;
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&seen).into_owned(), true),
            Ok(Ok(n)) => seen.extend_from_slice(&buf[..n]),
            Err(_) => return (String::from_utf8_lossy(&seen).into_owned(), false),
        }
    }
}

#[tokio::test]
async fn a_connection_stuck_in_its_head_is_closed_at_the_timeout() {
    use tokio::io::AsyncWriteExt;
    let (up, _release) = upstream().await;
    let run = proxy_config(up, |c| c.timeout = Duration::from_millis(300)).await;
    let mut stuck = tokio::net::TcpStream::connect(run.addr).await.unwrap();
    stuck.write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n").await.unwrap();
    let (_, closed) = read_to_close(&mut stuck, Duration::from_secs(10)).await;
    assert!(closed, "a head that never ends is not held open");
    // The proxy still serves.
    assert_eq!(post(&client(), run.addr, "/mcp", ping(1)).await.status(), StatusCode::OK);
}

/// A client that takes nothing of an endless stream is dropped after the
/// timeout, and the upstream's response with it: it holds neither memory
/// (the proxy reads upstream only as the client takes) nor, for ever, a
/// connection and an upstream exchange.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_takes_nothing_is_dropped_with_its_upstream_response() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let up = listener.local_addr().unwrap();
    let upstream_closed = Arc::new(AtomicBool::new(false));
    let closed = upstream_closed.clone();
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut head = [0; 4096];
        let _ = socket.read(&mut head).await;
        let start = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        socket.write_all(start.as_bytes()).await.unwrap();
        let event = format!(
            "data: {{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"data\":\"{}\"}}}}\n\n",
            "x".repeat(16 << 10)
        );
        let chunk = format!("{:x}\r\n{event}\r\n", event.len());
        while socket.write_all(chunk.as_bytes()).await.is_ok() {}
        closed.store(true, Ordering::SeqCst);
    });
    let run = proxy_config(up, |c| c.timeout = Duration::from_secs(1)).await;
    let mut stalled = tokio::net::TcpStream::connect(run.addr).await.unwrap();
    let body = ping(1);
    let head = format!("POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: text/event-stream\r\ncontent-length: {}\r\n\r\n", body.len());
    stalled.write_all(format!("{head}{body}").as_bytes()).await.unwrap();
    for _ in 0..100 {
        if upstream_closed.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(upstream_closed.load(Ordering::SeqCst), "the upstream's response ends with the stalled client");
    let (_, closed) = read_to_close(&mut stalled, Duration::from_secs(10)).await;
    assert!(closed, "the stalled client's connection is closed");
}

#[tokio::test]
async fn a_body_that_never_arrives_is_answered_408() {
    use tokio::io::AsyncWriteExt;
    let (up, _release) = upstream().await;
    let run = proxy_config(up, |c| c.timeout = Duration::from_millis(300)).await;
    let mut slow = tokio::net::TcpStream::connect(run.addr).await.unwrap();
    slow.write_all(
        b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{",
    )
    .await
    .unwrap();
    let (answer, _) = read_to_close(&mut slow, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
}

#[tokio::test]
async fn connections_past_the_cap_are_refused_with_503_and_the_rest_served() {
    let (up, _release) = upstream().await;
    let run = proxy_config(up, |c| c.max_connections = 2).await;
    // Two idle connections hold the two places.
    let _a = tokio::net::TcpStream::connect(run.addr).await.unwrap();
    let _b = tokio::net::TcpStream::connect(run.addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut third = tokio::net::TcpStream::connect(run.addr).await.unwrap();
    let (answer, closed) = read_to_close(&mut third, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 503") && closed, "{answer}");
    drop((_a, _b));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(post(&client(), run.addr, "/mcp", ping(2)).await.status(), StatusCode::OK);
}

/// Review M2′: one address holds at most its per-peer cap of connections;
/// past it, 503 (while the cap has room), and a client from another
/// address is served; a place given back is free again.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn connections_past_the_per_peer_cap_are_refused_and_other_peers_served() {
    let (up, _release) = upstream().await;
    let run = proxy_config(up, |c| (c.max_connections, c.max_connections_per_peer) = (10, Some(2))).await;
    let from_other_address = || async {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        socket.connect(run.addr).await.unwrap()
    };
    let (a, b) = (from_other_address().await, from_other_address().await);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut third = from_other_address().await;
    let (answer, closed) = read_to_close(&mut third, Duration::from_secs(10)).await;
    assert!(answer.starts_with("HTTP/1.1 503") && closed, "{answer}");
    assert!(answer.contains("too many connections from your address"), "{answer}");
    assert_eq!(post(&client(), run.addr, "/mcp", ping(2)).await.status(), StatusCode::OK);
    drop((a, b));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut again = from_other_address().await;
    let (answer, _) = read_to_close(&mut again, Duration::from_millis(300)).await;
    assert!(answer.is_empty(), "a place given back is free: {answer}");
}

/// The caps a proxy serves under: the per-peer default a quarter of the
/// cap (at least 8); a cap above what the descriptor limit allows lowered.
#[tokio::test]
async fn the_caps_follow_the_config_and_the_descriptor_limit() {
    let (up, _release) = upstream().await;
    let url: http::Uri = format!("http://{up}/mcp").parse().unwrap();
    let caps = |edit: fn(&mut Config)| {
        let mut config = Config::new("127.0.0.1:0".parse().unwrap(), url.clone());
        edit(&mut config);
        async move { Proxy::bind(config).await.unwrap().caps() }
    };
    let defaults = caps(|_| {}).await;
    assert_eq!(defaults.connections, mrtr_proxy::net::default_max_connections());
    assert_eq!(defaults.per_peer, (defaults.connections / 4).max(8).min(defaults.connections));
    assert_eq!(caps(|c| c.max_connections = 100).await, Caps { connections: 100, per_peer: 25 });
    assert_eq!(caps(|c| c.max_connections = 20).await, Caps { connections: 20, per_peer: 8 });
    if let Some(limit) = mrtr_proxy::net::descriptor_limit() {
        let allowed = mrtr_proxy::net::cap_for_limit(limit);
        assert_eq!(caps(|c| c.max_connections = usize::MAX).await.connections, allowed);
    }
}

#[cfg(unix)]
#[tokio::test]
async fn the_record_keeps_no_credential_is_private_and_follows_no_link() {
    use std::os::unix::fs::PermissionsExt;
    let (up, _release) = upstream().await;
    let path = temp_file("private-record");
    let run = proxy(up, Some(path.clone())).await;
    let secrets =
        [("x-api-key", "SEKRET-API-KEY"), ("mcp-session-id", "SEKRET-SESSION"), ("authorization", "Bearer SEKRET")];
    let r = post_with(&client(), run.addr, "/mcp", ping(3), &secrets).await;
    assert_eq!(r.status(), StatusCode::OK);
    let _ = body_bytes(r).await;
    let r = post(&client(), run.addr, "/mcp?token=SEKRET-QUERY&stream=k1", ping(4)).await;
    let _ = body_bytes(r).await;
    let _ = run.stop.send(());
    let _ = run.done.await;
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    let text = take_record(&path);
    assert!(!text.contains("SEKRET"), "{text}");
    assert!(text.contains(r#""x-api-key":"[redacted]""#) && text.contains(r#""mcp-method":"ping""#), "{text}");
    assert!(text.contains("/mcp?token=redacted&stream=k1"), "the stream key is kept: {text}");
    assert_eq!(mode, 0o600);
    // A record path that is a symbolic link is refused, not followed.
    let target = temp_file("link-target");
    let link = temp_file("record-link");
    std::fs::write(&target, b"").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let url = format!("http://{up}/mcp").parse().unwrap();
    let config = Config { record: Some(link.clone()), ..Config::new("127.0.0.1:0".parse().unwrap(), url) };
    assert!(Proxy::bind(config).await.is_err(), "a symbolic link is not opened");
    let _ = std::fs::remove_file(&link);
    let _ = std::fs::remove_file(&target);
}

/// Security review M1: a request answered without a JSON-RPC response (a
/// 401 from an upstream that wants credentials, the proxy's own 502) is not
/// held by the checker as awaiting one.
#[tokio::test]
async fn requests_answered_without_a_response_are_not_held() {
    let (up, _release) = upstream().await;
    let run = proxy(up, None).await;
    let c = client();
    for id in 0..20 {
        let r = post(&c, run.addr, "/mcp/unauthorized", call(100 + id, None)).await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        let _ = body_bytes(r).await;
    }
    assert_eq!(run.monitor.tracked(), 0, "nothing held for 20 refused requests");
    // An upstream that is gone: the proxy's own 502 ends the exchange too.
    let dead = TcpListener::bind("127.0.0.1:0").await.unwrap().local_addr().unwrap();
    let gone = proxy(dead, None).await;
    let r = post(&c, gone.addr, "/mcp", call(7, None)).await;
    assert_eq!(r.status(), StatusCode::BAD_GATEWAY);
    let _ = body_bytes(r).await;
    assert_eq!(gone.monitor.tracked(), 0);
    // A request still awaiting its answer is held, as before.
    let flow = post(&c, run.addr, "/mcp", call(300, None)).await;
    let _ = body_bytes(flow).await;
    assert!(run.monitor.tracked() > 0, "an input_required round stays open for its retry");
}

/// `--har`: the same conversation as an HTTP Archive, one entry per
/// exchange (the SSE stream's bytes as they went by), private to its owner,
/// and `mrtr check`'s HAR reader finds in it what the live check found.
#[tokio::test]
async fn the_har_holds_each_exchange_and_checks_the_same() {
    let (up, release) = upstream().await;
    let har = temp_file("har");
    let run = proxy_config(up, |c| c.har = Some(har.clone())).await;
    let c = client();
    weather_flow(&c, run.addr, 1, Sync2::Release(&release)).await;
    body_bytes(post(&c, run.addr, "/mcp", call(3, None)).await).await;
    body_bytes(post(&c, run.addr, "/mcp", call(4, Some("tampered"))).await).await;
    assert_eq!(rules(&run.monitor.reports()), ["retry-request-state-mismatch"]);
    let _ = run.stop.send(());
    run.done.await.unwrap();

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&har).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let bytes = std::fs::read(&har).unwrap();
    let _ = std::fs::remove_file(&har);
    let log: Value = serde_json::from_slice(&bytes).unwrap();
    let entries = log["log"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 4, "{log}");
    assert_eq!(entries[0]["request"]["postData"]["text"], call(1, None));
    assert_eq!(entries[0]["response"]["content"]["text"], input_required(1));
    assert_eq!(entries[1]["response"]["content"]["text"], sse_chunks(2).concat(), "the stream's bytes");
    assert_eq!(entries[1]["response"]["content"]["mimeType"], "text/event-stream");
    let messages: Vec<Line> = mrtr::har::read_har(&bytes, &Limits::default())
        .unwrap()
        .into_iter()
        .map(|(_, entry)| Line::Message(entry))
        .collect();
    let found: Vec<&str> = check_lines(&messages, CheckConfig::default()).iter().map(|v| v.rule.name()).collect();
    assert_eq!(found, ["retry-request-state-mismatch"]);
}

/// A client that leaves mid-stream: its exchange is in the HAR with what
/// came, and says the client left.
#[tokio::test]
async fn a_stream_the_client_left_is_in_the_har_marked_cut() {
    let (up, _release) = upstream().await;
    let har = temp_file("har-cut");
    let run = proxy_config(up, |c| c.har = Some(har.clone())).await;
    let retry = post(&client(), run.addr, "/mcp", call(2, Some("s1"))).await;
    let mut body = retry.into_body();
    timeout(Duration::from_secs(10), body.frame()).await.unwrap().unwrap().unwrap();
    drop(body);
    let cut = async {
        loop {
            let log: Value = serde_json::from_slice(&std::fs::read(&har).unwrap()).unwrap();
            if let Some(entry) = log["log"]["entries"].get(0) {
                return entry.clone();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let entry =
        timeout(Duration::from_secs(10), cut).await.expect("the cut exchange is written when the client leaves");
    let _ = run.stop.send(());
    run.done.await.unwrap();
    let _ = std::fs::remove_file(&har);
    assert_eq!(entry["comment"], "the client left before the response ended");
    assert_eq!(entry["response"]["content"]["text"], sse_chunks(2)[0]);
}

/// A record past `record_max_bytes` is renamed `<record>.1` and begun again:
/// a long-running proxy's record stays within two files of that size, each
/// private, the newest entries in the current one.
#[tokio::test]
async fn the_record_rotates_at_its_size_bound() {
    use std::os::unix::fs::PermissionsExt;
    let (up, release) = upstream().await;
    let path = temp_file("rotating");
    let max = 1500;
    let run = proxy_config(up, |c| (c.record, c.record_max_bytes) = (Some(path.clone()), max)).await;
    weather_flow(&client(), run.addr, 1, Sync2::Release(&release)).await;
    let _ = run.stop.send(());
    run.done.await.unwrap();
    let mut old = path.clone().into_os_string();
    old.push(".1");
    let old = std::path::PathBuf::from(old);
    for file in [&old, &path] {
        let meta = std::fs::metadata(file).unwrap();
        assert!(meta.len() > 0 && meta.len() <= max, "{file:?}: {} bytes", meta.len());
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    }
    let _ = std::fs::remove_file(&old);
    let current = http_entries(&take_record(&path));
    assert_eq!(current.last().map(shape).as_deref(), Some("server 2 end []"));
}

/// `--ui`: the live page at `/` (the conversation inline, self-contained)
/// and its data at `/state.json`: each entry, the finished operation with
/// its rounds, and each violation with who sent it.
#[tokio::test]
async fn the_live_page_serves_the_conversation_and_its_state() {
    let (up, release) = upstream().await;
    let url = format!("http://{up}/mcp").parse().unwrap();
    let config =
        Config { ui: Some("127.0.0.1:0".parse().unwrap()), ..Config::new("127.0.0.1:0".parse().unwrap(), url) };
    let proxy = Proxy::bind(config).await.unwrap();
    let (addr, ui) = (proxy.local_addr().unwrap(), proxy.ui_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(proxy.serve(async move {
        let _ = stopped.await;
    }));
    let c = client();
    weather_flow(&c, addr, 1, Sync2::Release(&release)).await;
    body_bytes(post(&c, addr, "/mcp", call(3, None)).await).await;
    body_bytes(post(&c, addr, "/mcp", call(4, Some("tampered"))).await).await;
    let get = |path: &str| {
        let request = Request::get(format!("http://{ui}{path}")).body(Full::new(Bytes::new())).unwrap();
        c.request(request)
    };
    let state: Value = serde_json::from_slice(&body_bytes(get("/state.json").await.unwrap()).await).unwrap();
    assert_eq!(state["clock"], "ms");
    assert_eq!(state["entries"].as_array().unwrap().len(), 11, "{state}");
    // The first round from the call to its input_required, the second from
    // the retry to the event carrying the final result.
    assert_eq!(state["operations"][0]["spans"], json!([[0, 1], [2, 5]]), "{state}");
    assert_eq!(state["violations"][0]["rule"], "retry-request-state-mismatch");
    assert_eq!(state["violations"][0]["from"], "client");
    let page = get("/").await.unwrap();
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    let policy = page.headers()["content-security-policy"].to_str().unwrap().to_string();
    assert!(policy.starts_with("default-src 'none'") && !policy.contains("unsafe"), "{policy}");
    let page = String::from_utf8(body_bytes(page).await.to_vec()).unwrap();
    assert!(page.contains("const LIVE = true;") && page.contains("retry-request-state-mismatch"));
    // The header is the policy the page carries itself (its script's hash).
    assert!(page.contains(&format!(r#"<meta http-equiv="Content-Security-Policy" content="{policy}">"#)));
    assert_eq!(get("/elsewhere").await.unwrap().status(), StatusCode::NOT_FOUND);
    let _ = stop.send(());
    served.await.unwrap();
}

/// Security review M1, the attack itself: a client without credentials
/// sends large requests (24 of 4 MiB) that the upstream never answers (it
/// holds each connection open). The checker holds their text, never more
/// than its budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_requests_the_upstream_holds_open_stay_within_the_budget() {
    // An upstream that reads each request and never answers.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let up = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(|req: Request<Incoming>| async move {
                    let _ = req.into_body().collect().await;
                    std::future::pending::<Result<Response<Full<Bytes>>, Infallible>>().await
                });
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    let run = proxy_config(up, |c| c.timeout = Duration::from_secs(120)).await;
    let big = "x".repeat(4 << 20);
    let sent = 24;
    for id in 1..=sent {
        let meta: Value = serde_json::from_str(META).unwrap();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "get_weather", "arguments": {"location": big}, "_meta": meta}});
        let (c, addr) = (client(), run.addr);
        tokio::spawn(async move { post(&c, addr, "/mcp", body.to_string()).await });
    }
    let budget = mrtr::check::TRACKED_BYTES_MAX;
    let mut peak = 0;
    let seen = async {
        while run.monitor.summary().messages < sent {
            peak = peak.max(run.monitor.held_bytes());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    timeout(Duration::from_secs(60), seen).await.expect("every request reached the checker");
    peak = peak.max(run.monitor.held_bytes());
    assert!(peak <= budget, "held {peak} bytes, over the budget of {budget}");
    assert!(peak > budget - (5 << 20), "the budget is used: {peak}");
    assert_eq!(run.monitor.summary().violations, 0);
    let _ = run.stop.send(());
}
