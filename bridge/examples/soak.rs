//! The soak: `mrtr bridge` and `mrtr proxy` keep serving honest calls, within
//! their memory formula, while being abused (`scripts/soak` runs it).
//!
//! ```text
//! soak MRTR [--seconds N] [--honest N] [--abusers N]
//! ```
//!
//! One process, everything on 127.0.0.0/8:
//! - two in-process MRTR upstreams (one per gateway): `server/discover`; a
//!   two-round `tools/call` (`input_required` with one elicitation question
//!   and a `requestState`, the retry completes); `echo` (a large request,
//!   answered small); `flood` (an event stream of notifications written as
//!   fast as the gateway takes it, never ending: for the slow readers);
//! - `mrtr bridge` and `mrtr proxy --ui` in front of them, with small explicit
//!   caps (the per-peer flags too when their `--help` lists them);
//! - for `--seconds`: honest clients (a `2025-11-25` client doing two-round
//!   calls through the bridge, an MRTR client doing them through the proxy,
//!   each from its own loopback address, each call timed) and, from other
//!   addresses, the abusers of the security review of 2026-12-07 (N2, N3, N5,
//!   N6, M2′): slow readers of `flood`, a flood of bare `initialize`s, bodies
//!   over the 16 MiB message bound (sized and chunked), trickled bodies,
//!   half-open connections, foreign `Origin`/`Host` and `text/plain`
//!   cross-site POSTs, and large requests while `state.json` of the live
//!   page is polled;
//! - each gateway's `VmRSS`/`VmHWM` and client connections read from `/proc`
//!   every 100 ms.
//!
//! It prints one JSON object (machine, versions, settings, and per gateway:
//! honest calls, latency, memory, each abuse's outcomes, each expectation's
//! verdict) and exits 1 naming every expectation that failed (0: all held; 2:
//! it could not run). The memory formula's constants are [`Formula`]'s, the
//! ones `docs/cli.md` ("Memory") gives. A gateway whose memory passes its
//! formula by far is braked (the abuses that grow it stop) so that a soak of
//! a gateway without bounds does not take the machine down; the verdict has
//! failed by then.

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body::{Body, Frame};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mrtr::sse::Decoder;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::convert::Infallible;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::task::JoinSet;

const MIB: u64 = 1 << 20;

// ---------------------------------------------------------------- the formula

/// The memory formula of each gateway, as `docs/cli.md` ("Memory") writes
/// it; keep the two in step:
///
/// RSS ≤ fixed + checkers × `CHECKER` + connections × `PER_CONNECTION`
///       + bodies × `BODY_COPIES` × message bound + sessions × `PER_SESSION`
///       (+ pages × `PAGE` with `--ui`)
///
/// at the peak: connections open, request bodies being read and checked
/// (at most one per connection), sessions held, live pages.
struct Formula;

impl Formula {
    /// The fixed part: the runtime, its threads and the allocator's arenas,
    /// the binary's pages, the checkers' tables when empty (measured: the
    /// soak's `rss_after_warmup`, 11 to 15 MiB for a debug build).
    const FIXED: u64 = 32 * MIB;
    /// What one checker holds of requests awaiting their answer, as text
    /// (`mrtr::check::TRACKED_BYTES_MAX`): the proxy has one, the bridge two
    /// (its client side and its upstream side).
    const CHECKER: u64 = 64 * MIB;
    /// One connection: hyper's read and write buffers, and the bounded
    /// queue of its response (16 chunks).
    const PER_CONNECTION: u64 = 2 * MIB;
    /// One request body being read and checked, in message bounds
    /// (`--max-message-bytes`, 16 MiB by default): the body, its contiguous
    /// copy once gathered, and its parsed form (for JSON of strings and
    /// objects, about its text; see the doc for arrays of small numbers).
    const BODY_COPIES: u64 = 3;
    /// One bridge session: what the client declared (capabilities,
    /// `clientInfo`), its questions waiting and its streams' routes.
    const PER_SESSION: u64 = 64 * 1024;
    /// One live page (`--ui`): its timeline's budget (`ENTRY_BYTES_KEPT`
    /// 16 MiB + 2 × `ITEM_BYTES_KEPT` 2 MiB + bookkeeping, about 20.3 MiB)
    /// and one `state.json` of about that size being served.
    const PAGE: u64 = 42 * MIB;

    /// The bound for a gateway with `checkers` checkers and `pages` pages,
    /// and a message bound of `message` bytes.
    fn bound(message: u64, checkers: u64, pages: u64, connections: u64, bodies: u64, sessions: u64) -> u64 {
        Formula::FIXED
            + checkers * Formula::CHECKER
            + connections * Formula::PER_CONNECTION
            + bodies.min(connections) * Formula::BODY_COPIES * message
            + sessions * Formula::PER_SESSION
            + pages * Formula::PAGE
    }

    fn to_json(message: u64) -> Value {
        json!({"fixed_mib": Formula::FIXED / MIB, "checker_mib": Formula::CHECKER / MIB,
            "per_connection_mib": Formula::PER_CONNECTION / MIB, "message_bound_mib": message / MIB,
            "per_body_mib": Formula::BODY_COPIES * message / MIB,
            "per_session_kib": Formula::PER_SESSION / 1024, "page_mib": Formula::PAGE / MIB,
            "text": "RSS <= fixed + checkers x checker + connections x per_connection \
                     + bodies x 3 x message bound + sessions x per_session (+ pages x page with --ui), \
                     at the peak; docs/cli.md, Memory"})
    }
}

// ---------------------------------------------------------------- settings

/// What the soak runs with.
#[derive(Clone, Debug)]
struct Settings {
    mrtr: PathBuf,
    seconds: u64,
    /// Honest clients per gateway.
    honest: usize,
    /// Slow readers per gateway (the other abuses scale from it).
    abusers: usize,
    /// The gateways' `--timeout`.
    timeout: u64,
    max_connections: usize,
    max_sessions: usize,
    per_peer_connections: usize,
    per_peer_sessions: usize,
    /// The size of a large request (`echo`).
    large_bytes: usize,
    /// The message bound (`--max-message-bytes`, given explicitly when the
    /// gateway has the flag; the core's 16 MiB otherwise).
    message_bytes: u64,
}

impl Settings {
    fn parse() -> Result<Settings, String> {
        let mut args = std::env::args().skip(1);
        let mut settings = Settings {
            mrtr: PathBuf::new(),
            seconds: 60,
            honest: 8,
            abusers: 4,
            timeout: 5,
            max_connections: 64,
            max_sessions: 32,
            per_peer_connections: 4,
            per_peer_sessions: 4,
            large_bytes: 8 << 20,
            message_bytes: 16 * MIB,
        };
        let mut mrtr = None;
        while let Some(arg) = args.next() {
            let mut number = |name: &str| -> Result<u64, String> {
                let v = args.next().ok_or(format!("{name} needs a value"))?;
                v.parse().map_err(|_| format!("{name}: not a number: {v}"))
            };
            match arg.as_str() {
                "--seconds" => settings.seconds = number("--seconds")?.clamp(5, 4 * 3600),
                "--honest" => settings.honest = usize::try_from(number("--honest")?.clamp(1, 32)).unwrap_or(8),
                "--abusers" => settings.abusers = usize::try_from(number("--abusers")?.clamp(1, 16)).unwrap_or(4),
                "-h" | "--help" => return Err(String::new()),
                other if other.starts_with('-') => return Err(format!("unknown option {other}")),
                other => mrtr = Some(PathBuf::from(other)),
            }
        }
        settings.mrtr = mrtr.ok_or("the mrtr binary's path is required")?;
        Ok(settings)
    }
}

const USAGE: &str = "usage: soak MRTR [--seconds N] [--honest N] [--abusers N]";

// ---------------------------------------------------------------- the children

/// The pids of the children, killed on every way out (a panic included).
static CHILDREN: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn kill_children() {
    let pids = std::mem::take(&mut *CHILDREN.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
    for pid in pids {
        let quiet = std::process::Command::new("kill").arg("-9").arg(pid.to_string()).stderr(Stdio::null()).status();
        drop(quiet); // gone already: nothing to do
    }
}

/// Kills the children when dropped (the end of `main`, or unwinding).
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        kill_children();
    }
}

/// A gateway process: its pid, addresses, and the tail of its stderr.
struct Child {
    child: tokio::process::Child,
    pid: u32,
    listen: SocketAddr,
    ui: Option<SocketAddr>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    command: Vec<String>,
}

