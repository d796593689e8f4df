//! Quickstart: a client calling the `greet` tool of `quickstart_server`, over HTTP
//! (the standard library's sockets; any HTTP client does: mrtr opens none).
//!
//! A `client::Session` writes the request (a fresh id, the `_meta` of the
//! capabilities declared once); a `client::Operation` carries it through every
//! round: it says what to send, you send it and hand back the response; when
//! the server asks, you answer, and it sends the retry (a new id, the answers,
//! the exact `requestState`, the MCP header fields) until the final response.
//!
//!     cargo run -p mrtr --features std --example quickstart_client -- http://127.0.0.1:8000/mcp

use mrtr::client::operation::{Config, Event};
use mrtr::client::{Operation, Session, SessionConfig};
use mrtr::http::{Mode, Request};
use mrtr::Millis;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn now() -> Millis {
    Millis(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |t| t.as_millis() as u64))
}

/// An HTTP response: its status, its header fields (lower-case names), its body.
type Response = (u16, Vec<(String, String)>, Vec<u8>);

/// Sends one HTTP request (`http://` only) and reads the whole response.
fn send(request: &Request) -> std::io::Result<Response> {
    let rest = request.url.strip_prefix("http://").expect("an http:// URL");
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut stream = TcpStream::connect(host)?;
    let body = request.body.as_deref().unwrap_or("");
    let mut head = format!(
        "{} {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\ncontent-length: {}\r\n",
        request.method,
        body.len()
    );
    for (name, value) in &request.headers {
        head += &format!("{name}: {value}\r\n");
    }
    stream.write_all(format!("{head}\r\n{body}").as_bytes())?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let split = response.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(response.len());
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).unwrap_or(0);
    let headers =
        lines.filter_map(|l| l.split_once(':')).map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_string())).collect();
    Ok((status, headers, response.get(split + 4..).unwrap_or_default().to_vec()))
}

/// Calls `greet` at `url`; `answer` gives the user's answer to each question. The final response.
pub fn call(url: &str, mut answer: impl FnMut(&Value) -> Value) -> Result<Value, String> {
    let capabilities = json!({"elicitation": {}});
    let mut session =
        Session::new(SessionConfig { capabilities, ..SessionConfig::default() }).map_err(|e| e.to_string())?;
    let request = session.call_tool("greet", Some(json!({}))).map_err(|e| e.to_string())?;
    let mut operation =
        Operation::new(Config::new(Mode::Streamable, url), request, now()).map_err(|e| e.to_string())?;
    loop {
        while let Some(out) = operation.poll_transmit() {
            match send(&out) {
                Ok((status, headers, body)) => {
                    operation.handle_head(out.exchange, status, &headers, now()).map_err(|e| e.to_string())?;
                    operation.handle_body(out.exchange, &body, now()).map_err(|e| e.to_string())?;
                }
                Err(e) => eprintln!("{e}"), // no response: the operation decides whether to send it again
            }
            operation.handle_end(out.exchange, now()).map_err(|e| e.to_string())?;
        }
        match operation.poll_event() {
            Some(Event::InputRequired { requests, .. }) => {
                for (key, question) in requests {
                    operation.answer(&key, answer(&question), now()).map_err(|e| e.to_string())?;
                }
            }
            Some(Event::Done(response)) => return Ok(response),
            Some(Event::Failed(e)) => return Err(e.to_string()),
            Some(_) => {} // a notification, or a rule the server broke (the operation goes on)
            None => {
                let at = operation.poll_timeout().ok_or("the operation stalled")?; // a wait before a resend
                std::thread::sleep(Duration::from_millis(at.since(now())));
                operation.handle_timeout(now());
            }
        }
    }
}

/// The user's answer to one question (an elicitation here), from the terminal.
fn ask_the_user(question: &Value) -> Value {
    print!("{} ", question["params"]["message"].as_str().unwrap_or("?"));
    std::io::stdout().flush().ok();
    let mut name = String::new();
    std::io::stdin().read_line(&mut name).ok();
    json!({"action": "accept", "content": {"name": name.trim()}})
}

#[allow(dead_code)] // the tests call `call`
fn main() -> Result<(), String> {
    let url = std::env::args().nth(1).unwrap_or_else(|| "http://127.0.0.1:8000/mcp".into());
    let response = call(&url, ask_the_user)?;
    match response["result"]["content"][0]["text"].as_str() {
        Some(text) => println!("{text}"),
        None => println!("{response}"),
    }
    Ok(())
}
