//! `mrtr check` on HTTP Archives: the bundled example is compliant, and a
//! copy whose retry alters `requestState` is not. Also: input that is not
//! UTF-8 gets the core's error with its line.

use std::path::PathBuf;
use std::process::{Command, Output};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/weather.har");

fn mrtr(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mrtr")).args(args).output().expect("runs mrtr")
}

fn temp(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mrtr-har-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn the_example_har_is_compliant() {
    let out = mrtr(&["check", EXAMPLE]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("4 entries"), "{stdout}");
    assert!(stdout.contains("compliant: no violation"), "{stdout}");
}

#[test]
fn an_altered_request_state_is_a_violation() {
    let har = std::fs::read_to_string(EXAMPLE).unwrap();
    // The retry (the second request) echoes "foo": alter that echo only.
    let retry = har.rfind(r#"\"requestState\":\"foo\"}}"#).expect("the retry's requestState");
    let mut altered = har.clone();
    altered.replace_range(retry..retry + r#"\"requestState\":\"foo\""#.len(), r#"\"requestState\":\"bar\""#);
    // Named without .har: read as a HAR because it has a "log" key.
    let path = temp("altered.json", altered.as_bytes());
    let out = mrtr(&["check", path.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    // Who sent it, and which entry's state it should have echoed.
    assert!(stdout.contains("(HAR entry 2, from the client): retry-request-state-mismatch"), "{stdout}");
    assert!(stdout.contains("(the input_required of entry 1)"), "{stdout}");

    let out = mrtr(&["check", path.to_str().unwrap(), "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<_> = report["violations"].as_array().unwrap().iter().map(|v| v["rule"].as_str().unwrap()).collect();
    assert!(rules.contains(&"retry-request-state-mismatch"), "{report}");
    assert_eq!(report["violations"][0]["harEntry"], 2);
    assert_eq!(report["violations"][0]["from"], "client");
}

/// A recording checked under another protocol than the one it declares
/// gets a warning naming the declared one and where it is declared.
#[test]
fn a_protocol_other_than_the_recording_declares_is_warned_about() {
    let out = mrtr(&["check", "--protocol", "2025-11-25"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("warning: the recording declares protocol 2026-07-28 (line 1), checked under 2025-11-25"),
        "{stdout}"
    );
    let out = mrtr(&["check", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["warnings"], serde_json::json!([]), "the same protocol: no warning");
}

#[test]
fn input_that_is_not_utf8_gets_the_core_error_with_its_line() {
    let line = br#"{"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "ping"}}"#;
    let mut bytes = line.to_vec();
    bytes.extend_from_slice(b"\n{\"from\": \"client\", \"message\": \"\xFF\"}\n");
    let path = temp("bad.jsonl", &bytes);
    let out = mrtr(&["check", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("line 2") && stderr.contains("jsonrpc-parse-error") && stderr.contains("UTF-8"),
        "{stderr}"
    );
}

#[test]
fn a_bad_har_file_is_unreadable_input() {
    let path = temp("broken.har", b"{\"log\": 1}");
    let out = mrtr(&["check", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not a HAR") && stderr.contains("usage-invalid-argument"), "{stderr}");
}

/// Security review L7 and L8: a recording named `rec{{DATA}}.jsonl` whose
/// traffic carries `<img onerror>` and `<!--<script>` gives a page where
/// that markup is only escaped JSON text inside the data element: the name
/// fills no placeholder, and the data cannot leave its script.
#[test]
fn html_of_a_hostile_recording_keeps_its_traffic_inert() {
    let argument = "<img src=x onerror=alert(document.domain)><!--<script>";
    let line = serde_json::json!({"from": "client", "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "t", "arguments": {"q": argument}}}});
    let path = temp("rec{{DATA}}.jsonl", format!("{line}\n").as_bytes());
    let out_path = path.with_file_name("out.html");
    let out = mrtr(&["check", path.to_str().unwrap(), "--html", out_path.to_str().unwrap()]);
    // Checked (a lone call breaks rules: exit 1) and written.
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let page = std::fs::read_to_string(&out_path).unwrap();
    assert!(!page.contains("<img") && !page.contains("<!--"), "{page}");
    let open = r#"<script type="application/json" id="data">"#;
    let start = page.find(open).expect("the data element") + open.len();
    let end = start + page[start..].find("</script>").unwrap();
    assert!(
        page[start..end].contains(r"\u003cimg src=x onerror=alert(document.domain)\u003e\u003c!--\u003cscript\u003e")
    );
    assert_eq!(page.matches("{{DATA}}").count(), 1, "the name, once, in the data");
    assert!(page[start..end].contains("rec{{DATA}}.jsonl"));
    assert_eq!(page.matches("<script").count(), 2, "the data and the code, nothing else");
    assert!(
        page.contains(r#"<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-"#)
    );
}

/// Issue #46: a HAR whose body is no JSON (what a proxy flagged live) is
/// checked, not refused: the body is reported where it is, with its rule,
/// and the rest of the conversation is checked; a JSON Lines record keeps
/// such a body as its `text`, and gives the same.
#[test]
fn a_body_that_is_no_json_is_a_violation_where_it_is_not_unreadable_input() {
    let har = std::fs::read_to_string(EXAMPLE).unwrap();
    let mut log: serde_json::Value = serde_json::from_str(&har).unwrap();
    log["log"]["entries"][0]["response"]["content"]["text"] = "{\"jsonrpc\": \"2.0\", \"id\": ".into();
    let path = temp("cut-body.har", log.to_string().as_bytes());
    let out = mrtr(&["check", path.to_str().unwrap(), "--json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let violations = report["violations"].as_array().unwrap();
    let found: Vec<_> =
        violations.iter().map(|v| (v["rule"].as_str().unwrap(), v["harEntry"].as_u64().unwrap())).collect();
    // The input_required was in the cut body: the retry after it retries
    // nothing the checker saw (as the live proxy found too).
    assert_eq!(found, [("jsonrpc-parse-error", 1), ("input-responses-unsolicited", 2)], "{report}");
    assert_eq!(violations[0]["from"], "server", "{report}");

    let line = r#"{"from":"client","at":3,"http":{"exchange":"1","method":"POST","url":"http://h/mcp","headers":{},"text":"{\"jsonrpc\": \"2.0\", \"id\": 1,"}}"#;
    let path = temp("cut-body.jsonl", format!("{line}\n").as_bytes());
    let out = mrtr(&["check", path.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("entry 0 (line 1, from the client): jsonrpc-parse-error"), "{stdout}");
}

/// Interop warnings in every output, naming the client, and never in the
/// exit status: mcp-go's server puts `content: []` into a state-only
/// `input_required`, and a client that never retries it (the Go SDK's)
/// leaves its caller with no result.
#[test]
fn interop_warnings_name_the_client_in_text_json_and_the_page_and_leave_the_exit_status() {
    let lines = [
        r#"{"from":"client","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reserve","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"go-sdk-client","version":"1.8.0"}}}}}"#,
        r#"{"from":"server","message":{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"size=large","content":[]}}}"#,
    ];
    let path = temp("unretried.jsonl", (lines.join("\n") + "\n").as_bytes());
    let page = path.with_extension("html");
    let out = mrtr(&["check", path.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("compliant: no violation"), "{stdout}");
    for warning in ["input-required-final-fields: an input_required also carries content", "state-only-not-retried"] {
        assert!(stdout.contains(&format!("(line 2, client go-sdk-client 1.8.0): {warning}")), "{stdout}");
    }
    assert!(stdout.contains("2 interop warnings (the exit status does not count them)"), "{stdout}");

    let out = mrtr(&["check", path.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<_> = report["interop"].as_array().unwrap().iter().map(|w| w["warning"].as_str().unwrap()).collect();
    assert_eq!(names, ["input-required-final-fields", "state-only-not-retried"], "{report}");
    assert_eq!(report["interop"][1]["client"], "go-sdk-client 1.8.0");
    assert_eq!(report["violations"], serde_json::json!([]));

    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(r#""warning":"state-only-not-retried""#), "the page's data carries the warning");
    assert!(html.contains("go-sdk-client 1.8.0"));
}
