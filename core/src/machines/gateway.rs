//! Repairs a gateway makes for the clients behind it: what a lagging
//! client gets wrong about MRTR, done right on its behalf, so that the
//! server behind the gateway serves every client as the texts say.
//!
//! Each repair is named in one table, [`REPAIRS`], that the gateways'
//! options, their docs and the tests read. A gateway applies a repair only
//! when its operator names it: a repair changes what a client sees.
//!
//! - [`StateOnlyRetry`]: a client that does not retry a state-only
//!   `input_required` (load shedding: `requestState` and no question) gets
//!   the final result, the gateway retrying for it (with a backoff, at most
//!   `Settings::max_rounds` rounds). The Go SDK 1.8 client hands such a
//!   round to its caller, tower-mcp's refuses it, mcp-go's gives up after
//!   three.
//! - [`strip_final_fields`]: an `input_required` that also carries a final
//!   result's fields (mcp-go's `content: []`) reaches the client without
//!   them, so that a client that reads them as final (the Python SDK 2.3
//!   client) retries.
//!
//! Sans-IO, like every machine: the gateway sends what [`RetryStep`] says,
//! when it says, and feeds the answer back.

use crate::{
    base::error::{err, Result},
    base::settings::Settings,
    base::time::Millis,
    request::message::{state_only, FINAL_RESULT_FIELDS},
};
use alloc::{
    format,
    string::{String, ToString},
};
use serde_json::Value;

/// A repair a gateway can make.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Repair {
    /// State-only rounds retried on the client's behalf ([`StateOnlyRetry`]).
    StateOnlyRetry,
    /// A final result's fields removed from an `input_required` ([`strip_final_fields`]).
    FinalFields,
}

/// One row of [`REPAIRS`].
#[derive(Clone, Copy, Debug)]
pub struct RepairInfo {
    /// The repair.
    pub repair: Repair,
    /// Its name, as the gateways' `--repair` takes it.
    pub name: &'static str,
    /// What it does, and for whom.
    pub text: &'static str,
}

/// Every repair.
pub const REPAIRS: &[RepairInfo] = &[
    RepairInfo {
        repair: Repair::StateOnlyRetry,
        name: "state-only-retry",
        text: "A state-only `input_required` (load shedding: `requestState`, no question) of a JSON response is retried by the gateway, with the echoed `requestState` and a new id, after a backoff (50 ms, doubling, at most 1 s), up to the round bound; the client gets the final result under its own id. For clients that do not retry such a round: the Go SDK 1.8 client (hands it to its caller), tower-mcp 0.25 (refuses it), mcp-go 1.2.1 (gives up after three).",
    },
    RepairInfo {
        repair: Repair::FinalFields,
        name: "final-fields",
        text: "An `input_required` result that also carries a final result's fields (`content`, `structuredContent`, `isError`, `messages`, `contents`; mcp-go's servers put `content: []` in each) reaches the client without them. For clients that read them as a final result and never retry (the Python SDK 2.3 client).",
    },
];

impl Repair {
    /// The repair named `name` (`usage-invalid-argument` naming the known ones).
    pub fn from_name(name: &str) -> Result<Repair> {
        REPAIRS.iter().find(|r| r.name == name).map(|r| r.repair).ok_or_else(|| {
            let known: alloc::vec::Vec<&str> = REPAIRS.iter().map(|r| r.name).collect();
            err!(UsageInvalidArgument, "no repair is named {name:?} (the repairs: {})", known.join(", "))
        })
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        REPAIRS.iter().find(|r| r.repair == self).map_or("", |r| r.name)
    }
}

/// The first pause before a retry the gateway makes, in ms; each next one doubles it.
pub const FIRST_BACKOFF_MS: u64 = 50;

/// The longest pause before a retry, in ms.
pub const MAX_BACKOFF_MS: u64 = 1000;

/// What the gateway does with an upstream answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RetryStep {
    /// Relay this response to the client (the upstream's own bytes when it
    /// is the answer to the client's request; rewritten to the client's id
    /// after a retry of the gateway's).
    Relay(String),
    /// Send `request` upstream at `at`, and feed its answer back.
    Retry {
        /// When: a backoff after the answer.
        at: Millis,
        /// The retry, as JSON text.
        request: String,
    },
}

