//! An MCP client on the third-party Rust SDK `tower-mcp` (crates.io, 0.25.0): runs every scenario
//! against a server.
//!
//!     tower-mcp-client URL PROTOCOL            # 2026-07-28 or 2025-11-25
//!     tower-mcp-client URL 2026-07-28 --break request-state
//!
//! The builder declares elicitation (form and url), sampling and roots (the roots are answered
//! from the configured list) and a `ClientHandler` answers the forms, the URL-mode elicitation (an
//! accept) and the sampling; on 2026-07-28 two more clients declare less (nothing; form
//! elicitation only) and must be refused with -32021 where the server cannot serve them. The
//! scenarios after the first ones run as peers/run lists them in PEER_SCENARIOS. On 2026-07-28 the
//! client starts with `discover` and `call_tool` / `get_prompt` / `read_resource` drive the
//! `input_required` rounds; on 2025-11-25 it starts with `initialize` and the server's requests
//! arrive on the stream. With `--break request-state` it drives one call by hand
//! (`call_tool_once`, then the raw `request`) and retries it with a requestState other than the
//! one it was given: the one fault mrtr must then report. Exit status 0 when every scenario got its expected answer.

// Sampling and roots are deprecated in 2026-07-28 but still in it: the scenarios use them.
#![allow(deprecated)]

use std::collections::HashMap;
use std::process::ExitCode;

use async_trait::async_trait;
use mrtr_rust_peers::{
    answer, runs, Checks, ClientArgs, MODEL, ROOT_NAME, ROOT_URI, SAMPLED, SIGN_IN_MESSAGE, SIGN_IN_URL,
};
use serde_json::{json, Value};
use tower_mcp::client::{ClientHandler, HttpClientTransport, McpClient};
use tower_mcp::protocol::{
    ClientCapabilities, ContentRole, CreateMessageParams, CreateMessageResult, ElicitAction, ElicitFieldValue,
    ElicitRequestParams, ElicitResult, ElicitationCapability, ElicitationFormCapability, ElicitationUrlCapability,
    InputRequest, InputResponse, InputResponses, RequestOutcome, Root, SamplingCapability, SamplingContent,
    SamplingContentOrArray,
};
use tower_mcp::{Error, JsonRpcError};

struct Answers;

impl Answers {
    fn form(request: &ElicitRequestParams) -> Result<ElicitResult, JsonRpcError> {
        let form = match request {
            ElicitRequestParams::Form(form) => form,
            ElicitRequestParams::Url(url)
                if (url.message.as_str(), url.url.as_str()) == (SIGN_IN_MESSAGE, SIGN_IN_URL) =>
            {
                return Ok(ElicitResult { action: ElicitAction::Accept, content: None, meta: None });
            }
            _ => return Err(JsonRpcError::invalid_params("an unexpected URL elicitation")),
        };
        let mut content = HashMap::new();
        for key in form.requested_schema.properties.keys() {
            let given = answer(key).ok_or_else(|| JsonRpcError::invalid_params(format!("no answer for {key}")))?;
            content.insert(key.clone(), ElicitFieldValue::String(given.into()));
        }
        Ok(ElicitResult { action: ElicitAction::Accept, content: Some(content), meta: None })
    }
}

#[async_trait]
impl ClientHandler for Answers {
    async fn handle_create_message(&self, _params: CreateMessageParams) -> Result<CreateMessageResult, JsonRpcError> {
        Ok(CreateMessageResult {
            content: SamplingContentOrArray::Single(SamplingContent::Text {
                text: SAMPLED.into(),
                annotations: None,
                meta: None,
            }),
            model: MODEL.into(),
            role: ContentRole::Assistant,
            stop_reason: None,
            meta: None,
        })
    }

    async fn handle_elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult, JsonRpcError> {
        Self::form(&params)
    }
}

async fn tool(checks: &mut Checks, client: &McpClient, name: &str, args: Value, want: &str) {
    match client.call_tool(name, args).await {
        Ok(result) => checks.equal(name, result.first_text().unwrap_or_default(), want),
        Err(error) => checks.fail(name, error),
    }
}

