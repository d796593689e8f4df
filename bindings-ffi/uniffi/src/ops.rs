//! The stateless functions: `classify`, `check`, `retry`, `respond`,
//! `resume`, `task_update`, task transitions, and the tables.

use crate::error::{guard, ErrorArea, MrtrError, Result};
use crate::json::{self, parse, text};
use mrtr::{check as core_check, client, server, tasks::TaskStatus, Limits, Protocol, RuleId};
use serde_json::Value;

/// The protocol named `name` (`2026-07-28`, `sep-2322`, `sep-2322-draft`,
/// `2025-11-25`); any other name is `jsonrpc-invalid`.
pub(crate) fn protocol(name: &str) -> Result<Protocol> {
    Protocol::from_name(name)
        .ok_or_else(|| MrtrError::for_rule(RuleId::JsonrpcInvalid, format!("unknown protocol {name:?}")))
}

/// What a message is (`MessageKind::InputRequired`'s corpus name is `input_required`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, uniffi::Enum)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum ResultType {
    /// `"complete"`, or absent.
    Complete,
    /// `"input_required"`.
    InputRequired,
    /// `"task"` (the Tasks extension).
    Task,
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
        let c = mrtr::classify(&message, self::protocol(&protocol)?, &Limits::default())?;
        let kind = match c.kind {
            mrtr::Kind::Request => MessageKind::Request,
            mrtr::Kind::Notification => MessageKind::Notification,
            mrtr::Kind::Result => MessageKind::Result,
            mrtr::Kind::InputRequired => MessageKind::InputRequired,
            mrtr::Kind::Error => MessageKind::Error,
        };
        let id_json = match c.id {
            None | Some(mrtr::Id::Null) => "null".to_string(),
            Some(mrtr::Id::Int(i)) => i.to_string(),
            Some(mrtr::Id::UInt(u)) => u.to_string(),
            Some(mrtr::Id::Str(s)) => text(&Value::from(s.as_ref())),
        };
        let result_type = c.result_type.map(|t| match t {
            mrtr::ResultType::Complete => ResultType::Complete,
            mrtr::ResultType::InputRequired => ResultType::InputRequired,
            mrtr::ResultType::Task => ResultType::Task,
        });
        Ok(Classified { kind, id_json, method: c.method.map(|m| m.into_owned()), result_type })
    })
}

/// Who sent a message of a conversation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, uniffi::Enum)]
pub enum Side {
    /// The MCP client.
    Client,
    /// The MCP server.
    Server,
}

/// A rule broken by the entry at `index` of a conversation.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Violation {
    /// The rule id.
    pub rule: String,
    /// The index of the offending entry.
    pub index: u64,
    /// What is wrong, in one sentence.
    pub message: String,
}

pub(crate) fn violation(v: &core_check::Violation) -> Violation {
    Violation { rule: v.rule.name().into(), index: v.index as u64, message: v.message.clone() }
}

pub(crate) fn config(protocol: &str, max_rounds: u32) -> Result<core_check::CheckConfig> {
    Ok(core_check::CheckConfig { protocol: self::protocol(protocol)?, max_rounds, ..Default::default() })
}

/// One transcript entry `{"from": "client"|"server", "message": …, "stream": …}`.
fn entry(i: usize, value: &mut Value) -> Result<core_check::Entry> {
    let bad = |what: &str| MrtrError::argument(format!("transcript[{i}]: {what}"));
    let from = match value.get("from").and_then(Value::as_str) {
        Some("client") => core_check::Side::Client,
        Some("server") => core_check::Side::Server,
        _ => return Err(bad("\"from\" must be \"client\" or \"server\"")),
    };
    let stream = match value.get("stream") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(bad("\"stream\" must be a string")),
    };
    let message = value.get_mut("message").map(Value::take).ok_or_else(|| bad("an entry needs a \"message\""))?;
    Ok(core_check::Entry { from, message, stream })
}

/// Checks a whole conversation: `transcript_json` is an array of entries
/// `{"from": "client"|"server", "message": <JSON-RPC message>, "stream": "post:<id>"|"get"}`.
/// Violations come in transcript order, each (rule, index) once.
#[uniffi::export]
pub fn check(transcript_json: String, protocol: String, max_rounds: u32) -> Result<Vec<Violation>> {
    guard(|| {
        let config = config(&protocol, max_rounds)?;
        // Two levels more than a message: the array and the entry object.
        let mut transcript = json::parse_nested(&transcript_json, "transcript", config.limits.max_depth + 2)?;
        let items = transcript.as_array_mut().ok_or_else(|| MrtrError::argument("a transcript is a JSON array"))?;
        let entries = items.iter_mut().enumerate().map(|(i, v)| entry(i, v)).collect::<Result<Vec<_>>>()?;
        Ok(core_check::check(&entries, config).iter().map(violation).collect())
    })
}

