//! Every socket of the proxy sends at once: TCP_NODELAY read back from the
//! proxy's own sockets (the one it accepted from the client, the one it
//! opened to upstream) while a keep-alive exchange holds them open. And what
//! upstream sends at once goes to the client in one write.

use mrtr_proxy::{Config, Proxy};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;

/// The inode of each TCP socket of this machine by (local port, remote
/// port), from /proc/net/tcp (IPv4, as the test uses 127.0.0.1).
fn tcp_inodes() -> Vec<(u16, u16, u64)> {
    let table = std::fs::read_to_string("/proc/net/tcp").expect("/proc/net/tcp");
    let port = |address: &str| u16::from_str_radix(address.rsplit(':').next().unwrap(), 16).unwrap();
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            Some((port(fields.get(1)?), port(fields.get(2)?), fields.get(9)?.parse().ok()?))
        })
        .collect()
}

/// The file descriptor of this process that is the socket with `inode`.
fn fd_of(inode: u64) -> Option<i32> {
    let want = format!("socket:[{inode}]");
    std::fs::read_dir("/proc/self/fd").ok()?.flatten().find_map(|entry| {
        let target = std::fs::read_link(entry.path()).ok()?;
        (target.to_str()? == want).then(|| entry.file_name().to_str()?.parse().ok())?
    })
}

/// TCP_NODELAY of the socket `fd` of this process, read with getsockopt(2).
#[allow(unsafe_code)]
fn nodelay(fd: i32) -> bool {
    let mut value: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `fd` is an open socket of this process (found in /proc/self/fd
    // a moment ago and still held open by the test), and `value`/`len` are a
    // c_int and its size, as getsockopt(2) takes for TCP_NODELAY.
    let rc =
        unsafe { libc::getsockopt(fd, libc::IPPROTO_TCP, libc::TCP_NODELAY, (&raw mut value).cast(), &raw mut len) };
    assert_eq!(rc, 0, "getsockopt: {}", std::io::Error::last_os_error());
    value != 0
}

/// The proxy's socket between local port `local` and remote port `remote`.
fn nodelay_between(local: u16, remote: u16) -> bool {
    let inode = tcp_inodes().into_iter().find(|&(l, r, _)| l == local && r == remote).map(|(_, _, i)| i);
    let fd = inode.and_then(fd_of).unwrap_or_else(|| panic!("no socket from port {local} to {remote}"));
    nodelay(fd)
}

#[tokio::test]
async fn the_accepted_and_upstream_sockets_have_tcp_nodelay() {
    // Upstream: answers one request and keeps its connection open.
    let upstream = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_addr = upstream.local_addr().unwrap();
    let (held_tx, held_rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (mut socket, _) = upstream.accept().await.unwrap();
        let mut buf = vec![0u8; 4096];
        let mut got = Vec::new();
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = socket.read(&mut buf).await.unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        let head =
            format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n", BODY.len());
        socket.write_all(format!("{head}{BODY}").as_bytes()).await.unwrap();
        let _ = held_tx.send(socket.peer_addr().unwrap().port());
        // Held open (keep-alive) until the test ends.
        let _ = socket.read(&mut buf).await;
    });
    let url = format!("http://{upstream_addr}/mcp").parse().unwrap();
    let proxy = Proxy::bind(Config::new("127.0.0.1:0".parse::<SocketAddr>().unwrap(), url)).await.unwrap();
    let proxy_port = proxy.local_addr().unwrap().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(proxy.serve(async move {
        let _ = stopped.await;
    }));

    let mut client = TcpStream::connect(("127.0.0.1", proxy_port)).await.unwrap();
    assert!(!client.nodelay().unwrap(), "the default, for the test to mean something");
    let client_port = client.local_addr().unwrap().port();
    let request = "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: application/json\r\n\r\n";
    client.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while !answer.ends_with(BODY.as_bytes()) {
        let n = timeout(Duration::from_secs(10), client.read(&mut buf)).await.unwrap().unwrap();
        assert!(n > 0, "the proxy closed the connection");
        answer.extend_from_slice(&buf[..n]);
    }
    let proxy_to_upstream = held_rx.await.unwrap();

    assert!(nodelay_between(proxy_port, client_port), "the socket the proxy accepted");
    assert!(nodelay_between(proxy_to_upstream, upstream_addr.port()), "the proxy's socket to upstream");
    // And the two sockets the test made itself are not (the default): the
    // option read back is the proxy's doing.
    assert!(!nodelay_between(client_port, proxy_port));
    assert!(!nodelay_between(upstream_addr.port(), proxy_to_upstream));

    drop(client);
    let _ = stop.send(());
    let _ = timeout(Duration::from_secs(10), served).await;
}

/// An SSE answer that upstream sends at once (its head, two events and the
/// end, in one write) reaches the client in one write too: the proxy takes
/// what upstream already sent before the head goes, instead of writing the
/// head with the first frame, the second frame and the end apart (three
/// sends, each a wake-up of the client). The client reads it all in its
/// first read; and the events were checked on the way.
#[tokio::test]
async fn an_sse_answer_sent_at_once_goes_to_the_client_in_one_write() {
    let events = "id: 1.0\ndata:\n\nevent: message\nid: 1.1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n";
    let upstream = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let upstream_addr = upstream.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut socket, _) = upstream.accept().await.unwrap();
        let mut buf = vec![0u8; 4096];
        let mut got = Vec::new();
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = socket.read(&mut buf).await.unwrap();
            got.extend_from_slice(&buf[..n]);
        }
        let (first, second) = events.split_at(events.find("event:").unwrap());
        let answer = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n{:x}\r\n{first}\r\n{:x}\r\n{second}\r\n0\r\n\r\n",
            first.len(),
            second.len()
        );
        socket.write_all(answer.as_bytes()).await.unwrap();
        let _ = socket.read(&mut buf).await;
    });
    let url = format!("http://{upstream_addr}/mcp").parse().unwrap();
    let proxy = Proxy::bind(Config::new("127.0.0.1:0".parse::<SocketAddr>().unwrap(), url)).await.unwrap();
    let proxy_port = proxy.local_addr().unwrap().port();
    let monitor = proxy.monitor();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(proxy.serve(async move {
        let _ = stopped.await;
    }));

    // A client on its own thread, blocked in read(2): it wakes at the first
    // bytes that arrive, so what one read returns is what one send carried.
    let client = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let mut client = std::net::TcpStream::connect(("127.0.0.1", proxy_port)).unwrap();
        client.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let request = "GET /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\n\r\n";
        client.write_all(request.as_bytes()).unwrap();
        let mut buf = vec![0u8; 65536];
        let n = client.read(&mut buf).unwrap();
        (client, String::from_utf8_lossy(&buf[..n]).into_owned())
    });
    let (client, first_read) = tokio::task::spawn_blocking(move || client.join().unwrap()).await.unwrap();
    assert!(first_read.starts_with("HTTP/1.1 200 OK"), "{first_read}");
    assert!(first_read.ends_with("\r\n0\r\n\r\n"), "head, events and end in the first read: {first_read:?}");
    let body: String = first_read.split("\r\n\r\n").skip(1).collect::<Vec<_>>().join("\r\n\r\n");
    assert!(body.contains("id: 1.0\ndata:\n\n") && body.contains("\"level\":\"info\""), "{body:?}");
    assert_eq!(monitor.summary().messages, 1, "the event's message was checked");

    drop(client);
    let _ = stop.send(());
    let _ = timeout(Duration::from_secs(10), served).await;
}
