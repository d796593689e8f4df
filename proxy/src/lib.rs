//! `mrtr-proxy`: a checking reverse proxy for MCP Streamable HTTP.
//!
//! It forwards every request to one upstream MCP server and every response
//! back, bytes unchanged and streamed as they arrive, and checks the
//! conversation as it flows with one [`mrtr::check::Audit`], fed the HTTP
//! entries of what it relays (the corpus format "check with HTTP entries"):
//! each request (method, upstream URL, headers, JSON body) is a client entry;
//! each response is server entries: its status and headers (with its JSON
//! body), each event-stream block as it goes by, and its end. The JSON-RPC
//! messages they carry go through the message rules, and under
//! `--transport sep-1858|sep-1335` the exchanges through that transport's
//! rules. Violations and finished multi-round operations are reported as they
//! happen ([`Monitor`]); `--record` appends every entry to a transcript that
//! `mrtr check` reads.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use mrtr_proxy::{Config, Output, Proxy};
//! let config = Config::new("127.0.0.1:0".parse().unwrap(), "http://127.0.0.1:8000/mcp".parse().unwrap());
//! let proxy = Proxy::bind(Config { output: Output::Text, ..config }).await?;
//! let summary = proxy.serve(async { let _ = tokio::signal::ctrl_c().await; }).await;
//! println!("{}", summary.line());
//! # Ok(()) }
//! ```

mod body;
mod har;
mod monitor;
pub mod net;
pub mod page;
pub mod parsed;
mod stdio;
mod tls;
mod ui;
pub mod web;
pub mod write_timeout;

pub use body::Forward;
pub use monitor::{Monitor, Output, Report, Summary, REPORTS_KEPT};
pub use stdio::{serve_stdio, StdioServer};
pub use tls::{upstream_client, UpstreamClient};
pub use ui::{serve_ui, UiPage};

use bytes::Bytes;
use http::{header, HeaderValue, Request, Response, StatusCode, Uri};
use http_body::Body as _;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use mrtr::check::{CheckConfig, Side};
use mrtr::gateway::{strip_final_fields, Repair, RetryStep, StateOnlyRetry};
use mrtr::http::Mode;
use mrtr::{Error, Protocol, RuleId};
use std::convert::Infallible;
use std::fs::{File, OpenOptions};
use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use web::WebRules;

/// The default size past which a record file is rotated: 256 MiB.
pub const RECORD_MAX_BYTES: u64 = 256 << 20;

/// What the proxy does.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where it listens.
    pub listen: SocketAddr,
    /// The upstream MCP endpoint (`http://` or `https://`). The proxy serves
    /// its path ([`Endpoint`]): a request for that path, for one beneath it,
    /// or for `/.well-known/…` goes to the upstream's scheme, host and port
    /// with its own path and query; any other path is answered `404` naming
    /// the one served. A URL without a path (or `/`) serves every path.
    pub upstream: Uri,
    /// A PEM file of certificate authorities an `https://` upstream's
    /// certificate may chain to, besides the system's.
    pub upstream_ca: Option<PathBuf>,
    /// A transcript file to append the HTTP entries to.
    pub record: Option<PathBuf>,
    /// The size past which the record file is renamed `<record>.1` and
    /// begun again.
    pub record_max_bytes: u64,
    /// A file to write the exchanges to as an HTTP Archive (HAR 1.2),
    /// replacing what it held.
    pub har: Option<PathBuf>,
    /// The protocol the conversation is checked under.
    pub protocol: Protocol,
    /// The multi-turn SSE transport whose rules are checked (`sep-1858`,
    /// `sep-1335`); `None`: plain Streamable HTTP.
    pub transport: Option<Mode>,
    /// Where reports go.
    pub output: Output,
    /// How long a client may take to send a request's head, and then its
    /// body; how long the upstream may take to answer with its head; how
    /// long a write to the client may wait without progress (a client that
    /// takes nothing: [`write_timeout`]). Past it the connection is closed
    /// (head, write) or answered 408 / 504.
    pub timeout: Duration,
    /// Client connections served at once; one past it is answered 503 and
    /// closed at once. The default is what the descriptor limit allows
    /// ([`net::default_max_connections`]: half of it past a reserve, at most
    /// 16384); a cap above that is lowered to it at [`Proxy::bind`], said on
    /// stderr, so that descriptors never run out before the cap answers.
    pub max_connections: usize,
    /// Client connections served at once from one IP address; one past it
    /// is answered 503 and closed at once. `None`: a quarter of
    /// `max_connections`, at least 8 ([`net::default_per_peer`]). Behind a
    /// load balancer every client comes from the balancer's address: set it
    /// to `max_connections` there.
    pub max_connections_per_peer: Option<usize>,
    /// Where to serve the live page ([`serve_ui`]), if anywhere.
    pub ui: Option<SocketAddr>,
    /// Browser origins allowed besides the default ones (`--allow-origin`;
    /// `*`: any): see [`web`].
    pub allow_origins: Vec<String>,
    /// `Host` names allowed besides the default ones (`--allow-host`; `*`:
    /// any): see [`web`].
    pub allow_hosts: Vec<String>,
    /// The repairs made for the clients ([`mrtr::gateway::REPAIRS`],
    /// `--repair`): none by default, since each changes what a client sees.
    /// Made on JSON responses; an event stream is relayed as it comes.
    pub repairs: Vec<Repair>,
    /// Bytes of one message (a request body, a response body, an event),
    /// the checker's bound too (`--max-message-bytes`; default 16 MiB, the
    /// core's). Past it a request is `413`. The gateway's memory grows with
    /// it: see `docs/cli.md`, "Memory".
    pub max_message_bytes: usize,
}

