//! Review M2′: `mrtr proxy` and `mrtr bridge` ran out of descriptors before
//! their connection cap (1024, the usual soft `RLIMIT_NOFILE`) could answer
//! `503`: 80 half-open connections against a limit of 64 left a new client
//! without an answer until `--timeout` reaped them. Now the soft limit is
//! raised to the hard one, the default cap is derived from it, and one
//! address gets a quarter of the cap: the flood is answered `503` and
//! another client is served.
#![cfg(target_os = "linux")]

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::process::{Child, Command};
use tokio::time::timeout;

const MRTR: &str = env!("CARGO_BIN_EXE_mrtr");

/// The connections of the flood, from one address.
const FLOOD: usize = 80;

/// An upstream that answers every request 200 with a JSON-RPC result, and closes.
async fn upstream() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let _ = read_request(&mut stream).await;
                let body = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(format!("{head}{body}").as_bytes()).await;
                let _ = stream.shutdown().await;
            });
        }
    });
    addr
}

/// Reads a request's head and its `content-length` body.
async fn read_request(stream: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Ok(seen);
        }
        seen.extend_from_slice(&buf[..n]);
        if let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if seen.len() >= end + 4 + length {
                return Ok(seen);
            }
        }
    }
}

/// `mrtr ARGS…` under the descriptor limits `ulimit LIMIT` sets (each of
/// `limits`, in order), the address it says it listens on, and the lines it
/// said on stderr up to that one.
async fn start(limits: &[&str], args: &[&str]) -> (Child, SocketAddr, Vec<String>) {
    let ulimits: String = limits.iter().map(|l| format!("ulimit {l} && ")).collect();
    let script = format!("{ulimits}exec \"$0\" \"$@\"");
    let mut child = Command::new("sh")
        .args(["-c", &script, MRTR])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut said = Vec::new();
    let addr = timeout(Duration::from_secs(10), async {
        loop {
            let line = stderr.next_line().await.unwrap().expect("it says where it listens");
            let listening =
                line.split("listening on ").nth(1).map(|rest| rest.split([',', ' ']).next().unwrap().to_string());
            said.push(line);
            if let Some(addr) = listening {
                return addr.parse::<SocketAddr>().unwrap();
            }
        }
    })
    .await
    .unwrap();
    // The rest of stderr, drained (a full pipe would stall it).
    tokio::spawn(async move { while let Ok(Some(_)) = stderr.next_line().await {} });
    (child, addr, said)
}

/// `FLOOD` connections from 127.0.0.2, each with half a request head sent;
/// the last one's answer (the connections before it were accepted first).
async fn flood(addr: SocketAddr) -> (Vec<TcpStream>, String) {
    let mut held = Vec::new();
    for _ in 0..FLOOD {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind("127.0.0.2:0".parse().unwrap()).unwrap();
        let mut stream = socket.connect(addr).await.unwrap();
        let _ = stream.write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n").await;
        held.push(stream);
    }
    let last = held.last_mut().unwrap();
    let mut answer = Vec::new();
    let read = timeout(Duration::from_secs(5), last.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "connection {FLOOD} from one address: no answer in 5 s");
    (held, String::from_utf8_lossy(&answer).into_owned())
}

/// A whole request from 127.0.0.1 (another address than the flood's): its status line.
async fn request(addr: SocketAddr, method: &str) -> String {
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let head = format!(
            "{method} /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(format!("{head}{body}").as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await;
        String::from_utf8_lossy(&answer).lines().next().unwrap_or("").to_string()
    };
    timeout(Duration::from_secs(5), exchange).await.expect("another client's request: no answer in 5 s")
}

/// The proxy under 64 descriptors: 80 half-sent heads from one address get
/// their cap's worth of connections and then `503`; a client from another
/// address is answered by the upstream.
#[tokio::test]
async fn a_flood_from_one_address_leaves_the_proxy_serving_others() {
    let up = upstream().await;
    let upstream_url = format!("http://{up}/mcp");
    let (_proxy, addr, _) = start(&["-n 64"], &["proxy", "--listen", "127.0.0.1:0", "--upstream", &upstream_url]).await;
    let (_held, answer) = flood(addr).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("too many connections from your address"), "{answer}");
    assert_eq!(request(addr, "POST").await, "HTTP/1.1 200 OK");
}

/// The same against the bridge: the other client is answered (by the
/// bridge itself, whatever its answer to a ping outside a session), not
/// refused and not left waiting.
#[tokio::test]
async fn a_flood_from_one_address_leaves_the_bridge_serving_others() {
    let args = ["bridge", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9/mcp"];
    let (_bridge, addr, _) = start(&["-n 64"], &args).await;
    let (_held, answer) = flood(addr).await;
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    let status = request(addr, "POST").await;
    assert!(status.starts_with("HTTP/1.1 ") && !status.contains("503"), "{status}");
}

/// The soft limit is raised to the hard one at start, and an explicit cap
/// above what it allows is lowered, with a warning.
#[tokio::test]
async fn the_soft_descriptor_limit_is_raised_and_a_cap_above_it_lowered() {
    let up = upstream().await;
    let upstream_url = format!("http://{up}/mcp");
    let args = ["proxy", "--listen", "127.0.0.1:0", "--upstream", &upstream_url, "--max-connections", "5000"];
    let (child, _, said) = start(&["-Sn 64", "-Hn 512"], &args).await;
    let warning = said.iter().find(|l| l.contains("--max-connections 5000")).unwrap_or_else(|| panic!("{said:?}"));
    assert!(warning.contains("512 open descriptors allow: 240"), "{warning}");
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", child.id().unwrap())).unwrap();
    let open_files = limits.lines().find(|l| l.starts_with("Max open files")).unwrap();
    assert_eq!(open_files.split_whitespace().collect::<Vec<_>>()[3..5], ["512", "512"], "{open_files}");
}