/// Builds the retry of `request_json` (the request last sent) that answers
/// `result_json` (the response carrying `input_required`) with
/// `input_responses_json`, under the new id `id_json`; returns the message.
/// In `sep-2322`, the answer to `tasks/result` is a `tasks/input_response`.
#[uniffi::export]
pub fn retry(
    request_json: String,
    result_json: String,
    input_responses_json: String,
    id_json: String,
    protocol: String,
) -> Result<String> {
    guard(|| {
        let (p, l) = (self::protocol(&protocol)?, Limits::default());
        let request = parse(&request_json, "request", &l)?;
        let result = parse(&result_json, "result", &l)?;
        let responses = parse(&input_responses_json, "inputResponses", &l)?;
        let id = parse(&id_json, "id", &l)?;
        Ok(text(&client::retry(&request, &result, &responses, &id, p, &l)?))
    })
}

/// Builds the `input_required` answer to `request_json`: `input_requests_json`
/// is the `inputRequests` object, `request_state_json` the state as JSON (a
/// JSON string: `"\"s1\""`); either may be absent.
#[uniffi::export]
pub fn respond(
    request_json: String,
    input_requests_json: Option<String>,
    request_state_json: Option<String>,
    protocol: String,
) -> Result<String> {
    guard(|| {
        let (p, l) = (self::protocol(&protocol)?, Limits::default());
        let request = parse(&request_json, "request", &l)?;
        let requests = input_requests_json.map(|t| parse(&t, "inputRequests", &l)).transpose()?;
        let state = request_state_json.map(|t| parse(&t, "requestState", &l)).transpose()?;
        Ok(text(&server::respond(&request, requests.as_ref(), state.as_ref(), p, &l)?))
    })
}

/// What a server learns from an incoming request ([`resume`]).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Resumed {
    /// The answers to needed keys that are present, as a JSON object, in the order of `needs`.
    pub responses_json: String,
    /// Needed keys without an answer: ask again.
    pub missing: Vec<String>,
    /// Keys answered but not needed: ignore them.
    pub ignored: Vec<String>,
    /// The echoed `requestState`, for the server to validate.
    pub request_state: Option<String>,
}

/// Reads the MRTR fields of `request_json` against what this server needs
/// (`needs_json`: an `inputRequests`-shaped object).
#[uniffi::export]
pub fn resume(request_json: String, needs_json: String, protocol: String) -> Result<Resumed> {
    guard(|| {
        let (p, l) = (self::protocol(&protocol)?, Limits::default());
        let request = parse(&request_json, "request", &l)?;
        let needs = parse(&needs_json, "needs", &l)?;
        let r = server::resume(&request, &needs, p, &l)?;
        Ok(Resumed {
            responses_json: text(&Value::Object(r.responses)),
            missing: r.missing,
            ignored: r.ignored,
            request_state: r.request_state,
        })
    })
}

/// Builds the `tasks/update` request (Tasks extension, `2026-07-28`) that
/// answers the `input_required` task shown by `get_response_json`, the answer
/// to `get_request_json`.
#[uniffi::export]
pub fn task_update(
    get_request_json: String,
    get_response_json: String,
    input_responses_json: String,
    id_json: String,
) -> Result<String> {
    guard(|| {
        let l = Limits::default();
        let request = parse(&get_request_json, "tasks/get request", &l)?;
        let response = parse(&get_response_json, "tasks/get response", &l)?;
        let responses = parse(&input_responses_json, "inputResponses", &l)?;
        let id = parse(&id_json, "id", &l)?;
        Ok(text(&client::task_update(&request, &response, &responses, &id, &l)?))
    })
}

/// Checks a task status change (`"working"` → `"completed"`); returns the new
/// status, or fails with `task-status-invalid` / `task-transition-invalid`.
#[uniffi::export]
pub fn task_transition(current: String, next: String) -> Result<String> {
    guard(|| Ok(TaskStatus::from_name(&current)?.transition(TaskStatus::from_name(&next)?)?.name().to_string()))
}

/// One row of the rule catalogue.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct RuleInfo {
    /// The stable number (the C ABI's error code); never reused.
    pub number: u16,
    /// The kebab-case id, as in `RULES.md`.
    pub name: String,
    /// The JSON-RPC error code a peer answers with, if any.
    pub code: Option<i32>,
    /// Where the rule comes from.
    pub source: String,
    /// The exception class its failures raise.
    pub area: ErrorArea,
}

/// The whole rule catalogue, in the order of `RULES.md`.
#[uniffi::export]
pub fn rules() -> Vec<RuleInfo> {
    mrtr::rules::RULES
        .iter()
        .map(|r| RuleInfo {
            number: r.id as u16,
            name: r.name.into(),
            code: r.code,
            source: r.source.into(),
            area: crate::error::area_of(r.name).unwrap_or(ErrorArea::Protocol),
        })
        .collect()
}

/// The protocol names, default first.
#[uniffi::export]
pub fn protocols() -> Vec<String> {
    Protocol::ALL.iter().map(|p| p.name().to_string()).collect()
}

/// For the binding's own tests only: panics with `message`, inside the
/// boundary that turns a panic into `MrtrError.Internal` (`guarded`), or
/// outside it, where UniFFI's own catch turns it into its untyped internal
/// error. Not part of the API.
#[doc(hidden)]
#[uniffi::export]
pub fn test_only_panic(guarded: bool, message: String) -> Result<()> {
    if guarded {
        guard(|| panic!("{message}"))
    } else {
        panic!("{message}")
    }
}
