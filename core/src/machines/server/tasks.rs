//! The Tasks extension's wire form of a task (`io.modelcontextprotocol/tasks`,
//! `2026-07-28`): what `tools/call` answers when it starts one, and what
//! `tasks/get` shows of it.
//!
//! A server keeps its task records however it likes (memory, Redis, a
//! database); which fields the wire carries for which status is protocol, so
//! it is decided here, once. A record is a JSON object:
//! `taskId`, `status`, `createdAt`, `lastUpdatedAt`, `ttlMs` (an integer, or
//! `null`: kept until deleted), and where they apply `statusMessage`,
//! `pollIntervalMs`, `result` (a completed task's), `error` (a failed task's),
//! `inputRequests` (what an `input_required` task asked) and `answered` (the
//! keys of those already answered by `tasks/update`).

use crate::{
    base::error::{err, Result},
    base::protocol::Protocol,
    base::tasks::TaskStatus,
};
use alloc::string::String;
use serde_json::{json, Map, Value};

/// The fields every task carries, in every status.
const BASE: [&str; 6] = ["taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "pollIntervalMs"];

/// The response to `request` that starts the task of `record`: its base
/// fields and `"resultType": "task"` (the extension's `CreateTaskResult`).
pub fn created(request: &Value, record: &Value) -> Result<Value> {
    let (mut task, _) = base(record)?;
    task.insert("resultType".into(), "task".into());
    Ok(json!({"jsonrpc": "2.0", "id": request.get("id").cloned().unwrap_or(Value::Null), "result": task}))
}

/// The task of `record` as `tasks/get` shows it (`DetailedTask`): a
/// completed task with its `result`, a failed one with its `error`, an
/// `input_required` one with the input requests not yet answered (none left
/// is `task-input-requests-missing`: the task should be working again).
pub fn detailed(record: &Value) -> Result<Value> {
    let (mut task, status) = base(record)?;
    let field = |name: &str| {
        record
            .get(name)
            .cloned()
            .ok_or_else(|| err!(UsageInvalidArgument, "a {} task record has {name}", status.name()))
    };
    match status {
        TaskStatus::Completed => drop(task.insert("result".into(), object(field("result")?, "result")?)),
        TaskStatus::Failed => drop(task.insert("error".into(), object(field("error")?, "error")?)),
        TaskStatus::InputRequired => {
            drop(task.insert("inputRequests".into(), unanswered(record, field("inputRequests")?)?))
        }
        TaskStatus::Working | TaskStatus::Cancelled => {}
    }
    Ok(Value::Object(task))
}

/// The complete response to `tasks/get` `request` for `record`.
pub fn get_response(request: &Value, record: &Value, protocol: Protocol) -> Result<Value> {
    super::complete(request, &detailed(record)?, protocol)
}

/// The base fields of `record`, checked, and its status.
fn base(record: &Value) -> Result<(Map<String, Value>, TaskStatus)> {
    let Some(fields) = record.as_object() else {
        return Err(err!(UsageInvalidArgument, "a task record is an object"));
    };
    let text = |name: &str| match fields.get(name) {
        Some(Value::String(_)) => Ok(()),
        _ => Err(err!(UsageInvalidArgument, "a task record's {name} is a string")),
    };
    ["taskId", "status", "createdAt", "lastUpdatedAt"].into_iter().try_for_each(text)?;
    let status = TaskStatus::from_name(fields["status"].as_str().unwrap_or_default())?;
    if !matches!(fields.get("ttlMs"), None | Some(Value::Null)) && fields["ttlMs"].as_u64().is_none() {
        return Err(err!(UsageInvalidArgument, "a task record's ttlMs is a whole number of milliseconds, or null"));
    }
    let mut task: Map<String, Value> =
        BASE.iter().filter_map(|k| Some((String::from(*k), fields.get(*k)?.clone()))).collect();
    task.insert("ttlMs".into(), fields.get("ttlMs").cloned().unwrap_or(Value::Null));
    Ok((task, status))
}

fn object(value: Value, name: &str) -> Result<Value> {
    match value {
        Value::Object(_) => Ok(value),
        _ => Err(err!(UsageInvalidArgument, "a task record's {name} is an object")),
    }
}

/// The input requests of `asked` whose keys are not in the record's `answered`.
fn unanswered(record: &Value, asked: Value) -> Result<Value> {
    let Value::Object(asked) = asked else {
        return Err(err!(UsageInvalidArgument, "a task record's inputRequests is an object"));
    };
    let answered = record.get("answered").and_then(Value::as_array);
    let is_answered = |key: &str| answered.is_some_and(|a| a.iter().any(|k| k.as_str() == Some(key)));
    let open: Map<String, Value> = asked.into_iter().filter(|(k, _)| !is_answered(k)).collect();
    if open.is_empty() {
        return Err(err!(
            TaskInputRequestsMissing,
            "an input_required task shows at least one unanswered input request"
        ));
    }
    Ok(Value::Object(open))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rules::RuleId;

    fn record(status: &str) -> Value {
        json!({"taskId": "t1", "status": status, "createdAt": "2026-11-25T09:00:00Z",
               "lastUpdatedAt": "2026-11-25T09:00:01Z", "ttlMs": 60000, "pollIntervalMs": 200,
               "result": {"content": []}, "error": {"code": -32603, "message": "boom"},
               "inputRequests": {"a": {"method": "roots/list"}, "b": {"method": "roots/list"}}, "answered": ["a"],
               "owner": "kept out of the wire"})
    }

    #[test]
    fn each_status_shows_only_its_own_fields() {
        let working = detailed(&record("working")).unwrap();
        assert_eq!(working["ttlMs"], 60000);
        assert!(
            working.get("result").is_none() && working.get("inputRequests").is_none() && working.get("owner").is_none()
        );
        assert_eq!(detailed(&record("completed")).unwrap()["result"], json!({"content": []}));
        assert_eq!(detailed(&record("failed")).unwrap()["error"]["code"], -32603);
        assert!(detailed(&record("cancelled")).unwrap().get("error").is_none());
    }

    #[test]
    fn input_required_shows_only_unanswered_requests() {
        let task = detailed(&record("input_required")).unwrap();
        assert_eq!(task["inputRequests"], json!({"b": {"method": "roots/list"}}));
        let mut all = record("input_required");
        all["answered"] = json!(["a", "b"]);
        assert_eq!(detailed(&all).unwrap_err().rule(), RuleId::TaskInputRequestsMissing);
    }

    #[test]
    fn created_is_the_base_task_marked_task() {
        let request = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "x"}});
        let mut r = record("working");
        r.as_object_mut().unwrap().remove("ttlMs");
        let response = created(&request, &r).unwrap();
        assert_eq!(response["id"], 4);
        assert_eq!(response["result"]["resultType"], "task");
        assert_eq!(response["result"]["ttlMs"], Value::Null);
        assert!(response["result"].get("inputRequests").is_none());
    }

    #[test]
    fn a_record_missing_what_its_status_needs_is_a_misuse() {
        let mut r = record("completed");
        r.as_object_mut().unwrap().remove("result");
        assert_eq!(detailed(&r).unwrap_err().rule(), RuleId::UsageInvalidArgument);
        assert_eq!(detailed(&json!({"taskId": 1})).unwrap_err().rule(), RuleId::UsageInvalidArgument);
        assert_eq!(detailed(&record("done")).unwrap_err().rule(), RuleId::TaskStatusInvalid);
        let mut r = record("working");
        r["ttlMs"] = json!(-1);
        assert_eq!(detailed(&r).unwrap_err().rule(), RuleId::UsageInvalidArgument);
    }

    #[test]
    fn get_response_is_complete() {
        let request = json!({"jsonrpc": "2.0", "id": 9, "method": "tasks/get", "params": {"taskId": "t1"}});
        let response = get_response(&request, &record("working"), Protocol::V2026_07_28).unwrap();
        assert_eq!(response["result"]["resultType"], "complete");
        assert_eq!(response["result"]["status"], "working");
    }
}
