//! The pieces of `scripts/bench-proxy`: a small MRTR upstream, a
//! closed-loop keep-alive load generator and a holder of open SSE streams.
//! The script starts them, `mrtr proxy` and nginx, and prints the table.
//!
//! ```text
//! bench_proxy upstream                     # prints "listening PORT", serves until killed
//! bench_proxy load URL CONNS SECONDS       # one JSON line: requests, seconds, latencies
//! bench_proxy hold URL STREAMS             # opens STREAMS SSE streams, prints "ready", holds them until stdin closes
//! bench_proxy forward UPSTREAM_URL         # the proxy unchecked: prints "listening PORT", serves until killed
//! ```
//!
//! The upstream answers `tools/call` as a real MRTR server does: a first
//! call gets an `input_required` result with one form question and the
//! `requestState` `s<id>`; the retry carrying `inputResponses` and that state
//! gets the final result. A URL whose query holds `sse` gets each answer as an
//! event stream (a priming event, then the message event), otherwise as
//! JSON. The tool `hold` answers with an event stream that stays open.

use bytes::Bytes;
use http::{Request, Response};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::io::Write;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["upstream"] => runtime.block_on(upstream()),
        ["load", url, conns, secs] => {
            let conns = conns.parse().expect("CONNS");
            let secs: f64 = secs.parse().expect("SECONDS");
            runtime.block_on(load(url, conns, Duration::from_secs_f64(secs)));
        }
        ["hold", url, streams] => runtime.block_on(hold(url, streams.parse().expect("STREAMS"))),
        ["forward", upstream] => runtime.block_on(forward(upstream)),
        _ => {
            eprintln!("usage: bench_proxy upstream | load URL CONNS SECONDS | hold URL STREAMS | forward UPSTREAM_URL");
            std::process::exit(2);
        }
    }
}

// ---------------------------------------------------------------- upstream

/// A response body of frames sent one by one; `open`: it never ends.
struct Frames {
    frames: VecDeque<Bytes>,
    open: bool,
}

impl Body for Frames {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        match self.frames.pop_front() {
            Some(b) => Poll::Ready(Some(Ok(Frame::data(b)))),
            None if self.open => Poll::Pending,
            None => Poll::Ready(None),
        }
    }
    fn is_end_stream(&self) -> bool {
        self.frames.is_empty() && !self.open
    }
}

fn input_required(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"input_required","inputRequests":{{"github_login":{{"method":"elicitation/create","params":{{"mode":"form","message":"Please provide your GitHub username","requestedSchema":{{"type":"object","properties":{{"name":{{"type":"string"}}}},"required":["name"]}}}}}}}},"requestState":"s{id}"}}}}"#
    )
}

fn complete(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":[{{"type":"text","text":"Sunny, 72F"}}],"isError":false}}}}"#
    )
}

async fn upstream() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    println!("listening {}", listener.local_addr().expect("addr").port());
    std::io::stdout().flush().ok();
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        stream.set_nodelay(true).ok();
        tokio::spawn(async move {
            let service = service_fn(answer);
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

async fn answer(req: Request<Incoming>) -> Result<Response<Frames>, Infallible> {
    let sse = req.uri().query().is_some_and(|q| q.contains("sse"));
    let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let m: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = m["id"].to_string();
    let params = &m["params"];
    let hold = params["name"] == "hold";
    let text = match params["requestState"].as_str() {
        Some(_) => complete(&id),
        None => input_required(&id),
    };
    let (media, frames) = if hold {
        ("text/event-stream", VecDeque::from([Bytes::from(format!("id: {id}.0\ndata:\n\n"))]))
    } else if sse {
        let priming = Bytes::from(format!("id: {id}.0\ndata:\n\n"));
        (
            "text/event-stream",
            VecDeque::from([priming, Bytes::from(format!("event: message\nid: {id}.1\ndata: {text}\n\n"))]),
        )
    } else {
        ("application/json", VecDeque::from([Bytes::from(text)]))
    };
    let mut response = Response::new(Frames { frames, open: hold });
    response.headers_mut().insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static(media));
    Ok(response)
}

// ---------------------------------------------------------------- the floor

/// The proxy as `mrtr proxy` runs it (the same library, runtime and
/// defaults) but unchecked ([`mrtr_proxy::Proxy::unchecked`]): what hyper,
/// tokio and the kernel cost without the checker.
async fn forward(upstream: &str) {
    let config = mrtr_proxy::Config::new("127.0.0.1:0".parse().expect("an address"), upstream.parse().expect("a URL"));
    let proxy = mrtr_proxy::Proxy::bind(config).await.expect("bind").unchecked();
    println!("listening {}", proxy.local_addr().expect("addr").port());
    std::io::stdout().flush().ok();
    proxy.serve(std::future::pending()).await;
}

// ---------------------------------------------------------------- client side

/// `http://HOST:PORT/PATH?QUERY` as (address, request target).
fn split_url(url: &str) -> (String, String) {
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    match rest.find('/') {
        Some(i) => (rest[..i].to_string(), rest[i..].to_string()),
        None => (rest.to_string(), "/".to_string()),
    }
}

fn call(id: u64, name: &str, state: Option<&str>) -> String {
    let retry = match state {
        Some(s) => format!(
            r#","inputResponses":{{"github_login":{{"action":"accept","content":{{"name":"octocat"}}}}}},"requestState":"{s}""#
        ),
        None => String::new(),
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{{"location":"New York"}},"_meta":{META}{retry}}}}}"#
    )
}