/// The state-only retries of one client request ([`Repair::StateOnlyRetry`]).
#[derive(Clone, Debug)]
pub struct StateOnlyRetry {
    /// The client's request, as the retries repeat it.
    request: Value,
    /// The id the client sent, which its answer carries.
    client_id: Value,
    /// The retries made so far.
    rounds: u32,
    max_rounds: u32,
}

impl StateOnlyRetry {
    /// The repair of the client request `body`, under `settings`: `None`
    /// when there is nothing to repair (not one JSON-RPC request, a method
    /// off the protocol's allow-list, a protocol without MRTR or with its
    /// fields on the envelope, a request the client already retries).
    pub fn for_request(body: &[u8], settings: &Settings) -> Option<StateOnlyRetry> {
        let rules = settings.protocol.rules();
        if !rules.mrtr || rules.draft_envelope {
            return None;
        }
        let request: Value = serde_json::from_slice(body).ok()?;
        let method = request.get("method")?.as_str()?;
        let params = request.get("params")?.as_object()?;
        let client_id = request.get("id").filter(|id| id.is_string() || id.is_number())?.clone();
        if !settings.protocol.allows_input_required(method) || params.contains_key("inputResponses") {
            return None;
        }
        Some(StateOnlyRetry { request, client_id, rounds: 0, max_rounds: settings.max_rounds })
    }

    /// The retries made so far.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// The upstream's answer `body` (JSON text) to the latest request, at
    /// `now`: retry a state-only round, else relay the answer to the client.
    /// A body that is no JSON-RPC response is relayed as it is.
    pub fn handle_response(&mut self, body: &[u8], now: Millis) -> RetryStep {
        let Ok(mut response) = serde_json::from_slice::<Value>(body) else { return self.relay_bytes(body) };
        let result = &response["result"];
        match state_only(result) {
            Some(state) if result["resultType"] == "input_required" && self.rounds < self.max_rounds => {
                self.retry(String::from(state), now)
            }
            _ if self.rounds == 0 => self.relay_bytes(body),
            _ => {
                response["id"] = self.client_id.clone();
                RetryStep::Relay(response.to_string())
            }
        }
    }

    fn relay_bytes(&self, body: &[u8]) -> RetryStep {
        RetryStep::Relay(String::from_utf8_lossy(body).into_owned())
    }

    /// The next retry: the client's request with the echoed state, no
    /// answers, and an id of the gateway's own (a retry's id differs from
    /// every request in flight), after a backoff.
    fn retry(&mut self, state: String, now: Millis) -> RetryStep {
        self.rounds += 1;
        let mut request = self.request.clone();
        request["id"] = Value::String(format!("mrtr-gateway-retry-{}-{}", self.rounds, id_text(&self.client_id)));
        request["params"]["requestState"] = Value::String(state);
        let shift = self.rounds.saturating_sub(1).min(16);
        let backoff = FIRST_BACKOFF_MS.saturating_mul(1 << shift).min(MAX_BACKOFF_MS);
        RetryStep::Retry { at: now.saturating_add(backoff), request: request.to_string() }
    }
}

