//! The retry rules of the catalogue (`docs/RULES.md`, area `retry`), one
//! function each.
//!
//! Two parts of the core decide them: the client side ([`client::retry`],
//! [`client::task_update`] and the [`Client`] machine) refuses to build a retry
//! that breaks one, and the [`Checker`] reports a recorded retry that does.
//! Both call these functions, so that the two sides cannot drift apart: a rule
//! is decided, and worded, here only. Each function is named after its rule and
//! fails with that rule's error; the caller refuses it (`?`) or reports it.
//!
//! `retry-input-response-invalid` is `input::validate_response`. The client
//! meets `retry-request-changed` and both `requestState` rules by construction
//! (it builds the retry from the original and the result), so only the checker
//! calls those three.
//!
//! [`client::retry`]: crate::client::retry
//! [`client::task_update`]: crate::client::task_update
//! [`Client`]: crate::client::Client
//! [`Checker`]: crate::check::Checker

use crate::{
    base::error::{err, Result},
    read::view::{InputRequestView, Map, Obj, ResponseView},
};
use alloc::string::String;
use serde_json::{Map as JsonMap, Value};

/// An `inputRequests` object, as both sides read it.
pub(crate) type Requests<'a> = Map<'a, Obj<InputRequestView<'a>>>;
/// An `inputResponses` object, as both sides read it.
pub(crate) type Responses<'a> = Map<'a, Obj<ResponseView<'a>>>;

/// `retry-id-reused`: a retry's `id` is neither its original's nor that of a
/// request in flight.
///
/// `original` is the id of the request it retries (`None` for a request that
/// retries nothing, which still may not take an id in flight); `in_flight`
/// whether a request in flight has `id`, since each side keeps its own table.
pub(crate) fn id_reused(id: &Value, original: Option<&Value>, in_flight: bool) -> Result<()> {
    if original == Some(id) {
        return Err(err!(RetryIdReused, "a retry takes a new id, not its original's {id}"));
    }
    if in_flight {
        return Err(err!(RetryIdReused, "id {id} is already in flight"));
    }
    Ok(())
}

/// `retry-request-changed`: a retry keeps its original's params.
///
/// Both are params without their MRTR fields (`message::salient_params`): the
/// checker reads them once, to pair a retry with its round and for this rule.
pub(crate) fn request_changed(original: &JsonMap<String, Value>, retry: &JsonMap<String, Value>) -> Result<()> {
    if original != retry {
        return Err(err!(
            RetryRequestChanged,
            "a retry keeps the original's params apart from inputResponses, requestState and _meta"
        ));
    }
    Ok(())
}

/// `retry-missing-input-response`: every key of the last `inputRequests`
/// that `owed` holds (the checker leaves out requests that are themselves
/// invalid) has an answer in `responses`. The error names the first key
/// without one.
pub(crate) fn missing_input_response(
    requests: &Requests<'_>,
    responses: &Responses<'_>,
    owed: &dyn Fn(&str) -> bool,
) -> Result<()> {
    let asked = requests.entries().unwrap_or_default();
    match asked.iter().find(|(key, _)| owed(key) && responses.get(key).is_none()) {
        Some((key, _)) => Err(err!(RetryMissingInputResponse, "no response to inputRequests[{key:?}]")),
        None => Ok(()),
    }
}

/// `retry-request-state-mismatch`: where `result` (the `input_required`
/// response) had a `requestState`, `retry` (the retry request) echoes exactly
/// that string.
pub(crate) fn request_state_mismatch(result: &Value, retry: &Value) -> Result<()> {
    match result_state(result) {
        Some(state) if retry_state(retry).and_then(Value::as_str) != Some(state) => {
            Err(err!(RetryRequestStateMismatch, "a retry echoes requestState exactly"))
        }
        _ => Ok(()),
    }
}

/// `retry-request-state-unexpected`: where `result` had no `requestState`,
/// `retry` carries none (of any type). A result with a state of the wrong
/// type had one: that is its own fault (`request-state-invalid`).
pub(crate) fn request_state_unexpected(result: &Value, retry: &Value) -> Result<()> {
    if result["result"].get("requestState").is_none() && retry_state(retry).is_some() {
        return Err(err!(RetryRequestStateUnexpected, "a retry carries no requestState when the result had none"));
    }
    Ok(())
}

