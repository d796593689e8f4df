//! The `sep-2322-draft` dialect: MRTR fields on the JSON-RPC envelope.
//!
//! The draft (002) put `input_requests` / `request_state` on the response
//! envelope (no `result`) and `input_responses` / `request_state` on the
//! request envelope, each response wrapped as `{"result": …}`. mrtr reads it by
//! translating to the `sep-2322` shape and writes it by translating back, so
//! every rule is implemented once, on one shape.

use crate::base::protocol::Protocol;
use alloc::{borrow::Cow, string::String};
use serde_json::{Map, Value};

/// Translates a draft message to the `sep-2322` shape. Messages without draft
/// fields come back unchanged.
pub fn to_sep(message: &Value) -> Value {
    let Some(obj) = message.as_object() else { return message.clone() };
    let mut out = obj.clone();
    let requests = out.shift_remove("input_requests");
    let state = out.shift_remove("request_state");
    let responses = out.shift_remove("input_responses");
    let is_call = obj.contains_key("method");
    let is_response = !is_call && !obj.contains_key("result") && !obj.contains_key("error");
    if is_response && (requests.is_some() || state.is_some()) {
        let mut result = Map::new();
        result.insert("resultType".into(), "input_required".into());
        put(&mut result, "inputRequests", requests);
        put(&mut result, "requestState", state);
        put(&mut result, "_meta", out.shift_remove("_meta"));
        out.insert("result".into(), Value::Object(result));
        return Value::Object(out);
    }
    if is_call && (responses.is_some() || state.is_some()) {
        let params = out.entry("params").or_insert_with(|| Value::Object(Map::new()));
        if let Some(params) = params.as_object_mut() {
            put(params, "inputResponses", responses.map(unwrap_responses));
            put(params, "requestState", state);
        }
        return Value::Object(out);
    }
    message.clone()
}

/// Translates a `sep-2322` message to the draft dialect.
pub fn from_sep(message: &Value) -> Value {
    let Some(obj) = message.as_object() else { return message.clone() };
    let mut out = obj.clone();
    if let Some(Value::Object(result)) = obj.get("result") {
        if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            out.shift_remove("result");
            put(&mut out, "input_requests", result.get("inputRequests").cloned());
            put(&mut out, "request_state", result.get("requestState").cloned());
            put(&mut out, "_meta", result.get("_meta").cloned());
        }
        return Value::Object(out);
    }
    if let Some(Value::Object(params)) = out.get_mut("params") {
        let responses = params.shift_remove("inputResponses");
        let state = params.shift_remove("requestState");
        put(&mut out, "input_responses", responses.map(wrap_responses));
        put(&mut out, "request_state", state);
    }
    Value::Object(out)
}

fn put(map: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    if let Some(v) = value {
        map.insert(key.into(), v);
    }
}

/// `{"k": {"result": r}}` → `{"k": r}`; values of another shape are kept, so
/// that validation later names them.
fn unwrap_responses(responses: Value) -> Value {
    let Value::Object(map) = responses else { return responses };
    let unwrap = |(k, v): (String, Value)| match v {
        Value::Object(mut w) if w.len() == 1 && w.contains_key("result") => {
            (k, w.shift_remove("result").unwrap_or(Value::Null))
        }
        other => (k, Value::Array(alloc::vec![other])),
    };
    Value::Object(map.into_iter().map(unwrap).collect())
}

fn wrap_responses(responses: Value) -> Value {
    let Value::Object(map) = responses else { return responses };
    let wrap = |(k, v): (String, Value)| {
        let mut w = Map::new();
        w.insert("result".into(), v);
        (k, Value::Object(w))
    };
    Value::Object(map.into_iter().map(wrap).collect())
}

/// `message` in the `sep-2322` shape: translated when `protocol` is the draft,
/// borrowed as it is otherwise (no copy on the common path).
pub(crate) fn to_sep_in(message: &Value, protocol: Protocol) -> Cow<'_, Value> {
    if protocol.rules().draft_envelope {
        Cow::Owned(to_sep(message))
    } else {
        Cow::Borrowed(message)
    }
}

/// A message built in the `sep-2322` shape, in `protocol`'s shape.
pub(crate) fn from_sep_in(message: Value, protocol: Protocol) -> Value {
    if protocol.rules().draft_envelope {
        from_sep(&message)
    } else {
        message
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn draft_incomplete_response_round_trips() {
        let draft =
            json!({"jsonrpc":"2.0","id":2,"input_requests":{"k":{"method":"roots/list"}},"request_state":"foo"});
        let sep = to_sep(&draft);
        assert_eq!(sep["result"]["resultType"], "input_required");
        assert_eq!(sep["result"]["requestState"], "foo");
        assert_eq!(from_sep(&sep), draft);
    }

    #[test]
    fn draft_retry_unwraps_and_rewraps_responses() {
        let draft = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"w"},
            "input_responses":{"k":{"result":{"action":"cancel"}}},"request_state":"foo"});
        let sep = to_sep(&draft);
        assert_eq!(sep["params"]["inputResponses"]["k"], json!({"action":"cancel"}));
        assert_eq!(from_sep(&sep), draft);
    }

    #[test]
    fn a_bad_wrapper_stays_visible_as_a_non_object() {
        let draft = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"w"},
            "input_responses":{"k":{"action":"cancel"}}});
        assert!(!to_sep(&draft)["params"]["inputResponses"]["k"].is_object());
    }
}
