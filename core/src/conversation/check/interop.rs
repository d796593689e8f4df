//! Interop warnings: a second severity, below violations. A warning names
//! something a peer does that breaks no rule of the texts but fails its
//! users in the wild: a client that never retries a load-shedding round, one
//! that gives up after a few, one that declared a capability and leaves its
//! asks unanswered, a decline faster than any person answers, a server's
//! `input_required` that a lagging client reads as final. Each names the
//! client (its `clientInfo`) so that a server author sees which of their
//! clients fail their users. A warning never changes a verdict: `mrtr check`
//! exits as the violations say.
//!
//! What differs between the warnings lives in one table, [`WARNINGS`], that
//! the checker, the docs and the tests read.

use crate::base::time::Millis;
use crate::request::message::{state_only, FINAL_RESULT_FIELDS as FINAL_FIELDS};
use alloc::string::String;
use serde_json::Value;

/// What a warning is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Interop {
    /// A state-only `input_required` (load shedding) the client never retried.
    StateOnlyNotRetried,
    /// A client that retried state-only rounds, then stopped.
    StateOnlyGaveUp,
    /// An ask the client declared the capability for and never answered within the window.
    AskUnanswered,
    /// An elicitation declined or cancelled faster than a person could answer.
    AnswerTooFast,
    /// An `input_required` result that also carries a final result's fields.
    InputRequiredFinalFields,
}

/// One row of [`WARNINGS`].
#[derive(Clone, Copy, Debug)]
pub struct InteropInfo {
    /// The warning.
    pub kind: Interop,
    /// Its stable name (kebab-case), as outputs print it.
    pub name: &'static str,
    /// What it means and who is known to do it.
    pub text: &'static str,
}

/// Every interop warning, in the order outputs list them.
pub const WARNINGS: &[InteropInfo] = &[
    InteropInfo {
        kind: Interop::StateOnlyNotRetried,
        name: "state-only-not-retried",
        text: "A client never retried an `input_required` that carried `requestState` and no question (the load-shedding round, 001 \"Use Case 2\"): its caller got no result, or an error (the Go SDK 1.8 client hands the round to its caller; claude.ai shows an error).",
    },
    InteropInfo {
        kind: Interop::StateOnlyGaveUp,
        name: "state-only-gave-up",
        text: "A client retried state-only rounds in a row, then stopped retrying (mcp-go 1.2.1 gives up after three): a server that sheds load for longer loses its calls.",
    },
    InteropInfo {
        kind: Interop::AskUnanswered,
        name: "ask-unanswered",
        text: "A client declared the capability an ask needs and did not answer it within the window (`CheckConfig::ask_window_ms`), or never: the call hangs for its user (clients that declare elicitation and drop the asks).",
    },
    InteropInfo {
        kind: Interop::AnswerTooFast,
        name: "answer-too-fast",
        text: "An elicitation declined or cancelled sooner after its ask than a person reads it (`CheckConfig::human_ms`): the client answers without showing the ask.",
    },
    InteropInfo {
        kind: Interop::InputRequiredFinalFields,
        name: "input-required-final-fields",
        text: "An `input_required` result that also carries a final result's fields (`content`, `structuredContent`, `isError`, `messages`, `contents`; mcp-go puts `content: []` in each): a client that reads them as final (the Python SDK 2.3 client) never retries.",
    },
];

impl Interop {
    /// Its row of [`WARNINGS`].
    pub fn info(self) -> &'static InteropInfo {
        WARNINGS.iter().find(|w| w.kind == self).unwrap_or(&WARNINGS[0])
    }

    /// Its stable name.
    pub fn name(self) -> &'static str {
        self.info().name
    }
}

impl core::fmt::Display for Interop {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A warning about the entry at `index`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InteropWarning {
    /// What it is about.
    pub kind: Interop,
    /// The entry it is about: the client's request whose answer is missing or
    /// too fast, or the server's result.
    pub index: usize,
    /// The client's `clientInfo` (`name version`), when it sent one: its
    /// request's `_meta`, else its `initialize`.
    pub client: Option<String>,
    /// What happened, in one sentence.
    pub message: String,
}

/// How long a client may leave an ask unanswered before `ask-unanswered`
/// (5 minutes: a person may take a while; a dropped ask never comes).
pub const ASK_WINDOW_MS: u64 = 5 * 60 * 1000;

/// The fastest a person declines an elicitation they were shown (300 ms:
/// reading a question and pressing a button takes longer).
pub const HUMAN_MS: u64 = 300;

/// `name version` of a `clientInfo` object.
pub(crate) fn client_name(info: &Value) -> Option<String> {
    let name = info.get("name")?.as_str()?;
    Some(match info.get("version").and_then(Value::as_str) {
        Some(version) => alloc::format!("{name} {version}"),
        None => name.into(),
    })
}

/// Whether `at`, after `since`, is past `window_ms`.
pub(crate) fn past(since: Option<Millis>, at: Option<Millis>, window_ms: u64) -> bool {
    matches!((since, at), (Some(since), Some(at)) if at.since(since) > window_ms)
}

/// What the warnings follow of an open round.
#[derive(Clone, Debug, Default)]
pub(super) struct Watch {
    /// When its `input_required` came (the host's clock, when it gives one).
    pub(super) asked_at: Option<Millis>,
    /// How many state-only rounds in a row it ends (0: it asks something).
    pub(super) streak: u32,
    /// The client of its request.
    pub(super) client: Option<String>,
    /// Whether its warning is out already.
    pub(super) warned: bool,
}

/// How often the open rounds are swept for `ask-unanswered` and the
/// state-only warnings, at most (a sweep reads every open round).
const SWEEP_MS: u64 = 1000;

impl super::Checker {
    /// The host's clock at the entries that follow (a recording's `at`, a
    /// proxy's clock): what the windows of `ask-unanswered` and
    /// `answer-too-fast` are measured on. Without it those wait for
    /// [`finish`](Self::finish), and no answer is too fast.
    pub fn set_now(&mut self, now: Millis) {
        self.now = Some(now);
        if self.last_sweep.is_none_or(|last| now.since(last) >= SWEEP_MS) {
            self.last_sweep = Some(now);
            self.sweep(false);
        }
    }

