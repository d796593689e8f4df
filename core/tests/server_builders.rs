//! The server's refusals built by the core: the request check (`_meta`,
//! headers, version), the capability filter, and the error responses that
//! carry what a client acts on.

use mrtr::{server, Protocol, RuleId};
use serde_json::{json, Value};

const V: Protocol = Protocol::V2026_07_28;

fn call(version: &str, caps: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "book",
        "_meta": {"io.modelcontextprotocol/protocolVersion": version,
                  "io.modelcontextprotocol/clientCapabilities": caps}}})
}

fn headers(version: &str) -> Vec<(String, String)> {
    [("mcp-protocol-version", version), ("mcp-method", "tools/call"), ("mcp-name", "book")]
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .to_vec()
}

fn sample(tools: bool) -> Value {
    let mut params = json!({"messages": [], "maxTokens": 10});
    if tools {
        params["tools"] = json!([{"name": "lookup", "inputSchema": {"type": "object"}}]);
    }
    json!({"method": "sampling/createMessage", "params": params})
}

#[test]
fn an_unserved_version_is_refused_with_what_the_server_serves() {
    let request = call("2099-01-01", json!({}));
    let e = server::check_request(&request, Some(&headers("2099-01-01")), &["2026-07-28"], V).unwrap_err();
    assert_eq!((e.rule(), e.code()), (RuleId::ProtocolVersionUnsupported, Some(-32022)));
    let (response, status) = server::error_response(&json!(7), &e);
    assert_eq!(status, 400);
    assert_eq!(response["error"]["data"]["supported"], json!(["2026-07-28"]));
    assert_eq!(response["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(response["error"]["data"]["rule"], "protocol-version-unsupported");
    assert!(
        server::check_request(&call("2026-07-28", json!({})), Some(&headers("2026-07-28")), &["2026-07-28"], V).is_ok()
    );
}

#[test]
fn the_request_check_runs_meta_then_headers_then_version() {
    let mut bare = call("2099-01-01", json!({}));
    bare["params"].as_object_mut().unwrap().remove("_meta");
    let rule =
        |r: &Value, h: Option<&[(String, String)]>| server::check_request(r, h, &["2026-07-28"], V).unwrap_err().rule();
    assert_eq!(rule(&bare, Some(&headers("2099-01-01"))), RuleId::RequestMetaMissing);
    assert_eq!(rule(&call("2099-01-01", json!({})), Some(&headers("2026-07-28"))), RuleId::RequestHeaderMismatch);
    assert_eq!(rule(&call("2099-01-01", json!({})), None), RuleId::ProtocolVersionUnsupported);
    // An earlier protocol settles its version at initialize.
    assert!(server::check_version(&call("2099-01-01", json!({})), &[], Protocol::V2025_11_25).is_ok());
}

#[test]
fn sampling_with_tools_needs_sampling_tools() {
    let plain = call("2026-07-28", json!({"sampling": {}}));
    let with_tools = call("2026-07-28", json!({"sampling": {"tools": {}}}));
    let q = |tools| json!({"q": sample(tools)});
    assert_eq!(server::missing_capabilities(&plain, &q(false), V).unwrap(), None);
    assert_eq!(server::missing_capabilities(&plain, &q(true), V).unwrap(), Some(json!({"sampling": {"tools": {}}})));
    assert_eq!(server::missing_capabilities(&with_tools, &q(true), V).unwrap(), None);
    // A tool that asks anyway is refused as `require_capabilities` refuses it: -32021 naming the need.
    let e = server::respond(&plain, Some(&q(true)), None, V, &Default::default()).unwrap_err();
    assert_eq!(e.rule(), RuleId::RequestCapabilityMissing);
    assert_eq!(e.code(), Some(-32021));
    assert_eq!(e.data(), Some(&json!({"requiredCapabilities": {"sampling": {"tools": {}}}})));
    assert!(server::respond(&with_tools, Some(&q(true)), None, V, &Default::default()).is_ok());
}

#[test]
fn a_refusal_names_every_capability_missing_merged() {
    let request = call("2026-07-28", json!({"elicitation": {"form": {}}}));
    let questions = json!({
        "url": {"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "https://x.test/", "elicitationId": "e"}},
        "form": {"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}},
        "roots": {"method": "roots/list"},
    });
    let e = server::require_capabilities(&request, &questions, V).unwrap_err();
    assert_eq!((e.rule(), e.code()), (RuleId::RequestCapabilityMissing, Some(-32021)));
    let (response, status) = server::error_response(&json!(7), &e);
    assert_eq!(status, 400);
    assert_eq!(response["error"]["data"]["requiredCapabilities"], json!({"elicitation": {"url": {}}, "roots": {}}));
    let all = call("2026-07-28", json!({"elicitation": {"form": {}, "url": {}}, "roots": {}}));
    assert!(server::require_capabilities(&all, &questions, V).is_ok());
}

#[test]
fn questions_that_are_not_input_requests_are_refused() {
    let request = call("2026-07-28", json!({}));
    let e = server::missing_capabilities(&request, &json!({"q": {"method": "tools/list"}}), V).unwrap_err();
    assert_eq!(e.rule(), RuleId::InputRequestInvalid);
    let e = server::missing_capabilities(&request, &json!([]), V).unwrap_err();
    assert_eq!(e.rule(), RuleId::UsageInvalidArgument);
}

#[test]
fn an_extension_the_request_did_not_declare_is_refused() {
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let e = server::require_declared(&call("2026-07-28", json!({"sampling": {}})), &tasks, V).unwrap_err();
    assert_eq!(
        (e.rule(), e.data().unwrap()["requiredCapabilities"].clone()),
        (RuleId::RequestCapabilityMissing, tasks.clone())
    );
    let declared = call("2026-07-28", json!({"extensions": {"io.modelcontextprotocol/tasks": {}, "other": {}}}));
    assert!(server::require_declared(&declared, &tasks, V).is_ok());
    let null = call("2026-07-28", json!({"extensions": {"io.modelcontextprotocol/tasks": null}}));
    assert!(server::require_declared(&null, &tasks, V).is_err());
    assert_eq!(server::require_declared(&declared, &json!([]), V).unwrap_err().rule(), RuleId::UsageInvalidArgument);
}

#[test]
fn a_cacheable_result_gets_the_hints_its_schema_requires() {
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}});
    let done = server::complete(&list, &json!({"tools": []}), V).unwrap();
    assert_eq!((done["result"]["ttlMs"].clone(), done["result"]["cacheScope"].clone()), (json!(0), json!("private")));
    let chosen = server::complete(&list, &json!({"tools": [], "ttlMs": 60000, "cacheScope": "public"}), V).unwrap();
    assert_eq!(
        (chosen["result"]["ttlMs"].clone(), chosen["result"]["cacheScope"].clone()),
        (json!(60000), json!("public"))
    );
    // A retry's result is never cached, whatever the server said; a tool's result names no hints.
    let mut read = json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "notes://x", "requestState": "s"}});
    let done = server::complete(&read, &json!({"contents": [], "ttlMs": 5000, "cacheScope": "public"}), V).unwrap();
    assert_eq!((done["result"]["ttlMs"].clone(), done["result"]["cacheScope"].clone()), (json!(0), json!("public")));
    read["method"] = json!("tools/call");
    assert!(server::complete(&read, &json!({"content": []}), V).unwrap()["result"].get("cacheScope").is_none());
    assert!(server::complete(&list, &json!({"tools": []}), Protocol::V2025_11_25).unwrap()["result"]
        .get("ttlMs")
        .is_none());
}

