//! The proxy for a stdio server: the MCP client starts `mrtr proxy -- COMMAND
//! ARGS…` as if it were the server; the proxy starts the server, relays the
//! client's lines to the server's stdin and the server's lines to its own
//! stdout, bytes unchanged, and checks each newline-delimited JSON-RPC
//! message as it goes by, one entry each ([`Monitor::message`]). The server's
//! stderr is the proxy's; its exit status is the proxy's result. Reports go
//! to stderr: stdout is the conversation.
//!
//! A line is held only up to the message bound: past it the rest of the line
//! goes on unchecked (reported `limit-exceeded`), so a hostile line costs no
//! more memory than the bound. A line is checked before its newline is
//! relayed, so that the peer's answer is never checked before the message it
//! answers.

use crate::monitor::Monitor;
use mrtr::check::Side;
use mrtr::{Error, RuleId};
use std::ffi::OsString;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};

/// The server program and how to end it.
#[derive(Clone, Debug)]
pub struct StdioServer {
    /// The program.
    pub command: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// After a shutdown signal (its stdin closed and SIGTERM sent), how long
    /// the server may take to exit before it is killed; and once it has
    /// exited, how long what it wrote may take to reach its stdout's end (a
    /// process it left behind may hold it open).
    pub grace: Duration,
}

