//! A server's rounds with sealed state, so that a tool author never handles a
//! token.
//!
//! [`SealedRounds::resume`] reads a request: the answers it carries, plus the
//! answers earlier rounds collected, which travel in the sealed `requestState`
//! (001 "Use Case 1: Rolling Upgrades": a newer server version keeps the
//! `github_login` answer an older one got, and asks only what it still
//! lacks). [`SealedRounds::respond`] asks for what is missing and seals what
//! was collected, bound to the principal and the request, with an expiry.
//!
//! [`SealedRounds`] holds a deployment's settings (ring, lifetime, protocol,
//! limits), built once; a [`Call`] holds what is per request: the request,
//! its principal and the caller's clock.
//!
//! # What the sealed state promises
//!
//! - **Answers are re-validated.** A carried answer that no longer fits the
//!   current need (a newer server version asks differently) goes back to
//!   `missing`, as a fresh one would be refused.
//! - **Answers are pinned to the question** ([`SealedRounds::pin_answers`], on
//!   by default): the state records a digest of each question asked and
//!   answered. An answer counts only for the exact question it answered:
//!   "delete 3 files?" answered yes is asked again as "delete 300 files?".
//!   A fresh answer counts only for a question the last round asked, as it
//!   was asked, so a client can neither slip in an answer the conversation
//!   never asked for nor change an earlier one. A request without state is a
//!   first request: the answers it carries were asked by no state, so they
//!   are ignored (001 "Guidance for Error Handling": a server SHOULD ignore
//!   what it did not ask for) and every question is asked, under a state
//!   that records it. Dropping `requestState` therefore starts the
//!   conversation over; it never runs a final round again, nor answers a
//!   question the client was not shown. With pins off the keys name the
//!   questions, and a first request's answers are taken by key (SEP-2322's
//!   pre-answered first request, for a host whose questions carry no risk).
//! - **Rounds are numbered** ([`Round::number`]), and with a
//!   [`ReplayGuard`] each state is single-use: an earlier round's state
//!   presented after a later one is `state-replayed`, never a rollback, and a
//!   final round runs once. A host that answers a replayed final round from
//!   its own store keys it by [`Round::state`]'s id (or
//!   [`state::inspect`] of the token).
//!
//! Without a guard, a state opens as often as it is presented until it
//! expires: keep counters and anything with side effects on the server.
//!
//! # Counters belong on the server
//!
//! `data`, [`Round::number`] and the round cap travel with the state, and a
//! client may always start over with a first request, which carries none of
//! them. So anything that must never reset (failed attempts at a code, a rate
//! limit, money spent) is kept in the host's own store, keyed by the
//! principal and the operation (for example the tool's name and a digest of
//! its arguments), never in `data`.

pub mod bridge;
pub mod replay;

use crate::{
    base::error::{err, Result},
    base::limits::Limits,
    base::protocol::Protocol,
    base::time::Millis,
    machines::server,
    sealed::state::{self, Binding, KeyRing, Purpose, ReplayGuard, StateId, Subject},
};
use alloc::{string::String, vec::Vec};
use serde_json::{json, Map, Value};

/// A deployment's settings for sealed rounds: built once, shared by every request.
#[derive(Debug)]
pub struct SealedRounds<'k> {
    /// The keys.
    pub ring: &'k KeyRing,
    /// How long a round may take, in seconds.
    pub ttl: u32,
    /// The protocol of the conversation.
    pub protocol: Protocol,
    /// Bounds on what is read.
    pub limits: Limits,
    /// Whether an answer counts only for the exact question it answered
    /// (see the module doc). On in [`SealedRounds::new`].
    pub pin_answers: bool,
}

/// One request as sealed rounds see it: the request, its binding (principal
/// and request) and the caller's clock.
#[derive(Clone, Debug)]
pub struct Call<'a> {
    /// The request.
    pub request: &'a Value,
    /// What its state is bound to.
    pub binding: Binding<'a>,
    /// The caller's clock, now, since the Unix epoch (the state's expiry
    /// is compared with its whole seconds).
    pub now: Millis,
    /// The binding's tags, computed once for the open and the seal of this
    /// request (see [`state::Binds`]).
    pub(crate) tags: state::TagMemo<'a>,
}

impl state::BindingTags for Call<'_> {
    fn tags(&self, key: &state::Key) -> [u8; state::TAGS] {
        self.tags.tags(key, &self.binding)
    }
}

/// A rounds call binds its state as its `binding` says, its tags computed once.
impl state::Binds for Call<'_> {}

/// The state a request carried, as the host may see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateInfo {
    /// The state's id: the key of a single-use store.
    pub id: StateId,
    /// When it expires, seconds since the Unix epoch.
    pub expiry: u64,
}

