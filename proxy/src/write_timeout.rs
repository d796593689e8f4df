//! A client connection whose writes may wait at most the gateway's timeout
//! (`mrtr proxy` and `mrtr bridge` wrap every accepted socket in one).
//!
//! Every response body the proxy and the bridge stream is read from
//! upstream only as hyper writes it to the client (backpressure, end to
//! end), so a client that reads nothing holds little memory, but it would
//! hold its connection, and the upstream's exchange behind it, for ever:
//! hyper has no write timeout. [`WriteTimeout`] gives the client's socket
//! one: a write that cannot go on for `timeout` (the client took nothing:
//! its receive window stayed shut) fails with `TimedOut`. hyper then closes
//! the connection and drops the response body, which ends what fed it: the
//! proxy's upstream response, the bridge's relayed exchange (its upstream
//! connection closed), a bridged call's stream (detached: the call goes on
//! for the timeout, resumable, then ends), a standalone stream's upstream.
//!
//! A slow client is not dropped: any progress starts the time again. An
//! idle stream is not either: the time runs only while a write waits.

use std::future::Future;
use std::io::{self, IoSlice};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// A connection whose writes fail once they waited `timeout` without progress.
pub struct WriteTimeout<S> {
    inner: S,
    timeout: Duration,
    /// Running since the first write of a stall was refused (`Pending`);
    /// none while writes go through.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<S> WriteTimeout<S> {
    /// `inner`, whose writes may wait at most `timeout` without progress.
    pub fn new(inner: S, timeout: Duration) -> WriteTimeout<S> {
        WriteTimeout { inner, timeout, stalled: None }
    }

    /// What a write (or flush) polled: passed on, except that a stall past
    /// the timeout becomes `TimedOut`. The timer is polled with the same
    /// context, so hyper is woken when it fires even if the socket stays shut.
    fn watch<T>(&mut self, polled: Poll<io::Result<T>>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let timeout = self.timeout;
        let stalled = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => {
                let why = format!("the client took nothing for {timeout:?}");
                Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, why)))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteTimeout<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.watch(polled, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.watch(polled, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let polled = Pin::new(&mut self.inner).poll_flush(cx);
        self.watch(polled, cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    /// A peer that reads nothing: the writes fill the pipe, then the one
    /// that waits fails with `TimedOut` after the timeout, not before.
    #[tokio::test(start_paused = true)]
    async fn a_write_that_waits_past_the_timeout_fails() {
        let (near, _far) = tokio::io::duplex(1024);
        let mut conn = WriteTimeout::new(near, Duration::from_secs(5));
        conn.write_all(&[0; 1024]).await.unwrap();
        let started = tokio::time::Instant::now();
        let e = conn.write_all(&[0; 1]).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), Duration::from_secs(5));
    }

    /// A slow reader is not dropped: each bit of progress starts the time again.
    #[tokio::test(start_paused = true)]
    async fn a_slow_reader_is_not_dropped() {
        use tokio::io::AsyncReadExt;
        let (near, mut far) = tokio::io::duplex(16);
        let mut conn = WriteTimeout::new(near, Duration::from_secs(5));
        let reader = tokio::spawn(async move {
            let mut buf = [0; 16];
            for _ in 0..8 {
                tokio::time::sleep(Duration::from_secs(4)).await;
                far.read_exact(&mut buf).await.unwrap();
            }
        });
        conn.write_all(&[0; 128]).await.unwrap();
        reader.await.unwrap();
    }
}
