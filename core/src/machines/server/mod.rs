//! The server side: answer a request with `input_required` ([`respond`]) and
//! read the retry that comes back ([`resume`]).
//!
//! A stateless server calls [`resume`] on every allow-listed request: it learns
//! which of the answers it needs are present (`responses`), which are still
//! `missing` (ask again with [`respond`]), which keys it may `ignore` (an older
//! or newer server version asked for them), and the echoed `requestState`.
//!
//! [`tasks`]: the Tasks extension's results, built from a server's task record.

pub mod tasks;

use crate::{
    base::error::{err, Result},
    base::limits::Limits,
    base::protocol::{Protocol, META_RELATED_TASK},
    base::rules::ErrorCodes,
    read::view::{EnvelopeView, InputRequestView, Map, Obj, ParamsView, Prim},
    request::dialect::{from_sep_in, to_sep_in},
    request::input,
    request::message::{self, check_task_input, is_task_input, read_view, required_meta},
};
use alloc::{
    string::{String, ToString},
    vec::Vec,
};
use serde_json::{json, Map as JsonMap, Value};

/// Builds the `input_required` answer to `request`.
///
/// `input_requests` is the `inputRequests` object (or `None`), `request_state`
/// the opaque state (or `None`). Fails with `input-required-method-not-allowed`,
/// `request-meta-missing`, `request-capability-missing` (-32021, its `data`
/// naming the capabilities the asks need), `input-required-empty`,
/// `input-request-invalid` or `request-state-invalid`.
pub fn respond(
    request: &Value,
    input_requests: Option<&Value>,
    request_state: Option<&Value>,
    protocol: Protocol,
    limits: &Limits,
) -> Result<Value> {
    let request = to_sep_in(request, protocol);
    let view = message::read_request(&request)?;
    let method = view.method.as_str().unwrap_or_default();
    if !protocol.allows_input_required(method) {
        return Err(err!(
            InputRequiredMethodNotAllowed,
            "{method:?} may not be answered with input_required in {protocol}"
        ));
    }
    let caps = required_meta(view.params.get(), protocol)?;
    let requests: Option<Map<'_, Obj<InputRequestView<'_>>>> = input_requests.map(read_view).transpose()?;
    let state = match request_state {
        Some(v) => read_view::<Prim<'_>>(v)?,
        None => Prim::Absent,
    };
    crate::one_message::envelope::validate_input_required(
        requests.as_ref().unwrap_or(&Map::Absent),
        &state,
        protocol,
        limits,
    )?;
    if protocol.rules().draft_envelope && input_requests.is_none() && request_state.is_none() {
        // The draft marks input_required by its envelope fields alone: without them there is no message.
        return Err(err!(InputRequiredEmpty, "the draft dialect cannot carry an input_required with neither field"));
    }
    // An ask the client cannot answer is a request the server cannot serve:
    // -32021 naming what it needs, as `require_capabilities` refuses it.
    if let (Some(_), Some(questions)) = (caps, input_requests) {
        require_capabilities(&request, questions, protocol)?;
    }
    let mut result = JsonMap::new();
    result.insert("resultType".into(), "input_required".into());
    if let Some(r) = input_requests {
        result.insert("inputRequests".into(), r.clone());
    }
    if let Some(s) = request_state {
        result.insert("requestState".into(), s.clone());
    }
    if method == "tasks/result" {
        let task_id = view.params.get().map(|p| p.task_id.clone()).unwrap_or_default();
        let task_id = task_id.as_str().map(Value::from).unwrap_or(Value::Null);
        result.insert("_meta".into(), json!({ META_RELATED_TASK: { "taskId": task_id } }));
    }
    let response = json!({"jsonrpc": "2.0", "id": request["id"].clone(), "result": result});
    Ok(from_sep_in(response, protocol))
}

/// What a server learns from an incoming request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resumed {
    /// The answers to needed keys that are present, in the order of `needs`.
    pub responses: JsonMap<String, Value>,
    /// Needed keys without an answer: ask again.
    pub missing: Vec<String>,
    /// Keys answered but not needed: ignore them.
    pub ignored: Vec<String>,
    /// The echoed `requestState`, for the server to validate.
    pub request_state: Option<String>,
}

