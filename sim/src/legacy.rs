//! The legacy `2025-11-25` design on an instance, as `deploy/cluster/instance.py`
//! serves its `legacy` mode: the contrast. The call lives on the instance
//! that holds its POST's event stream: a [`Bridge`] in its memory writes each
//! round's server requests on that stream, and the answers, POSTed one each
//! to the endpoint, count only if the balancer sends them to that same
//! instance (found by `Mcp-Session-Id` and the server request's id); anywhere
//! else they are refused (`usage-unknown-handle`). A round not answered in
//! time ends the call with `limit-exceeded`; a crash loses every call the
//! instance held.
//!
//! The final response is committed with the side effect under a key of its
//! own (no single use: a call is never taken up twice, it is lost instead).

use crate::instance::{Env, Instance, Push, Served};
use crate::net::{HttpRequest, HttpResponse};
use crate::store::Commit;
use crate::tool::{self, Step};
use mrtr::http::serve::{read_request, Incoming, ServerStream};
use mrtr::http::{header, Mode};
use mrtr::round::bridge::Bridge;
use mrtr::server::error_response;
use mrtr::{sse, Error, Limits, Millis, Protocol, RuleId};
use serde_json::Value;

/// How long a round may wait for its answers (the cluster's 5 s is longer
/// than the client's patience here).
const ROUND_TIMEOUT_MS: u64 = 2000;

/// A call an instance holds: its stream, its session, its bridge.
#[derive(Debug)]
pub struct Stream {
    conn: Option<u64>,
    session: String,
    bridge: Bridge,
    request: Value,
}

impl Instance {
    /// Serves one HTTP request of the legacy endpoint.
    pub(crate) fn legacy(&mut self, req: &HttpRequest, env: &mut Env<'_>) -> Served {
        if req.method != "POST" {
            return Served::Reply(HttpResponse::empty(405));
        }
        let session = header(&req.headers, "mcp-session-id").unwrap_or_default().to_string();
        let body = req.body.as_deref().unwrap_or_default().as_bytes();
        let incoming = read_request(
            Mode::Legacy,
            req.method,
            &req.url,
            &req.headers,
            body,
            Protocol::V2025_11_25,
            &Limits::DEFAULT,
        );
        match incoming {
            Ok(Incoming::Call(request)) => self.legacy_call(request, session, env),
            Ok(Incoming::Messages(messages)) => self.legacy_answers(&messages, &session, env),
            Ok(_) => Served::Reply(HttpResponse::empty(405)),
            Err(e) => Served::Reply(refusal(&Value::Null, &e)),
        }
    }

    fn legacy_call(&mut self, request: Value, session: String, env: &mut Env<'_>) -> Served {
        let key = format!("{:016x}{:016x}", env.rng.u64(..), env.rng.u64(..));
        let mut bridge = match Bridge::new(&request, &key, Limits::DEFAULT) {
            Ok(b) => b,
            Err(e) => return Served::Reply(refusal(&request["id"], &e)),
        };
        bridge.round_timeout_ms = ROUND_TIMEOUT_MS;
        let text = turn(&mut bridge, &request, env);
        let head = ServerStream::new(Mode::Legacy, &key, 1).map(|s| s.head(None)).unwrap_or_default();
        let response = HttpResponse { status: 200, headers: head, body: text.into_bytes() };
        if bridge.is_done() {
            return Served::Reply(response);
        }
        self.streams.push(Stream { conn: env.conn, session, bridge, request });
        Served::Open(response)
    }

