//! An MCP server on the third-party Rust SDK `tower-mcp` (crates.io, 0.25.0), written the way its
//! `mrtr_elicitation` example and protocol-version guide show: `ToolBuilder` / `PromptBuilder` /
//! `ResourceBuilder` with `mrtr_handler`s on an `McpRouter`, served dual-era by `HttpTransport`
//! (`with_sampling` gives 2025-era handlers their route back to the client) mounted at `/mcp`.
//!
//! Each handler serves both protocols: where the request has a route back to the client
//! (`ctx.can_elicit()` / `can_sample()`, 2025-11-25) it asks inline (`elicit_form`, `sample`, and
//! `request_raw("roots/list")`, there being no typed roots call); otherwise (2026-07-28) it returns
//! `RequestOutcome::input_required` and reads the retry's `input_responses()`. The date `book_trip`
//! carries into its second round is sealed in the requestState by the router's `RequestStateCodec`.
//!
//! `reserve` sheds load on 2026-07-28 (an `InputRequiredResult` with a sealed requestState and no
//! requests); `sign_in` asks a URL-mode elicitation (`ElicitRequestParams::Url`, whose
//! `elicitation_id` the SDK always sends; on 2025-11-25 `elicit_url`). The SDK sends an ask
//! whatever the request declared, so the tools read the request's capabilities
//! (`per_request_meta`) and refuse with the SDK's `missing_required_client_capability` (-32021).
//!
//!     tower-mcp-server PORT

// Sampling and roots are deprecated in 2026-07-28 but still in it: the scenarios use them.
#![allow(deprecated)]

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use mrtr_rust_peers::args::{Destination, Held, Location, NoArguments, Table, Text, Trip};
use mrtr_rust_peers::{process_key, server_port, SIGN_IN_MESSAGE, SIGN_IN_URL};
use serde_json::Value;
use tower_mcp::context::RequestContext;
use tower_mcp::mrtr::RequestStateCodec;
use tower_mcp::prompt::PromptBuilder;
use tower_mcp::protocol::{
    ClientCapabilities, CreateMessageParams, ElicitAction, ElicitFieldValue, ElicitFormParams, ElicitFormSchema,
    ElicitMode, ElicitRequestParams, ElicitUrlParams, ElicitationCapability, ElicitationFormCapability,
    ElicitationUrlCapability, GetPromptResult, InputRequest, InputRequiredResult, InputResponse, ListRootsParams,
    ReadResourceResult, RequestOutcome, SamplingCapability, SamplingMessage,
};
use tower_mcp::resource::ResourceBuilder;
use tower_mcp::{CallToolResult, Error, HttpTransport, JsonRpcError, McpRouter, Result, ToolBuilder};

/// A one-field form asking for `key`.
fn form(key: &str, message: String) -> ElicitFormParams {
    ElicitFormParams {
        mode: None,
        message,
        requested_schema: ElicitFormSchema::new().string_field(key, None, true),
        meta: None,
    }
}

/// The one input request `key` of a 2026-07-28 round, with the optional requestState.
fn ask<T>(key: &str, request: InputRequest, state: Option<String>) -> Result<RequestOutcome<T>> {
    let mut result = InputRequiredResult::with_requests(BTreeMap::from([(key.to_string(), request)]));
    if let Some(state) = state {
        result = result.with_request_state(state);
    }
    Ok(RequestOutcome::input_required(result))
}

fn field(content: Option<&HashMap<String, ElicitFieldValue>>, key: &str) -> Option<String> {
    match content?.get(key)? {
        ElicitFieldValue::String(answer) => Some(answer.clone()),
        _ => None,
    }
}

/// The answer to the form `key` from the retry's input responses, if accepted.
fn answered(ctx: &RequestContext, key: &str) -> Option<String> {
    match ctx.input_responses()?.get(key)? {
        InputResponse::Elicit(result) if result.action == ElicitAction::Accept => field(result.content.as_ref(), key),
        _ => None,
    }
}

/// Ask the form `key` inline (2025-11-25): the answer, or an error.
async fn elicit_inline(ctx: &RequestContext, key: &str, message: String) -> Result<String> {
    let result = ctx.elicit_form(form(key, message)).await?;
    match result.action {
        ElicitAction::Accept => field(result.content.as_ref(), key).ok_or_else(|| Error::internal(format!("no {key}"))),
        _ => Err(Error::internal(format!("{key} not given"))),
    }
}

/// Whether the request speaks 2026-07-28 (its `_meta` names the protocol).
fn multi_round(ctx: &RequestContext) -> bool {
    ctx.per_request_meta().and_then(|m| m.protocol_version.as_deref()) == Some("2026-07-28")
}