/// `retry-rounds-exceeded`: `retries`, the retries of one request counting
/// this one, stay within the configured bound `max`.
pub(crate) fn rounds_exceeded(retries: u32, max: u32) -> Result<()> {
    if retries > max {
        return Err(err!(RetryRoundsExceeded, "more than {max} rounds"));
    }
    Ok(())
}

/// The `requestState` of an `input_required` response: a string, or none (a
/// state of another type is `request-state-invalid`, not a state to echo).
fn result_state(result: &Value) -> Option<&str> {
    result["result"].get("requestState").and_then(Value::as_str)
}

/// The `requestState` a request carries, whatever its type.
fn retry_state(request: &Value) -> Option<&Value> {
    request["params"].get("requestState")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{base::rules::RuleId, request::message::read_view};
    use serde_json::json;

    /// The rule a check failed with (`None`: it passed).
    fn rule(checked: Result<()>) -> Option<RuleId> {
        checked.err().map(|e| e.rule())
    }

    fn params(value: Value) -> JsonMap<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    fn input_required(state: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": state}})
    }

    fn request(params: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params})
    }

    #[test]
    fn id_reused_refuses_the_original_id_and_any_in_flight() {
        assert_eq!(rule(id_reused(&json!(1), Some(&json!(1)), false)), Some(RuleId::RetryIdReused));
        assert_eq!(rule(id_reused(&json!(2), Some(&json!(1)), true)), Some(RuleId::RetryIdReused));
        assert_eq!(rule(id_reused(&json!(2), None, true)), Some(RuleId::RetryIdReused));
    }

    #[test]
    fn id_reused_near_misses_pass() {
        // A new id; and `1` and `"1"` are different ids.
        assert_eq!(rule(id_reused(&json!(2), Some(&json!(1)), false)), None);
        assert_eq!(rule(id_reused(&json!("1"), Some(&json!(1)), false)), None);
        assert_eq!(rule(id_reused(&json!(1), None, false)), None);
    }

    #[test]
    fn id_reused_says_which_id_is_taken() {
        let original = id_reused(&json!("a"), Some(&json!("a")), false).unwrap_err();
        assert!(original.message().contains("\"a\""), "{}", original.message());
        let taken = id_reused(&json!(7), None, true).unwrap_err();
        assert_eq!(taken.message(), "id 7 is already in flight");
    }

    #[test]
    fn request_changed_refuses_other_params() {
        let original = params(json!({"name": "weather", "arguments": {"city": "Paris"}}));
        let retry = params(json!({"name": "weather", "arguments": {"city": "Lyon"}}));
        assert_eq!(rule(request_changed(&original, &retry)), Some(RuleId::RetryRequestChanged));
        let added = params(json!({"name": "weather", "arguments": {"city": "Paris"}, "extra": true}));
        assert_eq!(rule(request_changed(&original, &added)), Some(RuleId::RetryRequestChanged));
    }

    #[test]
    fn request_changed_near_miss_same_params() {
        let original = params(json!({"name": "weather", "arguments": {"city": "Paris"}}));
        assert_eq!(rule(request_changed(&original, &original.clone())), None);
    }

    #[test]
    fn missing_input_response_names_the_first_unanswered_key() {
        let asked = json!({"a": {"method": "roots/list"}, "b": {"method": "roots/list"}});
        let given = json!({"a": {"roots": []}});
        let (requests, responses) = (read_view(&asked).unwrap(), read_view(&given).unwrap());
        let e = missing_input_response(&requests, &responses, &|_| true).unwrap_err();
        assert_eq!(e.rule(), RuleId::RetryMissingInputResponse);
        assert_eq!(e.message(), "no response to inputRequests[\"b\"]");
        // No inputResponses at all (or not an object) answers nothing.
        for given in [Value::Null, json!([])] {
            assert_eq!(
                rule(missing_input_response(&requests, &read_view(&given).unwrap(), &|_| true)),
                Some(RuleId::RetryMissingInputResponse)
            );
        }
        assert_eq!(
            rule(missing_input_response(&requests, &Map::Absent, &|_| true)),
            Some(RuleId::RetryMissingInputResponse)
        );
    }

    #[test]
    fn missing_input_response_near_misses_pass() {
        let asked = json!({"a": {"method": "roots/list"}});
        let requests = read_view(&asked).unwrap();
        // Every key answered, extra keys (another rule's business) or not.
        let given = json!({"a": {"roots": []}, "z": {"roots": []}});
        assert_eq!(rule(missing_input_response(&requests, &read_view(&given).unwrap(), &|_| true)), None);
        // Nothing asked (load shedding), nothing needed.
        assert_eq!(rule(missing_input_response(&Map::Absent, &Map::Absent, &|_| true)), None);
        let nothing = json!({});
        assert_eq!(rule(missing_input_response(&read_view(&nothing).unwrap(), &Map::Absent, &|_| true)), None);
    }

    #[test]
    fn request_state_mismatch_refuses_anything_but_the_exact_string() {
        let result = input_required(json!("s1"));
        for state in [json!("s2"), json!("S1"), json!(1), Value::Null] {
            let retry = request(json!({"name": "t", "requestState": state}));
            assert_eq!(rule(request_state_mismatch(&result, &retry)), Some(RuleId::RetryRequestStateMismatch));
        }
        let dropped = request(json!({"name": "t"}));
        assert_eq!(rule(request_state_mismatch(&result, &dropped)), Some(RuleId::RetryRequestStateMismatch));
    }

    #[test]
    fn request_state_mismatch_near_misses_pass() {
        let echoed = request(json!({"name": "t", "requestState": "s1"}));
        assert_eq!(rule(request_state_mismatch(&input_required(json!("s1")), &echoed)), None);
        // No state in the result: the other rule's case, not this one's.
        let none = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required"}});
        assert_eq!(rule(request_state_mismatch(&none, &echoed)), None);
    }

    #[test]
    fn request_state_unexpected_refuses_a_state_of_any_type() {
        let none = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {}}});
        for state in [json!("s1"), json!(1), Value::Null] {
            let retry = request(json!({"name": "t", "requestState": state}));
            assert_eq!(rule(request_state_unexpected(&none, &retry)), Some(RuleId::RetryRequestStateUnexpected));
        }
        // A result whose state is not a string had one: its fault is
        // `request-state-invalid`, reported with the result, not here again.
        let retry = request(json!({"name": "t", "requestState": "s1"}));
        assert_eq!(rule(request_state_unexpected(&input_required(json!(5)), &retry)), None);
    }

    #[test]
    fn request_state_unexpected_near_misses_pass() {
        let none = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {}}});
        assert_eq!(rule(request_state_unexpected(&none, &request(json!({"name": "t"})))), None);
        assert_eq!(rule(request_state_unexpected(&none, &request(Value::Null))), None);
        // The result had one: echoing it is expected.
        let echoed = request(json!({"name": "t", "requestState": "s1"}));
        assert_eq!(rule(request_state_unexpected(&input_required(json!("s1")), &echoed)), None);
    }

    #[test]
    fn rounds_exceeded_past_the_bound() {
        let e = rounds_exceeded(11, 10).unwrap_err();
        assert_eq!(e.rule(), RuleId::RetryRoundsExceeded);
        assert_eq!(e.message(), "more than 10 rounds");
        assert_eq!(rule(rounds_exceeded(1, 0)), Some(RuleId::RetryRoundsExceeded));
        assert_eq!(rule(rounds_exceeded(u32::MAX, u32::MAX - 1)), Some(RuleId::RetryRoundsExceeded));
    }

    #[test]
    fn rounds_exceeded_near_misses_pass() {
        assert_eq!(rule(rounds_exceeded(10, 10)), None);
        assert_eq!(rule(rounds_exceeded(0, 0)), None);
        assert_eq!(rule(rounds_exceeded(u32::MAX, u32::MAX)), None);
    }
}
