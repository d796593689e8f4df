//! One run of an await-style tool on one request ([`ToolRun`]): the round
//! sequence and the refusal policy every language's runner follows, so that
//! a binding keeps only its glue (its coroutine, or its callback) and every
//! language sends the same bytes for the same run.
//!
//! A run is sans-IO: the host plays the tool once, forwarding each of the
//! tool's asks ([`ToolRun::ask`]); an ask is answered at once from what the
//! conversation holds, or gives none, and the tool must stop there (a
//! coroutine host suspends it; a callback host returns from it: the next
//! round runs it from the top). Then the host gives the run's one finishing
//! input and sends its one output:
//!
//! - the tool returned (or stopped at an unanswered ask):
//!   [`ToolRun::respond`], the response to send: `input_required` asking
//!   every question still unanswered, sealing the data the tool set
//!   ([`ToolRun::set_data`]) or else the last round's data as it came; or the
//!   tool's result as the `complete` response; or the refusal;
//! - the tool raised its own error: [`ToolRun::refused`], the refusal to
//!   raise in its place, or nothing (the host propagates the tool's error).
//!
//! **The refusal policy, decided here once.** A refusal at an ask (an answer
//! that does not fit its question, a capability the request did not declare,
//! a question that is no input request) is returned to the ask *and
//! recorded*: the run ends with it whatever the tool does next, even when
//! the tool caught it, returned a result, or raised an error of its own.
//! Why: the refusal is the client's to see (its answer was refused, its
//! state is bad); a tool that swallowed it cannot make the run succeed with
//! an answer it never had, and the error the tool raised instead would hide
//! the rule the client must act on. Only without a recorded refusal is the
//! tool's own error the host's to propagate, as its language does. The
//! refusal comes out as the error (rule, message, data) and, for a host
//! that sends it at once, as its JSON-RPC error response with the HTTP
//! status ([`ToolRun::refusal_response`]): the copies of this loop in each
//! language used to disagree on where a refusal became a response.
//!
//! After the first unanswered ask, the host stops the tool ([`ToolRun::stop`]);
//! every ask after that asks nothing and gives none, so a tool that caught
//! its suspension learns nothing more. Asks made before the stop (several
//! asked together) all go into the round.

use super::serve::error_response_of;
use super::{parse_arg, text, usage, Options, Randomness, RoundsSettings, ToolBridge, ToolReplay};
use crate::kinds::*;
use crate::KeyRing;
use alloc::{string::String, vec::Vec};
use mrtr::{
    round::replay,
    state::{KeyRing as Keys, ReplayGuard},
    Error, Result,
};
use mrtr_facade_macros::export;
use serde_json::Value;

/// One run of an await-style tool on one request (`ToolReplay.run`): the host plays the tool once,
/// forwarding its asks (each answered, or none: the tool stops there), then ends the run with one
/// input, `respond` (the tool returned, or stopped at an unanswered ask: the response to send) or
/// `refused` (the tool raised its own error). A refusal at an ask is recorded and wins over whatever
/// the tool does next, even when it caught it.
///
/// One run of an await-style tool on one request: its asks, the data it
/// keeps, the refusal it met, and the response it ends with.
#[export(machine)]
pub struct ToolRun {
    replay: ToolReplay,
    /// The first refusal met at an ask (or while responding): the run's end.
    refusal: Option<Error>,
    data: Data,
    /// The host stopped the tool: asks give none without asking.
    stopped: bool,
}

/// The data an `input_required` response seals.
enum Data {
    /// The last round's, as it came (the tool set none).
    Kept,
    /// Set by the tool, as a value (none: nothing).
    Value(Option<Value>),
    /// Set by the tool, as JSON text read under the settings' limits when sealed.
    Text(Vec<u8>),
}

impl From<ToolReplay> for ToolRun {
    fn from(replay: ToolReplay) -> ToolRun {
        ToolRun { replay, refusal: None, data: Data::Kept, stopped: false }
    }
}

impl ToolRun {
    /// The run of a tool on `request` ([`ToolReplay::start`]: the round
    /// `settings`, the `call`, the replay `guard`).
    pub fn start(
        ring: &Keys,
        request: &[u8],
        settings: &[u8],
        call: &[u8],
        guard: Option<&mut dyn ReplayGuard>,
    ) -> Result<ToolRun> {
        ToolReplay::start(ring, request, settings, call, guard).map(ToolRun::from)
    }

    /// [`ToolRun::start`] with the settings read once and the call as values ([`ToolReplay::start_with`]).
    pub fn start_with(
        ring: &Keys,
        request: &[u8],
        settings: &RoundsSettings,
        principal: Option<&str>,
        anonymous: bool,
        now: u64,
        guard: Option<&mut dyn ReplayGuard>,
    ) -> Result<ToolRun> {
        ToolReplay::start_with(ring, request, settings, principal, anonymous, now, guard).map(ToolRun::from)
    }

