//! Small helpers over parsed messages (`serde_json::Value`), for the builders
//! and the checker. Not on the hot path.

use crate::{
    envelope,
    error::{err, Result},
    view::{EnvelopeView, Obj, Prim},
};
use alloc::string::String;
use serde_json::{Map, Value};

/// The MRTR fields of request params, left out when comparing a retry with its original.
pub(crate) const MRTR_PARAMS: [&str; 3] = ["inputResponses", "requestState", "_meta"];

/// `params` of a request, if it is an object.
pub(crate) fn params(message: &Value) -> Option<&Map<String, Value>> {
    message.get("params")?.as_object()
}

/// `params` without the MRTR fields.
pub(crate) fn salient_params(message: &Value) -> Map<String, Value> {
    let mut p = params(message).cloned().unwrap_or_default();
    for field in MRTR_PARAMS {
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
    match id {
        Value::String(_) => Ok(()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Ok(()),
        _ => Err(err!(JsonrpcInvalid, "a request id is a string or an integer")),
    }
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
