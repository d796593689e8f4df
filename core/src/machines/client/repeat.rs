//! Which requests a client may send twice, and why.
//!
//! A request sent twice may run twice. An [`super::Operation`] sends a
//! request again in three cases: a hedged copy (no response head after
//! [`super::operation::Hedge::after_ms`]), a re-send after the response was
//! cut once a server had taken the request, and a re-send after no server
//! answered (the connection failed before a response head, or a gateway
//! said `502`, `503` or `504`). Only the last, and of it only `503 Service
//! Unavailable`, says the request ran nowhere: a `502` or `504` gateway, or a
//! connection that failed after the request was written, may have reached a
//! server that acted on it (as HTTP says of non-idempotent requests, RFC 9110
//! §9.2.2). So a request goes again only when running it twice is harmless:
//!
//! | request | hedged, or sent again after a cut, a `502`/`504`, a failed connection | sent again after a `503` |
//! |---|---|---|
//! | an MRTR retry (carries `requestState`) | yes: the server's replay guard makes its state single-use, and a final round is committed once per state | yes |
//! | `tasks/get`, `tasks/update` | yes: a read, and an update of the open round's keys | yes |
//! | a first request the host calls idempotent ([`super::operation::Config::idempotent`]) | yes | yes |
//! | a `tools/call` of a tool whose `tools/list` annotations say `readOnlyHint` or `idempotentHint` ([`Tools`]) | yes, once the host sets `idempotent` from [`Tools::is_idempotent`] | yes |
//! | any other first request (a `tools/call`, `prompts/get`, `resources/read` with no `requestState`) | **no**: nothing on it lets a server recognise the copy | yes |
//!
//! A stream mode's call (`2025-11-25`, SEP-1858, SEP-1335) is begun again
//! under a new id by the same rule, and only while nothing was answered on
//! it; its resumes (`GET` with `Last-Event-ID`) only read, and its answers
//! are keyed by their request ids, so those go again whenever they are cut
//! or stall ([`crate::http::call::CallConfig::stall_ms`]).

use alloc::{collections::BTreeSet, string::String};
use serde_json::Value;

/// Whether sending `request` twice is harmless: an MRTR retry (it carries a
/// `requestState`), a `tasks/get` or `tasks/update`, or a request the host
/// calls `idempotent`.
pub fn is_repeatable(request: &Value, idempotent: bool) -> bool {
    let params = &request["params"];
    let method = request["method"].as_str().unwrap_or_default();
    idempotent || params.get("requestState").is_some() || matches!(method, "tasks/get" | "tasks/update")
}

/// Whether an HTTP status says that no server took the request: only `503`.
pub fn proves_untaken(status: u16) -> bool {
    status == 503
}

/// The tools a server says may be called twice, from its `tools/list`
/// results: those annotated `readOnlyHint: true` (no effect at all) or
/// `idempotentHint: true` (a repeated call with the same arguments has no
/// further effect). A server's annotations are hints a client must not trust
/// for its own safety; here they are the server's word about its own tools,
/// and the only party a wrong hint harms is that server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tools {
    repeatable: BTreeSet<String>,
    known: BTreeSet<String>,
}

impl Tools {
    /// Nothing known yet.
    pub fn new() -> Tools {
        Tools::default()
    }

    /// Reads one page of a `tools/list` result (`{"tools": [...]}`): each
    /// tool's annotations replace what was known of it.
    pub fn handle_tools_list(&mut self, result: &Value) {
        let Some(tools) = result["tools"].as_array() else { return };
        for tool in tools {
            let Some(name) = tool["name"].as_str() else { continue };
            let hint = |k: &str| tool["annotations"][k].as_bool() == Some(true);
            self.known.insert(name.into());
            if hint("readOnlyHint") || hint("idempotentHint") {
                self.repeatable.insert(name.into());
            } else {
                self.repeatable.remove(name);
            }
        }
    }

    /// Whether `request` is a `tools/call` of a tool the server called
    /// read-only or idempotent in its latest listing.
    pub fn is_idempotent(&self, request: &Value) -> bool {
        request["method"] == "tools/call"
            && request["params"]["name"].as_str().is_some_and(|name| self.repeatable.contains(name))
    }

    /// Whether the server listed the tool `name`.
    pub fn knows(&self, name: &str) -> bool {
        self.known.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_a_request_a_server_can_recognise_or_a_host_vouches_for_is_repeatable() {
        let first = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "pay"}});
        let retry = json!({"jsonrpc": "2.0", "id": "1.1", "method": "tools/call",
                           "params": {"name": "pay", "requestState": "s", "inputResponses": {}}});
        let poll = json!({"jsonrpc": "2.0", "id": "1.2", "method": "tasks/get", "params": {"taskId": "t"}});
        assert!(!is_repeatable(&first, false));
        assert!(is_repeatable(&first, true));
        assert!(is_repeatable(&retry, false));
        assert!(is_repeatable(&poll, false));
        assert!(proves_untaken(503));
        assert!(!proves_untaken(502) && !proves_untaken(504) && !proves_untaken(0));
    }

    #[test]
    fn tools_annotated_read_only_or_idempotent_are_remembered_and_a_later_page_updates_them() {
        let mut tools = Tools::new();
        tools.handle_tools_list(&json!({"tools": [
            {"name": "weather", "annotations": {"readOnlyHint": true}},
            {"name": "upsert", "annotations": {"idempotentHint": true, "readOnlyHint": false}},
            {"name": "pay", "annotations": {"destructiveHint": true}},
            {"name": "plain"},
            {"annotations": {"readOnlyHint": true}},
        ]}));
        let call = |name: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name}});
        assert!(tools.is_idempotent(&call("weather")) && tools.is_idempotent(&call("upsert")));
        assert!(!tools.is_idempotent(&call("pay")) && !tools.is_idempotent(&call("plain")));
        assert!(!tools.is_idempotent(&call("unknown")) && tools.knows("plain") && !tools.knows("unknown"));
        let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"name": "weather"}});
        assert!(!tools.is_idempotent(&read));
        // The server changed its mind: the newer listing wins.
        tools.handle_tools_list(&json!({"tools": [{"name": "weather", "annotations": {"readOnlyHint": false}}]}));
        assert!(!tools.is_idempotent(&call("weather")));
    }
}
