//! SEP-1858 and SEP-1335 continuations (`2025-11-25` over multi-turn
//! HTTP) on an instance, as `deploy/cluster/instance.py` serves its `sep-*`
//! modes: the call's state is a continuation record in the store, and any
//! instance takes it up.
//!
//! - A `tools/call` creates the continuation (a random key, the key of the
//!   bridge's server-request ids, the request), runs the first round through
//!   a [`Bridge`] and answers with the round's event stream
//!   ([`ServerStream::ask`]: SEP-1858's `buffer_input` … `input_required`,
//!   SEP-1335's requests and `retry`, with the `rel="stream"` link).
//! - Buffered answers ([`Incoming::Answers`], found by `Last-Event-ID` or the
//!   stream URL) rebuild the bridge from every round's answers (the tool
//!   replayed once per round), write the next round or the final response
//!   (committed once under the continuation key, with the side effect), and
//!   stream it. Answers of a round taken already (a POST sent again after a
//!   cut) get the stream that followed them.
//! - A `GET` ([`Incoming::Resume`]) replays the stream from after
//!   `Last-Event-ID`; under SEP-1335, at the end of what was written, `204`
//!   (the server waits for the answers).
//!
//! Every block written is kept in the record, so what any instance streams
//! is what was written once.

use crate::instance::{Env, Instance, Served};
use crate::net::{HttpRequest, HttpResponse};
use crate::store::Commit;
use crate::tool::{self, Step};
use mrtr::http::serve::{read_request, stream_url, Incoming, ServerStream, WAITING};
use mrtr::http::Mode;
use mrtr::round::bridge::Bridge;
use mrtr::server::error_response;
use mrtr::{sse, Error, Limits, Millis, Protocol, RuleId};
use serde_json::{json, Value};

/// The `retry` a SEP-1335 stream names before the client POSTs its answers.
const RETRY_MS: u64 = 200;

/// The transport a URL path names (`/sep-1858`, `/sep-1335`), if any.
pub fn mode_of(url: &str) -> Option<Mode> {
    let path = url.split('?').next().unwrap_or_default();
    [Mode::Sep1858, Mode::Sep1335].into_iter().find(|m| path.ends_with(&format!("/{}", m.name())))
}

impl Instance {
    /// Serves one HTTP request of a continuation transport.
    pub(crate) fn sep(&mut self, req: &HttpRequest, mode: Mode, env: &mut Env<'_>) -> Served {
        let body = req.body.as_deref().unwrap_or_default().as_bytes();
        let endpoint = req.url.split('?').next().unwrap_or_default().to_string();
        let incoming =
            read_request(mode, req.method, &req.url, &req.headers, body, Protocol::V2025_11_25, &Limits::DEFAULT);
        if let Some(away) = self.store_away(env) {
            return Served::Reply(away);
        }
        let served = match incoming {
            Ok(Incoming::Call(request)) => self.sep_call(&request, mode, &endpoint, env),
            Ok(Incoming::Messages(_)) => Ok(HttpResponse::empty(202)),
            Ok(Incoming::Answers { key, responses }) => self.sep_answers(&key, &responses, mode, &endpoint, env),
            Ok(Incoming::Resume { key, last_event_id }) => Ok(resume(key, last_event_id, mode, &endpoint, env)),
            Err(e) => Err((Value::Null, e)),
        };
        match served {
            Ok(response) => Served::Reply(response),
            Err((id, e)) => {
                let (body, status) = error_response(&id, &e);
                Served::Reply(HttpResponse::with_body(status, "application/json", body.to_string()))
            }
        }
    }

