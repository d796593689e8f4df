//! Runners produce, one judge compares.
//!
//! Every language's runner drives its public API with each case and prints
//! what came back, one JSON line per case, and nothing else on stdout:
//!
//! ```text
//! {"id": "<case id>", "outcome": <the op's outcome, as the corpus writes expectations>}
//! {"id": "<case id>", "crash": "<why the runner could not run the case>"}
//! ```
//!
//! An outcome is the op's result object (`{"kind", "id", "method"}` for
//! `classify`, `{"violations": [...]}` for `check`, ...) or `{"error": "<rule
//! id>"}` when the call raised the error of that rule. The judge reads those
//! lines, loads the corpus, and decides "a case passes" in one place, with one
//! comparison ([`crate::ops::compare`]): a case without an outcome, with two,
//! or with a crash fails, and so does a line for a case the corpus lacks.

use crate::{ops::compare, Case};
use serde_json::Value;
use std::collections::BTreeMap;

/// The verdict on one runner's output.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Cases that passed.
    pub passed: usize,
    /// One line per failure: `<id>: <why>`.
    pub failures: Vec<String>,
}

/// What a runner said about one case.
enum Said {
    Outcome(Value),
    Crash(String),
}

/// Judges a runner's output lines against `cases`.
pub fn judge(cases: &[Case], output: &str) -> Verdict {
    let mut said: BTreeMap<String, Vec<Said>> = BTreeMap::new();
    let mut verdict = Verdict::default();
    for (n, line) in output.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        match read_line(line) {
            Ok((id, s)) => said.entry(id).or_default().push(s),
            Err(why) => verdict.failures.push(format!("output line {}: {why}: {line}", n + 1)),
        }
    }
    for case in cases {
        match said.remove(&case.id).as_deref() {
            None | Some([]) => verdict.failures.push(format!("{}: the runner gave no outcome", case.id)),
            Some([Said::Crash(why)]) => verdict.failures.push(format!("{}: the runner crashed: {why}", case.id)),
            Some([Said::Outcome(actual)]) => match compare(&case.op, &case.expect, &normalize(&case.op, actual)) {
                Ok(()) => verdict.passed += 1,
                Err(why) => verdict
                    .failures
                    .push(format!("{}: {why}\n  expected: {}\n  actual:   {}", case.id, case.expect, actual)),
            },
            Some(_) => verdict.failures.push(format!("{}: the runner gave more than one outcome", case.id)),
        }
    }
    for id in said.keys() {
        verdict.failures.push(format!("{id}: an outcome for a case the corpus does not have"));
    }
    verdict
}

fn read_line(line: &str) -> Result<(String, Said), String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    let id = v.get("id").and_then(Value::as_str).ok_or("no string \"id\"")?.to_string();
    match (v.get("outcome"), v.get("crash")) {
        (Some(o), None) => Ok((id, Said::Outcome(o.clone()))),
        (None, Some(c)) => Ok((id, Said::Crash(c.as_str().map_or_else(|| c.to_string(), String::from)))),
        _ => Err("exactly one of \"outcome\" and \"crash\" is needed".into()),
    }
}

/// Violations are judged by rule and index only: a runner passes the core's
/// violations on as they come (with their message).
fn normalize(op: &str, actual: &Value) -> Value {
    let mut actual = actual.clone();
    if op == "check" {
        if let Some(Value::Array(vs)) = actual.get_mut("violations") {
            for v in vs.iter_mut().filter_map(Value::as_object_mut) {
                v.retain(|k, _| k == "rule" || k == "index");
            }
        }
    }
    actual
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn case(id: &str, op: &str, expect: Value) -> Case {
        Case {
            id: id.into(),
            rules: vec![],
            op: op.into(),
            input: Value::Null,
            expect,
            raw: Value::Null,
            path: Default::default(),
        }
    }

    #[test]
    fn each_case_needs_exactly_one_matching_outcome() {
        let cases = [
            case("a/ok", "classify", json!({"kind": "request", "id": 1, "method": "m"})),
            case("a/err", "retry", json!({"error": "retry-id-reused"})),
            case("a/none", "respond", json!({"error": "input-required-empty"})),
            case("a/twice", "resume", json!({"error": "request-state-invalid"})),
            case("a/crash", "respond", json!({"error": "input-required-empty"})),
            case("a/check", "check", json!({"violations": [{"rule": "retry-id-reused", "index": 2}]})),
        ];
        let out = [
            r#"{"id":"a/ok","outcome":{"kind":"request","id":1,"method":"m","resultType":null}}"#,
            r#"{"id":"a/err","outcome":{"error":"retry-request-changed"}}"#,
            r#"{"id":"a/twice","outcome":{"error":"request-state-invalid"}}"#,
            r#"{"id":"a/twice","outcome":{"error":"request-state-invalid"}}"#,
            r#"{"id":"a/crash","crash":"TypeError: x"}"#,
            r#"{"id":"a/check","outcome":{"violations":[{"rule":"retry-id-reused","index":2,"message":"m"}]}}"#,
            r#"{"id":"a/stray","outcome":{}}"#,
            "not json",
        ]
        .join("\n");
        let v = judge(&cases, &out);
        assert_eq!(v.passed, 2, "{:#?}", v.failures);
        let starts: Vec<&str> = v.failures.iter().map(|f| f.split(':').next().unwrap()).collect();
        assert_eq!(starts, ["output line 8", "a/err", "a/none", "a/twice", "a/crash", "a/stray"]);
    }
}