/// What a server knows after reading a request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Round {
    /// Every needed answer collected so far, this request's and earlier rounds', in the order of `needs`.
    pub answers: Map<String, Value>,
    /// Needed keys still without an answer.
    pub missing: Vec<String>,
    /// Keys this request answered that count for nothing: not needed, or
    /// (under [`SealedRounds::pin_answers`]) not asked by the state it carried.
    pub ignored: Vec<String>,
    /// The tool's own data from the previous round, if it kept any.
    pub data: Option<Value>,
    /// How many `input_required` rounds came before this request (0 on a first request).
    pub number: u32,
    /// The state this request carried, if any.
    pub state: Option<StateInfo>,
}

impl Round {
    /// Whether every needed answer is there.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }
}

/// What the sealed state of a round holds.
#[derive(Debug, Default)]
struct Carried {
    round: u32,
    answers: Map<String, Value>,
    /// Digest of the question each carried answer answered.
    answered: Map<String, Value>,
    /// Digest of each question the last round asked.
    asked: Map<String, Value>,
    /// What an answer to each question the last round asked must fit (see
    /// [`answer_shape`]): sealed by a [`replay::Replay`]'s round, so that its
    /// fresh answers are checked before the state is spent.
    shapes: Map<String, Value>,
    data: Option<Value>,
    state: Option<StateInfo>,
}

