//! `mrtr-bridge`: lets MCP clients that speak only `2025-11-25` use MRTR
//! servers (`2026-07-28`).
//!
//! A `2025-11-25` client answers server requests (elicitation, sampling,
//! roots) sent on the event stream of its `tools/call` POST, and cannot retry
//! with `inputResponses`. An MRTR server answers `input_required` and waits
//! for such a retry. The bridge is a Streamable HTTP server towards the
//! client (`initialize`, `Mcp-Session-Id` sessions, `ping`, every other
//! request relayed upstream) and, for `tools/call`, `prompts/get` and
//! `resources/read`, runs one [`mrtr::client::Operation`] against the
//! upstream: each question of an `input_required` round becomes a server
//! request on the client's stream, each answer goes back into the operation,
//! which sends the retry (its `call` module).
//!
//! Given several named upstreams ([`Config::upstreams`]) the bridge serves
//! them as one server: lists merged, tool and prompt names prefixed with
//! the upstream's name, each call routed to its upstream (`fleet`).
//!
//! Both conversations are checked as they flow, as `mrtr proxy` checks one:
//! a [`mrtr_proxy::Monitor`] for the client side under `2025-11-25`, one for
//! the upstream side under `2026-07-28`, their reports printed tagged with
//! the side ([`Side`]), each optionally recorded for `mrtr check`.
//!
//! The protocol decisions are the core's (`mrtr`): reading a POST
//! (`http::serve::read_request`), writing the stream
//! (`http::serve::ServerStream`), a question as a `2025-11-25` server
//! request (`server::stream_request`), each upstream request's `_meta`
//! (`client::Session`), the rounds (`client::Operation`), error responses
//! (`server::error_response`). This crate is I/O glue: hyper, tokio.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use mrtr_bridge::{Bridge, Config};
//! let config = Config::new("127.0.0.1:0".parse().unwrap(), "http://127.0.0.1:8000/mcp".parse().unwrap());
//! let bridge = Bridge::bind(config).await?;
//! let (client, upstream) = bridge.serve(async { let _ = tokio::signal::ctrl_c().await; }).await;
//! println!("{}\n{}", client.line(), upstream.line());
//! # Ok(()) }
//! ```

mod call;
mod endpoint;
mod fleet;
mod listen;
mod reverse;
mod sessions;
mod side;
mod upstream;

pub use fleet::check_upstreams;
/// The URL type of [`Config`]'s upstreams, for callers that build one.
pub use http::Uri;
pub use mrtr_proxy::{Output, Report, Summary};
pub use side::Side;

use mrtr_proxy::web::WebRules;
use mrtr_proxy::write_timeout::WriteTimeout;
use mrtr_proxy::{net, UiPage, UpstreamClient};

use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use mrtr::check::CheckConfig;
use mrtr::Protocol;
use sessions::Sessions;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};