    /// Answers POSTed one each: to the call of this session that asked them, if this instance holds it.
    fn legacy_answers(&mut self, messages: &[Value], session: &str, env: &mut Env<'_>) -> Served {
        let mut pushes = Vec::new();
        for message in messages.iter().filter(|m| m.get("method").is_none()) {
            let id = mrtr::Id::text(&message["id"]);
            let held = self.streams.iter().position(|s| s.session == session && s.bridge.pending().any(|p| p == id));
            let Some(i) = held else {
                let e = Error::with(RuleId::UsageUnknownHandle, format!("no call of this session awaits {id:?} here"));
                return Served::Reply(refusal(&Value::Null, &e));
            };
            let stream = &mut self.streams[i];
            match stream.bridge.handle_answer(message, Millis(env.now)) {
                Ok(true) => {
                    let (request, conn) = (stream.request.clone(), stream.conn);
                    let text = turn(&mut self.streams[i].bridge, &request, env);
                    let end = self.streams[i].bridge.is_done();
                    pushes.extend(conn.map(|conn| Push { conn, text, end }));
                }
                Ok(false) => {}
                Err(e) => return Served::Reply(refusal(&Value::Null, &e)),
            }
        }
        self.streams.retain(|s| !s.bridge.is_done());
        Served::Push { reply: HttpResponse::empty(202), pushes }
    }

    /// The rounds that waited too long end their calls (`limit-exceeded`).
    pub fn legacy_tick(&mut self, now: u64) -> Vec<Push> {
        let mut pushes = Vec::new();
        for stream in &mut self.streams {
            stream.bridge.handle_timeout(Millis(now));
            let text = writes(&mut stream.bridge);
            if let (false, Some(conn)) = (text.is_empty(), stream.conn) {
                pushes.push(Push { conn, text, end: stream.bridge.is_done() });
            }
        }
        self.streams.retain(|s| !s.bridge.is_done());
        pushes
    }

    /// When the next round's wait ends, if a round waits.
    pub fn legacy_next_tick(&self) -> Option<u64> {
        self.streams.iter().filter_map(|s| s.bridge.poll_timeout()).min().map(|t| t.0)
    }

    /// The instance died: every call it held is lost; their connections.
    pub fn drop_streams(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.streams).into_iter().filter_map(|s| s.conn).collect()
    }
}

/// One replay of the tool over what the bridge collected: the next round
/// asked, or the final response written (and committed, with the side
/// effect); the text it writes on the stream.
fn turn(bridge: &mut Bridge, request: &Value, env: &mut Env<'_>) -> String {
    let mut replay = bridge.replay();
    match tool::plan(&mut replay, &request["params"]["arguments"]) {
        Ok(Step::Done(result)) => {
            if let Err(e) = bridge.complete(&result) {
                let _ = bridge.refuse(&e);
            }
        }
        // Past the round cap the bridge writes its refusal itself.
        Ok(Step::Ask) => drop(bridge.ask(&replay, Millis(env.now))),
        Err(e) => drop(bridge.refuse(&e)),
    }
    let text = writes(bridge);
    if bridge.is_done() {
        commit(&text, request, env);
    }
    text
}

/// A final result on the stream is committed, with the side effect.
fn commit(text: &str, request: &Value, env: &mut Env<'_>) {
    let mut decoder = sse::Decoder::new();
    decoder.feed(text.as_bytes());
    decoder.finish();
    let last = std::iter::from_fn(|| decoder.poll_event())
        .filter_map(|e| e.ok()?.data.and_then(|d| serde_json::from_str::<Value>(&d).ok()))
        .last();
    if let Some(final_message) = last.filter(|m| m.get("result").is_some()) {
        let op = request["params"]["arguments"]["op"].as_str().unwrap_or("?").to_string();
        let key = format!("{}-{:016x}", request["id"], env.rng.u64(..));
        let (Commit::Committed(_) | Commit::Before(_)) = env.store.commit(&key, final_message, &op);
    }
}

fn writes(bridge: &mut Bridge) -> String {
    std::iter::from_fn(|| bridge.poll_write()).collect()
}

fn refusal(id: &Value, error: &Error) -> HttpResponse {
    let (body, status) = error_response(id, error);
    HttpResponse::with_body(status, "application/json", body.to_string())
}
