//! An MCP server on the official Rust SDK (crates.io `rmcp`), written the way its README shows:
//! tools through `#[tool_router]` / `#[tool_handler]`, the prompt and the resource in the
//! `ServerHandler` methods, served by `StreamableHttpService` (sessions for 2025-era clients,
//! stateless for 2026-07-28) mounted on axum.
//!
//! On 2026-07-28 a handler answers an `InputRequiredResult` (rmcp's outcome enums) and reads the
//! retry's `InputResponses` / `RequestState`; the date `book_trip` carries into its second round is
//! sealed in the requestState with rmcp's `RequestStateCodec`. On 2025-11-25 the tools ask through
//! the request's peer (`elicit`, `create_message`, `list_roots`): server requests on the stream.
//!
//! `reserve` sheds load on 2026-07-28 (`InputRequiredResult::new(None, Some(state))`: a sealed
//! requestState, no questions); `sign_in` asks a URL-mode elicitation (`UrlElicitationParams`; on
//! 2025-11-25 `peer.create_elicitation` with an elicitationId). rmcp sends an ask whatever the request declared, so each tool
//! reads `context.client_capabilities()` and refuses with rmcp's
//! `missing_required_client_capability` (-32021) what it cannot ask.
//!
//!     rmcp-server PORT

// Sampling and roots are deprecated by SEP-2577 but still in both protocols: the scenarios use them.
#![allow(deprecated)]

