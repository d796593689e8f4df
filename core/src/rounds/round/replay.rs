//! Await-style tools without server state: each request re-runs the tool
//! from the top, and every question it asks is answered from what the
//! conversation already holds, until the first one that is not.
//!
//! A tool written as `name = await ctx.elicit(q)` cannot keep its stack
//! between requests when any instance behind a load balancer may take the
//! next one. So the tool is *replayed*: [`Replay::ask`] answers each question
//! from the sealed state (answers of earlier rounds) or from this request's
//! `inputResponses`, and says [`Asked::Missing`] for the first that has no
//! answer yet. The binding turns `Missing` into its language's suspension (the
//! coroutine is dropped), and [`Replay::input_required`] asks every question
//! still missing, sealing the answers collected so far. The next request
//! replays the tool again, one round further.
//!
//! **Keys are the order of asking** (`q1`, `q2`, …), and every answer is
//! **pinned to a digest of the exact question** it answered (the
//! [`SealedRounds`] pins): a tool whose questions change, or change order,
//! between rounds (a newer version behind the same balancer, a question that
//! depends on the clock) has the changed question asked again, never answered
//! with the answer to another.
//!
//! **Code before an ask runs once per round**, so it must be free of side
//! effects (or idempotent): a tool that sends an e-mail before asking sends it
//! on every replay. Do side effects after the last ask, and use a
//! [`ReplayGuard`] so that a final round runs once.
//!
//! A conversation needs at most [`Replay::max_rounds`] rounds; one more is
//! `retry-rounds-exceeded`.

use super::{question_digest, Call, Carried, SealedRounds, StateInfo};
use crate::base::settings::DEFAULT_MAX_ROUNDS;
use crate::{
    base::error::{err, Result},
    machines::server,
    read::view::{InputRequestView, Map as ViewMap, Obj, ResponseView},
    request::dialect::to_sep_in,
    request::input,
    request::message::read_view,
    sealed::state::ReplayGuard,
};
use crate::{base::limits::Limits, base::protocol::Protocol};
use alloc::{format, string::String, vec::Vec};
use serde_json::{json, Map, Value};

/// What [`Replay::ask`] knows of a question.
#[derive(Clone, Debug, PartialEq)]
pub enum Asked {
    /// Its answer: the tool goes on.
    Answered(Value),
    /// No answer yet: the tool stops here, and the round asks it.
    Missing,
}

/// One replay of a tool on one request. See the [module](self). It owns
/// what it read, so a binding may keep it across the tool's awaits; the
/// deployment's settings and the call come back for
/// [`input_required`](Replay::input_required), which seals.
#[derive(Debug)]
pub struct Replay {
    protocol: Protocol,
    limits: Limits,
    pin_answers: bool,
    carried: Carried,
    /// This request's answers, by key.
    fresh: Map<String, Value>,
    /// Every question asked in this replay, by key, in order.
    asked: Map<String, Value>,
    /// The answers the replay used (carried forward when it asks again).
    answers: Map<String, Value>,
    /// Keys asked and not answered.
    missing: Vec<String>,
    /// Rounds a conversation may take. Default 10.
    pub max_rounds: u32,
}

impl Replay {
    /// Starts a replay of `call`'s request: reads its MRTR fields, opens its
    /// state, checks each answer to a question the state asked against that
    /// question (`retry-input-response-invalid`), and only then spends the
    /// state with `guard` (a state used before is `state-replayed`): a
    /// refused answer never uses up the state, so the client may correct it.
    pub fn start(rounds: &SealedRounds<'_>, call: &Call<'_>, guard: Option<&mut dyn ReplayGuard>) -> Result<Replay> {
        let read = server::resume(call.request, &json!({}), rounds.protocol, &rounds.limits)?;
        let request = to_sep_in(call.request, rounds.protocol);
        let fresh = match request.get("params").and_then(|p| p.get("inputResponses")) {
            Some(Value::Object(o)) => o.clone(),
            _ => Map::new(),
        };
        let carried = match &read.request_state {
            Some(token) => {
                let carried = rounds.open(call, token)?;
                for (key, shape) in &carried.shapes {
                    if let Some(answer) = fresh.get(key) {
                        check_answer(key, answer, shape)?;
                    }
                }
                carried.spend(guard)?
            }
            None => Carried::default(),
        };
        let (asked, answers, missing) = (Map::new(), Map::new(), Vec::new());
        let (protocol, limits, pin_answers) = (rounds.protocol, rounds.limits, rounds.pin_answers);
        Ok(Replay {
            protocol,
            limits,
            pin_answers,
            carried,
            fresh,
            asked,
            answers,
            missing,
            max_rounds: DEFAULT_MAX_ROUNDS,
        })
    }

    /// A replay over answers held in memory (the [`Bridge`](super::bridge::Bridge)
    /// of a `2025-11-25` call): `carried` as if a state had carried it, with
    /// no fresh answers.
    pub(super) fn from_carried(carried: Carried, protocol: Protocol, limits: Limits) -> Replay {
        let (fresh, asked, answers, missing) = (Map::new(), Map::new(), Map::new(), Vec::new());
        Replay {
            protocol,
            limits,
            pin_answers: true,
            carried,
            fresh,
            asked,
            answers,
            missing,
            max_rounds: DEFAULT_MAX_ROUNDS,
        }
    }

