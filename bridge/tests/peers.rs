//! Programs nobody here wrote, through the bridge: the official SDKs'
//! clients in `2025-11-25` mode (Python `mcp`, TypeScript
//! `@modelcontextprotocol/client`) running the peers' scenarios
//! (`peers/py_client.py`, `peers/ts_client.mjs`) against MRTR servers in
//! `2026-07-28` mode (mrtr's own `peers/mrtr_server.py`, the TypeScript SDK's
//! `peers/ts_server.mjs`). Every scenario must complete, and both sides'
//! checkers (live, and the records again offline) must find nothing.

mod common;

use common::{bridge, mrtr_server, python, recheck, root, upstream, violations, Upstream};
use mrtr::Protocol;
use std::path::PathBuf;
use std::time::Duration;
use tokio::process::Command;

/// The scenarios a `2025-11-25` client runs after the first ones
/// (`no_capability` and `form_only` are 2026-07-28's).
const SCENARIOS: &str = "reserve,sign_in";

/// Multi-round operations upstream: get_weather, book_trip, summarize,
/// list_roots, two get_weather at once, reserve (a state-only round),
/// sign_in (a URL-mode elicitation).
const OPERATIONS: u64 = 8;

/// Runs the peers' scenarios with `client` (its command line) against `url`
/// in `protocol`, within 90 s.
async fn run_client(client: &[PathBuf], url: &str, protocol: &str) -> std::process::Output {
    let run = Command::new(&client[0])
        .args(&client[1..])
        .arg(url)
        .arg(protocol)
        .env("PEER_SCENARIOS", SCENARIOS)
        .current_dir(root())
        .kill_on_drop(true)
        .output();
    tokio::time::timeout(Duration::from_secs(90), run).await.expect("the client hung").unwrap()
}

/// Runs `client URL 2025-11-25` through a bridge to `server`, and checks the
/// client's success, both sides' reports and records, and the rounds upstream.
async fn through_the_bridge(server: Upstream, client: &[PathBuf]) {
    let mut bridge = bridge(&server.url, |_| {}).await;
    let done = run_client(client, &bridge.url(), "2025-11-25").await;
    bridge.stop().await;
    let said = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{}: {said}", client[client.len() - 1].display());
    assert_eq!(violations(&bridge.client), Vec::<String>::new());
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
    assert_eq!(bridge.upstream.summary().operations, OPERATIONS, "{:?}", bridge.upstream.monitor().reports());
    assert_eq!(bridge.client.summary().operations, 0, "no input_required reaches the client");
    assert_eq!(recheck(&bridge.records.0, Protocol::V2025_11_25), Vec::<String>::new());
    assert_eq!(recheck(&bridge.records.1, Protocol::V2026_07_28), Vec::<String>::new());
    assert_eq!(bridge.gauges.waiting(), 0);
}

fn py_client() -> Vec<PathBuf> {
    vec![python(), root().join("peers/py_client.py")]
}

fn ts_client() -> Vec<PathBuf> {
    vec!["node".into(), root().join("peers/ts_client.mjs")]
}

/// The key pairing: the Python SDK client (2025-11-25) to mrtr's MRTR server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_to_the_mrtr_server() {
    through_the_bridge(mrtr_server().await, &py_client()).await;
}

/// The Python SDK client (2025-11-25) to the TypeScript SDK's MRTR server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_to_the_typescript_sdk_server() {
    let server = upstream(std::path::Path::new("node"), &[root().join("peers/ts_server.mjs").to_str().unwrap()]).await;
    through_the_bridge(server, &py_client()).await;
}

/// The TypeScript SDK client (2025-11-25) to mrtr's MRTR server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_client_to_the_mrtr_server() {
    through_the_bridge(mrtr_server().await, &ts_client()).await;
}

/// An MRTR client needs no bridge: the Python SDK client in `2026-07-28`
/// mode, through the bridge to mrtr's MRTR server, is relayed verbatim.
/// Every scenario completes, and the whole conversation is the upstream
/// side's: checked there (and its record re-checked) without a fault, with
/// its multi-round operations, while the client side saw nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mrtr_client_is_relayed_verbatim() {
    let server = mrtr_server().await;
    let mut bridge = bridge(&server.url, |_| {}).await;
    let done = run_client(&py_client(), &bridge.url(), "2026-07-28").await;
    bridge.stop().await;
    assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    assert_eq!(violations(&bridge.upstream), Vec::<String>::new());
    // The eight of a 2025-11-25 client, and 2026-07-28's prompts/get and resources/read.
    let operations = bridge.upstream.summary().operations;
    assert_eq!(operations, OPERATIONS + 2, "{:?}", bridge.upstream.monitor().reports());
    assert_eq!(bridge.client.summary().messages, 0, "the client side is not in the way");
    assert_eq!(recheck(&bridge.records.1, Protocol::V2026_07_28), Vec::<String>::new());
}
