//! The proxy towards an `https://` upstream: a TLS server on 127.0.0.1 whose
//! certificate chains to a certificate authority made at test time, trusted
//! through `Config::upstream_ca` (`--upstream-ca`) and refused without it.

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use mrtr_proxy::{Config, Proxy, Report};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use rustls_pki_types::{pem::PemObject, CertificateDer, PrivateKeyDer};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::time::timeout;
use tokio_rustls::TlsAcceptor;

/// A CA (its PEM written to a file) and a certificate for `localhost` it signed.
struct Pki {
    ca_file: PathBuf,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

fn pki(name: &str) -> Pki {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, "mrtr test CA");
    let ca = CertifiedIssuer::self_signed(ca, KeyPair::generate().unwrap()).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["localhost".to_string()]).unwrap().signed_by(&key, &ca).unwrap();
    let ca_file = std::env::temp_dir().join(format!("mrtr-proxy-{name}-{}.pem", std::process::id()));
    std::fs::write(&ca_file, ca.pem()).unwrap();
    let key = PrivateKeyDer::from_pem_slice(key.serialize_pem().as_bytes()).unwrap();
    Pki { ca_file, chain: vec![cert.der().clone()], key }
}

/// A first `tools/call` asks for a login (state `s1`); its retry completes.
async fn answer(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let request: Value = serde_json::from_slice(&req.into_body().collect().await.unwrap().to_bytes()).unwrap();
    let result = match request["params"]["requestState"].as_str() {
        None => json!({"resultType": "input_required", "requestState": "s1",
            "inputRequests": {"login": {"method": "elicitation/create", "params": {"mode": "form",
                "message": "Your login?", "requestedSchema": {"type": "object",
                    "properties": {"name": {"type": "string"}}}}}}}),
        Some(_) => json!({"resultType": "complete", "content": [{"type": "text", "text": "Sunny"}]}),
    };
    let body = json!({"jsonrpc": "2.0", "id": request["id"], "result": result}).to_string();
    Ok(Response::builder().header("content-type", "application/json").body(Full::new(Bytes::from(body))).unwrap())
}

/// Serves [`answer`] over TLS on a free loopback port.
async fn tls_upstream(pki: &Pki) -> SocketAddr {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(pki.chain.clone(), pki.key.clone_key())
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(stream).await else { return };
                let service = service_fn(answer);
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(tls), service).await;
            });
        }
    });
    addr
}

fn call(id: u64, state: Option<&str>) -> String {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let mut params = json!({"name": "get_weather", "arguments": {}, "_meta": meta});
    if let Some(state) = state {
        params["inputResponses"] = json!({"login": {"action": "accept", "content": {"name": "octocat"}}});
        params["requestState"] = json!(state);
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

async fn post(proxy: SocketAddr, body: String) -> (StatusCode, Bytes) {
    let client = Client::builder(TokioExecutor::new()).build_http();
    let request = Request::post(format!("http://{proxy}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "get_weather")
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let response = timeout(Duration::from_secs(10), client.request(request)).await.unwrap().unwrap();
    let status = response.status();
    (status, response.into_body().collect().await.unwrap().to_bytes())
}

async fn start(upstream: SocketAddr, ca: Option<PathBuf>) -> (SocketAddr, Proxy) {
    let url = format!("https://localhost:{}/mcp", upstream.port()).parse().unwrap();
    let config = Config { upstream_ca: ca, ..Config::new("127.0.0.1:0".parse().unwrap(), url) };
    let proxy = Proxy::bind(config).await.unwrap();
    (proxy.local_addr().unwrap(), proxy)
}

#[tokio::test]
async fn an_https_upstream_is_reached_over_tls_and_checked() {
    let pki = pki("trusted");
    let upstream = tls_upstream(&pki).await;
    let (addr, proxy) = start(upstream, Some(pki.ca_file.clone())).await;
    let monitor = proxy.monitor();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(proxy.serve(async move {
        let _ = stopped.await;
    }));
    let (status, first) = post(addr, call(1, None)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(serde_json::from_slice::<Value>(&first).unwrap()["result"]["requestState"], "s1");
    let (_, last) = post(addr, call(2, Some("s1"))).await;
    assert_eq!(serde_json::from_slice::<Value>(&last).unwrap()["result"]["resultType"], "complete");
    let _ = stop.send(());
    let summary = served.await.unwrap();
    let _ = std::fs::remove_file(&pki.ca_file);
    assert_eq!((summary.operations, summary.violations), (1, 0), "{:?}", monitor.reports());
    assert!(matches!(&monitor.reports()[..], [Report::Operation { rounds: 1, .. }]));
}

#[tokio::test]
async fn an_upstream_certificate_from_an_unknown_authority_is_refused_502() {
    let pki = pki("untrusted");
    let _ = std::fs::remove_file(&pki.ca_file);
    let upstream = tls_upstream(&pki).await;
    let (addr, proxy) = start(upstream, None).await;
    tokio::spawn(proxy.serve(std::future::pending()));
    let (status, body) = post(addr, call(1, None)).await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("mrtr-proxy: upstream"), "{text}");
}

#[tokio::test]
async fn a_ca_file_without_a_certificate_is_refused_at_bind() {
    let empty = std::env::temp_dir().join(format!("mrtr-proxy-empty-ca-{}.pem", std::process::id()));
    std::fs::write(&empty, "not a certificate\n").unwrap();
    let url = "https://localhost:1/mcp".parse().unwrap();
    let config = Config { upstream_ca: Some(empty.clone()), ..Config::new("127.0.0.1:0".parse().unwrap(), url) };
    let refused = Proxy::bind(config).await.err().expect("refused");
    let _ = std::fs::remove_file(&empty);
    assert!(refused.to_string().contains("no certificate"), "{refused}");
}