/// What the bridge does.
#[derive(Clone, Debug)]
pub struct Config {
    /// Where it listens (the client's endpoint is any path there).
    pub listen: SocketAddr,
    /// The MRTR server's endpoint (`http://` or `https://`).
    pub upstream: Uri,
    /// Several MRTR servers by name, served as one (`--upstream NAME=URL`,
    /// two or more: see the `fleet` module); empty, the one `upstream`.
    /// When set it wins: requests the bridge does not route by name or URI
    /// go to the first.
    pub upstreams: Vec<(String, Uri)>,
    /// A PEM file of certificate authorities an `https://` upstream's
    /// certificate may chain to, besides the system's.
    pub upstream_ca: Option<PathBuf>,
    /// A transcript of the client side's HTTP entries, for `mrtr check --protocol 2025-11-25`.
    pub record_client: Option<PathBuf>,
    /// A transcript of the upstream side's HTTP entries, for `mrtr check`.
    pub record_upstream: Option<PathBuf>,
    /// Where reports go.
    pub output: Output,
    /// How long a client may take to send a request (head, then body), the
    /// upstream to answer with its head, and the client to answer a round's
    /// questions (past it the call ends with a JSON-RPC error, `limit-exceeded`),
    /// and a client to take any of a response (past it the connection is
    /// closed, and the upstream exchange feeding it ends).
    pub timeout: Duration,
    /// Sessions held at once. An `initialize` past it takes the place of
    /// the least recently used session with no call under way (one that
    /// never made a call first); when every session has a call under way it
    /// is answered 503.
    pub max_sessions: usize,
    /// Sessions one peer address may hold (the same eviction within that
    /// peer's sessions; in the reverse bridge, the calls under way of one
    /// peer address); `None`: a quarter of `max_sessions`, at least 16 (or
    /// `max_sessions` when smaller).
    pub max_sessions_per_peer: Option<usize>,
    /// Client connections served at once; one past it is answered 503 and
    /// closed. The default is what the descriptor limit allows
    /// ([`net::default_max_connections`]); a cap above that is lowered to it
    /// at [`Bridge::bind`], said on stderr.
    pub max_connections: usize,
    /// Client connections served at once from one IP address; one past it
    /// is answered 503 and closed. `None`: a quarter of `max_connections`,
    /// at least 8 ([`net::default_per_peer`]).
    pub max_connections_per_peer: Option<usize>,
    /// Where to serve the live pages, one per side (`/`: the client's,
    /// `/upstream/`: the upstream's), if anywhere.
    pub ui: Option<SocketAddr>,
    /// The protocol the upstream speaks, which picks the direction:
    /// `2026-07-28` (the default), `2025-11-25` clients in front of an MRTR
    /// server; `2025-11-25`, MRTR clients in front of a `2025-11-25` server
    /// (the reverse bridge: each round a call parked on its open upstream
    /// stream, the client holding a sealed `requestState` naming it;
    /// `max_sessions` then bounds the calls under way and the upstream
    /// sessions, and `timeout` how long a parked call waits for its retry).
    pub upstream_protocol: Protocol,
    /// (Reverse bridge) The file of the key that seals `requestState` (at
    /// least 32 random bytes, or 64 hex digits), the same on every instance
    /// behind one load balancer; without it, a random key made at start.
    pub state_key_file: Option<PathBuf>,
    /// (Reverse bridge) This instance's name in the states it seals; without
    /// it, a random one made at start.
    pub instance: Option<String>,
    /// (Reverse bridge) Whether MRTR clients that present no credential
    /// share upstream `2025-11-25` sessions when they declare the same
    /// capabilities and `clientInfo` (for a server known to keep nothing per
    /// session); by default each such request gets a session of its own,
    /// ended with it, and a client presenting `Authorization` shares only
    /// with that credential.
    pub share_upstream_sessions: bool,
    /// Browser origins allowed besides the default ones (`--allow-origin`;
    /// `*`: any), on the client's endpoint and the live pages: see
    /// [`mrtr_proxy::web`].
    pub allow_origins: Vec<String>,
    /// `Host` names allowed besides the default ones (`--allow-host`; `*`:
    /// any): see [`mrtr_proxy::web`].
    pub allow_hosts: Vec<String>,
    /// Bytes of one message (a request body, a response body, an event),
    /// the checker's bound too (`--max-message-bytes`; default 16 MiB, the
    /// core's). Past it a request is `413`, an upstream message ends its call. The gateway's memory grows with
    /// it: see `docs/cli.md`, "Memory".
    pub max_message_bytes: usize,
}

impl Config {
    /// Listens on `listen`, bridges to `upstream`; no records, quiet, 30 s,
    /// 1024 sessions (256 per peer), the connections the descriptor
    /// limit allows (a quarter of them per address).
    pub fn new(listen: SocketAddr, upstream: Uri) -> Config {
        Config {
            listen,
            upstream,
            upstreams: Vec::new(),
            upstream_ca: None,
            record_client: None,
            record_upstream: None,
            output: Output::Quiet,
            timeout: Duration::from_secs(30),
            max_sessions: 1024,
            max_sessions_per_peer: None,
            max_connections: net::default_max_connections(),
            max_connections_per_peer: None,
            ui: None,
            upstream_protocol: Protocol::V2026_07_28,
            state_key_file: None,
            instance: None,
            share_upstream_sessions: false,
            allow_origins: Vec::new(),
            allow_hosts: Vec::new(),
            max_message_bytes: mrtr::Limits::DEFAULT.max_message_bytes,
        }
    }
}

/// What every connection and call shares.
pub(crate) struct Shared {
    pub(crate) timeout: Duration,
    pub(crate) client: UpstreamClient,
    pub(crate) upstream_url: String,
    pub(crate) listen: SocketAddr,
    /// The `2025-11-25` side, checked.
    pub(crate) downstream: Side,
    /// The `2026-07-28` side, checked.
    pub(crate) upstream: Side,
    pub(crate) sessions: Sessions,
    /// The reverse bridge's calls, sessions and key ring, in that direction.
    pub(crate) reverse: Option<reverse::Reverse>,
    /// The upstreams by name, when the bridge aggregates several.
    pub(crate) fleet: Option<fleet::Fleet>,
    /// The client endpoint's `Host`, `Origin` and `Content-Type` rules.
    pub(crate) web: WebRules,
}