/// Reads the MRTR fields of `request` against what this server `needs`
/// (an `inputRequests`-shaped object of the requests it would ask).
pub fn resume(request: &Value, needs: &Value, protocol: Protocol, limits: &Limits) -> Result<Resumed> {
    let request = to_sep_in(request, protocol);
    let view = message::read_request(&request)?;
    let params = view.params.get();
    required_meta(params, protocol)?;
    let empty = ParamsView::default();
    let params = params.unwrap_or(&empty);
    crate::one_message::envelope::validate_call_params(params, limits)?;
    check_carrier(&view, params, protocol)?;
    let needs: Map<'_, Obj<InputRequestView<'_>>> = read_view(needs)?;
    input::validate_requests(&needs, protocol, limits)?;
    let needs = needs.entries().unwrap_or_default();
    let answers = params.input_responses.entries().unwrap_or_default();
    let mut out = Resumed { request_state: params.request_state.as_str().map(String::from), ..Resumed::default() };
    for (key, need) in needs {
        let (Some((_, Obj::Present(answer))), Obj::Present(need)) = (answers.iter().find(|(k, _)| k == key), need)
        else {
            out.missing.push(key.to_string());
            continue;
        };
        input::validate_response(key, answer, need)?;
        let raw = request["params"]["inputResponses"][key.as_ref()].clone();
        out.responses.insert(key.to_string(), raw);
    }
    out.ignored =
        answers.iter().filter(|(k, _)| !needs.iter().any(|(n, _)| n == k)).map(|(k, _)| k.to_string()).collect();
    Ok(out)
}

/// Whether `answer` fits `need` (both under `key`): the check a fresh answer
/// passes in [`resume`], for answers that come from elsewhere (sealed state).
#[cfg(feature = "state")]
pub(crate) fn fits(key: &str, answer: &Value, need: &Value) -> bool {
    use crate::read::view::ResponseView;
    let (Ok(answer), Ok(need)) = (read_view::<ResponseView<'_>>(answer), read_view::<InputRequestView<'_>>(need))
    else {
        return false;
    };
    input::validate_response(key, &answer, &need).is_ok()
}

/// Only allow-listed methods (and the task input methods) carry MRTR fields.
fn check_carrier(view: &EnvelopeView<'_>, params: &ParamsView<'_>, protocol: Protocol) -> Result<()> {
    let method = view.method.as_str().unwrap_or_default();
    let carries = params.input_responses.is_present() || params.request_state.is_present();
    if is_task_input(method, protocol) {
        return check_task_input(method, params);
    }
    if carries && !protocol.allows_input_required(method) {
        return Err(err!(
            InputResponsesUnsolicited,
            "{method:?} carries no inputResponses or requestState in {protocol}"
        ));
    }
    Ok(())
}

/// Builds the final answer to `request`: `result` marked complete where the
/// protocol reads `resultType` (`"resultType": "complete"`), and, in
/// `2026-07-28`, `ttlMs: 0` when the request was a retry (it carried
/// `inputResponses` or `requestState`): the result of a retry depends on
/// answers no cache key holds, so it is never cached (`input-required-cache-hint`).
/// A cacheable result ([`crate::protocol::CACHEABLE_METHODS`]) that names no
/// caching hints gets the safe ones the schema requires: `ttlMs: 0` (not
/// cached) and `cacheScope: "private"` (never shared across authorization
/// contexts). `result` must be an object (else `usage-invalid-argument`).
pub fn complete(request: &Value, result: &Value, protocol: Protocol) -> Result<Value> {
    let Value::Object(mut result) = result.clone() else {
        return Err(err!(UsageInvalidArgument, "a result is an object"));
    };
    let rules = protocol.rules();
    if rules.result_type != crate::base::protocol::ResultTypeRule::Ignored {
        result.insert("resultType".into(), "complete".into());
    }
    let params = to_sep_in(request, protocol).get("params").cloned().unwrap_or(Value::Null);
    let retry = params.get("inputResponses").is_some() || params.get("requestState").is_some();
    if rules.caching_hints {
        if retry {
            result.insert("ttlMs".into(), 0.into());
        }
        let method = request.get("method").and_then(Value::as_str).unwrap_or_default();
        if crate::base::protocol::CACHEABLE_METHODS.contains(&method) {
            result.entry("ttlMs").or_insert_with(|| 0.into());
            result.entry("cacheScope").or_insert_with(|| "private".into());
        }
    }
    Ok(json!({"jsonrpc": "2.0", "id": request.get("id").cloned().unwrap_or(Value::Null), "result": result}))
}

/// The members `server/discover`'s answer is built from ([`discover`]), and
/// whether each must be there.
const DISCOVER_MEMBERS: [(&str, bool); 4] =
    [("capabilities", true), ("serverInfo", false), ("instructions", false), ("supportedVersions", false)];

