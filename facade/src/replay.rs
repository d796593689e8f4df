//! Await-style tools over JSON text ([`mrtr::round::replay`]): the replay of
//! one request, the questions a tool asks, and the answers a server builds.

use super::sealed::{rng, CallSpec, Randomness, RoundsSettings};
use super::{parse, parse_arg, text, usage_owned, ToolRun};
use crate::kinds::*;
use crate::KeyRing;
use alloc::{
    string::{String, ToString},
    vec::Vec,
};
use mrtr::{
    round::{
        bridge::Bridge,
        replay::{self, Asked, Replay},
    },
    server,
    state::{KeyRing as Keys, ReplayGuard},
    Result,
};
use mrtr_facade_macros::export;
use serde_json::{json, Value};

/// One replay of an await-style tool on one request: each `ask` answered from what the conversation
/// holds, or the round ends there.
///
/// One replay of a tool on one request, owning what it read; the ring comes
/// back to seal ([`ToolReplay::input_required`]). A replay of a
/// [`ToolBridge`] holds its answers in memory and seals nothing.
#[export(machine)]
pub struct ToolReplay {
    /// `None` once released ([`ToolReplay::release`]).
    inner: Option<Replay>,
    sealed: Option<Sealed>,
}

/// What sealing the next round needs.
struct Sealed {
    request: Value,
    /// The exact digest of the request's params, computed from its text once.
    params_digest: [u8; 32],
    settings: RoundsSettings,
    spec: CallSpec,
}

impl ToolReplay {
    /// Starts the replay of `request` (its raw text) under the round
    /// `settings` (`{"ttl", "pinAnswers", "protocol", "limits", "maxRounds"}`)
    /// for the `call` (`{"subject" | "anonymous", "now"}`); with `guard`, a
    /// state used before is `state-replayed`.
    pub fn start(
        ring: &Keys,
        request: &[u8],
        settings: &[u8],
        call: &[u8],
        guard: Option<&mut dyn ReplayGuard>,
    ) -> Result<ToolReplay> {
        let settings = RoundsSettings::from_json(settings)?;
        let spec = CallSpec::from_json(call)?;
        ToolReplay::begin(ring, request, settings, spec, guard)
    }

    /// [`ToolReplay::start`] with the settings read once ([`RoundsSettings::from_json`])
    /// and the call as values: the subject (a principal, or `anonymous`) and
    /// `now`. No JSON text is read but the request's: a host's hot path.
    pub fn start_with(
        ring: &Keys,
        request: &[u8],
        settings: &RoundsSettings,
        principal: Option<&str>,
        anonymous: bool,
        now: u64,
        guard: Option<&mut dyn ReplayGuard>,
    ) -> Result<ToolReplay> {
        let spec = CallSpec::new(principal, anonymous, now)?;
        ToolReplay::begin(ring, request, settings.clone(), spec, guard)
    }

    fn begin(
        ring: &Keys,
        request: &[u8],
        settings: RoundsSettings,
        spec: CallSpec,
        guard: Option<&mut dyn ReplayGuard>,
    ) -> Result<ToolReplay> {
        let rounds = settings.rounds(ring);
        let value = parse(request, &rounds.limits)?;
        let call = spec.call(&rounds, &value, request)?;
        let params_digest = call.binding.params_digest;
        let mut inner = Replay::start(&rounds, &call, guard)?;
        if let Some(max) = settings.max_rounds() {
            inner.max_rounds = max;
        }
        Ok(ToolReplay { inner: Some(inner), sealed: Some(Sealed { request: value, params_digest, settings, spec }) })
    }

    /// Asks the next question (an input request as JSON text): its answer
    /// as JSON text, or `None` when the tool must stop here.
    pub fn ask(&mut self, question: &[u8]) -> Result<Option<String>> {
        let question = parse_arg(question, "a question")?;
        answered(self.replay_mut()?.ask(&question)?)
    }

    /// [`ToolReplay::ask`] under a key of the tool's choosing.
    pub fn ask_as(&mut self, key: &str, question: &[u8]) -> Result<Option<String>> {
        let question = parse_arg(question, "a question")?;
        answered(self.replay_mut()?.ask_as(key, &question)?)
    }

