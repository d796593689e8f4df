//! A client's session: what it declares once (the protocol it asks for
//! first, its capabilities, its name), and the requests it makes from that,
//! each under a fresh id with the `_meta` its protocol wants on every request.
//!
//! In `2026-07-28` a server reads a client's version and capabilities from
//! each request (`RequestMetaObject`: `io.modelcontextprotocol/protocolVersion`
//! and `clientCapabilities` required, `clientInfo` recommended) and must not
//! infer them from earlier ones: a host that writes `_meta` by hand on every
//! request forgets it once. The session writes it, and an [`super::Operation`]
//! carries the request; the HTTP header fields that mirror `_meta` follow
//! from the body ([`crate::protocol::mirrored_fields`]). In protocols that
//! settle version and capabilities at `initialize`, the session writes no
//! `_meta` of its own, and makes that handshake's request instead
//! ([`Session::initialize`], [`Session::initialized`]).
//!
//! Ids are whole numbers counting up from the first (default 1): unique in
//! the session, and never of the shape of an operation's retry ids
//! (`"7.1"`, strings), so the two never meet.

use crate::{
    base::error::{err, Result},
    base::protocol::{Protocol, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION},
    base::rules::RuleId,
};
use alloc::string::String;
use serde_json::{json, Map, Value};

/// `_meta` key of the client's name and version (2026-07-28, recommended).
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// What a client declares once.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionConfig {
    /// The protocol version asked for first.
    pub protocol: Protocol,
    /// The client's `ClientCapabilities` (an object; `{}`: no optional capability).
    pub capabilities: Value,
    /// The client's `Implementation` (`{"name", "version", …}`), or none.
    pub client_info: Option<Value>,
    /// The id of the first request.
    pub first_id: u64,
}

impl Default for SessionConfig {
    fn default() -> SessionConfig {
        SessionConfig { protocol: Protocol::default(), capabilities: json!({}), client_info: None, first_id: 1 }
    }
}

/// A client's session: requests with fresh ids and the declared `_meta`,
/// and what the server said of its tools.
#[derive(Clone, Debug)]
pub struct Session {
    config: SessionConfig,
    /// The next request's id; none once 2^64 ids were given out.
    next_id: Option<u64>,
    /// The tools the server's `tools/list` called harmless twice.
    tools: super::repeat::Tools,
}

impl Session {
    /// A session declaring `config`: `capabilities` an object, `client_info`
    /// an object with string `name` and `version`, else `usage-invalid-argument`.
    pub fn new(config: SessionConfig) -> Result<Session> {
        if !config.capabilities.is_object() {
            return Err(err!(UsageInvalidArgument, "the client's capabilities are an object (ClientCapabilities)"));
        }
        if let Some(info) = &config.client_info {
            let named = |k: &str| info.get(k).is_some_and(Value::is_string);
            if !(named("name") && named("version")) {
                return Err(err!(UsageInvalidArgument, "clientInfo is an Implementation: a string name and version"));
            }
        }
        Ok(Session { next_id: Some(config.first_id), config, tools: super::repeat::Tools::new() })
    }

    /// Reads a page of the server's `tools/list` result: which tools it
    /// annotates `readOnlyHint` or `idempotentHint` ([`super::repeat::Tools`]).
    pub fn handle_tools_list(&mut self, result: &Value) {
        self.tools.handle_tools_list(result);
    }

    /// Whether `request` may run twice by what the server said of its tool:
    /// what to set [`super::operation::Config::idempotent`] from.
    pub fn is_idempotent(&self, request: &Value) -> bool {
        self.tools.is_idempotent(request)
    }

