//! A client that stops reading stops the bridge reading its upstream
//! (security review 2026-12-07, N2), and one that takes nothing for
//! `--timeout` is dropped with its upstream exchange.
//!
//! Self-contained over real sockets on 127.0.0.1: a hostile upstream (hyper,
//! in this file) answers `server/discover` with JSON and every other request
//! with an endless `text/event-stream` of 16 KiB notifications, written as
//! fast as the bridge takes it, and counts the bytes it got rid of. The
//! client is a raw socket with a small receive buffer that sends one
//! request and never reads. Backpressure holds when that count stalls at a
//! few MiB (kernel buffers and a few bounded queues), instead of growing by
//! hundreds of MiB a second into the bridge's memory.

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body::{Body, Frame};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use mrtr_bridge::{Bridge, Config};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// What the hostile upstream may have written to a client that reads
/// nothing: the sockets' buffers on the way (its own fixed send buffer, the
/// bridge's two, the client's 4 KiB) and the bridge's bounded queues, about
/// 4 MiB here. Without backpressure it writes this much in well under a
/// second.
const BOUND: u64 = 16 << 20;

/// How long the client stalls before the count is read.
const STALL: Duration = Duration::from_millis(2500);

/// What the hostile upstream did, as its streams saw it.
#[derive(Default)]
struct Tally {
    /// Event-stream bytes handed to hyper, every stream together.
    written: AtomicU64,
    /// Streams whose response hyper dropped: their connection closed.
    closed: AtomicU64,
    /// Requests that got an endless stream.
    streams: AtomicU64,
}

impl Tally {
    fn written(&self) -> u64 {
        self.written.load(Ordering::SeqCst)
    }

    fn closed(&self) -> u64 {
        self.closed.load(Ordering::SeqCst)
    }
}

/// An endless event stream: the same 64 KiB of notifications again and
/// again, as fast as they are taken.
struct Endless {
    chunk: Bytes,
    tally: Arc<Tally>,
}

impl Body for Endless {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.tally.written.fetch_add(self.chunk.len() as u64, Ordering::SeqCst);
        Poll::Ready(Some(Ok(Frame::data(self.chunk.clone()))))
    }
}

impl Drop for Endless {
    fn drop(&mut self) {
        self.tally.closed.fetch_add(1, Ordering::SeqCst);
    }
}

/// Four notifications of 16 KiB each, as events.
fn chunk() -> Bytes {
    let message = json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "logger": "flood", "data": "x".repeat(16 << 10)}});
    Bytes::from(format!("data: {message}\n\n").repeat(4))
}

/// The hostile upstream: `server/discover` answered with JSON, a
/// notification (no id) with `202`, every other request with [`Endless`].
/// Its sockets' send buffer is fixed (256 KiB, not tuned by the kernel up
/// to `tcp_wmem`'s maximum), so that what it wrote measures the bridge
/// rather than the machine.
async fn hostile_upstream() -> (String, Arc<Tally>) {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_send_buffer_size(256 << 10).unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(64).unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let tally = Arc::new(Tally::default());
    let chunk = chunk();
    let counted = tally.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (tally, chunk) = (counted.clone(), chunk.clone());
            let service = service_fn(move |req| answer(req, tally.clone(), chunk.clone()));
            tokio::spawn(hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service));
        }
    });
    (url, tally)
}

async fn answer(
    req: Request<Incoming>,
    tally: Arc<Tally>,
    chunk: Bytes,
) -> Result<Response<BoxBody<Bytes, Infallible>>, Infallible> {
    let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut response = Response::new(Full::new(Bytes::new()).boxed());
    if request.get("id").is_none() {
        *response.status_mut() = StatusCode::ACCEPTED;
        return Ok(response);
    }
    if request["method"] == "server/discover" {
        let result = json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"}, "resultType": "complete", "ttlMs": 0, "cacheScope": "public"});
        let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": result});
        *response.body_mut() = Full::new(Bytes::from(answer.to_string())).boxed();
        response.headers_mut().insert("content-type", "application/json".parse().unwrap());
        return Ok(response);
    }
    tally.streams.fetch_add(1, Ordering::SeqCst);
    *response.body_mut() = Endless { chunk, tally }.boxed();
    response.headers_mut().insert("content-type", "text/event-stream".parse().unwrap());
    Ok(response)
}

/// A bridge to `upstream` with this `--timeout`, serving until the test ends.
async fn bridge(upstream: &str, timeout: Duration) -> SocketAddr {
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), upstream.parse().unwrap());
    config.timeout = timeout;
    let bridge = Bridge::bind(config).await.unwrap();
    let addr = bridge.local_addr().unwrap();
    tokio::spawn(bridge.serve(std::future::pending()));
    addr
}

/// An HTTP/1.1 POST of `body` with the header lines `fields`.
fn post(bridge: SocketAddr, fields: &str, body: &Value) -> Vec<u8> {
    let body = body.to_string();
    format!(
        "POST /mcp HTTP/1.1\r\nhost: {bridge}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\n{fields}content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A client that sends `request` and never reads: a 4 KiB receive buffer.
async fn stalled_client(bridge: SocketAddr, request: &[u8]) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(bridge).await.unwrap();
    stream.write_all(request).await.unwrap();
    stream
}

/// A `2025-11-25` session: `initialize` on a connection of its own, read whole.
async fn session(bridge: SocketAddr) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "stalled", "version": "1"}}});
    let mut stream = TcpStream::connect(bridge).await.unwrap();
    stream.write_all(&post(bridge, "connection: close\r\n", &initialize)).await.unwrap();
    let mut response = String::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_string(&mut response)).await.unwrap().unwrap();
    let field = response.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id").then(|| value.trim().to_string())
    });
    field.unwrap_or_else(|| panic!("no session in {response}"))
}