/// Builds the answer to a `server/discover` `request` (`2026-07-28`'s way for
/// a client to learn a server without a handshake) from `server`, an object:
/// `capabilities` (a `ServerCapabilities` object, required), `serverInfo`
/// (`{name, version, …}`; the schema's `DiscoverResult` has no such member,
/// but clients and the bridge read it where it is), `instructions` (a string)
/// and `supportedVersions` (strings; absent: `protocol`'s name). The result
/// is [`complete`]d: `resultType`, and the caching hints its schema requires
/// (`ttlMs: 0`, `cacheScope: "private"`) unless `server` names them. Fails
/// with `usage-invalid-argument` when `request` is not `server/discover` or
/// `server` has a member of the wrong shape or one not above (the message
/// lists the known ones).
pub fn discover(request: &Value, server: &Value, protocol: Protocol) -> Result<Value> {
    if request.get("method").and_then(Value::as_str) != Some("server/discover") {
        return Err(err!(UsageInvalidArgument, "discover answers a server/discover request"));
    }
    let Some(members) = server.as_object() else {
        return Err(err!(UsageInvalidArgument, "what a server tells at server/discover is an object"));
    };
    let known = || DISCOVER_MEMBERS.map(|(name, _)| name).join(", ");
    if let Some(other) = members.keys().find(|k| !DISCOVER_MEMBERS.iter().any(|(name, _)| name == k)) {
        let other = crate::base::error::quoted(other);
        return Err(err!(
            UsageInvalidArgument,
            "server/discover has no member {other}: the known ones are {}",
            known()
        ));
    }
    for (name, required) in DISCOVER_MEMBERS {
        let value = members.get(name);
        let fits = match (name, value) {
            (_, None) => !required,
            ("capabilities", Some(v)) => v.is_object(),
            ("serverInfo", Some(v)) => ["name", "version"].iter().all(|k| v.get(k).is_some_and(Value::is_string)),
            ("instructions", Some(v)) => v.is_string(),
            (_, Some(v)) => v.as_array().is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string)),
        };
        if !fits {
            let shape = match name {
                "capabilities" => "an object (ServerCapabilities)",
                "serverInfo" => "an object with a string name and version",
                "instructions" => "a string",
                _ => "a non-empty array of strings",
            };
            return Err(err!(UsageInvalidArgument, "server/discover's {name} is {shape}"));
        }
    }
    let mut result = members.clone();
    result.entry("supportedVersions").or_insert_with(|| json!([protocol.name()]));
    complete(request, &Value::Object(result), protocol)
}

/// The JSON-RPC error response a server sends for `error` in answer to the
/// request with `id`, and the HTTP status a transport sends it with, under
/// the released codes ([`error_response_in`]).
pub fn error_response(id: &Value, error: &crate::base::error::Error) -> (Value, u16) {
    error_response_in(id, error, ErrorCodes::Released)
}

/// [`error_response`] under `codes`: the rule's code there (a rule without
/// one, a request the server will not serve, is -32600), its message, and
/// `data.rule` naming the rule; a refused state under the draft registry is
/// -32026 with `data.kind` `"request_state"` and `data.reason`.
///
/// Statuses, the same under both tables: 404 for -32601, 500 for -32603, 400
/// for every other refusal, a refused state included. A JSON-RPC error never
/// goes with a 2xx status (the draft registry says so; `docs/status-policy.md`
/// says why 400 and not 200 for a refused state).
pub fn error_response_in(id: &Value, error: &crate::base::error::Error, codes: ErrorCodes) -> (Value, u16) {
    let rule = error.rule();
    let code = rule.code_under(codes).unwrap_or(-32600);
    let status = match code {
        -32601 => 404,
        -32603 => 500,
        _ => 400,
    };
    let mut data = error.data().and_then(Value::as_object).cloned().unwrap_or_default();
    if code == crate::base::rules::STALE_STATE {
        let reason = rule.name().strip_prefix("state-").unwrap_or(rule.name());
        data.insert("kind".into(), "request_state".into());
        data.insert("reason".into(), reason.into());
    }
    data.insert("rule".into(), rule.name().into());
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": code, "message": error.message(), "data": data}});
    (body, status)
}

