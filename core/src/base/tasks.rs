//! Task statuses and their transitions, as one table.
//!
//! Both Tasks workflows (Tasks in core for `sep-2322`, and the
//! `io.modelcontextprotocol/tasks` extension for `2026-07-28`) share the five
//! statuses and the rule that nothing leaves a terminal status. The checker
//! and [`Task`] read [`TRANSITIONS`]; so do the docs and tests.

use crate::base::error::{Error, Result};
use crate::base::rules::RuleId;

/// A task's status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    /// The server is working on it.
    Working,
    /// The server waits for input requests to be answered.
    InputRequired,
    /// Done; the result is available.
    Completed,
    /// Done; it failed.
    Failed,
    /// Done; it was cancelled.
    Cancelled,
}

use TaskStatus::*;

/// From each status, the statuses a task may show next (itself included: a
/// status seen twice is no transition).
pub const TRANSITIONS: &[(TaskStatus, &[TaskStatus])] = &[
    (Working, &[Working, InputRequired, Completed, Failed, Cancelled]),
    (InputRequired, &[InputRequired, Working, Completed, Failed, Cancelled]),
    (Completed, &[Completed]),
    (Failed, &[Failed]),
    (Cancelled, &[Cancelled]),
];

impl TaskStatus {
    /// Every status.
    pub const ALL: [TaskStatus; 5] = [Working, InputRequired, Completed, Failed, Cancelled];

    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Working => "working",
            InputRequired => "input_required",
            Completed => "completed",
            Failed => "failed",
            Cancelled => "cancelled",
        }
    }

    /// The status with this wire name (case matters: `"Working"` is not one).
    pub fn from_name(name: &str) -> Result<TaskStatus> {
        TaskStatus::ALL.into_iter().find(|s| s.name() == name).ok_or(Error::new(
            RuleId::TaskStatusInvalid,
            "task status must be working, input_required, completed, failed or cancelled",
        ))
    }

    /// Whether nothing may follow this status.
    pub fn is_terminal(self) -> bool {
        TRANSITIONS.iter().any(|(from, to)| *from == self && to.len() == 1)
    }

    /// Whether a task may go from `self` to `next`.
    pub fn may_become(self, next: TaskStatus) -> bool {
        TRANSITIONS.iter().any(|(from, to)| *from == self && to.contains(&next))
    }

    /// `Ok` if a task may go from `self` to `next`, else `task-transition-invalid`.
    pub fn transition(self, next: TaskStatus) -> Result<TaskStatus> {
        if self.may_become(next) {
            Ok(next)
        } else {
            Err(Error::new(RuleId::TaskTransitionInvalid, "a task leaves no terminal status"))
        }
    }
}

#[cfg(feature = "alloc")]
pub use tracked::Task;

#[cfg(feature = "alloc")]
mod tracked {
    use super::TaskStatus;
    use crate::base::error::{err, Result};
    use alloc::{collections::BTreeSet, string::String};

    /// What a server (or the checker) knows of one task: its status and the
    /// input request keys of its lifetime, so that a key is never reused.
    #[derive(Clone, Debug)]
    pub struct Task {
        status: TaskStatus,
        answered: BTreeSet<String>,
        asking: BTreeSet<String>,
    }

    impl Task {
        /// A task created with `status`.
        pub fn new(status: TaskStatus) -> Task {
            Task { status, answered: BTreeSet::new(), asking: BTreeSet::new() }
        }

        /// The current status.
        pub fn status(&self) -> TaskStatus {
            self.status
        }

        /// Moves to `next`, or fails with `task-transition-invalid`.
        pub fn set_status(&mut self, next: TaskStatus) -> Result<()> {
            self.status = self.status.transition(next)?;
            Ok(())
        }

        /// Records the input request keys shown now; fails with
        /// `task-input-key-reused` for a key answered earlier in this task.
        pub fn ask<'k>(&mut self, keys: impl IntoIterator<Item = &'k str>) -> Result<()> {
            for key in keys {
                if self.answered.contains(key) {
                    return Err(err!(
                        TaskInputKeyReused,
                        "input request key {key:?} was answered earlier in this task"
                    ));
                }
                self.asking.insert(key.into());
            }
            Ok(())
        }

        /// Records answered keys (from `tasks/update` / `tasks/input_response`).
        pub fn answer<'k>(&mut self, keys: impl IntoIterator<Item = &'k str>) {
            for key in keys {
                self.asking.remove(key);
                self.answered.insert(key.into());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_statuses_are_exactly_the_three() {
        let terminal: [bool; 5] = TaskStatus::ALL.map(TaskStatus::is_terminal);
        assert_eq!(terminal, [false, false, true, true, true]);
        assert!(Working.may_become(InputRequired));
        assert!(InputRequired.may_become(Working));
        assert_eq!(Completed.transition(Working).unwrap_err().rule(), RuleId::TaskTransitionInvalid);
        assert!(Completed.transition(Completed).is_ok());
    }

    #[test]
    fn names_are_lowercase_and_exact() {
        for s in TaskStatus::ALL {
            assert_eq!(TaskStatus::from_name(s.name()), Ok(s));
        }
        assert_eq!(TaskStatus::from_name("Working").unwrap_err().rule(), RuleId::TaskStatusInvalid);
    }

    #[cfg(feature = "alloc")]
    #[test]
    fn a_key_answered_is_never_asked_again() {
        let mut t = Task::new(Working);
        t.ask(["a"]).unwrap();
        t.ask(["a"]).unwrap(); // polled twice: same round
        t.answer(["a"]);
        assert_eq!(t.ask(["a"]).unwrap_err().rule(), RuleId::TaskInputKeyReused);
        assert!(t.ask(["b"]).is_ok());
    }
}
