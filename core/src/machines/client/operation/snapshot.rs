//! An operation carried across a restart of its host: [`Operation::snapshot`]
//! writes what the operation knows as JSON, [`Operation::restore`] goes on
//! from it, in another process or another language.
//!
//! What crosses is the operation's own state: the request of the current
//! round, the ids it derived, the rounds and versions so far, the questions
//! of an open round and the answers given, the task it follows. What does
//! not: the configuration (the host gives it again, with the URL and the
//! header fields, credentials included, that a snapshot should not hold),
//! and what lived on the connections. An exchange open at the snapshot died
//! with the host: the round it carried goes again under a new id (the
//! server may have seen it, as after a cut). A time is written as the wait
//! left (`"inMs"`), since two hosts' clocks share no origin.
//!
//! A stream mode's call that answered a server request cannot be carried:
//! the answer lived on that call's stream, and a new call could not carry it
//! (as a cut stream then, `usage-out-of-turn`); one that answered nothing
//! is begun again, and its server asks again what it asked. Version 1 of the format is `{"v": 1, "mode", "origin",
//! "sent", "sends", "tried", "rounds", "phase", "task"}`.

use super::{state::OperationInput, Asking, Followed, Operation, Phase};
use crate::{
    base::error::{err, Result},
    base::time::Millis,
    machines::http::Mode,
};
use alloc::{boxed::Box, string::String, vec::Vec};
use serde_json::{json, Map, Value};

/// The format's version.
const VERSION: u64 = 1;

impl Operation {
    /// What the operation knows, as JSON, for [`Operation::restore`]. An
    /// operation that is over, or a stream mode's call that answered a server
    /// request, is `usage-out-of-turn`.
    pub fn snapshot(&self, now: Millis) -> Result<Value> {
        let phase = match &self.phase {
            Phase::Over => return Err(err!(UsageOutOfTurn, "the operation is over: nothing to carry")),
            Phase::Sending => json!({"type": "sending"}),
            Phase::Answered => {
                return Err(err!(
                    UsageOutOfTurn,
                    "a call on a stream that asked the client cannot be carried: the answers lived on that stream"
                ))
            }
            Phase::Asking(a) => {
                json!({"type": "asking", "asked": a.asked, "questions": a.questions, "answers": a.answers})
            }
            Phase::Polling { at } => json!({"type": "polling", "inMs": at.since(now)}),
        };
        let task = self.task.as_ref().map(|t| json!({"id": t.id, "meta": t.meta, "pollMs": t.poll_ms}));
        Ok(json!({
            "v": VERSION, "mode": self.config.call.mode.name(), "origin": self.origin, "sent": self.sent,
            "sends": self.sends, "tried": self.tried, "rounds": self.rounds, "phase": phase, "task": task,
        }))
    }

    /// The operation of `snapshot` under `config` at `now`: the round that
    /// was in flight goes again (a new id), an open round asks its unanswered
    /// questions again (one [`super::Event::InputRequired`]), a followed task
    /// is polled after the wait that was left. A snapshot of another format,
    /// or of another transport mode than `config`'s, is `usage-invalid-argument`.
    pub fn restore(config: super::Config, snapshot: &Value, now: Millis) -> Result<Operation> {
        let s = Snapshot::read(snapshot, config.call.mode)?;
        let mut op = Operation::fresh(config);
        (op.tried, op.origin, op.sent, op.sends, op.rounds, op.task) =
            (s.tried, s.origin, s.sent, s.sends, s.rounds, s.task);
        match s.phase {
            Resumed::Sending if op.is_repeatable() => op.send_round_again(now),
            Resumed::Sending => {
                // Its response was lost with the host: it may have run, and nothing on it would tell a server
                // that a copy is one (`repeat`). Not sent again: the host learns it, as after a cut.
                let lost = err!(
                    HttpStatusUnexpected,
                    "the request was in flight when the operation was written out, and may have run: it is \
                     not harmless twice (Config::idempotent), so it is not sent again"
                );
                op.finish(super::Event::Failed(lost));
            }
            Resumed::Polling { in_ms } => op.go(OperationInput::Wait, Phase::Polling { at: now.saturating_add(in_ms) }),
            Resumed::Asking(asking) => {
                let open: Map<String, Value> = asking
                    .questions
                    .iter()
                    .filter(|(k, _)| !asking.answers.contains_key(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                op.go(OperationInput::Ask, Phase::Asking(asking));
                if open.is_empty() {
                    op.send_retry(now)?;
                } else {
                    op.events.push_back(super::Event::InputRequired { round: op.rounds + 1, requests: open });
                }
            }
        }
        Ok(op)
    }
}

/// Where a restored operation goes on.
enum Resumed {
    Sending,
    Asking(Box<Asking>),
    Polling { in_ms: u64 },
}

/// A snapshot, read and checked.
struct Snapshot {
    origin: Value,
    sent: Value,
    sends: u32,
    tried: Vec<String>,
    rounds: u32,
    phase: Resumed,
    task: Option<Followed>,
}

impl Snapshot {
    fn read(v: &Value, mode: Mode) -> Result<Snapshot> {
        let bad = |what: &str| err!(UsageInvalidArgument, "not an operation's snapshot: {what}");
        if v["v"].as_u64() != Some(VERSION) {
            return Err(bad("its format version is not 1"));
        }
        if v["mode"].as_str() != Some(mode.name()) {
            return Err(err!(
                UsageInvalidArgument,
                "the snapshot was taken in another transport mode than {}",
                mode.name()
            ));
        }
        let count = |k: &str| v[k].as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| bad(k));
        let tried = match &v["tried"] {
            Value::Array(a) => {
                a.iter().map(|t| t.as_str().map(String::from).ok_or_else(|| bad("tried"))).collect::<Result<_>>()?
            }
            _ => return Err(bad("tried")),
        };
        let sent = v["sent"].clone();
        if !sent.is_object() || sent.get("method").and_then(Value::as_str).is_none() {
            return Err(bad("sent"));
        }
        let phase = match v["phase"]["type"].as_str() {
            Some("sending") => Resumed::Sending,
            Some("polling") => Resumed::Polling { in_ms: v["phase"]["inMs"].as_u64().ok_or_else(|| bad("phase"))? },
            Some("asking") => {
                let object = |k: &str| match &v["phase"][k] {
                    Value::Object(o) => Ok(o.clone()),
                    _ => Err(bad("phase")),
                };
                let (questions, answers) = (object("questions")?, object("answers")?);
                if questions.is_empty() || answers.keys().any(|k| !questions.contains_key(k)) {
                    return Err(bad("phase"));
                }
                Resumed::Asking(Box::new(Asking { asked: v["phase"]["asked"].clone(), questions, answers }))
            }
            _ => return Err(bad("phase")),
        };
        let task = match &v["task"] {
            Value::Null => None,
            t => Some(Followed {
                id: t["id"].as_str().ok_or_else(|| bad("task"))?.into(),
                meta: t.get("meta").filter(|m| !m.is_null()).cloned(),
                poll_ms: t["pollMs"].as_u64().ok_or_else(|| bad("task"))?,
            }),
        };
        Ok(Snapshot {
            origin: v["origin"].clone(),
            sent,
            sends: count("sends")?,
            tried,
            rounds: count("rounds")?,
            phase,
            task,
        })
    }
}