impl Config {
    /// Listens on `listen`, forwards to `upstream`, the default protocol,
    /// plain Streamable HTTP, no record, quiet.
    pub fn new(listen: SocketAddr, upstream: Uri) -> Config {
        Config {
            listen,
            upstream,
            upstream_ca: None,
            record: None,
            record_max_bytes: RECORD_MAX_BYTES,
            har: None,
            protocol: Protocol::default(),
            transport: None,
            output: Output::Quiet,
            timeout: Duration::from_secs(30),
            max_connections: net::default_max_connections(),
            max_connections_per_peer: None,
            ui: None,
            allow_origins: Vec::new(),
            allow_hosts: Vec::new(),
            max_message_bytes: mrtr::Limits::DEFAULT.max_message_bytes,
            repairs: Vec::new(),
        }
    }
}

struct Shared {
    timeout: Duration,
    /// Whether what is relayed goes through the monitor ([`Proxy::unchecked`]: not).
    check: bool,
    monitor: Monitor,
    client: UpstreamClient,
    scheme: http::uri::Scheme,
    authority: http::uri::Authority,
    /// The paths it forwards.
    endpoint: Endpoint,
    /// The listener's `Host`, `Origin` and `Content-Type` rules.
    web: WebRules,
    /// The repairs made ([`Config::repairs`]).
    repairs: Vec<Repair>,
    /// What the repairs read requests under (protocol, round bound).
    settings: mrtr::Settings,
}

/// A bound proxy, ready to [`serve`](Proxy::serve).
pub struct Proxy {
    listener: TcpListener,
    shared: Arc<Shared>,
    admission: Arc<net::Admission>,
    ui: Option<(TcpListener, WebRules)>,
}