/// What every request must pass before a server acts on it, in this order:
/// its `_meta` (`request-meta-missing`), its HTTP header fields where it came
/// over Streamable HTTP (`headers`, lower-case names: [`check_headers`]), and
/// a protocol version the server serves (`supported`:
/// [`check_version`]). Each refusal is an error [`error_response`] answers.
pub fn check_request(
    request: &Value,
    headers: Option<&[(String, String)]>,
    supported: &[&str],
    protocol: Protocol,
) -> Result<()> {
    let sep = to_sep_in(request, protocol);
    let view = message::read_request(&sep)?;
    required_meta(view.params.get(), protocol)?;
    if let Some(headers) = headers {
        check_headers(request, headers, protocol)?;
    }
    check_version(request, supported, protocol)
}

/// (`2026-07-28`) The request's `_meta` protocol version is one of
/// `supported`, else `protocol-version-unsupported` (-32022) whose `data`
/// carries `supported` and `requested`, for the client to choose again.
/// Earlier protocols settle the version at `initialize`: nothing to check.
pub fn check_version(request: &Value, supported: &[&str], protocol: Protocol) -> Result<()> {
    if !protocol.rules().request_meta {
        return Ok(());
    }
    let meta = request.get("params").and_then(|p| p.get("_meta"));
    let Some(requested) =
        meta.and_then(|m| m.get(crate::base::protocol::META_PROTOCOL_VERSION)).and_then(Value::as_str)
    else {
        return Err(err!(RequestMetaMissing, "a {protocol} request names its protocol version in _meta"));
    };
    if supported.contains(&requested) {
        return Ok(());
    }
    Err(err!(ProtocolVersionUnsupported, "protocol version {requested:?} is not served here")
        .with_data(json!({"supported": supported, "requested": requested})))
}

/// The client capabilities `questions` (an `inputRequests`-shaped object of
/// what the server would ask) need and `request`'s `_meta` did not declare,
/// merged into one `ClientCapabilities` object; `None` when every question may
/// be asked (or the protocol declares capabilities elsewhere). A server asks
/// only what this allows, or refuses with [`require_capabilities`].
pub fn missing_capabilities(request: &Value, questions: &Value, protocol: Protocol) -> Result<Option<Value>> {
    let sep = to_sep_in(request, protocol);
    let view = message::read_request(&sep)?;
    let Some(caps) = required_meta(view.params.get(), protocol)? else { return Ok(None) };
    let questions: Map<'_, Obj<InputRequestView<'_>>> = read_view(questions)?;
    let Some(entries) = questions.entries() else {
        return Err(err!(UsageInvalidArgument, "questions are an object of input requests"));
    };
    let mut missing = None;
    for (key, question) in entries {
        let Some((question, kind)) = question.get().and_then(|q| Some((q, input::InputKind::of(q)?))) else {
            return Err(err!(InputRequestInvalid, "questions[{key:?}] has no known method"));
        };
        if !kind.declared_in(question, caps) {
            merge(missing.get_or_insert_with(|| json!({})), kind.required_capabilities(question));
        }
    }
    Ok(missing)
}

/// `Ok` when `request` declared every capability `questions` need, else
/// `request-capability-missing` (-32021) with `data.requiredCapabilities`:
/// the refusal of a request the server cannot serve without them.
pub fn require_capabilities(request: &Value, questions: &Value, protocol: Protocol) -> Result<()> {
    match missing_capabilities(request, questions, protocol)? {
        None => Ok(()),
        Some(required) => Err(capability_refusal(required)),
    }
}

/// `Ok` when `request`'s `_meta` declared every capability of `required` (a
/// `ClientCapabilities` object: each member present, objects member by
/// member, as `{"extensions": {"io.modelcontextprotocol/tasks": {}}}`), else
/// `request-capability-missing` (-32021) naming `required`: for what a
/// server needs besides input requests, such as an extension.
pub fn require_declared(request: &Value, required: &Value, protocol: Protocol) -> Result<()> {
    if !required.is_object() {
        return Err(err!(UsageInvalidArgument, "required capabilities are an object"));
    }
    let sep = to_sep_in(request, protocol);
    let view = message::read_request(&sep)?;
    if required_meta(view.params.get(), protocol)?.is_none() {
        return Ok(());
    }
    let declared = &sep["params"]["_meta"][crate::base::protocol::META_CLIENT_CAPABILITIES];
    if covers(declared, required) {
        return Ok(());
    }
    Err(capability_refusal(required.clone()))
}

/// `request-capability-missing` naming `required` in its `data`.
fn capability_refusal(required: Value) -> crate::base::error::Error {
    let names: Vec<&str> = required.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
    err!(RequestCapabilityMissing, "the request needs the client capabilities {}", names.join(", "))
        .with_data(json!({"requiredCapabilities": required}))
}

