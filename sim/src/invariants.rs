//! What must hold after every run, whatever the faults.
//!
//! Per operation:
//! - **One end.** Exactly one final event (`Done` or `Failed`), nothing after
//!   it, and the operation drained (no exchange left open, no event left).
//! - **A failure names its rule.** `Done` with a JSON-RPC error carries
//!   `data.rule`; `Failed` carries its rule by construction. A rule outside
//!   what the faults can cause ([`EXPECTED`]) is a finding.
//! - **No side effect twice**: the store's counter for the operation is at
//!   most 1.
//! - **A result seen was committed**: `Done` with a result ⇒ the counter is 1,
//!   and the result is the one committed (and the one the tool computes from
//!   the user's answers). The converse does *not* hold under faults, and is
//!   not checked: the final round can commit and its every response be lost
//!   (dropped, cut, its instance dead after the commit), or a copy of the
//!   final request can be refused `state-replayed` while the original
//!   commits. The client then ends with a failure while the effect ran once;
//!   [`Verdict::unseen`] counts those. What the protocol promises is "at most
//!   once, and never a result that was not committed", not "exactly once".
//! - **The conversation is compliant**: every HTTP exchange as the client saw
//!   it passes the core's HTTP-level checker ([`Audit`], the message checker
//!   underneath, under the operation's protocol and transport) with no
//!   violation: the message rules, the header-field rules, the `sse-*` rules.
//! - **Nothing the host did was refused**, and the operation reported no
//!   violation of the server's and no stray message.
//! - **Memory is bounded**: the operation's state, and what the checker holds
//!   of its requests in flight, stay below [`MAX_HELD`].
//!
//! Per run:
//! - **Liveness**: the run ends (no event left) before the deadline.
//! - **No fault, no failure**: a run in which no fault fired completes every
//!   operation.
//! - **The store is bounded** by the work: at most [`STORE_PER_OP`] records per operation.

use crate::client::{Outcome, Way};
use crate::tool::expected_text;
use crate::world::Report;
use mrtr::check::Audit;
use mrtr::RuleId;

/// The largest an operation's state (its debug form), or the checker's
/// requests in flight, may be, in bytes.
pub const MAX_HELD: usize = 256 << 10;
/// Store records per operation at most.
pub const STORE_PER_OP: usize = 64;

/// The rules an operation may end with when faults hit it.
pub const EXPECTED: [RuleId; 5] = [
    // A round's state spent by an earlier copy of the round (a duplicate, a
    // re-send after a lost response, an instance that died after spending it).
    RuleId::StateReplayed,
    // The round cut, and cut again past the re-sends allowed.
    RuleId::SseStreamEnded,
    RuleId::HttpStatusUnexpected,
    // A JSON body cut mid-way, handed over as it came by a streaming host.
    RuleId::JsonrpcParseError,
    // A round held up past its state's lifetime (short lifetimes, skewed clocks).
    RuleId::StateExpired,
];

/// The judgement of one run.
#[derive(Debug, Default)]
pub struct Verdict {
    /// What broke, one line each (empty: the run passed).
    pub violations: Vec<String>,
    /// Operations that completed.
    pub complete: usize,
    /// Operations that ended with a rule.
    pub failed: usize,
    /// Operations whose side effect ran while their client saw no result.
    pub unseen: usize,
    /// Rules the failures named, with counts.
    pub rules: std::collections::BTreeMap<String, usize>,
    /// Per way of calling the tool (`mrtr`, `tasks`): operations, and how many completed.
    pub modes: std::collections::BTreeMap<&'static str, (usize, usize)>,
}

/// Judges `report`.
pub fn judge(report: &Report) -> Verdict {
    let mut v = Verdict::default();
    for f in &report.ops {
        operation(report, f, &mut v);
    }
    if !report.quiescent {
        v.violations.push(format!("liveness: events still queued at the deadline ({} ms)", report.end_ms));
    }
    // The legacy design fails without any fault (answers reach other instances): the contrast.
    let designed = report.ops.iter().filter(|f| f.run.spec.way != Way::Legacy).count();
    let completed = report.ops.iter().filter(|f| f.run.spec.way != Way::Legacy).filter(|f| is_complete(f)).count();
    if report.fired.is_empty() && completed != designed {
        v.violations.push("no fault fired, yet not every operation completed".into());
    }
    let bound = STORE_PER_OP * report.ops.len().max(1);
    if report.store.len() > bound {
        v.violations.push(format!("the store holds {} records, over {bound}", report.store.len()));
    }
    v
}