impl Proxy {
    /// Binds the listening socket and opens the record file (appending).
    pub async fn bind(config: Config) -> std::io::Result<Proxy> {
        let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, what.to_string());
        let scheme = config.upstream.scheme().cloned().ok_or_else(|| invalid("the upstream URL needs a scheme"))?;
        let client = upstream_client(&config.upstream, config.upstream_ca.as_deref())?;
        let authority = config.upstream.authority().cloned().ok_or_else(|| invalid("the upstream URL needs a host"))?;
        let record = match &config.record {
            Some(path) => Some(open_record(path)?),
            None => None,
        };
        let listener = TcpListener::bind(config.listen).await?;
        let limits = mrtr::Limits { max_message_bytes: config.max_message_bytes, ..mrtr::Limits::DEFAULT };
        let check =
            CheckConfig::default().with_protocol(config.protocol).with_transport(config.transport).with_limits(limits);
        let mut monitor = Monitor::new(check, record, config.output);
        if let Some(path) = &config.record {
            monitor = monitor.rotating(path.clone(), config.record_max_bytes);
        }
        let ui = match config.ui {
            Some(addr) => {
                // Host and path only: the URL's userinfo and query may be credentials.
                let port = config.upstream.port().map(|p| format!(":{p}")).unwrap_or_default();
                let host = config.upstream.host().unwrap_or_default();
                let title = format!("mrtr proxy to {scheme}://{host}{port}{}", config.upstream.path());
                monitor = monitor.with_timeline(&title);
                let listener = TcpListener::bind(addr).await?;
                let rules = WebRules::new(listener.local_addr()?, &config.allow_origins, &config.allow_hosts);
                Some((listener, rules))
            }
            None => None,
        };
        if let Some(path) = &config.har {
            monitor = monitor.with_har(open_private(path, false)?)?;
        }
        let web = WebRules::new(listener.local_addr()?, &config.allow_origins, &config.allow_hosts);
        let endpoint = Endpoint::of(&config.upstream);
        let shared = Arc::new(Shared {
            timeout: config.timeout,
            check: true,
            monitor,
            client,
            scheme,
            authority,
            endpoint,
            web,
            repairs: config.repairs.clone(),
            settings: mrtr::Settings::DEFAULT.with_protocol(config.protocol),
        });
        let caps = net::Caps::for_this_process(config.max_connections, config.max_connections_per_peer, "mrtr-proxy");
        Ok(Proxy { listener, shared, admission: net::Admission::new(caps), ui })
    }

    /// The same proxy forwarding without checking: every request and
    /// response relayed exactly as when checking (the same hop-by-hop
    /// handling, upstream client, timeouts, TCP_NODELAY, event-stream frames
    /// taken along with the head), but no entry is built, nothing is
    /// checked, recorded or reported, and a JSON body is not read whole
    /// before it goes. The floor under the checking proxy's cost:
    /// `scripts/bench-proxy` measures it as the `bare` row (through
    /// `proxy/examples/bench_proxy.rs forward`). Call before serving.
    pub fn unchecked(mut self) -> Proxy {
        // The only handle until it serves.
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.check = false;
        }
        self
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The connection caps it serves under (the configured ones, fitted to
    /// the descriptor limit).
    pub fn caps(&self) -> net::Caps {
        self.admission.caps()
    }

    /// The address of the live page, when it has one.
    pub fn ui_addr(&self) -> Option<SocketAddr> {
        self.ui.as_ref().and_then(|(l, _)| l.local_addr().ok())
    }

    /// Its monitor: reports and counts so far.
    pub fn monitor(&self) -> Monitor {
        self.shared.monitor.clone()
    }

    /// Serves until `shutdown` completes, then flushes the record file and
    /// returns the counts (connections still open are left to the runtime).
    pub async fn serve(self, shutdown: impl Future<Output = ()>) -> Summary {
        tokio::pin!(shutdown);
        let pages =
            vec![UiPage { path: "/".into(), name: "the conversation".into(), monitor: self.shared.monitor.clone() }];
        let ui = self.ui.map(|(listener, rules)| tokio::spawn(serve_ui(listener, rules, pages)));
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        let stream = net::no_delay(stream, "mrtr-proxy");
                        let permit = match self.admission.admit(peer.ip()) {
                            Ok(permit) => permit,
                            Err(why) => {
                                tokio::spawn(net::refuse(stream, "mrtr-proxy", why));
                                continue;
                            }
                        };
                        let shared = self.shared.clone();
                        tokio::spawn(async move {
                            let timeout = shared.timeout;
                            // Boxed: the connection keeps the slot of its request's
                            // future all its life (an open SSE stream too), and the
                            // future (~1.6 KiB) is needed only until the response head.
                            let service = service_fn(move |req| Box::pin(handle(req, shared.clone())));
                            let _ = hyper::server::conn::http1::Builder::new()
                                .timer(TokioTimer::new())
                                .header_read_timeout(timeout)
                                .serve_connection(TokioIo::new(write_timeout::WriteTimeout::new(stream, timeout)), service)
                                .await;
                            drop(permit);
                        });
                    }
                    Err(e) => {
                        // Out of file descriptors, say: back off, keep serving.
                        eprintln!("mrtr-proxy: accept: {e}");
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                },
            }
        }
        if let Some(ui) = ui {
            ui.abort();
        }
        self.shared.monitor.flush();
        self.shared.monitor.summary()
    }
}

