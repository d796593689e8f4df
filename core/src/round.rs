//! A server's rounds with sealed state, so that a tool author never handles a
//! token.
//!
//! [`SealedRounds::resume`] reads a request: the answers it carries, plus the
//! answers earlier rounds collected, which travel in the sealed `requestState`
//! (001 "Use Case 1: Rolling Upgrades": a newer server version keeps the
//! `github_login` answer an older one got, and asks only what it still
//! lacks). [`SealedRounds::respond`] asks for what is missing and seals what
//! was collected, bound to the principal and the request, with an expiry.

use crate::{
    error::{err, Result},
    server,
    state::{Binding, KeyRing},
    Limits, Protocol,
};
use alloc::{string::String, vec::Vec};
use serde_json::{json, Map, Value};

/// One server's settings for sealed rounds.
#[derive(Debug)]
pub struct SealedRounds<'k> {
    /// The keys.
    pub ring: &'k KeyRing,
    /// The authenticated principal of the request ("" when anonymous).
    pub subject: &'k str,
    /// Seconds since the Unix epoch, from the caller's clock.
    pub now: u64,
    /// How long a round may take, in seconds.
    pub ttl: u32,
    /// The protocol of the conversation.
    pub protocol: Protocol,
    /// Bounds on what is read.
    pub limits: Limits,
}

/// What a server knows after reading a request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Round {
    /// Every needed answer collected so far, this request's and earlier rounds', in the order of `needs`.
    pub answers: Map<String, Value>,
    /// Needed keys still without an answer.
    pub missing: Vec<String>,
    /// Keys this request answered that are not needed.
    pub ignored: Vec<String>,
    /// The tool's own data from the previous round, if it kept any.
    pub data: Option<Value>,
}

impl Round {
    /// Whether every needed answer is there.
    pub fn is_complete(&self) -> bool {
        self.missing.is_empty()
    }
}

impl SealedRounds<'_> {
    /// Reads `request` against what this server `needs` (an `inputRequests`
    /// object). Fails with the request's rule, or a `state-*` rule when its
    /// `requestState` does not open.
    pub fn resume(&self, request: &Value, needs: &Value) -> Result<Round> {
        let read = server::resume(request, needs, self.protocol, &self.limits)?;
        let (mut carried, data) = match &read.request_state {
            Some(token) => self.open(request, token)?,
            None => (Map::new(), None),
        };
        let (mut fresh, mut answers, mut missing) = (read.responses, Map::new(), Vec::new());
        for key in needs.as_object().into_iter().flat_map(|n| n.keys()) {
            match fresh.remove(key).or_else(|| carried.remove(key)) {
                Some(answer) => {
                    answers.insert(key.clone(), answer);
                }
                None => missing.push(key.clone()),
            }
        }
        Ok(Round { answers, missing, ignored: read.ignored, data })
    }

    /// Answers `request` with `input_required`: the input requests of `needs`
    /// that `round` still misses, and sealed state carrying `round.answers` and
    /// `data`.
    pub fn respond<R: rand_core::CryptoRng + ?Sized>(
        &self,
        request: &Value,
        round: &Round,
        needs: &Value,
        data: Option<Value>,
        rng: &mut R,
    ) -> Result<Value> {
        let asked: Map<String, Value> = needs
            .as_object()
            .map(|n| n.iter().filter(|(k, _)| round.missing.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default();
        let payload = json!({ "v": 1, "answers": round.answers, "data": data });
        let payload = serde_json::to_vec(&payload).map_err(|_| err!(StateMalformed, "the state does not serialize"))?;
        let binding = Binding::for_request(request, self.subject, self.protocol)?;
        let token = self.ring.seal(&binding, self.now, self.ttl, &payload, rng)?;
        let asked = (!asked.is_empty()).then_some(Value::Object(asked));
        server::respond(request, asked.as_ref(), Some(&Value::String(token)), self.protocol, &self.limits)
    }

    fn open(&self, request: &Value, token: &str) -> Result<(Map<String, Value>, Option<Value>)> {
        let binding = Binding::for_request(request, self.subject, self.protocol)?;
        let payload = self.ring.open(token, &binding, self.now)?;
        let mut state: Value =
            serde_json::from_slice(&payload).map_err(|_| err!(StateMalformed, "the sealed state is not JSON"))?;
        if state.get("v") != Some(&json!(1)) {
            return Err(err!(StateMalformed, "the sealed state has an unknown version"));
        }
        let answers = match state.get_mut("answers").map(Value::take) {
            Some(Value::Object(a)) => a,
            _ => return Err(err!(StateMalformed, "the sealed state carries no answers")),
        };
        let data = state.get_mut("data").map(Value::take).filter(|d| !d.is_null());
        Ok((answers, data))
    }
}