    /// Asks the next question, under `key` when given: its answer, or none when the tool stops here.
    ///
    /// [`ToolReplay::ask_as`] under `key` when given, else [`ToolReplay::ask`].
    #[export(name = "ask")]
    pub fn ask_keyed(&mut self, question: JsonText, key: Option<&str>) -> Result<Option<JsonString>> {
        match key {
            Some(key) => self.ask_as(key, question),
            None => self.ask(question),
        }
    }

    /// [`ToolReplay::ask_keyed`] of a question already read (by a binding from
    /// its language's values): the answer as a value, or `None`.
    pub fn ask_value(&mut self, question: &Value, key: Option<&str>) -> Result<Option<Value>> {
        let replay = self.replay_mut()?;
        let asked = match key {
            Some(key) => replay.ask_as(key, question)?,
            None => replay.ask(question)?,
        };
        Ok(match asked {
            Asked::Answered(answer) => Some(answer),
            Asked::Missing => None,
        })
    }

    /// Asks the form elicitation `message`, `requested_schema` in one call: its answer, or none.
    ///
    /// `ask_keyed(question_elicit(message, requested_schema), key)` in one
    /// call, the question built here and never written as text: a binding's
    /// `ctx.elicit` path. A schema that is no JSON is `usage-invalid-argument`.
    pub fn ask_elicit(
        &mut self,
        message: &str,
        requested_schema: JsonText,
        key: Option<&str>,
    ) -> Result<Option<JsonString>> {
        let question = replay::elicit(message, &parse_arg(requested_schema, "a requested schema")?);
        Ok(self.ask_value(&question, key)?.map(|answer| text(&answer)))
    }

    /// The request's `params.arguments` when an object, else `{}`; none for a bridge's replay.
    ///
    /// The request's `params.arguments` as JSON text when they are an object,
    /// else `{}`; `None` for a bridge's replay (its host holds the request).
    /// What a binding hands the tool, from the request as the core read it.
    pub fn arguments(&self) -> Option<JsonString> {
        let request = self.request_value()?;
        Some(match request.get("params").and_then(|p| p.get("arguments")) {
            Some(args @ Value::Object(_)) => text(args),
            _ => String::from("{}"),
        })
    }

    /// The request the replay read (`None` for a bridge's replay).
    pub fn request_value(&self) -> Option<&Value> {
        self.sealed.as_ref().map(|s| &s.request)
    }

    /// The tool's data of the last round, as the value it was sealed as.
    pub fn data_value(&self) -> Option<&Value> {
        self.inner.as_ref()?.data()
    }

    /// How many rounds came before this request.
    #[export]
    pub fn round(&self) -> Count {
        self.inner.as_ref().map_or(0, Replay::round)
    }

    /// The keys asked and not answered.
    pub fn missing(&self) -> Vec<String> {
        self.inner.as_ref().map_or_else(Vec::new, |r| r.missing().to_vec())
    }

    /// The tool's data of the last round, or none.
    #[export]
    pub fn data(&self) -> Option<JsonString> {
        self.data_value().map(text)
    }

    /// `{stateId, expiry}` of the state the request carried, or none.
    ///
    /// The state the request carried: `{"stateId", "expiry"}`, or `None`.
    #[export]
    pub fn state(&self) -> Option<JsonString> {
        let state = self.inner.as_ref()?.state()?;
        Some(text(&json!({"stateId": state.id.to_string(), "expiry": state.expiry})))
    }

    /// The `input_required` response asking what is missing, sealed with `ring`.
    #[export]
    pub fn input_required(&self, ring: &KeyRing, data: OptJsonText, random: Randomness<'_>) -> Result<JsonString> {
        self.input_required_on(&*ring.reading()?, data, random)
    }

    /// [`ToolReplay::input_required`] on the ring already read.
    pub(crate) fn input_required_on(
        &self,
        ring: &Keys,
        data: OptJsonText,
        random: Randomness<'_>,
    ) -> Result<JsonString> {
        let s = self.sealed()?;
        let data = data.map(|d| parse(d, &s.settings.rounds(ring).limits)).transpose()?;
        self.input_required_value(ring, data, random)
    }