/// Opens a record file as the proxy does: appended to, created private to
/// its owner (0600), never opened through a symbolic link.
pub fn open_record(path: &std::path::Path) -> std::io::Result<File> {
    open_private(path, true)
}

/// Opens a file the proxy writes a conversation to: created private to its
/// owner (0600), never through a symbolic link; `append`, or else for
/// writing anywhere (a HAR rewrites its end).
fn open_private(path: &std::path::Path, append: bool) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true);
    if append {
        options.append(true);
    } else {
        options.write(true);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

fn plain(status: StatusCode, text: String) -> Response<Forward> {
    let mut response = Response::new(Forward::full(Bytes::from(text)));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    response
}

/// The paths the proxy forwards: the `--upstream` URL's path, the paths
/// beneath it (its trailing-slash form, a server's sub-resources) and
/// `/.well-known/…` (the authorization metadata a client reads from the MCP
/// server's origin). A client pointed at another path would otherwise reach
/// an upstream path the operator never named, while the banner said the
/// proxy forwards to the one named.
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// The path, without a trailing `/`; empty: every path.
    path: String,
}

impl Endpoint {
    /// The endpoint `upstream` names.
    pub fn of(upstream: &Uri) -> Endpoint {
        Endpoint { path: upstream.path().trim_end_matches('/').to_string() }
    }

    /// The path every forwarded request is for, or beneath (`/`: any).
    pub fn path(&self) -> &str {
        if self.path.is_empty() {
            "/"
        } else {
            &self.path
        }
    }

    /// Whether a request for `path` is forwarded.
    pub fn serves(&self, path: &str) -> bool {
        let beneath =
            path.strip_prefix(self.path.as_str()).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
        beneath || path.starts_with("/.well-known/")
    }

    /// The answer to a request for a path it does not serve: `404`, naming
    /// the path it serves.
    fn not_found(&self, path: &str) -> Response<Forward> {
        // A URI's path is ASCII: cut at a byte, to bound what is echoed.
        let shown = if path.len() > 200 { format!("{}…", &path[..200]) } else { path.to_string() };
        let why =
            format!("mrtr-proxy: this proxy forwards {} (the path of its --upstream URL), not {shown}\n", self.path());
        plain(StatusCode::NOT_FOUND, why)
    }
}

