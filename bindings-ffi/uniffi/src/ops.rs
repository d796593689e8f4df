//! The stateless functions over the façade (`mrtr_facade`): `classify`,
//! `check`, `retry`, `respond`, `resume`, `task_update`, task transitions, and
//! the tables.

use crate::error::{guard, usage, wire, Result};
use crate::exports::Violation;
use crate::ints::unsigned;
use crate::ErrorArea;
pub use mrtr::{check::Side, Kind as MessageKind, ResultType};
use mrtr::{Error, Protocol, RuleId};
use mrtr_facade as facade;
use serde::{Deserialize, Deserializer};

/// What a message is (`InputRequired`'s corpus name is `input_required`).
#[uniffi::remote(Enum)]
pub enum MessageKind {
    /// A request: `method` and `id`.
    Request,
    /// A notification: `method`, no `id`.
    Notification,
    /// A result that is not `input_required` (complete, task, or untyped).
    Result,
    /// A result with `resultType: "input_required"` (or the draft's envelope fields).
    InputRequired,
    /// An error response.
    Error,
}

/// The `resultType` a result declared, as the protocol reads it.
#[uniffi::remote(Enum)]
pub enum ResultType {
    /// `"complete"`, or absent.
    Complete,
    /// `"input_required"`.
    InputRequired,
    /// `"task"` (the Tasks extension).
    Task,
}

/// The options of a call under the protocol named `protocol` (an unknown name
/// is `jsonrpc-invalid`, the core's decision).
pub(crate) fn options(protocol: &str, max_rounds: Option<u32>) -> Result<facade::Options> {
    Ok(facade::Options { protocol: Protocol::parse(protocol)?, max_rounds, ..Default::default() })
}

/// The checker's options: the protocol, the round bound and the multi-turn
/// `transport` (`sep-1858`, `sep-1335`; absent: plain Streamable HTTP), read
/// by the core as the options JSON (an unknown transport is
/// `usage-invalid-argument`).
pub(crate) fn check_options(protocol: &str, max_rounds: u32, transport: Option<String>) -> Result<facade::Options> {
    let o = serde_json::json!({"protocol": protocol, "maxRounds": max_rounds, "transport": transport});
    Ok(facade::Options::from_value(&o)?)
}

/// A JSON value of the façade's output as this binding's JSON text.
pub(crate) fn json_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    serde_json::Value::deserialize(d).map(|v| v.to_string())
}

/// The outcome of [`classify`].
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Classified {
    /// What the message is.
    pub kind: MessageKind,
    /// Its id as JSON text (`1`, `"a"`), `null` when it has none.
    pub id_json: String,
    /// Its method, for requests and notifications.
    pub method: Option<String>,
    /// For results: the declared type (absent reads as complete).
    pub result_type: Option<ResultType>,
}

/// Classifies and validates one raw message under `protocol`: everything one
/// message alone can show.
#[uniffi::export]
pub fn classify(message: String, protocol: String) -> Result<Classified> {
    classify_bytes(message.into_bytes(), protocol)
}

/// [`classify`] over raw bytes (which need not be UTF-8: such bytes are
/// `jsonrpc-parse-error`).
#[uniffi::export]
pub fn classify_bytes(message: Vec<u8>, protocol: String) -> Result<Classified> {
    guard(|| {
        let c = facade::classify(&message, &options(&protocol, None)?)?;
        // An id always serializes (`mrtr::wire`); no id is `null`.
        let id_json = serde_json::to_string(&c.id).unwrap_or_default();
        Ok(Classified { kind: c.kind, id_json, method: c.method.map(|m| m.into_owned()), result_type: c.result_type })
    })
}

/// Who sent a message of a conversation.
#[uniffi::remote(Enum)]
pub enum Side {
    /// The MCP client.
    Client,
    /// The MCP server.
    Server,
}

/// Checks a whole conversation: `transcript_json` is an array of entries
/// `{"from": "client"|"server", "message": <JSON-RPC message>, "stream": "post:<id>"|"get"}`
/// or HTTP entries `{"from", "at", "http": {"exchange", …}}` (recorded
/// exchanges), checked under the multi-turn `transport` (`sep-1858`,
/// `sep-1335`; absent: plain Streamable HTTP). Violations come in transcript
/// order, each (rule, index) once.
#[uniffi::export(default(transport = None))]
pub fn check(
    transcript_json: String,
    protocol: String,
    max_rounds: i32,
    transport: Option<String>,
) -> Result<Vec<Violation>> {
    guard(|| {
        let o = check_options(&protocol, unsigned(max_rounds, "max_rounds")?, transport)?;
        wire(&facade::check(transcript_json.as_bytes(), &o)?)
    })
}

/// Builds the `tasks/update` request (Tasks extension, `2026-07-28`) that
/// answers the `input_required` task shown by `get_response_json`, the answer
/// to `get_request_json`.
#[uniffi::export]
pub fn task_update(
    get_request_json: String,
    get_response_json: String,
    input_responses_json: Option<String>,
    id_json: String,
) -> Result<String> {
    guard(|| {
        let (request, response) = (get_request_json.as_bytes(), get_response_json.as_bytes());
        let (o, responses) = (facade::Options::default(), input_responses_json.as_deref().map(str::as_bytes));
        Ok(facade::task_update(request, response, responses, id_json.as_bytes(), &o)?)
    })
}

/// One row of the rule catalogue.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct RuleInfo {
    /// The stable number (the C ABI's error code); never reused.
    pub number: i32,
    /// The kebab-case id, as in `docs/RULES.md`.
    pub name: String,
    /// The JSON-RPC error code a peer answers with, if any.
    pub code: Option<i32>,
    /// Where the rule comes from.
    pub source: String,
    /// The area: the variant of `MrtrError` its failures raise.
    pub area: ErrorArea,
}

/// The whole rule catalogue, in the order of `docs/RULES.md`.
#[uniffi::export]
pub fn rules() -> Vec<RuleInfo> {
    let row = |r: &mrtr::rules::RuleInfo| RuleInfo {
        number: i32::from(r.id as u16),
        name: r.name.into(),
        code: r.code,
        source: r.source.into(),
        area: r.area,
    };
    mrtr::rules::RULES.iter().map(row).collect()
}

/// The protocol names, default first.
#[uniffi::export]
pub fn protocols() -> Vec<String> {
    Protocol::ALL.iter().map(|p| p.name().to_string()).collect()
}

/// For the binding's own tests only: panics with `message`, inside the
/// boundary that turns a panic into `MrtrError.Panic` (`guarded`), or outside
/// it, where UniFFI's own catch turns it into its untyped internal error. Not
/// part of the API.
#[doc(hidden)]
#[uniffi::export]
pub fn test_only_panic(guarded: bool, message: String) -> Result<()> {
    if guarded {
        guard(|| panic!("{message}"))
    } else {
        panic!("{message}")
    }
}

/// For the binding's own tests only: fails with the error of rule `rule` (the
/// class of its area), so that a test can check every rule of the table. Not
/// part of the API.
#[doc(hidden)]
#[uniffi::export]
pub fn test_only_error(rule: String) -> Result<()> {
    let id = RuleId::from_name(&rule).ok_or_else(|| usage(format!("no rule {rule:?}")))?;
    Err(Error::with(id, format!("the error of {rule}")).into())
}