/// An id as text: a string's own characters, a number's digits.
fn id_text(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `body` (a JSON-RPC response) without a final result's fields when it is
/// an `input_required` result carrying some ([`Repair::FinalFields`]); `None`:
/// nothing to remove (relay it as it is).
pub fn strip_final_fields(body: &[u8]) -> Option<String> {
    let mut response: Value = serde_json::from_slice(body).ok()?;
    let result = response.get_mut("result")?.as_object_mut()?;
    if result.get("resultType").and_then(Value::as_str) != Some("input_required") {
        return None;
    }
    let before = result.len();
    result.retain(|k, _| !FINAL_RESULT_FIELDS.contains(&k.as_str()));
    (result.len() != before).then(|| response.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: Value) -> String {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "reserve",
            "arguments": {"table": 7}, "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})
        .to_string()
    }

    fn shed(id: &str, state: &str) -> String {
        json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required", "requestState": state,
            "inputRequests": {}}})
        .to_string()
    }

    #[test]
    fn state_only_rounds_are_retried_with_a_backoff_and_the_final_result_takes_the_clients_id() {
        let mut repair = StateOnlyRetry::for_request(call(json!(7)).as_bytes(), &Settings::DEFAULT).unwrap();
        let first =
            json!({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "input_required", "requestState": "s1"}});
        let RetryStep::Retry { at, request } = repair.handle_response(first.to_string().as_bytes(), Millis(1000))
        else {
            panic!("a state-only round is retried")
        };
        assert_eq!(at, Millis(1050));
        let sent: Value = serde_json::from_str(&request).unwrap();
        assert_eq!(sent["id"], "mrtr-gateway-retry-1-7");
        assert_eq!(sent["params"]["requestState"], "s1");
        assert_eq!(sent["params"]["arguments"], json!({"table": 7}), "the params repeated");
        // The Go SDK server's form: an empty inputRequests asks nothing either; the pause doubles.
        let RetryStep::Retry { at, request } =
            repair.handle_response(shed("mrtr-gateway-retry-1-7", "s2").as_bytes(), Millis(2000))
        else {
            panic!("an empty inputRequests is a state-only round")
        };
        assert_eq!((at, repair.rounds()), (Millis(2100), 2));
        assert!(request.contains(r#""requestState":"s2""#));
        let done = json!({"jsonrpc": "2.0", "id": "mrtr-gateway-retry-2-7", "result": {"resultType": "complete", "content": []}});
        let RetryStep::Relay(relayed) = repair.handle_response(done.to_string().as_bytes(), Millis(3000)) else {
            panic!("a final result is relayed")
        };
        assert_eq!(serde_json::from_str::<Value>(&relayed).unwrap()["id"], 7, "under the client's id");
    }

    #[test]
    fn rounds_that_ask_and_requests_off_the_allow_list_are_left_to_the_client_and_the_rounds_are_bounded() {
        let settings = Settings::DEFAULT.with_max_rounds(1);
        let mut repair = StateOnlyRetry::for_request(call(json!("a")).as_bytes(), &settings).unwrap();
        let asks = json!({"jsonrpc": "2.0", "id": "a", "result": {"resultType": "input_required", "requestState": "s",
            "inputRequests": {"q": {"method": "roots/list"}}}})
        .to_string();
        assert_eq!(repair.handle_response(asks.as_bytes(), Millis(0)), RetryStep::Relay(asks.clone()), "as it came");
        assert!(matches!(repair.handle_response(shed("a", "s").as_bytes(), Millis(0)), RetryStep::Retry { .. }));
        let RetryStep::Relay(last) = repair.handle_response(shed("mrtr-gateway-retry-1-a", "t").as_bytes(), Millis(0))
        else {
            panic!("past the bound the round goes to the client")
        };
        assert_eq!(serde_json::from_str::<Value>(&last).unwrap()["id"], "a");
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).to_string();
        assert!(StateOnlyRetry::for_request(list.as_bytes(), &Settings::DEFAULT).is_none());
        let draft = Settings::DEFAULT.with_protocol(crate::base::protocol::Protocol::Sep2322Draft);
        assert!(StateOnlyRetry::for_request(call(json!(1)).as_bytes(), &draft).is_none());
    }

    #[test]
    fn final_fields_leave_an_input_required_and_nothing_else() {
        let mcp_go = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "content": [],
            "isError": false, "requestState": "s"}});
        let stripped: Value =
            serde_json::from_str(&strip_final_fields(mcp_go.to_string().as_bytes()).unwrap()).unwrap();
        assert_eq!(stripped["result"], json!({"resultType": "input_required", "requestState": "s"}));
        let done = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": []}});
        assert_eq!(strip_final_fields(done.to_string().as_bytes()), None);
        assert_eq!(Repair::from_name("final-fields").unwrap(), Repair::FinalFields);
        assert!(Repair::from_name("nope").unwrap_err().message().contains("state-only-retry, final-fields"));
    }
}
