//! The server's builders over JSON text ([`mrtr::server`], [`mrtr::server::tasks`]):
//! the request check, the capability filter, the final answer, the task
//! results, and the error response of every refusal.

use super::{parse, parse_arg, text, transport::headers_arg, usage, usage_owned, Options};
use crate::kinds::*;
use alloc::{string::String, vec::Vec};
use mrtr::{server, server::tasks, Error, Result, RuleId};
use mrtr_facade_macros::export;
use serde_json::{json, Value};

/// The final response to `request` with `result`: `resultType: "complete"`, `ttlMs: 0` when `request`
/// is a retry (its result must not be cached), and for a cacheable result that names no caching hints
/// the safe ones its schema requires.
///
/// [`server::complete`]: the final response to `request`.
#[export]
pub fn complete(request: JsonText, result: JsonText, options: &Options) -> Result<JsonString> {
    let (request, result) = (parse(request, &options.limits)?, parse_arg(result, "a result")?);
    Ok(text(&server::complete(&request, &result, options.protocol)?))
}

/// The answer to the `server/discover` `request` from what the server declares: `server` is
/// `{capabilities, serverInfo, instructions, supportedVersions}`, only `capabilities` required (absent
/// versions: the protocol's name), completed with the caching hints its schema requires. A member of
/// the wrong shape, or one not named here, is `usage-invalid-argument`.
///
/// [`server::discover`]: the answer to a `server/discover` request from
/// what the server declares (`{capabilities, serverInfo, instructions,
/// supportedVersions}`).
#[export]
pub fn discover(request: JsonText, server: JsonText, options: &Options) -> Result<JsonString> {
    let (request, server) = (parse(request, &options.limits)?, parse_arg(server, "what the server declares")?);
    Ok(text(&server::discover(&request, &server, options.protocol)?))
}

/// [`server::check_headers`]: a request's header fields (`{name: value}` or
/// `[[name, value], …]`) against its body.
pub fn check_headers(request: &[u8], headers: &[u8], o: &Options) -> Result<()> {
    let request = parse(request, &o.limits)?;
    server::check_headers(&request, &headers_arg(headers)?, o.protocol)
}

/// What every request must pass before a server acts on it: its `_meta` (`request-meta-missing`), its
/// HTTP header fields when given (none: it did not come over HTTP; `request-header-mismatch`), then a
/// protocol version among `supported` (`protocol-version-unsupported`, -32022, whose data lists them).
///
/// [`server::check_request`]: `_meta`, then the header fields when given
/// (`None`: the request did not come over HTTP), then a version among
/// `supported` (a JSON array of strings).
#[export(refusal)]
pub fn check_request(request: JsonText, headers: OptJsonText, supported: JsonText, options: &Options) -> Result<()> {
    let request = parse(request, &options.limits)?;
    let headers = headers.map(headers_arg).transpose()?;
    let supported = parse_arg(supported, "the supported versions")?;
    let supported: Option<Vec<&str>> = supported.as_array().and_then(|a| a.iter().map(Value::as_str).collect());
    let supported = supported.ok_or(usage("the supported versions are an array of strings"))?;
    server::check_request(&request, headers.as_deref(), &supported, options.protocol)
}

/// The client capabilities `questions` (input requests by key) need that `request` did not declare, as
/// one `ClientCapabilities` object, or none.
///
/// [`server::missing_capabilities`]: the `ClientCapabilities` object the
/// `questions` need and `request` did not declare, or `None`.
#[export(shapes(questions = Questions))]
pub fn missing_capabilities(request: JsonText, questions: JsonText, options: &Options) -> Result<Option<JsonString>> {
    let (request, questions) = (parse(request, &options.limits)?, parse_arg(questions, "the questions")?);
    Ok(server::missing_capabilities(&request, &questions, options.protocol)?.map(|c| text(&c)))
}

/// Refuses with `request-capability-missing` (-32021, its data naming them) unless `request` declared
/// every capability `questions` need.
///
/// [`server::require_capabilities`]: `request-capability-missing` (-32021,
/// its `data` naming the capabilities) unless `request` declared them all.
#[export(shapes(questions = Questions), refusal)]
pub fn require_capabilities(request: JsonText, questions: JsonText, options: &Options) -> Result<()> {
    let (request, questions) = (parse(request, &options.limits)?, parse_arg(questions, "the questions")?);
    server::require_capabilities(&request, &questions, options.protocol)
}

/// Refuses with `request-capability-missing` (-32021) unless `request` declared every capability of
/// `required` (a `ClientCapabilities` object, such as an extension).
///
/// [`server::require_declared`]: `request-capability-missing` unless
/// `request` declared every capability of `required` (a `ClientCapabilities`
/// object, such as an extension).
#[export(refusal)]
pub fn require_declared(request: JsonText, required: JsonText, options: &Options) -> Result<()> {
    let (request, required) = (parse(request, &options.limits)?, parse_arg(required, "the required capabilities")?);
    server::require_declared(&request, &required, options.protocol)
}

/// The response to `request` that starts the task of `record` (a task record: `taskId`, `status`,
/// `createdAt`, `lastUpdatedAt`, `ttlMs`, …).
///
/// [`tasks::created`]: the response to `request` that starts the task of
/// `record` (a task record, see [`mrtr::server::tasks`]).
#[export(shapes(record = TaskRecord))]
pub fn task_created(request: JsonText, record: JsonText, options: &Options) -> Result<JsonString> {
    let (request, record) = (parse(request, &options.limits)?, parse_arg(record, "a task record")?);
    Ok(text(&tasks::created(&request, &record)?))
}