    /// Asks the next question, under `key` when given: its answer, or none (the tool stops here). A refusal
    /// fails the ask and is recorded: the run ends with it.
    ///
    /// Asks `question` (an input request as JSON text), under `key` when
    /// given, else the key of its order: its answer as JSON text, or none
    /// (the tool stops here). A refusal is returned and recorded.
    #[export]
    pub fn ask(&mut self, question: JsonText, key: Option<&str>) -> Result<Option<JsonString>> {
        if self.stops() {
            return Ok(None);
        }
        let asked = self.replay.ask_keyed(question, key);
        self.recorded(asked)
    }

    /// [`ToolRun::ask`] of a question already read (by a binding, from its language's values).
    pub fn ask_value(&mut self, question: &Value, key: Option<&str>) -> Result<Option<Value>> {
        if self.stops() {
            return Ok(None);
        }
        let asked = self.replay.ask_value(question, key);
        self.recorded(asked)
    }

    /// Asks the form elicitation `message`, `requested_schema` in one call: its answer, or none. A schema
    /// that is no JSON fails, unrecorded: nothing was asked.
    ///
    /// Asks the form elicitation `message`, its answer shaped by
    /// `requested_schema` (JSON text), in one call. A schema that is no JSON
    /// is the tool's own error, not recorded: no question was asked.
    #[export]
    pub fn ask_elicit(
        &mut self,
        message: &str,
        requested_schema: JsonText,
        key: Option<&str>,
    ) -> Result<Option<JsonString>> {
        let question = replay::elicit(message, &parse_arg(requested_schema, "a requested schema")?);
        Ok(self.ask_value(&question, key)?.map(|answer| text(&answer)))
    }

    /// Records `error` as the run's refusal unless one came first; gives it
    /// back. For a binding whose own reading of an ask failed (a question its
    /// language could not write as JSON): the same policy as the run's own.
    pub fn refuse(&mut self, error: Error) -> Error {
        self.refusal.get_or_insert(error).clone()
    }

    /// The host stopped the tool (at its first unanswered ask): every later ask asks nothing and gives
    /// none.
    ///
    /// The host stopped the tool (at its first unanswered ask, or at a
    /// refusal): every later ask asks nothing and gives none.
    #[export]
    pub fn stop(&mut self) {
        self.stopped = true;
    }

    /// The request's `params.arguments` when an object, else `{}`; none for a bridge's run.
    ///
    /// The request's `params.arguments` as JSON text when an object, else
    /// `{}`; none for a bridge's run: what the host hands the tool.
    #[export]
    pub fn arguments(&self) -> Option<JsonString> {
        self.replay.arguments()
    }

    /// How many rounds came before this request.
    #[export]
    pub fn round(&self) -> Count {
        self.replay.round()
    }

    /// `{stateId, expiry}` of the state the request carried, or none.
    #[export]
    pub fn state(&self) -> Option<JsonString> {
        self.replay.state()
    }

