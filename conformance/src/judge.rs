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
//!
//! A runner that can only run some ops (the `embedded` one: the others need an
//! allocator) says so on its first line, before any outcome:
//!
//! ```text
//! {"ops": ["classify"], "why": "<why the others are left out>"}
//! ```
//!
//! Then the cases of other ops are left out (counted and reported, neither
//! passed nor failed), and every case of the declared ops must pass as from
//! any runner; an outcome for a left-out case fails. Without that line a
//! runner must cover every op.

use crate::ops::OPS;
use crate::{ops::compare, Case};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The verdict on one runner's output.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Cases that passed.
    pub passed: usize,
    /// One line per failure: `<id>: <why>`.
    pub failures: Vec<String>,
    /// Cases of ops the runner declared it leaves out, by op.
    pub left_out: BTreeMap<String, usize>,
    /// The runner's reason for leaving them out.
    pub why: Option<String>,
}

impl Verdict {
    /// How many cases were left out.
    pub fn left_out_count(&self) -> usize {
        self.left_out.values().sum()
    }
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
    let mut ops: Option<BTreeSet<String>> = None;
    let mut lines = output.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).peekable();
    if let Some(&(n, first)) = lines.peek() {
        if let Some(declared) = read_declaration(first) {
            lines.next();
            match declared {
                Ok((declared, why)) => (ops, verdict.why) = (Some(declared), why),
                Err(why) => verdict.failures.push(format!("output line {}: {why}: {first}", n + 1)),
            }
        }
    }
    for (n, line) in lines {
        match read_line(line) {
            Ok((id, s)) => said.entry(id).or_default().push(s),
            Err(why) => verdict.failures.push(format!("output line {}: {why}: {line}", n + 1)),
        }
    }
    for case in cases {
        if ops.as_ref().is_some_and(|ops| !ops.contains(&case.op)) {
            *verdict.left_out.entry(case.op.clone()).or_default() += 1;
            if said.remove(&case.id).is_some() {
                verdict.failures.push(format!("{}: an outcome for a case of an op the runner left out", case.id));
            }
            continue;
        }
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

/// The runner's first line when it declares its ops: `Some(Ok((ops, why)))`;
/// `None` when the line is no declaration (it has no `"ops"`).
#[allow(clippy::type_complexity)]
fn read_declaration(line: &str) -> Option<Result<(BTreeSet<String>, Option<String>), String>> {
    let v: Value = serde_json::from_str(line).ok()?;
    let ops = v.get("ops")?;
    let names: Option<BTreeSet<String>> =
        ops.as_array().and_then(|a| a.iter().map(|o| o.as_str().map(String::from)).collect());
    let why = v.get("why").and_then(Value::as_str).map(String::from);
    Some(match names {
        None => Err("\"ops\" must be an array of op names".into()),
        Some(names) if names.is_empty() => Err("\"ops\" names no op".into()),
        Some(names) => match names.iter().find(|n| !OPS.contains(&n.as_str())) {
            Some(unknown) => Err(format!("\"ops\" names an unknown op {unknown:?}")),
            None => Ok((names, why)),
        },
    })
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
        assert_eq!(v.left_out_count(), 0);
    }

    #[test]
    fn a_runner_may_declare_the_ops_it_covers() {
        let cases = [
            case("c/ok", "classify", json!({"kind": "request", "id": 1, "method": "m"})),
            case("c/err", "classify", json!({"error": "jsonrpc-invalid"})),
            case("r/one", "retry", json!({"error": "retry-id-reused"})),
            case("r/two", "retry", json!({"error": "retry-id-reused"})),
            case("k/one", "check", json!({"violations": []})),
        ];
        let head = r#"{"ops": ["classify"], "why": "they need an allocator"}"#;
        let ok = r#"{"id":"c/ok","outcome":{"kind":"request","id":1,"method":"m"}}"#;
        let err = r#"{"id":"c/err","outcome":{"error":"jsonrpc-invalid"}}"#;
        let v = judge(&cases, &[head, ok, err].join("\n"));
        assert_eq!((v.passed, v.failures.len(), v.left_out_count()), (2, 0, 3), "{:#?}", v.failures);
        assert_eq!(v.left_out.get("retry"), Some(&2));
        assert_eq!(v.why.as_deref(), Some("they need an allocator"));
        // A declared op's case still needs its outcome; a left-out case must have none.
        let v = judge(&cases, &[head, ok, r#"{"id":"r/one","outcome":{"error":"retry-id-reused"}}"#].join("\n"));
        let starts: Vec<&str> = v.failures.iter().map(|f| f.split(':').next().unwrap()).collect();
        assert_eq!(starts, ["c/err", "r/one"]);
        // A declaration names known ops, and only comes first.
        let v = judge(&cases, &[r#"{"ops": ["classify", "teleport"]}"#, ok, err].join("\n"));
        assert!(v.failures[0].starts_with("output line 1: \"ops\" names an unknown op"), "{:?}", v.failures);
        let v = judge(&cases, &[ok, head, err].join("\n"));
        assert!(v.failures.iter().any(|f| f.starts_with("output line 2")), "{:?}", v.failures);
    }
}