/// Starts `mrtr ARGS…` and waits for the addresses it says on stderr.
async fn spawn(mrtr: &Path, args: Vec<String>, want_ui: bool) -> Result<Child, String> {
    let mut child = tokio::process::Command::new(mrtr)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", mrtr.display()))?;
    let pid = child.id().ok_or("the child has no pid")?;
    CHILDREN.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(pid);
    let stderr = child.stderr.take().ok_or("no stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let (mut listen, mut ui) = (None, None);
    let started = tokio::time::timeout(Duration::from_secs(15), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(rest) = line.split("listening on ").nth(1) {
                listen = rest.split([' ', ',']).next().and_then(|a| a.parse::<SocketAddr>().ok());
            }
            // Only the line that names the page (or pages): another line may name a URL too.
            if let Some(rest) = line.split("at http://").nth(1).filter(|_| line.contains("live page")) {
                ui = rest.split('/').next().and_then(|a| a.parse::<SocketAddr>().ok());
            }
            if listen.is_some() && (ui.is_some() || !want_ui) {
                return true;
            }
        }
        false
    })
    .await;
    let Some(listen) = listen.filter(|_| started == Ok(true)) else {
        return Err(format!("{} {} did not say where it listens", mrtr.display(), args.join(" ")));
    };
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    let kept = tail.clone();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            let mut tail = kept.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if tail.len() >= 20 {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    });
    let mut command = vec![mrtr.display().to_string()];
    command.extend(args);
    Ok(Child { child, pid, listen, ui, stderr_tail: tail, command })
}

/// The flags `mrtr COMMAND --help` lists.
fn flags_of(mrtr: &Path, command: &str) -> Vec<String> {
    let out = std::process::Command::new(mrtr).args([command, "--help"]).output();
    let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
    let mut flags: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| w.trim_end_matches(['.', ')', ':']).to_string())
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

// ---------------------------------------------------------------- counts

/// Outcomes by name.
#[derive(Default)]
struct Tally(Mutex<BTreeMap<String, u64>>);

impl Tally {
    fn add(&self, outcome: impl Into<String>) {
        *self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).entry(outcome.into()).or_default() += 1;
    }

    fn snapshot(&self) -> BTreeMap<String, u64> {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }
}

/// The honest calls through one gateway.
#[derive(Default)]
struct Honest {
    attempted: AtomicU64,
    served: AtomicU64,
    failed: Tally,
    /// Each served call's latency, µs.
    latencies: Mutex<Vec<u32>>,
}

impl Honest {
    /// A call's outcome: served (the call's first request sent at `started`), or why not.
    fn record(&self, outcome: Result<Instant, String>) {
        self.attempted.fetch_add(1, Ordering::Relaxed);
        match outcome {
            Ok(started) => {
                self.served.fetch_add(1, Ordering::Relaxed);
                let us = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
                self.latencies.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(us);
            }
            Err(why) => self.failed.add(why),
        }
    }
}

/// Memory as sampled.
#[derive(Default, Clone)]
struct Memory {
    rss_kib: u64,
    peak_rss_kib: u64,
    hwm_kib: u64,
    connections: u64,
    peak_connections: u64,
    rss_after_warmup_kib: u64,
    /// (seconds since the start, RSS KiB, connections), once a second.
    series: Vec<(u64, u64, u64)>,
    braked_at_s: Option<f64>,
}

/// Which gateway.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bridge,
    Proxy,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Bridge => "bridge",
            Kind::Proxy => "proxy",
        }
    }
    /// The third octet of its clients' addresses: honest 127.0.N.i, abusers 127.0.N+1.i.
    fn octet(self) -> u8 {
        match self {
            Kind::Bridge => 10,
            Kind::Proxy => 20,
        }
    }
}

/// One gateway under soak.
struct Target {
    kind: Kind,
    listen: SocketAddr,
    ui: Option<SocketAddr>,
    pid: u32,
    honest: Honest,
    abuses: Mutex<BTreeMap<&'static str, Arc<Tally>>>,
    /// Set when its memory passes the ceiling: the abuses that grow it stop.
    brake: Arc<AtomicBool>,
    memory: Mutex<Memory>,
    /// Its formula at the caps (for the ceiling) and the numbers it needs.
    checkers: u64,
    pages: u64,
    sessions_cap: u64,
    connections_cap: u64,
    /// Its message bound, bytes.
    message: u64,
    /// Large request bodies (over 64 KiB) the soak has in flight to it, and their peak.
    bodies: AtomicU64,
    peak_bodies: AtomicU64,
}

/// A large body in flight to a target, counted while it lives.
struct InFlight<'a>(&'a Target);

impl<'a> InFlight<'a> {
    fn new(target: &'a Target) -> InFlight<'a> {
        let now = target.bodies.fetch_add(1, Ordering::SeqCst) + 1;
        target.peak_bodies.fetch_max(now, Ordering::SeqCst);
        InFlight(target)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.bodies.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Target {
    fn tally(&self, abuse: &'static str) -> Arc<Tally> {
        self.abuses.lock().unwrap_or_else(std::sync::PoisonError::into_inner).entry(abuse).or_default().clone()
    }

    fn url(&self) -> String {
        format!("http://{}/mcp", self.listen)
    }

    /// An honest client's address, `i` from 0.
    fn honest_ip(&self, i: usize) -> Ipv4Addr {
        Ipv4Addr::new(127, 0, self.kind.octet(), u8::try_from(i + 1).unwrap_or(250))
    }

    /// An abuser's address, one per kind of abuse.
    fn abuser_ip(&self, abuse: u8) -> Ipv4Addr {
        Ipv4Addr::new(127, 0, self.kind.octet() + 1, abuse)
    }

    fn ceiling_kib(&self) -> u64 {
        // The soak sends at most two large bodies to a gateway at once.
        let at_caps =
            Formula::bound(self.message, self.checkers, self.pages, self.connections_cap, 2, self.sessions_cap);
        (at_caps + at_caps / 4 + 256 * MIB).min(4096 * MIB) / 1024
    }

    fn memory(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.memory.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

// ---------------------------------------------------------------- the upstream

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;

/// An MRTR server in this process.
struct Upstream {
    brake: Arc<AtomicBool>,
    flood_bytes: AtomicU64,
}

/// A response body: one chunk, or the endless flood.
enum Answer {
    Once(Option<Bytes>),
    Flood { chunk: Bytes, upstream: Arc<Upstream>, sent: u64 },
}

/// A flood stream ends by itself past this (a safety bound).
const FLOOD_MAX_BYTES: u64 = 8 << 30;

impl Body for Answer {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match &mut *self {
            Answer::Once(chunk) => Poll::Ready(chunk.take().map(|c| Ok(Frame::data(c)))),
            Answer::Flood { chunk, upstream, sent } => {
                if upstream.brake.load(Ordering::Relaxed) || *sent >= FLOOD_MAX_BYTES {
                    return Poll::Ready(None);
                }
                *sent += chunk.len() as u64;
                upstream.flood_bytes.fetch_add(chunk.len() as u64, Ordering::Relaxed);
                Poll::Ready(Some(Ok(Frame::data(chunk.clone()))))
            }
        }
    }
}

/// `"id":…` of a large body, read from its start (not parsed whole).
fn quick_id(body: &[u8]) -> String {
    let head = String::from_utf8_lossy(&body[..body.len().min(256)]).into_owned();
    head.split("\"id\":").nth(1).and_then(|r| r.split([',', '}']).next()).unwrap_or("null").trim().to_string()
}

fn result(id: &Value, result: Value) -> Bytes {
    Bytes::from(json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string())
}

/// The flood's chunk: one `notifications/message` event of 256 KiB (cheap
/// for the gateway's checker to read, so that the flood is as fast as the
/// gateway takes it).
fn flood_chunk() -> Bytes {
    let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "logger": "flood", "data": "x".repeat(256 * 1024)}});
    Bytes::from(format!("event: message\ndata: {note}\n\n"))
}

async fn upstream_answer(req: Request<Incoming>, up: Arc<Upstream>) -> Result<Response<Answer>, Infallible> {
    let body = Limited::new(req.into_body(), 64 << 20).collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let json_response = |bytes: Bytes| {
        let mut r = Response::new(Answer::Once(Some(bytes)));
        r.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
        Ok(r)
    };
    if body.len() > 256 * 1024 {
        let id: Value = serde_json::from_str(&quick_id(&body)).unwrap_or(Value::Null);
        let text = format!("got {} bytes", body.len());
        return json_response(result(
            &id,
            json!({"resultType": "complete", "content": [{"type": "text", "text": text}]}),
        ));
    }
    let m: Value = serde_json::from_slice(&body).unwrap_or_default();
    let accepted = || {
        let mut r = Response::new(Answer::Once(None));
        *r.status_mut() = StatusCode::ACCEPTED;
        Ok(r)
    };
    let Some(method) = m.get("method").and_then(Value::as_str) else { return accepted() };
    let Some(id) = m.get("id") else { return accepted() };
    let params = &m["params"];
    match (method, params["name"].as_str(), params["requestState"].as_str()) {
        ("server/discover" | "initialize", _, _) => json_response(result(
            id,
            json!({"resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                "ttlMs": 0, "cacheScope": "private"}),
        )),
        ("tools/call", Some("flood"), _) => {
            let mut r = Response::new(Answer::Flood { chunk: flood_chunk(), upstream: up, sent: 0 });
            r.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("text/event-stream"));
            Ok(r)
        }
        ("tools/call", Some("echo"), _) => {
            json_response(result(id, json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}]})))
        }
        ("tools/call", _, None) => json_response(result(
            id,
            json!({"resultType": "input_required", "requestState": format!("s{}", id),
                "inputRequests": {"name": {"method": "elicitation/create", "params": {"mode": "form",
                    "message": "Your name?", "requestedSchema": {"type": "object",
                        "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}}),
        )),
        ("tools/call", _, Some(_)) => {
            let name = params["inputResponses"]["name"]["content"]["name"].as_str().unwrap_or("?");
            let text = format!("hello {name}");
            json_response(result(id, json!({"resultType": "complete", "content": [{"type": "text", "text": text}]})))
        }
        _ => json_response(Bytes::from(
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no such method"}}).to_string(),
        )),
    }
}

/// Serves on 127.0.0.1 until the runtime ends: its address.
async fn upstream(brake: Arc<AtomicBool>) -> std::io::Result<(SocketAddr, Arc<Upstream>)> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let up = Arc::new(Upstream { brake, flood_bytes: AtomicU64::new(0) });
    let serving = up.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let _ = stream.set_nodelay(true);
            let up = serving.clone();
            let service = service_fn(move |req| upstream_answer(req, up.clone()));
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    Ok((addr, up))
}

// ---------------------------------------------------------------- honest clients

type Http = Client<HttpConnector, Full<Bytes>>;

/// How long an honest call may take before it counts as lost.
const HONEST_TIMEOUT: Duration = Duration::from_secs(15);

fn client_from(ip: Ipv4Addr) -> Http {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    connector.set_local_address(Some(IpAddr::V4(ip)));
    Client::builder(TokioExecutor::new()).pool_idle_timeout(Duration::from_secs(2)).build(connector)
}

async fn post(http: &Http, url: &str, body: &Value, headers: &[(&str, &str)]) -> Result<Response<Incoming>, String> {
    let mut request = Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let request = request.body(Full::new(Bytes::from(body.to_string()))).map_err(|e| e.to_string())?;
    http.request(request).await.map_err(|e| format!("connection: {}", short(&e)))
}

/// An error's kind, short enough to count by.
fn short(e: &dyn std::fmt::Display) -> String {
    let text = e.to_string();
    text.split(':').next().unwrap_or("").chars().take(60).collect()
}

async fn json_of(response: Response<Incoming>) -> Result<Value, String> {
    let bytes = response.into_body().collect().await.map_err(|e| format!("body: {}", short(&e)))?.to_bytes();
    serde_json::from_slice(&bytes).map_err(|_| "body: not JSON".to_string())
}

/// The next JSON-RPC message on an event stream.
async fn next_message(body: &mut Incoming, decoder: &mut Decoder) -> Result<Value, String> {
    loop {
        while let Some(event) = decoder.poll_event() {
            let event = event.map_err(|e| format!("stream: {}", e.rule().name()))?;
            if let Some(data) = event.data.filter(|d| !d.trim().is_empty()) {
                return serde_json::from_str(&data).map_err(|_| "stream: not JSON".to_string());
            }
        }
        let frame = body.frame().await.ok_or("stream: ended early")?.map_err(|e| format!("stream: {}", short(&e)))?;
        if let Some(data) = frame.data_ref() {
            decoder.feed(data);
        }
    }
}

/// A `2025-11-25` session with the bridge: its id.
async fn legacy_session(http: &Http, url: &str, n: usize) -> Result<String, String> {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {"form": {}}}, "clientInfo": {"name": format!("honest-{n}"), "version": "1"}}});
    let response = post(http, url, &init, &[]).await?;
    if response.status() != StatusCode::OK {
        return Err(format!("initialize: {}", response.status().as_u16()));
    }
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .ok_or("initialize: no session")?
        .to_string();
    json_of(response).await?;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let headers = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
    let done = post(http, url, &initialized, &headers).await?;
    let status = done.status();
    let _ = done.into_body().collect().await;
    if status != StatusCode::ACCEPTED {
        return Err(format!("initialized: {}", status.as_u16()));
    }
    Ok(session)
}

