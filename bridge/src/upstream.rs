//! The upstream side's I/O: one HTTP exchange an [`mrtr::client::Operation`]
//! asked for, made with hyper, its parts handed back to the operation's
//! driver in order, and fed to the upstream [`Side`]'s checker on the way
//! (the request; the response head with its whole JSON body, or each
//! event-stream block as it arrives; the end).
//!
//! What the parts mean is the operation's business: this module only moves
//! bytes, bounded by the message limit (a JSON body) and by the timeout (the
//! response head). Parts go through a channel of [`PARTS`] slots: an
//! exchange reads the next chunk of the upstream's body only once the last
//! one was taken, so a reader that stops (a client that reads nothing, a
//! driver waiting on such a client) stops the upstream's socket too, and the
//! bridge holds no more of a stream than those slots.

use crate::side::Side;
use crate::Shared;
use bytes::{Bytes, BytesMut};
use http::{header, HeaderMap, HeaderName, HeaderValue, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use mrtr::sse::Decoder;
use mrtr::{Error, RuleId};
use std::sync::Arc;
use tokio::sync::mpsc::{self, Sender};

/// The slots of a channel of [`Part`]s: what an exchange may read ahead of
/// its reader (each part a chunk of the upstream's body as hyper read it).
pub(crate) const PARTS: usize = 16;

/// A channel for the parts of exchanges, [`PARTS`] slots.
pub(crate) fn parts() -> (Sender<Part>, mpsc::Receiver<Part>) {
    mpsc::channel(PARTS)
}

/// A part of the response to the operation's exchange `.0`.
#[derive(Debug)]
pub(crate) enum Part {
    /// The status and the header fields (lower-case names).
    Head(u64, u16, Vec<(String, String)>),
    /// Body bytes.
    Body(u64, Bytes),
    /// The response ended, or none came (the connection failed).
    End(u64),
}

/// Makes the exchange `request` and sends its parts to `parts`, each once
/// the channel has room; stops early when the driver is gone (its receiver
/// dropped), which drops the response and so closes its connection.
pub(crate) async fn exchange(shared: Arc<Shared>, request: mrtr::http::Request, parts: Sender<Part>) {
    let number = request.exchange;
    let side = &shared.upstream;
    let entry = side.exchange();
    let body = Bytes::from(request.body.unwrap_or_default());
    let mut headers = HeaderMap::new();
    for (name, value) in &request.headers {
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(value)) {
            headers.append(n, v);
        }
    }
    side.request(&entry, request.method, &request.url, &headers, &body);
    let mut outgoing = Request::new(Full::new(body));
    *outgoing.method_mut() = http::Method::from_bytes(request.method.as_bytes()).unwrap_or(http::Method::POST);
    *outgoing.headers_mut() = headers;
    match request.url.parse() {
        Ok(uri) => *outgoing.uri_mut() = uri,
        Err(_) => return fail(side, &entry, StatusCode::BAD_GATEWAY, number, &parts).await,
    }
    let answered = tokio::time::timeout(shared.timeout, shared.client.request(outgoing)).await;
    let response = match answered {
        Err(_) => return fail(side, &entry, StatusCode::GATEWAY_TIMEOUT, number, &parts).await,
        Ok(Err(e)) => {
            eprintln!("mrtr-bridge: upstream {}: {e}", request.url);
            return fail(side, &entry, StatusCode::BAD_GATEWAY, number, &parts).await;
        }
        Ok(Ok(response)) => response,
    };
    let (head, body) = response.into_parts();
    let fields: Vec<(String, String)> = head
        .headers
        .iter()
        .map(|(n, v)| (n.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    if parts.send(Part::Head(number, head.status.as_u16(), fields)).await.is_err() {
        return;
    }
    if media_type(&head.headers) == "text/event-stream" {
        side.response(&entry, head.status.as_u16(), &head.headers, None, false);
        stream(side, &entry, body, number, &parts).await;
    } else {
        whole(side, &entry, &head, body, number, &parts).await;
    }
    let _ = parts.send(Part::End(number)).await;
}

/// No response came: the bridge's own answer is the entry's response (so that
/// the checker holds no request as awaiting one), and the operation hears
/// the end without a head (a request that reached no server).
async fn fail(side: &Side, entry: &str, status: StatusCode, number: u64, parts: &Sender<Part>) {
    side.response(entry, status.as_u16(), &HeaderMap::new(), None, true);
    let _ = parts.send(Part::End(number)).await;
}

/// A body read whole, up to the message bound: checked as one entry, then
/// handed over. Over the bound, a `limit-exceeded` report and what was read
/// so far (the operation's own bound refuses it too).
async fn whole(
    side: &Side,
    entry: &str,
    head: &http::response::Parts,
    mut body: Incoming,
    number: u64,
    parts: &Sender<Part>,
) {
    let limit = side.limits().max_message_bytes;
    let mut all = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { break };
        if let Some(data) = frame.data_ref() {
            all.extend_from_slice(data);
        }
        if all.len() > limit {
            side.bad_bytes(
                mrtr::check::Side::Server,
                &Error::with(RuleId::LimitExceeded, format!("a response body over {limit} bytes")),
            );
            side.response(entry, head.status.as_u16(), &head.headers, None, true);
            let _ = parts.send(Part::Body(number, all.freeze())).await;
            return;
        }
    }
    let all = all.freeze();
    side.response(entry, head.status.as_u16(), &head.headers, Some(&all), true);
    let _ = parts.send(Part::Body(number, all)).await;
}

/// An event stream: each block checked as it arrives, each chunk handed
/// over once there is room for it (the next one is not read before).
async fn stream(side: &Side, entry: &str, mut body: Incoming, number: u64, parts: &Sender<Part>) {
    let mut decoder = Decoder::with_limits(&side.limits());
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { break };
        let Some(data) = frame.data_ref() else { continue };
        decoder.feed(data);
        side.events(entry, &mut decoder);
        if parts.send(Part::Body(number, data.clone())).await.is_err() {
            return;
        }
    }
    decoder.finish();
    side.events(entry, &mut decoder);
    side.end(entry);
}

/// The media type of a message's `content-type`, lower case, without parameters.
pub(crate) fn media_type(headers: &HeaderMap) -> String {
    let value = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    value.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}