use mrtr_rust_peers::args::{Destination, Held, Location, NoArguments, Table, Text, Trip};
use mrtr_rust_peers::{process_key, server_port, SIGN_IN_MESSAGE, SIGN_IN_URL};
use rmcp::{
    elicit_safe,
    handler::server::{
        tool::{InputResponses as Responses, RequestState as State},
        wrapper::Parameters,
    },
    model::*,
    service::RequestContext,
    tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        session::local::LocalSessionManager, StreamableHttpServerConfig, StreamableHttpService,
    },
    ErrorData as McpError, RoleServer, ServerHandler,
};
use schemars::JsonSchema;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Units {
    units: String,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Dates {
    date: String,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Seat {
    seat: String,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Focus {
    focus: String,
}
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
struct Topic {
    topic: String,
}
elicit_safe!(Units, Dates, Seat);

/// Whether the request speaks 2026-07-28 (multi round-trip) rather than a 2025-era protocol.
fn multi_round(context: &RequestContext<RoleServer>) -> bool {
    context.protocol_version().is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// An elicitation of the form `T`.
fn form<T: JsonSchema + 'static>(message: impl Into<String>) -> Result<InputRequest, McpError> {
    let requested_schema =
        ElicitationSchema::from_type::<T>().map_err(|e| McpError::internal_error(e.to_string(), None))?;
    Ok(InputRequest::Elicitation(ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message.into(),
        requested_schema,
    })))
}

/// One input request, no state.
fn ask(key: &str, request: InputRequest) -> InputRequiredResult {
    InputRequiredResult::from_input_requests(InputRequests::from([(key.to_string(), request)]))
}

/// The accepted content of the elicitation answered under `key`, if any.
fn accepted<T: DeserializeOwned>(responses: Option<&InputResponses>, key: &str) -> Option<T> {
    let result = ElicitResult::deserialize(responses?.get(key)?).ok()?;
    match result.action {
        ElicitationAction::Accept => serde_json::from_value(result.content?).ok(),
        _ => None,
    }
}

/// The result answered under `key`, if any.
fn response<T: DeserializeOwned>(responses: Option<&InputResponses>, key: &str) -> Option<T> {
    T::deserialize(responses?.get(key)?).ok()
}

fn text(text: impl Into<String>) -> CallToolResponse {
    CallToolResult::success(vec![ContentBlock::text(text)]).into()
}

/// -32021 unless the request declared what `wanted` asks of the client: elicitation (form, or url
/// when `url`), or sampling.
fn require(context: &RequestContext<RoleServer>, wanted: &str) -> Result<(), McpError> {
    let declared = context.client_capabilities().unwrap_or_default();
    let elicitation = declared.elicitation.as_ref();
    let ok = match wanted {
        "form" => elicitation.is_some_and(|e| e.form.is_some() || e.url.is_none()),
        "url" => elicitation.is_some_and(|e| e.url.is_some()),
        _ => declared.sampling.is_some(),
    };
    if ok {
        return Ok(());
    }
    let mut required = ClientCapabilities::default();
    match wanted {
        "form" => required.elicitation = Some(ElicitationCapability::new().with_form(FormElicitationCapability::new())),
        "url" => required.elicitation = Some(ElicitationCapability::new().with_url(UrlElicitationCapability::new())),
        _ => required.sampling = Some(SamplingCapability::default()),
    }
    Err(McpError::missing_required_client_capability(required))
}

fn failed(error: impl std::fmt::Display) -> McpError {
    McpError::internal_error(error.to_string(), None)
}

#[derive(Clone)]
struct Peer {
    codec: RequestStateCodec,
}

#[tool_router]
impl Peer {
    fn new(codec: RequestStateCodec) -> Self {
        Self { codec }
    }

    #[tool(description = "one round")]
    async fn get_weather(
        &self,
        Parameters(Location { location }): Parameters<Location>,
        context: RequestContext<RoleServer>,
        Responses(responses): Responses,
    ) -> Result<CallToolResponse, McpError> {
        let units = if multi_round(&context) {
            match accepted::<Units>(responses.as_ref(), "units") {
                Some(units) => units,
                None => {
                    require(&context, "form")?;
                    return Ok(ask("units", form::<Units>("Which units?")?).into());
                }
            }
        } else {
            context.peer.elicit::<Units>("Which units?").await.map_err(failed)?.ok_or_else(|| failed("no units"))?
        };
        Ok(text(format!("{location}: 22 degrees {}", units.units)))
    }

    #[tool(description = "two rounds")]
    async fn book_trip(
        &self,
        Parameters(Destination { destination }): Parameters<Destination>,
        context: RequestContext<RoleServer>,
        Responses(responses): Responses,
        State(state): State,
    ) -> Result<CallToolResponse, McpError> {
        if !multi_round(&context) {
            let date = context.peer.elicit::<Dates>("When?").await.map_err(failed)?.ok_or_else(|| failed("no date"))?;
            let question = format!("Which seat on {}?", date.date);
            let seat = context.peer.elicit::<Seat>(question).await.map_err(failed)?.ok_or_else(|| failed("no seat"))?;
            return Ok(text(format!("{destination} on {}, seat {}", date.date, seat.seat)));
        }
        let remembered = match state {
            Some(sealed) => Some(
                self.codec
                    .open_json::<Trip>(&sealed)
                    .map_err(|_| McpError::invalid_params("tampered or unknown request state", None))?,
            ),
            None => None,
        };
        let date = match accepted::<Dates>(responses.as_ref(), "date").map(|d| d.date).or(remembered.map(|t| t.date)) {
            Some(date) => date,
            None => {
                require(&context, "form")?;
                return Ok(ask("date", form::<Dates>("When?")?).into());
            }
        };
        let Some(seat) = accepted::<Seat>(responses.as_ref(), "seat") else {
            let sealed = self.codec.seal_json(&Trip { date: date.clone() }).map_err(failed)?;
            let requests = InputRequests::from([("seat".to_string(), form::<Seat>(format!("Which seat on {date}?"))?)]);
            return Ok(InputRequiredResult::new(Some(requests), Some(sealed)).into());
        };
        Ok(text(format!("{destination} on {date}, seat {}", seat.seat)))
    }

    #[tool(description = "sampling")]
    async fn summarize(
        &self,
        Parameters(Text { text: input }): Parameters<Text>,
        context: RequestContext<RoleServer>,
        Responses(responses): Responses,
    ) -> Result<CallToolResponse, McpError> {
        let params =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text(format!("Summarise: {input}"))], 50);
        let summary = if multi_round(&context) {
            match response::<CreateMessageResult>(responses.as_ref(), "summary") {
                Some(summary) => summary,
                None => {
                    require(&context, "sampling")?;
                    return Ok(ask("summary", InputRequest::CreateMessage(CreateMessageRequest::new(params))).into());
                }
            }
        } else {
            context.peer.create_message(params).await.map_err(failed)?
        };
        let said =
            summary.message.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default();
        Ok(text(format!("summary: {said}")))
    }

    #[tool(description = "roots")]
    async fn list_roots(
        &self,
        Parameters(NoArguments {}): Parameters<NoArguments>,
        context: RequestContext<RoleServer>,
        Responses(responses): Responses,
    ) -> Result<CallToolResponse, McpError> {
        let roots = if multi_round(&context) {
            match response::<ListRootsResult>(responses.as_ref(), "roots") {
                Some(roots) => roots,
                None => return Ok(ask("roots", InputRequest::ListRoots(ListRootsRequest::default())).into()),
            }
        } else {
            context.peer.list_roots().await.map_err(failed)?
        };
        Ok(text(roots.roots.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>().join(", ")))
    }

    #[tool(description = "load shedding: a round with state only")]
    async fn reserve(
        &self,
        Parameters(Table { table }): Parameters<Table>,
        context: RequestContext<RoleServer>,
        State(state): State,
    ) -> Result<CallToolResponse, McpError> {
        if multi_round(&context) {
            let Some(sealed) = state else {
                // What this instance did so far, and no questions: any instance picks it up.
                let sealed = self.codec.seal_json(&Held { table }).map_err(failed)?;
                return Ok(InputRequiredResult::new(None, Some(sealed)).into());
            };
            let held = self
                .codec
                .open_json::<Held>(&sealed)
                .map_err(|_| McpError::invalid_params("tampered or unknown request state", None))?;
            return Ok(text(format!("table {} reserved", held.table)));
        }
        Ok(text(format!("table {table} reserved")))
    }

    #[tool(description = "URL elicitation")]
    async fn sign_in(
        &self,
        Parameters(NoArguments {}): Parameters<NoArguments>,
        context: RequestContext<RoleServer>,
        Responses(responses): Responses,
    ) -> Result<CallToolResponse, McpError> {
        let action = if multi_round(&context) {
            match response::<ElicitResult>(responses.as_ref(), "sign_in") {
                Some(answer) => answer.action,
                None => {
                    require(&context, "url")?;
                    let params = ElicitRequestParams::UrlElicitationParams {
                        meta: None,
                        message: SIGN_IN_MESSAGE.into(),
                        url: SIGN_IN_URL.into(),
                        elicitation_id: String::new(), // 2026-07-28 has none; rmcp has no way to leave it out
                    };
                    return Ok(ask("sign_in", InputRequest::Elicitation(ElicitRequest::new(params))).into());
                }
            }
        } else {
            // 2025-11-25 URL mode carries an elicitationId: the ordinary server request.
            let params = ElicitRequestParams::UrlElicitationParams {
                meta: None,
                message: SIGN_IN_MESSAGE.into(),
                url: SIGN_IN_URL.into(),
                elicitation_id: "sign-in-1".into(),
            };
            context.peer.create_elicitation(params).await.map_err(failed)?.action
        };
        Ok(text(match action {
            ElicitationAction::Accept => "signed in".to_string(),
            other => format!("not signed in: {other:?}"),
        }))
    }
}

