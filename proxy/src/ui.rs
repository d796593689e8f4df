//! The live page (`--ui ADDR`): a small HTTP server beside the proxy that
//! serves the conversation's [`page`](crate::page) at `/` and its data at
//! `/state.json`, which the page fetches every second. It serves nothing
//! else and reaches nothing: no network access is needed to look.

use crate::monitor::Monitor;
use crate::page;
use bytes::Bytes;
use http::{header, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::time::Duration;
use tokio::net::TcpListener;

/// Serves the page of `monitor` (which keeps a timeline) on `listener`
/// until the task is dropped.
pub async fn serve_ui(listener: TcpListener, monitor: Monitor) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        let stream = crate::net::no_delay(stream, "mrtr-proxy ui");
        let monitor = monitor.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| answer(req, monitor.clone()));
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

async fn answer(req: Request<Incoming>, monitor: Monitor) -> Result<Response<Full<Bytes>>, Infallible> {
    let data = monitor.timeline().unwrap_or_default();
    let (status, kind, body) = match (req.method(), req.uri().path()) {
        (&Method::GET, "/") => (StatusCode::OK, "text/html; charset=utf-8", page::html(&data, true)),
        (&Method::GET, "/state.json") => (StatusCode::OK, "application/json", data.to_string()),
        (&Method::GET, _) => (StatusCode::NOT_FOUND, "text/plain; charset=utf-8", "not found\n".into()),
        _ => (StatusCode::METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", "GET only\n".into()),
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    // The page is the proxy's own: nothing it loads comes from elsewhere.
    let policy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'";
    response.headers_mut().insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(policy));
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}
