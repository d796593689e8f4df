//! The core's catalogues, read by the wrapper to build `Rule`, `Protocol`,
//! `TaskStatus`, `Kind` and the rule-to-error-class map. Nothing is listed
//! here by hand: every row comes from a table of the core.

use crate::convert::LimitsInput;
use mrtr::{rules::RULES, tasks::TaskStatus, Limits, Protocol};
use napi_derive::napi;

/// One row of the rule catalogue.
#[napi(object)]
pub struct RuleRow {
    /// The core's variant name (`RetryIdReused`): the key in `Rule`.
    pub key: String,
    /// The stable kebab-case id (`retry-id-reused`).
    pub id: String,
    /// The stable number (the C ABI's error code).
    pub number: u32,
    /// The JSON-RPC error code a peer answers with, or `null`.
    pub code: Option<i32>,
    /// Where the rule comes from.
    pub source: String,
}

/// A name and its wire value.
#[napi(object)]
pub struct NameRow {
    /// The core's variant name (`V2026_07_28`, `InputRequired`).
    pub key: String,
    /// The wire name (`2026-07-28`, `input_required`).
    pub value: String,
}

/// The core's `RULES`, in catalogue order.
#[napi(js_name = "__rules")]
pub fn rules() -> Vec<RuleRow> {
    RULES
        .iter()
        .map(|r| RuleRow {
            key: format!("{:?}", r.id),
            id: r.name.into(),
            number: r.id as u32,
            code: r.code,
            source: r.source.into(),
        })
        .collect()
}

/// `Protocol::ALL`, default first.
#[napi(js_name = "__protocols")]
pub fn protocols() -> Vec<NameRow> {
    Protocol::ALL.iter().map(|p| NameRow { key: format!("{p:?}"), value: p.name().into() }).collect()
}

/// `TaskStatus::ALL`.
#[napi(js_name = "__taskStatuses")]
pub fn task_statuses() -> Vec<NameRow> {
    TaskStatus::ALL.iter().map(|s| NameRow { key: format!("{s:?}"), value: s.name().into() }).collect()
}

/// Every `Kind` of a classified message, in the order of `classify`'s codes.
#[napi(js_name = "__kinds")]
pub fn kinds() -> Vec<NameRow> {
    crate::classify::KINDS.iter().map(|k| NameRow { key: format!("{k:?}"), value: k.name().into() }).collect()
}

/// Every `ResultType`, in the order of `classify`'s codes.
#[napi(js_name = "__resultTypes")]
pub fn result_types() -> Vec<NameRow> {
    crate::classify::RESULT_TYPES
        .iter()
        .map(|(t, name)| NameRow { key: format!("{t:?}"), value: (*name).into() })
        .collect()
}

/// `Limits::DEFAULT`.
#[napi(js_name = "__defaultLimits")]
pub fn default_limits() -> LimitsInput {
    let d = Limits::DEFAULT;
    let n = |v: usize| Some(u32::try_from(v).unwrap_or(u32::MAX));
    LimitsInput {
        max_message_bytes: n(d.max_message_bytes),
        max_depth: n(d.max_depth),
        max_input_requests: n(d.max_input_requests),
        max_request_state_bytes: n(d.max_request_state_bytes),
    }
}

/// `TaskStatus::from_name(from)?.transition(TaskStatus::from_name(to)?)`:
/// `to`, or `task-status-invalid` / `task-transition-invalid`.
#[napi(js_name = "__taskTransition")]
pub fn task_transition(from: String, to: String) -> crate::errors::Result<String> {
    use crate::errors::OrThrow;
    crate::errors::guard(|| {
        let (from, to) = (TaskStatus::from_name(&from).or_throw()?, TaskStatus::from_name(&to).or_throw()?);
        Ok(from.transition(to).or_throw()?.name().into())
    })
}
