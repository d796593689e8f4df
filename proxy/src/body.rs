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
///
/// A frame of upstream's body after the first is held back for a few turns
/// of the scheduler (`HELD_TURNS`): upstream's connection runs in its own task and hands its
/// body over one frame at a time, so the next frame, or the body's end, is
/// often already read from the socket and comes meanwhile. Then the two
/// go to the client in one write (an SSE answer: one write instead of
/// three). When nothing comes, the held frame goes at once.
pub struct Forward {
    prefix: VecDeque<Frame<Bytes>>,
    inner: Option<Incoming>,
    tap: Option<Tap>,
    /// A frame held back for a few turns.
    held: Option<Frame<Bytes>>,
    /// Whether a frame went out already (the first goes with the head, at once).
    sent: bool,
    /// The turns the held frame has waited.
    turns: u8,
    /// An error of upstream's body met while reading ahead, for the client.
    failed: Option<hyper::Error>,
}

/// The bytes of upstream's body read ahead at most before the head goes.
const READ_AHEAD_BYTES: usize = 64 << 10;

/// The turns of the scheduler a frame is held at most (upstream's
/// connection task may be running on another worker meanwhile).
const HELD_TURNS: u8 = 3;

impl Forward {
    /// A body of these bytes.
    pub(crate) fn full(bytes: Bytes) -> Forward {
        Forward {
            prefix: VecDeque::from([Frame::data(bytes)]),
            inner: None,
            tap: None,
            held: None,
            sent: false,
            turns: 0,
            failed: None,
        }
    }

    /// The whole body, when it was read to its end ([`collect_json`] within
    /// its bound): what a repair reads.
    pub(crate) fn collected(&self) -> Option<Bytes> {
        if self.inner.is_some() {
            return None;
        }
        let mut all = BytesMut::new();
        self.prefix.iter().filter_map(Frame::data_ref).for_each(|data| all.extend_from_slice(data));
        Some(all.freeze())
    }

    /// Upstream's body, unchecked.
    pub(crate) fn pass(body: Incoming) -> Forward {
        Forward {
            prefix: VecDeque::new(),
            inner: Some(body),
            tap: None,
            held: None,
            sent: false,
            turns: 0,
            failed: None,
        }
    }

    /// Upstream's body of `exchange`, whose end is fed to `monitor`; with
    /// `sse`, each event-stream block too, as it goes by.
    pub(crate) fn tapped(body: Incoming, monitor: Monitor, exchange: String, sse: bool) -> Forward {
        let decoder = sse.then(|| Decoder::with_limits(&monitor.limits()));
        let tap = Tap { monitor, exchange, decoder, finished: false };
        Forward {
            prefix: VecDeque::new(),
            inner: Some(body),
            tap: Some(tap),
            held: None,
            sent: false,
            turns: 0,
            failed: None,
        }
    }
}

impl Forward {
    /// Before the head goes: takes what upstream's body has already sent
    /// (waiting at most [`HELD_TURNS`] turns of the scheduler for each next
    /// frame, and at most [`READ_AHEAD_BYTES`]), so that the head and those
    /// frames, and the end when it came, go to the client in one write. Each
    /// frame is tapped as it is taken.
    pub(crate) async fn read_ahead(&mut self) {
        let (mut turns, mut bytes) = (0, 0);
        std::future::poll_fn(|cx| loop {
            if bytes >= READ_AHEAD_BYTES {
                return Poll::Ready(());
            }
            let Some(inner) = self.inner.as_mut() else { return Poll::Ready(()) };
            match Pin::new(inner).poll_frame(cx) {
                Poll::Ready(Some(Ok(frame))) => {
                    if let (Some(tap), Some(data)) = (self.tap.as_mut(), frame.data_ref()) {
                        tap.feed(data);
                    }
                    bytes += frame.data_ref().map_or(0, Bytes::len);
                    self.prefix.push_back(frame);
                    turns = 0;
                }
                Poll::Ready(None) => {
                    self.inner = None;
                    // Nothing left to poll for: the end now (with no frame, hyper would not ask).
                    if self.prefix.is_empty() {
                        if let Some(tap) = self.tap.as_mut() {
                            tap.finish();
                        }
                    }
                    return Poll::Ready(());
                }
                Poll::Ready(Some(Err(e))) => {
                    self.failed = Some(e);
                    self.inner = None;
                    return Poll::Ready(());
                }
                Poll::Pending if turns < HELD_TURNS => {
                    turns += 1;
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Poll::Pending => return Poll::Ready(()),
            }
        })
        .await;
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
    Ok(Forward { prefix: frames, inner: None, tap: None, held: None, sent: false, turns: 0, failed: None })
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
            None if this.failed.is_some() => Poll::Ready(this.failed.take().map(Err)),
            None => match this.inner.as_mut() {
                None => Poll::Ready(this.held.take().map(Ok)),
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
                    match (this.held.take(), polled) {
                        // Held a turn: it goes now, what came after it next.
                        (Some(held), Poll::Ready(Some(Ok(next)))) => {
                            this.prefix.push_back(next);
                            Poll::Ready(Some(Ok(held)))
                        }
                        (Some(held), Poll::Pending) if this.turns < HELD_TURNS => {
                            this.turns += 1;
                            this.held = Some(held);
                            cx.waker().wake_by_ref();
                            return Poll::Pending;
                        }
                        (Some(held), Poll::Ready(None) | Poll::Pending) => Poll::Ready(Some(Ok(held))),
                        (Some(held), Poll::Ready(Some(Err(e)))) => {
                            this.held = Some(held);
                            Poll::Ready(Some(Err(e)))
                        }
                        // A frame after the first: held for one turn.
                        (None, Poll::Ready(Some(Ok(frame)))) if this.sent && this.inner.is_some() => {
                            this.held = Some(frame);
                            this.turns = 1;
                            cx.waker().wake_by_ref();
                            return Poll::Pending;
                        }
                        (None, polled) => polled,
                    }
                }
            },
        };
        if let Poll::Ready(Some(Ok(_))) = polled {
            this.sent = true;
        }
        // The end, fed before the last frame goes: hyper polls no further
        // once the body says it is at its end.
        // Not after an error of upstream's body: it did not finish.
        if matches!(polled, Poll::Ready(Some(Ok(_)) | None)) && at_end(&this.prefix, this.inner.as_ref()) {
            if let Some(tap) = this.tap.as_mut() {
                tap.finish();
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.held.is_none() && self.failed.is_none() && at_end(&self.prefix, self.inner.as_ref())
    }

    fn size_hint(&self) -> SizeHint {
        let prefix: usize =
            self.prefix.iter().chain(self.held.as_ref()).filter_map(Frame::data_ref).map(Bytes::len).sum();
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
