//! The Rust quickstart (docs/quickstart/rust.md) end to end on 127.0.0.1: the
//! example server on a free port, the example client calling `greet` against
//! it; the final result comes only after the server asked and the client
//! answered. The page quotes these very files (scripts/quickstart-docs).
#![cfg(feature = "std")]

#[allow(dead_code)]
#[path = "../examples/quickstart_server.rs"]
mod server;

#[allow(dead_code)]
#[path = "../examples/quickstart_client.rs"]
mod client;

use serde_json::{json, Value};
use std::net::TcpListener;

#[test]
fn the_client_gets_the_final_result_after_the_ask() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    std::thread::spawn(move || server::serve(listener));
    let mut asked = Vec::new();
    let response = client::call(&url, |question: &Value| {
        asked.push(question["params"]["message"].clone());
        json!({"action": "accept", "content": {"name": "Ada"}})
    })
    .unwrap();
    assert_eq!(asked, [json!("What is your name?")]);
    assert_eq!(response["result"]["content"][0]["text"], "Hello, Ada!");
    assert_eq!(response["result"]["resultType"], "complete");
}

#[test]
fn a_request_without_its_meta_is_refused() {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}});
    let (status, response) = server::handle(&request, &[]);
    assert_eq!((status, &response["error"]["data"]["rule"]), (400, &json!("request-meta-missing")));
}

/// What scripts/quickstart-docs checks for every page, here in Rust (the Rust suite needs no Python): each
/// block after `<!-- quickstart: PATH -->` is the whole text of PATH.
#[test]
fn the_page_quotes_the_files() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let page = std::fs::read_to_string(format!("{root}/docs/quickstart/rust.md")).unwrap();
    let mut quoted = Vec::new();
    let mut rest = page.as_str();
    while let Some(at) = rest.find("<!-- quickstart: ") {
        let (path, after) = rest[at + 17..].split_once(" -->\n").unwrap();
        let block = after.split_once('\n').unwrap().1; // past the opening fence
        let block = &block[..block.find("\n```\n").unwrap() + 1];
        assert_eq!(
            block,
            std::fs::read_to_string(format!("{root}/{path}")).unwrap(),
            "docs/quickstart/rust.md quotes {path}"
        );
        quoted.push(path);
        rest = after;
    }
    assert_eq!(quoted, ["core/examples/quickstart_server.rs", "core/examples/quickstart_client.rs"]);
}
