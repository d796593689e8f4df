//! The Tasks extension (`io.modelcontextprotocol/tasks`, `2026-07-28`) on an
//! instance, as `deploy/cluster/instance.py` serves its `tasks` mode: the
//! task record lives in the store, and each round is a replay of the tool.
//!
//! - `tools/call` creates the record and runs the first round at once: the
//!   task is `input_required` with the tool's first questions (and the
//!   round's sealed state, kept in the record).
//! - `tasks/get` shows the record ([`get_response`]).
//! - `tasks/update` adds the answers to the open round's keys (others are
//!   ignored, so an update sent again is harmless); once the round is whole,
//!   the tool runs on the MRTR retry of the original request, and the task
//!   asks again, completes (committed once under the task id, with the side
//!   effect), or fails.
//!
//! The record is the single source of truth, read and written in one step
//! (the cluster holds a lock): no replay guard, as in the cluster. A crash
//! mid-step leaves the record as it was, and the client's `tasks/update`
//! sent again does the step again; a completion already committed is found
//! under the task id.

use crate::instance::{Env, Instance, Ran, Served, PROTOCOL};
use crate::store::Commit;
use mrtr::server::tasks::{created, get_response};
use mrtr::server::{complete, error_response, require_declared, resume};
use mrtr::tasks::TaskStatus;
use mrtr::{Error, Limits, RuleId};
use serde_json::{json, Map, Value};

/// The extension's name, as capabilities declare it.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";
/// How often the client polls, as the record says.
const POLL_MS: u64 = 100;
/// How long a task is kept.
const TASK_TTL_MS: u64 = 300_000;

impl Instance {
    /// Serves one request of the tasks endpoint.
    pub(crate) fn tasks(&mut self, request: &Value, principal: &str, env: &mut Env<'_>) -> mrtr::Result<Served> {
        require_declared(request, &json!({"extensions": {TASKS: {}}}), PROTOCOL)?;
        match request["method"].as_str().unwrap_or_default() {
            "tools/call" => self.create(request, principal, env),
            "tasks/get" => {
                let record = record(request, env)?;
                Ok(Served::Reply(self.reply(&get_response(request, &view(&record), PROTOCOL)?, env)))
            }
            "tasks/update" => self.update(request, principal, env),
            other => Err(Error::with(RuleId::UsageInvalidArgument, format!("no method {other:?} here"))),
        }
    }

    fn create(&mut self, request: &Value, principal: &str, env: &mut Env<'_>) -> mrtr::Result<Served> {
        let id = format!("task-{:016x}", env.rng.u64(..));
        let stamp = iso(env.now);
        let mut record = json!({"taskId": id, "status": "working", "createdAt": stamp, "lastUpdatedAt": stamp,
            "ttlMs": TASK_TTL_MS, "pollIntervalMs": POLL_MS, "request": request, "inputRequests": {},
            "answers": {}, "requestState": null, "result": null, "error": null});
        if let Some(kind) = self.run_round(&mut record, request, principal, env)? {
            return Ok(Served::Crashed(kind));
        }
        env.store.save(&format!("task:{id}"), record.clone());
        Ok(Served::Reply(self.reply(&created(request, &view(&record))?, env)))
    }

    fn update(&mut self, request: &Value, principal: &str, env: &mut Env<'_>) -> mrtr::Result<Served> {
        let mut record = record(request, env)?;
        if record["status"] == "input_required" {
            let asked = record["inputRequests"].clone();
            let given = resume(request, &asked, PROTOCOL, &Limits::DEFAULT)?.responses;
            let answers = record["answers"].as_object_mut().ok_or_else(malformed)?;
            answers.extend(given);
            let whole = asked.as_object().is_some_and(|a| a.keys().all(|k| answers.contains_key(k)));
            if whole {
                let retry = retry_of(&record, env)?;
                move_to(&mut record, TaskStatus::Working, env.now)?;
                if let Some(kind) = self.run_round(&mut record, &retry, principal, env)? {
                    return Ok(Served::Crashed(kind));
                }
            }
            let id = record["taskId"].as_str().unwrap_or_default().to_string();
            env.store.save(&format!("task:{id}"), record);
        }
        Ok(Served::Reply(self.reply(&complete(request, &json!({}), PROTOCOL)?, env)))
    }

