//! The reverse bridge (`--upstream-protocol 2025-11-25`): MRTR clients
//! (`2026-07-28`) in front of a server that speaks only `2025-11-25`.
//!
//! Towards the client it is a stateless `2026-07-28` Streamable HTTP server:
//! every request checked by the core (`server::check_request`: `_meta`, the
//! mirrored header fields, the version), `server/discover` answered from
//! upstream's `initialize`, `ping` here, every other request relayed
//! upstream and its result marked complete (`server::complete`).
//!
//! Towards upstream it is a `2025-11-25` client ([`upstreams`]: a session per
//! declaration). A `tools/call`, `prompts/get` or `resources/read` becomes a
//! call ([`calls`]) whose upstream stream stays open: when upstream asks on
//! it (elicitation, sampling, roots), the client is answered `input_required`
//! with those questions in `2026-07-28`'s words and a sealed `requestState`
//! ([`sealing`]) naming this instance and the parked call; the client's retry
//! is routed back to that call, its `inputResponses` POSTed upstream as the
//! answers to the server requests, and the next round or the final result
//! returned. A retry that lands on another instance, or whose call is gone,
//! is refused with the rule that says why.

mod calls;
mod pump;
mod sealing;
mod upstreams;

use crate::endpoint::Out;
use crate::Shared;
use bytes::Bytes;
use calls::{Calls, Outcome, Turn};
use http::{header, HeaderMap, HeaderValue, Method, Request, Response, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use mrtr::http::serve::{read_request, Incoming as Asks};
use mrtr::http::Mode;
use mrtr::{server, Error, Protocol, RuleId};
use sealing::Sealer;
use serde_json::{json, Map, Value};
use std::convert::Infallible;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::oneshot;
use upstreams::{Owner, Upstreams, META_2026};

/// The protocol the client speaks.
const CLIENT: Protocol = Protocol::V2026_07_28;

/// What the reverse bridge holds: its key ring and name, the calls under
/// way, the upstream sessions.
pub(crate) struct Reverse {
    sealer: Sealer,
    calls: Calls,
    upstreams: Upstreams,
    /// Whether clients without a credential share upstream sessions by
    /// declaration (`--share-upstream-sessions`), or each request has its own.
    share_sessions: bool,
}

impl Reverse {
    /// A reverse bridge sealing with `key_file`'s key (or a random one),
    /// named `instance` (or at random), carrying at most `max` calls
    /// (`max_per_peer` of one client address) and holding at most `max`
    /// upstream sessions (`share_sessions`: see [`Owner`]).
    pub(crate) fn new(
        key_file: Option<&Path>,
        instance: Option<String>,
        (max, max_per_peer): (usize, usize),
        share_sessions: bool,
    ) -> std::io::Result<Reverse> {
        let sealer = Sealer::new(key_file, instance)?;
        let calls = Calls::new(max, max_per_peer);
        Ok(Reverse { sealer, calls, upstreams: Upstreams::new(max), share_sessions })
    }

    /// Calls under way (running or parked between rounds).
    pub(crate) fn calls(&self) -> usize {
        self.calls.len()
    }

    /// Upstream sessions open.
    pub(crate) fn sessions(&self) -> usize {
        self.upstreams.len()
    }
}

/// A JSON body with its status, or a status alone.
enum Reply {
    Json(StatusCode, Value),
    Status(StatusCode),
}

/// The core's error response for `error` under `id`; `limit-exceeded` (a
/// bound of the bridge's) as 503, for the client to come back later.
fn refusal(id: &Value, error: &Error) -> Reply {
    let (body, status) = server::error_response(id, error);
    let status = match error.rule() {
        RuleId::LimitExceeded => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
    };
    Reply::Json(status, body)
}

/// Serves one HTTP request of the client.
pub(crate) async fn handle(
    req: Request<Incoming>,
    shared: Arc<Shared>,
    peer: IpAddr,
) -> Result<Response<Out>, Infallible> {
    let side = &shared.downstream;
    let (parts, body) = req.into_parts();
    if let Err(refusal) = shared.web.check(&parts.method, &parts.headers) {
        return Ok(crate::endpoint::web_refusal(&shared, &refusal));
    }
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("http://{}{path}", shared.listen);
    let bytes = match read_body(&shared, body).await {
        Ok(bytes) => bytes,
        Err(status) => return Ok(plain(status)),
    };
    let exchange = side.exchange();
    side.request(&exchange, parts.method.as_str(), &url, &parts.headers, &bytes);
    let reply = match parts.method {
        Method::POST => post(&shared, &parts.headers, &url, &bytes, peer).await,
        _ => Reply::Status(StatusCode::METHOD_NOT_ALLOWED),
    };
    Ok(send(&shared, &exchange, reply))
}

/// The request body, whole, within the time and byte bounds.
async fn read_body(shared: &Shared, body: Incoming) -> Result<Bytes, StatusCode> {
    let limit = shared.downstream.limits().max_message_bytes;
    let collected = tokio::time::timeout(shared.timeout, Limited::new(body, limit).collect()).await;
    match collected {
        Err(_) => Err(StatusCode::REQUEST_TIMEOUT),
        Ok(Ok(collected)) => {
            let bytes = collected.to_bytes();
            match mrtr_proxy::parsed::check_client_body(&bytes, limit) {
                Ok(()) => Ok(bytes),
                Err(e) => {
                    shared.downstream.bad_bytes(mrtr::check::Side::Client, &e);
                    Err(StatusCode::PAYLOAD_TOO_LARGE)
                }
            }
        }
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            let why = format!("a request body over the bound of {limit} bytes");
            shared.downstream.bad_bytes(mrtr::check::Side::Client, &Error::with(RuleId::LimitExceeded, why));
            Err(StatusCode::PAYLOAD_TOO_LARGE)
        }
        Ok(Err(_)) => Err(StatusCode::BAD_REQUEST),
    }
}

