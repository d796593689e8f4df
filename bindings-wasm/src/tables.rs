//! The core's catalogues, read by the wrapper to build `Rule`, `Protocol`,
//! `TaskStatus`, `Kind` and the rule-to-error-class map. Nothing is listed
//! here by hand: every row comes from a table of the core. Each returns JSON
//! text, parsed once when the wrapper loads.

use crate::convert;
use crate::errors::{OrThrow, Result};
use mrtr::{rules::RULES, tasks::TaskStatus, Limits, Protocol};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// The core's `RULES`, in catalogue order: `[{key, id, number, code, source}]`
/// (`key` is the core's variant name, `RetryIdReused`).
#[wasm_bindgen(js_name = "__rules")]
pub fn rules() -> String {
    let rows: Vec<Value> = RULES
        .iter()
        .map(|r| json!({"key": format!("{:?}", r.id), "id": r.name, "number": r.id as u16, "code": r.code, "source": r.source}))
        .collect();
    convert::text(&Value::Array(rows))
}

fn names<T: std::fmt::Debug + Copy>(all: &[T], name: impl Fn(T) -> &'static str) -> String {
    let rows: Vec<Value> = all.iter().map(|v| json!({"key": format!("{v:?}"), "value": name(*v)})).collect();
    convert::text(&Value::Array(rows))
}

/// `Protocol::ALL`, default first: `[{key, value}]`.
#[wasm_bindgen(js_name = "__protocols")]
pub fn protocols() -> String {
    names(&Protocol::ALL, Protocol::name)
}

/// `TaskStatus::ALL`: `[{key, value}]`.
#[wasm_bindgen(js_name = "__taskStatuses")]
pub fn task_statuses() -> String {
    names(&TaskStatus::ALL, TaskStatus::name)
}

/// Every `Kind` of a classified message: `[{key, value}]`.
#[wasm_bindgen(js_name = "__kinds")]
pub fn kinds() -> String {
    use mrtr::Kind::*;
    names(&[Request, Notification, Result, InputRequired, Error], mrtr::Kind::name)
}

/// `Limits::DEFAULT`, as `{maxMessageBytes, maxDepth, maxInputRequests, maxRequestStateBytes}`.
#[wasm_bindgen(js_name = "__defaultLimits")]
pub fn default_limits() -> String {
    let d = Limits::DEFAULT;
    convert::text(&json!({
        "maxMessageBytes": d.max_message_bytes,
        "maxDepth": d.max_depth,
        "maxInputRequests": d.max_input_requests,
        "maxRequestStateBytes": d.max_request_state_bytes,
    }))
}

/// `TaskStatus::from_name(from)?.transition(TaskStatus::from_name(to)?)`:
/// `to`, or `task-status-invalid` / `task-transition-invalid`.
#[wasm_bindgen(js_name = "__taskTransition")]
pub fn task_transition(from: &str, to: &str) -> Result<String> {
    let (from, to) = (TaskStatus::from_name(from).or_throw()?, TaskStatus::from_name(to).or_throw()?);
    Ok(from.transition(to).or_throw()?.name().into())
}
