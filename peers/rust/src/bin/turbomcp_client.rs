//! An MCP client on the third-party Rust SDK `turbomcp` (crates.io, 4.0.0-alpha.5): runs every
//! scenario against a server.
//!
//!     turbomcp-client URL PROTOCOL            # 2026-07-28 or 2025-11-25
//!     turbomcp-client URL 2026-07-28 --break request-state
//!
//! A `ClientHandler` answers every ask (its `elicit` sees only the message and the requested
//! schema, never the mode or the url: `sign_in` arrives as "Sign in" with an empty schema and is
//! accepted as such); on 2026-07-28 two more clients declare less (nothing; form elicitation only)
//! and must be refused with -32021 where the server cannot serve them. The scenarios after the
//! first ones run as peers/run lists them in PEER_SCENARIOS. The builder declares elicitation
//! (form and url), sampling and roots and
//! pins the protocol with `ConnectMode::Modern` (2026-07-28: `server/discover`, the typed calls
//! drive the `input_required` rounds) or `ConnectMode::Legacy` (2025-11-25: `initialize`, the
//! server's requests arrive on the stream). The SDK has no call that stops at an
//! `input_required`, so `--break request-state` sends the call and its wrong retry through
//! `Client::request`, its raw escape hatch: the one fault mrtr must then report.
//! Exit status 0 when every scenario got its expected answer.

use std::process::ExitCode;

use mrtr_rust_peers::{form_answer, runs, Checks, ClientArgs, MODEL, ROOT_NAME, ROOT_URI, SAMPLED};
use serde_json::{json, Map, Value};
use turbomcp::client::{async_trait, connect_http, Client, ClientBuilder, ClientHandler, ClientResult, ConnectMode};
use turbomcp::neutral;

struct Answers;

impl Answers {
    fn form(request: &neutral::ElicitParams) -> neutral::ElicitOutcome {
        let keys = request.requested_schema.get("properties").and_then(Value::as_object);
        match form_answer(keys.into_iter().flat_map(|p| p.keys())) {
            Ok(content) => neutral::ElicitOutcome::new(neutral::ElicitAction::Accept, content),
            Err(_) => neutral::ElicitOutcome::new(neutral::ElicitAction::Decline, Map::new()),
        }
    }
}

#[async_trait]
impl ClientHandler for Answers {
    async fn elicit(&self, request: neutral::ElicitParams) -> neutral::ElicitOutcome {
        Self::form(&request)
    }

    async fn create_message(&self, _params: Value) -> ClientResult<Value> {
        Ok(json!({"role": "assistant", "content": {"type": "text", "text": SAMPLED}, "model": MODEL}))
    }

    async fn list_roots(&self) -> ClientResult<Value> {
        Ok(json!({"roots": [{"uri": ROOT_URI, "name": ROOT_NAME}]}))
    }
}