    /// One round of the task: the tool replayed on `request` (the original
    /// call, or its MRTR retry). The record moves to `input_required`,
    /// `completed` (committed under the task id) or `failed`; `Some` when the
    /// instance died first.
    fn run_round(
        &mut self,
        record: &mut Value,
        request: &Value,
        principal: &str,
        env: &mut Env<'_>,
    ) -> mrtr::Result<Option<crate::schedule::FaultKind>> {
        let ran = match self.replay(request, principal, false, env) {
            Ok(ran) => ran,
            Err(e) => {
                let (response, _) = error_response(&request["id"], &e);
                move_to(record, TaskStatus::Failed, env.now)?;
                record["error"] = response["error"].clone();
                return Ok(None);
            }
        };
        match ran {
            Ran::Crashed(kind) => return Ok(Some(kind)),
            Ran::Asked(asked) => {
                move_to(record, TaskStatus::InputRequired, env.now)?;
                record["inputRequests"] = asked["result"]["inputRequests"].clone();
                record["requestState"] = asked["result"]["requestState"].clone();
                record["answers"] = json!({});
            }
            Ran::Completed(result) => {
                let response = complete(request, &result, PROTOCOL)?;
                let id = record["taskId"].as_str().unwrap_or_default().to_string();
                let op = request["params"]["arguments"]["op"].as_str().unwrap_or("?");
                let (Commit::Committed(committed) | Commit::Before(committed)) = env.store.commit(&id, response, op);
                if self.crashes(crate::schedule::FaultKind::CrashAfterEffect, request, env) {
                    return Ok(Some(crate::schedule::FaultKind::CrashAfterEffect));
                }
                move_to(record, TaskStatus::Completed, env.now)?;
                record["result"] = committed["result"].clone();
                record["inputRequests"] = json!({});
            }
        }
        Ok(None)
    }
}

/// The task `request` names, from the store (`task-unknown` otherwise).
fn record(request: &Value, env: &Env<'_>) -> mrtr::Result<Value> {
    let id = request["params"]["taskId"].as_str().unwrap_or_default();
    env.store
        .record(&format!("task:{id}"))
        .cloned()
        .ok_or_else(|| Error::with(RuleId::TaskUnknown, format!("no task {id:?}")))
}

/// The MRTR retry of the task's original request, carrying the round's
/// answers and its sealed state, under an id of its own.
fn retry_of(record: &Value, env: &mut Env<'_>) -> mrtr::Result<Value> {
    let original = &record["request"];
    let limits = Limits::DEFAULT;
    let asked = mrtr::server::respond(
        original,
        Some(&record["inputRequests"]),
        Some(&record["requestState"]),
        PROTOCOL,
        &limits,
    )?;
    let id = json!(format!("{}-{:08x}", record["taskId"].as_str().unwrap_or_default(), env.rng.u32(..)));
    mrtr::client::retry(original, &asked, &record["answers"], &id, PROTOCOL, &limits)
}

/// A status change the transition table allows (`task-transition-invalid` otherwise).
fn move_to(record: &mut Value, to: TaskStatus, now: u64) -> mrtr::Result<()> {
    let from = TaskStatus::from_name(record["status"].as_str().unwrap_or_default())?;
    record["status"] = json!(from.transition(to)?.name());
    record["lastUpdatedAt"] = json!(iso(now));
    Ok(())
}

/// The record as the core's task builders read it: the fields each status
/// shows, and the keys answered so far.
fn view(record: &Value) -> Value {
    const SHOWN: [&str; 9] = [
        "taskId",
        "status",
        "createdAt",
        "lastUpdatedAt",
        "ttlMs",
        "pollIntervalMs",
        "result",
        "error",
        "inputRequests",
    ];
    let mut shown: Map<String, Value> = SHOWN.iter().map(|k| (k.to_string(), record[*k].clone())).collect();
    let answered: Vec<Value> = record["answers"].as_object().into_iter().flatten().map(|(k, _)| json!(k)).collect();
    shown.insert("answered".into(), Value::Array(answered));
    Value::Object(shown)
}

fn malformed() -> Error {
    Error::new(RuleId::UsageInvalidArgument, "a task record's answers are an object")
}

/// Simulated ms as an RFC 3339 time (the run starts at 08:00 on 2027-01-15).
fn iso(ms: u64) -> String {
    let s = 8 * 3600 + ms / 1000;
    format!("2027-01-15T{:02}:{:02}:{:02}.{:03}Z", (s / 3600) % 24, (s / 60) % 60, s % 60, ms % 1000)
}