fn request(host: &str, target: &str, body: &str, name: &str) -> Vec<u8> {
    format!(
        "POST {target} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: {name}\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A keep-alive HTTP/1.1 connection reading whole responses (by
/// `content-length` or chunked).
struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

impl Conn {
    async fn open(addr: &str) -> std::io::Result<Conn> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Conn { stream, buf: Vec::with_capacity(8192) })
    }

    async fn fill(&mut self) -> std::io::Result<()> {
        let mut chunk = [0u8; 16384];
        let n = self.stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "closed"));
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(())
    }

    /// The status and the body of the next response.
    async fn response(&mut self) -> std::io::Result<(u16, Vec<u8>)> {
        let head_end = loop {
            if let Some(i) = find(&self.buf, b"\r\n\r\n") {
                break i + 4;
            }
            self.fill().await?;
        };
        let head = String::from_utf8_lossy(&self.buf[..head_end]).to_ascii_lowercase();
        let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
        let length = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map(|v| v.trim().parse::<usize>().unwrap_or(0));
        let chunked = head.lines().any(|l| l.starts_with("transfer-encoding:") && l.contains("chunked"));
        self.buf.drain(..head_end);
        let mut body = Vec::new();
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
                while self.buf.len() < line_end + 2 + size + 2 {
                    self.fill().await?;
                }
                body.extend_from_slice(&self.buf[line_end + 2..line_end + 2 + size]);
                self.buf.drain(..line_end + 2 + size + 2);
                if size == 0 {
                    break;
                }
            }
        } else {
            let length = length.unwrap_or(0);
            while self.buf.len() < length {
                self.fill().await?;
            }
            body.extend_from_slice(&self.buf[..length]);
            self.buf.drain(..length);
        }
        Ok((status, body))
    }
}

/// One connection's closed loop until `until`: call, retry, call, … Each
/// POST's latency (µs) in `lat`; errors counted.
async fn one_connection(addr: String, target: String, first_id: u64, until: Instant) -> (Vec<u32>, u64) {
    let mut lat = Vec::with_capacity(1 << 16);
    let mut errors = 0;
    let Ok(mut conn) = Conn::open(&addr).await else { return (lat, 1) };
    let mut id = first_id;
    while Instant::now() < until {
        id += 1;
        let started = Instant::now();
        let sent = conn.stream.write_all(&request(&addr, &target, &call(id, "get_weather", None), "get_weather")).await;
        let got = match sent {
            Ok(()) => conn.response().await,
            Err(e) => Err(e),
        };
        let state = match got {
            Ok((200, body)) if find(&body, format!(r#""requestState":"s{id}""#).as_bytes()).is_some() => {
                lat.push(started.elapsed().as_micros().try_into().unwrap_or(u32::MAX));
                format!("s{id}")
            }
            Ok(_) => {
                errors += 1;
                continue;
            }
            Err(_) => return (lat, errors + 1),
        };
        id += 1;
        let started = Instant::now();
        let retry = call(id, "get_weather", Some(&state));
        let sent = conn.stream.write_all(&request(&addr, &target, &retry, "get_weather")).await;
        let got = match sent {
            Ok(()) => conn.response().await,
            Err(e) => Err(e),
        };
        match got {
            Ok((200, body)) if find(&body, b"Sunny").is_some() => {
                lat.push(started.elapsed().as_micros().try_into().unwrap_or(u32::MAX));
            }
            Ok(_) => errors += 1,
            Err(_) => return (lat, errors + 1),
        }
    }
    (lat, errors)
}

async fn load(url: &str, conns: u64, duration: Duration) {
    let (addr, target) = split_url(url);
    let started = Instant::now();
    let until = started + duration;
    let tasks: Vec<_> = (0..conns)
        .map(|c| tokio::spawn(one_connection(addr.clone(), target.clone(), (c + 1) * 1_000_000_000, until)))
        .collect();
    let mut all = Vec::new();
    let mut errors = 0;
    for t in tasks {
        let (lat, e) = t.await.expect("a connection task");
        all.extend(lat);
        errors += e;
    }
    let seconds = started.elapsed().as_secs_f64();
    all.sort_unstable();
    let pct =
        |p: f64| all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1))).copied().unwrap_or(0);
    println!(
        r#"{{"requests":{},"seconds":{seconds:.3},"errors":{errors},"p50_us":{},"p99_us":{}}}"#,
        all.len(),
        pct(0.50),
        pct(0.99)
    );
}

async fn hold(url: &str, streams: usize) {
    let (addr, target) = split_url(url);
    let mut held = Vec::with_capacity(streams);
    for i in 0..streams {
        let mut conn = Conn::open(&addr).await.expect("connect");
        let id = 9_000_000_000 + i as u64;
        conn.stream.write_all(&request(&addr, &target, &call(id, "hold", None), "hold")).await.expect("send");
        held.push(conn);
    }
    for conn in &mut held {
        // The head, then the priming event.
        loop {
            let head = find(&conn.buf, b"\r\n\r\n");
            if head.is_some_and(|h| find(&conn.buf[h + 4..], b"\n\n").is_some()) {
                break;
            }
            conn.fill().await.expect("an event");
        }
    }
    println!("ready");
    std::io::stdout().flush().ok();
    let mut sink = Vec::new();
    let _ = tokio::io::stdin().read_to_end(&mut sink).await;
    drop(held);
}
