//! The one tool every instance serves, `plan` (the cluster's, `deploy/cluster/tools.md`):
//! await-style, replayed from the top on every request, asking one to three
//! rounds: a name (elicitation); a sampling request and the client's roots
//! together; a confirmation. Each question depends only on earlier answers,
//! so any instance replays it alike. Its side effect is the caller's, after
//! the last ask. With `rounds: 0` it asks nothing: it completes, with its
//! effect, on the first request (a one-round `pay`), which carries nothing
//! a server could tell a copy of it by.

use mrtr::round::replay::{elicit, roots, sample, Asked, Replay};
use serde_json::{json, Value};

/// Where one replay of the tool got to.
#[derive(Debug, PartialEq)]
pub enum Step {
    /// A question has no answer yet: the round asks what is missing.
    Ask,
    /// Every question was answered: the tool's result (the side effect not run yet).
    Done(Value),
}

fn form(field: &str, kind: &str) -> Value {
    json!({"type": "object", "properties": {field: {"type": kind}}, "required": [field]})
}

/// Replays `plan` with `args` (`{"op", "rounds"}`) over what `replay` holds.
pub fn plan(replay: &mut Replay, args: &Value) -> mrtr::Result<Step> {
    let rounds = args["rounds"].as_u64().unwrap_or(1);
    let op = args["op"].as_str().unwrap_or("?");
    if rounds == 0 {
        return Ok(Step::Done(json!({"content": [{"type": "text", "text": expected_text(op, 0)}], "isError": false})));
    }
    let Asked::Answered(who) = replay.ask(&elicit("Who is travelling?", &form("name", "string")))? else {
        return Ok(Step::Ask);
    };
    let name = who["content"]["name"].as_str().unwrap_or_default().to_string();
    let (mut said, mut held) = (String::new(), 0);
    if rounds >= 2 {
        let prompt = json!({"role": "user", "content": {"type": "text", "text": format!("Plan a trip for {name}")}});
        let summary = replay.ask(&sample(&json!({"messages": [prompt], "maxTokens": 50})))?;
        let listed = replay.ask(&roots())?;
        let (Asked::Answered(summary), Asked::Answered(listed)) = (summary, listed) else {
            return Ok(Step::Ask);
        };
        said = summary["content"]["text"].as_str().unwrap_or_default().to_string();
        held = listed["roots"].as_array().map_or(0, Vec::len);
    }
    if rounds >= 3 {
        let confirm = elicit(&format!("Confirm the plan for {name}?"), &form("ok", "boolean"));
        if replay.ask(&confirm)? == Asked::Missing {
            return Ok(Step::Ask);
        }
    }
    let text = format!("planned {op} for {name}: {said} ({held} roots)");
    Ok(Step::Done(json!({"content": [{"type": "text", "text": text}], "isError": false})))
}

/// The text the tool completes with for `op` when the user answers as
/// [`crate::client::answer`] does.
pub fn expected_text(op: &str, rounds: u64) -> String {
    if rounds == 0 {
        return format!("planned {op} at once");
    }
    let (said, held) = if rounds >= 2 { ("sunny", 1) } else { ("", 0) };
    format!("planned {op} for Ada: {said} ({held} roots)")
}

/// The operation a result of `plan` names.
pub fn op_of_result(result: &Value) -> Option<&str> {
    let text = result["content"][0]["text"].as_str()?;
    text.strip_prefix("planned ")?.split(' ').next()
}