/// The fleet of an aggregating bridge (none with one upstream), and the URL
/// the upstream client is made for: an `https://` one when any is, so that
/// its TLS roots are loaded (the connector serves `http://` too).
fn fleet_of(config: &Config) -> std::io::Result<(Option<fleet::Fleet>, Uri)> {
    if config.upstreams.is_empty() {
        return Ok((None, config.upstream.clone()));
    }
    let invalid = |why: String| std::io::Error::new(std::io::ErrorKind::InvalidInput, why);
    if config.upstream_protocol != Protocol::V2026_07_28 {
        return Err(invalid("several upstreams are for 2026-07-28 upstreams only".into()));
    }
    let fleet = fleet::Fleet::new(&config.upstreams).map_err(invalid)?;
    let urls = config.upstreams.iter().map(|(_, url)| url);
    let tls = urls.clone().find(|u| u.scheme_str() == Some("https")).or(urls.clone().next());
    Ok((Some(fleet), tls.cloned().unwrap_or_else(|| config.upstream.clone())))
}

/// Sessions one peer may hold: as configured, else a quarter of the bound,
/// but never fewer than 16 (or the bound itself when smaller): every local
/// client of a loopback bridge is the one peer 127.0.0.1.
fn sessions_per_peer(config: &Config) -> usize {
    let default = (config.max_sessions / 4).max(config.max_sessions.min(16));
    config.max_sessions_per_peer.unwrap_or(default).max(1)
}

/// Where requests go that nothing routes: the first of several upstreams, or the one.
fn fleet_first_url(fleet: Option<&fleet::Fleet>, upstream: &Uri) -> String {
    fleet.map_or_else(|| upstream.to_string(), |f| f.first_url().to_string())
}

/// A bound bridge, ready to [`serve`](Bridge::serve).
pub struct Bridge {
    listener: TcpListener,
    shared: Arc<Shared>,
    admission: Arc<net::Admission>,
    ui: Option<(TcpListener, WebRules)>,
}

impl Bridge {
    /// Binds the listening socket and opens the record files (appending).
    pub async fn bind(config: Config) -> std::io::Result<Bridge> {
        let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, what.to_string());
        let (fleet, first) = fleet_of(&config)?;
        let client = mrtr_proxy::upstream_client(&first, config.upstream_ca.as_deref())?;
        if first.authority().is_none() {
            return Err(invalid("the upstream URL needs a host"));
        }
        let record = |path: &Option<PathBuf>| path.as_deref().map(mrtr_proxy::open_record).transpose();
        let (record_client, record_upstream) = (record(&config.record_client)?, record(&config.record_upstream)?);
        let reverse = match config.upstream_protocol {
            Protocol::V2026_07_28 => None,
            Protocol::V2025_11_25 => Some(reverse::Reverse::new(
                config.state_key_file.as_deref(),
                config.instance.clone(),
                (config.max_sessions, sessions_per_peer(&config)),
                config.share_upstream_sessions,
            )?),
            other => return Err(invalid(&format!("no bridge to a {other} upstream: 2026-07-28 or 2025-11-25"))),
        };
        let listener = TcpListener::bind(config.listen).await?;
        let (client_protocol, upstream_protocol) = match reverse {
            Some(_) => (Protocol::V2026_07_28, Protocol::V2025_11_25),
            None => (Protocol::V2025_11_25, Protocol::V2026_07_28),
        };
        let limits = mrtr::Limits { max_message_bytes: config.max_message_bytes, ..mrtr::Limits::DEFAULT };
        let legacy = CheckConfig::default().with_protocol(client_protocol).with_limits(limits);
        let upstream_check = CheckConfig::default().with_protocol(upstream_protocol).with_limits(limits);
        let mut shared = Shared {
            timeout: config.timeout,
            client,
            upstream_url: fleet_first_url(fleet.as_ref(), &config.upstream),
            listen: listener.local_addr()?,
            downstream: Side::new("client", legacy, record_client, config.output),
            upstream: Side::new("upstream", upstream_check, record_upstream, config.output),
            sessions: Sessions::new(config.max_sessions, sessions_per_peer(&config)),
            reverse,
            fleet,
            web: WebRules::new(listener.local_addr()?, &config.allow_origins, &config.allow_hosts),
        };
        let ui = match config.ui {
            Some(addr) => {
                let title = |side: &str, p: Protocol| format!("mrtr bridge: the {side} side ({p})");
                shared.downstream.keep_timeline(&title("client", client_protocol));
                shared.upstream.keep_timeline(&title("upstream", upstream_protocol));
                let listener = TcpListener::bind(addr).await?;
                let rules = WebRules::new(listener.local_addr()?, &config.allow_origins, &config.allow_hosts);
                Some((listener, rules))
            }
            None => None,
        };
        let caps = net::Caps::for_this_process(config.max_connections, config.max_connections_per_peer, "mrtr-bridge");
        Ok(Bridge { listener, shared: Arc::new(shared), admission: net::Admission::new(caps), ui })
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

