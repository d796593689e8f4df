//! What the bridge's tests share: mrtr's own MRTR server (`peers/mrtr_server.py`,
//! 2026-07-28) or the TypeScript SDK's, started on 127.0.0.1; the bridge in
//! this process; a hand-written `2025-11-25` client over hyper that reads
//! the call's event stream block by block; the records checked again
//! offline.

#![allow(dead_code)] // each test file uses part of it

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use mrtr::check::{check_lines, read_jsonl, CheckConfig, Line};
use mrtr::sse::Decoder;
use mrtr::{Limits, Protocol};
use mrtr_bridge::{Bridge, Config, Gauges, Side};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

/// The workspace's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The Python of the peers' venv (with `mcp` and the `mrtr` binding):
/// `$MRTR_PYTHON_VENV` (where the scripts put it; CI's is outside the clone
/// it tests), else `target/venv-python`.
pub fn python() -> PathBuf {
    let venv = std::env::var_os("MRTR_PYTHON_VENV").map_or_else(|| root().join("target/venv-python"), PathBuf::from);
    venv.join("bin/python")
}

/// A free port on 127.0.0.1 (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Waits until something listens on `port` (30 s at most).
pub async fn wait_for(port: u16, child: &mut Child) {
    for _ in 0..600 {
        assert!(child.try_wait().unwrap().is_none(), "the server exited early");
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("nothing listens on {port}");
}

/// A running upstream, killed when dropped.
pub struct Upstream {
    pub url: String,
    _child: Child,
}

/// Starts `program args… PORT` in the workspace and waits for it to listen.
pub async fn upstream(program: &Path, args: &[&str]) -> Upstream {
    let port = free_port();
    let mut child = Command::new(program)
        .args(args)
        .arg(port.to_string())
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    wait_for(port, &mut child).await;
    Upstream { url: format!("http://127.0.0.1:{port}/mcp"), _child: child }
}

/// mrtr's own MRTR server, await-style tools on the Python binding.
pub async fn mrtr_server() -> Upstream {
    upstream(&python(), &[root().join("peers/mrtr_server.py").to_str().unwrap()]).await
}

/// The bridge running in this process, stopped when dropped.
pub struct Running {
    pub addr: SocketAddr,
    /// The live pages, when asked for.
    pub ui: Option<SocketAddr>,
    pub client: Side,
    pub upstream: Side,
    pub gauges: Gauges,
    pub records: (PathBuf, PathBuf),
    stop: Option<oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// The client's endpoint.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// Stops the bridge (its records flushed).
    pub async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(served) = self.served.take() {
            served.await.unwrap();
        }
    }
}

/// A bridge to `upstream`, `config` adjusted by `adjust`, recording both sides into a fresh directory.
pub async fn bridge(upstream: &str, adjust: impl FnOnce(&mut Config)) -> Running {
    let dir = std::env::temp_dir().join(format!("mrtr-bridge-test-{}-{}", std::process::id(), free_port()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = (dir.join("client.jsonl"), dir.join("upstream.jsonl"));
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), upstream.parse().unwrap());
    config.record_client = Some(records.0.clone());
    config.record_upstream = Some(records.1.clone());
    adjust(&mut config);
    let bridge = Bridge::bind(config).await.unwrap();
    let (addr, client, upstream, gauges) =
        (bridge.local_addr().unwrap(), bridge.client_side(), bridge.upstream_side(), bridge.gauges());
    let ui = bridge.ui_addr();
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        bridge
            .serve(async {
                let _ = stopped.await;
            })
            .await;
    });
    Running { addr, ui, client, upstream, gauges, records, stop: Some(stop), served: Some(served) }
}

/// The rules broken in a record, checked again offline under `protocol`.
pub fn recheck(path: &Path, protocol: Protocol) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<Line> = read_jsonl(&text, &Limits::default()).unwrap().into_iter().map(|(_, l)| l).collect();
    assert!(!lines.is_empty(), "{} is empty", path.display());
    let config = CheckConfig::default().with_protocol(protocol);
    check_lines(&lines, config)
        .into_iter()
        .map(|v| format!("{} at {}: {}", v.rule.name(), v.index, v.message))
        .collect()
}

/// The live reports of a side that are violations.
pub fn violations(side: &Side) -> Vec<String> {
    side.monitor()
        .reports()
        .iter()
        .filter(|r| matches!(r, mrtr_bridge::Report::Violation { .. }))
        .map(|r| side.line(r))
        .collect()
}

/// A hand-written `2025-11-25` client: one session, raw HTTP.
pub struct Legacy {
    pub url: String,
    pub session: Option<String>,
    http: Client<HttpConnector, Full<Bytes>>,
}

impl Legacy {
    pub fn new(url: &str) -> Legacy {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        Legacy { url: url.into(), session: None, http: Client::builder(TokioExecutor::new()).build(connector) }
    }

    /// POSTs `body` (text) with this session's id.
    pub async fn post_text(&self, body: &str) -> Response<Incoming> {
        let mut request = Request::post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        let request = request.body(Full::new(Bytes::from(body.to_string()))).unwrap();
        self.http.request(request).await.unwrap()
    }