/// A response with no body but its status (a body that never became an entry).
fn plain(status: StatusCode) -> Response<Out> {
    let mut response = Response::new(Full::new(Bytes::new()).boxed_unsync());
    *response.status_mut() = status;
    response
}

/// The reply as an HTTP response, its entry fed to the client side's checker.
fn send(shared: &Shared, exchange: &str, reply: Reply) -> Response<Out> {
    let side = &shared.downstream;
    let (status, body) = match reply {
        Reply::Status(status) => (status, None),
        Reply::Json(status, body) => (status, Some(Bytes::from(body.to_string()))),
    };
    let mut response = Response::new(Full::new(body.clone().unwrap_or_default()).boxed_unsync());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    if body.is_some() {
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    if status == StatusCode::METHOD_NOT_ALLOWED {
        headers.insert(header::ALLOW, HeaderValue::from_static("POST"));
    }
    side.response(exchange, status.as_u16(), response.headers(), body.as_deref(), true);
    response
}

/// Header fields as the core reads them: lower-case names, text values.
fn fields(headers: &HeaderMap) -> Vec<(String, String)> {
    headers.iter().map(|(n, v)| (n.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned())).collect()
}

/// A POST: what it asks, read and checked by the core, then served.
async fn post(shared: &Arc<Shared>, headers: &HeaderMap, url: &str, body: &[u8], peer: IpAddr) -> Reply {
    let limits = shared.downstream.limits();
    let fields = fields(headers);
    let request = match read_request(Mode::Streamable, "POST", url, &fields, body, CLIENT, &limits) {
        Err(e) => return refusal(&Value::Null, &e),
        Ok(Asks::Call(request)) => request,
        Ok(_) => return Reply::Status(StatusCode::ACCEPTED), // notifications, stray answers
    };
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    if let Err(e) = server::check_request(&request, Some(&fields), &[CLIENT.name()], CLIENT) {
        return refusal(&id, &e);
    }
    let Some(reverse) = &shared.reverse else { return Reply::Status(StatusCode::INTERNAL_SERVER_ERROR) };
    let owner = Owner::of(headers, reverse.share_sessions);
    let method = request["method"].as_str().unwrap_or_default();
    match method {
        "ping" => complete(&request, &json!({})),
        "server/discover" => discover(shared, &request, &owner).await,
        m if CLIENT.rules().allow_list.contains(&m) => call(shared, &request, &owner, peer).await,
        _ => relay(shared, &request, &owner).await,
    }
}

/// `result` as the final answer to `request` (`resultType: "complete"`, the
/// caching hints `2026-07-28` requires).
fn complete(request: &Value, result: &Value) -> Reply {
    match server::complete(request, result, CLIENT) {
        Ok(body) => Reply::Json(StatusCode::OK, body),
        Err(e) => refusal(&request["id"], &e),
    }
}

/// Upstream's final response to `request`, under the client's id: a result
/// completed, a JSON-RPC error passed on (never with a 2xx status).
fn finished(request: &Value, response: &Value) -> Reply {
    if let Some(result) = response.get("result") {
        return complete(request, result);
    }
    let error = response.get("error").cloned().unwrap_or_else(|| json!({"code": -32603, "message": "no result"}));
    let status = match error["code"].as_i64() {
        Some(-32601) => StatusCode::NOT_FOUND,
        Some(-32603) => StatusCode::INTERNAL_SERVER_ERROR,
        _ => StatusCode::BAD_REQUEST,
    };
    Reply::Json(status, json!({"jsonrpc": "2.0", "id": request["id"], "error": error}))
}

/// `request` as upstream gets it: a fresh id (the client's ids are unique
/// only to the client, and many clients share a session), no MRTR carriers,
/// no `2026-07-28` `_meta` keys (a `2025-11-25` server has them from `initialize`).
fn to_upstream(request: &Value) -> Value {
    let mut upstream = request.clone();
    upstream["id"] = crate::sessions::random_id().map_or(Value::Null, Value::String);
    if let Some(params) = upstream.get_mut("params").and_then(Value::as_object_mut) {
        params.remove("inputResponses");
        params.remove("requestState");
        if let Some(meta) = params.get_mut("_meta").and_then(Value::as_object_mut) {
            META_2026.iter().for_each(|k| drop(meta.remove(*k)));
            if meta.is_empty() {
                params.remove("_meta");
            }
        }
    }
    upstream
}

/// `server/discover`: upstream's `initialize` result, in `2026-07-28`'s words.
async fn discover(shared: &Arc<Shared>, request: &Value, owner: &Owner) -> Reply {
    let Some(reverse) = &shared.reverse else { return Reply::Status(StatusCode::INTERNAL_SERVER_ERROR) };
    let upstream = match reverse.upstreams.get(shared, request, owner).await {
        Ok(u) => u,
        Err(e) => return refusal(&request["id"], &e),
    };
    let init = &upstream.init;
    let mut result = json!({"supportedVersions": [CLIENT.name()],
                            "capabilities": init.get("capabilities").filter(|c| c.is_object()).unwrap_or(&json!({}))});
    for field in ["serverInfo", "instructions"] {
        if let Some(value) = init.get(field) {
            result[field] = value.clone();
        }
    }
    complete(request, &result)
}

/// A request that asks nothing of the client, relayed in its session (in
/// a new one, once, when upstream forgot it: nothing ran there).
async fn relay(shared: &Arc<Shared>, request: &Value, owner: &Owner) -> Reply {
    let Some(reverse) = &shared.reverse else { return Reply::Status(StatusCode::INTERNAL_SERVER_ERROR) };
    let mut tries = 0;
    loop {
        let upstream = match reverse.upstreams.get(shared, request, owner).await {
            Ok(u) => u,
            Err(e) => return refusal(&request["id"], &e),
        };
        match pump::relay(shared.clone(), to_upstream(request), upstream.headers()).await {
            Ok((response, _)) => return finished(request, &response),
            Err(failure) if failure.session_gone && tries == 0 => reverse.upstreams.forget(&upstream),
            Err(failure) => return refusal(&request["id"], &failure.error),
        }
        tries += 1;
    }
}

/// A call that may ask: a new one, or a retry of a parked one.
async fn call(shared: &Arc<Shared>, request: &Value, owner: &Owner, peer: IpAddr) -> Reply {
    let Some(reverse) = &shared.reverse else { return Reply::Status(StatusCode::INTERNAL_SERVER_ERROR) };
    if let Some(state) = request["params"].get("requestState") {
        return retry(shared, reverse, request, state).await;
    }
    let mut tries = 0;
    loop {
        let upstream = match reverse.upstreams.get(shared, request, owner).await {
            Ok(u) => u,
            Err(e) => return refusal(&request["id"], &e),
        };
        let (key, outcome) = calls::start(shared, to_upstream(request), upstream.clone(), peer).await;
        match outcome {
            // Upstream forgot the session before the call ran: once more, in a new one.
            Outcome::SessionGone(_) if tries == 0 => reverse.upstreams.forget(&upstream),
            outcome => return answer(shared, reverse, request, key.as_deref(), outcome),
        }
        tries += 1;
    }
}

/// A retry: its state opened (the core's refusals), then routed to the call
/// it names, here.
async fn retry(shared: &Arc<Shared>, reverse: &Reverse, request: &Value, state: &Value) -> Reply {
    let id = &request["id"];
    let Some(token) = state.as_str() else {
        return refusal(id, &Error::with(RuleId::StateMalformed, "requestState is a string".into()));
    };
    let claim = match reverse.sealer.open(request, token) {
        Ok(claim) => claim,
        Err(e) => return refusal(id, &e),
    };
    if claim.instance != reverse.sealer.instance {
        return refusal(id, &elsewhere(&claim.instance, &reverse.sealer.instance));
    }
    let Some(turns) = reverse.calls.get(&claim.call) else { return refusal(id, &calls::gone()) };
    let answers = request["params"].get("inputResponses").and_then(Value::as_object).cloned().unwrap_or_default();
    let (reply, outcome) = oneshot::channel();
    let turn = Turn { round: claim.round, answers, reply };
    if turns.send_timeout(turn, shared.timeout).await.is_err() {
        return refusal(id, &calls::gone());
    }
    let outcome = outcome.await.unwrap_or_else(|_| Outcome::Failed(calls::gone()));
    answer(shared, reverse, request, Some(&claim.call), outcome)
}

/// The refusal of a state another instance sealed: `state-wrong-request`,
/// since the state is genuine (the shared key opened it) but names a call
/// this instance never carried; the client learns that its call is parked
/// on another instance, and an operator that the balancer must route a
/// call's retries to the instance that sealed its state.
fn elsewhere(sealed_by: &str, this: &str) -> Error {
    let why = format!(
        "requestState was sealed by bridge instance {sealed_by:?}, where its call is parked; this is instance \
         {this:?} (route a call's retries to the instance that sealed its state)"
    );
    Error::with(RuleId::StateWrongRequest, why)
}

/// The client's answer to what upstream came to.
fn answer(shared: &Arc<Shared>, reverse: &Reverse, request: &Value, key: Option<&str>, outcome: Outcome) -> Reply {
    match (outcome, key) {
        (Outcome::Ask(questions, round), Some(key)) => {
            match ask(shared, reverse, request, key, &questions, round) {
                Ok(reply) => reply,
                Err(e) => {
                    reverse.calls.cancel(key); // nobody can retry it: end it now, not at the timeout
                    refusal(&request["id"], &e)
                }
            }
        }
        (Outcome::Done(response), _) => finished(request, &response),
        (Outcome::Failed(e) | Outcome::SessionGone(e), _) => refusal(&request["id"], &e),
        (Outcome::Ask(..), None) => refusal(&request["id"], &calls::gone()),
    }
}

/// `input_required`: upstream's questions in `2026-07-28`'s words, and the
/// sealed claim on the call's round (valid as long as the call stays parked).
fn ask(
    shared: &Arc<Shared>,
    reverse: &Reverse,
    request: &Value,
    key: &str,
    questions: &Map<String, Value>,
    round: u32,
) -> Result<Reply, Error> {
    let asked: Map<String, Value> = questions.iter().map(|(k, q)| (k.clone(), in_2026(q))).collect();
    let ttl = u32::try_from(shared.timeout.as_secs().max(1)).unwrap_or(u32::MAX);
    let state = reverse.sealer.seal(request, key, round, ttl)?;
    let limits = shared.downstream.limits();
    let body = server::respond(request, Some(&Value::Object(asked)), Some(&Value::String(state)), CLIENT, &limits)?;
    Ok(Reply::Json(StatusCode::OK, body))
}

/// A server request's question as an input request of `2026-07-28`
/// (`{"method", "params"}`; a URL-mode elicitation without the
/// `elicitationId` `2026-07-28` forbids).
fn in_2026(question: &Value) -> Value {
    let request = server::stream_request(&Value::Null, question, CLIENT, "");
    let mut asked = json!({"method": request["method"]});
    if let Some(params) = request.get("params") {
        asked["params"] = params.clone();
    }
    asked
}
