//! An [`Operation`] against servers built from the core's own pieces
//! ([`ServerStream`], [`read_request`]), every body delivered in 5-byte
//! chunks, per mode; the MRTR conversations are then checked whole by the
//! conversation checker.

use super::*;
use crate::base::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use crate::conversation::check::{check, CheckConfig, Entry, Side};
use crate::machines::http::call::headers;
use crate::machines::http::serve::{read_request, Incoming, ServerStream};
use crate::machines::http::{header, Headers};
use crate::{base::limits::Limits, base::protocol::Protocol, read::sse};
use alloc::{string::ToString, vec};

const ENDPOINT: &str = "http://127.0.0.1:8000/mcp";

/// A `2026-07-28` `tools/call` of `greet` with the per-request `_meta`.
fn call_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet", "arguments": {},
        "_meta": {META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {"elicitation": {"form": {}}}}}})
}

fn ask(field: &str, kind: &str) -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": format!("{field}?"),
        "requestedSchema": {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}}})
}

fn accept(field: &str, value: Value) -> Value {
    json!({"action": "accept", "content": {field: value}})
}

fn input_required(id: &Value, key: &str, question: Value, state: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required",
        "inputRequests": {key: question}, "requestState": state}})
}

fn complete(id: &Value, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
        "content": [{"type": "text", "text": text}], "isError": false}})
}

/// The greeting tool of a stateless server: asks a name, then an age, then greets.
fn greet(request: &Value) -> Value {
    let id = &request["id"];
    let params = &request["params"];
    match params["requestState"].as_str() {
        None => input_required(id, "name", ask("name", "string"), "s1"),
        Some("s1") => input_required(id, "age", ask("age", "integer"), "s2"),
        Some(_) => {
            let name = params["inputResponses"]["age"]["content"]["age"].as_i64().unwrap_or(-1);
            complete(id, &format!("Hello, {name}"))
        }
    }
}

/// How the test server answers one POST: a JSON body, or an event stream.
#[derive(Clone, Copy, PartialEq)]
enum Body {
    Json,
    Stream,
}

/// Delivers a whole response, 5 bytes at a time.
fn respond(op: &mut Operation, exchange: u64, status: u16, head: &Headers, body: &str, now: Millis) {
    op.handle_head(exchange, status, head, now).unwrap();
    for chunk in body.as_bytes().chunks(5) {
        op.handle_body(exchange, chunk, now).unwrap();
    }
    op.handle_end(exchange, now).unwrap();
}

fn events(op: &mut Operation) -> Vec<Event> {
    core::iter::from_fn(|| op.poll_event()).collect()
}

/// A `2026-07-28` server over Streamable HTTP: each POST is read as the
/// server reads it, answered by `tool`, as JSON or as an event stream. Every
/// message both ways is logged for the checker.
struct Mrtr<F: FnMut(&Value) -> Value> {
    tool: F,
    body: fn(u32) -> Body,
    posts: u32,
    log: Vec<Entry>,
}

impl<F: FnMut(&Value) -> Value> Mrtr<F> {
    fn new(tool: F, body: fn(u32) -> Body) -> Self {
        Mrtr { tool, body, posts: 0, log: Vec::new() }
    }

    /// Serves every request the operation has to send, and answers its
    /// questions with `answer`, until it is drained.
    fn drive(&mut self, op: &mut Operation, mut answer: impl FnMut(&str, &Value) -> Value) -> Vec<Event> {
        let mut seen = Vec::new();
        for now in 1..100 {
            while let Some(sent) = op.poll_transmit() {
                self.serve(op, &sent, Millis(now));
            }
            for event in events(op) {
                if let Event::InputRequired { requests, .. } = &event {
                    for (key, question) in requests {
                        op.answer(key, answer(key, question), Millis(now)).unwrap();
                    }
                }
                seen.push(event);
            }
            if op.is_drained() {
                return seen;
            }
        }
        panic!("not drained: {seen:?}")
    }

    fn serve(&mut self, op: &mut Operation, sent: &Request, now: Millis) {
        let body = sent.body.as_deref().unwrap_or_default();
        let Incoming::Call(request) = read_request(
            Mode::Streamable,
            sent.method,
            &sent.url,
            &sent.headers,
            body.as_bytes(),
            Protocol::default(),
            &Limits::DEFAULT,
        )
        .unwrap() else {
            panic!("not a call: {body}")
        };
        crate::machines::server::check_headers(&request, &sent.headers, Protocol::default()).unwrap();
        self.log.push(Entry { from: Side::Client, message: request.clone(), stream: None });
        let response = (self.tool)(&request);
        self.log.push(Entry { from: Side::Server, message: response.clone(), stream: Some(post_stream(&request)) });
        self.posts += 1;
        match (self.body)(self.posts) {
            Body::Json => {
                let head = headers([("content-type", "application/json")]);
                respond(op, sent.exchange, 200, &head, &response.to_string(), now);
            }
            Body::Stream => {
                let mut stream = ServerStream::new(Mode::Streamable, "k", 1).unwrap();
                stream.message(&response).unwrap();
                respond(op, sent.exchange, 200, &stream.head(None), &stream.take(), now);
            }
        }
    }

    fn violations(&self) -> Vec<(RuleId, usize)> {
        check(&self.log, CheckConfig::default()).into_iter().map(|v| (v.rule, v.index)).collect()
    }
}

fn post_stream(request: &Value) -> String {
    crate::machines::http::call::post_stream(&request["id"])
}

fn config() -> Config {
    Config::new(Mode::Streamable, ENDPOINT)
}

fn answer_greet(key: &str, _question: &Value) -> Value {
    match key {
        "name" => accept("name", json!("Ada")),
        _ => accept("age", json!(36)),
    }
}

#[test]
fn two_rounds_over_json_and_an_event_stream_are_one_compliant_operation() {
    let mut server = Mrtr::new(greet, |post| if post == 3 { Body::Stream } else { Body::Json });
    let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    let seen = server.drive(&mut op, answer_greet);

    let asked: Vec<_> = seen
        .iter()
        .filter_map(|e| match e {
            Event::InputRequired { round, requests } => Some((*round, requests.keys().cloned().collect::<Vec<_>>())),
            _ => None,
        })
        .collect();
    assert_eq!(asked, [(1, vec!["name".to_string()]), (2, vec!["age".to_string()])]);
    assert_eq!(seen.last(), Some(&Event::Done(complete(&json!("1.2"), "Hello, 36"))));
    assert_eq!(op.rounds(), 2);
    let ids: Vec<_> = server.log.iter().filter(|e| e.from == Side::Client).map(|e| e.message["id"].clone()).collect();
    assert_eq!(ids, [json!(1), json!("1.1"), json!("1.2")], "new ids, derived from the host's");
    assert_eq!(server.log[2].message["params"]["requestState"], "s1", "the exact requestState echoed");
    assert_eq!(server.violations(), [], "the whole conversation passes the checker");
}

#[test]
fn a_result_with_state_only_is_retried_at_once_without_answers() {
    let mut first = true;
    let tool = move |request: &Value| {
        let id = &request["id"];
        if core::mem::take(&mut first) {
            json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required", "requestState": "busy"}})
        } else {
            complete(id, "done")
        }
    };
    let mut server = Mrtr::new(tool, |_| Body::Json);
    let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    let seen = server.drive(&mut op, |_, _| unreachable!("nothing is asked"));
    assert_eq!(seen, [Event::Done(complete(&json!("1.1"), "done"))]);
    let retry = &server.log[2].message["params"];
    assert_eq!((retry["requestState"].as_str(), retry.get("inputResponses")), (Some("busy"), None));
    assert_eq!(server.violations(), []);
}