/// The next revision's draft registry changes one row: a refused state is
/// -32026 `StaleState`; every other refusal keeps its code, and none goes
/// with a 2xx status (`docs/status-policy.md`).
#[test]
fn the_draft_registry_gives_a_refused_state_its_own_code_and_keeps_the_rest() {
    use mrtr::{Error, ErrorCodes};
    let expired = Error::new(RuleId::StateExpired, "late");
    let (released, status) = server::error_response_in(&json!(7), &expired, ErrorCodes::Released);
    assert_eq!((released["error"]["code"].clone(), status), (json!(-32602), 400));
    assert_eq!(released["error"]["data"], json!({"rule": "state-expired"}));
    let (draft, status) = server::error_response_in(&json!(7), &expired, ErrorCodes::Draft);
    assert_eq!((draft["error"]["code"].clone(), status), (json!(-32026), 400));
    assert_eq!(draft["error"]["data"], json!({"kind": "request_state", "reason": "expired", "rule": "state-expired"}));
    for rule in mrtr::rules::RULES.iter().map(|r| r.id) {
        let e = Error::new(rule, "x");
        let (a, sa) = server::error_response_in(&json!(1), &e, ErrorCodes::Released);
        let (b, sb) = server::error_response_in(&json!(1), &e, ErrorCodes::Draft);
        assert!(!(200..300).contains(&sa) && !(200..300).contains(&sb), "{rule}: never a 2xx");
        assert_eq!(
            a["error"]["code"] != b["error"]["code"],
            rule.refuses_state(),
            "{rule}: only a refused state differs"
        );
    }
    assert_eq!(
        server::error_response(&json!(7), &expired),
        server::error_response_in(&json!(7), &expired, ErrorCodes::Released)
    );
}