    /// The question asked under `key` in this replay.
    pub fn question(&self, key: &str) -> Option<&Value> {
        self.asked.get(key)
    }

    /// Asks the next question (an input request: `{"method":
    /// "elicitation/create", "params": {…}}`), under the key of its order.
    pub fn ask(&mut self, question: &Value) -> Result<Asked> {
        let key = format!("q{}", self.asked.len() + 1);
        self.ask_as(&key, question)
    }

    /// Asks `question` under a key of the tool's choosing (unique within one
    /// replay; a key asked twice is `usage-invalid-argument`).
    pub fn ask_as(&mut self, key: &str, question: &Value) -> Result<Asked> {
        if self.asked.contains_key(key) {
            return Err(err!(UsageInvalidArgument, "the key {key:?} was asked already in this replay"));
        }
        validate_question(key, question, self.protocol, &self.limits)?;
        self.asked.insert(key.into(), question.clone());
        let digest = question_digest(question);
        let pinned = |pins: &Map<String, Value>| !self.pin_answers || pins.get(key) == Some(&digest);
        // A fresh answer counts for a question the last round asked as it was
        // asked; a first request's answers were asked by no state, so under
        // pins they count for nothing (see `SealedRounds::pin_answers`).
        let fresh = self.fresh.get(key).filter(|_| pinned(&self.carried.asked));
        let answer = match (fresh, self.carried.answers.get(key)) {
            (Some(answer), _) => {
                check_answer(key, answer, question)?;
                Some(answer.clone())
            }
            (None, Some(answer)) if pinned(&self.carried.answered) && server::fits(key, answer, question) => {
                Some(answer.clone())
            }
            _ => None,
        };
        Ok(match answer {
            Some(answer) => {
                self.answers.insert(key.into(), answer.clone());
                Asked::Answered(answer)
            }
            None => {
                self.missing.push(key.into());
                Asked::Missing
            }
        })
    }

    /// How many `input_required` rounds came before this request.
    pub fn round(&self) -> u32 {
        self.carried.round
    }

    /// The state this request carried, if any (its id keys a single-use store).
    pub fn state(&self) -> Option<StateInfo> {
        self.carried.state
    }

    /// The data the tool kept at the last round, if any.
    pub fn data(&self) -> Option<&Value> {
        self.carried.data.as_ref()
    }

    /// Whether every question asked so far has its answer.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }

    /// The keys asked and not answered, in order.
    pub fn missing(&self) -> &[String] {
        &self.missing
    }

    /// The `input_required` answer to `call` (the call [`start`](Replay::start)
    /// read) under `rounds`: every question still missing, and sealed state
    /// with the answers collected (each pinned to its question) and `data`.
    /// Past [`max_rounds`](Replay::max_rounds) rounds, `retry-rounds-exceeded`;
    /// with nothing missing, `usage-out-of-turn`.
    pub fn input_required<R: rand_core::CryptoRng + ?Sized>(
        &self,
        rounds: &SealedRounds<'_>,
        call: &Call<'_>,
        data: Option<Value>,
        rng: &mut R,
    ) -> Result<Value> {
        if self.missing.is_empty() {
            return Err(err!(UsageOutOfTurn, "every question has its answer: the tool completes"));
        }
        if self.carried.round >= self.max_rounds {
            return Err(err!(RetryRoundsExceeded, "the tool still asks after {} rounds", self.carried.round));
        }
        let needs = Value::Object(self.asked.clone());
        let round = super::Round {
            answers: self.answers.clone(),
            missing: self.missing.clone(),
            number: self.carried.round,
            ..super::Round::default()
        };
        rounds.seal_round(call, &round, &needs, data, true, rng)
    }
}

/// A question is an input request of the protocol (the tool's own mistake
/// otherwise: `input-request-invalid`).
fn validate_question(key: &str, question: &Value, protocol: Protocol, limits: &Limits) -> Result<()> {
    let one = json!({ key: question });
    let map: ViewMap<'_, Obj<InputRequestView<'_>>> = read_view(&one)?;
    input::validate_requests(&map, protocol, limits)
}

/// A fresh answer that does not fit its question is refused
/// (`retry-input-response-invalid`), as [`server::resume`] refuses it.
fn check_answer(key: &str, answer: &Value, question: &Value) -> Result<()> {
    let answer: ResponseView<'_> = read_view(answer)?;
    let question: InputRequestView<'_> = read_view(question)?;
    input::validate_response(key, &answer, &question)
}

/// A form elicitation asking `message`, its answer shaped by `requested_schema`.
pub fn elicit(message: &str, requested_schema: &Value) -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": requested_schema}})
}

/// A sampling request with `params` (`messages`, `maxTokens`, and any other field).
pub fn sample(params: &Value) -> Value {
    json!({"method": "sampling/createMessage", "params": params})
}

/// A request for the client's roots.
pub fn roots() -> Value {
    json!({"method": "roots/list", "params": {}})
}