async fn scenarios(client: &McpClient, mrtr: bool) -> Checks {
    let mut checks = Checks::default();
    tool(&mut checks, client, "get_weather", json!({"location": "Paris"}), "Paris: 22 degrees celsius").await;
    tool(&mut checks, client, "book_trip", json!({"destination": "Rome"}), "Rome on 2026-12-01, seat 12A").await;
    tool(&mut checks, client, "summarize", json!({"text": "a long text"}), "summary: short").await;
    tool(&mut checks, client, "list_roots", json!({}), "file:///work").await;
    // Two calls to one tool in flight at once, each retried with its own state.
    let (oslo, lima) = tokio::join!(
        client.call_tool("get_weather", json!({"location": "Oslo"})),
        client.call_tool("get_weather", json!({"location": "Lima"})),
    );
    for (what, got, want) in [("Oslo", oslo, "Oslo: 22 degrees celsius"), ("Lima", lima, "Lima: 22 degrees celsius")] {
        match got {
            Ok(result) => checks.equal(what, result.first_text().unwrap_or_default(), want),
            Err(error) => checks.fail(what, error),
        }
    }
    if mrtr {
        let args = HashMap::from([("pr".to_string(), "12".to_string())]);
        match client.get_prompt("review", Some(args)).await {
            Ok(prompt) => {
                let text = prompt.messages.first().and_then(|m| m.content.as_text()).unwrap_or_default().to_string();
                checks.contains("review", text, "tests")
            }
            Err(error) => checks.fail("review", error),
        }
        match client.read_resource("notes://today").await {
            Ok(notes) => checks.equal("notes://today", notes.first_text().unwrap_or_default(), "notes on mrtr"),
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

/// Elicitation with the modes `form` and `url`.
fn elicitation(form: bool, url: bool) -> ElicitationCapability {
    ElicitationCapability {
        form: form.then(ElicitationFormCapability::default),
        url: url.then(ElicitationUrlCapability::default),
    }
}

/// The call must be refused with -32021 naming `capability`.
async fn refused(checks: &mut Checks, client: &McpClient, name: &str, args: Value, capability: &str) {
    match client.call_tool(name, args).await {
        Err(Error::JsonRpc(error)) => checks.refused(name, Some(error.code.into()), error.data.as_ref(), capability),
        Err(error) => checks.fail(name, format!("expected error -32021, got {error}")),
        Ok(result) => checks.fail(name, format!("expected error -32021, got {:?}", result.first_text())),
    }
}

/// On 2026-07-28, clients that declare less: nothing, then form elicitation only.
async fn lesser(checks: &mut Checks, url: &str) {
    let form_only = ClientCapabilities { elicitation: Some(elicitation(true, false)), ..Default::default() };
    for (scenario, capabilities) in [("no_capability", ClientCapabilities::default()), ("form_only", form_only)] {
        if !runs(scenario) {
            continue;
        }
        let connected =
            McpClient::builder().with_capabilities(capabilities).connect(HttpClientTransport::new(url), Answers).await;
        let client = match connected {
            Ok(client) => client,
            Err(error) => {
                checks.fail(scenario, error);
                continue;
            }
        };
        if let Err(error) = client.discover("tower-mcp-peer", "1.0.0").await {
            checks.fail(scenario, error);
            continue;
        }
        if scenario == "no_capability" {
            refused(checks, &client, "get_weather", json!({"location": "Paris"}), "elicitation").await;
        } else {
            refused(checks, &client, "summarize", json!({"text": "a long text"}), "sampling").await;
            tool(checks, &client, "get_weather", json!({"location": "Paris"}), "Paris: 22 degrees celsius").await;
        }
        let _ = client.shutdown().await;
    }
}

/// One call driven by hand, its retry carrying a requestState it was not given.
async fn broken_retry(client: &McpClient) -> Checks {
    let mut checks = Checks::default();
    let args = json!({"location": "Paris"});
    match client.call_tool_once("get_weather", args.clone(), None, None).await {
        Ok(RequestOutcome::InputRequired(asked)) => {
            let mut responses = InputResponses::new();
            for (key, request) in asked.input_requests.unwrap_or_default() {
                if let InputRequest::Elicit(request) = request {
                    match Answers::form(&request) {
                        Ok(result) => {
                            responses.insert(key, InputResponse::Elicit(result));
                        }
                        Err(error) => checks.fail("the form", error.message),
                    }
                }
            }
            // Sent through `request`, the raw escape hatch: `call_tool_once` answers a -32602 by
            // refreshing tools/list and sending the same call again (its stale-schema retry),
            // which would repeat the fault. The server may refuse the retry: that answer is not
            // checked here, the proxy judges the retry.
            let retry = json!({
                "name": "get_weather",
                "arguments": args,
                "inputResponses": responses,
                "requestState": "not-the-state-it-was-given",
            });
            let _ = client.request::<Value, Value>("tools/call", &retry).await;
        }
        Ok(_) => checks.fail("get_weather", "not input_required"),
        Err(error) => checks.fail("get_weather", error),
    }
    checks
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = ClientArgs::parse();
    let run = async {
        let mut checks = Checks::default();
        let every = ClientCapabilities {
            elicitation: Some(elicitation(true, true)),
            sampling: Some(SamplingCapability::default()),
            ..Default::default()
        };
        let connected = McpClient::builder()
            .with_capabilities(every)
            .with_roots(vec![Root::with_name(ROOT_URI, ROOT_NAME)])
            .connect(HttpClientTransport::new(args.url.as_str()), Answers)
            .await;
        let client = match connected {
            Ok(client) => client,
            Err(error) => {
                checks.fail("connect", error);
                return checks;
            }
        };
        let started = if args.mrtr() {
            client.discover("tower-mcp-peer", "1.0.0").await.map(|_| ())
        } else {
            client.initialize("tower-mcp-peer", "1.0.0").await.map(|_| ())
        };
        if let Err(error) = started {
            checks.fail("start", error);
            return checks;
        }
        let mut checks = if args.broken { broken_retry(&client).await } else { scenarios(&client, args.mrtr()).await };
        let _ = client.shutdown().await;
        if args.mrtr() && !args.broken {
            lesser(&mut checks, &args.url).await;
        }
        checks
    };
    mrtr_rust_peers::within_a_minute(run).await
}