/// A bridge carrying a 2026-07-28 question to a 2025-11-25 client: a URL-mode
/// elicitation gains the id that protocol requires (and keeps one it has),
/// loses it going the other way; other questions pass unchanged, a params-less
/// roots/list stays params-less.
#[test]
fn a_question_becomes_the_stream_request_of_the_target_protocol() {
    let url = json!({"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "url": "https://e.x/s"}});
    let legacy = server::stream_request(&json!("r1"), &url, Protocol::V2025_11_25, "e-1");
    assert_eq!(legacy["id"], "r1");
    assert_eq!(legacy["method"], "elicitation/create");
    assert_eq!(legacy["params"]["elicitationId"], "e-1");
    assert_eq!(legacy["params"]["url"], "https://e.x/s");
    let kept = server::stream_request(&json!(1), &legacy, Protocol::V2025_11_25, "other");
    assert_eq!(kept["params"]["elicitationId"], "e-1");
    let released = server::stream_request(&json!(1), &legacy, V, "e-2");
    assert!(released["params"].get("elicitationId").is_none(), "{released}");
    let form =
        json!({"method": "elicitation/create", "params": {"message": "Units?", "requestedSchema": {"type": "object"}}});
    assert_eq!(server::stream_request(&json!(2), &form, Protocol::V2025_11_25, "e-3")["params"], form["params"]);
    let roots = server::stream_request(&json!(3), &json!({"method": "roots/list"}), Protocol::V2025_11_25, "e-4");
    assert_eq!(roots, json!({"jsonrpc": "2.0", "id": 3, "method": "roots/list"}));
    assert!(mrtr::classify_value(&legacy, Protocol::V2025_11_25, &mrtr::Limits::DEFAULT).is_ok());
}

#[test]
fn mirrored_names_are_encoded_on_the_way_out_and_decoded_on_the_way_in() {
    // Security review L2 (SEP-2243): a name a server chose went out raw (CR LF: a header injection) and the
    // encoded form a conforming client sends was refused.
    for name in ["book", "café", "lookup\r\nX-Injected: 1", "notes://a b\tc", "=?base64?dGVzdA==?="] {
        let mut request = call("2026-07-28", json!({}));
        request["params"]["name"] = json!(name);
        let sent = mrtr::http::mirror_headers(&request);
        let (_, value) = sent.iter().find(|(n, _)| n == "mcp-name").unwrap();
        assert!(value.bytes().all(|b| (b' '..=b'~').contains(&b)), "{value:?} goes out raw");
        assert_eq!(value == name, name == "book", "{name:?} is encoded exactly when it is not plain");
        assert!(server::check_headers(&request, &sent, V).is_ok(), "{name:?}");
    }
    let mut cafe = call("2026-07-28", json!({}));
    cafe["params"]["name"] = json!("café");
    let mut other = headers("2026-07-28");
    other[2].1 = "=?base64?Y2Fmw6g=?=".into(); // "cafè"
    assert_eq!(server::check_headers(&cafe, &other, V).unwrap_err().rule(), RuleId::RequestHeaderMismatch);
}

#[test]
fn a_mirrored_field_sent_twice_is_refused_whichever_occurrence_matches() {
    // Security review I5: the first occurrence was read here, the last in the Python binding.
    let request = call("2026-07-28", json!({}));
    for extra in ["book", "delete_everything"] {
        let mut twice = headers("2026-07-28");
        twice.push(("Mcp-Name".into(), extra.into()));
        let e = server::check_headers(&request, &twice, V).unwrap_err();
        assert_eq!(e.rule(), RuleId::RequestHeaderMismatch, "{extra}");
    }
}

#[test]
fn server_discover_is_built_from_what_the_server_declares_with_the_hints_its_schema_requires() {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}});
    let server = json!({"capabilities": {"tools": {}}, "serverInfo": {"name": "weather", "version": "1.0.0"}});
    let answer = server::discover(&request, &server, V).unwrap();
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"capabilities": {"tools": {}},
            "serverInfo": {"name": "weather", "version": "1.0.0"}, "supportedVersions": ["2026-07-28"],
            "resultType": "complete", "ttlMs": 0, "cacheScope": "private"}})
    );
    // What the server names stays: its versions, its instructions, its own caching hints.
    let mut more = server.clone();
    more["supportedVersions"] = json!(["2026-07-28", "2025-11-25"]);
    more["instructions"] = json!("Ask for a city.");
    let answer = server::discover(&request, &more, V).unwrap();
    assert_eq!(answer["result"]["supportedVersions"], json!(["2026-07-28", "2025-11-25"]));
    assert_eq!(answer["result"]["instructions"], "Ask for a city.");
    // A message the core reads as valid.
    assert!(mrtr::classify_value(&answer, V, &mrtr::Limits::default()).is_ok(), "a valid message");
}

