//! The simulated network: HTTP requests and responses as values, the
//! latencies, and what the faults do to a response on its way back.
//!
//! A response travels as parts on one connection (its head, body chunks,
//! its end) at increasing times, as TCP keeps them in order; two
//! connections' parts interleave freely, so responses overtake each other.

use crate::schedule::{FaultKind, Faults};
use mrtr::http::Headers;

/// One way, client to balancer or instance to client: 1–20 ms.
pub fn latency(rng: &mut fastrand::Rng) -> u64 {
    rng.u64(1..=20)
}

/// A held-back message (a fault): long enough to be overtaken, sometimes
/// longer than the client's patience.
pub fn long_delay(rng: &mut fastrand::Rng) -> u64 {
    rng.u64(200..=4000)
}

/// An HTTP request on the wire.
#[derive(Clone, Debug)]
pub struct HttpRequest {
    /// `POST` or `GET`.
    pub method: &'static str,
    /// The absolute URL.
    pub url: String,
    /// Header fields, lower-case names.
    pub headers: Headers,
    /// The body, if any.
    pub body: Option<String>,
}

impl From<mrtr::http::Request> for HttpRequest {
    fn from(r: mrtr::http::Request) -> HttpRequest {
        HttpRequest { method: r.method, url: r.url, headers: r.headers, body: r.body }
    }
}

/// An HTTP response as its instance wrote it.
#[derive(Clone, Debug)]
pub struct HttpResponse {
    /// The status.
    pub status: u16,
    /// Header fields, lower-case names (`content-length` included).
    pub headers: Headers,
    /// The body.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// A response with `content-type` and its body.
    pub fn with_body(status: u16, content_type: &str, body: String) -> HttpResponse {
        let headers = vec![
            ("content-type".to_string(), content_type.to_string()),
            ("content-length".to_string(), body.len().to_string()),
        ];
        HttpResponse { status, headers, body: body.into_bytes() }
    }

    /// A response without a body.
    pub fn empty(status: u16) -> HttpResponse {
        HttpResponse { status, headers: vec![("content-length".into(), "0".into())], body: Vec::new() }
    }
}

/// A part of a response, as the client's host receives it.
#[derive(Clone, Debug)]
pub enum Part {
    /// The status line and header fields.
    Head(u16, Headers),
    /// Bytes of the body.
    Body(Vec<u8>),
    /// The connection closed: the response is over, whole or cut.
    End,
}

/// The parts `response` arrives as, each with its delay after it was sent:
/// in chunks of 1–64 bytes, dropped, held back or cut where the faults say.
/// `target` names the exchange for the schedule. An `open` response (a
/// stream its server goes on writing) has no end unless it was cut.
pub fn deliver(
    response: &HttpResponse,
    rng: &mut fastrand::Rng,
    faults: &mut Faults,
    now: u64,
    target: &str,
    open: bool,
) -> Vec<(u64, Part)> {
    if faults.roll(FaultKind::DropResponse, now, || target.to_string()) {
        return Vec::new();
    }
    let mut at = latency(rng);
    if faults.roll(FaultKind::DelayResponse, now, || target.to_string()) {
        at += long_delay(rng);
    }
    let mut body: &[u8] = &response.body;
    let cut = !body.is_empty() && faults.roll(FaultKind::CutBody, now, || target.to_string());
    if cut {
        body = &body[..rng.usize(..body.len())];
    }
    let mut parts = vec![(at, Part::Head(response.status, response.headers.clone()))];
    parts.extend(chunks(body, rng, &mut at));
    if cut || !open {
        parts.push((at, Part::End));
    }
    parts
}

/// `body` in chunks of 1–64 bytes, from `at` on (moved past the last).
pub fn chunks(mut body: &[u8], rng: &mut fastrand::Rng, at: &mut u64) -> Vec<(u64, Part)> {
    let mut parts = Vec::new();
    while !body.is_empty() {
        let n = rng.usize(1..=64).min(body.len());
        *at += rng.u64(0..=2);
        parts.push((*at, Part::Body(body[..n].to_vec())));
        body = &body[n..];
    }
    parts
}