    /// [`ToolReplay::input_required`] with `data` already read (within the
    /// settings' limits): to keep the data of the last round as it came,
    /// pass [`ToolReplay::data_value`].
    pub fn input_required_value(&self, ring: &Keys, data: Option<Value>, randomness: Randomness<'_>) -> Result<String> {
        let s = self.sealed()?;
        let rounds = s.settings.rounds(ring);
        let call = s.spec.call_digested(&rounds, &s.request, s.params_digest)?;
        let response = self.replay()?.input_required(&rounds, &call, data, &mut rng(randomness)?)?;
        Ok(text(&response))
    }

    /// `input_required` sealing again the last round's data as it came (none: none).
    ///
    /// [`ToolReplay::input_required`] sealing again the data of the last
    /// round as it came (none: none), never written out and read back.
    pub fn input_required_kept(&self, ring: &Keys, random: Randomness<'_>) -> Result<JsonString> {
        self.input_required_value(ring, self.data_value().cloned(), random)
    }

    /// The final response with `result`.
    #[export]
    pub fn complete(&self, result: JsonText) -> Result<JsonString> {
        self.complete_value(&parse_arg(result, "a result")?)
    }

    /// [`ToolReplay::complete`] with the result already read.
    pub fn complete_value(&self, result: &Value) -> Result<String> {
        let s = self.sealed()?;
        Ok(text(&server::complete(&s.request, result, s.settings.protocol())?))
    }

    /// Frees what the replay holds now, not when its object is collected (a finalizer runs only between
    /// event-loop turns): the last call on it. After it, asking and answering are out of turn.
    ///
    /// Drops what the replay holds (the request it read, the questions and
    /// answers) now, not when its owner is collected: a garbage-collected
    /// host's last call on it, once the response is written. A JavaScript
    /// object's native memory is freed only by a finalizer that runs between
    /// event-loop turns, so a loop of calls that never yields would otherwise
    /// hold every replay it made. After it, asking and answering are
    /// usage errors, and the reads say nothing (no data, round 0).
    #[export(left_out = crate::exports::FREED_AT_ONCE)]
    pub fn release(&mut self) {
        self.inner = None;
        self.sealed = None;
    }

    /// The run of the tool over this replay (`ToolRun`), which takes what the replay holds: this one is
    /// released.
    ///
    /// The run of the tool over this replay ([`ToolRun`]), which takes what
    /// the replay holds: this one is released.
    #[export]
    pub fn run(&mut self) -> ToolRun {
        ToolRun::from(ToolReplay { inner: self.inner.take(), sealed: self.sealed.take() })
    }

    fn replay(&self) -> Result<&Replay> {
        self.inner.as_ref().ok_or_else(released)
    }

    fn replay_mut(&mut self) -> Result<&mut Replay> {
        self.inner.as_mut().ok_or_else(released)
    }

    fn sealed(&self) -> Result<&Sealed> {
        self.replay()?;
        self.sealed.as_ref().ok_or_else(|| usage_owned("a bridge's replay answers through its bridge".into()))
    }
}

/// The error of a call on a released [`ToolReplay`]: out of turn, as a
/// machine's input after its end.
fn released() -> mrtr::Error {
    mrtr::Error::with(mrtr::RuleId::UsageOutOfTurn, "this replay was released".into())
}

/// One `2025-11-25` call of an await-style tool, its questions sent as server requests on the call's
/// stream (each associated with the call, SEP-2260).
///
/// [`Bridge`]: one `2025-11-25` call of an await-style tool over JSON text.
#[export(machine)]
pub struct ToolBridge(Bridge);