    /// The conversation ended: every round still open was never answered.
    pub fn finish(&mut self) {
        self.sweep(true);
    }

    /// The interop warnings so far.
    pub fn warnings(&self) -> &[InteropWarning] {
        &self.warnings
    }

    /// Takes the interop warnings found so far.
    pub fn take_warnings(&mut self) -> alloc::vec::Vec<InteropWarning> {
        core::mem::take(&mut self.warnings)
    }

    /// The `clientInfo` of `request`: its `_meta`'s, else the conversation's `initialize`.
    pub(super) fn client_of(&self, request: &Value) -> Option<String> {
        let meta = &request["params"]["_meta"]["io.modelcontextprotocol/clientInfo"];
        client_name(meta).or_else(|| self.client_info.clone())
    }

    /// Remembers the `clientInfo` an `initialize` request names.
    pub(super) fn note_initialize(&mut self, method: &str, request: &Value) {
        if method == "initialize" {
            self.client_info = client_name(&request["params"]["clientInfo"]);
        }
    }

    /// What the warnings follow of a round the server opened with `result`
    /// (an `input_required` answering `request`, which retried `retried`).
    pub(super) fn watch(&mut self, result: &Value, request: &Value, retried: Option<&Watch>) -> Watch {
        let fields: alloc::vec::Vec<&str> =
            FINAL_FIELDS.iter().copied().filter(|f| result["result"].get(*f).is_some()).collect();
        let client = self.client_of(request);
        if !fields.is_empty() {
            let message = alloc::format!(
                "an input_required also carries {}: a client that reads it as final never retries",
                fields.join(", ")
            );
            self.warn(Interop::InputRequiredFinalFields, self.index, client.clone(), message);
        }
        let streak = if state_only(&result["result"]).is_some() { retried.map_or(0, |w| w.streak) + 1 } else { 0 };
        Watch { asked_at: self.now, streak, client, warned: false }
    }

    /// A retry of a round: an elicitation declined or cancelled faster than a person answers.
    pub(super) fn watch_answers(&mut self, watch: &Watch, asked: &Value, retry: &Value) {
        let (Some(at), Some(now)) = (watch.asked_at, self.now) else { return };
        let elapsed = now.since(at);
        if elapsed >= self.config.human_ms {
            return;
        }
        let Some(answers) = retry["params"]["inputResponses"].as_object() else { return };
        for (key, answer) in answers {
            let elicits = asked["result"]["inputRequests"][key.as_str()]["method"] == "elicitation/create";
            let refused = answer["action"].as_str().filter(|a| matches!(*a, "decline" | "cancel"));
            if let (true, Some(action)) = (elicits, refused) {
                let message = alloc::format!(
                    "inputResponses[{key:?}] {action}s the elicitation {elapsed} ms after it was asked: \
                     faster than a person answers (the client did not show it)"
                );
                self.warn(Interop::AnswerTooFast, self.index, watch.client.clone(), message);
            }
        }
    }

    /// The open rounds past their window (`ended`: all of them, never answered).
    fn sweep(&mut self, ended: bool) {
        let (now, window) = (self.now, self.config.ask_window_ms);
        let when =
            if ended { "before the conversation ended".into() } else { alloc::format!("within {} s", window / 1000) };
        let mut due = alloc::vec::Vec::new();
        for a in self.awaiting.iter_mut().filter(|a| !a.watch.warned && (ended || past(a.watch.asked_at, now, window)))
        {
            a.watch.warned = true;
            let what = match &a.target {
                Some(t) => alloc::format!("{} {t:?}", a.method),
                None => a.method.clone(),
            };
            let (kind, message) = match a.watch.streak {
                0 => (Interop::AskUnanswered, alloc::format!("the client did not answer the asks of {what} {when}")),
                1 => (
                    Interop::StateOnlyNotRetried,
                    alloc::format!("the client did not retry the state-only round of {what} {when}"),
                ),
                n => (
                    Interop::StateOnlyGaveUp,
                    alloc::format!(
                        "the client retried {} state-only rounds of {what} in a row, then not this one {when}",
                        n - 1
                    ),
                ),
            };
            due.push((kind, a.answered, a.watch.client.clone(), message));
        }
        for (kind, index, client, message) in due {
            self.warn(kind, index, client, message);
        }
    }

    fn warn(&mut self, kind: Interop, index: usize, client: Option<String>, message: String) {
        if self.warnings.len() < super::TRACKED_MAX {
            self.warnings.push(InteropWarning { kind, index, client, message });
        }
    }
}
