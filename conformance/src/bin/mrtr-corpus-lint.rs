//! The corpus lint: every case matches `case.schema.json`, its id is its path,
//! ids are unique, its rules are catalogue ids (the catalogue is the core's
//! table, `mrtr::rules::RULES`), its op is known, and every rule (but the
//! exempt ones: see [`exempt`]) has, under each protocol where it applies, a
//! case that triggers it and a near miss that must not.

use mrtr::rules::RULES;
use mrtr_conformance::{corpus::Case, corpus_dir, load, ops::OPS};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    if let Some(code) = mrtr_conformance::version_asked("mrtr-corpus-lint") {
        return code;
    }
    let dir = corpus_dir();
    let mut problems = Vec::new();
    let cases = match load(&dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("lint: {e}");
            return ExitCode::FAILURE;
        }
    };
    if cases.is_empty() {
        problems.push(format!("no case in {}", dir.display()));
    }
    lint_schema(&cases, &mut problems);
    lint_ids(&dir, &cases, &mut problems);
    lint_rules(&cases, &mut problems);
    lint_coverage(&cases, &mut problems);
    for p in &problems {
        println!("lint: {p}");
    }
    println!("{} cases, {} problems", cases.len(), problems.len());
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn lint_schema(cases: &[Case], problems: &mut Vec<String>) {
    let schema_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("case.schema.json");
    let schema: Value = match std::fs::read_to_string(&schema_path).map(|t| serde_json::from_str(&t)) {
        Ok(Ok(s)) => s,
        _ => return problems.push(format!("cannot read {}", schema_path.display())),
    };
    let validator = match jsonschema::validator_for(&schema) {
        Ok(v) => v,
        Err(e) => return problems.push(format!("case.schema.json: {e}")),
    };
    for case in cases {
        for error in validator.iter_errors(&case.raw) {
            problems.push(format!("{}: {} at {}", case.id, error, error.instance_path()));
        }
    }
}

fn lint_ids(dir: &Path, cases: &[Case], problems: &mut Vec<String>) {
    let mut seen = BTreeSet::new();
    for case in cases {
        let rel: PathBuf = case.path.strip_prefix(dir).unwrap_or(&case.path).with_extension("");
        let want = rel.to_string_lossy().replace('\\', "/");
        if case.id != want {
            problems.push(format!("{}: id must be {want:?}", case.path.display()));
        }
        if !seen.insert(case.id.clone()) {
            problems.push(format!("{}: id used twice", case.id));
        }
        if !OPS.contains(&case.op.as_str()) {
            problems.push(format!("{}: unknown op {:?}", case.id, case.op));
        }
    }
}

fn lint_rules(cases: &[Case], problems: &mut Vec<String>) {
    for case in cases {
        for rule in &case.rules {
            if mrtr::RuleId::from_name(rule).is_none() {
                problems.push(format!("{}: {rule:?} is not a rule id", case.id));
            }
        }
    }
}

/// Whether the outcome a case expects contains `rule`.
fn triggers(case: &Case, rule: &str) -> bool {
    let e = &case.expect;
    let outputs =
        e.get("outputs").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_array).flatten();
    e.get("error").and_then(Value::as_str) == Some(rule)
        || e.get("violations").and_then(Value::as_array).is_some_and(|v| v.iter().any(|x| x["rule"] == rule))
        || e.get("events").and_then(Value::as_array).is_some_and(|v| v.iter().any(|x| x["error"] == rule))
        // A machine script: an event of the rule, or a step refused with it.
        || outputs.clone().any(|o| o["event"]["rule"] == rule || o["error"] == rule)
}

