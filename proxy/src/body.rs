//! The response body the proxy sends: upstream's frames, unchanged, as they
//! arrive, with an SSE tap that feeds each event to the checker on the way.

use crate::monitor::Monitor;
use bytes::{Bytes, BytesMut};
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use mrtr::check::Side;
use mrtr::sse::Decoder;
use mrtr::{Error, RuleId};
use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

/// Reads SSE events out of the bytes going by.
struct Tap {
    decoder: Decoder,
    monitor: Monitor,
    stream: Option<String>,
    finished: bool,
}

impl Tap {
    fn feed(&mut self, bytes: &[u8]) {
        self.decoder.feed(bytes);
        self.drain();
    }

    fn finish(&mut self) {
        if !self.finished {
            self.finished = true;
            self.decoder.finish();
            self.drain();
        }
    }

    fn drain(&mut self) {
        while let Some(event) = self.decoder.poll_event() {
            match event {
                Ok(event) => match event.data {
                    Some(data) if !data.trim().is_empty() => {
                        self.monitor.feed_bytes(Side::Server, data.as_bytes(), self.stream.as_deref());
                    }
                    _ => {}
                },
                Err(e) => self.monitor.bad_bytes(&e),
            }
        }
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

    /// Upstream's event stream, each event fed to `monitor` as it goes by.
    pub(crate) fn sse(body: Incoming, monitor: Monitor, stream: Option<String>) -> Forward {
        let tap = Tap { decoder: Decoder::with_limits(&monitor.limits()), monitor, stream, finished: false };
        Forward { prefix: VecDeque::new(), inner: Some(body), tap: Some(tap) }
    }
}

/// Reads a JSON body whole (up to the message bound), feeds it, and returns
/// it to forward. Over the bound: a `limit-exceeded` report, and the body is
/// forwarded unchecked.
pub(crate) async fn collect_json(
    mut body: Incoming,
    monitor: &Monitor,
    stream: Option<&str>,
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
            monitor.bad_bytes(&Error::with(RuleId::LimitExceeded, why));
            return Ok(Forward { prefix: frames, inner: Some(body), tap: None });
        }
    }
    let mut all = BytesMut::with_capacity(size);
    for data in frames.iter().filter_map(Frame::data_ref) {
        all.extend_from_slice(data);
    }
    if !all.is_empty() {
        monitor.feed_bytes(Side::Server, &all, stream);
    }
    Ok(Forward { prefix: frames, inner: None, tap: None })
}

impl Body for Forward {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let this = self.get_mut();
        if let Some(frame) = this.prefix.pop_front() {
            return Poll::Ready(Some(Ok(frame)));
        }
        let Some(inner) = this.inner.as_mut() else { return Poll::Ready(None) };
        match Pin::new(inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let (Some(tap), Some(data)) = (this.tap.as_mut(), frame.data_ref()) {
                    tap.feed(data);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(None) => {
                this.inner = None;
                if let Some(tap) = this.tap.as_mut() {
                    tap.finish();
                }
                Poll::Ready(None)
            }
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.prefix.is_empty() && self.inner.as_ref().is_none_or(Body::is_end_stream)
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