impl ToolBridge {
    /// A bridge for `request`, its event ids under `key`, under `config` (`{maxRounds, roundTimeoutMs,
    /// limits}`; none: the defaults).
    ///
    /// A bridge for `request` (JSON text), its stream's event ids under `key`;
    /// `options` give `limits` and `maxRounds`, and `roundTimeoutMs` the wait per round.
    #[export(shapes(config = BridgeConfig))]
    pub fn new(request: JsonText, key: &str, config: JsonOrEmpty) -> Result<ToolBridge> {
        let mut o = parse_arg(if config.is_empty() { b"{}" } else { config }, "the bridge config")?;
        let timeout = match o.as_object_mut().and_then(|o| o.remove("roundTimeoutMs")) {
            None | Some(Value::Null) => None,
            Some(n) => Some(n.as_u64().ok_or_else(|| usage_owned("roundTimeoutMs is milliseconds".into()))?),
        };
        let config = super::Options::from_value(&o)?;
        let mut bridge = Bridge::new(&parse(request, &config.limits)?, key, config.limits)?;
        if let Some(max) = config.max_rounds {
            bridge.max_rounds = max;
        }
        if let Some(ms) = timeout {
            bridge.round_timeout_ms = ms;
        }
        Ok(ToolBridge(bridge))
    }

    /// A replay of the tool from the answers collected so far.
    #[export]
    pub fn replay(&self) -> ToolReplay {
        ToolReplay { inner: Some(self.0.replay()), sealed: None }
    }

    /// Sends what `replay` misses as server requests on the stream.
    #[export]
    pub fn ask(&mut self, replay: &ToolReplay, now: Whole) -> Result<()> {
        self.0.ask(replay.replay()?, mrtr::Millis(now))
    }

    /// The tool completed with `result`.
    #[export]
    pub fn complete(&mut self, result: JsonText) -> Result<()> {
        self.0.complete(&parse_arg(result, "a result")?)
    }

    /// The tool's run was refused: `rule`, `message`, `data` (the members of the error's `data`, an
    /// object).
    ///
    /// The tool's run was refused: the error response for the rule named
    /// `rule`, `message` and `data` (a JSON object, or `None`) ends the call.
    #[export]
    pub fn refuse(&mut self, rule: &str, message: &str, data: OptJsonText) -> Result<()> {
        let error = super::serve::error_of(rule, message, data)?;
        self.0.refuse(&error)
    }

    /// [`ToolBridge::refuse`] with the core's error itself.
    pub(super) fn refuse_error(&mut self, error: &mrtr::Error) -> Result<()> {
        self.0.refuse(error)
    }

    /// A response the client POSTed; true when the round is complete.
    #[export]
    pub fn handle_answer(&mut self, response: JsonText, now: Whole) -> Result<bool> {
        self.0.handle_answer(&parse_arg(response, "a response")?, mrtr::Millis(now))
    }

    /// The round's deadline may have passed.
    #[export]
    pub fn handle_timeout(&mut self, now: Whole) {
        self.0.handle_timeout(mrtr::Millis(now));
    }

    /// The next text to write on the stream, or none.
    #[must_use]
    #[export]
    pub fn poll_write(&mut self) -> Option<String> {
        self.0.poll_write()
    }

    /// When (ms) to call `handle_timeout`, or none.
    ///
    /// When to call `handle_timeout`.
    #[must_use]
    #[export]
    pub fn poll_timeout(&self) -> OptMillis {
        self.0.poll_timeout().map(|at| at.0)
    }

    /// Whether the final response was written.
    #[export]
    pub fn is_done(&self) -> bool {
        self.0.is_done()
    }

    /// The ids of the server requests waiting for an answer.
    #[export]
    pub fn pending(&self) -> Vec<String> {
        self.0.pending().map(String::from).collect()
    }
}

fn answered(asked: Asked) -> Result<Option<String>> {
    Ok(match asked {
        Asked::Answered(answer) => Some(text(&answer)),
        Asked::Missing => None,
    })
}

/// A form elicitation asking `message`, its answer shaped by `requested_schema`: an input request.
#[export]
pub fn question_elicit(message: &str, requested_schema: JsonText) -> Result<JsonString> {
    Ok(text(&replay::elicit(message, &parse_arg(requested_schema, "a requested schema")?)))
}

/// A sampling request with `params` (`messages`, `maxTokens`, …): an input request.
#[export]
pub fn question_sample(params: JsonText) -> Result<JsonString> {
    Ok(text(&replay::sample(&parse_arg(params, "sampling params")?)))
}