/// Starts the server and relays between it and `client_in` / `client_out`
/// (the proxy's stdin and stdout) until the server exits (or `shutdown`
/// completes: its stdin is closed and it is sent SIGTERM, then it is given
/// [`StdioServer::grace`] before it is killed). Returns the server's exit
/// status once its output has reached `client_out`, without waiting for
/// `client_in` to end: a caller that reads its own stdin on a blocking
/// thread (tokio's `stdin`) must not wait for that thread either (exit, or
/// shut the runtime down in the background), or a client that keeps its end
/// open keeps the proxy alive after the server is gone.
pub async fn serve_stdio<R, W>(
    server: &StdioServer,
    monitor: &Monitor,
    client_in: R,
    client_out: W,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<ExitStatus>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let mut child = Command::new(&server.command)
        .args(&server.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()?;
    let (Some(server_in), Some(server_out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(std::io::Error::other("the server's stdin and stdout are not piped"));
    };
    // Dropping `server_in` when the client's input ends closes the server's
    // stdin: the end of the conversation.
    let to_server = tokio::spawn(relay_checked(Side::Client, client_in, server_in, monitor.clone()));
    let from_server = tokio::spawn(relay_checked(Side::Server, server_out, client_out, monitor.clone()));
    tokio::pin!(shutdown);
    let mut from_server = from_server;
    let status = tokio::select! {
        status = child.wait() => status?,
        () = &mut shutdown => {
            to_server.abort();
            end(&mut child, server.grace).await?
        }
    };
    // The server's last lines, up to its stdout's end, reach the client; a
    // process it left behind holding its stdout open keeps the proxy `grace`
    // at most.
    if tokio::time::timeout(server.grace, &mut from_server).await.is_err() {
        from_server.abort();
    }
    // The client's side is not waited for: it ends when the client closes
    // the proxy's stdin, which a client waiting for the server's exit never
    // does (the caller exits without waiting for that read: `mrtr proxy`
    // shuts its runtime down in the background).
    to_server.abort();
    Ok(status)
}

/// A shutdown: the server's stdin is closed (the relay task was aborted) and
/// it is sent SIGTERM, as a supervisor ends a service; it has `grace` to
/// exit before it is killed.
async fn end(child: &mut Child, grace: Duration) -> std::io::Result<ExitStatus> {
    drop(child.stdin.take());
    terminate(child);
    match tokio::time::timeout(grace, child.wait()).await {
        Ok(status) => status,
        Err(_) => {
            child.start_kill()?;
            child.wait().await
        }
    }
}

/// Sends SIGTERM to `child`, if it has not been reaped.
#[cfg(unix)]
#[allow(unsafe_code, reason = "kill(2) has no safe wrapper in std or tokio; one call, checked below")]
fn terminate(child: &Child) {
    let Some(pid) = child.id().and_then(|id| libc::pid_t::try_from(id).ok()) else { return };
    // SAFETY: kill(2) takes plain integers and touches no memory of ours;
    // `pid` is our own child's, not yet reaped (`Child::id` is `None` once
    // it is), so it cannot name another process.
    let _ = unsafe { libc::kill(pid, libc::SIGTERM) };
}

/// Elsewhere, closing its stdin is the only polite word.
#[cfg(not(unix))]
fn terminate(_child: &Child) {}

/// Relays the lines `from` one side to the other, each checked as that
/// side's message; an I/O error ends it, said on stderr.
async fn relay_checked<R, W>(from: Side, reader: R, writer: W, monitor: Monitor)
where
    R: tokio::io::AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let limit = monitor.limits().max_message_bytes;
    let who = if from == Side::Client { "client" } else { "server" };
    let outcome = relay(BufReader::new(reader), writer, limit, |seen| match seen {
        Seen::Line(line) => monitor.message(from, line),
        Seen::Over(size) => monitor.bad_bytes_from(
            from,
            &Error::with(
                RuleId::LimitExceeded,
                format!("a line from the {who} of {size} bytes, over the bound of {limit}"),
            ),
        ),
    })
    .await;
    if let Err(e) = outcome {
        eprintln!("mrtr-proxy: relaying the {who}'s lines: {e}");
    }
}

/// A line seen by [`relay`].
#[derive(Debug, PartialEq)]
enum Seen<'a> {
    /// A line, its newline and a `\r` before it left off.
    Line(&'a [u8]),
    /// A line longer than the bound: its size; it was not held.
    Over(usize),
}

/// Copies `reader` to `writer` unchanged, handing each non-blank line to
/// `check` before its newline is written. A line longer than `limit` is
/// copied on but neither held nor checked: `check` sees its size.
async fn relay<R, W>(mut reader: R, mut writer: W, limit: usize, mut check: impl FnMut(Seen<'_>)) -> std::io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut line = Vec::new();
    let mut size = 0usize;
    loop {
        let chunk = reader.fill_buf().await?;
        if chunk.is_empty() {
            // The end: a last line without its newline is a line too.
            finish_line(&line, size, limit, &mut check);
            return writer.flush().await;
        }
        let (part, newline) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (&chunk[..=at], true),
            None => (chunk, false),
        };
        let body = if newline { &part[..part.len() - 1] } else { part };
        size += body.len();
        if size <= limit {
            line.extend_from_slice(body);
        } else {
            line = Vec::new();
        }
        if newline {
            finish_line(&line, size, limit, &mut check);
            line.clear();
            size = 0;
        }
        let written = writer.write_all(part).await;
        let len = part.len();
        reader.consume(len);
        written?;
        if newline {
            writer.flush().await?;
        }
    }
}

fn finish_line(line: &[u8], size: usize, limit: usize, check: &mut impl FnMut(Seen<'_>)) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if size > limit {
        check(Seen::Over(size));
    } else if !line.iter().all(u8::is_ascii_whitespace) {
        check(Seen::Line(line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `relay` writes and what it hands to the check (a line's bytes,
    /// or `over:SIZE`), reading `input` in chunks of `chunk` bytes.
    async fn lines(input: &[u8], limit: usize, chunk: usize) -> (Vec<u8>, Vec<String>) {
        let reader = tokio::io::BufReader::with_capacity(chunk, input);
        let mut out = Vec::new();
        let mut seen = Vec::new();
        let each = |s: Seen<'_>| {
            seen.push(match s {
                Seen::Line(l) => String::from_utf8_lossy(l).into_owned(),
                Seen::Over(n) => format!("over:{n}"),
            })
        };
        relay(reader, &mut out, limit, each).await.unwrap();
        (out, seen)
    }

    /// Bytes go on unchanged; each line is checked once, without its
    /// newline or `\r`; blank lines are none; a last line without newline counts.
    #[tokio::test]
    async fn relays_unchanged_and_checks_each_line() {
        let input = b"{\"a\":1}\r\n\n{\"b\":2}\n{\"c\":3}";
        for chunk in [1, 3, 64] {
            let (out, seen) = lines(input, 100, chunk).await;
            assert_eq!(out, input);
            assert_eq!(seen, [r#"{"a":1}"#, r#"{"b":2}"#, r#"{"c":3}"#], "chunks of {chunk}");
        }
    }

    /// A line over the bound is relayed whole but neither held nor checked;
    /// the lines around it are.
    #[tokio::test]
    async fn a_line_over_the_bound_goes_on_unchecked() {
        let long = vec![b'x'; 1000];
        let input = [b"{}\n".as_slice(), &long, b"\n[1]\n"].concat();
        // Small chunks, so the long line spans many.
        let (out, seen) = lines(&input, 64, 16).await;
        assert_eq!(out, input);
        assert_eq!(seen, ["{}", "over:1000", "[1]"]);
    }
}