/// The `2025-11-25` client's two-round call: the question off the call's
/// stream, the answer POSTed, the result.
async fn legacy_call(http: &Http, url: &str, session: &str, id: u64, who: &str) -> Result<(), String> {
    let headers = [("mcp-session-id", session), ("mcp-protocol-version", "2025-11-25")];
    let call =
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "greet", "arguments": {}}});
    let response = post(http, url, &call, &headers).await?;
    if response.status() != StatusCode::OK {
        return Err(format!("call: {}", response.status().as_u16()));
    }
    let mut body = response.into_body();
    let mut decoder = Decoder::new();
    let question = next_message(&mut body, &mut decoder).await?;
    if question["method"] != "elicitation/create" {
        return Err("call: no question".into());
    }
    let answer =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"name": who}}});
    let answered = post(http, url, &answer, &headers).await?;
    let status = answered.status();
    let _ = answered.into_body().collect().await;
    if status != StatusCode::ACCEPTED {
        return Err(format!("answer: {}", status.as_u16()));
    }
    let done = next_message(&mut body, &mut decoder).await?;
    if done["result"]["content"][0]["text"] != format!("hello {who}").as_str() {
        return Err("call: wrong result".into());
    }
    Ok(())
}

/// An honest `2025-11-25` client of the bridge until `until`: a new session
/// every 25 calls (the old one ended with `DELETE`), as new clients come.
async fn honest_bridge(target: Arc<Target>, n: usize, until: Instant) {
    let http = client_from(target.honest_ip(n));
    let url = target.url();
    let who = format!("honest{n}");
    let mut session: Option<String> = None;
    let mut id = 0u64;
    for calls in 0..10_000_000u64 {
        if Instant::now() >= until {
            break;
        }
        let outcome = tokio::time::timeout(HONEST_TIMEOUT, async {
            if calls % 25 == 0 {
                if let Some(old) = session.take() {
                    let delete = Request::delete(&url).header("mcp-session-id", &old).body(Full::new(Bytes::new()));
                    if let Ok(delete) = delete {
                        let _ = http.request(delete).await;
                    }
                }
            }
            let current = match &session {
                Some(s) => s.clone(),
                None => {
                    let s = legacy_session(&http, &url, n).await?;
                    session = Some(s.clone());
                    s
                }
            };
            id += 1;
            // The latency is the call's: a new session's initialize is not in it.
            let started = Instant::now();
            legacy_call(&http, &url, &current, id, &who).await.map(|()| started)
        })
        .await
        .unwrap_or_else(|_| Err("timeout".into()));
        if outcome.is_err() {
            session = None;
        }
        // A client whose call failed waits a little before the next.
        let pause = if outcome.is_ok() { 10 } else { 250 };
        target.honest.record(outcome);
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
}

/// The MRTR client's two-round call: the first request, then the retry.
async fn mrtr_call(http: &Http, url: &str, id: u64, who: &str) -> Result<(), String> {
    let headers = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "greet")];
    let meta: Value = serde_json::from_str(META).unwrap_or_default();
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "greet", "arguments": {}, "_meta": meta}});
    let response = post(http, url, &call, &headers).await?;
    if response.status() != StatusCode::OK {
        return Err(format!("call: {}", response.status().as_u16()));
    }
    let asked = json_of(response).await?;
    let state = asked["result"]["requestState"].clone();
    if asked["result"]["resultType"] != "input_required" || !state.is_string() {
        return Err("call: not input_required".into());
    }
    let mut retry = call.clone();
    retry["id"] = json!(id + 1);
    retry["params"]["inputResponses"] = json!({"name": {"action": "accept", "content": {"name": who}}});
    retry["params"]["requestState"] = state;
    let response = post(http, url, &retry, &headers).await?;
    if response.status() != StatusCode::OK {
        return Err(format!("retry: {}", response.status().as_u16()));
    }
    let done = json_of(response).await?;
    if done["result"]["content"][0]["text"] != format!("hello {who}").as_str() {
        return Err("retry: wrong result".into());
    }
    Ok(())
}