    /// The data the next round gets: what the tool set, else the last round's, or none.
    #[export]
    pub fn data(&self) -> Option<JsonString> {
        match &self.data {
            Data::Kept => self.replay.data(),
            Data::Value(value) => value.as_ref().map(text),
            Data::Text(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
        }
    }

    /// The tool keeps `data` (none: nothing) for the next round, in place of the last round's.
    ///
    /// The tool keeps `data` (JSON text, read under the settings' limits
    /// when sealed; none: nothing) for the next round, in place of the last round's.
    #[export]
    pub fn set_data(&mut self, data: OptJsonText) {
        self.data = match data {
            Some(bytes) => Data::Text(bytes.to_vec()),
            None => Data::Value(None),
        };
    }

    /// [`ToolRun::set_data`] with the data already read (within the settings' limits).
    pub fn set_data_value(&mut self, data: Option<Value>) {
        self.data = Data::Value(data);
    }

    /// The keys asked and not answered, in order.
    pub fn missing(&self) -> Vec<String> {
        self.replay.missing()
    }

    /// The replay the run asks through (a bridge sends what it misses).
    pub fn replay(&self) -> &ToolReplay {
        &self.replay
    }

    /// Ends the run when the tool raised its own error: the refusal recorded at an ask, which wins over it;
    /// none: the tool's error is the host's to raise.
    ///
    /// The run's finishing input when the tool raised its own error: the
    /// refusal recorded at an ask, which wins over that error; `Ok` when
    /// none was (the host propagates the tool's error).
    #[export(refusal)]
    pub fn refused(&self) -> Result<()> {
        self.refusal.clone().map_or(Ok(()), Err)
    }

    /// Ends the run: the tool returned `result`, or stopped at an unanswered ask (none). The response to
    /// send, sealed with `ring`: `input_required` when an ask went unanswered (with the data set, else the
    /// last round's as it came), else the `complete` response; fails with the refusal recorded (or met
    /// here: the round cap).
    ///
    /// The run's finishing input when the tool returned `result` (JSON
    /// text), or stopped at an unanswered ask (none), and its output: the
    /// response to send, sealed with `ring` and `randomness`. A refusal
    /// recorded at an ask is the error; so is one met here (the round cap),
    /// recorded. Any unanswered ask makes it `input_required`, whatever the
    /// tool returned after it (a callback host's tool returns after a none).
    #[export]
    pub fn respond(&mut self, ring: &KeyRing, result: OptJsonText, random: Randomness<'_>) -> Result<JsonString> {
        let result = match (self.is_asking(), result) {
            (false, Some(result)) => Some(parse_arg(result, "the tool's result")?),
            _ => None,
        };
        self.respond_value(&*ring.reading()?, result, random)
    }

    /// [`ToolRun::respond`] with the tool's result already read.
    pub fn respond_value(&mut self, ring: &Keys, result: Option<Value>, randomness: Randomness<'_>) -> Result<String> {
        self.stop();
        self.refused()?;
        let response = if self.is_asking() {
            self.input_required(ring, randomness)
        } else {
            let result =
                result.ok_or_else(|| usage("the tool stopped at no unanswered ask: it ends with its result"))?;
            self.replay.complete_value(&result)
        };
        response.map_err(|e| self.refuse(e))
    }

    /// The refusal the run ended with, as the JSON-RPC error response to its request with its HTTP status
    /// (`{response, status}`, the options' `errorCodes`), or none.
    ///
    /// The refusal the run ended with, as the JSON-RPC error response to its
    /// request under the `options`' `errorCodes`, with its HTTP status:
    /// `{response, status}`; none when the run was not refused.
    #[export]
    pub fn refusal_response(&self, options: &Options) -> Option<JsonString> {
        let Some(refusal) = &self.refusal else { return None };
        let id = self.replay.request_value().and_then(|r| r.get("id")).cloned().unwrap_or(Value::Null);
        Some(error_response_of(&id, refusal, options))
    }

    /// Frees what the run holds now, not when its object is collected: the last call on it.
    ///
    /// Drops what the run holds now ([`ToolReplay::release`]): a
    /// garbage-collected host's last call on it.
    #[export(left_out = crate::exports::RUN_FREED_AT_ONCE)]
    pub fn release(&mut self) {
        self.replay.release();
    }

    /// Whether an ask of this run went unanswered.
    fn is_asking(&self) -> bool {
        !self.replay.missing().is_empty()
    }

    fn stops(&self) -> bool {
        self.stopped || self.refusal.is_some()
    }

    fn input_required(&self, ring: &Keys, randomness: Randomness<'_>) -> Result<String> {
        match &self.data {
            Data::Kept => self.replay.input_required_kept(ring, randomness),
            Data::Value(value) => self.replay.input_required_value(ring, value.clone(), randomness),
            Data::Text(bytes) => self.replay.input_required_on(ring, Some(bytes), randomness),
        }
    }

    fn recorded<T>(&mut self, asked: Result<T>) -> Result<T> {
        asked.map_err(|e| self.refuse(e))
    }
}

impl ToolBridge {
    /// Ends the round as `run` ended: its refusal ends the call with the error; else what it misses goes on
    /// the stream (past the round cap the call ends with that error); else `result` completes the call.
    ///
    /// One round of the bridged call ends with `run`'s end: its refusal ends
    /// the call with its error; else its unanswered questions go on the
    /// stream as server requests (past the round cap, the call ends with
    /// that error: no failure here); else the tool's `result` (JSON text)
    /// completes it. The tool's own error is the host's, as in [`ToolRun`].
    #[export]
    pub fn finish(&mut self, run: &ToolRun, result: OptJsonText, now: Whole) -> Result<()> {
        if let Err(refusal) = run.refused() {
            return self.refuse_error(&refusal);
        }
        if !run.is_asking() {
            let result =
                result.ok_or_else(|| usage("the tool stopped at no unanswered ask: it ends with its result"))?;
            return self.complete(result);
        }
        match self.ask(run.replay(), now) {
            Err(_) if self.is_done() => Ok(()),
            asked => asked,
        }
    }
}

#[cfg(test)]
mod tests;
