//! One server instance behind the balancer: the `plan` tool replayed over
//! sealed rounds on every request, as `deploy/cluster/instance.py` serves
//! its `mrtr` mode, with nothing of a call in its memory.
//!
//! Per request: read it ([`read_request`]), check it ([`check_request`]);
//! a final round already completed is answered from the store (its
//! completion key is the state id of its `requestState`, read with
//! [`state::inspect`] without opening it); otherwise the tool is replayed
//! ([`Replay::start`] opens the state and spends it with the store's
//! [`ReplayGuard`]), and asks again ([`Replay::input_required`]) or
//! completes: the final response committed once per completion key with its
//! side effect ([`Store::commit`], the cluster's `commit.lua`).

use crate::net::HttpResponse;
use crate::schedule::{FaultKind, Faults};
use crate::store::{Commit, Store};
use crate::tool::{self, Step};
use mrtr::http::serve::{read_request, Incoming, ServerStream};
use mrtr::http::{header, Mode};
use mrtr::round::replay::Replay;
use mrtr::round::SealedRounds;
use mrtr::server::{check_request, complete, error_response};
use mrtr::state::{self, Algorithm, Key, KeyRing, ReplayGuard, SeedRng, StateId, Subject};
use mrtr::{Error, Limits, Millis, Protocol};
use serde_json::Value;

/// The protocol every instance serves.
pub const PROTOCOL: Protocol = Protocol::V2026_07_28;
/// Its version string, as requests name it.
pub const VERSION: &str = "2026-07-28";
/// How long a sealed round lives, in seconds (the cluster's 300; some runs
/// take a few seconds, so that faults make states expire).
pub const STATE_TTL: u32 = 300;
/// The Unix time at simulated millisecond 0.
pub const EPOCH: u64 = 1_800_000_000;

/// Which server the instances run. Only [`Flavor::Correct`] is the
/// cluster's; the others are broken on purpose, to show that the
/// invariants catch a server that gets single use wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// The replay guard and the completion store.
    Correct,
    /// Neither: every request runs the tool, every completion runs the side effect.
    Unguarded,
    /// Correct, but the final response names another id than the request's.
    WrongId,
    /// Correct, and every round's answer is kept under the state id of its
    /// request, not only the final one: a round sent again after its state
    /// was spent gets the answer its first copy got, where the others refuse
    /// it `state-replayed`. (Not the cluster's; measured against it.)
    Memo,
}

impl Flavor {
    fn guarded(self) -> bool {
        self != Flavor::Unguarded
    }
}

/// What the world lends an instance for one request.
pub struct Env<'a> {
    /// The shared store.
    pub store: &'a mut Store,
    /// The fault schedule.
    pub faults: &'a mut Faults,
    /// Randomness that is no fault: nonces, response shapes.
    pub rng: &'a mut fastrand::Rng,
    /// Simulated ms.
    pub now: u64,
    /// The server that runs.
    pub flavor: Flavor,
    /// The connection the request came on (`None`: a duplicate's copy, whose answer goes nowhere).
    pub conn: Option<u64>,
}

/// What one replay of the tool came to.
#[derive(Debug)]
pub enum Ran {
    /// The next round: the `input_required` response.
    Asked(Value),
    /// Every answer was there: the tool's result.
    Completed(Value),
    /// The instance died (the kind says where).
    Crashed(FaultKind),
}

/// More text for a stream an instance holds open (the legacy design).
#[derive(Debug)]
pub struct Push {
    /// The stream's connection.
    pub conn: u64,
    /// Event-stream text.
    pub text: String,
    /// Whether the stream ends after it.
    pub end: bool,
}

/// What became of one request.
#[derive(Debug)]
pub enum Served {
    /// The response to send.
    Reply(HttpResponse),
    /// The head and first text of a stream the instance goes on writing.
    Open(HttpResponse),
    /// The response to send, and text for streams the instance holds.
    Push {
        /// The response to this request.
        reply: HttpResponse,
        /// What goes on other streams.
        pushes: Vec<Push>,
    },
    /// The instance died while serving it (the kind says where).
    Crashed(FaultKind),
}

/// The key secrets of a run: generation `g` seals with key `g`; every ring
/// holds all of them, so a state sealed before a rotation still opens after it.
pub fn secrets(rng: &mut fastrand::Rng, count: u8) -> Vec<[u8; 32]> {
    (0..count)
        .map(|_| {
            let mut secret = [0u8; 32];
            rng.fill(&mut secret);
            secret
        })
        .collect()
}

/// One instance.
#[derive(Debug)]
pub struct Instance {
    /// Its name in traces (`i0`, `i1`, …).
    pub name: String,
    /// The key generation it seals with (1-based).
    pub generation: u8,
    /// Bumped at every crash: a response an earlier life began is cut.
    pub incarnation: u64,
    /// Down (crashed) until then; `0`: up.
    pub down_until: u64,
    /// Hung until then: requests queue.
    pub hung_until: u64,
    /// How far its clock is off the simulation's, in ms (a fault).
    pub skew_ms: i64,
    /// How long the states it seals live, in seconds.
    pub ttl: u32,
    ring: KeyRing,
    served: u64,
    /// (Legacy) The calls it holds, each on its open stream.
    pub(crate) streams: Vec<crate::legacy::Stream>,
}