/// An honest MRTR client of the proxy until `until`.
async fn honest_proxy(target: Arc<Target>, n: usize, until: Instant) {
    let http = client_from(target.honest_ip(n));
    let url = target.url();
    let who = format!("honest{n}");
    for calls in 0..10_000_000u64 {
        if Instant::now() >= until {
            break;
        }
        let started = Instant::now();
        let id = (n as u64 + 1) * 100_000_000 + calls * 2;
        let outcome = tokio::time::timeout(HONEST_TIMEOUT, mrtr_call(&http, &url, id, &who))
            .await
            .unwrap_or_else(|_| Err("timeout".into()))
            .map(|()| started);
        // A client whose call failed waits a little before the next.
        let pause = if outcome.is_ok() { 10 } else { 250 };
        target.honest.record(outcome);
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
}

// ---------------------------------------------------------------- raw HTTP

/// A connection from `ip` (its receive buffer `rcvbuf` bytes when given).
async fn connect_from(ip: Ipv4Addr, to: SocketAddr, rcvbuf: Option<u32>) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    if let Some(size) = rcvbuf {
        socket.set_recv_buffer_size(size)?;
    }
    socket.bind(SocketAddr::new(IpAddr::V4(ip), 0))?;
    let stream = tokio::time::timeout(Duration::from_secs(5), socket.connect(to))
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "connect"))??;
    stream.set_nodelay(true)?;
    Ok(stream)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A head for `POST /mcp` with `body_len` (`None`: chunked).
fn head(to: SocketAddr, extra: &[(&str, &str)], body_len: Option<usize>) -> String {
    let mut text = format!("POST /mcp HTTP/1.1\r\nhost: {to}\r\naccept: application/json, text/event-stream\r\n");
    let mut typed = false;
    for (name, value) in extra {
        typed |= name.eq_ignore_ascii_case("content-type");
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    if !typed {
        text.push_str("content-type: application/json\r\n");
    }
    match body_len {
        Some(n) => text.push_str(&format!("content-length: {n}\r\n\r\n")),
        None => text.push_str("transfer-encoding: chunked\r\n\r\n"),
    }
    text
}

/// A keep-alive connection reading whole responses (by `content-length` or
/// chunked), a body over `max_body` cut.
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    async fn fill(&mut self) -> std::io::Result<()> {
        let mut chunk = [0u8; 16384];
        let n = self.stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "closed"));
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(())
    }

    /// The status, the head (lower case) and the body's length (cut past `max_body`).
    async fn response(&mut self, max_body: usize) -> std::io::Result<(u16, String, usize)> {
        let head_end = loop {
            if let Some(i) = find(&self.buf, b"\r\n\r\n") {
                break i + 4;
            }
            self.fill().await?;
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).to_ascii_lowercase();
        let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
        let length =
            head.lines().find_map(|l| l.strip_prefix("content-length:")).map(|v| v.trim().parse().unwrap_or(0));
        let chunked = head.lines().any(|l| l.starts_with("transfer-encoding:") && l.contains("chunked"));
        self.buf.drain(..head_end);
        let mut got = 0usize;
        if chunked {
            loop {
                let line_end = loop {
                    if let Some(i) = find(&self.buf, b"\r\n") {
                        break i;
                    }
                    self.fill().await?;
                };
                let size_text = String::from_utf8_lossy(&self.buf[..line_end]).to_string();
                let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                    .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "chunk size"))?;
                if got + size > max_body {
                    return Ok((status, head, usize::MAX));
                }
                while self.buf.len() < line_end + 2 + size + 2 {
                    self.fill().await?;
                }
                got += size;
                self.buf.drain(..line_end + 2 + size + 2);
                if size == 0 {
                    break;
                }
            }
        } else {
            let length: usize = length.unwrap_or(0);
            if length > max_body {
                return Ok((status, head, usize::MAX));
            }
            while self.buf.len() < length {
                self.fill().await?;
            }
            self.buf.drain(..length);
            got = length;
        }
        Ok((status, head, got))
    }
}

/// What a refused or failed exchange looks like, to count by.
fn io_outcome(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => "closed".into(),
        std::io::ErrorKind::ConnectionReset => "reset".into(),
        std::io::ErrorKind::BrokenPipe => "reset".into(),
        std::io::ErrorKind::TimedOut => "timeout".into(),
        std::io::ErrorKind::ConnectionRefused => "refused (connect)".into(),
        other => format!("{other:?}"),
    }
}

/// One raw exchange: `head` + `body`, its response's status (or what happened).
async fn exchange(ip: Ipv4Addr, to: SocketAddr, request: &[u8], limit: Duration) -> String {
    let go = async {
        let stream = connect_from(ip, to, None).await?;
        let mut conn = Conn { stream, buf: Vec::new() };
        conn.stream.write_all(request).await?;
        conn.response(64 << 20).await
    };
    match tokio::time::timeout(limit, go).await {
        Ok(Ok((status, _, _))) => status.to_string(),
        Ok(Err(e)) => io_outcome(&e),
        Err(_) => "timeout".into(),
    }
}

fn mrtr_call_body(id: &str, name: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{{}},"_meta":{META}}}}}"#
    )
}

fn mrtr_headers(name: &str) -> [(&str, &str); 3] {
    [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", name)]
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"abuser","version":"1"}}}"#;

// ---------------------------------------------------------------- the abuses