/// An MRTR client's `tools/call`, which the bridge relays verbatim.
fn mrtr_call(bridge: SocketAddr) -> Vec<u8> {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "flood", "arguments": {},
        "_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}});
    post(bridge, "mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: flood\r\n", &call)
}

/// A `2025-11-25` client's `tools/call` in `session`, which the bridge carries
/// as an operation (its notifications passed on to the client's stream).
fn bridged_call(bridge: SocketAddr, session: &str) -> Vec<u8> {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "flood", "arguments": {}}});
    post(bridge, &format!("mcp-protocol-version: 2025-11-25\r\nmcp-session-id: {session}\r\n"), &call)
}

/// Waits until `done` holds, for at most `within`.
async fn eventually(within: Duration, done: impl Fn() -> bool) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

/// Lets the client stall for [`STALL`], then says how much the upstream
/// wrote: the stream flowed, then stopped under [`BOUND`], and stays stopped.
async fn assert_bounded(tally: &Tally, what: &str) {
    assert!(eventually(Duration::from_secs(5), || tally.written() > 0).await, "{what}: the upstream never streamed");
    tokio::time::sleep(STALL).await;
    let written = tally.written();
    eprintln!("{what}: the hostile upstream wrote {written} bytes ({} MiB) in {STALL:?}", written >> 20);
    assert!(written < BOUND, "{what}: the upstream wrote {} MiB to a client that reads nothing", written >> 20);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(tally.written(), written, "{what}: the upstream still writes to a client that reads nothing");
    assert_eq!(tally.closed(), 0, "{what}: the stream must still be open (the timeout is long)");
}

/// (a) An MRTR client's request, relayed verbatim: its response body is
/// read from upstream only as the client takes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relayed_stream_stops_when_the_client_stops_reading() {
    let (upstream, tally) = hostile_upstream().await;
    let bridge = bridge(&upstream, Duration::from_secs(30)).await;
    let _client = stalled_client(bridge, &mrtr_call(bridge)).await;
    assert_bounded(&tally, "relayed").await;
}

/// (b) A `2025-11-25` call whose upstream streams notifications without
/// end: the bridge reads the next chunk only after the last one's
/// notifications went on the client's stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridged_call_stops_reading_upstream_when_the_client_stops_reading() {
    let (upstream, tally) = hostile_upstream().await;
    let bridge = bridge(&upstream, Duration::from_secs(30)).await;
    let session = session(bridge).await;
    let _client = stalled_client(bridge, &bridged_call(bridge, &session)).await;
    assert_bounded(&tally, "bridged").await;
}

/// (b') A `2025-11-25` client's standalone stream (`GET`), fed by the
/// upstream's `subscriptions/listen`: the same, on that path.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_standalone_stream_stops_reading_upstream_when_the_client_stops_reading() {
    let (upstream, tally) = hostile_upstream().await;
    let bridge = bridge(&upstream, Duration::from_secs(30)).await;
    let session = session(bridge).await;
    let get = format!(
        "GET /mcp HTTP/1.1\r\nhost: {bridge}\r\naccept: text/event-stream\r\n\
         mcp-protocol-version: 2025-11-25\r\nmcp-session-id: {session}\r\n\r\n"
    );
    let _client = stalled_client(bridge, get.as_bytes()).await;
    assert_bounded(&tally, "standalone").await;
}

/// Reads `client` until the bridge closes it (end or reset), at most `within`;
/// whether it did.
async fn closed_by_the_bridge(client: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = vec![0; 64 << 10];
    let until = Instant::now() + within;
    loop {
        let Ok(read) = tokio::time::timeout_at(until.into(), client.read(&mut buffer)).await else { return false };
        if matches!(read, Ok(0) | Err(_)) {
            return true;
        }
    }
}

/// (c) A client that takes nothing for `--timeout` (1 s here) is dropped,
/// and the upstream sees its exchange's connection closed: relayed, and
/// bridged (whose call ends once it has gone unread for the timeout too).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_takes_nothing_for_the_timeout_is_dropped_with_its_upstream() {
    let timeout = Duration::from_secs(1);
    let (upstream, tally) = hostile_upstream().await;
    let bridge = bridge(&upstream, timeout).await;
    let session = session(bridge).await;
    let started = Instant::now();
    let mut relayed = stalled_client(bridge, &mrtr_call(bridge)).await;
    let mut bridged = stalled_client(bridge, &bridged_call(bridge, &session)).await;
    assert!(eventually(Duration::from_secs(5), || tally.streams.load(Ordering::SeqCst) == 2).await);
    let both_closed = eventually(Duration::from_secs(6), || tally.closed() == 2).await;
    eprintln!(
        "write timeout: {} of 2 upstream streams closed after {:?}, {} MiB written",
        tally.closed(),
        started.elapsed(),
        tally.written() >> 20
    );
    assert!(both_closed, "the upstream streams of clients that took nothing for {timeout:?} stay open");
    assert!(closed_by_the_bridge(&mut relayed, Duration::from_secs(2)).await, "the relayed client is still served");
    assert!(closed_by_the_bridge(&mut bridged, Duration::from_secs(2)).await, "the bridged client is still served");
}
