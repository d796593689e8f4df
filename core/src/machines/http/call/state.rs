//! What a [`Call`](super::Call) is doing, as data: its states, the inputs
//! that move it, and the one table of moves ([`CALL_TRANSITIONS`]) that the
//! machine, `docs/machines.md` and the tests all read.
//!
//! Why a table: whether the call buffers answers, waits to reconnect, waits
//! for the host's answers or is over used to be six loose fields whose
//! combinations nobody listed. Here every change of state goes through
//! [`CallState::next`]: a move the table does not list is refused, so a new
//! path in the code that reaches an unplanned state fails a test instead of
//! leaving the call in a combination no one wrote down.
//!
//! The inputs are what the host's raw inputs mean to the call, not the raw
//! inputs themselves (bytes of a body may be nothing, a message, or the
//! response): `handle_body` and `handle_end` yield [`CallInput::BufferInput`],
//! [`CallInput::InputRequired`], [`CallInput::Response`], [`CallInput::Cut`],
//! [`CallInput::NoContent`] and [`CallInput::Fail`]; `handle_timeout` yields
//! [`CallInput::Cut`] (a stall) and [`CallInput::Reconnect`]; `answer` yields
//! [`CallInput::Flush`].

use super::super::{Answering, Mode};

/// What a call is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CallState {
    /// A response may carry the call's response; each answer to a server
    /// request is POSTed on its own.
    Reading,
    /// As [`Reading`], the answers kept for one POST
    /// (SEP-1858 after `buffer_input`; SEP-1335 always).
    Buffering,
    /// A stream ended (or stalled) before the response with something to
    /// resume from: a GET goes at the reconnect time.
    AwaitingReconnect,
    /// As [`AwaitingReconnect`], the answers kept.
    BufferingAwaitingReconnect,
    /// (SEP-1858) `input_required` came: nothing is read; once every server
    /// request is answered the kept answers go as one POST with `Last-Event-ID`.
    AwaitingAnswers,
    /// (SEP-1335) A resume was answered `204 No Content`: once every server
    /// request is answered the kept answers go as one POST to the stream URL.
    Ended,
    /// The response was reported.
    Done,
    /// The failure was reported.
    Failed,
}

/// What moves a call from one [`CallState`] to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CallInput {
    /// (SEP-1858) A `buffer_input` event: answers are kept from now on.
    BufferInput,
    /// (SEP-1858) An `input_required` event: the server stops, and waits for the answers.
    InputRequired,
    /// (SEP-1335) A resume answered `204 No Content`.
    NoContent,
    /// A stream with something to resume from ended, or stalled, before the response.
    Cut,
    /// The reconnect time came: the GET that resumes goes.
    Reconnect,
    /// Every server request is answered: the kept answers go as one POST.
    Flush,
    /// The call's response came.
    Response,
    /// The call cannot go on.
    Fail,
}

use CallInput::*;
use CallState::*;

/// Every move a call makes: (from, input, to). A pair not listed is out of
/// turn. Peer's events out of turn (a second `buffer_input`, an
/// `input_required` while the call already waits for answers, a stream
/// that ends after `input_required`) change nothing: the call goes on as it
/// was, and does not reconnect after `input_required`
/// (`sse-reconnected-after-input-required`).
pub(crate) const CALL_TRANSITIONS: &[(CallState, CallInput, CallState)] = &[
    (Reading, BufferInput, Buffering),
    (Reading, InputRequired, AwaitingAnswers),
    (Reading, Cut, AwaitingReconnect),
    (Reading, Response, Done),
    (Reading, Fail, Failed),
    (Buffering, InputRequired, AwaitingAnswers),
    (Buffering, NoContent, Ended),
    (Buffering, Cut, BufferingAwaitingReconnect),
    (Buffering, Response, Done),
    (Buffering, Fail, Failed),
    (AwaitingReconnect, Reconnect, Reading),
    (AwaitingReconnect, Cut, AwaitingReconnect),
    (AwaitingReconnect, Response, Done),
    (AwaitingReconnect, Fail, Failed),
    (BufferingAwaitingReconnect, Reconnect, Buffering),
    (BufferingAwaitingReconnect, Cut, BufferingAwaitingReconnect),
    (BufferingAwaitingReconnect, Response, Done),
    (BufferingAwaitingReconnect, Fail, Failed),
    (AwaitingAnswers, Flush, Reading),
    (AwaitingAnswers, Response, Done),
    (AwaitingAnswers, Fail, Failed),
    (Ended, Flush, Buffering),
    (Ended, Fail, Failed),
];

impl CallState {
    /// Every state.
    #[cfg(test)]
    pub(crate) const ALL: [CallState; 8] =
        [Reading, Buffering, AwaitingReconnect, BufferingAwaitingReconnect, AwaitingAnswers, Ended, Done, Failed];

    /// Where a call in `mode` starts: SEP-1335 keeps every answer from the start.
    pub(crate) fn start(mode: Mode) -> CallState {
        match mode.rules().answering {
            Answering::UntilStreamEnds => Buffering,
            _ => Reading,
        }
    }

    /// The state `input` moves `self` to, if the table lists the move.
    pub(crate) fn next(self, input: CallInput) -> Option<CallState> {
        CALL_TRANSITIONS.iter().find(|(from, on, _)| *from == self && *on == input).map(|(_, _, to)| *to)
    }

    /// Whether the response or the failure was reported.
    pub(crate) fn is_over(self) -> bool {
        matches!(self, Done | Failed)
    }

    /// Whether answers are kept for one POST rather than POSTed each on its own.
    pub(crate) fn keeps_answers(self) -> bool {
        matches!(self, Buffering | BufferingAwaitingReconnect | AwaitingAnswers | Ended)
    }

    /// Whether a GET waits for the reconnect time.
    pub(crate) fn awaits_reconnect(self) -> bool {
        matches!(self, AwaitingReconnect | BufferingAwaitingReconnect)
    }
}

#[cfg(test)]
impl CallInput {
    /// Every input.
    pub(crate) const ALL: [CallInput; 8] =
        [BufferInput, InputRequired, NoContent, Cut, Reconnect, Flush, Response, Fail];
}
