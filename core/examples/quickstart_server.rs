//! Quickstart: an MCP server with one tool that asks the user's name, over HTTP
//! (the standard library's sockets; any HTTP server does: mrtr opens none).
//!
//! The first `tools/call greet` is answered `input_required` (`server::respond`);
//! the client's retry carries the answer, which `server::resume` reads, and the
//! call completes. The server keeps nothing between the two requests.
//!
//!     cargo run -p mrtr --features std --example quickstart_server -- 8000

use mrtr::{server, Limits, Protocol};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

const PROTOCOL: &str = "2026-07-28";

/// What `greet` asks: one form elicitation, under the key `name`.
fn question() -> Value {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    json!({"name": {"method": "elicitation/create", "params": {"message": "What is your name?", "requestedSchema": schema}}})
}

/// One JSON-RPC request and its HTTP header fields in; the HTTP status and the response out.
pub fn handle(request: &Value, headers: &[(String, String)]) -> (u16, Value) {
    let (p, limits) = (Protocol::default(), Limits::default());
    let answer = (|| {
        server::check_request(request, Some(headers), &[PROTOCOL], p)?; // _meta, header fields, version
        match (request["method"].as_str(), request["params"]["name"].as_str()) {
            (Some("tools/call"), Some("greet")) => {
                let got = server::resume(request, &question(), p, &limits)?; // the answers this request carries
                if !got.missing.is_empty() {
                    return server::respond(request, Some(&question()), None, p, &limits);
                    // input_required
                }
                let answer = &got.responses["name"];
                let name = if answer["action"] == "accept" { answer["content"]["name"].as_str() } else { None };
                let text = format!("Hello, {}!", name.unwrap_or("stranger"));
                server::complete(request, &json!({"content": [{"type": "text", "text": text}]}), p)
            }
            (Some("tools/list"), _) => {
                let tools =
                    json!([{"name": "greet", "description": "Greets you by name", "inputSchema": {"type": "object"}}]);
                server::complete(request, &json!({"tools": tools}), p)
            }
            (Some("server/discover"), _) => {
                let info = json!({"name": "quickstart", "version": "1.0.0"}); // what `mrtr bridge` asks first
                server::discover(request, &json!({"capabilities": {"tools": {}}, "serverInfo": info}), p)
            }
            _ => Ok(
                json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no such method or tool here"}}),
            ),
        }
    })();
    match answer {
        Ok(response) if response.get("error").is_some() => (404, response),
        Ok(response) => (200, response),
        Err(refused) => {
            let (response, status) = server::error_response(&request["id"], &refused); // the refusal's response
            (status, response)
        }
    }
}

/// Reads one HTTP request (its header fields with lower-case names, and its body) and answers it.
fn answer_one(stream: TcpStream) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let (mut line, mut headers) = (String::new(), Vec::new());
    reader.read_line(&mut line)?; // POST /mcp HTTP/1.1
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        match line.trim_end().split_once(':') {
            Some((name, value)) => headers.push((name.to_ascii_lowercase(), value.trim().to_string())),
            None => break,
        }
    }
    let length = headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let (status, response) = match serde_json::from_slice::<Value>(&body) {
        Ok(request) if request.get("id").is_some() && request.get("method").is_some() => handle(&request, &headers),
        Ok(_) => (202, Value::Null), // a notification, or a response: nothing to answer
        Err(_) => (400, json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}})),
    };
    let body = if response.is_null() { String::new() } else { response.to_string() };
    let head = format!(
        "HTTP/1.1 {status} MCP\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = stream;
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())
}

/// Answers every connection to `listener`, one at a time.
pub fn serve(listener: TcpListener) {
    for stream in listener.incoming().flatten() {
        if let Err(e) = answer_one(stream) {
            eprintln!("{e}");
        }
    }
}

#[allow(dead_code)] // the tests call `serve`
fn main() -> std::io::Result<()> {
    let port = std::env::args().nth(1).unwrap_or_else(|| "8000".into());
    let listener = TcpListener::bind(format!("127.0.0.1:{port}"))?;
    println!("listening on http://{}/mcp", listener.local_addr()?);
    serve(listener);
    Ok(())
}