#[test]
fn the_round_bound_ends_an_operation_the_server_never_finishes() {
    let tool = |request: &Value| input_required(&request["id"], "name", ask("name", "string"), "again");
    let mut server = Mrtr::new(tool, |_| Body::Json);
    let mut two = config();
    two.call.settings = two.call.settings.with_max_rounds(2);
    let mut op = Operation::new(two, call_request(), Millis(0)).unwrap();
    let seen = server.drive(&mut op, |_, _| accept("name", json!("Ada")));
    let Some(Event::Failed(e)) = seen.last() else { panic!("{seen:?}") };
    assert_eq!((e.rule(), op.rounds()), (RuleId::RetryRoundsExceeded, 2));
}

/// Starts the operation and answers its first POST with `input_required`
/// (JSON), then answers the name: the retry's POST is the next transmit.
fn at_the_retry(config: Config) -> (Operation, Request) {
    let mut op = Operation::new(config, call_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    let body = input_required(&json!(1), "name", ask("name", "string"), "s1").to_string();
    respond(&mut op, post.exchange, 200, &headers([("content-type", "application/json")]), &body, Millis(1));
    assert!(matches!(events(&mut op)[..], [Event::InputRequired { round: 1, .. }]));
    op.answer("name", accept("name", json!("Ada")), Millis(2)).unwrap();
    let retry = op.poll_transmit().unwrap();
    (op, retry)
}

/// An event stream that ends with no event and no id to resume from.
fn cut(op: &mut Operation, exchange: u64, now: Millis) {
    respond(op, exchange, 200, &headers([("content-type", "text/event-stream")]), ": started\n\n", now);
}

#[test]
fn a_round_cut_before_its_response_is_sent_again_under_a_new_id() {
    let (mut op, retry) = at_the_retry(config());
    cut(&mut op, retry.exchange, Millis(3));
    let again = op.poll_transmit().expect("the round is sent again");
    let (first, second): (Value, Value) = (
        serde_json::from_str(retry.body.as_deref().unwrap()).unwrap(),
        serde_json::from_str(again.body.as_deref().unwrap()).unwrap(),
    );
    assert_eq!((&first["id"], &second["id"]), (&json!("1.1"), &json!("1.2")));
    assert_eq!(first["params"], second["params"], "the same round: same answers, same requestState");
    assert!(events(&mut op).is_empty(), "a re-send is not news to the host");
    let done = complete(&json!("1.2"), "Hello");
    respond(
        &mut op,
        again.exchange,
        200,
        &headers([("content-type", "application/json")]),
        &done.to_string(),
        Millis(4),
    );
    assert_eq!(events(&mut op), [Event::Done(done)]);
    assert!(op.is_drained());

    // The conversation, re-sent round included, is what the checker allows.
    let mut log = vec![
        Entry { from: Side::Client, message: call_request(), stream: None },
        Entry {
            from: Side::Server,
            message: input_required(&json!(1), "name", ask("name", "string"), "s1"),
            stream: Some("post:1".into()),
        },
        Entry { from: Side::Client, message: first, stream: None },
        Entry { from: Side::Client, message: second, stream: None },
    ];
    log.push(Entry { from: Side::Server, message: complete(&json!("1.2"), "Hello"), stream: Some("post:1.2".into()) });
    assert!(check(&log, CheckConfig::default()).is_empty());
}

fn hedged() -> Config {
    Config { hedge: Some(Hedge { after_ms: 100, max: 1 }), ..config() }
}

/// [`hedged`], the host vouching that the first request is harmless twice.
fn hedged_idempotent() -> Config {
    Config { idempotent: true, ..hedged() }
}

#[test]
fn a_first_request_not_known_harmless_twice_is_never_hedged_and_runs_once() {
    // Security review N1: a hedged one-round `pay` paid twice, the client seeing one result.
    let pay = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "pay",
        "arguments": {"to": "bob", "amount": 5000}, "_meta": {META_PROTOCOL_VERSION: "2026-07-28"}}});
    let mut op = Operation::new(hedged(), pay.clone(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    assert_eq!(op.poll_timeout(), None, "no copy is due: nothing on a first request tells a copy apart");
    op.handle_timeout(Millis(10_000));
    assert!(op.poll_transmit().is_none());
    let paid = complete(&json!(7), "paid");
    respond(&mut op, post.exchange, 200, &json_head(), &paid.to_string(), Millis(10_300));
    assert_eq!(events(&mut op), [Event::Done(paid)]);
    assert!(op.is_drained());

    // The host vouches (a read-only tool, one that asks before any effect): then it is hedged.
    let mut op = Operation::new(hedged_idempotent(), pay, Millis(0)).unwrap();
    let _ = op.poll_transmit().unwrap();
    assert_eq!(op.poll_timeout(), Some(Millis(100)));
    op.handle_timeout(Millis(100));
    assert_eq!(body_of(&op.poll_transmit().expect("a copy"))["id"], json!("7.1"));
}

#[test]
fn a_first_request_that_may_have_run_goes_again_only_after_a_503() {
    // A 502 or 504 gateway, a stream cut after a server took it, a connection that failed after the
    // request was written: a server may have acted on it. Only a 503 says none did.
    let mut failed = Vec::new();
    for (status, body) in [(Some(502), ""), (Some(504), ""), (None, "")] {
        let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
        let post = op.poll_transmit().unwrap();
        match status {
            Some(status) => respond(&mut op, post.exchange, status, &Headers::new(), body, Millis(1)),
            None => op.handle_end(post.exchange, Millis(1)).unwrap(),
        }
        assert!(op.poll_transmit().is_none() && op.poll_timeout().is_none(), "{status:?}: not sent again");
        let Some(Event::Failed(e)) = events(&mut op).pop() else { panic!("{status:?}: no failure") };
        // No status at all is a failed connection, and the message says so (not "answered 0").
        let said = if status.is_some() { "the server answered" } else { "the connection failed or was closed" };
        assert!(e.message().contains(said), "{status:?}: {}", e.message());
        failed.push(e.rule());
    }
    assert_eq!(failed, [RuleId::HttpStatusUnexpected; 3]);
    let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    cut(&mut op, post.exchange, Millis(1));
    assert!(op.poll_transmit().is_none(), "cut after a server took it: not sent again");
    let Some(Event::Failed(e)) = events(&mut op).pop() else { panic!("no failure") };
    assert_eq!(e.rule(), RuleId::SseStreamEnded);
    let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    respond(&mut op, post.exchange, 503, &Headers::new(), "", Millis(1));
    op.handle_timeout(Millis(51));
    assert_eq!(body_of(&op.poll_transmit().expect("a 503: no server took it"))["id"], json!("1.1"));
}

fn json_head() -> Headers {
    headers([("content-type", "application/json")])
}

fn body_of(sent: &Request) -> Value {
    serde_json::from_str(sent.body.as_deref().unwrap()).unwrap()
}

fn replayed(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "state-replayed: used before",
        "data": {"rule": "state-replayed"}}})
}

#[test]
fn a_round_with_no_response_head_is_hedged_and_the_first_answer_wins() {
    // Issue 26: a round sent to a hung instance waited until it woke.
    let (mut op, retry) = at_the_retry(hedged());
    assert_eq!(op.poll_timeout(), Some(Millis(102)), "the copy is due after_ms after the round went");
    op.handle_timeout(Millis(102));
    let copy = op.poll_transmit().expect("a copy of the round");
    let (first, second) = (body_of(&retry), body_of(&copy));
    assert_eq!((&first["id"], &second["id"]), (&json!("1.1"), &json!("1.2")));
    assert_eq!(first["params"], second["params"], "the same round: same answers, same requestState");
    assert_eq!(op.poll_timeout(), None, "one copy at most");
    let done = complete(&json!("1.2"), "Hello");
    respond(&mut op, copy.exchange, 200, &json_head(), &done.to_string(), Millis(103));
    assert_eq!(events(&mut op), [Event::Done(done)]);
    assert_eq!(op.abandoned(), [retry.exchange], "the hung copy is the host's to cut");
    // The first copy answers at last: stale, never a second outcome.
    respond(&mut op, retry.exchange, 200, &json_head(), &complete(&json!("1.1"), "Hello").to_string(), Millis(9000));
    assert!(events(&mut op).is_empty());
    assert!(op.is_drained());
}

