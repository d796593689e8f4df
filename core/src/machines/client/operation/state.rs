//! What an [`Operation`](super::Operation) waits for, as data: its states
//! (its `Phase` without the data each carries), the inputs that move it, and
//! the one table of moves ([`OPERATION_TRANSITIONS`]) that the machine,
//! `docs/machines.md` and the tests read.
//!
//! Why a table: every change of phase goes through it
//! (`Operation::step`), so a path that moves the operation where no one
//! planned fails a test, and the docs cannot drift from the code. What
//! stays outside it is data, not state: counters bounded by the
//! configuration (rounds, re-sends, hedges, requests that reached no
//! server), timers (`hedge_at`, what waits to be sent again), and the open
//! exchanges; none of them decides what the operation waits for.

/// What an operation waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OperationState {
    /// The current round's response.
    Sending,
    /// (Stream modes) The call's response, after the host answered a server
    /// request on it: the call is not begun again (the server may have moved
    /// on, and a new call could not carry the answer), nor carried across a
    /// restart.
    Answered,
    /// (MRTR, Tasks) The host's answers to the questions of a round.
    Asking,
    /// (Tasks) The time of the next `tasks/get`.
    Polling,
    /// Nothing: the final event was queued.
    Over,
}

/// What moves an operation from one [`OperationState`] to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OperationInput {
    /// A request goes as the round: the first, a retry with the answers, the
    /// round again (cut, refused version, hedged copy, restored), `tasks/get`.
    Send,
    /// (Stream modes) The host answered a server request on the call.
    Answer,
    /// (MRTR, Tasks) The server asked questions (an `input_required` result
    /// or task), or a restored round still has some open.
    Ask,
    /// (Tasks) The task is not over: wait for the next `tasks/get`.
    Wait,
    /// The final response, or the failure: the last event.
    Finish,
}

use OperationInput::*;
use OperationState::*;

/// Every move an operation makes: (from, input, to). A pair not listed is out of turn.
pub(crate) const OPERATION_TRANSITIONS: &[(OperationState, OperationInput, OperationState)] = &[
    (Sending, Send, Sending),
    (Sending, Answer, Answered),
    (Sending, Ask, Asking),
    (Sending, Wait, Polling),
    (Sending, Finish, Over),
    (Answered, Answer, Answered),
    (Answered, Finish, Over),
    (Asking, Send, Sending),
    (Polling, Send, Sending),
    (Polling, Finish, Over),
];

impl OperationState {
    /// Every state.
    #[cfg(test)]
    pub(crate) const ALL: [OperationState; 5] = [Sending, Answered, Asking, Polling, Over];

    /// The state `input` moves `self` to, if the table lists the move.
    pub(crate) fn next(self, input: OperationInput) -> Option<OperationState> {
        OPERATION_TRANSITIONS.iter().find(|(from, on, _)| *from == self && *on == input).map(|(_, _, to)| *to)
    }
}

#[cfg(test)]
impl OperationInput {
    /// Every input.
    pub(crate) const ALL: [OperationInput; 5] = [Send, Answer, Ask, Wait, Finish];
}
