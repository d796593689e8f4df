//! An MCP client on the official Rust SDK (crates.io `rmcp`): runs every scenario against a server.
//!
//!     rmcp-client URL PROTOCOL            # 2026-07-28 or 2025-11-25
//!     rmcp-client URL 2026-07-28 --break request-state
//!
//! A `ClientHandler` declares elicitation (form and url), sampling and roots and answers every ask
//! (a URL-mode elicitation with an accept); on 2026-07-28 two more clients declare less (nothing;
//! form elicitation only) and must be refused with -32021 where the server cannot serve them. The
//! scenarios after the first ones run as peers/run lists them in PEER_SCENARIOS. On
//! 2026-07-28 the client starts with `server/discover` (`ClientLifecycleMode::Discover`) and the
//! high-level `call_tool` / `get_prompt` / `read_resource` drive the `input_required` rounds
//! through that handler; on 2025-11-25 it initializes and the same handler answers the server's
//! requests on the stream. With `--break request-state` it drives one call by hand
//! (`call_tool_once`, rmcp's manual mode) and retries it with a requestState other than the one it
//! was given: the one fault mrtr must then report. Exit status 0 when every scenario got its
//! expected answer.

// Sampling and roots are deprecated by SEP-2577 but still in both protocols: the scenarios use them.
#![allow(deprecated)]

use std::process::ExitCode;

use mrtr_rust_peers::{
    form_answer, runs, Checks, ClientArgs, MODEL, ROOT_NAME, ROOT_URI, SAMPLED, SIGN_IN_MESSAGE, SIGN_IN_URL,
};
use rmcp::{
    model::*,
    service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService, ServiceError},
    transport::StreamableHttpClientTransport,
    ClientHandler, ErrorData as McpError, RoleClient,
};
use serde_json::json;

#[derive(Clone)]
struct Answers {
    protocol: ProtocolVersion,
    capabilities: ClientCapabilities,
}

/// Every capability the scenarios need: elicitation (form and url), sampling, roots.
fn every_capability() -> ClientCapabilities {
    let mut capabilities = ClientCapabilities::builder().enable_sampling().enable_roots().build();
    let elicitation = ElicitationCapability::new().with_form(FormElicitationCapability::new());
    capabilities.elicitation = Some(elicitation.with_url(UrlElicitationCapability::new()));
    capabilities
}

impl Answers {
    fn elicit(request: &ElicitRequestParams) -> Result<ElicitResult, McpError> {
        if let ElicitRequestParams::UrlElicitationParams { message, url, .. } = request {
            if (message.as_str(), url.as_str()) != (SIGN_IN_MESSAGE, SIGN_IN_URL) {
                return Err(McpError::invalid_params(format!("an unexpected URL elicitation: {url}"), None));
            }
            return Ok(ElicitResult::new(ElicitationAction::Accept));
        }
        let ElicitRequestParams::FormElicitationParams { requested_schema, .. } = request else {
            return Err(McpError::invalid_params("only forms are answered here", None));
        };
        let content = form_answer(requested_schema.properties.keys()).map_err(|e| McpError::invalid_params(e, None))?;
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(serde_json::Value::Object(content)))
    }
}

impl ClientHandler for Answers {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(self.capabilities.clone(), Implementation::new("rmcp-peer", "1.0.0"))
            .with_protocol_version(self.protocol.clone())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        Self::elicit(&request)
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        Ok(CreateMessageResult::new(SamplingMessage::assistant_text(SAMPLED), MODEL.into()))
    }

    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, McpError> {
        Ok(ListRootsResult::new(vec![Root::new(ROOT_URI).with_name(ROOT_NAME)]))
    }
}

type Client = RunningService<RoleClient, Answers>;

fn call(name: &'static str, arguments: serde_json::Value) -> CallToolRequestParams {
    let serde_json::Value::Object(arguments) = arguments else { unreachable!("arguments are an object") };
    CallToolRequestParams::new(name).with_arguments(arguments)
}

fn first_text(result: &CallToolResult) -> String {
    result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default()
}