/// A request for the client's roots: an input request.
///
/// A roots request.
#[export]
pub fn question_roots() -> JsonString {
    text(&replay::roots())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETTINGS: &[u8] = br#"{"ttl": 60, "maxRounds": 3}"#;
    const CALL: &[u8] = br#"{"subject": "alice", "now": 1000}"#;
    const REQUEST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;

    #[test]
    fn a_replay_over_values_answers_as_the_one_over_json() {
        let ring = KeyRing::new(1, "xaes-256-gcm", Some(&[3; 32]), None).unwrap();
        let settings = RoundsSettings::from_json(SETTINGS).unwrap();
        let question = replay::elicit("Name?", &json!({"type": "object", "properties": {"v": {"type": "string"}}}));
        let mut first =
            ToolReplay::start_with(&ring.reading().unwrap(), REQUEST.as_bytes(), &settings, None, true, 1000, None)
                .unwrap();
        assert_eq!(first.ask_value(&question, None).unwrap(), None);
        assert_eq!(first.request_value().and_then(|r| r["id"].as_u64()), Some(1));
        let asked: Value = serde_json::from_str(
            &first
                .input_required_value(&ring.reading().unwrap(), Some(json!({"step": 1})), Randomness::Bytes(&[7; 32]))
                .unwrap(),
        )
        .unwrap();
        let mut retry: Value = serde_json::from_str(REQUEST).unwrap();
        retry["params"]["requestState"] = asked["result"]["requestState"].clone();
        retry["params"]["inputResponses"] = json!({"q1": {"action": "accept", "content": {"v": "Ada"}}});
        let retry = retry.to_string();
        // The JSON call of the same subject opens what the values sealed.
        let anonymous = br#"{"anonymous": true, "now": 1001}"#;
        let mut second =
            ToolReplay::start(&ring.reading().unwrap(), retry.as_bytes(), SETTINGS, anonymous, None).unwrap();
        assert_eq!(second.data_value(), Some(&json!({"step": 1})));
        let answer = second.ask_value(&question, None).unwrap().unwrap();
        assert_eq!(answer["content"]["v"], "Ada");
        let done = second.complete_value(&json!({"content": []})).unwrap();
        assert_eq!(done, second.complete(br#"{"content":[]}"#).unwrap());
        // Neither subject, or both, is refused as from JSON.
        let neither =
            ToolReplay::start_with(&ring.reading().unwrap(), retry.as_bytes(), &settings, None, false, 1001, None);
        assert_eq!(neither.err().map(|e| e.rule()), Some(mrtr::RuleId::UsageInvalidArgument));
    }

    #[test]
    fn one_call_asks_read_the_arguments_and_keep_the_data() {
        let ring = KeyRing::new(1, "xaes-256-gcm", Some(&[3; 32]), None).unwrap();
        let schema = br#"{"type":"object","properties":{"v":{"type":"string"}}}"#;
        let settings = RoundsSettings::from_json(SETTINGS).unwrap();
        let start = |request: &str, now| {
            ToolReplay::start_with(&ring.reading().unwrap(), request.as_bytes(), &settings, None, true, now, None)
        };
        let mut call: Value = serde_json::from_str(REQUEST).unwrap();
        call["params"]["arguments"] = json!({"n": 1});
        let retry = |asked: &str, answers: Value| {
            let mut retry = call.clone();
            retry["params"]["requestState"] =
                serde_json::from_str::<Value>(asked).unwrap()["result"]["requestState"].take();
            retry["params"]["inputResponses"] = answers;
            retry.to_string()
        };
        assert_eq!(start(REQUEST, 1000).unwrap().arguments().as_deref(), Some("{}"));
        let mut first = start(&call.to_string(), 1000).unwrap();
        assert_eq!(first.arguments().as_deref(), Some(r#"{"n":1}"#));
        assert!(first.ask_elicit("Name?", b"{", None).is_err()); // no question: nothing asked
        assert_eq!(first.ask_elicit("Name?", schema, None).unwrap(), None);
        let asked = first
            .input_required_value(&ring.reading().unwrap(), Some(json!({"step": 1})), Randomness::Bytes(&[7; 32]))
            .unwrap();
        let question: Value = serde_json::from_str(&question_elicit("Name?", schema).unwrap()).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&asked).unwrap()["result"]["inputRequests"], json!({"q1": question}));
        // The next round answers q1, asks again, and keeps the data as it came.
        let mut second =
            start(&retry(&asked, json!({"q1": {"action": "accept", "content": {"v": "Ada"}}})), 1001).unwrap();
        let answer = second.ask_elicit("Name?", schema, None).unwrap().unwrap();
        assert_eq!(serde_json::from_str::<Value>(&answer).unwrap()["content"]["v"], "Ada");
        assert_eq!(second.ask_elicit("Greeting?", schema, Some("g")).unwrap(), None);
        let kept = second.input_required_kept(&ring.reading().unwrap(), Randomness::Bytes(&[8; 32])).unwrap();
        let third = start(&retry(&kept, json!({})), 1002).unwrap();
        assert_eq!(third.data_value(), Some(&json!({"step": 1})));
        assert_eq!(ToolBridge::new(REQUEST.as_bytes(), "0123456789abcdef", b"").unwrap().replay().arguments(), None);
    }

    #[test]
    fn a_replay_over_json_asks_then_completes() {
        let ring = KeyRing::new(1, "xchacha20-poly1305", Some(&[3; 32]), None).unwrap();
        let schema = br#"{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}"#;
        let question = question_elicit("Name?", schema).unwrap();
        let mut first = ToolReplay::start(&ring.reading().unwrap(), REQUEST.as_bytes(), SETTINGS, CALL, None).unwrap();
        assert_eq!(first.ask(question.as_bytes()).unwrap(), None);
        let asked: Value =
            serde_json::from_str(&first.input_required(&ring, None, Randomness::Bytes(&[7; 24])).unwrap()).unwrap();
        let mut retry: Value = serde_json::from_str(REQUEST).unwrap();
        retry["id"] = json!(2);
        retry["params"]["requestState"] = asked["result"]["requestState"].clone();
        retry["params"]["inputResponses"] = json!({"q1": {"action": "accept", "content": {"v": "Ada"}}});
        let retry = retry.to_string();
        let mut second = ToolReplay::start(&ring.reading().unwrap(), retry.as_bytes(), SETTINGS, CALL, None).unwrap();
        let answer: Value = serde_json::from_str(&second.ask(question.as_bytes()).unwrap().unwrap()).unwrap();
        assert_eq!((answer["content"]["v"].as_str(), second.round()), (Some("Ada"), 1));
        let done: Value = serde_json::from_str(&second.complete(br#"{"content":[]}"#).unwrap()).unwrap();
        assert_eq!(
            (done["result"]["resultType"].as_str(), done["result"]["ttlMs"].as_u64()),
            (Some("complete"), Some(0))
        );
    }

    #[test]
    fn a_released_replay_refuses_every_call_out_of_turn_and_reads_nothing() {
        let ring = KeyRing::new(1, "xchacha20-poly1305", Some(&[3; 32]), None).unwrap();
        let question = question_elicit("Name?", br#"{"type":"object","properties":{}}"#).unwrap();
        let mut replay = ToolReplay::start(&ring.reading().unwrap(), REQUEST.as_bytes(), SETTINGS, CALL, None).unwrap();
        assert_eq!(replay.ask(question.as_bytes()).unwrap(), None);
        replay.release();
        let out_of_turn = |e: mrtr::Error| e.rule() == mrtr::RuleId::UsageOutOfTurn;
        assert!(replay.input_required(&ring, None, Randomness::Bytes(&[7; 24])).is_err_and(out_of_turn));
        assert!(replay.complete(b"{}").is_err_and(out_of_turn));
        assert!(replay.ask(question.as_bytes()).is_err_and(out_of_turn));
        assert_eq!((replay.arguments(), replay.missing().len(), replay.round()), (None, 0, 0));
        // A bridge refuses to ask from a released replay: there is nothing to ask.
        let mut bridge = ToolBridge::new(REQUEST.as_bytes(), "0123456789abcdef", b"").unwrap();
        let mut from_bridge = bridge.replay();
        from_bridge.release();
        assert!(bridge.ask(&from_bridge, 0).is_err_and(out_of_turn));
    }
}