/// Whether `declared` has every member of `required`, objects recursively.
fn covers(declared: &Value, required: &Value) -> bool {
    match required.as_object() {
        Some(members) => members.iter().all(|(k, v)| declared.get(k).is_some_and(|d| !d.is_null() && covers(d, v))),
        None => true,
    }
}

/// Merges `add` into `into`, object members recursively.
fn merge(into: &mut Value, add: Value) {
    match (into, add) {
        (Value::Object(into), Value::Object(add)) => {
            for (k, v) in add {
                merge(into.entry(k).or_insert_with(|| json!({})), v);
            }
        }
        (into, add) => *into = add,
    }
}

/// Checks the HTTP header fields of a `2026-07-28` request over Streamable
/// HTTP against its body (`request-header-mismatch`, -32020): the
/// `MCP-Protocol-Version` header equals `_meta`'s protocol version, `Mcp-Method`
/// the method, and `Mcp-Name` the target ([`crate::protocol::name_field`]).
/// Other protocols carry none of these: nothing to check. `headers` have
/// lower-case names.
pub fn check_headers(request: &Value, headers: &[(String, String)], protocol: Protocol) -> Result<()> {
    if !protocol.rules().header_mirroring {
        return Ok(());
    }
    for (header, want) in crate::base::protocol::mirrored_fields(request) {
        let got = mirrored_field(headers, header)?;
        match (got.as_deref(), want) {
            (Some(got), Some(want)) if got == want => {}
            // Mcp-Name mirrors a target; a request without one is not judged by it.
            (_, None) if header == "mcp-name" => {}
            (None, _) => return Err(err!(RequestHeaderMismatch, "no {header} header")),
            (Some(got), Some(want)) => {
                return Err(err!(RequestHeaderMismatch, "the {header} header {got:?} differs from the body's {want:?}"))
            }
            (Some(got), None) => {
                return Err(err!(RequestHeaderMismatch, "the {header} header {got:?} has no counterpart in the body"))
            }
        }
    }
    Ok(())
}

/// The text of the one `name` field of `headers`, decoded
/// ([`crate::http::field::decode`]). A name sent twice is
/// `request-header-mismatch`: a gateway that reads one occurrence and a
/// server that reads another would see different requests.
fn mirrored_field<'h>(headers: &'h [(String, String)], name: &str) -> Result<Option<alloc::borrow::Cow<'h, str>>> {
    let mut fields = headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name));
    match (fields.next(), fields.next()) {
        (Some(_), Some(_)) => Err(err!(RequestHeaderMismatch, "the {name} header is sent more than once")),
        (Some((_, value)), None) => crate::machines::http::field::decode(value).map(Some),
        (None, _) => Ok(None),
    }
}

/// An input request (`{"method", "params"}`, a key's question of an
/// `input_required` result) written as the server request a stream protocol
/// sends (`2025-11-25`: on the call's POST stream, SEP-2260), under `id`.
///
/// Why: the two generations word URL-mode elicitation differently. `2026-07-28`
/// forbids `elicitationId` (the retry names the answer), `2025-11-25` requires
/// one (the client's completion notification names it). A host that carries a
/// question from one to the other (a bridge) must not pass it on unchanged:
/// where `protocol` requires an id and the question has none, `elicitation_id`
/// is put in; where `protocol` forbids one, it is taken out. Everything else
/// is kept as it is; the question is not validated here.
pub fn stream_request(id: &Value, question: &Value, protocol: Protocol, elicitation_id: &str) -> Value {
    let mut params = question.get("params").cloned().unwrap_or(Value::Null);
    let url_mode = question.get("method").and_then(Value::as_str) == Some("elicitation/create")
        && params.get("mode").and_then(Value::as_str) == Some("url");
    if let (true, Some(fields)) = (url_mode, params.as_object_mut()) {
        match protocol.rules().elicitation_id {
            crate::base::protocol::ElicitationIdRule::Required => {
                fields.entry("elicitationId").or_insert_with(|| elicitation_id.into());
            }
            crate::base::protocol::ElicitationIdRule::Forbidden => {
                fields.remove("elicitationId");
            }
        }
    }
    let mut request =
        json!({"jsonrpc": "2.0", "id": id, "method": question.get("method").cloned().unwrap_or(Value::Null)});
    if !params.is_null() {
        request["params"] = params;
    }
    request
}