    pub async fn post(&self, message: &Value) -> Response<Incoming> {
        self.post_text(&message.to_string()).await
    }

    /// GETs the URL: the status and the body as text.
    pub async fn get(&self) -> (StatusCode, String) {
        let request = Request::get(&self.url).body(Full::new(Bytes::new())).unwrap();
        let response = self.http.request(request).await.unwrap();
        let status = response.status();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `GET` in this session: its standalone stream.
    pub async fn standalone(&self) -> Response<Incoming> {
        let mut request = Request::get(&self.url).header("accept", "text/event-stream");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        self.http.request(request.body(Full::new(Bytes::new())).unwrap()).await.unwrap()
    }

    /// `GET` in this session resuming after the event `last_event_id`.
    pub async fn resume(&self, last_event_id: &str) -> Response<Incoming> {
        let mut request =
            Request::get(&self.url).header("accept", "text/event-stream").header("last-event-id", last_event_id);
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        self.http.request(request.body(Full::new(Bytes::new())).unwrap()).await.unwrap()
    }

    /// Sends `method` with no body (GET, DELETE) in this session.
    pub async fn bare(&self, method: http::Method) -> StatusCode {
        let mut request = Request::builder().method(method).uri(&self.url);
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        self.http.request(request.body(Full::new(Bytes::new())).unwrap()).await.unwrap().status()
    }

    /// `initialize` (declaring `capabilities`) and `notifications/initialized`:
    /// the session's id kept; the initialize result returned.
    pub async fn initialize(&mut self, capabilities: Value) -> Value {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "bridge-test", "version": "1.0.0"}}});
        let response = self.post(&init).await;
        assert_eq!(response.status(), StatusCode::OK);
        let session = response.headers().get("mcp-session-id").unwrap().to_str().unwrap().to_string();
        let result = json_body(response).await["result"].clone();
        self.session = Some(session);
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(self.post(&initialized).await.status(), StatusCode::ACCEPTED);
        result
    }
}

/// A whole JSON body.
pub async fn json_body(response: Response<Incoming>) -> Value {
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&bytes)))
}

/// An event stream read message by message.
pub struct Events {
    body: Incoming,
    decoder: Decoder,
    ended: bool,
    /// The id of the last event read (what `Last-Event-ID` resumes from).
    pub last_id: Option<String>,
}

impl Events {
    pub fn new(response: Response<Incoming>) -> Events {
        assert_eq!(response.status(), StatusCode::OK);
        let media = response.headers().get("content-type").unwrap().to_str().unwrap().to_string();
        assert!(media.starts_with("text/event-stream"), "{media}");
        Events { body: response.into_body(), decoder: Decoder::new(), ended: false, last_id: None }
    }

    /// The next JSON-RPC message on the stream; `None` at its end.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            while let Some(event) = self.decoder.poll_event() {
                let event = event.unwrap();
                if event.id.is_some() {
                    self.last_id.clone_from(&event.id);
                }
                if let Some(data) = event.data.filter(|d| !d.trim().is_empty()) {
                    return Some(serde_json::from_str(&data).unwrap());
                }
            }
            if self.ended {
                return None;
            }
            match tokio::time::timeout(Duration::from_secs(20), self.body.frame()).await.expect("a stalled stream") {
                Some(frame) => {
                    if let Some(data) = frame.unwrap().data_ref() {
                        self.decoder.feed(data);
                    }
                }
                None => {
                    self.decoder.finish();
                    self.ended = true;
                }
            }
        }
    }
}

/// The answer each of the peers' questions gets: a form's fields, a
/// sampling result, the roots.
pub fn answer_to(request: &Value) -> Value {
    let params = &request["params"];
    match request["method"].as_str().unwrap() {
        "elicitation/create" if params["mode"] == "url" => json!({"action": "accept"}),
        "elicitation/create" => {
            let answers =
                json!({"units": "celsius", "date": "2026-12-01", "seat": "12A", "focus": "tests", "topic": "mrtr"});
            let keys = params["requestedSchema"]["properties"].as_object().unwrap();
            let content: serde_json::Map<String, Value> =
                keys.keys().map(|k| (k.clone(), answers[k].clone())).collect();
            json!({"action": "accept", "content": content})
        }
        "sampling/createMessage" => {
            json!({"role": "assistant", "content": {"type": "text", "text": "short"}, "model": "m-1"})
        }
        "roots/list" => json!({"roots": [{"uri": "file:///work", "name": "work"}]}),
        other => panic!("an unexpected server request {other}"),
    }
}

/// Makes `request` in `client`'s session, answering every server request on
/// its stream; returns the final response and the server requests seen.
pub async fn call(client: &Legacy, request: &Value) -> (Value, Vec<Value>) {
    let mut events = Events::new(client.post(request).await);
    let mut asked = Vec::new();
    while let Some(message) = events.next().await {
        if message.get("method").is_none() {
            assert!(events.next().await.is_none(), "the stream ends after the final response");
            return (message, asked);
        }
        if message.get("id").is_some() {
            let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": answer_to(&message)});
            assert_eq!(client.post(&answer).await.status(), StatusCode::ACCEPTED);
            asked.push(message);
        }
    }
    panic!("the stream ended without a final response");
}