/// Slow readers: a call of `flood` on a socket with a 4 KiB receive buffer,
/// never read for 3 × the gateway's `--timeout`, then its status line read
/// and the socket drained to tell whether the gateway had dropped it. Through the
/// bridge, half relayed (an MRTR client's `flood`), half bridged (a
/// `2025-11-25` session's). Stops when the gateway is braked.
async fn slow_reader(target: Arc<Target>, n: usize, timeout: u64, until: Instant) {
    let tally = target.tally("slow_readers");
    let ip = target.abuser_ip(1);
    for round in 0..100_000u64 {
        if Instant::now() >= until || target.brake.load(Ordering::Relaxed) {
            break;
        }
        let bridged = target.kind == Kind::Bridge && (round + n as u64) % 2 == 1;
        let outcome = async {
            let stream = connect_from(ip, target.listen, Some(4096)).await?;
            let mut conn = Conn { stream, buf: Vec::new() };
            let request = if bridged {
                let init = format!("{}{INITIALIZE}", head(target.listen, &[], Some(INITIALIZE.len())));
                conn.stream.write_all(init.as_bytes()).await?;
                let (status, head_text, _) = conn.response(1 << 20).await?;
                let session = head_text.lines().find_map(|l| l.strip_prefix("mcp-session-id:")).map(str::trim);
                let Some(session) = session.map(String::from) else {
                    return Ok::<String, std::io::Error>(format!("initialize {status}"));
                };
                let body = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flood","arguments":{}}}"#;
                let extra = [("mcp-session-id", session.as_str()), ("mcp-protocol-version", "2025-11-25")];
                format!("{}{body}", head(target.listen, &extra, Some(body.len())))
            } else {
                let body = mrtr_call_body(&format!("\"flood-{n}-{round}\""), "flood");
                format!("{}{body}", head(target.listen, &mrtr_headers("flood"), Some(body.len())))
            };
            conn.stream.write_all(request.as_bytes()).await?;
            // Held, never read, for 3 × --timeout (or until the brake, an
            // error on the socket, or the end). A gateway that drops it sends
            // its FIN behind data this socket never takes: it shows only when
            // the socket is drained, next.
            let errored = async {
                loop {
                    let ready = conn.stream.ready(tokio::io::Interest::READABLE).await?;
                    if ready.is_error() || target.brake.load(Ordering::Relaxed) {
                        return Ok::<(), std::io::Error>(());
                    }
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
            };
            let hold = until.saturating_duration_since(Instant::now()).min(Duration::from_secs(3 * timeout));
            let _ = tokio::time::timeout(hold, errored).await;
            let mut first = [0u8; 12];
            let read = tokio::time::timeout(Duration::from_secs(2), conn.stream.read_exact(&mut first)).await;
            let status = match read {
                Ok(Ok(_)) => String::from_utf8_lossy(&first[9..12]).into_owned(),
                Ok(Err(e)) => io_outcome(&e),
                Err(_) => "nothing read".into(),
            };
            // Drained for up to 3 s: an end (or a reset) says the gateway
            // had dropped the reader; data still coming, that it had not.
            let mut chunk = vec![0u8; 64 * 1024];
            let drained = Instant::now();
            let how = loop {
                let left = Duration::from_secs(3).saturating_sub(drained.elapsed());
                match tokio::time::timeout(left, conn.stream.read(&mut chunk)).await {
                    Ok(Ok(0)) => break "dropped by the gateway",
                    Ok(Ok(_)) => continue,
                    Ok(Err(_)) => break "dropped by the gateway (reset)",
                    Err(_) => break "still streaming after the hold",
                }
            };
            Ok(if status == "200" { format!("200, {how}") } else { status })
        }
        .await;
        let kind = if bridged { "bridged" } else { "relayed" };
        let label = match target.kind {
            Kind::Bridge => format!("{kind} {}", outcome.unwrap_or_else(|e| io_outcome(&e))),
            Kind::Proxy => outcome.unwrap_or_else(|e| io_outcome(&e)),
        };
        tally.add(label);
    }
}

/// A flood of bare `initialize`s from one peer, 50 a second per task.
async fn initialize_flood(target: Arc<Target>, until: Instant) {
    let tally = target.tally("initialize_flood");
    let ip = target.abuser_ip(2);
    let request = format!("{}{INITIALIZE}", head(target.listen, &[], Some(INITIALIZE.len()))).into_bytes();
    let mut conn: Option<Conn> = None;
    for _ in 0..10_000_000u64 {
        if Instant::now() >= until {
            break;
        }
        let pace = tokio::time::sleep(Duration::from_millis(20));
        if conn.is_none() {
            match connect_from(ip, target.listen, None).await {
                Ok(stream) => conn = Some(Conn { stream, buf: Vec::new() }),
                Err(e) => {
                    tally.add(io_outcome(&e));
                    pace.await;
                    continue;
                }
            }
        }
        let Some(c) = conn.as_mut() else { continue };
        let got = tokio::time::timeout(Duration::from_secs(10), async {
            c.stream.write_all(&request).await?;
            c.response(1 << 20).await
        })
        .await;
        match got {
            Ok(Ok((status, head_text, _))) => {
                tally.add(status.to_string());
                if head_text.contains("connection: close") {
                    conn = None;
                }
            }
            Ok(Err(e)) => {
                tally.add(io_outcome(&e));
                conn = None;
            }
            Err(_) => {
                tally.add("timeout");
                conn = None;
            }
        }
        pace.await;
    }
}

/// Bodies over the message bound (16 MiB + 1 MiB), sized and chunked, and
/// bodies within it that would parse to many times their text (one-digit
/// numbers: review N6's shape), one every 2 s: expected `413`.
async fn huge_bodies(target: Arc<Target>, until: Instant) {
    let tally = target.tally("huge_bodies");
    let ip = target.abuser_ip(3);
    let over = usize::try_from(target.message + MIB).unwrap_or(17 << 20);
    let within = usize::try_from(target.message.saturating_sub(MIB)).unwrap_or(15 << 20);
    let prefix = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"n":"#;
    for round in 0..100_000u64 {
        if Instant::now() >= until {
            break;
        }
        let (kind, chunked, pieces) = match round % 3 {
            0 => ("sized", false, body_pieces(prefix, b"7", b"7", over)),
            1 => ("chunked", true, body_pieces(prefix, b"7", b"7", over)),
            _ => ("numbers", false, body_pieces(&format!("{prefix}["), b"1,", b"1]}}}", within)),
        };
        let size = pieces.iter().map(Bytes::len).sum();
        let go = async {
            let _in_flight = InFlight::new(&target);
            let stream = connect_from(ip, target.listen, None).await?;
            let mut conn = Conn { stream, buf: Vec::new() };
            let headers = mrtr_headers("echo");
            conn.stream.write_all(head(target.listen, &headers, (!chunked).then_some(size)).as_bytes()).await?;
            let send = async {
                for p in pieces {
                    if chunked {
                        conn.stream.write_all(format!("{:x}\r\n", p.len()).as_bytes()).await?;
                        conn.stream.write_all(&p).await?;
                        conn.stream.write_all(b"\r\n").await?;
                    } else {
                        conn.stream.write_all(&p).await?;
                    }
                }
                if chunked {
                    conn.stream.write_all(b"0\r\n\r\n").await?;
                }
                Ok::<(), std::io::Error>(())
            };
            // The gateway may answer before the body is all sent: a failed
            // write still leaves its answer to read.
            let _ = send.await;
            conn.response(1 << 20).await
        };
        let outcome = match tokio::time::timeout(Duration::from_secs(20), go).await {
            Ok(Ok((status, _, _))) => status.to_string(),
            Ok(Err(e)) => io_outcome(&e),
            Err(_) => "timeout".into(),
        };
        tally.add(format!("{kind} {outcome}"));
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}

/// A body of `size` bytes, sent in 1 MiB pieces: `prefix`, `unit` repeated,
/// then `end` (the last piece padded with `unit`'s first byte where `unit`
/// does not fit whole: `unit` of one byte, or a number list's `1,`).
fn body_pieces(prefix: &str, unit: &[u8], end: &[u8], size: usize) -> Vec<Bytes> {
    let piece: Bytes =
        unit.iter().copied().cycle().take((1 << 20) / unit.len() * unit.len()).collect::<Vec<u8>>().into();
    let mut pieces = vec![Bytes::from(prefix.to_string())];
    let mut sent = prefix.len();
    while sent + piece.len() + end.len() < size {
        pieces.push(piece.clone());
        sent += piece.len();
    }
    let rest = size.saturating_sub(sent + end.len()) / unit.len() * unit.len();
    let mut last: Vec<u8> = unit.iter().copied().cycle().take(rest).collect();
    last.extend_from_slice(end);
    pieces.push(Bytes::from(last));
    pieces
}

/// Trickled bodies: 64 KiB announced, 16 bytes sent every 500 ms: expected
/// `408` after the gateway's `--timeout`.
async fn trickle(target: Arc<Target>, until: Instant) {
    let tally = target.tally("trickled_bodies");
    let ip = target.abuser_ip(4);
    for _ in 0..100_000u64 {
        if Instant::now() >= until {
            break;
        }
        let go = async {
            let stream = connect_from(ip, target.listen, None).await?;
            let mut conn = Conn { stream, buf: Vec::new() };
            conn.stream.write_all(head(target.listen, &mrtr_headers("echo"), Some(65536)).as_bytes()).await?;
            let started = Instant::now();
            for _ in 0..240 {
                let mut byte = [0u8; 1];
                tokio::select! {
                    read = conn.stream.peek(&mut byte) => {
                        read?;
                        let (status, _, _) = conn.response(1 << 20).await?;
                        return Ok((status.to_string(), started.elapsed()));
                    }
                    () = tokio::time::sleep(Duration::from_millis(500)) => {
                        conn.stream.write_all(b"[1,2,3,4,5,6,7,8").await?;
                    }
                }
            }
            Ok::<_, std::io::Error>(("still open after 120 s".to_string(), started.elapsed()))
        };
        let outcome = match tokio::time::timeout(Duration::from_secs(130), go).await {
            Ok(Ok((status, took))) => format!("{status} after {}s", took.as_secs()),
            Ok(Err(e)) => io_outcome(&e),
            Err(_) => "timeout".into(),
        };
        tally.add(outcome);
    }
}

/// Half-open connections: a partial head, then silence, reopened as soon as
/// the gateway closes one; `count` held at once from one peer.
async fn half_open(target: Arc<Target>, i: usize, until: Instant) {
    let tally = target.tally("half_open");
    let ip = target.abuser_ip(5);
    // Two seconds late: the other abusers get their connections first.
    tokio::time::sleep(Duration::from_secs(2)).await;
    for _ in 0..100_000u64 {
        if Instant::now() >= until {
            break;
        }
        let left = until.saturating_duration_since(Instant::now());
        let go = async {
            let stream = connect_from(ip, target.listen, None).await?;
            let mut conn = Conn { stream, buf: Vec::new() };
            conn.stream
                .write_all(format!("POST /mcp HTTP/1.1\r\nhost: {}\r\ncontent-le", target.listen).as_bytes())
                .await?;
            let started = Instant::now();
            match conn.response(1 << 20).await {
                Ok((status, _, _)) => Ok(status.to_string()),
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                    Ok(format!("closed after {}s", started.elapsed().as_secs()))
                }
                Err(e) => Err(e),
            }
        };
        let outcome = match tokio::time::timeout(left, go).await {
            Ok(Ok(what)) => what,
            Ok(Err(e)) => io_outcome(&e),
            Err(_) => "held to the end".into(),
        };
        // Refused at once: try again in a second; reaped: at once.
        let pause = if outcome.starts_with("closed after") { 100 } else { 1000 };
        tally.add(outcome);
        tokio::time::sleep(Duration::from_millis(pause + (i as u64 % 10) * 10)).await;
    }
}

/// The refusals expected of a foreign `Origin`/`Host` or a `text/plain` body.
fn refused(status: &str) -> bool {
    matches!(status, "400" | "403" | "415" | "421")
}

/// Foreign `Origin`/`Host` (DNS rebinding) and `text/plain` cross-site
/// POSTs of `initialize` (the bridge) or of a call (the proxy), one of the
/// three every 250 ms; and, with `--ui`, `state.json` asked with a foreign
/// `Host` and `Origin`.
async fn foreign(target: Arc<Target>, until: Instant) {
    let tally = target.tally("foreign_origin");
    let ui_tally = target.ui.map(|_| target.tally("ui_foreign_host"));
    let ip = target.abuser_ip(6);
    let rebind = "rebind.attacker.example";
    let body = match target.kind {
        Kind::Bridge => INITIALIZE.to_string(),
        Kind::Proxy => mrtr_call_body("\"x\"", "greet"),
    };
    for round in 0..1_000_000u64 {
        if Instant::now() >= until {
            break;
        }
        let to = target.listen;
        let (variant, request) = match round % 3 {
            0 => {
                let h = head(to, &[("origin", "http://rebind.attacker.example")], Some(body.len()));
                let h = h.replacen(&format!("host: {to}"), &format!("host: {rebind}:{}", to.port()), 1);
                ("origin+host", format!("{h}{body}"))
            }
            1 => {
                let extra = [("content-type", "text/plain"), ("origin", "https://attacker.example")];
                ("text/plain", format!("{}{body}", head(to, &extra, Some(body.len()))))
            }
            _ => (
                "origin",
                format!("{}{body}", head(to, &[("origin", "http://rebind.attacker.example")], Some(body.len()))),
            ),
        };
        let status = exchange(ip, to, request.as_bytes(), Duration::from_secs(10)).await;
        tally.add(format!("{variant} {status}"));
        if let (Some(ui), Some(ui_tally)) = (target.ui, &ui_tally) {
            let request = format!(
                "GET /state.json HTTP/1.1\r\nhost: {rebind}:{}\r\norigin: http://{rebind}\r\nconnection: close\r\n\r\n",
                ui.port()
            );
            let status = exchange(ip, ui, request.as_bytes(), Duration::from_secs(10)).await;
            ui_tally.add(status);
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Large requests (`echo` with a string argument `large_bytes` long, as a
/// file's content would be) on a kept-alive connection, two a second, each
/// answered small; stops when braked.
async fn large(target: Arc<Target>, size: usize, until: Instant) {
    let tally = target.tally("large_requests");
    let ip = target.abuser_ip(7);
    let text = Bytes::from("QUJD".repeat(size / 4));
    let mut conn: Option<Conn> = None;
    for round in 0..1_000_000u64 {
        if Instant::now() >= until || target.brake.load(Ordering::Relaxed) {
            break;
        }
        let prefix = format!(
            r#"{{"jsonrpc":"2.0","id":"big-{round}","method":"tools/call","params":{{"name":"echo","_meta":{META},"arguments":{{"file":""#
        );
        let suffix = "\"}}}";
        let len = prefix.len() + text.len() + suffix.len();
        let go = async {
            let _in_flight = InFlight::new(&target);
            if conn.is_none() {
                conn = Some(Conn { stream: connect_from(ip, target.listen, None).await?, buf: Vec::new() });
            }
            let Some(c) = conn.as_mut() else { unreachable!("connected just above") };
            c.stream.write_all(head(target.listen, &mrtr_headers("echo"), Some(len)).as_bytes()).await?;
            c.stream.write_all(prefix.as_bytes()).await?;
            c.stream.write_all(&text).await?;
            c.stream.write_all(suffix.as_bytes()).await?;
            c.response(1 << 20).await
        };
        let outcome = match tokio::time::timeout(Duration::from_secs(30), go).await {
            Ok(Ok((status, head_text, _))) => {
                if head_text.contains("connection: close") {
                    conn = None;
                }
                status.to_string()
            }
            Ok(Err(e)) => {
                conn = None;
                io_outcome(&e)
            }
            Err(_) => {
                conn = None;
                "timeout".into()
            }
        };
        tally.add(outcome);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// `state.json` of the live page every 500 ms (as the page itself asks),
/// from the operator's address: status, size and time counted.
async fn ui_polls(target: Arc<Target>, until: Instant) {
    let Some(ui) = target.ui else { return };
    let tally = target.tally("ui_polls");
    let ip = target.abuser_ip(8);
    let mut slowest = Duration::ZERO;
    let mut largest = 0usize;
    for _ in 0..10_000_000u64 {
        if Instant::now() >= until {
            break;
        }
        let started = Instant::now();
        let go = async {
            let stream = connect_from(ip, ui, None).await?;
            let mut conn = Conn { stream, buf: Vec::new() };
            let request = format!("GET /state.json HTTP/1.1\r\nhost: {ui}\r\nconnection: close\r\n\r\n");
            conn.stream.write_all(request.as_bytes()).await?;
            conn.response(256 << 20).await
        };
        let outcome = match tokio::time::timeout(Duration::from_secs(10), go).await {
            Ok(Ok((status, _, size))) => {
                slowest = slowest.max(started.elapsed());
                if size != usize::MAX {
                    largest = largest.max(size);
                }
                if size == usize::MAX {
                    format!("{status} over 256 MiB")
                } else {
                    status.to_string()
                }
            }
            Ok(Err(e)) => io_outcome(&e),
            Err(_) => "timeout".into(),
        };
        tally.add(outcome);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    tally.add(format!("largest state.json: {} KiB", largest / 1024));
    tally.add(format!("slowest state.json: {} ms", slowest.as_millis()));
}

// ---------------------------------------------------------------- sampling

/// CPU seconds (user + system) `pid` has used: `self` for this process.
fn cpu_seconds(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime (fields 14 and 15 of the line, 12 and 13 after the name); 100 ticks a second.
    (ticks(11) + ticks(12)) / 100.0
}

/// `VmRSS` and `VmHWM` of `pid`, KiB.
fn rss_of(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status.lines().find_map(|l| l.strip_prefix(name)).and_then(|v| v.split_whitespace().next()?.parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// Socket inode → local port, for every TCP socket not listening.
fn tcp_sockets() -> HashMap<u64, u16> {
    let mut map = HashMap::new();
    let Ok(text) = std::fs::read_to_string("/proc/net/tcp") else { return map };
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (Some(local), Some(state), Some(inode)) = (fields.get(1), fields.get(3), fields.get(9)) else { continue };
        if *state == "0A" {
            continue; // listening
        }
        let port = local.rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok());
        if let (Some(port), Ok(inode)) = (port, inode.parse()) {
            map.insert(inode, port);
        }
    }
    map
}

/// The client connections `pid` holds: its sockets whose local port is one of `ports`.
fn connections_of(pid: u32, ports: &[u16], sockets: &HashMap<u64, u16>) -> u64 {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return 0 };
    let mut n = 0;
    for entry in dir.flatten() {
        let Ok(link) = std::fs::read_link(entry.path()) else { continue };
        let link = link.to_string_lossy();
        let inode = link.strip_prefix("socket:[").and_then(|r| r.strip_suffix(']')).and_then(|i| i.parse().ok());
        if inode.and_then(|i| sockets.get(&i)).is_some_and(|p| ports.contains(p)) {
            n += 1;
        }
    }
    n
}

/// Every 100 ms until `stop`: each target's memory and connections; the
/// brake set past the ceiling.
async fn sample(targets: Vec<Arc<Target>>, started: Instant, stop: Arc<AtomicBool>) {
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        tick.tick().await;
        n += 1;
        let sockets = tcp_sockets();
        for target in &targets {
            let Some((rss, hwm)) = rss_of(target.pid) else { continue };
            let ports: Vec<u16> = [Some(target.listen), target.ui].iter().flatten().map(SocketAddr::port).collect();
            let connections = connections_of(target.pid, &ports, &sockets);
            let ceiling = target.ceiling_kib();
            let mut m = target.memory();
            m.rss_kib = rss;
            m.peak_rss_kib = m.peak_rss_kib.max(rss);
            m.hwm_kib = m.hwm_kib.max(hwm);
            m.connections = connections;
            m.peak_connections = m.peak_connections.max(connections);
            if n % 10 == 0 {
                m.series.push((started.elapsed().as_secs(), rss, connections));
            }
            if rss > ceiling && !target.brake.swap(true, Ordering::Relaxed) {
                m.braked_at_s = Some(started.elapsed().as_secs_f64());
                eprintln!(
                    "soak: {} at {} MiB, past the ceiling of {} MiB: braked",
                    target.kind.name(),
                    rss / 1024,
                    ceiling / 1024
                );
            }
        }
    }
}

// ---------------------------------------------------------------- the report

fn percentile(sorted: &[u32], p: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// What each abuse is expected to meet, said beside its outcomes.
fn expected(kind: Kind, abuse: &str) -> &'static str {
    match (abuse, kind) {
        ("slow_readers", _) => "200, and the reader dropped once it takes nothing for --timeout; the gateway's memory within its formula (backpressure)",
        ("initialize_flood", Kind::Bridge) => "200 up to the per-peer session quota, the flooder's own idle sessions evicted first; never another peer's session lost",
        ("initialize_flood", Kind::Proxy) => "relayed (the proxy holds no sessions)",
        ("huge_bodies", _) => "413",
        ("trickled_bodies", _) => "408 after --timeout",
        ("half_open", _) => "closed after --timeout; past the per-peer connection quota refused at once",
        ("foreign_origin", _) => "403 (foreign Origin or Host), 415 (text/plain): judged",
        ("ui_foreign_host", _) => "403 (the live page answers its own Host only): judged",
        ("large_requests", _) => "200",
        ("ui_polls", _) => "200, each state.json within the page's budget",
        _ => "",
    }
}

/// One expectation's verdict.
fn verdict(name: &str, ok: bool, detail: String) -> Value {
    json!({"expectation": name, "ok": ok, "detail": detail})
}

fn report(target: &Target, child: &Child, flags: &[String]) -> (Value, Vec<String>) {
    let honest = &target.honest;
    let mut latencies = honest.latencies.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    latencies.sort_unstable();
    let attempted = honest.attempted.load(Ordering::Relaxed);
    let served = honest.served.load(Ordering::Relaxed);
    let failures = honest.failed.snapshot();
    let failed: u64 = failures.values().sum();
    let memory = target.memory().clone();
    let peak_kib = memory.hwm_kib.max(memory.peak_rss_kib);
    let connections = memory.peak_connections.min(target.connections_cap);
    let bodies = target.peak_bodies.load(Ordering::SeqCst);
    let bound = Formula::bound(target.message, target.checkers, target.pages, connections, bodies, target.sessions_cap);
    let abuses: BTreeMap<&str, BTreeMap<String, u64>> = target
        .abuses
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .iter()
        .map(|(k, v)| (*k, v.snapshot()))
        .collect();

    let mut verdicts = vec![
        verdict(
            "every honest call served",
            attempted > 0 && failed == 0 && served == attempted,
            format!("{served} of {attempted} served, {failed} failed: {failures:?}"),
        ),
        verdict(
            "peak RSS within the formula",
            peak_kib * 1024 <= bound,
            format!(
                "peak {} MiB, formula {} MiB (fixed {} + {} checkers x {} + {} connections x {} + {} bodies x {} \
                 + {} sessions x {} KiB + {} pages x {}){}",
                peak_kib / 1024,
                bound / MIB,
                Formula::FIXED / MIB,
                target.checkers,
                Formula::CHECKER / MIB,
                connections,
                Formula::PER_CONNECTION / MIB,
                bodies.min(connections),
                Formula::BODY_COPIES * target.message / MIB,
                target.sessions_cap,
                Formula::PER_SESSION / 1024,
                target.pages,
                Formula::PAGE / MIB,
                memory.braked_at_s.map(|s| format!("; braked at {s:.1} s")).unwrap_or_default()
            ),
        ),
    ];
    // The refusals: the endpoint's and the live page's.
    let mut judged: Vec<(&str, Vec<(String, u64)>)> = Vec::new();
    let outcomes = |name: &str| abuses.get(name).map(|m| m.iter().map(|(k, v)| (k.clone(), *v)).collect::<Vec<_>>());
    judged.push(("foreign_origin", outcomes("foreign_origin").unwrap_or_default()));
    if target.ui.is_some() {
        judged.push(("ui_foreign_host", outcomes("ui_foreign_host").unwrap_or_default()));
    }
    if !judged.is_empty() {
        // A 503 (the gateway busy) neither serves nor judges the request: not counted.
        let status = |k: &str| k.rsplit(' ').next().unwrap_or("").to_string();
        let all = || judged.iter().flat_map(|(name, o)| o.iter().map(move |(k, n)| (*name, k, *n)));
        let busy: u64 = all().filter(|(_, k, _)| status(k) == "503").map(|(_, _, n)| n).sum();
        let tried: u64 = all().filter(|(_, k, _)| status(k) != "503").map(|(_, _, n)| n).sum();
        let through: Vec<String> = all()
            .filter(|(_, k, _)| status(k) != "503" && !refused(&status(k)))
            .map(|(name, k, n)| format!("{name} {k}: {n}"))
            .collect();
        let busy_note =
            if busy > 0 { format!("; {busy} more answered 503 (busy), not counted") } else { String::new() };
        verdicts.push(verdict(
            "every foreign-origin/text-plain request refused",
            tried > 0 && through.is_empty(),
            if through.is_empty() {
                format!("{tried} of {tried} refused (400/403/415/421){busy_note}")
            } else {
                format!("not refused: {}{busy_note}", through.join(", "))
            },
        ));
    }
    let failed_names: Vec<String> = verdicts
        .iter()
        .filter(|v| v["ok"] != true)
        .map(|v| format!("{}: {}", target.kind.name(), v["expectation"].as_str().unwrap_or("")))
        .collect();
    let tail: Vec<String> =
        child.stderr_tail.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().cloned().collect();
    let value = json!({
        "command": child.command,
        "flags_detected": flags,
        "honest": {
            "attempted": attempted, "served": served, "failed": failed, "failures": failures,
            "latency_ms": {
                "p50": f64::from(percentile(&latencies, 0.50)) / 1000.0,
                "p99": f64::from(percentile(&latencies, 0.99)) / 1000.0,
                "max": f64::from(latencies.last().copied().unwrap_or(0)) / 1000.0,
            },
        },
        "memory": {
            "rss_after_warmup_mib": memory.rss_after_warmup_kib / 1024,
            "peak_rss_mib": peak_kib / 1024,
            "rss_at_end_mib": memory.rss_kib / 1024,
            "peak_connections": memory.peak_connections,
            "peak_large_bodies": bodies,
            "sessions_at_peak_bound": target.sessions_cap,
            "formula_mib": bound / MIB,
            "ceiling_mib": target.ceiling_kib() / 1024,
            "braked_at_s": memory.braked_at_s,
            "series_s_rsskib_connections": memory.series,
        },
        "cpu_seconds": cpu_seconds(&target.pid.to_string()),
        "abuses": abuses.iter().map(|(name, outcomes)| (name.to_string(), json!({"outcomes": outcomes,
            "expected": expected(target.kind, name)}))).collect::<serde_json::Map<String, Value>>(),
        "expectations": verdicts,
        "stderr_tail": tail,
    });
    (value, failed_names)
}

/// `YYYY-MM-DDTHH:MM:SSZ` now.
fn now_utc() -> String {
    let secs = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil from days (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rest / 3600, rest % 3600 / 60, rest % 60)
}

fn command_output(program: &str, args: &[&str]) -> String {
    std::process::Command::new(program)
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

fn machine() -> Value {
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| m.lines().find_map(|l| l.strip_prefix("MemTotal:")).map(|v| v.trim().to_string()));
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").map(|k| k.trim().to_string()).ok();
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|c| {
        c.lines().find_map(|l| l.strip_prefix("model name")).map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
    });
    let nproc = std::thread::available_parallelism().map(usize::from).unwrap_or(1);
    json!({"nproc": nproc, "memory": memory, "kernel": kernel, "cpu": cpu})
}

/// The 1, 5 and 15 minute load averages: other work on the machine shows in the latencies.
fn load_average() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------- main

fn main() {
    let settings = match Settings::parse() {
        Ok(s) => s,
        Err(why) => {
            if !why.is_empty() {
                eprintln!("soak: {why}");
            }
            eprintln!("{USAGE}");
            std::process::exit(2);
        }
    };
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        kill_children();
        default_hook(info);
    }));
    // The program stops by itself: whatever happens, two minutes past its time.
    let limit = Duration::from_secs(settings.seconds + 120);
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!("soak: still running {} s after its time: stopped", 120);
        kill_children();
        std::process::exit(3);
    });
    let _guard = Guard;
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("soak: cannot start the runtime: {e}");
            std::process::exit(2);
        }
    };
    let code = runtime.block_on(run(settings));
    kill_children();
    runtime.shutdown_timeout(Duration::from_secs(2));
    std::process::exit(code);
}