/// The complete answer to the `tasks/get` `request` for the task of `record`: the fields its status
/// carries.
///
/// [`tasks::get_response`]: the complete answer to `tasks/get` `request`.
#[export(shapes(record = TaskRecord))]
pub fn task_get_response(request: JsonText, record: JsonText, options: &Options) -> Result<JsonString> {
    let (request, record) = (parse(request, &options.limits)?, parse_arg(record, "a task record")?);
    Ok(text(&tasks::get_response(&request, &record, options.protocol)?))
}

/// The JSON-RPC error response to the request `id` for `rule`, with `message` and `data` (the members
/// of the error's `data`, an object): `{response, status}`, the HTTP status a transport sends it with.
/// The options' `errorCodes` picks the codes: `released` (default) or `draft` (a refused state is
/// -32026 `StaleState`).
///
/// [`server::error_response_in`] for the rule named `rule`, `message` and the
/// members of its `data` (a JSON object, as an error of the core carries it),
/// in answer to the request id `id` (JSON text): `{"response", "status"}`.
#[export(shapes(id = Id))]
pub fn error_response(
    id: JsonValue,
    rule: &str,
    message: &str,
    data: OptJsonText,
    options: &Options,
) -> Result<JsonString> {
    let id = parse_arg(id, "an id")?;
    Ok(error_response_of(&id, &error_of(rule, message, data)?, options))
}

/// [`error_response`] of the core's `error` itself, to the request id `id`.
pub(super) fn error_response_of(id: &Value, error: &Error, o: &Options) -> String {
    let (response, status) = server::error_response_in(id, error, o.error_codes);
    text(&json!({"response": response, "status": status}))
}

/// The core's error for the rule named `rule`, `message` and `data` (JSON
/// text of an object), as a binding's exception carried them.
pub(super) fn error_of(rule: &str, message: &str, data: Option<&[u8]>) -> Result<Error> {
    let rule = RuleId::from_name(rule).ok_or_else(|| usage_owned(alloc::format!("no rule {rule:?}")))?;
    let error = Error::with(rule, message.into());
    match data.map(|d| parse_arg(d, "the error's data")).transpose()? {
        None => Ok(error),
        Some(data) if data.is_object() => Ok(error.with_data(data)),
        Some(_) => Err(usage("an error's data is an object")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    const REQUEST: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    const GOOD: &[u8] = br#"{"MCP-Protocol-Version":"2026-07-28","mcp-method":"tools/call","mcp-name":"t"}"#;

    fn json(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn complete_and_headers() {
        let o = Options::default();
        assert_eq!(json(&complete(REQUEST, br#"{"content":[]}"#, &o).unwrap())["result"]["resultType"], "complete");
        assert!(check_headers(REQUEST, GOOD, &o).is_ok());
        let pairs = br#"[["mcp-protocol-version","2026-07-28"],["mcp-method","tools/call"]]"#;
        assert_eq!(check_headers(REQUEST, pairs, &o).unwrap_err().rule(), RuleId::RequestHeaderMismatch);
    }

    #[test]
    fn a_refusal_keeps_its_data_through_json() {
        let o = Options::default();
        let e = check_request(REQUEST, Some(GOOD), br#"["2099-01-01"]"#, &o).unwrap_err();
        assert_eq!(e.rule(), RuleId::ProtocolVersionUnsupported);
        let error: Value = json(&super::super::error_json(&e));
        let data = error["data"].to_string();
        let refused =
            json(&error_response(b"1", "protocol-version-unsupported", "no", Some(data.as_bytes()), &o).unwrap());
        assert_eq!(refused["status"], 400);
        assert_eq!(refused["response"]["error"]["code"], -32022);
        assert_eq!(refused["response"]["error"]["data"]["supported"], serde_json::json!(["2099-01-01"]));
        assert_eq!(refused["response"]["error"]["data"]["rule"], "protocol-version-unsupported");
        assert!(check_request(REQUEST, None, br#"["2026-07-28"]"#, &o).is_ok());
        assert_eq!(check_request(REQUEST, None, b"[1]", &o).unwrap_err().rule(), RuleId::UsageInvalidArgument);
        assert_eq!(
            error_response(b"2", "no-such-rule", "x", None, &o).unwrap_err().rule(),
            RuleId::UsageInvalidArgument
        );
        assert_eq!(
            error_response(b"2", "state-expired", "x", Some(b"[]"), &o).unwrap_err().rule(),
            RuleId::UsageInvalidArgument
        );
    }

    #[test]
    fn the_capability_filter_over_json() {
        let o = Options::default();
        let roots = br#"{"r":{"method":"roots/list"}}"#;
        assert_eq!(missing_capabilities(REQUEST, roots, &o).unwrap().as_deref(), Some(r#"{"roots":{}}"#));
        let e = require_capabilities(REQUEST, roots, &o).unwrap_err();
        assert_eq!(
            (e.rule(), e.data().map(|d| d["requiredCapabilities"].clone())),
            (RuleId::RequestCapabilityMissing, Some(json(r#"{"roots":{}}"#)))
        );
    }

    #[test]
    fn task_results_over_json() {
        let o = Options::default();
        let record = br#"{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":1000}"#;
        assert_eq!(json(&task_created(REQUEST, record, &o).unwrap())["result"]["resultType"], "task");
        assert_eq!(json(&task_get_response(REQUEST, record, &o).unwrap())["result"]["status"], "working");
    }
}
