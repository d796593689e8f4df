//! [`Session`]: the client's session ([`mrtr::client::Session`]) over JSON
//! text: its configuration `{"protocol", "capabilities", "clientInfo",
//! "firstId"}` (every field optional) in, each request out as JSON text.

use super::{parse_arg, text, usage_owned};
use alloc::{format, string::String};
use mrtr::{
    client::{self, SessionConfig},
    error::Result,
    Protocol,
};
use serde_json::Value;

/// A client's session: requests with fresh ids and the declared `_meta`.
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

    /// A session declaring `config` (JSON text; empty: every default).
    pub fn new(config: &[u8]) -> Result<Session> {
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

    /// The request of `method` with `params` (JSON text of an object, or none).
    pub fn request(&mut self, method: &str, params: Option<&[u8]>) -> Result<String> {
        let params = params.map(|p| parse_arg(p, "the params")).transpose()?;
        Ok(text(&self.0.request(method, params)?))
    }

    /// `tools/call` of `name` with `arguments` (JSON text of an object, or none).
    pub fn call_tool(&mut self, name: &str, arguments: Option<&[u8]>) -> Result<String> {
        let arguments = arguments.map(|a| parse_arg(a, "the arguments")).transpose()?;
        Ok(text(&self.0.call_tool(name, arguments)?))
    }

    /// `prompts/get` of `name` with `arguments` (JSON text of an object, or none).
    pub fn get_prompt(&mut self, name: &str, arguments: Option<&[u8]>) -> Result<String> {
        let arguments = arguments.map(|a| parse_arg(a, "the arguments")).transpose()?;
        Ok(text(&self.0.get_prompt(name, arguments)?))
    }

    /// The `initialize` request where the protocol has that handshake, or none.
    pub fn initialize(&mut self) -> Result<Option<String>> {
        Ok(self.0.initialize()?.map(|r| text(&r)))
    }

    /// The `notifications/initialized` notification.
    pub fn initialized(&self) -> String {
        text(&self.0.initialized())
    }

    /// `resources/read` of `uri`.
    pub fn read_resource(&mut self, uri: &str) -> Result<String> {
        Ok(text(&self.0.read_resource(uri)?))
    }

    /// Reads a page of a `tools/list` result (JSON text): the tools annotated
    /// read-only or idempotent ([`client::Session::handle_tools_list`]).
    pub fn handle_tools_list(&mut self, result: &[u8]) -> Result<()> {
        self.0.handle_tools_list(&parse_arg(result, "the tools/list result")?);
        Ok(())
    }

    /// Whether `request` (JSON text) may run twice by what the server said
    /// of its tool ([`client::Session::is_idempotent`]).
    pub fn is_idempotent(&self, request: &[u8]) -> Result<bool> {
        Ok(self.0.is_idempotent(&parse_arg(request, "the request")?))
    }
}
