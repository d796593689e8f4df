//! Every message the core produces validates against the official JSON schema
//! of its protocol (the repository's vendored copies in `spec/schema/`, see
//! `spec/README.md`): the retries of the `retry` cases and the answers of the
//! `respond` cases under `2026-07-28`, and the messages the client machine
//! sends.

use mrtr_conformance::{corpus_dir, load, outcome};
use serde_json::{json, Value};
use std::path::PathBuf;

/// The repository's `spec/schema/`.
fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../spec/schema")
}

/// A validator for `#/$defs/<def>` of the 2026-07-28 schema.
fn validator(def: &str) -> jsonschema::Validator {
    let text = std::fs::read_to_string(schema_dir().join("mcp-2026-07-28.schema.json"))
        .expect("the 2026-07-28 schema is readable");
    let mut schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    schema["$ref"] = json!(format!("#/$defs/{def}"));
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn request_def(method: &str) -> &'static str {
    match method {
        "tools/call" => "CallToolRequest",
        "prompts/get" => "GetPromptRequest",
        "resources/read" => "ReadResourceRequest",
        other => panic!("no schema definition for a retry of {other}"),
    }
}

fn response_def(method: &str) -> &'static str {
    match method {
        "tools/call" => "CallToolResultResponse",
        "prompts/get" => "GetPromptResultResponse",
        "resources/read" => "ReadResourceResultResponse",
        other => panic!("no schema definition for an answer to {other}"),
    }
}

fn assert_valid(def: &str, message: &Value, case: &str) {
    let v = validator(def);
    let errors: Vec<String> = v.iter_errors(message).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{case}: {message} is not a valid {def}: {errors:?}");
}

#[test]
fn produced_messages_validate_against_the_released_schema() {
    let cases = load(&corpus_dir()).expect("the corpus loads");
    let mut checked = 0;
    for case in cases.iter().filter(|c| c.op == "retry" || c.op == "respond") {
        let protocol = case.input.get("protocol").and_then(Value::as_str).unwrap_or("2026-07-28");
        if protocol != "2026-07-28" {
            continue;
        }
        let out = outcome(&case.op, &case.input).expect("the op runs");
        let method = case.input["request"]["method"].as_str().unwrap_or_default();
        match (case.op.as_str(), out.get("request"), out.get("response")) {
            ("retry", Some(m), _) => assert_valid(request_def(method), m, &case.id),
            ("respond", _, Some(m)) => assert_valid(response_def(method), m, &case.id),
            _ => continue,
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} produced messages were checked against the schema");
}

#[test]
fn the_schema_check_catches_an_invalid_message() {
    let not_a_retry = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 5}});
    assert!(!validator("CallToolRequest").is_valid(&not_a_retry));
}

#[test]
fn tasks_update_validates_against_the_tasks_extension_schema() {
    let text = std::fs::read_to_string(schema_dir().join("ext-tasks-draft.schema.json")).expect("the Tasks schema");
    let mut schema: Value = serde_json::from_str(&text).expect("JSON");
    schema["$ref"] = json!("#/$defs/UpdateTaskRequest");
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let ask = json!({"echo_input": {"method": "elicitation/create", "params": {"message": "Echo what?",
        "requestedSchema": {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}}}});
    let get = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": "t1"}});
    let shown = json!({"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete", "taskId": "t1",
        "status": "input_required", "createdAt": "2026-07-28T10:00:00Z", "lastUpdatedAt": "2026-07-28T10:00:00Z",
        "ttlMs": null, "inputRequests": ask}});
    let answers = json!({"echo_input": {"action": "accept", "content": {"input": "Hello World!"}}});
    let update = mrtr::client::task_update(&get, &shown, &answers, &json!(4), &mrtr::Limits::default()).unwrap();
    let errors: Vec<String> = validator.iter_errors(&update).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{update} is not a valid UpdateTaskRequest: {errors:?}");
    assert!(
        !validator.is_valid(&json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/update", "params": {"taskId": "t1"}}))
    );
}