async fn run(settings: Settings) -> i32 {
    match soak(&settings).await {
        Ok((value, failed)) => {
            println!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
            if failed.is_empty() {
                eprintln!("soak: every expectation held");
                0
            } else {
                for name in &failed {
                    eprintln!("soak: FAILED: {name}");
                }
                1
            }
        }
        Err(why) => {
            eprintln!("soak: {why}");
            2
        }
    }
}

async fn soak(settings: &Settings) -> Result<(Value, Vec<String>), String> {
    let started_at = now_utc();
    let load_before = load_average();
    let mrtr = &settings.mrtr;
    let bridge_flags = flags_of(mrtr, "bridge");
    let proxy_flags = flags_of(mrtr, "proxy");
    let has = |flags: &[String], f: &str| flags.iter().any(|x| x == f);

    let (bridge_brake, proxy_brake) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(false)));
    let (bridge_up, bridge_upstream) = upstream(bridge_brake.clone()).await.map_err(|e| e.to_string())?;
    let (proxy_up, proxy_upstream) = upstream(proxy_brake.clone()).await.map_err(|e| e.to_string())?;

    let args = |command: &str, up: SocketAddr, flags: &[String]| {
        let mut a: Vec<String> = vec![command.into(), "--listen".into(), "127.0.0.1:0".into()];
        a.extend(["--upstream".into(), format!("http://{up}/mcp"), "--timeout".into(), settings.timeout.to_string()]);
        let caps = [
            ("--max-connections", settings.max_connections),
            ("--max-sessions", settings.max_sessions),
            ("--max-connections-per-peer", settings.per_peer_connections),
            ("--max-sessions-per-peer", settings.per_peer_sessions),
            ("--max-message-bytes", usize::try_from(settings.message_bytes).unwrap_or(16 << 20)),
        ];
        for (flag, value) in caps {
            if has(flags, flag) {
                a.extend([flag.to_string(), value.to_string()]);
            }
        }
        a
    };
    let bridge_args = args("bridge", bridge_up, &bridge_flags);
    let mut proxy_args = args("proxy", proxy_up, &proxy_flags);
    proxy_args.extend(["--ui".into(), "127.0.0.1:0".into()]);
    let mut bridge = spawn(mrtr, bridge_args, false).await?;
    let mut proxy = spawn(mrtr, proxy_args, true).await?;

    // What each gateway's formula counts: its checkers and pages, and the
    // caps it runs with (a gateway without a flag has its built-in 1024).
    let cap = |flags: &[String], flag: &str, value: usize| if has(flags, flag) { value as u64 } else { 1024 };
    let target = |kind, child: &Child, brake: Arc<AtomicBool>, checkers, pages, sessions, connections| {
        Arc::new(Target {
            kind,
            listen: child.listen,
            ui: child.ui,
            pid: child.pid,
            honest: Honest::default(),
            abuses: Mutex::new(BTreeMap::new()),
            brake,
            memory: Mutex::new(Memory::default()),
            checkers,
            pages,
            sessions_cap: sessions,
            connections_cap: connections,
            message: settings.message_bytes,
            bodies: AtomicU64::new(0),
            peak_bodies: AtomicU64::new(0),
        })
    };
    let bridge_t = target(
        Kind::Bridge,
        &bridge,
        bridge_brake,
        2,
        0,
        cap(&bridge_flags, "--max-sessions", settings.max_sessions),
        cap(&bridge_flags, "--max-connections", settings.max_connections),
    );
    let proxy_t = target(
        Kind::Proxy,
        &proxy,
        proxy_brake,
        1,
        1,
        0,
        cap(&proxy_flags, "--max-connections", settings.max_connections),
    );
    let targets = vec![bridge_t.clone(), proxy_t.clone()];

    // Warm-up: a few honest calls each, then the fixed part as measured.
    let warm = Instant::now() + Duration::from_secs(2);
    tokio::join!(honest_bridge(bridge_t.clone(), 0, warm), honest_proxy(proxy_t.clone(), 0, warm));
    for t in &targets {
        let honest = &t.honest;
        if honest.served.load(Ordering::Relaxed) == 0 {
            return Err(format!(
                "no honest call went through the {} in the warm-up: {:?}",
                t.kind.name(),
                honest.failed.snapshot()
            ));
        }
        let rss = rss_of(t.pid).map_or(0, |(rss, _)| rss);
        *t.memory() = Memory { rss_after_warmup_kib: rss, ..Memory::default() };
        *honest.latencies.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Vec::new();
        honest.attempted.store(0, Ordering::Relaxed);
        honest.served.store(0, Ordering::Relaxed);
        *honest.failed.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = BTreeMap::new();
    }

    let started = Instant::now();
    let until = started + Duration::from_secs(settings.seconds);
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = tokio::spawn(sample(targets.clone(), started, stop.clone()));
    eprintln!(
        "soak: {} s, {} honest clients and the abusers per gateway (bridge on {}, proxy on {}, its page on {})",
        settings.seconds,
        settings.honest,
        bridge_t.listen,
        proxy_t.listen,
        proxy_t.ui.map(|a| a.to_string()).unwrap_or_default()
    );
    let mut tasks = JoinSet::new();
    for t in &targets {
        for n in 0..settings.honest {
            match t.kind {
                Kind::Bridge => tasks.spawn(honest_bridge(t.clone(), n, until)),
                Kind::Proxy => tasks.spawn(honest_proxy(t.clone(), n, until)),
            };
        }
        for n in 0..settings.abusers {
            tasks.spawn(slow_reader(t.clone(), n, settings.timeout, until));
        }
        for _ in 0..2 {
            tasks.spawn(initialize_flood(t.clone(), until));
            tasks.spawn(trickle(t.clone(), until));
        }
        tasks.spawn(huge_bodies(t.clone(), until));
        let half_open_count = usize::try_from(t.connections_cap).unwrap_or(64).min(settings.max_connections) + 16;
        for i in 0..half_open_count {
            tasks.spawn(half_open(t.clone(), i, until));
        }
        tasks.spawn(foreign(t.clone(), until));
        tasks.spawn(large(t.clone(), settings.large_bytes, until));
        tasks.spawn(ui_polls(t.clone(), until));
    }
    // Progress, once a minute on long runs.
    let progress = {
        let targets = targets.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(60)).await;
                let line: Vec<String> = targets
                    .iter()
                    .map(|t| {
                        let m = t.memory();
                        format!(
                            "{} {} served, {} failed, RSS {} MiB",
                            t.kind.name(),
                            t.honest.served.load(Ordering::Relaxed),
                            t.honest.failed.snapshot().values().sum::<u64>(),
                            m.rss_kib / 1024
                        )
                    })
                    .collect();
                eprintln!("soak: {} s: {}", started.elapsed().as_secs(), line.join("; "));
            }
        })
    };
    let drained =
        tokio::time::timeout(until.saturating_duration_since(Instant::now()) + Duration::from_secs(40), async {
            while tasks.join_next().await.is_some() {}
        })
        .await;
    if drained.is_err() {
        eprintln!("soak: {} tasks still running 40 s past the end: aborted", tasks.len());
        tasks.abort_all();
    }
    progress.abort();
    // RSS at the end: after a second of quiet.
    tokio::time::sleep(Duration::from_secs(1)).await;
    stop.store(true, Ordering::Relaxed);
    let _ = sampler.await;
    for t in &targets {
        if let Some((rss, hwm)) = rss_of(t.pid) {
            let mut m = t.memory();
            m.rss_kib = rss;
            m.hwm_kib = m.hwm_kib.max(hwm);
        }
    }
    let exited: Vec<String> = [(&mut bridge, "bridge"), (&mut proxy, "proxy")]
        .into_iter()
        .filter_map(|(c, name)| match c.child.try_wait() {
            Ok(Some(status)) => Some(format!("{name} exited during the soak: {status}")),
            _ => None,
        })
        .collect();

    let (bridge_report, mut failed) = report(&bridge_t, &bridge, &bridge_flags);
    let (proxy_report, proxy_failed) = report(&proxy_t, &proxy, &proxy_flags);
    failed.extend(proxy_failed);
    failed.extend(exited.iter().cloned());
    let build = if mrtr.components().any(|c| c.as_os_str() == "release") { "release" } else { "debug" };
    let value = json!({
        "soak": "bridge/examples/soak.rs",
        "started": started_at,
        "seconds": settings.seconds,
        "machine": machine(),
        "load_average": {"before": load_before, "after": load_average()},
        "versions": {"mrtr": command_output(&mrtr.display().to_string(), &["--version"]),
            "rustc": command_output("rustc", &["--version"])},
        "settings": {
            "mrtr": mrtr.display().to_string(), "build": build,
            "honest_clients_per_gateway": settings.honest, "slow_readers_per_gateway": settings.abusers,
            "timeout_s": settings.timeout, "max_connections": settings.max_connections,
            "max_sessions": settings.max_sessions, "max_connections_per_peer": settings.per_peer_connections,
            "max_sessions_per_peer": settings.per_peer_sessions, "large_request_bytes": settings.large_bytes,
            "max_message_bytes": settings.message_bytes,
            "upstream_flood_bytes": {"bridge": bridge_upstream.flood_bytes.load(Ordering::Relaxed),
                "proxy": proxy_upstream.flood_bytes.load(Ordering::Relaxed)},
        },
        "formula": Formula::to_json(settings.message_bytes),
        "soak_cpu_seconds": cpu_seconds("self"),
        "bridge": bridge_report,
        "proxy": proxy_report,
        "failed": failed,
        "ok": failed.is_empty(),
    });
    Ok((value, failed))
}