    /// The address of the live pages, when it has them.
    pub fn ui_addr(&self) -> Option<SocketAddr> {
        self.ui.as_ref().and_then(|(l, _)| l.local_addr().ok())
    }

    /// The client side (`2025-11-25`): its monitor, reports and counts.
    pub fn client_side(&self) -> Side {
        self.shared.downstream.clone()
    }

    /// The upstream side (`2026-07-28`): its monitor, reports and counts.
    pub fn upstream_side(&self) -> Side {
        self.shared.upstream.clone()
    }

    /// A handle that tells how many sessions are open and questions wait
    /// (for tests and health checks).
    pub fn gauges(&self) -> Gauges {
        Gauges { shared: self.shared.clone() }
    }

    /// Serves until `shutdown` completes, then flushes the records and
    /// returns the counts of the client side and of the upstream side.
    pub async fn serve(mut self, shutdown: impl Future<Output = ()>) -> (Summary, Summary) {
        tokio::pin!(shutdown);
        let ui = self.ui.take().map(|(listener, rules)| {
            let page = |path: &str, name: &str, side: &Side| UiPage {
                path: path.into(),
                name: name.into(),
                monitor: side.monitor().clone(),
            };
            let pages = vec![
                page("/", "the client side", &self.shared.downstream),
                page("/upstream/", "the upstream side", &self.shared.upstream),
            ];
            tokio::spawn(mrtr_proxy::serve_ui(listener, rules, pages))
        });
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                accepted = self.listener.accept() => match accepted {
                    Ok((stream, peer)) => self.accept(net::no_delay(stream, "mrtr-bridge"), peer.ip()),
                    Err(e) => {
                        // Out of file descriptors, say: back off, keep serving.
                        eprintln!("mrtr-bridge: accept: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
            }
        }
        if let Some(ui) = ui {
            ui.abort();
        }
        let (client, upstream) = (&self.shared.downstream, &self.shared.upstream);
        client.flush();
        upstream.flush();
        (client.summary(), upstream.summary())
    }

    /// Serves one connection from `peer`, or refuses it past the connection
    /// caps (all, or its address's).
    fn accept(&self, stream: TcpStream, peer: IpAddr) {
        let permit = match self.admission.admit(peer) {
            Ok(permit) => permit,
            Err(why) => {
                tokio::spawn(net::refuse(stream, "mrtr-bridge", why));
                return;
            }
        };
        let shared = self.shared.clone();
        tokio::spawn(async move {
            let timeout = shared.timeout;
            let service = service_fn(move |req| {
                let shared = shared.clone();
                async move {
                    match shared.reverse {
                        Some(_) => reverse::handle(req, shared, peer).await,
                        None => endpoint::handle(req, shared, peer).await,
                    }
                }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(timeout)
                .serve_connection(TokioIo::new(WriteTimeout::new(stream, timeout)), service)
                .await;
            drop(permit);
        });
    }
}

/// How much the bridge holds now.
#[derive(Clone)]
pub struct Gauges {
    shared: Arc<Shared>,
}

impl Gauges {
    /// Sessions open.
    pub fn sessions(&self) -> usize {
        self.shared.sessions.len()
    }

    /// Server requests asked and not answered, in every session.
    pub fn waiting(&self) -> usize {
        self.shared.sessions.waiting()
    }

    /// (Reverse bridge) Calls under way: running, or parked between rounds
    /// waiting for the client's retry.
    pub fn calls(&self) -> usize {
        self.shared.reverse.as_ref().map_or(0, reverse::Reverse::calls)
    }

    /// (Reverse bridge) Upstream `2025-11-25` sessions open.
    pub fn upstream_sessions(&self) -> usize {
        self.shared.reverse.as_ref().map_or(0, reverse::Reverse::sessions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every accepted socket sends without waiting for ACKs (read back from the socket).
    #[tokio::test]
    async fn accepted_sockets_have_tcp_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let connect = tokio::spawn(TcpStream::connect(listener.local_addr().unwrap()));
        let (stream, _) = listener.accept().await.unwrap();
        assert!(!stream.nodelay().unwrap(), "the default, for the test to mean something");
        assert!(net::no_delay(stream, "test").nodelay().unwrap());
        drop(connect.await);
    }

    /// Ids are 128 random bits: 32 hex digits, never the same twice in a row.
    #[test]
    fn ids_are_random_hex() {
        let (a, b) = (sessions::random_id().unwrap(), sessions::random_id().unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