impl<'k> SealedRounds<'k> {
    /// Settings with answers pinned to their questions.
    pub fn new(ring: &'k KeyRing, ttl: u32, protocol: Protocol, limits: Limits) -> SealedRounds<'k> {
        SealedRounds { ring, ttl, protocol, limits, pin_answers: true }
    }

    /// The [`Call`] of `request` from `subject` at `now`, bound with
    /// [`Binding::for_request`] under this protocol.
    pub fn call<'a>(&self, request: &'a Value, subject: Subject<'a>, now: Millis) -> Result<Call<'a>> {
        Ok(self.bound_call(request, Binding::for_request(request, subject, self.protocol)?, now))
    }

    /// [`SealedRounds::call`] bound with [`Binding::for_request_text`]: the
    /// params digested from `request_text`, the raw JSON text `request` was
    /// parsed from (exact for every number as written), once.
    pub fn call_text<'a>(
        &self,
        request: &'a Value,
        request_text: &[u8],
        subject: Subject<'a>,
        now: Millis,
    ) -> Result<Call<'a>> {
        let binding = Binding::for_request_text(request, request_text, subject, self.protocol)?;
        Ok(self.bound_call(request, binding, now))
    }

    /// The [`Call`] of `request` under a binding made for it (with
    /// [`Binding::for_request_digested`], by a host that digested the
    /// request's parameters before: a replayed tool's later rounds).
    pub fn bound_call<'a>(&self, request: &'a Value, binding: Binding<'a>, now: Millis) -> Call<'a> {
        Call { request, binding, now, tags: state::TagMemo::default() }
    }

    /// Reads `call`'s request against what this server `needs` (an
    /// `inputRequests` object). Fails with the request's rule, or a `state-*`
    /// rule when its `requestState` does not open; with a `guard`, a state
    /// used before is `state-replayed`. The guard is asked last, so a request
    /// refused for another reason does not use up its state.
    pub fn resume(&self, call: &Call<'_>, needs: &Value, guard: Option<&mut dyn ReplayGuard>) -> Result<Round> {
        let read = server::resume(call.request, needs, self.protocol, &self.limits)?;
        let carried = match &read.request_state {
            Some(token) => self.open(call, token)?.spend(guard)?,
            None => Carried::default(),
        };
        let mut fresh = read.responses;
        let Carried { round, mut answers, answered, asked, data, state, .. } = carried;
        let mut round = Round { number: round, ignored: read.ignored, data, state, ..Round::default() };
        for (key, need) in needs.as_object().into_iter().flatten() {
            let question = question_digest(need);
            let pinned = |pins: &Map<String, Value>| !self.pin_answers || pins.get(key) == Some(&question);
            // Without state there is no record of what was asked, so under
            // pins (`asked` is empty) a fresh answer counts for nothing.
            let (fresh, carried) = (fresh.remove(key), answers.remove(key));
            if fresh.is_some() && !pinned(&asked) {
                round.ignored.push(key.clone());
            }
            let answer = match (fresh, carried) {
                (Some(answer), _) if pinned(&asked) => Some(answer),
                (_, Some(answer)) if pinned(&answered) && server::fits(key, &answer, need) => Some(answer),
                _ => None,
            };
            match answer {
                Some(answer) => {
                    round.answers.insert(key.clone(), answer);
                }
                None => round.missing.push(key.clone()),
            }
        }
        Ok(round)
    }

    /// Answers `call`'s request with `input_required`: the input requests of
    /// `needs` that `round` still misses, and sealed state carrying the
    /// round's number, `round.answers` (each pinned to its question) and
    /// `data`.
    pub fn respond<R: rand_core::CryptoRng + ?Sized>(
        &self,
        call: &Call<'_>,
        round: &Round,
        needs: &Value,
        data: Option<Value>,
        rng: &mut R,
    ) -> Result<Value> {
        self.seal_round(call, round, needs, data, false, rng)
    }

    /// [`respond`](Self::respond), sealing the [`answer_shape`] of each
    /// question asked too when `with_shapes`.
    fn seal_round<R: rand_core::CryptoRng + ?Sized>(
        &self,
        call: &Call<'_>,
        round: &Round,
        needs: &Value,
        data: Option<Value>,
        with_shapes: bool,
        rng: &mut R,
    ) -> Result<Value> {
        let needs_map = needs.as_object();
        let pins = |keys: &mut dyn Iterator<Item = &String>| -> Map<String, Value> {
            keys.filter_map(|k| needs_map?.get(k).map(|need| (k.clone(), question_digest(need)))).collect()
        };
        let asked: Map<String, Value> = needs_map
            .map(|n| n.iter().filter(|(k, _)| round.missing.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let mut payload = json!({
            "round": round.number.saturating_add(1),
            "answers": round.answers,
            "answered": pins(&mut round.answers.keys()),
            "asked": pins(&mut asked.keys()),
            "data": data,
        });
        if with_shapes {
            let shapes: Map<String, Value> = asked.iter().map(|(k, q)| (k.clone(), answer_shape(q))).collect();
            payload["shapes"] = Value::Object(shapes);
        }
        let payload = serde_json::to_vec(&payload).map_err(|_| err!(StateMalformed, "the state does not serialize"))?;
        let token = self.ring.seal_as(Purpose::Rounds, call, call.now, self.ttl, &payload, rng)?;
        let asked = (!asked.is_empty()).then_some(Value::Object(asked));
        server::respond(call.request, asked.as_ref(), Some(&Value::String(token)), self.protocol, &self.limits)
    }

    /// Opens `token` (integrity, key, expiry, binding) without spending it:
    /// the caller validates what it can, then [`Carried::spend`]s it.
    fn open(&self, call: &Call<'_>, token: &str) -> Result<Carried> {
        if call.binding.protocol != self.protocol {
            return Err(err!(UsageInvalidArgument, "the call is bound under another protocol than these rounds"));
        }
        let opened = self.ring.open_as(Purpose::Rounds, token.as_bytes(), call, call.now, None)?;
        let mut sealed: Value = serde_json::from_slice(&opened.payload)
            .map_err(|_| err!(StateMalformed, "the sealed state is not JSON"))?;
        let mut object = |k: &str| match sealed.get_mut(k).map(Value::take) {
            Some(Value::Object(o)) => Ok(o),
            _ => Err(err!(StateMalformed, "the sealed state lacks {k}")),
        };
        let (answers, answered, asked) = (object("answers")?, object("answered")?, object("asked")?);
        // States sealed before shapes were kept have none: their answers are checked at each ask.
        let shapes = object("shapes").unwrap_or_default();
        let round = sealed.get("round").and_then(Value::as_u64).and_then(|r| u32::try_from(r).ok());
        let round = round.ok_or_else(|| err!(StateMalformed, "the sealed state has no round number"))?;
        let data = sealed.get_mut("data").map(Value::take).filter(|d| !d.is_null());
        let state = Some(StateInfo { id: opened.id, expiry: opened.expiry });
        Ok(Carried { round, answers, answered, asked, shapes, data, state })
    }
}

impl Carried {
    /// Spends the state this was opened from with `guard` (`state-replayed`
    /// when it was used before). Asked last, once the request is known to be
    /// valid, so that a refused request never uses up its state.
    fn spend(self, guard: Option<&mut dyn ReplayGuard>) -> Result<Carried> {
        match (guard, &self.state) {
            (Some(guard), Some(state)) => state::spend(guard, &state.id, state.expiry).map(|()| self),
            _ => Ok(self),
        }
    }
}

/// What an answer to `question` must fit, and no more: its method, and a form
/// elicitation's mode and `requestedSchema` (`input::validate_response` reads
/// nothing else). Small, unlike a sampling request's messages.
fn answer_shape(question: &Value) -> Value {
    let params = question.get("params");
    let kept = |k: &str| params.and_then(|p| p.get(k)).map(|v| (String::from(k), v.clone()));
    let params: Map<String, Value> = ["mode", "requestedSchema"].into_iter().filter_map(kept).collect();
    json!({"method": question.get("method"), "params": params})
}

/// The pin of a question: the first 16 bytes of the SHA-256 of its canonical
/// JSON, as hex.
fn question_digest(need: &Value) -> Value {
    let digest = state::value_digest(need);
    Value::String(digest[..16].iter().map(|b| alloc::format!("{b:02x}")).collect())
}