fn is_complete(f: &crate::world::Finished) -> bool {
    matches!(f.run.outcomes.first(), Some(Outcome::Complete(_)))
}

/// Whether `rule` may end the operation: one the faults cause, or (the
/// legacy design) a round whose answer went to another instance.
fn expected(rule: &str, way: Way) -> bool {
    EXPECTED.iter().any(|r| r.name() == rule) || (way == Way::Legacy && rule == RuleId::LimitExceeded.name())
}

fn operation(report: &Report, f: &crate::world::Finished, v: &mut Verdict) {
    let run = &f.run;
    let op = &run.spec.name;
    let mode = v.modes.entry(run.spec.way.name()).or_default();
    mode.0 += 1;
    mode.1 += usize::from(matches!(run.outcomes.first(), Some(Outcome::Complete(_))));
    let mut broke = |what: String| v.violations.push(format!("{op}: {what}"));
    match run.outcomes.len() {
        1 => {}
        0 => broke("never ended".into()),
        n => broke(format!("ended {n} times: {:?}", run.outcomes)),
    }
    if run.after_final > 0 {
        broke(format!("{} events after the final one", run.after_final));
    }
    if !run.is_drained() {
        broke("not drained at the end".into());
    }
    for problem in &run.problems {
        broke(problem.clone());
    }
    if run.max_held > MAX_HELD {
        broke(format!("held {} bytes, over {MAX_HELD}", run.max_held));
    }
    let effects = report.store.effects(op);
    if effects > 1 {
        broke(format!("side effect ran {effects} times"));
    }
    let mut audit = Audit::new(run.spec.way.check_config());
    let mut held = 0;
    for line in &run.http {
        audit.handle(line);
        held = held.max(audit.checker().held_bytes());
    }
    if held > MAX_HELD {
        broke(format!("the checker held {held} bytes, over {MAX_HELD}"));
    }
    for violation in audit.into_violations() {
        broke(format!("checker: {} at entry {}: {}", violation.rule.name(), violation.index, violation.message));
    }
    match run.outcomes.first() {
        Some(Outcome::Complete(result)) => {
            v.complete += 1;
            completed(report, op, run.spec.rounds, result, effects, &mut broke);
        }
        Some(Outcome::Error(error)) => {
            v.failed += 1;
            v.unseen += usize::from(effects > 0);
            match error["data"]["rule"].as_str() {
                Some(rule) => {
                    *v.rules.entry(rule.to_string()).or_default() += 1;
                    if !expected(rule, run.spec.way) {
                        broke(format!("ended with the unexpected rule {rule}: {error}"));
                    }
                }
                None => broke(format!("an error response without its rule: {error}")),
            }
        }
        Some(Outcome::Failed(rule, message)) => {
            v.failed += 1;
            v.unseen += usize::from(effects > 0);
            *v.rules.entry(rule.name().to_string()).or_default() += 1;
            if !expected(rule.name(), run.spec.way) {
                broke(format!("failed with the unexpected rule {}: {message}", rule.name()));
            }
        }
        None => {}
    }
}

/// A result the client saw: committed once, and the one committed.
fn completed(
    report: &Report,
    op: &str,
    rounds: u64,
    result: &serde_json::Value,
    effects: u32,
    broke: &mut impl FnMut(String),
) {
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    if text != expected_text(op, rounds) {
        broke(format!("completed with {text:?}, not {:?}", expected_text(op, rounds)));
    }
    if effects != 1 {
        broke(format!("the client saw a result, but the side effect ran {effects} times"));
    }
    let committed = report.store.committed_for(op);
    let same = committed.iter().any(|c| c["result"]["content"] == result["content"]);
    if report.setup.flavor != crate::instance::Flavor::Unguarded && !same {
        broke(format!("the result seen is not the one committed ({} committed)", committed.len()));
    }
}