#[tool_handler]
impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_prompts().enable_resources().build())
            .with_server_info(Implementation::new("rmcp-peer", "1.0.0"))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let pr = PromptArgument::new("pr").with_required(true);
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new("review", Some("asks first"), Some(vec![pr]))]))
    }

    // Asks first, 2026-07-28 only: rmcp refuses an InputRequiredResult to an older peer.
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != "review" {
            return Err(McpError::invalid_params(format!("no prompt {}", request.name), None));
        }
        let pr = request.arguments.as_ref().and_then(|a| a.get("pr")).and_then(|v| v.as_str()).unwrap_or_default();
        match accepted::<Focus>(request.input_responses.as_ref(), "focus") {
            None => Ok(ask("focus", form::<Focus>(format!("Focus of the review of {pr}?"))?).into()),
            Some(Focus { focus }) => {
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, format!("Review {pr}: {focus}"))])
                    .into())
            }
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new("notes://today", "notes")]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if request.uri != "notes://today" {
            return Err(McpError::resource_not_found("no such resource", None));
        }
        match accepted::<Topic>(request.input_responses.as_ref(), "topic") {
            None => Ok(ask("topic", form::<Topic>("Notes on which topic?")?).into()),
            Some(Topic { topic }) => {
                Ok(ReadResourceResult::new(vec![ResourceContents::text(format!("notes on {topic}"), request.uri)])
                    .into())
            }
        }
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let port = server_port();
    let codec = RequestStateCodec::try_new(process_key())?;
    let service = StreamableHttpService::new(
        move || Ok(Peer::new(codec.clone())),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    axum::serve(listener, router).await?;
    Ok(())
}
