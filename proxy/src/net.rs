//! The socket habits the proxy and the bridge share: every socket sends at
//! once, a connection past the cap gets a clear refusal, and what belongs
//! to one connection is not forwarded.

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// `stream`, sending at once: an SSE block must not wait for the peer's
/// delayed ACK (Nagle's algorithm held each chunked response ~40 ms). A
/// failure is said on stderr under `who`'s name.
pub fn no_delay(stream: TcpStream, who: &str) -> TcpStream {
    if let Err(e) = stream.set_nodelay(true) {
        eprintln!("{who}: TCP_NODELAY: {e}");
    }
    stream
}

/// A connection past the connection cap: a clear 503 from `who`, then closed.
pub async fn refuse_busy(mut stream: TcpStream, who: &str) {
    let text = format!("{who}: too many connections\n");
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        text.len()
    );
    let _ = stream.write_all(format!("{head}{text}").as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Whether the header field `name` (lower case) belongs to one connection,
/// not to the message, and so is not forwarded (RFC 9110 7.6.1).
pub fn hop_by_hop(name: &str) -> bool {
    matches!(name, "connection" | "keep-alive" | "transfer-encoding" | "te" | "trailer" | "upgrade")
        || name.starts_with("proxy-")
}