    fn sep_call(
        &mut self,
        request: &Value,
        mode: Mode,
        endpoint: &str,
        env: &mut Env<'_>,
    ) -> Result<HttpResponse, (Value, Error)> {
        let id = request["id"].clone();
        let refused = |e: Error| (id.clone(), e);
        let key = format!("k{:016x}", env.rng.u64(..));
        let bridge = format!("b{:016x}{:016x}", env.rng.u64(..), env.rng.u64(..));
        let mut call = json!({"key": key, "bridge": bridge, "request": request, "rounds": [], "next": 1,
            "blocks": [], "done": false});
        let (messages, done) = replay_bridge(request, &[], &bridge, env.now).map_err(refused)?;
        write(&mut call, mode, messages, done, env).map_err(refused)?;
        env.store.save(&format!("call:{key}"), call.clone());
        Ok(stream(&call, 0, mode, endpoint))
    }

    fn sep_answers(
        &mut self,
        key: &str,
        responses: &[Value],
        mode: Mode,
        endpoint: &str,
        env: &mut Env<'_>,
    ) -> Result<HttpResponse, (Value, Error)> {
        let refused = |e: Error| (Value::Null, e);
        let Some(mut call) = env.store.record(&format!("call:{key}")).cloned() else {
            return Ok(HttpResponse::empty(404));
        };
        let ids = |answers: &[Value]| {
            let mut ids: Vec<String> = answers.iter().map(|r| r["id"].to_string()).collect();
            ids.sort();
            ids
        };
        let rounds: Vec<Value> = call["rounds"].as_array().cloned().unwrap_or_default();
        for taken in &rounds {
            if ids(taken["answers"].as_array().map_or(&[], Vec::as_slice)) == ids(responses) {
                return Ok(stream(&call, taken["from"].as_u64().unwrap_or(0) as usize, mode, endpoint));
            }
        }
        if call["done"] == true {
            return Ok(HttpResponse::empty(409));
        }
        let mut answers: Vec<Vec<Value>> =
            rounds.iter().map(|r| r["answers"].as_array().cloned().unwrap_or_default()).collect();
        answers.push(responses.to_vec());
        let bridge = call["bridge"].as_str().unwrap_or_default().to_string();
        let request = call["request"].clone();
        let (messages, done) = replay_bridge(&request, &answers, &bridge, env.now).map_err(refused)?;
        let from = call["blocks"].as_array().map_or(0, Vec::len);
        if let Some(rounds) = call["rounds"].as_array_mut() {
            rounds.push(json!({"answers": responses, "from": from}));
        }
        write(&mut call, mode, messages, done, env).map_err(refused)?;
        env.store.save(&format!("call:{key}"), call.clone());
        Ok(stream(&call, from, mode, endpoint))
    }
}

/// A `GET` resuming the call's stream after `last_event_id` (or, SEP-1335, at its stream URL).
fn resume(
    key: Option<String>,
    last_event_id: Option<String>,
    mode: Mode,
    endpoint: &str,
    env: &Env<'_>,
) -> HttpResponse {
    let Some(call) = key.as_deref().and_then(|k| env.store.record(&format!("call:{k}"))) else {
        return HttpResponse::empty(if key.is_some() { 404 } else { 405 });
    };
    let blocks = call["blocks"].as_array().map_or(&[][..], Vec::as_slice);
    let cursor = last_event_id
        .and_then(|last| blocks.iter().position(|b| b["id"].as_str() == Some(last.as_str())))
        .map_or(0, |i| i + 1);
    if mode == Mode::Sep1335 && cursor == blocks.len() {
        return HttpResponse::empty(WAITING);
    }
    stream(call, cursor, mode, endpoint)
}