#[test]
fn a_server_discover_answer_of_the_wrong_shape_is_the_callers_misuse_and_says_what_fits() {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}});
    let wrong = [
        (
            json!({"capabilities": {"tools": {}}, "serverinfo": {}}),
            "no member \"serverinfo\": the known ones are capabilities, serverInfo, instructions, supportedVersions",
        ),
        (json!({"serverInfo": {"name": "w", "version": "1"}}), "capabilities is an object"),
        (
            json!({"capabilities": {}, "serverInfo": {"name": "w"}}),
            "serverInfo is an object with a string name and version",
        ),
        (json!({"capabilities": {}, "supportedVersions": []}), "supportedVersions is a non-empty array of strings"),
        (json!({"capabilities": {}, "instructions": 7}), "instructions is a string"),
        (json!([]), "is an object"),
    ];
    for (server, said) in wrong {
        let e = server::discover(&request, &server, V).unwrap_err();
        assert_eq!(e.rule(), RuleId::UsageInvalidArgument, "{server}");
        assert!(e.message().contains(said), "{server}: {}", e.message());
    }
    let call = call("2026-07-28", json!({}));
    let e = server::discover(&call, &json!({"capabilities": {}}), V).unwrap_err();
    assert_eq!(e.rule(), RuleId::UsageInvalidArgument);
}
