//! [`Session`]: the client's session ([`mrtr::client::Session`]) over JSON
//! text: its configuration `{"protocol", "capabilities", "clientInfo",
//! "firstId"}` (every field optional) in, each request out as JSON text.

use super::{parse_arg, text, usage_owned};
use crate::kinds::*;
use alloc::format;
use mrtr::{
    client::{self, SessionConfig},
    error::Result,
    Protocol,
};
use mrtr_facade_macros::export;
use serde_json::Value;

/// A client's session: what it declares once (`{"protocol", "capabilities", "clientInfo", "firstId"}`),
/// and the requests it makes from that, each under a fresh id with the `_meta` its protocol wants on
/// every request (in `2026-07-28`: the protocol version, the capabilities, the client's name).
#[export(machine, left_out = crate::exports::WASM_SIZE)]
pub struct Session(client::Session);

impl From<client::Session> for Session {
    /// A session a binding built from its own idiom's settings (Python's keywords).
    fn from(session: client::Session) -> Session {
        Session(session)
    }
}

impl Session {
    /// The protocol the session speaks.
    #[must_use]
    pub fn protocol(&self) -> mrtr::Protocol {
        self.0.config().protocol
    }

    /// A session declaring `config` (`{protocol, capabilities, clientInfo, firstId}`; none: the default
    /// protocol, no capabilities).
    #[export(shapes(config = SessionConfig))]
    pub fn new(config: JsonOrEmpty) -> Result<Session> {
        let mut c = SessionConfig::default();
        if !config.is_empty() {
            let Value::Object(fields) = parse_arg(config, "the session's configuration")? else {
                return Err(usage_owned("the session's configuration is an object".into()));
            };
            for (k, v) in fields {
                match (k.as_str(), v) {
                    (_, Value::Null) => {}
                    ("protocol", Value::String(p)) => c.protocol = Protocol::parse(&p)?,
                    ("capabilities", caps) => c.capabilities = caps,
                    ("clientInfo", info) => c.client_info = Some(info),
                    ("firstId", Value::Number(n)) if n.as_u64().is_some() => c.first_id = n.as_u64().unwrap_or(1),
                    _ => {
                        return Err(usage_owned(format!("the session's configuration has no field {k:?} of that type")))
                    }
                }
            }
        }
        Ok(Session(client::Session::new(c)?))
    }

    /// The request of `method` with `params` (an object, or none) under the next id, `params._meta`
    /// carrying what the session declares where the protocol reads it from every request; a `_meta` member
    /// naming one of those is `usage-invalid-argument`.
    #[export]
    pub fn request(&mut self, method: &str, params: OptJsonText) -> Result<JsonString> {
        let params = params.map(|p| parse_arg(p, "the params")).transpose()?;
        Ok(text(&self.0.request(method, params)?))
    }

    /// The `tools/call` request of the tool `name` with `arguments` (an object, or none).
    ///
    /// `tools/call` of `name` with `arguments` (JSON text of an object, or none).
    #[export]
    pub fn call_tool(&mut self, name: &str, arguments: OptJsonText) -> Result<JsonString> {
        let arguments = arguments.map(|a| parse_arg(a, "the arguments")).transpose()?;
        Ok(text(&self.0.call_tool(name, arguments)?))
    }

    /// The `prompts/get` request of the prompt `name` with `arguments` (an object, or none).
    ///
    /// `prompts/get` of `name` with `arguments` (JSON text of an object, or none).
    #[export]
    pub fn get_prompt(&mut self, name: &str, arguments: OptJsonText) -> Result<JsonString> {
        let arguments = arguments.map(|a| parse_arg(a, "the arguments")).transpose()?;
        Ok(text(&self.0.get_prompt(name, arguments)?))
    }

    /// The `initialize` request under the next id where the protocol settles version and capabilities once
    /// at the start (`2025-11-25`), or none where every request declares them.
    #[export]
    pub fn initialize(&mut self) -> Result<Option<JsonString>> {
        Ok(self.0.initialize()?.map(|r| text(&r)))
    }

    /// The `notifications/initialized` notification, sent once the server answered `initialize`.
    #[export]
    pub fn initialized(&self) -> JsonString {
        text(&self.0.initialized())
    }

    /// The `resources/read` request of `uri`.
    ///
    /// `resources/read` of `uri`.
    #[export]
    pub fn read_resource(&mut self, uri: &str) -> Result<JsonString> {
        Ok(text(&self.0.read_resource(uri)?))
    }

    /// Reads a page of the server's `tools/list` result: the tools it annotates `readOnlyHint` or
    /// `idempotentHint`, which `is_idempotent` then names (a later page or listing replaces what it says of
    /// a tool).
    ///
    /// Reads a page of a `tools/list` result (JSON text): the tools annotated
    /// read-only or idempotent ([`client::Session::handle_tools_list`]).
    #[export]
    pub fn handle_tools_list(&mut self, result: JsonText) -> Result<()> {
        self.0.handle_tools_list(&parse_arg(result, "the tools/list result")?);
        Ok(())
    }

    /// Whether `request` is a `tools/call` of a tool the server's latest `tools/list` called read-only or
    /// idempotent: what to set an `Operation`'s `idempotent` from (only then is a first request hedged, or
    /// sent again once a server may have taken it).
    ///
    /// Whether `request` (JSON text) may run twice by what the server said
    /// of its tool ([`client::Session::is_idempotent`]).
    #[export]
    pub fn is_idempotent(&self, request: JsonText) -> Result<bool> {
        Ok(self.0.is_idempotent(&parse_arg(request, "the request")?))
    }
}