/// The call's bridge rebuilt from the answers of its rounds (the tool
/// replayed once per round): what it writes next as JSON-RPC messages (the
/// next round's server requests, or the final response), and whether that
/// is the final one. Answers that are not all the round awaits are refused.
fn replay_bridge(request: &Value, rounds: &[Vec<Value>], key: &str, now: u64) -> mrtr::Result<(Vec<Value>, bool)> {
    let mut bridge = Bridge::new(request, key, Limits::DEFAULT)?;
    let mut rounds = rounds.iter();
    loop {
        while bridge.poll_write().is_some() {}
        let mut replay = bridge.replay();
        match tool::plan(&mut replay, &request["params"]["arguments"]) {
            Ok(Step::Done(result)) => bridge.complete(&result)?,
            Ok(Step::Ask) => {
                // Past the round cap the bridge writes its refusal and says so: the refusal is the answer.
                let _ = bridge.ask(&replay, Millis(now));
            }
            Err(e) => bridge.refuse(&e)?,
        }
        let mut text = String::new();
        while let Some(t) = bridge.poll_write() {
            text += &t;
        }
        if bridge.is_done() {
            return Ok((messages(&text), true));
        }
        let Some(answers) = rounds.next() else { return Ok((messages(&text), false)) };
        for answer in answers {
            bridge.handle_answer(answer, Millis(now))?;
        }
        if bridge.pending().next().is_some() {
            return Err(Error::new(RuleId::UsageOutOfTurn, "these are not all the answers the round awaits"));
        }
    }
}

/// Writes the next turn of the call in its mode (the round's server
/// requests, or the final message, committed first) and keeps its blocks.
fn write(call: &mut Value, mode: Mode, messages: Vec<Value>, done: bool, env: &mut Env<'_>) -> mrtr::Result<()> {
    let key = call["key"].as_str().unwrap_or_default().to_string();
    let next = call["next"].as_u64().unwrap_or(1);
    let mut stream = ServerStream::new(mode, &key, next)?;
    let last = messages.last().cloned().unwrap_or(Value::Null);
    if !done {
        stream.ask(&messages, RETRY_MS)?;
    } else if last.get("result").is_some() {
        let op = call["request"]["params"]["arguments"]["op"].as_str().unwrap_or("?").to_string();
        let (Commit::Committed(committed) | Commit::Before(committed)) = env.store.commit(&key, last, &op);
        stream.message(&committed)?;
    } else {
        stream.message(&last)?;
    }
    let blocks = blocks(&stream.take())?;
    let count = blocks.len();
    if let Some(kept) = call["blocks"].as_array_mut() {
        for (i, (id, text)) in blocks.into_iter().enumerate() {
            kept.push(json!({"id": id, "text": text, "final": i + 1 == count}));
        }
    }
    call["next"] = json!(next + count as u64);
    call["done"] = json!(done);
    Ok(())
}

/// The call's blocks from `cursor` through the next final one, as the response.
fn stream(call: &Value, cursor: usize, mode: Mode, endpoint: &str) -> HttpResponse {
    let key = call["key"].as_str().unwrap_or_default();
    let link = (mode == Mode::Sep1335).then(|| stream_url(endpoint, key).ok()).flatten();
    let head = ServerStream::new(mode, key, call["next"].as_u64().unwrap_or(1)).map(|s| s.head(link.as_deref()));
    let mut body = String::new();
    for block in call["blocks"].as_array().into_iter().flatten().skip(cursor) {
        body += block["text"].as_str().unwrap_or_default();
        if block["final"] == true {
            break;
        }
    }
    HttpResponse { status: 200, headers: head.unwrap_or_default(), body: body.into_bytes() }
}

/// Event-stream text cut into its blocks: each one's id and its text.
fn blocks(text: &str) -> mrtr::Result<Vec<(Option<String>, String)>> {
    let mut decoder = sse::Decoder::new();
    decoder.feed(text.as_bytes());
    decoder.finish();
    let mut out = Vec::new();
    while let Some(event) = decoder.poll_event() {
        let event = event?;
        let mut one = String::new();
        sse::encode(&event, &mut one)?;
        out.push((event.id.clone(), one));
    }
    Ok(out)
}

/// The JSON-RPC messages of event-stream text.
fn messages(text: &str) -> Vec<Value> {
    let mut decoder = sse::Decoder::new();
    decoder.feed(text.as_bytes());
    decoder.finish();
    core::iter::from_fn(|| decoder.poll_event())
        .filter_map(|e| e.ok()?.data.and_then(|d| serde_json::from_str(&d).ok()))
        .collect()
}