#[test]
fn a_hedged_conversation_whose_first_copy_answers_first_is_compliant() {
    // The cluster's recordings: the checker took the copy for a re-send that replaced the first, and
    // called the next round's answers unsolicited when the first copy's answer came first after all.
    let client = |message: Value| Entry { from: Side::Client, message, stream: None };
    let server = |message: Value, id: &str| Entry { from: Side::Server, message, stream: Some(format!("post:{id}")) };
    let first = call_request();
    let asked = input_required(&json!(1), "name", ask("name", "string"), "s1");
    let answers = json!({"name": accept("name", json!("Ada"))});
    let copy = |id: &str| {
        crate::machines::client::retry(&first, &asked, &answers, &json!(id), Protocol::default(), &Limits::DEFAULT)
            .unwrap()
    };
    let (one, two) = (copy("1.1"), copy("1.2"));
    let next = input_required(&json!("1.1"), "age", ask("age", "integer"), "s2");
    let third = crate::machines::client::retry(
        &one,
        &next,
        &json!({"age": accept("age", json!(36))}),
        &json!("1.3"),
        Protocol::default(),
        &Limits::DEFAULT,
    )
    .unwrap();
    let log = vec![
        client(first.clone()),
        server(asked.clone(), "1"),
        client(one),
        client(two),
        server(next, "1.1"),
        server(replayed(&json!("1.2")), "1.2"),
        client(third),
        server(complete(&json!("1.3"), "Hello, 36"), "1.3"),
    ];
    assert_eq!(check(&log, CheckConfig::default()), []);
}

#[test]
fn when_the_first_copy_answers_first_the_next_round_retries_it() {
    // Found by the Node binding's runOperation: the retry was built against the last copy's id, and
    // the answer to the first copy "does not answer this request".
    let mut op = Operation::new(hedged_idempotent(), call_request(), Millis(0)).unwrap();
    let first = op.poll_transmit().unwrap();
    op.handle_timeout(Millis(100));
    let copy = op.poll_transmit().expect("a copy of the first round");
    assert_eq!(body_of(&copy)["id"], json!("1.1"));
    let asked = input_required(&json!(1), "name", ask("name", "string"), "s1");
    respond(&mut op, first.exchange, 200, &json_head(), &asked.to_string(), Millis(101));
    assert!(matches!(events(&mut op)[..], [Event::InputRequired { round: 1, .. }]));
    assert_eq!(op.abandoned(), [copy.exchange]);
    op.answer("name", accept("name", json!("Ada")), Millis(102)).unwrap();
    let retry = body_of(&op.poll_transmit().expect("the retry"));
    assert_eq!((&retry["id"], &retry["params"]["requestState"]), (&json!("1.2"), &json!("s1")));
}

#[test]
fn a_copys_state_replayed_refusal_waits_for_the_copy_that_used_the_state() {
    let (mut op, retry) = at_the_retry(hedged());
    op.handle_timeout(Millis(102));
    let copy = op.poll_transmit().unwrap();
    // The slow first copy used the state; the second is refused for it.
    respond(&mut op, copy.exchange, 200, &json_head(), &replayed(&json!("1.2")).to_string(), Millis(103));
    assert!(events(&mut op).is_empty(), "not the round's answer while the first copy may give it");
    let done = complete(&json!("1.1"), "Hello");
    respond(&mut op, retry.exchange, 200, &json_head(), &done.to_string(), Millis(104));
    assert_eq!(events(&mut op), [Event::Done(done)]);

    // When the other copy is cut, the refusal is the answer after all.
    let (mut op, retry) = at_the_retry(hedged());
    op.handle_timeout(Millis(102));
    let copy = op.poll_transmit().unwrap();
    respond(&mut op, copy.exchange, 200, &json_head(), &replayed(&json!("1.2")).to_string(), Millis(103));
    cut(&mut op, retry.exchange, Millis(104));
    assert_eq!(events(&mut op), [Event::Done(replayed(&json!("1.2")))]);
    assert!(op.poll_transmit().is_none() && op.is_drained());
}

#[test]
fn a_round_a_server_took_is_not_hedged_and_without_a_policy_nothing_is() {
    let (mut op, retry) = at_the_retry(hedged());
    op.handle_head(retry.exchange, 200, &headers([("content-type", "text/event-stream")]), Millis(50)).unwrap();
    assert_eq!(op.poll_timeout(), None, "a server took the round: its answer is coming");
    let (mut plain, _) = at_the_retry(config());
    assert_eq!(plain.poll_timeout(), None);
    plain.handle_timeout(Millis(10_000));
    assert!(plain.poll_transmit().is_none());
}

#[test]
fn re_sends_are_bounded_and_then_the_cut_is_the_failure() {
    let (mut op, retry) = at_the_retry(Config { max_resends: 1, ..config() });
    cut(&mut op, retry.exchange, Millis(3));
    let again = op.poll_transmit().unwrap();
    cut(&mut op, again.exchange, Millis(4));
    assert!(op.poll_transmit().is_none());
    let Some(Event::Failed(e)) = events(&mut op).pop() else { panic!("no failure") };
    assert_eq!(e.rule(), RuleId::SseStreamEnded);
    assert!(op.is_drained());
}

#[test]
fn misuse_is_refused_and_leaves_the_question_open() {
    let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    let rule = |r: Result<()>| r.unwrap_err().rule();
    assert_eq!(
        rule(op.answer("name", accept("name", json!("Ada")), Millis(1))),
        RuleId::UsageOutOfTurn,
        "nothing asked yet"
    );
    assert_eq!(rule(op.handle_end(99, Millis(1))), RuleId::UsageUnknownHandle);
    let body = input_required(&json!(1), "name", ask("name", "string"), "s1").to_string();
    respond(&mut op, post.exchange, 200, &headers([("content-type", "application/json")]), &body, Millis(1));
    let _ = events(&mut op);
    assert_eq!(rule(op.answer("nom", accept("nom", json!("Ada")), Millis(2))), RuleId::UsageUnknownHandle);
    let wrong = op.answer("name", accept("name", json!(7)), Millis(2)).unwrap_err();
    assert_eq!(wrong.area(), crate::base::rules::Area::Retry, "{wrong}");
    assert!(op.poll_transmit().is_none(), "a refused answer sends nothing");
    op.answer("name", accept("name", json!("Ada")), Millis(3)).unwrap();
    assert!(op.poll_transmit().is_some());
    assert_eq!(
        rule(op.answer("name", accept("name", json!("Ada")), Millis(3))),
        RuleId::UsageOutOfTurn,
        "answered already"
    );
}

/// The server's side of a stream mode: reads what the operation sent.
fn incoming(mode: Mode, sent: &Request) -> Incoming {
    let body = sent.body.as_deref().unwrap_or_default().as_bytes();
    read_request(mode, sent.method, &sent.url, &sent.headers, body, Protocol::V2025_11_25, &Limits::DEFAULT).unwrap()
}

fn legacy_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "greet"}})
}