async fn tool(checks: &mut Checks, client: &Client, name: &'static str, arguments: serde_json::Value, want: &str) {
    match client.call_tool(call(name, arguments)).await {
        Ok(result) => checks.equal(name, first_text(&result), want),
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
        client.call_tool(call("get_weather", json!({"location": "Oslo"}))),
        client.call_tool(call("get_weather", json!({"location": "Lima"}))),
    );
    for (what, got, want) in [("Oslo", oslo, "Oslo: 22 degrees celsius"), ("Lima", lima, "Lima: 22 degrees celsius")] {
        match got {
            Ok(result) => checks.equal(what, first_text(&result), want),
            Err(error) => checks.fail(what, error),
        }
    }
    if mrtr {
        let mut review = GetPromptRequestParams::new("review");
        review.arguments = Some(json!({"pr": "12"}).as_object().cloned().unwrap_or_default());
        match client.get_prompt(review).await {
            Ok(prompt) => {
                let text = prompt.messages.first().and_then(|m| m.content.as_text()).map(|t| t.text.clone());
                checks.contains("review", text.unwrap_or_default(), "tests")
            }
            Err(error) => checks.fail("review", error),
        }
        match client.read_resource(ReadResourceRequestParams::new("notes://today")).await {
            Ok(notes) => {
                let text = match notes.contents.first() {
                    Some(ResourceContents::TextResourceContents { text, .. }) => text.clone(),
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
async fn refused(
    checks: &mut Checks,
    client: &Client,
    name: &'static str,
    arguments: serde_json::Value,
    capability: &str,
) {
    match client.call_tool(call(name, arguments)).await {
        Err(ServiceError::McpError(error)) => {
            checks.refused(name, Some(error.code.0.into()), error.data.as_ref(), capability)
        }
        Err(error) => checks.fail(name, format!("expected error -32021, got {error}")),
        Ok(result) => checks.fail(name, format!("expected error -32021, got {result:?}")),
    }
}

/// On 2026-07-28, clients that declare less: nothing, then form elicitation only.
async fn lesser(checks: &mut Checks, url: &str) {
    let version = ProtocolVersion::V_2026_07_28;
    let mut form_only = ClientCapabilities::default();
    form_only.elicitation = Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
    for (scenario, capabilities) in [("no_capability", ClientCapabilities::default()), ("form_only", form_only)] {
        if !runs(scenario) {
            continue;
        }
        let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![version.clone()] };
        let answers = Answers { protocol: version.clone(), capabilities };
        let client = match answers.serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url), lifecycle).await {
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
        let _ = client.cancel().await;
    }
}

/// One call driven by hand, its retry carrying a requestState it was not given.
async fn broken_retry(client: &Client) -> Checks {
    let mut checks = Checks::default();
    let first = call("get_weather", json!({"location": "Paris"}));
    match client.call_tool_once(first.clone()).await {
        Ok(CallToolResponse::InputRequired(asked)) => {
            let mut responses = InputResponses::new();
            for (key, request) in asked.input_requests.unwrap_or_default() {
                if let InputRequest::Elicitation(request) = request {
                    match Answers::elicit(&request.params) {
                        Ok(answer) => {
                            responses.insert(key, serde_json::to_value(answer).unwrap_or_default());
                        }
                        Err(error) => checks.fail("the form", error),
                    }
                }
            }
            let mut retry = first;
            retry.input_responses = Some(responses);
            retry.request_state = Some("not-the-state-it-was-given".into());
            // The server may refuse it: that answer is not checked here, the proxy judges the retry.
            let _ = client.call_tool_once(retry).await;
        }
        Ok(other) => checks.fail("get_weather", format!("not input_required: {other:?}")),
        Err(error) => checks.fail("get_weather", error),
    }
    checks
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = ClientArgs::parse();
    let (protocol, lifecycle) = if args.mrtr() {
        let version = ProtocolVersion::V_2026_07_28;
        (version.clone(), ClientLifecycleMode::Discover { preferred_versions: vec![version] })
    } else {
        (ProtocolVersion::V_2025_11_25, ClientLifecycleMode::Initialize)
    };
    let transport = StreamableHttpClientTransport::from_uri(args.url.as_str());
    let run = async {
        let answers = Answers { protocol, capabilities: every_capability() };
        let client = match answers.serve_with_lifecycle(transport, lifecycle).await {
            Ok(client) => client,
            Err(error) => {
                let mut checks = Checks::default();
                checks.fail("connect", error);
                return checks;
            }
        };
        let mut checks = if args.broken { broken_retry(&client).await } else { scenarios(&client, args.mrtr()).await };
        let _ = client.cancel().await;
        if args.mrtr() && !args.broken {
            lesser(&mut checks, &args.url).await;
        }
        checks
    };
    mrtr_rust_peers::within_a_minute(run).await
}