impl Instance {
    /// An instance sealing with generation `generation` of `keys`.
    pub fn new(index: usize, keys: &[[u8; 32]], generation: u8) -> Instance {
        Instance {
            name: format!("i{index}"),
            generation,
            incarnation: 0,
            down_until: 0,
            hung_until: 0,
            skew_ms: 0,
            ttl: STATE_TTL,
            ring: ring(keys, generation),
            served: 0,
            streams: Vec::new(),
        }
    }

    /// Starts again, sealing with generation `generation`.
    pub fn rotate(&mut self, keys: &[[u8; 32]], generation: u8) {
        self.generation = generation;
        self.ring = ring(keys, generation);
    }

    /// Its clock at simulated `now`: Unix seconds.
    pub fn unix(&self, now: u64) -> u64 {
        EPOCH + now.saturating_add_signed(self.skew_ms) / 1000
    }

    /// Whether it is alive at `now` (hung counts as alive: a balancer cannot tell).
    pub fn is_up(&self, now: u64) -> bool {
        now >= self.down_until
    }

    /// Serves one HTTP request.
    pub fn serve(&mut self, req: &crate::net::HttpRequest, env: &mut Env<'_>) -> Served {
        self.served += 1;
        if let Some(mode) = crate::sep::mode_of(&req.url) {
            return self.sep(req, mode, env);
        }
        if req.url.ends_with(crate::client::LEGACY_PATH) {
            return self.legacy(req, env);
        }
        if req.method != "POST" {
            // Stateless: no stream is kept to resume.
            return Served::Reply(HttpResponse::empty(405));
        }
        let body = req.body.as_deref().unwrap_or_default().as_bytes();
        let incoming =
            read_request(Mode::Streamable, req.method, &req.url, &req.headers, body, PROTOCOL, &Limits::DEFAULT);
        let request = match incoming {
            Ok(Incoming::Call(request)) => request,
            Ok(_) => return Served::Reply(HttpResponse::empty(202)),
            Err(e) => return Served::Reply(refusal(&Value::Null, &e)),
        };
        if let Err(e) = check_request(&request, Some(&req.headers), &[VERSION], PROTOCOL) {
            return Served::Reply(refusal(&request["id"], &e));
        }
        if let Some(away) = self.store_away(env) {
            return Served::Reply(away);
        }
        let principal = bearer(&req.headers).unwrap_or("anonymous").to_string();
        let served = if req.url.ends_with(crate::client::TASKS_PATH) {
            self.tasks(&request, &principal, env)
        } else {
            self.call(&request, &principal, env)
        };
        match served {
            Ok(Served::Reply(r)) => Served::Reply(r),
            Ok(crashed) => crashed,
            Err(e) => Served::Reply(refusal(&request["id"], &e)),
        }
    }

    /// `503` (`Retry-After: 1`) when the store does not answer, which a
    /// store restart (a fault) may begin now.
    pub(crate) fn store_away(&self, env: &mut Env<'_>) -> Option<HttpResponse> {
        let name = &self.name;
        if env.faults.roll(FaultKind::StoreRestart, env.now, || format!("store (seen by {name})")) {
            let away = env.rng.u64(200..=2000);
            env.store.restart(env.now + away);
        }
        if env.store.is_up(env.now) {
            return None;
        }
        let mut away = HttpResponse::empty(503);
        away.headers.push(("retry-after".into(), "1".into()));
        Some(away)
    }

    /// The MRTR part: completed before, or the tool replayed.
    fn call(&mut self, request: &Value, principal: &str, env: &mut Env<'_>) -> mrtr::Result<Served> {
        let token = request["params"]["requestState"].as_str();
        let completion = token.and_then(|t| state::inspect(t).ok()).map(|info| info.id.to_string());
        if env.flavor.guarded() {
            if let Some(stored) = completion.as_deref().and_then(|key| env.store.completed(key)) {
                let response = answered_before(request, stored)?;
                return Ok(Served::Reply(self.reply(&response, env)));
            }
        }
        let result = match self.replay(request, principal, env.flavor.guarded(), env)? {
            Ran::Crashed(kind) => return Ok(Served::Crashed(kind)),
            Ran::Asked(asked) => {
                if let (Flavor::Memo, Some(key)) = (env.flavor, &completion) {
                    env.store.remember(key, &asked);
                }
                return Ok(Served::Reply(self.reply(&asked, env)));
            }
            Ran::Completed(result) => result,
        };
        let op = request["params"]["arguments"]["op"].as_str().unwrap_or("?");
        let response = complete(request, &result, PROTOCOL)?;
        let committed = match env.flavor {
            Flavor::Unguarded => {
                env.store.count_effect(op);
                response
            }
            Flavor::Correct | Flavor::WrongId | Flavor::Memo => {
                // A tool that completes on a first request has no state: a key of its own.
                let key = completion.unwrap_or_else(|| format!("{}-{}", request["id"], env.rng.u64(..)));
                match env.store.commit(&key, response, op) {
                    Commit::Committed(r) | Commit::Before(r) => r,
                }
            }
        };
        if self.crashes(FaultKind::CrashAfterEffect, request, env) {
            return Ok(Served::Crashed(FaultKind::CrashAfterEffect));
        }
        let mut response = complete(request, &committed["result"], PROTOCOL)?;
        if env.flavor == Flavor::WrongId {
            response["id"] = Value::String(format!("{}-x", request["id"]));
        }
        Ok(Served::Reply(self.reply(&response, env)))
    }

