//! The web's rules on the proxy's listeners (review N3 and L9), over real
//! sockets on 127.0.0.1: a DNS-rebinding request (foreign `Host` and
//! `Origin`) and a cross-site `text/plain` POST never reach the upstream;
//! the live page answers its own `Host` only; the honest client passes.

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::{TokioExecutor, TokioIo};
use mrtr_proxy::{Config, Proxy};
use serde_json::Value;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

const PING: &str = r#"{"jsonrpc": "2.0", "id": 1, "method": "ping"}"#;

/// An upstream that answers every request `{}` and counts what reached it.
async fn upstream() -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let reached = Arc::new(AtomicUsize::new(0));
    let count = reached.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let count = count.clone();
            tokio::spawn(async move {
                let service = service_fn(move |_req: Request<Incoming>| {
                    count.fetch_add(1, Ordering::SeqCst);
                    let body = Full::new(Bytes::from_static(br#"{"jsonrpc": "2.0", "id": 1, "result": {}}"#));
                    async move {
                        Ok::<_, Infallible>(
                            Response::builder().header("content-type", "application/json").body(body).unwrap(),
                        )
                    }
                });
                let _ =
                    hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
            });
        }
    });
    (addr, reached)
}

/// A proxy with a live page in front of `upstream`, `edit`ed; its
/// addresses (the proxy's, the page's). It serves until the test ends.
async fn proxy(upstream: SocketAddr, edit: impl FnOnce(&mut Config)) -> (SocketAddr, SocketAddr) {
    let url = format!("http://{upstream}/mcp").parse().unwrap();
    let mut config = Config::new("127.0.0.1:0".parse().unwrap(), url);
    config.ui = Some("127.0.0.1:0".parse().unwrap());
    edit(&mut config);
    let proxy = Proxy::bind(config).await.unwrap();
    let addrs = (proxy.local_addr().unwrap(), proxy.ui_addr().unwrap());
    tokio::spawn(proxy.serve(std::future::pending()));
    addrs
}

/// A request to `addr` with these header fields (and `Host` as given, else
/// hyper's `127.0.0.1:PORT`); its status and body.
async fn send(method: &str, addr: SocketAddr, path: &str, fields: &[(&str, &str)], body: &str) -> (StatusCode, Bytes) {
    let client: Client<HttpConnector, Full<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let mut request = Request::builder().method(method).uri(format!("http://{addr}{path}"));
    for (name, value) in fields {
        request = request.header(*name, *value);
    }
    let request = request.body(Full::new(Bytes::from(body.to_string()))).unwrap();
    let response = tokio::time::timeout(Duration::from_secs(10), client.request(request)).await.unwrap().unwrap();
    let status = response.status();
    (status, response.into_body().collect().await.unwrap().to_bytes())
}

const JSON: (&str, &str) = ("content-type", "application/json");

/// Review N3 on the proxy: the rebinding request and the cross-site simple
/// POST are refused with their rules and never reach the upstream (which
/// would see only the proxy's own `Host`); the honest request passes.
#[tokio::test]
async fn rebinding_and_cross_site_posts_never_reach_the_upstream() {
    let (up, reached) = upstream().await;
    let (addr, _) = proxy(up, |_| ()).await;
    let rebind = [("host", "rebind.attacker.example"), ("origin", "http://rebind.attacker.example"), JSON];
    let (status, body) = send("POST", addr, "/mcp", &rebind, PING).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        (body["id"].clone(), body["error"]["data"]["rule"].clone()),
        (Value::Null, "http-origin-refused".into())
    );
    let foreign = [("origin", "https://attacker.example"), JSON];
    assert_eq!(send("POST", addr, "/mcp", &foreign, PING).await.0, StatusCode::FORBIDDEN);
    let simple = [("origin", "http://localhost:8080"), ("content-type", "text/plain;charset=UTF-8")];
    assert_eq!(send("POST", addr, "/mcp", &simple, PING).await.0, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let rebound_get = [("host", "rebind.attacker.example")];
    assert_eq!(send("GET", addr, "/mcp", &rebound_get, "").await.0, StatusCode::FORBIDDEN);
    assert_eq!(reached.load(Ordering::SeqCst), 0, "nothing refused reached the upstream");
    assert_eq!(send("POST", addr, "/mcp", &[JSON], PING).await.0, StatusCode::OK);
    let own_origin = [("origin", "http://127.0.0.1:3000"), JSON];
    assert_eq!(send("POST", addr, "/mcp", &own_origin, PING).await.0, StatusCode::OK);
    assert_eq!(reached.load(Ordering::SeqCst), 2);
}

/// `--allow-origin` and `--allow-host` let a named web app through.
#[tokio::test]
async fn allowed_origins_and_hosts_pass() {
    let (up, reached) = upstream().await;
    let (addr, _) = proxy(up, |c| {
        c.allow_origins = vec!["https://app.example.com".into()];
        c.allow_hosts = vec!["mcp.example.com".into()];
    })
    .await;
    let app = [("host", "mcp.example.com"), ("origin", "https://app.example.com"), JSON];
    assert_eq!(send("POST", addr, "/mcp", &app, PING).await.0, StatusCode::OK);
    let other = [("host", "mcp.example.com"), ("origin", "https://other.example.com"), JSON];
    assert_eq!(send("POST", addr, "/mcp", &other, PING).await.0, StatusCode::FORBIDDEN);
    assert_eq!(reached.load(Ordering::SeqCst), 1);
}

/// Review L9: the live page's data (recorded bodies) goes to the operator's
/// own browser only: a rebinding `Host` or a foreign `Origin` is refused,
/// and the page changes nothing (GET only).
#[tokio::test]
async fn the_live_page_answers_its_own_host_only() {
    let (up, _) = upstream().await;
    let (addr, ui) = proxy(up, |_| ()).await;
    assert_eq!(send("POST", addr, "/mcp", &[JSON], PING).await.0, StatusCode::OK);
    let (status, state) = send("GET", ui, "/state.json", &[], "").await;
    assert_eq!(status, StatusCode::OK);
    assert!(String::from_utf8_lossy(&state).contains("ping"), "the honest look sees the traffic");
    let rebound = [("host", "rebind.attacker.example")];
    let (status, body) = send("GET", ui, "/state.json", &rebound, "").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(!String::from_utf8_lossy(&body).contains("ping"));
    let foreign = [("origin", "http://rebind.attacker.example")];
    assert_eq!(send("GET", ui, "/state.json", &foreign, "").await.0, StatusCode::FORBIDDEN);
    assert_eq!(send("GET", ui, "/", &rebound, "").await.0, StatusCode::FORBIDDEN);
    assert_eq!(send("POST", ui, "/state.json", &[JSON], "{}").await.0, StatusCode::METHOD_NOT_ALLOWED);
}