fn arguments(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn first_text(content: &[neutral::Content]) -> String {
    match content.first() {
        Some(neutral::Content::Text { text, .. }) => text.clone(),
        other => format!("{other:?}"),
    }
}

async fn tool(checks: &mut Checks, client: &Client, name: &str, args: Value, want: &str) {
    match client.call_tool(name, arguments(args)).await {
        Ok(result) => checks.equal(name, first_text(&result.content), want),
        Err(error) => checks.fail(name, error),
    }
}

async fn scenarios(client: &Client, mrtr: bool) -> Checks {
    let mut checks = Checks::default();
    tool(&mut checks, client, "get_weather", json!({"location": "Paris"}), "Paris: 22 degrees celsius").await;
    tool(&mut checks, client, "book_trip", json!({"destination": "Rome"}), "Rome on 2026-12-01, seat 12A").await;
    tool(&mut checks, client, "summarize", json!({"text": "a long text"}), "summary: short").await;
    tool(&mut checks, client, "list_roots", json!({}), "file:///work").await;
    // Two calls to one tool in flight at once, each retried with its own state.
    let (oslo, lima) = tokio::join!(
        client.call_tool("get_weather", arguments(json!({"location": "Oslo"}))),
        client.call_tool("get_weather", arguments(json!({"location": "Lima"}))),
    );
    for (what, got, want) in [("Oslo", oslo, "Oslo: 22 degrees celsius"), ("Lima", lima, "Lima: 22 degrees celsius")] {
        match got {
            Ok(result) => checks.equal(what, first_text(&result.content), want),
            Err(error) => checks.fail(what, error),
        }
    }
    if mrtr {
        match client.get_prompt("review", arguments(json!({"pr": "12"}))).await {
            Ok(prompt) => {
                let text = prompt.messages.first().map(|m| first_text(std::slice::from_ref(&m.content)));
                checks.contains("review", text.unwrap_or_default(), "tests")
            }
            Err(error) => checks.fail("review", error),
        }
        match client.read_resource("notes://today").await {
            Ok(notes) => {
                let text = match notes.contents.first() {
                    Some(neutral::ResourceContents::Text { text, .. }) => text.clone(),
                    other => format!("{other:?}"),
                };
                checks.equal("notes://today", text, "notes on mrtr")
            }
            Err(error) => checks.fail("notes://today", error),
        }
    }
    if runs("reserve") {
        tool(&mut checks, client, "reserve", json!({"table": "7"}), "table 7 reserved").await;
    }
    if runs("sign_in") {
        tool(&mut checks, client, "sign_in", json!({}), "signed in").await;
    }
    checks
}

/// The call must be refused with -32021 naming `capability`.
async fn refused(checks: &mut Checks, client: &Client, name: &str, args: Value, capability: &str) {
    match client.call_tool(name, arguments(args)).await {
        Err(error) => match error.as_rpc() {
            Some(rpc) => checks.refused(name, Some(rpc.code.into()), rpc.data.as_ref(), capability),
            None => checks.fail(name, format!("expected error -32021, got {error}")),
        },
        Ok(result) => checks.fail(name, format!("expected error -32021, got {:?}", result.content)),
    }
}

/// On 2026-07-28, clients that declare less: nothing, then form elicitation only.
async fn lesser(checks: &mut Checks, url: &str) {
    for (scenario, capabilities) in [("no_capability", json!({})), ("form_only", json!({"elicitation": {"form": {}}}))]
    {
        if !runs(scenario) {
            continue;
        }
        let builder = ClientBuilder::new("turbomcp-peer", "1.0.0")
            .with_handler(Answers)
            .with_capabilities(capabilities)
            .with_connect_mode(ConnectMode::Modern);
        let client = match connect_http(builder, url).await {
            Ok(client) => client,
            Err(error) => {
                checks.fail(scenario, error);
                continue;
            }
        };
        if scenario == "no_capability" {
            refused(checks, &client, "get_weather", json!({"location": "Paris"}), "elicitation").await;
        } else {
            refused(checks, &client, "summarize", json!({"text": "a long text"}), "sampling").await;
            tool(checks, &client, "get_weather", json!({"location": "Paris"}), "Paris: 22 degrees celsius").await;
        }
        client.close().await;
    }
}

/// One call sent raw, its retry carrying a requestState it was not given.
async fn broken_retry(client: &Client) -> Checks {
    let mut checks = Checks::default();
    let call = arguments(json!({"name": "get_weather", "arguments": {"location": "Paris"}}));
    match client.request("tools/call", call.clone()).await {
        Ok(first) if first.get("resultType").and_then(Value::as_str) == Some("input_required") => {
            let mut responses = Map::new();
            for (key, request) in first.get("inputRequests").and_then(Value::as_object).into_iter().flatten() {
                let schema = request.pointer("/params/requestedSchema").cloned().unwrap_or(Value::Null);
                let outcome = Answers::form(&neutral::ElicitParams::new("", schema));
                responses.insert(key.clone(), json!({"action": "accept", "content": outcome.content}));
            }
            let mut retry = call;
            retry.insert("inputResponses".into(), Value::Object(responses));
            retry.insert("requestState".into(), json!("not-the-state-it-was-given"));
            // The server may refuse it: that answer is not checked here, the proxy judges the retry.
            let _ = client.request("tools/call", retry).await;
        }
        Ok(other) => checks.fail("get_weather", format!("not input_required: {other}")),
        Err(error) => checks.fail("get_weather", error),
    }
    checks
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = ClientArgs::parse();
    let mode = if args.mrtr() { ConnectMode::Modern } else { ConnectMode::Legacy };
    let builder = ClientBuilder::new("turbomcp-peer", "1.0.0")
        .with_handler(Answers)
        .with_capabilities(json!({"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}))
        .with_connect_mode(mode);
    let run = async {
        let client = match connect_http(builder, args.url.as_str()).await {
            Ok(client) => client,
            Err(error) => {
                let mut checks = Checks::default();
                checks.fail("connect", error);
                return checks;
            }
        };
        if !args.mrtr() {
            // turbomcp POSTs each message from a task of its own, so its notifications/initialized
            // can reach the server after the first request (docs/findings.md); a server that
            // refuses requests before it (tower-mcp) then fails the call. Its users wait a moment.
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        }
        let mut checks = if args.broken { broken_retry(&client).await } else { scenarios(&client, args.mrtr()).await };
        client.close().await;
        if args.mrtr() && !args.broken {
            lesser(&mut checks, &args.url).await;
        }
        checks
    };
    mrtr_rust_peers::within_a_minute(run).await
}