    /// One replay of the tool on `request` from `principal`: its state
    /// opened (and spent, when `guarded`), the instance maybe dead right
    /// after, then the next round asked or the tool's result (no side effect
    /// yet: the caller commits it).
    pub(crate) fn replay(
        &mut self,
        request: &Value,
        principal: &str,
        guarded: bool,
        env: &mut Env<'_>,
    ) -> mrtr::Result<Ran> {
        let rounds = SealedRounds::new(&self.ring, self.ttl, PROTOCOL, Limits::DEFAULT);
        let call = rounds.call(request, Subject::principal(principal)?, Millis::from_secs(self.unix(env.now)))?;
        let mut replay = {
            let store = &mut *env.store;
            let mut guard = |id: &StateId, expiry: u64| store.first_use(id, expiry);
            let guard = guarded.then_some(&mut guard as &mut dyn ReplayGuard);
            Replay::start(&rounds, &call, guard)?
        };
        let stateful = request["params"].get("requestState").is_some();
        if stateful && self.crashes(FaultKind::CrashBeforeEffect, request, env) {
            return Ok(Ran::Crashed(FaultKind::CrashBeforeEffect));
        }
        match tool::plan(&mut replay, &request["params"]["arguments"])? {
            Step::Ask => {
                let mut nonce = [0u8; SeedRng::MIN_BYTES];
                env.rng.fill(&mut nonce);
                Ok(Ran::Asked(replay.input_required(&rounds, &call, None, &mut SeedRng::Bytes(&nonce))?))
            }
            Step::Done(result) => Ok(Ran::Completed(result)),
        }
    }

    /// Whether the instance dies here (a fault of `kind`) while serving `request`.
    pub(crate) fn crashes(&self, kind: FaultKind, request: &Value, env: &mut Env<'_>) -> bool {
        env.faults.roll(kind, env.now, || format!("{} serving {}", self.name, request["id"]))
    }

    /// `message` as JSON or as an event stream (each half the time).
    pub(crate) fn reply(&self, message: &Value, env: &mut Env<'_>) -> HttpResponse {
        if env.rng.bool() {
            return HttpResponse::with_body(200, "application/json", message.to_string());
        }
        let key = format!("{}-{}", self.name, self.served);
        let streamed = ServerStream::new(Mode::Streamable, &key, 1).and_then(|mut s| {
            s.message(message)?;
            Ok((s.head(None), s.take()))
        });
        match streamed {
            Ok((headers, body)) => HttpResponse { status: 200, headers, body: body.into_bytes() },
            Err(e) => refusal(&message["id"], &e),
        }
    }
}

/// The answer kept for a round sent before, addressed to `request`: a final
/// result completed again (under the request's id, never cached), or the
/// `input_required` answer as it was, under the request's id.
fn answered_before(request: &Value, stored: &Value) -> mrtr::Result<Value> {
    if stored["result"]["resultType"] == "input_required" {
        let mut again = stored.clone();
        again["id"] = request["id"].clone();
        return Ok(again);
    }
    complete(request, &stored["result"], PROTOCOL)
}

fn ring(secrets: &[[u8; 32]], generation: u8) -> KeyRing {
    let key = |i: usize| Key::new(i as u8 + 1, Algorithm::Xaes256Gcm, &secrets[i]);
    let current = usize::from(generation.max(1) - 1).min(secrets.len() - 1);
    let mut ring = KeyRing::new(key(current));
    for i in (0..secrets.len()).filter(|i| *i != current) {
        ring.add(key(i));
    }
    ring
}

/// The principal an `authorization: Bearer <name>` field names.
fn bearer(headers: &[(String, String)]) -> Option<&str> {
    header(headers, "authorization")?.strip_prefix("Bearer ")
}

/// The JSON-RPC error response of a refusal, with its status.
fn refusal(id: &Value, error: &Error) -> HttpResponse {
    let (body, status) = error_response(id, error);
    HttpResponse::with_body(status, "application/json", body.to_string())
}