/// The protocols under which each rule must have a trigger and a near miss
/// (`docs/RULES.md` "Protocols" and the rows' own markers). Rules not listed need
/// one of each under any protocol: the sealed-state rules, whose vectors are
/// protocol-independent.
const APPLIES: &[(&[&str], &[&str])] = &[
    (&["jsonrpc-parse-error", "jsonrpc-invalid", "limit-exceeded", "input-required-method-not-allowed"], ALL),
    (
        &[
            "request-meta-missing",
            "request-header-mismatch",
            "request-capability-missing",
            "protocol-version-unsupported",
            "result-type-missing",
            "input-required-empty",
            "input-request-capability-missing",
            "input-required-cache-hint",
            "task-input-key-reused",
        ],
        &["2026-07-28"],
    ),
    (&["complete-request-state"], &["2026-07-28", "sep-2322"]),
    (&["server-request-unassociated"], &["2025-11-25"]),
    (
        &[
            "result-type-unknown",
            "input-request-invalid",
            "request-state-invalid",
            "message-after-input-required",
            "retry-id-reused",
            "retry-request-changed",
            "retry-missing-input-response",
            "retry-input-response-invalid",
            "retry-request-state-mismatch",
            "retry-request-state-unexpected",
            "input-responses-unsolicited",
            "retry-rounds-exceeded",
            "input-responses-malformed",
            "server-request-on-stream",
        ],
        MRTR,
    ),
    (
        &[
            "task-status-invalid",
            "task-transition-invalid",
            "task-input-requests-missing",
            "task-input-response-without-task",
            "task-unknown",
        ],
        &["2026-07-28", "sep-2322"],
    ),
];
const ALL: &[&str] = &["2026-07-28", "sep-2322", "sep-2322-draft", "2025-11-25"];
const MRTR: &[&str] = &["2026-07-28", "sep-2322", "sep-2322-draft"];

/// The protocol a case runs under (absent: the default).
fn protocol_of(case: &Case) -> &str {
    let i = &case.input;
    [i.get("protocol"), i.pointer("/config/protocol"), i.pointer("/binding/protocol")]
        .into_iter()
        .flatten()
        .find_map(Value::as_str)
        .unwrap_or("2026-07-28")
}

/// Rules that need no trigger nor near miss: the API-misuse rules (`usage-*`,
/// `internal-*`), which a caller's mistake triggers rather than a message a
/// case can hold; and the rules only the gateways' listeners keep (a
/// request's `Origin`, `Host` and `Content-Type` against the listener's
/// address and allow-lists: `mrtr_proxy::web`), which no op of the corpus
/// takes, tested where they are kept (`proxy/tests/web.rs`, the bridge's).
fn exempt(rule: &str) -> bool {
    const GATEWAY: [&str; 2] = ["http-origin-refused", "http-content-type-unsupported"];
    ["usage-", "internal-"].iter().any(|prefix| rule.starts_with(prefix)) || GATEWAY.contains(&rule)
}

fn lint_coverage(cases: &[Case], problems: &mut Vec<String>) {
    let mut count: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for rule in RULES.iter().map(|r| r.name).filter(|n| !exempt(n)) {
        let about = cases.iter().filter(|c| c.rules.iter().any(|r| r == rule));
        let (hit, miss) = about.fold((0, 0), |(h, m), c| if triggers(c, rule) { (h + 1, m) } else { (h, m + 1) });
        count.insert(rule, (hit, miss));
        if hit == 0 {
            problems.push(format!("no case triggers {rule}"));
        }
        if miss == 0 {
            problems.push(format!("no near miss for {rule}"));
        }
        let protocols = APPLIES.iter().find(|(rules, _)| rules.contains(&rule)).map_or(&[][..], |(_, p)| *p);
        for protocol in protocols {
            let under = cases.iter().filter(|c| c.rules.iter().any(|r| r == rule) && protocol_of(c) == *protocol);
            let (hit, miss) = under.fold((0, 0), |(h, m), c| if triggers(c, rule) { (h + 1, m) } else { (h, m + 1) });
            if hit == 0 || miss == 0 {
                problems
                    .push(format!("{rule} under {protocol}: {hit} triggers, {miss} near misses (need one of each)"));
            }
        }
    }
}
