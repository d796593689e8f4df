//! Requests as the builders (client, server) and the checker read them: small
//! helpers over parsed messages (`serde_json::Value`) and the request-level
//! rules they share (`_meta`, capabilities, task input). Not on the hot path.

use crate::{
    base::error::{err, Result},
    base::limits::Limits,
    base::protocol::Protocol,
    one_message::envelope,
    read::validate,
    read::view::{
        CapabilitiesView, EnvelopeView, InputRequestView, Map as ViewMap, Obj, ParamsView, Prim, Read, ResponseView, J,
    },
    request::input::InputKind,
};
use alloc::string::String;
use serde_json::{Map, Value};

/// A final result's fields (`CallToolResult`, `GetPromptResult`,
/// `ReadResourceResult`), which an `input_required` result carries none of:
/// a client may read them as the final answer and never retry.
pub(crate) const FINAL_RESULT_FIELDS: &[&str] = &["content", "structuredContent", "isError", "messages", "contents"];

/// The string `requestState` of a state-only `input_required` result (load
/// shedding: a state and no question; `"inputRequests": {}` asks none either).
pub(crate) fn state_only(result: &Value) -> Option<&str> {
    let asks = result.get("inputRequests").and_then(Value::as_object).is_some_and(|r| !r.is_empty());
    result.get("requestState").and_then(Value::as_str).filter(|_| !asks)
}

/// `params` of a request, if it is an object.
pub(crate) fn params(message: &Value) -> Option<&Map<String, Value>> {
    message.get("params")?.as_object()
}

/// `params` without the MRTR fields.
pub(crate) fn salient_params(message: &Value) -> Map<String, Value> {
    let mut p = params(message).cloned().unwrap_or_default();
    for field in crate::base::protocol::RETRY_FREE_PARAMS {
        p.shift_remove(field);
    }
    p
}

/// What a request acts on: the tool or prompt `name`, or the resource `uri`.
pub(crate) fn target(message: &Value) -> Option<&str> {
    let p = params(message)?;
    p.get("name").or_else(|| p.get("uri"))?.as_str()
}

/// A JSON-RPC request id: a string or an integer.
pub(crate) fn check_id(id: &Value) -> Result<()> {
    validate::request_id(J::Value(id)).map(drop)
}

/// Reads a request: it must be a valid JSON-RPC request with an id.
pub(crate) fn read_request(message: &Value) -> Result<EnvelopeView<'_>> {
    let view = envelope::read(message)?;
    if view.method.as_str().is_none() || !matches!(view.id, Prim::Int(_) | Prim::UInt(_) | Prim::Str(_)) {
        return Err(err!(JsonrpcInvalid, "expected a JSON-RPC request with a method and an id"));
    }
    if !view.result.is_absent() || !view.error.is_absent() {
        return Err(err!(JsonrpcInvalid, "a request carries no result or error"));
    }
    if matches!(view.params, Obj::Other) {
        return Err(err!(JsonrpcInvalid, "\"params\" must be an object"));
    }
    Ok(view)
}

/// `tasks/input_response` (Tasks in core) or `tasks/update` (extension).
pub(crate) fn is_task_input(method: &str, protocol: Protocol) -> bool {
    use crate::base::protocol::TasksFlavor;
    match protocol.rules().tasks {
        TasksFlavor::Core => method == "tasks/input_response",
        TasksFlavor::Extension => method == "tasks/update",
    }
}

/// A task input message names its task and carries responses.
pub(crate) fn check_task_input(method: &str, params: &ParamsView<'_>) -> Result<()> {
    let task_id = if method == "tasks/update" {
        params.task_id.as_str()
    } else {
        params.meta.get().and_then(|m| m.related_task.get()).and_then(|t| t.task_id.as_str())
    };
    if task_id.is_none() || params.input_responses.entries().is_none() {
        return Err(err!(TaskInputResponseWithoutTask, "{method} needs a task id and inputResponses"));
    }
    Ok(())
}

/// In `2026-07-28`, the request's `_meta` declares version and capabilities.
pub(crate) fn required_meta<'v>(
    params: Option<&'v ParamsView<'v>>,
    protocol: Protocol,
) -> Result<Option<&'v CapabilitiesView<'v>>> {
    if !protocol.rules().request_meta {
        return Ok(None);
    }
    let meta = params.and_then(|p| p.meta.get());
    let version = meta.map(|m| &m.protocol_version);
    let caps = meta.and_then(|m| m.client_capabilities.get());
    match (version, caps) {
        (Some(Prim::Str(_)), Some(caps)) => Ok(Some(caps)),
        _ => Err(err!(
            RequestMetaMissing,
            "a {protocol} request carries _meta io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities"
        )),
    }
}

/// Every input request asks for a declared capability.
pub(crate) fn check_capabilities(
    requests: &ViewMap<'_, Obj<InputRequestView<'_>>>,
    caps: &CapabilitiesView<'_>,
) -> Result<()> {
    for (key, request) in requests.entries().unwrap_or_default() {
        let Some(request) = request.get() else { continue };
        if let Some(kind) = InputKind::of(request).filter(|k| !k.declared_in(request, caps)) {
            return Err(err!(
                InputRequestCapabilityMissing,
                "inputRequests[{key:?}] needs a capability ({}) the request did not declare",
                kind.method()
            ));
        }
    }
    Ok(())
}

pub(crate) fn read_view<'v, T: Read<'v>>(value: &'v Value) -> Result<T> {
    Ok(T::read(Some(value)))
}

/// Reads an `inputResponses` object given by a caller.
pub(crate) fn read_responses<'v>(value: &'v Value, limits: &Limits) -> Result<ViewMap<'v, Obj<ResponseView<'v>>>> {
    let map: ViewMap<'_, Obj<ResponseView<'_>>> = read_view(value)?;
    validate::responses_shape(map.node(), false, limits)?;
    Ok(map)
}