/// A request the listener's web rules refuse: its status, a JSON-RPC error as the body.
fn refused(refusal: web::Refusal) -> Response<Forward> {
    let mut response = Response::new(Forward::full(refusal.body()));
    *response.status_mut() = refusal.status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The proxy's own answer to a request it relayed (502, 504): an entry of
/// the exchange too, so that its request is not held as awaiting an answer.
fn own_answer(monitor: &Monitor, exchange: &str, status: StatusCode, text: String) -> Response<Forward> {
    let response = plain(status, text);
    monitor.response(exchange, status.as_u16(), response.headers(), None, true, Vec::new());
    response
}

fn media_type(headers: &http::HeaderMap) -> String {
    let value = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    value.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

async fn handle(req: Request<Incoming>, shared: Arc<Shared>) -> Result<Response<Forward>, Infallible> {
    let monitor = &shared.monitor;
    let limit = monitor.limits().max_message_bytes;
    let (mut parts, body) = req.into_parts();
    if !shared.endpoint.serves(parts.uri.path()) {
        return Ok(shared.endpoint.not_found(parts.uri.path()));
    }
    if let Err(refusal) = shared.web.check(&parts.method, &parts.headers) {
        if shared.check {
            monitor.bad_bytes_from(Side::Client, &refusal.error);
        }
        return Ok(refused(refusal));
    }
    let collected = tokio::time::timeout(shared.timeout, Limited::new(body, limit).collect()).await;
    let Ok(collected) = collected else {
        return Ok(plain(StatusCode::REQUEST_TIMEOUT, "mrtr-proxy: the request body did not arrive in time\n".into()));
    };
    let bytes = match collected {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            let why = format!("a request body over the bound of {limit} bytes");
            monitor.bad_bytes_from(Side::Client, &Error::with(RuleId::LimitExceeded, why.clone()));
            return Ok(plain(StatusCode::PAYLOAD_TOO_LARGE, format!("mrtr-proxy: {why}\n")));
        }
        Err(e) => return Ok(plain(StatusCode::BAD_REQUEST, format!("mrtr-proxy: reading the request: {e}\n"))),
    };
    if let Err(e) = parsed::check_client_body(&bytes, limit) {
        monitor.bad_bytes_from(Side::Client, &e);
        return Ok(plain(StatusCode::PAYLOAD_TOO_LARGE, format!("mrtr-proxy: {}\n", e.message())));
    }

    let path = parts.uri.path_and_query().cloned().unwrap_or_else(|| http::uri::PathAndQuery::from_static("/"));
    let uri =
        Uri::builder().scheme(shared.scheme.clone()).authority(shared.authority.clone()).path_and_query(path).build();
    parts.uri = match uri {
        Ok(uri) => uri,
        Err(e) => return Ok(plain(StatusCode::BAD_REQUEST, format!("mrtr-proxy: bad request target: {e}\n"))),
    };
    // Hop-by-hop: the fixed list, and any header the `connection` header names.
    let listed: Vec<String> = parts
        .headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty())
        .collect();
    let names: Vec<_> = parts
        .headers
        .keys()
        .filter(|n| net::hop_by_hop(n.as_str()) || listed.iter().any(|t| t == n.as_str()))
        .cloned()
        .collect();
    for name in names {
        parts.headers.remove(name);
    }
    if let Ok(host) = HeaderValue::from_str(shared.authority.as_str()) {
        parts.headers.insert(header::HOST, host);
    }
    parts.version = http::Version::HTTP_11;
    if !shared.check {
        return Ok(forward_unchecked(parts, bytes, &shared).await);
    }
    let retry = shared.repairs.contains(&Repair::StateOnlyRetry);
    let retry = retry.then(|| StateOnlyRetry::for_request(&bytes, &shared.settings)).flatten();
    let again = retry.as_ref().map(|_| (parts.method.clone(), parts.uri.clone(), parts.headers.clone()));
    let (mut parts, mut body) = match relay(parts, bytes, &shared).await {
        Ok(answer) => answer,
        Err(own) => return Ok(own),
    };
    if let (Some(retry), Some(again)) = (retry, again) {
        (parts, body) = match retry_state_only(retry, again, parts, body, &shared).await {
            Ok(answer) => answer,
            Err(own) => return Ok(own),
        };
    }
    if shared.repairs.contains(&Repair::FinalFields) {
        if let Some(stripped) = body.collected().and_then(|all| strip_final_fields(&all)) {
            body = Forward::full(Bytes::from(stripped));
            parts.headers.remove(header::CONTENT_LENGTH);
        }
    }
    Ok(Response::from_parts(parts, body))
}

/// A request as the proxy sends it again: method, URL and header fields.
type Again = (http::Method, Uri, http::HeaderMap);