/// -32021 unless the request declared what `wanted` asks of the client: elicitation (`form` or
/// `url`), or `sampling`.
fn require(ctx: &RequestContext, wanted: &str) -> Result<()> {
    let declared = ctx.per_request_meta().and_then(|m| m.client_capabilities.clone()).unwrap_or_default();
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
    let mut elicitation = ElicitationCapability::default();
    match wanted {
        "form" => elicitation.form = Some(ElicitationFormCapability::default()),
        "url" => elicitation.url = Some(ElicitationUrlCapability::default()),
        _ => required.sampling = Some(SamplingCapability::default()),
    }
    if wanted != "sampling" {
        required.elicitation = Some(elicitation);
    }
    Err(Error::JsonRpc(JsonRpcError::missing_required_client_capability(required)))
}

fn sign_in_request(elicitation_id: &str) -> ElicitUrlParams {
    ElicitUrlParams {
        mode: Some(ElicitMode::Url),
        elicitation_id: elicitation_id.into(),
        message: SIGN_IN_MESSAGE.into(),
        url: SIGN_IN_URL.into(),
        meta: None,
    }
}

fn summary_request(text: &str) -> CreateMessageParams {
    CreateMessageParams::new(vec![SamplingMessage::user(format!("Summarise: {text}"))], 50)
}