    /// What the session declares.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The request of `method` with `params` (an object, or none) under the
    /// next id. Where the protocol reads them from every request, `params._meta`
    /// gains the session's protocol version, capabilities and client name;
    /// other `_meta` members of `params` (a `progressToken`, a log level) stay,
    /// and one naming what the session declares is `usage-invalid-argument`
    /// (the session says it, once).
    pub fn request(&mut self, method: &str, params: Option<Value>) -> Result<Value> {
        if method.is_empty() {
            return Err(err!(UsageInvalidArgument, "a request names its method"));
        }
        let mut params = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(p)) => p,
            Some(_) => return Err(err!(UsageInvalidArgument, "a request's params are an object")),
        };
        if self.config.protocol.rules().request_meta {
            let meta = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
            let Some(meta) = meta.as_object_mut() else {
                return Err(err!(UsageInvalidArgument, "params._meta is an object"));
            };
            self.declare(meta)?;
        }
        let id = self.next_id.ok_or_else(|| {
            crate::base::error::Error::new(
                RuleId::UsageInvalidArgument,
                "the session's ids are used up (2^64 requests)",
            )
        })?;
        self.next_id = id.checked_add(1);
        let mut request = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_empty() {
            request["params"] = Value::Object(params);
        }
        Ok(request)
    }

    /// `tools/call` of the tool `name` with `arguments` (an object, or none).
    pub fn call_tool(&mut self, name: &str, arguments: Option<Value>) -> Result<Value> {
        self.request("tools/call", Some(named(name, "arguments", arguments)?))
    }

    /// `prompts/get` of the prompt `name` with `arguments` (an object of strings, or none).
    pub fn get_prompt(&mut self, name: &str, arguments: Option<Value>) -> Result<Value> {
        self.request("prompts/get", Some(named(name, "arguments", arguments)?))
    }

    /// `resources/read` of `uri`.
    pub fn read_resource(&mut self, uri: &str) -> Result<Value> {
        self.request("resources/read", Some(json!({ "uri": uri })))
    }

    /// The `initialize` request under the next id, where the protocol settles
    /// version and capabilities once at the start (`2025-11-25`: the
    /// protocol version asked for, the capabilities, the client's name, which
    /// that protocol requires: `mrtr` and its version when none was
    /// declared); none where every request declares them (`2026-07-28`).
    pub fn initialize(&mut self) -> Result<Option<Value>> {
        if self.config.protocol.rules().request_meta {
            return Ok(None);
        }
        let info = self
            .config
            .client_info
            .clone()
            .unwrap_or_else(|| json!({"name": "mrtr", "version": env!("CARGO_PKG_VERSION")}));
        let params = json!({"protocolVersion": self.config.protocol.name(), "capabilities": self.config.capabilities,
                            "clientInfo": info});
        self.request("initialize", Some(params)).map(Some)
    }

    /// The `notifications/initialized` notification, sent once the server
    /// answered `initialize`.
    pub fn initialized(&self) -> Value {
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    }

    /// Writes what the session declares into a request's `_meta`.
    fn declare(&self, meta: &mut Map<String, Value>) -> Result<()> {
        let ours = [META_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO];
        if let Some(key) = ours.iter().find(|k| meta.contains_key(**k)) {
            return Err(err!(UsageInvalidArgument, "params._meta names {key}, which the session declares"));
        }
        meta.insert(META_PROTOCOL_VERSION.into(), self.config.protocol.name().into());
        meta.insert(META_CLIENT_CAPABILITIES.into(), self.config.capabilities.clone());
        if let Some(info) = &self.config.client_info {
            meta.insert(META_CLIENT_INFO.into(), info.clone());
        }
        Ok(())
    }
}

/// `{"name": name, <field>: value}` (the field left out when none); an empty
/// name, or a value that is no object, is `usage-invalid-argument`.
fn named(name: &str, field: &str, value: Option<Value>) -> Result<Value> {
    if name.is_empty() {
        return Err(err!(UsageInvalidArgument, "the name is not empty"));
    }
    let mut params = json!({ "name": name });
    match value {
        None | Some(Value::Null) => {}
        Some(v @ Value::Object(_)) => params[field] = v,
        Some(_) => return Err(err!(UsageInvalidArgument, "{field} are an object")),
    }
    Ok(params)
}

#[cfg(test)]
mod tests;