fn server_request(id: &str, method: &str) -> Value {
    let params = match method {
        "elicitation/create" => ask("name", "string")["params"].clone(),
        _ => json!({}),
    };
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[test]
fn legacy_server_requests_become_questions_and_ping_is_answered_alone() {
    let mode = Mode::Legacy;
    let mut op = Operation::new(Config::new(mode, ENDPOINT), legacy_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    let mut stream = ServerStream::new(mode, "k", 1).unwrap();
    for (id, method) in [("p1", "ping"), ("x1", "resources/subscribe"), ("s1", "elicitation/create")] {
        stream.message(&server_request(id, method)).unwrap();
    }
    op.handle_head(post.exchange, 200, &stream.head(None), Millis(1)).unwrap();
    op.handle_body(post.exchange, stream.take().as_bytes(), Millis(1)).unwrap();
    let replies: Vec<Value> = core::iter::from_fn(|| op.poll_transmit())
        .map(|sent| match incoming(mode, &sent) {
            Incoming::Messages(m) => m[0].clone(),
            _ => panic!("not an answer"),
        })
        .collect();
    assert_eq!(replies[0], json!({"jsonrpc": "2.0", "id": "p1", "result": {}}));
    assert_eq!(replies[1]["error"]["code"], -32601);
    let [Event::InputRequired { round: 1, requests }] = &events(&mut op)[..] else { panic!("no question") };
    assert_eq!(requests["s1"], ask("name", "string"));
    op.answer("s1", accept("name", json!("Ada")), Millis(2)).unwrap();
    let answer = op.poll_transmit().unwrap();
    let Incoming::Messages(m) = incoming(mode, &answer) else { panic!("not an answer") };
    assert_eq!(m, [json!({"jsonrpc": "2.0", "id": "s1", "result": accept("name", json!("Ada"))})]);
    stream.message(&complete(&json!(7), "Hello, Ada")).unwrap();
    op.handle_body(post.exchange, stream.take().as_bytes(), Millis(3)).unwrap();
    op.handle_end(post.exchange, Millis(3)).unwrap();
    assert_eq!(events(&mut op), [Event::Done(complete(&json!(7), "Hello, Ada"))]);
    assert!(!op.is_drained(), "the answers' 202s are still open");
    for exchange in [2, 3, 4] {
        respond(&mut op, exchange, 202, &Headers::new(), "", Millis(4));
    }
    assert!(op.is_drained());
}

#[test]
fn sep_1858_answers_every_question_in_one_post() {
    let mode = Mode::Sep1858;
    let mut op = Operation::new(Config::new(mode, ENDPOINT), legacy_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    let mut a = ServerStream::new(mode, "c9", 1).unwrap();
    let last =
        a.ask(&[server_request("s1", "elicitation/create"), server_request("s2", "elicitation/create")], 0).unwrap();
    respond(&mut op, post.exchange, 200, &a.head(None), &a.take(), Millis(1));
    let keys: Vec<String> = events(&mut op)
        .into_iter()
        .flat_map(|e| match e {
            Event::InputRequired { requests, .. } => requests.keys().cloned().collect::<Vec<_>>(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(keys, ["s1", "s2"]);
    op.answer("s1", accept("name", json!("Ada")), Millis(2)).unwrap();
    assert!(op.poll_transmit().is_none(), "answers wait for each other");
    op.answer("s2", accept("name", json!("Grace")), Millis(2)).unwrap();
    let answers = op.poll_transmit().unwrap();
    assert_eq!(header(&answers.headers, "last-event-id"), Some(last.as_str()));
    let Incoming::Answers { key, responses } = incoming(mode, &answers) else { panic!("not answers") };
    assert_eq!((key.as_str(), responses.len()), ("c9", 2));
    let mut b = ServerStream::new(mode, &key, 5).unwrap();
    b.message(&complete(&json!(7), "Hello both")).unwrap();
    respond(&mut op, answers.exchange, 200, &b.head(None), &b.take(), Millis(3));
    assert_eq!(events(&mut op), [Event::Done(complete(&json!(7), "Hello both"))]);
    assert!(op.is_drained());
}

#[test]
fn an_event_stream_response_is_read_in_any_chunking() {
    // The decoder behind the call: a response split inside its JSON and its
    // line ends still gives one Done.
    let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    let event = sse::Event { event: None, data: Some(complete(&json!(1), "hi").to_string()), id: None, retry: None };
    let mut bytes = String::new();
    sse::encode(&event, &mut bytes).unwrap();
    let bytes = bytes.replace('\n', "\r\n");
    op.handle_head(post.exchange, 200, &headers([("content-type", "text/event-stream")]), Millis(1)).unwrap();
    for chunk in bytes.as_bytes().chunks(3) {
        op.handle_body(post.exchange, chunk, Millis(1)).unwrap();
    }
    op.handle_end(post.exchange, Millis(1)).unwrap();
    assert_eq!(events(&mut op), [Event::Done(complete(&json!(1), "hi"))]);
}

/// A server of the Tasks extension: `tools/call` starts task `t1` (working),
/// the first `tasks/get` shows it working, the second waiting on one
/// question, and after `tasks/update` it is completed. Built with the core's
/// task builders; every message is logged for the checker.
struct TaskServer {
    gets: u32,
    answered: bool,
    log: Vec<Entry>,
}

impl TaskServer {
    fn record(&self, status: &str) -> Value {
        json!({"taskId": "t1", "status": status, "createdAt": "2026-11-27T09:00:00Z",
            "lastUpdatedAt": "2026-11-27T09:00:01Z", "ttlMs": 60000, "pollIntervalMs": 50,
            "inputRequests": {"name": ask("name", "string")}, "answered": if self.answered { json!(["name"]) } else { json!([]) },
            "result": {"content": [{"type": "text", "text": "Hello, Ada"}], "isError": false}})
    }

    fn answer(&mut self, request: &Value) -> Value {
        let protocol = Protocol::default();
        match request["method"].as_str().unwrap() {
            "tools/call" => crate::machines::server::tasks::created(request, &self.record("working")).unwrap(),
            "tasks/get" => {
                self.gets += 1;
                let status = match (self.gets, self.answered) {
                    (1, _) => "working",
                    (_, false) => "input_required",
                    (_, true) => "completed",
                };
                crate::machines::server::tasks::get_response(request, &self.record(status), protocol).unwrap()
            }
            "tasks/update" => {
                assert_eq!(request["params"]["inputResponses"]["name"], accept("name", json!("Ada")));
                self.answered = true;
                crate::machines::server::complete(request, &json!({}), protocol).unwrap()
            }
            other => panic!("unexpected {other}"),
        }
    }

    /// Serves what the operation sends until it is drained, the clock
    /// moving to each timeout it names.
    fn drive(&mut self, op: &mut Operation) -> Vec<Event> {
        let mut now = 0;
        let mut seen = Vec::new();
        for _ in 0..100 {
            while let Some(sent) = op.poll_transmit() {
                let request: Value = serde_json::from_str(sent.body.as_deref().unwrap()).unwrap();
                crate::machines::server::check_headers(&request, &sent.headers, Protocol::default()).unwrap();
                let response = self.answer(&request);
                self.log.push(Entry { from: Side::Client, message: request.clone(), stream: None });
                self.log.push(Entry {
                    from: Side::Server,
                    message: response.clone(),
                    stream: Some(post_stream(&request)),
                });
                respond(
                    op,
                    sent.exchange,
                    200,
                    &headers([("content-type", "application/json")]),
                    &response.to_string(),
                    Millis(now),
                );
            }
            let mut answered = false;
            for event in events(op) {
                if let Event::InputRequired { requests, .. } = &event {
                    for key in requests.keys() {
                        op.answer(key, accept("name", json!("Ada")), Millis(now)).unwrap();
                        answered = true;
                    }
                }
                seen.push(event);
            }
            if op.is_drained() {
                return seen;
            }
            if !answered {
                now = op.poll_timeout().expect("an operation that waits names when").0;
                op.handle_timeout(Millis(now));
            }
        }
        panic!("not drained: {seen:?}")
    }
}

fn task_call() -> Value {
    let mut request = call_request();
    request["params"]["_meta"][META_CLIENT_CAPABILITIES]["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    request
}

#[test]
fn a_task_is_followed_to_its_result_through_its_question() {
    let mut server = TaskServer { gets: 0, answered: false, log: Vec::new() };
    let mut op = Operation::new(config(), task_call(), Millis(0)).unwrap();
    let seen = server.drive(&mut op);
    let [Event::InputRequired { round: 1, requests }, Event::Done(done)] = &seen[..] else { panic!("{seen:?}") };
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["name"]);
    assert_eq!(done["id"], 1, "the result answers the host's request");
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada");
    let methods: Vec<_> =
        server.log.iter().filter(|e| e.from == Side::Client).map(|e| e.message["method"].clone()).collect();
    assert_eq!(methods, ["tools/call", "tasks/get", "tasks/get", "tasks/update", "tasks/get"]);
    for entry in server.log.iter().filter(|e| e.from == Side::Client).skip(1) {
        assert_eq!(
            entry.message["params"]["_meta"],
            task_call()["params"]["_meta"],
            "each task request carries the _meta"
        );
    }
    assert_eq!(server.violations(), []);
}

impl TaskServer {
    fn violations(&self) -> Vec<(RuleId, usize)> {
        check(&self.log, CheckConfig::default()).into_iter().map(|v| (v.rule, v.index)).collect()
    }
}

#[test]
fn a_task_polls_at_its_interval_and_a_cancelled_one_ends_with_the_task() {
    let mut op = Operation::new(config(), task_call(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    let server = TaskServer { gets: 0, answered: false, log: Vec::new() };
    let created = crate::machines::server::tasks::created(&task_call(), &server.record("working")).unwrap();
    respond(
        &mut op,
        post.exchange,
        200,
        &headers([("content-type", "application/json")]),
        &created.to_string(),
        Millis(10),
    );
    assert_eq!(op.poll_timeout(), Some(Millis(60)), "pollIntervalMs after the answer");
    op.handle_timeout(Millis(59));
    assert!(op.poll_transmit().is_none(), "not before its time");
    op.handle_timeout(Millis(60));
    let get = op.poll_transmit().expect("tasks/get at its time");
    let get_request: Value = serde_json::from_str(get.body.as_deref().unwrap()).unwrap();
    let shown =
        crate::machines::server::tasks::get_response(&get_request, &server.record("cancelled"), Protocol::default())
            .unwrap();
    respond(
        &mut op,
        get.exchange,
        200,
        &headers([("content-type", "application/json")]),
        &shown.to_string(),
        Millis(61),
    );
    let [Event::Done(done)] = &events(&mut op)[..] else { panic!() };
    assert_eq!((&done["id"], &done["result"]["status"]), (&json!(1), &json!("cancelled")));
}

#[test]
fn a_task_request_with_no_response_head_is_hedged_the_task_creating_one_is_not() {
    // Issue 43: a tasks/get that reached a hung instance waited until it woke.
    let mut op = Operation::new(hedged(), task_call(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    assert_eq!(op.poll_timeout(), None, "tools/call makes a task each time it runs: not hedged");
    let server = TaskServer { gets: 0, answered: false, log: Vec::new() };
    let created = crate::machines::server::tasks::created(&task_call(), &server.record("working")).unwrap();
    respond(&mut op, post.exchange, 200, &json_head(), &created.to_string(), Millis(10));
    op.handle_timeout(Millis(60));
    let get = op.poll_transmit().expect("tasks/get at its time");
    assert_eq!(op.poll_timeout(), Some(Millis(160)), "a read: hedged after after_ms");
    op.handle_timeout(Millis(160));
    let copy = op.poll_transmit().expect("a copy of tasks/get");
    let (first, second) = (body_of(&get), body_of(&copy));
    assert_eq!((&first["method"], &second["method"]), (&json!("tasks/get"), &json!("tasks/get")));
    assert_eq!(first["params"], second["params"]);
    assert_ne!(first["id"], second["id"]);
    let shown = crate::machines::server::tasks::get_response(&second, &server.record("cancelled"), Protocol::default())
        .unwrap();
    respond(&mut op, copy.exchange, 200, &json_head(), &shown.to_string(), Millis(161));
    let [Event::Done(done)] = &events(&mut op)[..] else { panic!() };
    assert_eq!(done["result"]["status"], "cancelled");
    assert_eq!(op.abandoned(), [get.exchange], "the hung tasks/get is the host's to cut");
}

#[test]
fn a_stream_mode_call_is_begun_again_only_while_nothing_was_answered() {
    let mode = Mode::Legacy;
    // Not known to be harmless twice: the cut is the failure.
    let mut op = Operation::new(Config::new(mode, ENDPOINT), legacy_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    cut(&mut op, post.exchange, Millis(1));
    assert!(op.poll_transmit().is_none());
    assert!(matches!(events(&mut op).pop(), Some(Event::Failed(_))));
    let mut op =
        Operation::new(Config { idempotent: true, ..Config::new(mode, ENDPOINT) }, legacy_request(), Millis(0))
            .unwrap();
    let post = op.poll_transmit().unwrap();
    // A stream that ends with no event and no id to resume from: the call is begun again.
    cut(&mut op, post.exchange, Millis(1));
    let again = op.poll_transmit().expect("begun again");
    let Incoming::Call(request) = incoming(mode, &again) else { panic!("not a call") };
    assert_eq!(request["id"], "7.1");
    assert!(events(&mut op).is_empty());

    // Asked, answered, then cut with no event id to resume from: the answer may have moved the
    // server on.
    let asked = format!("data: {}\n\n", server_request("s1", "elicitation/create"));
    op.handle_head(again.exchange, 200, &headers([("content-type", "text/event-stream")]), Millis(2)).unwrap();
    op.handle_body(again.exchange, asked.as_bytes(), Millis(2)).unwrap();
    let _ = events(&mut op);
    op.answer("s1", accept("name", json!("Ada")), Millis(3)).unwrap();
    let _answer = op.poll_transmit().unwrap();
    op.handle_end(again.exchange, Millis(4)).unwrap();
    let Some(Event::Failed(e)) = events(&mut op).pop() else { panic!("no failure") };
    assert_eq!(e.rule(), RuleId::SseStreamEnded);
    assert!(op.poll_transmit().is_none(), "not begun again after an answer");
}

/// A server that serves `2026-07-28` only: any other `_meta` version is
/// refused -32022 with the versions it serves; else the greeting completes.
fn versioned(request: &Value) -> Value {
    match crate::machines::server::check_version(request, &["2026-07-28"], Protocol::default()) {
        Err(e) => crate::machines::server::error_response(&request["id"], &e).0,
        Ok(()) => complete(&request["id"], "Hello"),
    }
}

fn next_version_call() -> Value {
    let mut request = call_request();
    request["params"]["_meta"][META_PROTOCOL_VERSION] = json!("2026-12-15");
    request
}

#[test]
fn a_refused_version_is_tried_again_under_one_both_sides_speak() {
    let mut server = Mrtr::new(versioned, |_| Body::Json);
    let config = Config { versions: vec!["2026-12-15".into(), "2026-07-28".into()], ..config() };
    let mut op = Operation::new(config, next_version_call(), Millis(0)).unwrap();
    let seen = server.drive(&mut op, answer_greet);
    assert_eq!(seen, [Event::Done(complete(&json!("1.1"), "Hello"))]);
    let versions: Vec<_> = server
        .log
        .iter()
        .filter(|e| e.from == Side::Client)
        .map(|e| e.message["params"]["_meta"][META_PROTOCOL_VERSION].clone())
        .collect();
    assert_eq!(versions, [json!("2026-12-15"), json!("2026-07-28")]);
}

#[test]
fn without_a_version_in_common_the_refusal_is_the_final_response() {
    for versions in [vec![], vec!["2026-12-15".to_string(), "2027-01-01".to_string()]] {
        let mut server = Mrtr::new(versioned, |_| Body::Json);
        let mut op = Operation::new(Config { versions, ..config() }, next_version_call(), Millis(0)).unwrap();
        let seen = server.drive(&mut op, answer_greet);
        let [Event::Done(refused)] = &seen[..] else { panic!("{seen:?}") };
        assert_eq!(
            (&refused["error"]["code"], &refused["error"]["data"]["supported"]),
            (&json!(-32022), &json!(["2026-07-28"]))
        );
        assert_eq!(server.log.len(), 2, "one request, one refusal");
    }
}

#[test]
fn a_version_the_server_refused_but_lists_is_tried_once_more_then_the_refusal_stands() {
    // The server lists 2026-07-28 as served and refuses it all the same (once, or always).
    for refusals in [1, usize::MAX] {
        let mut refused = 0;
        let tool = move |request: &Value| {
            refused += 1;
            if refused <= refusals {
                let e = crate::machines::server::check_version(request, &["2026-07-28"], Protocol::default())
                    .and_then(|()| crate::machines::server::check_version(request, &[], Protocol::default()))
                    .unwrap_err()
                    .with_data(json!({"supported": ["2026-07-28"], "requested": "2026-07-28"}));
                crate::machines::server::error_response(&request["id"], &e).0
            } else {
                complete(&request["id"], "Hello")
            }
        };
        let mut server = Mrtr::new(tool, |_| Body::Json);
        let config = Config { versions: vec!["2026-07-28".into()], ..config() };
        let mut op = Operation::new(config, call_request(), Millis(0)).unwrap();
        let seen = server.drive(&mut op, answer_greet);
        let [Event::Done(last)] = &seen[..] else { panic!("{seen:?}") };
        let sent = server.log.len() / 2;
        if refusals == 1 {
            assert_eq!((sent, last), (2, &complete(&json!("1.1"), "Hello")));
        } else {
            assert_eq!((sent, &last["error"]["code"]), (2, &json!(-32022)), "one more try per version, no loop");
        }
    }
}

#[test]
fn a_request_that_reached_no_server_waits_then_goes_again() {
    // MRTR: a gateway's 503 with Retry-After, then a connection that failed before any head: each
    // waits (the Retry-After, then the doubled backoff) and the round goes again under a new id
    // (the host vouches that the first request is harmless twice).
    let mut op = Operation::new(Config { idempotent: true, ..config() }, call_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    respond(
        &mut op,
        post.exchange,
        503,
        &headers([("retry-after", "2"), ("content-type", "text/html")]),
        "<html>busy</html>",
        Millis(10),
    );
    assert_eq!((op.poll_transmit(), op.poll_timeout()), (None, Some(Millis(2010))), "no sooner than Retry-After");
    op.handle_timeout(Millis(2009));
    assert!(op.poll_transmit().is_none());
    op.handle_timeout(Millis(2010));
    let second = op.poll_transmit().expect("the round again");
    assert_eq!(serde_json::from_str::<Value>(second.body.as_deref().unwrap()).unwrap()["id"], "1.1");
    op.handle_end(second.exchange, Millis(2020)).unwrap(); // refused: no head at all
    assert_eq!(op.poll_timeout(), Some(Millis(2120)), "the second wait: 50 ms doubled");
    op.handle_timeout(Millis(2120));
    let third = op.poll_transmit().unwrap();
    let done = complete(&json!("1.2"), "Hello");
    respond(
        &mut op,
        third.exchange,
        200,
        &headers([("content-type", "application/json")]),
        &done.to_string(),
        Millis(2130),
    );
    assert_eq!(events(&mut op), [Event::Done(done)]);
    assert!(op.is_drained());

    // The tries spent, the gateway's status is the call's failure.
    let mut op = Operation::new(Config { max_resends: 0, ..config() }, call_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    respond(&mut op, post.exchange, 502, &Headers::new(), "", Millis(1));
    let Some(Event::Failed(e)) = events(&mut op).pop() else { panic!("no failure") };
    assert_eq!(e.rule(), RuleId::HttpStatusUnexpected);
}

/// A legacy (`2025-11-25`) operation under `config` whose POST's stream asked
/// `s1` at 1 and whose answer went at 2: the operation, the POST, the server's
/// stream (to write more on it), and the answer's POST.
fn legacy_answered(config: Config) -> (Operation, Request, ServerStream, Request) {
    let mut op = Operation::new(config, legacy_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    let mut stream = ServerStream::new(Mode::Legacy, "k", 1).unwrap();
    stream.message(&server_request("s1", "elicitation/create")).unwrap();
    op.handle_head(post.exchange, 200, &stream.head(None), Millis(1)).unwrap();
    op.handle_body(post.exchange, stream.take().as_bytes(), Millis(1)).unwrap();
    let _ = events(&mut op);
    op.answer("s1", accept("name", json!("Ada")), Millis(2)).unwrap();
    let answer = op.poll_transmit().unwrap();
    (op, post, stream, answer)
}

#[test]
fn in_a_stream_mode_the_same_http_request_goes_again() {
    // Legacy: the answer's POST reached no server; the same POST goes again, and the call goes on.
    let mode = Mode::Legacy;
    let (mut op, post, mut stream, answer) = legacy_answered(Config::new(mode, ENDPOINT));
    respond(&mut op, answer.exchange, 502, &Headers::new(), "", Millis(3));
    assert_eq!(op.poll_timeout(), Some(Millis(53)));
    op.handle_timeout(Millis(53));
    let again = op.poll_transmit().expect("the answer again");
    assert_eq!((again.method, &again.body), (answer.method, &answer.body));
    assert_ne!(again.exchange, answer.exchange);
    respond(&mut op, again.exchange, 504, &Headers::new(), "", Millis(60));
    assert_eq!(op.poll_timeout(), Some(Millis(160)), "twice in a row: the wait doubles");
    op.handle_timeout(Millis(160));
    let third = op.poll_transmit().unwrap();
    respond(&mut op, third.exchange, 202, &Headers::new(), "", Millis(170));
    // A server answered: the next request that reaches none waits the first wait again.
    stream.message(&server_request("s2", "elicitation/create")).unwrap();
    op.handle_body(post.exchange, stream.take().as_bytes(), Millis(171)).unwrap();
    let _ = events(&mut op);
    op.answer("s2", accept("name", json!("Ada")), Millis(172)).unwrap();
    let second_answer = op.poll_transmit().unwrap();
    op.handle_end(second_answer.exchange, Millis(173)).unwrap(); // refused
    assert_eq!(op.poll_timeout(), Some(Millis(223)));
    op.handle_timeout(Millis(223));
    let last = op.poll_transmit().unwrap();
    respond(&mut op, last.exchange, 202, &Headers::new(), "", Millis(230));
    stream.message(&complete(&json!(7), "Hello, Ada")).unwrap();
    op.handle_body(post.exchange, stream.take().as_bytes(), Millis(61)).unwrap();
    op.handle_end(post.exchange, Millis(61)).unwrap();
    assert_eq!(events(&mut op), [Event::Done(complete(&json!(7), "Hello, Ada"))]);
    assert!(op.is_drained());
}

/// An operation written out at `then` and read back at `now` (another host's
/// clock), as a host restarting would: as text.
fn carried(op: &Operation, then: u64, now: u64, config: Config) -> Operation {
    let text = op.snapshot(Millis(then)).unwrap().to_string();
    Operation::restore(config, &serde_json::from_str(&text).unwrap(), Millis(now)).unwrap()
}

#[test]
fn an_operation_asking_is_carried_across_a_restart_and_finishes_compliant() {
    let mut server = Mrtr::new(greet, |_| Body::Json);
    let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    let first = op.poll_transmit().unwrap();
    server.serve(&mut op, &first, Millis(1));
    let [Event::InputRequired { round: 1, .. }] = &events(&mut op)[..] else { panic!() };
    // The host stops here; another one (another clock) goes on from the snapshot.
    let mut again = carried(&op, 1, 500, config());
    drop(op);
    let seen = server.drive(&mut again, answer_greet);
    let Event::InputRequired { round: 1, requests } = &seen[0] else { panic!("{seen:?}") };
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["name"], "the open question is asked again");
    assert_eq!(seen.last(), Some(&Event::Done(complete(&json!("1.2"), "Hello, 36"))));
    let ids: Vec<_> = server.log.iter().filter(|e| e.from == Side::Client).map(|e| e.message["id"].clone()).collect();
    assert_eq!(ids, [json!(1), json!("1.1"), json!("1.2")], "ids go on from the host's");
    assert_eq!(server.log[2].message["params"]["requestState"], "s1", "the exact requestState, carried");
    assert_eq!(server.violations(), []);
}

#[test]
fn a_round_in_flight_at_the_snapshot_goes_again_under_a_new_id() {
    let (op, retry) = at_the_retry(config());
    let sent: Value = serde_json::from_str(retry.body.as_deref().unwrap()).unwrap();
    let mut again = carried(&op, 5, 5, config());
    let resent = again.poll_transmit().expect("the round goes again");
    let resent: Value = serde_json::from_str(resent.body.as_deref().unwrap()).unwrap();
    assert_eq!((&sent["id"], &resent["id"]), (&json!("1.1"), &json!("1.2")));
    assert_eq!(sent["params"], resent["params"], "the same answers and requestState");
    assert!(events(&mut again).is_empty());
}

#[test]
fn answers_given_before_the_snapshot_stay_given() {
    let two = |request: &Value| {
        let id = &request["id"];
        if request["params"]["requestState"].is_null() {
            json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required",
                "inputRequests": {"name": ask("name", "string"), "age": ask("age", "integer")}, "requestState": "s"}})
        } else {
            let r = &request["params"]["inputResponses"];
            complete(id, &format!("{} {}", r["name"]["content"]["name"], r["age"]["content"]["age"]))
        }
    };
    let mut server = Mrtr::new(two, |_| Body::Json);
    let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    let first = op.poll_transmit().unwrap();
    server.serve(&mut op, &first, Millis(1));
    let _ = events(&mut op);
    op.answer("name", accept("name", json!("Ada")), Millis(2)).unwrap();
    let mut again = carried(&op, 2, 2, config());
    let seen = server.drive(&mut again, |_, _| accept("age", json!(36)));
    let Event::InputRequired { requests, .. } = &seen[0] else { panic!("{seen:?}") };
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["age"], "only what is still open");
    assert_eq!(seen.last(), Some(&Event::Done(complete(&json!("1.1"), "\"Ada\" 36"))));
}

#[test]
fn a_task_is_polled_after_the_wait_that_was_left() {
    let mut op = Operation::new(config(), task_call(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    let server = TaskServer { gets: 0, answered: false, log: Vec::new() };
    let created = crate::machines::server::tasks::created(&task_call(), &server.record("working")).unwrap();
    respond(
        &mut op,
        post.exchange,
        200,
        &headers([("content-type", "application/json")]),
        &created.to_string(),
        Millis(10),
    );
    assert_eq!(op.poll_timeout(), Some(Millis(60)));
    // 20 ms in, the host stops; the next one's clock reads 1000.
    let mut again = carried(&op, 30, 1000, config());
    assert!(again.poll_transmit().is_none());
    assert_eq!(again.poll_timeout(), Some(Millis(1030)), "the 30 ms that were left");
    again.handle_timeout(Millis(1030));
    let get: Value = serde_json::from_str(again.poll_transmit().unwrap().body.as_deref().unwrap()).unwrap();
    assert_eq!((get["method"].as_str(), get["params"]["taskId"].as_str()), (Some("tasks/get"), Some("t1")));
}

#[test]
fn what_cannot_be_carried_is_refused() {
    let rule = |r: Result<Value>| r.unwrap_err().rule();
    // Over.
    let mut server = Mrtr::new(greet, |_| Body::Json);
    let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    server.drive(&mut op, answer_greet);
    assert_eq!(rule(op.snapshot(Millis(9))), RuleId::UsageOutOfTurn);
    // A stream-mode call that answered a server request.
    let mode = Mode::Legacy;
    let mut op = Operation::new(Config::new(mode, ENDPOINT), legacy_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    let mut stream = ServerStream::new(mode, "k", 1).unwrap();
    stream.message(&server_request("e1", "elicitation/create")).unwrap();
    op.handle_head(post.exchange, 200, &headers([("content-type", "text/event-stream")]), Millis(1)).unwrap();
    op.handle_body(post.exchange, stream.take().as_bytes(), Millis(1)).unwrap();
    assert!(op.snapshot(Millis(1)).is_ok(), "asked, not answered yet: begun again on restore");
    let _ = events(&mut op);
    op.answer("e1", accept("name", json!("Ada")), Millis(2)).unwrap();
    assert_eq!(rule(op.snapshot(Millis(2))), RuleId::UsageOutOfTurn);
    // Another mode, another format, a broken snapshot.
    let (op, _) = at_the_retry(config());
    let snapshot = op.snapshot(Millis(3)).unwrap();
    let restore = |config: Config, s: &Value| Operation::restore(config, s, Millis(3)).map(|_| ()).unwrap_err().rule();
    assert_eq!(restore(Config::new(Mode::Sep1858, ENDPOINT), &snapshot), RuleId::UsageInvalidArgument);
    let mut v2 = snapshot.clone();
    v2["v"] = json!(2);
    assert_eq!(restore(config(), &v2), RuleId::UsageInvalidArgument);
    let mut broken = snapshot;
    broken["phase"] = json!({"type": "asking", "questions": {}, "answers": {"x": 1}});
    assert_eq!(restore(config(), &broken), RuleId::UsageInvalidArgument);
}

/// A host that gives an operation up names the request in flight in its
/// `notifications/cancelled`; while the operation waits for the host's
/// answers nothing is in flight, and once it is over, nothing.
#[test]
fn the_request_to_cancel_is_the_one_in_flight() {
    let mut op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    assert_eq!(op.request_id(), Some(&json!(1)));
    let cancel = crate::machines::client::cancelled(op.request_id().unwrap(), Some("the user left"));
    assert_eq!(
        cancel,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 1, "reason": "the user left"}})
    );
    let post = op.poll_transmit().unwrap();
    let asked = input_required(&json!(1), "name", ask("name", "string"), "s1");
    respond(
        &mut op,
        post.exchange,
        200,
        &headers([("content-type", "application/json")]),
        &asked.to_string(),
        Millis(1),
    );
    assert!(matches!(events(&mut op)[..], [Event::InputRequired { .. }]));
    assert_eq!(op.request_id(), None, "waiting for the answers: nothing in flight");
    op.answer("name", accept("name", json!("Ada")), Millis(2)).unwrap();
    assert_eq!(op.request_id(), Some(&json!("1.1")), "the retry is in flight");
    let mut server = Mrtr::new(greet, |_| Body::Json);
    server.drive(&mut op, answer_greet);
    assert_eq!(op.request_id(), None, "over: nothing to cancel");
}

/// A URL-mode ask carrying the `elicitationId` `2026-07-28` removed (rmcp's
/// and tower-mcp's servers): a client refuses the round by default; a
/// lenient one (a gateway's) reports the fault once and still asks.
#[cfg(feature = "std")]
#[test]
fn a_lenient_operation_asks_what_a_faulty_round_asks_and_says_so() {
    let url = json!({"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in",
        "url": "https://example.com/sign-in", "elicitationId": "e1"}});
    let asked = input_required(&json!(1), "sign_in", url, "s1").to_string();
    let run = |lenient: bool| {
        let mut config = config();
        config.call.lenient = lenient;
        let mut op = Operation::new(config, call_request(), Millis(0)).unwrap();
        let post = op.poll_transmit().unwrap();
        respond(&mut op, post.exchange, 200, &headers([("content-type", "application/json")]), &asked, Millis(1));
        let seen = events(&mut op);
        (op, seen)
    };
    let (_, strict) = run(false);
    assert!(matches!(&strict[..], [Event::Failed(e)] if e.rule() == RuleId::InputRequestInvalid), "{strict:?}");
    let (mut op, lenient) = run(true);
    match &lenient[..] {
        [Event::Violation(e), Event::InputRequired { requests, .. }] => {
            assert_eq!(e.rule(), RuleId::InputRequestInvalid);
            assert_eq!(requests["sign_in"]["params"]["elicitationId"], "e1", "asked as it came");
        }
        other => panic!("{other:?}"),
    }
    // An answer is judged by what can be read of the faulty question, its kind: a URL-mode
    // accept carries no content (turbomcp's `{}`), whatever the ask got wrong.
    let refused = op.answer("sign_in", json!({"action": "accept", "content": {}}), Millis(2)).unwrap_err();
    assert_eq!(refused.rule(), RuleId::RetryInputResponseInvalid, "{refused:?}");
    // A fit answer is taken and the retry goes out.
    op.answer("sign_in", json!({"action": "accept"}), Millis(2)).unwrap();
    let retry: Value = serde_json::from_str(op.poll_transmit().unwrap().body.as_deref().unwrap()).unwrap();
    assert_eq!(retry["params"]["inputResponses"]["sign_in"], json!({"action": "accept"}));
    assert_eq!(retry["params"]["requestState"], "s1");
}

#[test]
fn a_stream_mode_request_with_no_head_past_the_stall_is_begun_again_only_if_harmless_twice() {
    // Issue 43: SEP-1858 and SEP-1335 waited out a hung instance.
    let mode = Mode::Sep1858;
    let stalling = |idempotent: bool| {
        let mut c = Config::new(mode, ENDPOINT);
        c.call.stall_ms = Some(100);
        c.idempotent = idempotent;
        c
    };
    let mut op = Operation::new(stalling(false), legacy_request(), Millis(0)).unwrap();
    let _post = op.poll_transmit().unwrap();
    assert_eq!(op.poll_timeout(), None, "not known harmless twice: the server's time is its own");

    let mut op = Operation::new(stalling(true), legacy_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    assert_eq!(op.poll_timeout(), Some(Millis(100)));
    op.handle_timeout(Millis(100));
    let again = op.poll_transmit().expect("begun again");
    let Incoming::Call(request) = incoming(mode, &again) else { panic!("not a call") };
    assert_eq!(request["id"], "7.1");
    assert_eq!(op.abandoned(), [post.exchange], "the hung POST is the host's to cut");
    let mut stream = ServerStream::new(mode, "k", 1).unwrap();
    stream.message(&complete(&json!("7.1"), "Hello")).unwrap();
    respond(&mut op, again.exchange, 200, &stream.head(None), &stream.take(), Millis(120));
    assert_eq!(events(&mut op), [Event::Done(complete(&json!("7.1"), "Hello"))]);
    op.handle_end(post.exchange, Millis(130)).unwrap();
    assert!(op.is_drained() && events(&mut op).is_empty());
}

#[test]
fn a_task_created_already_complete_is_read_with_tasks_get_not_reported_empty() {
    // Found by the simulation's one-round tool: a task that asked nothing is completed in its
    // CreateTaskResult, which carries no result; the operation reported `{}`.
    let server = TaskServer { gets: 0, answered: false, log: Vec::new() };
    let mut op = Operation::new(config(), task_call(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    let created = crate::machines::server::tasks::created(&task_call(), &server.record("completed")).unwrap();
    assert!(created["result"].get("result").is_none(), "{created}");
    respond(&mut op, post.exchange, 200, &json_head(), &created.to_string(), Millis(10));
    assert!(events(&mut op).is_empty(), "no outcome yet");
    assert_eq!(op.poll_timeout(), Some(Millis(10)), "tasks/get at once");
    op.handle_timeout(Millis(10));
    let get = op.poll_transmit().expect("tasks/get");
    let shown =
        crate::machines::server::tasks::get_response(&body_of(&get), &server.record("completed"), Protocol::default())
            .unwrap();
    respond(&mut op, get.exchange, 200, &json_head(), &shown.to_string(), Millis(11));
    let [Event::Done(done)] = &events(&mut op)[..] else { panic!() };
    assert_eq!(done["result"]["content"][0]["text"], "Hello, Ada");
}

#[test]
fn cutting_an_exchange_its_call_gave_up_sends_nothing_more() {
    // Found by the cluster: the host cut a stalled resume as `abandoned()` invites it to, and the
    // operation took the cut for a request that reached no server and sent it again, each copy
    // stalling in turn.
    let mode = Mode::Legacy;
    let mut config = Config { idempotent: true, ..Config::new(mode, ENDPOINT) };
    config.call.stall_ms = Some(100);
    let mut op = Operation::new(config, legacy_request(), Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    op.handle_head(post.exchange, 200, &headers([("content-type", "text/event-stream")]), Millis(1)).unwrap();
    op.handle_body(post.exchange, b"id: e1\n\n", Millis(1)).unwrap();
    let due = op.poll_timeout().unwrap().0;
    op.handle_timeout(Millis(due));
    let get = op.poll_transmit().expect("the stalled stream resumed");
    assert_eq!((get.method, header(&get.headers, "last-event-id")), ("GET", Some("e1")));
    assert_eq!(op.abandoned(), [post.exchange]);
    op.handle_end(post.exchange, Millis(due + 1)).unwrap();
    assert!(op.poll_transmit().is_none() && events(&mut op).is_empty(), "the cut is no news");
    let next = op.poll_timeout().unwrap().0;
    assert!((due + 50..=due + 100).contains(&next), "only the resume's own stall is awaited: {due}, {next}");
    // The resume stalls too: a copy goes; once it has its head, cutting the first sends nothing more.
    op.handle_timeout(Millis(next));
    let again = op.poll_transmit().expect("the resume again");
    assert!(op.abandoned().is_empty(), "the first resume may still answer");
    let mut stream = ServerStream::new(mode, "k", 2).unwrap();
    stream.message(&complete(&json!(7), "Hello")).unwrap();
    op.handle_head(again.exchange, 200, &stream.head(None), Millis(next + 5)).unwrap();
    assert_eq!(op.abandoned(), [get.exchange]);
    op.handle_end(get.exchange, Millis(next + 6)).unwrap();
    assert!(op.poll_transmit().is_none());
    op.handle_body(again.exchange, stream.take().as_bytes(), Millis(next + 10)).unwrap();
    op.handle_end(again.exchange, Millis(next + 10)).unwrap();
    assert_eq!(events(&mut op), [Event::Done(complete(&json!(7), "Hello"))]);
    assert!(op.is_drained());
}

#[test]
fn a_first_request_in_flight_at_the_snapshot_is_not_sent_again_unless_harmless_twice() {
    // Found by the simulation's one-round tool: a host restarted from a snapshot taken while the
    // first request was in flight, sent it again, and the effect ran twice.
    let op = Operation::new(config(), call_request(), Millis(0)).unwrap();
    let mut again = carried(&op, 1, 500, config());
    assert!(again.poll_transmit().is_none(), "not sent again");
    let Some(Event::Failed(e)) = events(&mut again).pop() else { panic!("no failure") };
    assert_eq!(e.rule(), RuleId::HttpStatusUnexpected);
    assert!(again.is_drained());
    let vouched = Config { idempotent: true, ..config() };
    let mut again = carried(&op, 1, 500, vouched);
    assert!(again.poll_transmit().is_some(), "harmless twice: sent again");
}

#[test]
fn a_request_waiting_to_go_again_after_a_gateway_is_not_copied_meanwhile() {
    // Found by the simulation: a resume answered 503 waited its backoff, and the call, not knowing,
    // copied it as stalled: a reconnect sooner than the server's `retry`.
    let mode = Mode::Legacy;
    let mut config = Config::new(mode, ENDPOINT);
    config.call.stall_ms = Some(100);
    config.backoff_ms = 300;
    let (mut op, _post, _stream, answer) = legacy_answered(config);
    respond(&mut op, answer.exchange, 502, &Headers::new(), "", Millis(3));
    // Until its backoff is over, the answer is not sent (the silent stream may be resumed meanwhile).
    let mut posts = Vec::new();
    while let Some(at) = op.poll_timeout().filter(|at| *at <= Millis(303)) {
        op.handle_timeout(at);
        while let Some(sent) = op.poll_transmit() {
            if sent.method == "POST" {
                posts.push((at, sent.body));
            }
        }
    }
    assert_eq!(posts, [(Millis(303), answer.body)], "the answer again, once, after its backoff");
}
