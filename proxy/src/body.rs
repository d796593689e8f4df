//! The response body the proxy sends: upstream's frames, unchanged, as they
//! arrive, with a tap that feeds the monitor on the way: each event-stream
//! block as it goes by, and the end of the body.

use crate::monitor::Monitor;
use bytes::{Bytes, BytesMut};
use http::HeaderMap;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use mrtr::sse::Decoder;
use mrtr::{Error, RuleId};
use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Follows one response body for its exchange: the SSE blocks going by (with
/// a decoder, bounded by the message limits), and where it ends.
struct Tap {
    monitor: Monitor,
    exchange: String,
    decoder: Option<Decoder>,
    finished: bool,
}

impl Tap {
    fn feed(&mut self, bytes: &[u8]) {
        self.monitor.content(&self.exchange, bytes);
        if let Some(decoder) = self.decoder.as_mut() {
            decoder.feed(bytes);
            drain(decoder, &self.monitor, &self.exchange);
        }
    }

    /// Upstream finished the body: the last blocks, then the end.
    fn finish(&mut self) {
        if !self.finished {
            self.finished = true;
            if let Some(decoder) = self.decoder.as_mut() {
                decoder.finish();
                drain(decoder, &self.monitor, &self.exchange);
            }
            self.monitor.end(&self.exchange);
        }
    }
}

/// A body dropped before its end: the client left (hyper drops the body of
/// a response whose connection closed).
impl Drop for Tap {
    fn drop(&mut self) {
        if !self.finished {
            self.monitor.cut(&self.exchange);
        }
    }
}

fn drain(decoder: &mut Decoder, monitor: &Monitor, exchange: &str) {
    while let Some(event) = decoder.poll_event() {
        monitor.event(exchange, event);
    }
}

/// A response body: frames already read, then the rest of upstream's body.
pub struct Forward {
    prefix: VecDeque<Frame<Bytes>>,
    inner: Option<Incoming>,
    tap: Option<Tap>,
}

impl Forward {
    /// A body of these bytes.
    pub(crate) fn full(bytes: Bytes) -> Forward {
        Forward { prefix: VecDeque::from([Frame::data(bytes)]), inner: None, tap: None }
    }

    /// Upstream's body, unchecked.
    pub(crate) fn pass(body: Incoming) -> Forward {
        Forward { prefix: VecDeque::new(), inner: Some(body), tap: None }
    }

    /// Upstream's body of `exchange`, whose end is fed to `monitor`; with
    /// `sse`, each event-stream block too, as it goes by.
    pub(crate) fn tapped(body: Incoming, monitor: Monitor, exchange: String, sse: bool) -> Forward {
        let decoder = sse.then(|| Decoder::with_limits(&monitor.limits()));
        let tap = Tap { monitor, exchange, decoder, finished: false };
        Forward { prefix: VecDeque::new(), inner: Some(body), tap: Some(tap) }
    }
}

/// Reads a JSON body whole (up to the message bound), feeds the response
/// entry of `exchange` with it, and returns it to forward. Over the bound: a
/// `limit-exceeded` report on an entry without the body, which is forwarded
/// unchecked (its end fed when it comes).
pub(crate) async fn collect_json(
    mut body: Incoming,
    monitor: &Monitor,
    exchange: &str,
    status: u16,
    headers: &HeaderMap,
) -> Result<Forward, hyper::Error> {
    use http_body_util::BodyExt;
    let limit = monitor.limits().max_message_bytes;
    let mut frames = VecDeque::new();
    let mut size = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame?;
        size += frame.data_ref().map_or(0, Bytes::len);
        frames.push_back(frame);
        if size > limit {
            let why = format!("a response body over the bound of {limit} bytes");
            monitor.response(exchange, status, headers, None, false, vec![Error::with(RuleId::LimitExceeded, why)]);
            frames.iter().filter_map(Frame::data_ref).for_each(|data| monitor.content(exchange, data));
            let mut forward = Forward::tapped(body, monitor.clone(), exchange.to_string(), false);
            forward.prefix = frames;
            return Ok(forward);
        }
    }
    let mut all = BytesMut::with_capacity(size);
    for data in frames.iter().filter_map(Frame::data_ref) {
        all.extend_from_slice(data);
    }
    monitor.response(exchange, status, headers, Some(&all), true, Vec::new());
    Ok(Forward { prefix: frames, inner: None, tap: None })
}

/// No frame left: none read ahead, and upstream's body at its end.
fn at_end(prefix: &VecDeque<Frame<Bytes>>, inner: Option<&Incoming>) -> bool {
    prefix.is_empty() && inner.is_none_or(Body::is_end_stream)
}

impl Body for Forward {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = self.get_mut();
        let polled = match this.prefix.pop_front() {
            Some(frame) => Poll::Ready(Some(Ok(frame))),
            None => match this.inner.as_mut() {
                None => Poll::Ready(None),
                Some(inner) => {
                    let polled = Pin::new(inner).poll_frame(cx);
                    if let (Poll::Ready(Some(Ok(frame))), Some(tap)) = (&polled, this.tap.as_mut()) {
                        if let Some(data) = frame.data_ref() {
                            tap.feed(data);
                        }
                    }
                    if let Poll::Ready(None) = polled {
                        this.inner = None;
                    }
                    polled
                }
            },
        };
        // The end, fed before the last frame goes: hyper polls no further
        // once the body says it is at its end.
        if polled.is_ready() && at_end(&this.prefix, this.inner.as_ref()) {
            if let Some(tap) = this.tap.as_mut() {
                tap.finish();
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        at_end(&self.prefix, self.inner.as_ref())
    }

    fn size_hint(&self) -> SizeHint {
        let prefix: usize = self.prefix.iter().filter_map(Frame::data_ref).map(Bytes::len).sum();
        let prefix = u64::try_from(prefix).unwrap_or(u64::MAX);
        match &self.inner {
            None => SizeHint::with_exact(prefix),
            Some(inner) => {
                let hint = inner.size_hint();
                let mut out = SizeHint::new();
                out.set_lower(hint.lower().saturating_add(prefix));
                if let Some(upper) = hint.upper() {
                    out.set_upper(upper.saturating_add(prefix));
                }
                out
            }
        }
    }
}
