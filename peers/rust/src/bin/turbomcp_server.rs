//! An MCP server on the third-party Rust SDK `turbomcp` (crates.io, 4.0.0-alpha.5), written the
//! way its README and `elicitation` example show: one `#[server]` impl whose `#[tool]`,
//! `#[prompt]` and `#[resource]` methods ask through `ctx.client` (`elicit`, `create_message`,
//! `list_roots`), served over Streamable HTTP with `run_http`.
//!
//! The SDK decides the path from the request's protocol: on 2026-07-28 an ask the retry has not
//! answered ends the handler with an `InputRequiredResult` and the retry re-runs it from the top
//! (stable keys; earlier answers ride in its signed requestState); on 2025-11-25 the same call is
//! a server request on the POST's stream and the handler waits for its answer.
//!
//! `reserve` sheds load on 2026-07-28 the SDK's way: `store_state` and the `InputRequired` abort
//! with nothing asked give a result with a signed requestState and no inputRequests; the retry
//! reads it back with `load_state`. `sign_in` asks with `elicit_url` (the SDK mints the
//! elicitationId on 2025-11-25 only). The SDK itself refuses an ask the request did not declare
//! (-32021).
//!
//!     turbomcp-server PORT

// Sampling and roots are marked deprecated upstream but still in both protocols: the scenarios use them.
#![allow(deprecated)]

use mrtr_rust_peers::args::Held;
use mrtr_rust_peers::{server_port, SIGN_IN_MESSAGE, SIGN_IN_URL};
use serde_json::{json, Value};
use turbomcp::http::{HttpConfig, ServeHttp};
use turbomcp::prelude::*;
use turbomcp::ClientHandle;

/// Ask a one-field form under `key` and return the answer.
async fn ask(client: &ClientHandle, key: &str, message: String) -> McpResult<String> {
    let schema = json!({"type": "object", "properties": {key: {"type": "string"}}, "required": [key]});
    let outcome = client.elicit(key, neutral::ElicitParams::new(message, schema)).await?;
    match outcome.content.get(key).and_then(Value::as_str) {
        Some(answer) if outcome.accepted() => Ok(answer.to_owned()),
        _ => Err(McpError::invalid_params(format!("no {key} given"))),
    }
}

#[derive(Clone)]
struct Peer;

#[server(name = "turbomcp-peer", version = "1.0.0")]
impl Peer {
    #[tool(description = "one round")]
    async fn get_weather(&self, ctx: &CallToolContext, location: String) -> McpResult<String> {
        let units = ask(&ctx.client, "units", "Which units?".into()).await?;
        Ok(format!("{location}: 22 degrees {units}"))
    }

    #[tool(description = "two rounds")]
    async fn book_trip(&self, ctx: &CallToolContext, destination: String) -> McpResult<String> {
        let date = ask(&ctx.client, "date", "When?".into()).await?;
        let seat = ask(&ctx.client, "seat", format!("Which seat on {date}?")).await?;
        Ok(format!("{destination} on {date}, seat {seat}"))
    }

    #[tool(description = "sampling")]
    async fn summarize(&self, ctx: &CallToolContext, text: String) -> McpResult<String> {
        let request = json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": format!("Summarise: {text}")}}],
            "maxTokens": 50,
        });
        let answer = ctx.client.create_message("summary", request).await?;
        let said = answer.pointer("/content/text").and_then(Value::as_str).unwrap_or_default();
        Ok(format!("summary: {said}"))
    }

    #[tool(description = "roots")]
    async fn list_roots(&self, ctx: &CallToolContext) -> McpResult<String> {
        let answer = ctx.client.list_roots("roots").await?;
        let roots = answer.get("roots").and_then(Value::as_array).cloned().unwrap_or_default();
        let uris: Vec<&str> = roots.iter().filter_map(|r| r.get("uri").and_then(Value::as_str)).collect();
        Ok(uris.join(", "))
    }

    #[tool(description = "load shedding: a round with state only")]
    async fn reserve(&self, ctx: &CallToolContext, table: String) -> McpResult<String> {
        if ctx.base.protocol_version != turbomcp::ProtocolVersion::V2026_07_28 {
            return Ok(format!("table {table} reserved"));
        }
        match ctx.client.load_state::<Held>()? {
            Some(held) => Ok(format!("table {} reserved", held.table)),
            None => {
                // What this instance did so far, and no questions: any instance picks it up.
                ctx.client.store_state(&Held { table })?;
                Err(McpError::InputRequired)
            }
        }
    }

    #[tool(description = "URL elicitation")]
    async fn sign_in(&self, ctx: &CallToolContext) -> McpResult<String> {
        let outcome =
            ctx.client.elicit_url("sign_in", neutral::ElicitUrlParams::new(SIGN_IN_MESSAGE, SIGN_IN_URL)).await?;
        Ok(if outcome.accepted() { "signed in".into() } else { format!("not signed in: {:?}", outcome.action) })
    }

    #[prompt(description = "asks first")]
    async fn review(&self, ctx: &GetPromptContext, pr: String) -> McpResult<String> {
        let focus = ask(&ctx.client, "focus", format!("Focus of the review of {pr}?")).await?;
        Ok(format!("Review {pr}: {focus}"))
    }

    #[resource("notes://today", name = "notes")]
    async fn notes(&self, ctx: &ReadResourceContext) -> McpResult<String> {
        let topic = ask(&ctx.client, "topic", "Notes on which topic?".into()).await?;
        Ok(format!("notes on {topic}"))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = server_port();
    Peer.into_server().run_http(([127, 0, 0, 1], port).into(), HttpConfig::new()).await?;
    Ok(())
}