fn router(codec: RequestStateCodec) -> McpRouter {
    let get_weather = ToolBuilder::new("get_weather")
        .description("one round")
        .mrtr_handler(|ctx: RequestContext, input: Location| async move {
            let units = if ctx.can_elicit() {
                elicit_inline(&ctx, "units", "Which units?".into()).await?
            } else {
                match answered(&ctx, "units") {
                    Some(units) => units,
                    None => {
                        require(&ctx, "form")?;
                        let request =
                            InputRequest::Elicit(ElicitRequestParams::Form(form("units", "Which units?".into())));
                        return ask("units", request, None);
                    }
                }
            };
            Ok(RequestOutcome::Complete(CallToolResult::text(format!("{}: 22 degrees {units}", input.location))))
        })
        .build();

    let book_trip = ToolBuilder::new("book_trip")
        .description("two rounds")
        .mrtr_handler(|ctx: RequestContext, input: Destination| async move {
            let destination = input.destination;
            if ctx.can_elicit() {
                let date = elicit_inline(&ctx, "date", "When?".into()).await?;
                let seat = elicit_inline(&ctx, "seat", format!("Which seat on {date}?")).await?;
                return Ok(RequestOutcome::Complete(CallToolResult::text(format!(
                    "{destination} on {date}, seat {seat}"
                ))));
            }
            let codec = ctx.request_state_codec().cloned().ok_or_else(|| Error::internal("no request-state codec"))?;
            let remembered = match ctx.request_state() {
                Some(token) => Some(
                    codec
                        .decode::<Trip>(token)
                        .map_err(|_| Error::invalid_params("tampered or unknown request state"))?,
                ),
                None => None,
            };
            let Some(date) = answered(&ctx, "date").or(remembered.map(|t| t.date)) else {
                require(&ctx, "form")?;
                let request = InputRequest::Elicit(ElicitRequestParams::Form(form("date", "When?".into())));
                return ask("date", request, None);
            };
            let Some(seat) = answered(&ctx, "seat") else {
                let state = codec.encode(&Trip { date: date.clone() }).map_err(|e| Error::internal(e.to_string()))?;
                let request =
                    InputRequest::Elicit(ElicitRequestParams::Form(form("seat", format!("Which seat on {date}?"))));
                return ask("seat", request, Some(state));
            };
            Ok(RequestOutcome::Complete(CallToolResult::text(format!("{destination} on {date}, seat {seat}"))))
        })
        .build();

    let summarize = ToolBuilder::new("summarize")
        .description("sampling")
        .mrtr_handler(|ctx: RequestContext, input: Text| async move {
            let said = if ctx.can_sample() {
                ctx.sample(summary_request(&input.text)).await?.first_text().unwrap_or_default().to_string()
            } else {
                match ctx.input_responses().and_then(|r| r.get("summary")) {
                    Some(InputResponse::CreateMessage(result)) => result.first_text().unwrap_or_default().to_string(),
                    _ => {
                        require(&ctx, "sampling")?;
                        return ask("summary", InputRequest::CreateMessage(summary_request(&input.text)), None);
                    }
                }
            };
            Ok(RequestOutcome::Complete(CallToolResult::text(format!("summary: {said}"))))
        })
        .build();

    let list_roots = ToolBuilder::new("list_roots")
        .description("roots")
        .mrtr_handler(|ctx: RequestContext, _input: NoArguments| async move {
            let uris: Vec<String> = if ctx.can_elicit() {
                let answer = ctx.request_raw("roots/list", serde_json::json!({})).await?;
                let roots = answer.get("roots").and_then(Value::as_array).cloned().unwrap_or_default();
                roots.iter().filter_map(|r| r.get("uri").and_then(Value::as_str).map(String::from)).collect()
            } else {
                match ctx.input_responses().and_then(|r| r.get("roots")) {
                    Some(InputResponse::ListRoots(result)) => result.roots.iter().map(|r| r.uri.clone()).collect(),
                    _ => return ask("roots", InputRequest::ListRoots(ListRootsParams::default()), None),
                }
            };
            Ok(RequestOutcome::Complete(CallToolResult::text(uris.join(", "))))
        })
        .build();

    let reserve = ToolBuilder::new("reserve")
        .description("load shedding: a round with state only")
        .mrtr_handler(|ctx: RequestContext, input: Table| async move {
            if !multi_round(&ctx) {
                return Ok(RequestOutcome::Complete(CallToolResult::text(format!("table {} reserved", input.table))));
            }
            let codec = ctx.request_state_codec().cloned().ok_or_else(|| Error::internal("no request-state codec"))?;
            let Some(token) = ctx.request_state() else {
                // What this instance did so far, and no questions: any instance picks it up.
                let state = codec.encode(&Held { table: input.table }).map_err(|e| Error::internal(e.to_string()))?;
                return Ok(RequestOutcome::input_required(InputRequiredResult::new().with_request_state(state)));
            };
            let held =
                codec.decode::<Held>(token).map_err(|_| Error::invalid_params("tampered or unknown request state"))?;
            Ok(RequestOutcome::Complete(CallToolResult::text(format!("table {} reserved", held.table))))
        })
        .build();

    let sign_in = ToolBuilder::new("sign_in")
        .description("URL elicitation")
        .mrtr_handler(|ctx: RequestContext, _input: NoArguments| async move {
            let action = if ctx.can_elicit() {
                ctx.elicit_url(sign_in_request("sign-in-1")).await?.action
            } else {
                match ctx.input_responses().and_then(|r| r.get("sign_in")) {
                    Some(InputResponse::Elicit(result)) => result.action,
                    _ => {
                        require(&ctx, "url")?;
                        // 2026-07-28 has no elicitationId; the SDK's ElicitUrlParams always sends one.
                        let request = InputRequest::Elicit(ElicitRequestParams::Url(sign_in_request("sign-in-1")));
                        return ask("sign_in", request, None);
                    }
                }
            };
            let said = match action {
                ElicitAction::Accept => "signed in".to_string(),
                other => format!("not signed in: {other:?}"),
            };
            Ok(RequestOutcome::Complete(CallToolResult::text(said)))
        })
        .build();

    // The prompt and the resource ask first, 2026-07-28 only (the clients ask them only there).
    let review = PromptBuilder::new("review")
        .description("asks first")
        .required_arg("pr", "the pull request")
        .mrtr_handler(|ctx: RequestContext, args: HashMap<String, String>| async move {
            let pr = args.get("pr").cloned().unwrap_or_default();
            match answered(&ctx, "focus") {
                Some(focus) => {
                    Ok(RequestOutcome::Complete(GetPromptResult::user_message(format!("Review {pr}: {focus}"))))
                }
                None => {
                    let request = InputRequest::Elicit(ElicitRequestParams::Form(form(
                        "focus",
                        format!("Focus of the review of {pr}?"),
                    )));
                    ask("focus", request, None)
                }
            }
        })
        .build();

    let notes = ResourceBuilder::new("notes://today")
        .name("notes")
        .mrtr_handler(|ctx: RequestContext| async move {
            match answered(&ctx, "topic") {
                Some(topic) => {
                    Ok(RequestOutcome::Complete(ReadResourceResult::text("notes://today", format!("notes on {topic}"))))
                }
                None => {
                    let request =
                        InputRequest::Elicit(ElicitRequestParams::Form(form("topic", "Notes on which topic?".into())));
                    ask("topic", request, None)
                }
            }
        })
        .build();

    McpRouter::new()
        .server_info("tower-mcp-peer", "1.0.0")
        .with_extension(codec)
        .tool(get_weather)
        .tool(book_trip)
        .tool(summarize)
        .tool(list_roots)
        .tool(reserve)
        .tool(sign_in)
        .prompt(review)
        .resource(notes)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let port = server_port();
    let codec = RequestStateCodec::new(process_key(), Duration::from_secs(600))?;
    let app = HttpTransport::new(router(codec)).with_sampling().into_router_at("/mcp");
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