/// [`Repair::StateOnlyRetry`]: while upstream answers with a state-only
/// round (in JSON), sends the retry the core builds after its backoff, each
/// an exchange of its own that the checker follows; the client gets the
/// last answer, under its own id.
async fn retry_state_only(
    mut retry: StateOnlyRetry,
    (method, uri, headers): Again,
    mut parts: http::response::Parts,
    mut body: Forward,
    shared: &Shared,
) -> Result<(http::response::Parts, Forward), Response<Forward>> {
    let started = tokio::time::Instant::now();
    let now = || mrtr::Millis(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
    while let Some(all) = body.collected() {
        match retry.handle_response(&all, now()) {
            RetryStep::Relay(text) => {
                if retry.rounds() > 0 {
                    body = Forward::full(Bytes::from(text));
                    parts.headers.remove(header::CONTENT_LENGTH);
                }
                break;
            }
            RetryStep::Retry { at, request } => {
                tokio::time::sleep_until(started + Duration::from_millis(at.0)).await;
                let mut next = Request::new(());
                *next.method_mut() = method.clone();
                *next.uri_mut() = uri.clone();
                *next.headers_mut() = headers.clone();
                next.headers_mut().remove(header::CONTENT_LENGTH);
                (parts, body) = relay(next.into_parts().0, Bytes::from(request), shared).await?;
            }
        }
    }
    Ok((parts, body))
}

/// Sends the request upstream as one exchange the monitor records (the
/// request, then the response: collected when it is JSON, tapped as it goes
/// when it streams): the response's head and body, or the proxy's own
/// answer when upstream failed.
async fn relay(
    parts: http::request::Parts,
    bytes: Bytes,
    shared: &Shared,
) -> Result<(http::response::Parts, Forward), Response<Forward>> {
    let monitor = &shared.monitor;
    // The client entry: the request as it goes upstream.
    let exchange = monitor.exchange();
    monitor.request(&exchange, parts.method.as_str(), &parts.uri.to_string(), &parts.headers, &bytes);
    let answered =
        tokio::time::timeout(shared.timeout, shared.client.request(Request::from_parts(parts, Full::new(bytes))));
    let upstream = match answered.await {
        Err(_) => {
            let why = format!("upstream {} did not answer in {:?}", shared.authority, shared.timeout);
            eprintln!("mrtr-proxy: {why}");
            return Err(own_answer(monitor, &exchange, StatusCode::GATEWAY_TIMEOUT, format!("mrtr-proxy: {why}\n")));
        }
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            eprintln!("mrtr-proxy: upstream {}: {e}", shared.authority);
            return Err(own_answer(
                monitor,
                &exchange,
                StatusCode::BAD_GATEWAY,
                format!("mrtr-proxy: upstream: {e}\n"),
            ));
        }
    };
    let (mut parts, body) = upstream.into_parts();
    for name in ["connection", "keep-alive"] {
        parts.headers.remove(name);
    }
    let status = parts.status.as_u16();
    let media = media_type(&parts.headers);
    let body = if body.is_end_stream() {
        monitor.response(&exchange, status, &parts.headers, None, true, Vec::new());
        Forward::pass(body)
    } else if media == "application/json" {
        match body::collect_json(body, monitor, &exchange, status, &parts.headers).await {
            Ok(b) => b,
            Err(e) => {
                eprintln!("mrtr-proxy: upstream {}: reading a body: {e}", shared.authority);
                return Err(plain(StatusCode::BAD_GATEWAY, format!("mrtr-proxy: upstream body: {e}\n")));
            }
        }
    } else {
        // The head now, the blocks and the end as they go by.
        monitor.response(&exchange, status, &parts.headers, None, false, Vec::new());
        let mut body = Forward::tapped(body, monitor.clone(), exchange.clone(), media == "text/event-stream");
        body.read_ahead().await;
        body
    };
    Ok((parts, body))
}

/// [`Proxy::unchecked`]: the request as [`handle`] sends it, the response
/// back as [`handle`] relays it (hop-by-hop fields out, what upstream has
/// already sent taken along with the head), with no monitor.
async fn forward_unchecked(parts: http::request::Parts, bytes: Bytes, shared: &Shared) -> Response<Forward> {
    let answered =
        tokio::time::timeout(shared.timeout, shared.client.request(Request::from_parts(parts, Full::new(bytes))));
    let upstream = match answered.await {
        Err(_) => {
            let why = format!("upstream {} did not answer in {:?}", shared.authority, shared.timeout);
            return plain(StatusCode::GATEWAY_TIMEOUT, format!("mrtr-proxy: {why}\n"));
        }
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return plain(StatusCode::BAD_GATEWAY, format!("mrtr-proxy: upstream: {e}\n")),
    };
    let (mut parts, body) = upstream.into_parts();
    for name in ["connection", "keep-alive"] {
        parts.headers.remove(name);
    }
    let mut body = Forward::pass(body);
    body.read_ahead().await;
    Response::from_parts(parts, body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every accepted socket sends without waiting for ACKs (read back from the socket).
    #[tokio::test]
    async fn accepted_sockets_have_tcp_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let connect = tokio::spawn(tokio::net::TcpStream::connect(addr));
        let (stream, _) = listener.accept().await.unwrap();
        assert!(!stream.nodelay().unwrap(), "the default, for the test to mean something");
        assert!(net::no_delay(stream, "test").nodelay().unwrap());
        drop(connect.await);
    }
}
