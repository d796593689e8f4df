//! The refusals of `cases/refusals/` are what mrtr's server builders send:
//! each case's refusal is rebuilt from its request with the builder the case
//! names, through `server::error_response`, and its code and `data` must be
//! the case's (the message is prose). The corpus run then checks them with
//! the checker, so every refusal the builders make is checked by it.

use mrtr::round::SealedRounds;
use mrtr::state::{Algorithm, Key, KeyRing, Subject};
use mrtr::{server, Error, ErrorCodes, Limits, Millis, Protocol};
use mrtr_conformance::corpus;
use serde_json::{json, Value};

const V: Protocol = Protocol::V2026_07_28;

/// The refusal each builder makes of `request` (the case's first entry, or
/// for a retry its third).
fn rebuilt(name: &str, request: &Value) -> Error {
    let sampling = json!({"summary": {"method": "sampling/createMessage",
        "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Summarize"}}], "maxTokens": 100}}});
    let url_and_roots = json!({
        "sign_in": {"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "url": "https://example.com"}},
        "roots": {"method": "roots/list"},
    });
    let refused = match name {
        "tool-asks-undeclared-capability" => {
            server::respond(request, Some(&sampling), None, V, &Limits::DEFAULT).map(drop)
        }
        "tool-requires-merged-capabilities" => server::require_capabilities(request, &url_and_roots, V),
        "extension-required" => {
            server::require_declared(request, &json!({"extensions": {"io.modelcontextprotocol/tasks": {}}}), V)
        }
        "version-unsupported" => server::check_version(request, &["2026-07-28"], V),
        "meta-missing" => server::check_request(request, None, &["2026-07-28"], V),
        "state-refused-then-fresh-call" | "state-refused-draft-registry" => {
            let ring = KeyRing::new(Key::new(1, Algorithm::XChaCha20Poly1305, &[7; 32]));
            let rounds = SealedRounds::new(&ring, 300, V, Limits::DEFAULT);
            let needs = json!({"github_login": {"method": "elicitation/create", "params": {"message": "Who?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}});
            rounds
                .call(request, Subject::Principal("alice"), Millis::from_secs(1_000))
                .and_then(|c| rounds.resume(&c, &needs, None))
                .map(drop)
        }
        other => panic!("refusals/{other}: no builder named for it in this test"),
    };
    refused.expect_err("the builder refuses the case's request")
}

#[test]
fn every_refusal_in_the_corpus_is_what_its_builder_sends() {
    let dir = corpus::corpus_dir().join("refusals");
    let cases = corpus::load(&dir).expect("cases/refusals loads");
    assert!(cases.len() >= 7, "cases/refusals has a case per builder");
    for case in cases {
        let name = case.id.strip_prefix("refusals/").unwrap_or(&case.id);
        let transcript = case.input["transcript"].as_array().expect("a transcript");
        // The refusal is the first server error; the request it answers has its id.
        let sent = transcript.iter().map(|e| &e["message"]).find(|m| m.get("error").is_some()).expect("a refusal");
        let request = transcript
            .iter()
            .map(|e| &e["message"])
            .find(|m| m.get("method").is_some() && m["id"] == sent["id"])
            .expect("the refused request");
        // The cases of the next revision's draft registry say so in their name.
        let codes = if name.ends_with("-draft-registry") { ErrorCodes::Draft } else { ErrorCodes::Released };
        let (built, status) = server::error_response_in(&sent["id"], &rebuilt(name, request), codes);
        assert_eq!(status, 400, "{name}: a refusal goes with HTTP 400");
        assert_eq!(built["error"]["code"], sent["error"]["code"], "{name}: code");
        assert_eq!(built["error"]["data"], sent["error"]["data"], "{name}: data");
    }
}
