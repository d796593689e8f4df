//! The live pages (`--ui ADDR`): a small HTTP server beside the proxy (or
//! the bridge, one page per side) that serves each conversation's
//! [`page`](crate::page) at its path and its data at `<path>state.json`,
//! which the page fetches every second. It serves nothing else and reaches
//! nothing: no network access is needed to look.

use crate::monitor::Monitor;
use crate::page;
use crate::web::WebRules;
use bytes::Bytes;
use http::{header, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::time::Duration;
use tokio::net::TcpListener;

/// One live page.
#[derive(Clone)]
pub struct UiPage {
    /// Where it is: `/`, `/upstream/` (ends with `/`).
    pub path: String,
    /// What the other pages' links call it.
    pub name: String,
    /// Whose conversation it shows (it keeps a timeline:
    /// [`Monitor::with_timeline`]).
    pub monitor: Monitor,
}

/// Serves `pages` on `listener` until the task is dropped; each page links
/// to the others. Requests must pass `rules` (the recorded bodies are the
/// operator's: no page reads them through DNS rebinding), and only `GET`
/// is answered: the page changes nothing.
pub async fn serve_ui(listener: TcpListener, rules: WebRules, pages: Vec<UiPage>) {
    let pages = std::sync::Arc::new(pages);
    let rules = std::sync::Arc::new(rules);
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let stream = crate::net::no_delay(stream, "mrtr-proxy ui");
        let (pages, rules) = (pages.clone(), rules.clone());
        tokio::spawn(async move {
            let service = service_fn(move |req| answer(req, pages.clone(), rules.clone()));
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// The page at `path` and whether `path` asks for its data, if any.
fn find<'a>(pages: &'a [UiPage], path: &str) -> Option<(&'a UiPage, bool)> {
    pages.iter().find_map(|page| match path.strip_prefix(page.path.as_str()) {
        Some("") => Some((page, false)),
        Some("state.json") => Some((page, true)),
        _ => None,
    })
}

/// A page's data (its `state.json`), with the links to the other pages:
/// written from a snapshot, after the monitor's lock.
fn data(pages: &[UiPage], page: &UiPage) -> String {
    let links = (pages.len() > 1).then(|| {
        let links =
            pages.iter().map(|p| serde_json::json!({"href": p.path, "text": p.name, "here": p.path == page.path}));
        links.collect::<serde_json::Value>()
    });
    page.monitor.timeline().unwrap_or_default().to_json(links.as_ref())
}

async fn answer(
    req: Request<Incoming>,
    pages: std::sync::Arc<Vec<UiPage>>,
    rules: std::sync::Arc<WebRules>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    if let Err(refusal) = rules.check_host(req.headers()).and_then(|()| rules.check_origin(req.headers())) {
        return Ok(reply(refusal.status, "text/plain; charset=utf-8", format!("{}\n", refusal.error.message())));
    }
    let (status, kind, body) = match (req.method(), find(&pages, req.uri().path())) {
        (&Method::GET, Some((page, false))) => {
            (StatusCode::OK, "text/html; charset=utf-8", page::html(&data(&pages, page), true))
        }
        (&Method::GET, Some((page, true))) => (StatusCode::OK, "application/json", data(&pages, page)),
        (&Method::GET, None) => (StatusCode::NOT_FOUND, "text/plain; charset=utf-8", "not found\n".into()),
        _ => (StatusCode::METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", "GET only\n".into()),
    };
    Ok(reply(status, kind, body))
}

/// A response of the UI's: `body` as `kind`, never cached, under the page's policy.
fn reply(status: StatusCode, kind: &'static str, body: String) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    // The page is the proxy's own: nothing it loads comes from elsewhere,
    // and nothing runs but its own script (the policy the page also carries).
    if let Ok(policy) = HeaderValue::from_str(&page::content_security_policy(true)) {
        response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, policy);
    }
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}
