//! Two machines under a simulated clock: a [`Call`] against a server built
//! from [`serve`](crate::http::serve) (its [`ServerStream`] and
//! [`read_request`]), every body delivered in small chunks, per mode.

use super::*;
use crate::base::limits::Limits;
use crate::base::protocol::Protocol;
use crate::machines::http::header;
use crate::machines::http::serve::{read_request, stream_url, Incoming, ServerStream, WAITING};
use alloc::{format, string::ToString};

const ENDPOINT: &str = "http://127.0.0.1:8000/mcp";

fn request() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}})
}

fn elicit(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": format!("s{id}"), "method": "elicitation/create",
           "params": {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}})
}

fn accept(request: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"name": "octocat"}}})
}

fn result() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "Hello, octocat"}]}})
}

/// The server's side of the wire: reads what the call sent.
fn incoming(mode: Mode, sent: &Request) -> Incoming {
    let body = sent.body.as_deref().unwrap_or_default().as_bytes();
    read_request(mode, sent.method, &sent.url, &sent.headers, body, Protocol::V2025_11_25, &Limits::DEFAULT).unwrap()
}

/// Delivers a whole response, 5 bytes at a time, ending it at `now`.
fn respond(call: &mut Call, exchange: u64, status: u16, headers: &Headers, body: &str, now: Millis) {
    call.handle_head(exchange, status, headers, now).unwrap();
    for chunk in body.as_bytes().chunks(5) {
        call.handle_body(exchange, chunk, now).unwrap();
    }
    call.handle_end(exchange, now).unwrap();
}

fn events(call: &mut Call) -> Vec<Event> {
    core::iter::from_fn(|| call.poll_event()).collect()
}

fn server_requests(call: &mut Call) -> Vec<Value> {
    events(call)
        .into_iter()
        .map(|e| match e {
            Event::ServerRequest(r) => r,
            other => panic!("expected a server request, got {other:?}"),
        })
        .collect()
}

fn sse_head() -> Headers {
    headers([("content-type", "text/event-stream")])
}

#[test]
fn streamable_json_answer() {
    let mut call = Call::new(CallConfig::new(Mode::Streamable, ENDPOINT), &request(), Millis(0)).unwrap();
    let post = call.poll_transmit().unwrap();
    assert_eq!((post.method, post.url.as_str()), ("POST", ENDPOINT));
    assert!(matches!(incoming(Mode::Streamable, &post), Incoming::Call(r) if r == request()));
    respond(&mut call, 1, 200, &headers([("content-type", "application/json")]), &result().to_string(), Millis(3));
    assert_eq!(events(&mut call), [Event::Response(result())]);
    assert!(call.is_done() && call.poll_transmit().is_none() && call.poll_timeout().is_none());
}

#[test]
fn legacy_answers_each_request_on_its_own_post() {
    let mode = Mode::Legacy;
    let mut call = Call::new(CallConfig::new(mode, ENDPOINT), &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    let mut s = ServerStream::new(mode, "k", 1).unwrap();
    s.ask(&[elicit(1)], 0).unwrap();
    call.handle_head(1, 200, &s.head(None), Millis(1)).unwrap();
    call.handle_body(1, s.take().as_bytes(), Millis(1)).unwrap();
    let asked = server_requests(&mut call);
    call.answer(&accept(&asked[0]), Millis(2)).unwrap();
    let answer = call.poll_transmit().unwrap();
    assert_eq!(answer.exchange, 2);
    assert!(matches!(incoming(mode, &answer), Incoming::Messages(m) if m == [accept(&asked[0])]));
    respond(&mut call, 2, 202, &Headers::new(), "", Millis(3));
    s.message(&result()).unwrap();
    call.handle_body(1, s.take().as_bytes(), Millis(4)).unwrap();
    assert_eq!(events(&mut call), [Event::Response(result())]);
}

#[test]
fn sep_1858_buffers_until_input_required_then_posts_with_last_event_id() {
    let mode = Mode::Sep1858;
    let mut call = Call::new(CallConfig::new(mode, ENDPOINT), &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    // Instance A asks twice in one round, then disconnects.
    let mut a = ServerStream::new(mode, "c42", 1).unwrap();
    let last = a.ask(&[elicit(1), elicit(2)], 0).unwrap();
    assert_eq!(a.message(&result()).unwrap_err().rule(), RuleId::UsageOutOfTurn);
    let bytes = a.take() + "event: message\ndata: {\"late\": true}\n\n";
    respond(&mut call, 1, 200, &a.head(None), &bytes, Millis(10));
    let asked = server_requests(&mut call);
    assert_eq!(asked.len(), 2, "the late event after input_required is not read");
    assert!(call.poll_timeout().is_none(), "no reconnect after input_required");
    call.answer(&accept(&asked[0]), Millis(11)).unwrap();
    assert!(call.poll_transmit().is_none(), "answers wait until every request is answered");
    call.answer(&accept(&asked[1]), Millis(12)).unwrap();
    let post = call.poll_transmit().unwrap();
    assert_eq!(header(&post.headers, "last-event-id"), Some(last.as_str()));
    // Instance B takes the call up from the key alone.
    let Incoming::Answers { key, responses } = incoming(mode, &post) else { panic!("not answers") };
    assert_eq!((key.as_str(), responses.len()), ("c42", 2));
    let mut b = ServerStream::new(mode, &key, 5).unwrap();
    b.message(&result()).unwrap();
    respond(&mut call, post.exchange, 200, &b.head(None), &b.take(), Millis(20));
    assert_eq!(events(&mut call), [Event::Response(result())]);
}

#[test]
fn sep_1335_reconnects_after_retry_gets_204_and_posts_to_the_stream_url() {
    let mode = Mode::Sep1335;
    let mut call = Call::new(CallConfig::new(mode, ENDPOINT), &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    let url = stream_url(ENDPOINT, "c7").unwrap();
    let mut a = ServerStream::new(mode, "c7", 1).unwrap();
    a.ask(&[elicit(1)], 700).unwrap();
    respond(&mut call, 1, 200, &a.head(Some("/mcp?stream=c7")), &a.take(), Millis(100));
    let asked = server_requests(&mut call);
    assert_eq!(call.poll_timeout(), Some(Millis(800)), "no sooner than retry after the end");
    call.answer(&accept(&asked[0]), Millis(150)).unwrap();
    assert!(call.poll_transmit().is_none(), "answers wait for 204");
    call.handle_timeout(Millis(799));
    assert!(call.poll_transmit().is_none());
    call.handle_timeout(Millis(800));
    let get = call.poll_transmit().unwrap();
    assert_eq!((get.method, get.url.as_str()), ("GET", url.as_str()));
    assert!(matches!(incoming(mode, &get), Incoming::Resume { key: Some(k), .. } if k == "c7"));
    respond(&mut call, get.exchange, WAITING, &Headers::new(), "", Millis(801));
    let post = call.poll_transmit().unwrap();
    assert_eq!((post.method, post.url.as_str()), ("POST", url.as_str()));
    let Incoming::Answers { key, responses } = incoming(mode, &post) else { panic!("not answers") };
    assert_eq!((key.as_str(), responses), ("c7", alloc::vec![accept(&asked[0])]));
    let mut b = ServerStream::new(mode, &key, 3).unwrap();
    b.message(&result()).unwrap();
    respond(&mut call, post.exchange, 200, &b.head(Some(&url)), &b.take(), Millis(900));
    assert_eq!(events(&mut call), [Event::Response(result())]);
}

#[test]
fn a_cross_origin_stream_url_is_not_followed() {
    let mut call = Call::new(CallConfig::new(Mode::Sep1335, ENDPOINT), &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    let head = headers([("content-type", "text/event-stream"), ("link", "<http://127.0.0.1:9000/s>; rel=stream")]);
    respond(&mut call, 1, 200, &head, "", Millis(5));
    let e = events(&mut call);
    assert!(matches!(&e[0], Event::Violation(v) if v.rule() == RuleId::SseStreamUrlCrossOrigin), "{e:?}");
    assert!(matches!(&e[1], Event::Failed(f) if f.rule() == RuleId::SseStreamEnded), "{e:?}");
}

#[test]
fn a_cut_stream_resumes_with_last_event_id_after_the_default_wait() {
    let mut call = Call::new(CallConfig::new(Mode::Legacy, ENDPOINT), &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    respond(
        &mut call,
        1,
        200,
        &sse_head(),
        "id: k.1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n",
        Millis(10),
    );
    assert!(matches!(events(&mut call)[..], [Event::Message(_)]));
    assert_eq!(call.poll_timeout(), Some(Millis(1010)));
    call.handle_timeout(Millis(1010));
    let get = call.poll_transmit().unwrap();
    assert_eq!((get.method, header(&get.headers, "last-event-id")), ("GET", Some("k.1")));
    respond(&mut call, get.exchange, 200, &sse_head(), &format!("id: k.2\ndata: {}\n\n", result()), Millis(1020));
    assert_eq!(events(&mut call), [Event::Response(result())]);
}

#[test]
fn reconnects_that_bring_nothing_are_bounded() {
    let config = CallConfig { default_retry_ms: 0, ..CallConfig::new(Mode::Legacy, ENDPOINT) };
    let mut call = Call::new(config, &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    respond(&mut call, 1, 200, &sse_head(), "id: k.1\n\n", Millis(0));
    let mut reconnects = 0;
    while let Some(at) = call.poll_timeout() {
        call.handle_timeout(at);
        let Some(get) = call.poll_transmit() else { break };
        reconnects += 1;
        respond(&mut call, get.exchange, 200, &sse_head(), "", at);
    }
    assert_eq!(reconnects, StreamLimits::DEFAULT.max_reconnects);
    assert!(matches!(&events(&mut call)[..], [Event::Failed(e)] if e.rule() == RuleId::SseStreamEnded));
}

#[test]
fn an_input_request_on_a_2026_stream_is_a_violation_answered_32602() {
    let mut call = Call::new(CallConfig::new(Mode::Streamable, ENDPOINT), &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    respond(&mut call, 1, 200, &sse_head(), &format!("data: {}\n\ndata: {}\n\n", elicit(1), result()), Millis(1));
    let reply = call.poll_transmit().unwrap();
    assert_eq!(
        reply.body.map(|b| serde_json::from_str::<Value>(&b).unwrap()["error"]["code"].clone()),
        Some(json!(-32602))
    );
    let e = events(&mut call);
    assert!(matches!(&e[0], Event::Violation(v) if v.rule() == RuleId::ServerRequestOnStream));
    assert_eq!(e[1], Event::Response(result()));
}

#[test]
fn hostile_streams_are_bounded_with_rule_ids() {
    let failed = |config: CallConfig, head: Headers, body: &str| {
        let mut call = Call::new(config, &request(), Millis(0)).unwrap();
        let _post = call.poll_transmit().unwrap();
        respond(&mut call, 1, 200, &head, body, Millis(0));
        match events(&mut call).pop() {
            Some(Event::Failed(e)) => e.rule(),
            other => panic!("expected a failure, got {other:?}"),
        }
    };
    let legacy = || CallConfig::new(Mode::Legacy, ENDPOINT);
    assert_eq!(failed(legacy(), sse_head(), "retry: 18446744073709551615\n\n"), RuleId::LimitExceeded);
    assert_eq!(failed(legacy(), sse_head(), "retry: 18446744073709551616\n\n"), RuleId::LimitExceeded);
    let small = CallConfig { limits: StreamLimits { max_events: 100, ..StreamLimits::DEFAULT }, ..legacy() };
    assert_eq!(failed(small, sse_head(), &"id: x\n\n".repeat(10_000)), RuleId::LimitExceeded);
    let tiny = Limits { max_message_bytes: 1000, ..Limits::DEFAULT };
    let tiny = CallConfig { settings: legacy().settings.with_limits(tiny), ..legacy() };
    assert_eq!(failed(tiny, sse_head(), &"x".repeat(100_000)), RuleId::LimitExceeded);
    let links = alloc::vec!["<s>; rel=next"; 1000].join(", ");
    let head = headers([("content-type", "text/event-stream"), ("link", links.as_str())]);
    assert_eq!(failed(CallConfig::new(Mode::Sep1335, ENDPOINT), head, ""), RuleId::LimitExceeded);
    assert_eq!(failed(legacy(), sse_head(), "data: \u{0}not json\n\n"), RuleId::JsonrpcParseError);
    let json = headers([("content-type", "application/json")]);
    assert_eq!(failed(legacy(), json.clone(), "{\"jsonrpc\":"), RuleId::JsonrpcParseError);
    assert_eq!(failed(legacy(), json, "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}"), RuleId::HttpStatusUnexpected);
    let mut call = Call::new(legacy(), &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    call.handle_head(1, 200, &sse_head(), Millis(0)).unwrap();
    call.handle_body(1, b"data: \xff\xfe\n\n", Millis(0)).unwrap();
    assert!(matches!(&events(&mut call)[..], [Event::Failed(e)] if e.rule() == RuleId::JsonrpcParseError));
}

#[test]
fn misuse_is_a_usage_error() {
    let mut call = Call::new(CallConfig::new(Mode::Legacy, ENDPOINT), &request(), Millis(0)).unwrap();
    assert_eq!(call.handle_body(9, b"x", Millis(0)).unwrap_err().rule(), RuleId::UsageUnknownHandle);
    assert_eq!(call.handle_body(1, b"x", Millis(0)).unwrap_err().rule(), RuleId::UsageOutOfTurn);
    assert_eq!(call.answer(&accept(&elicit(1)), Millis(0)).unwrap_err().rule(), RuleId::UsageOutOfTurn);
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        Call::new(CallConfig::new(Mode::Legacy, ENDPOINT), &notification, Millis(0)).unwrap_err().rule(),
        RuleId::UsageInvalidArgument
    );
    assert_eq!(
        Call::new(CallConfig::new(Mode::Legacy, "not a url"), &request(), Millis(0)).unwrap_err().rule(),
        RuleId::UsageInvalidArgument
    );
}

fn stalling(mode: Mode) -> CallConfig {
    CallConfig { stall_ms: Some(100), ..CallConfig::new(mode, ENDPOINT) }
}

/// A SEP-1858 call with `stall_ms` 100 whose first round was asked at 10 and
/// answered at 12: the call, and the POST of the answers.
fn answered_sep_1858() -> (Call, Request) {
    let mode = Mode::Sep1858;
    let mut call = Call::new(stalling(mode), &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    assert_eq!(call.poll_timeout(), None, "the call's own request is not given up here");
    let mut a = ServerStream::new(mode, "c42", 1).unwrap();
    a.ask(&[elicit(1)], 0).unwrap();
    respond(&mut call, 1, 200, &a.head(None), &a.take(), Millis(10));
    let asked = server_requests(&mut call);
    call.answer(&accept(&asked[0]), Millis(12)).unwrap();
    let answers = call.poll_transmit().unwrap();
    (call, answers)
}

#[test]
fn a_post_of_answers_with_no_head_is_copied_once_it_stalls_and_the_first_head_wins() {
    // Issue 43: the answers reached a hung instance; the same POST goes again (the balancer picks
    // another) while the first stays open (a server slow to take it, behind a lock, may yet answer);
    // once one has its head, the other is the host's to cut.
    let mode = Mode::Sep1858;
    let (mut call, answers) = answered_sep_1858();
    let due = call.poll_timeout().expect("a stall to wait for").0;
    assert!((62..=112).contains(&due), "between half the stall and all of it after it went: {due}");
    call.handle_timeout(Millis(due - 1));
    assert!(call.poll_transmit().is_none());
    call.handle_timeout(Millis(due));
    let again = call.poll_transmit().expect("the answers again");
    assert_eq!(
        (again.method, &again.url, &again.headers, &again.body),
        (answers.method, &answers.url, &answers.headers, &answers.body)
    );
    assert!(call.abandoned().is_empty(), "the first copy may still answer");
    let mut b = ServerStream::new(mode, "c42", 5).unwrap();
    b.message(&result()).unwrap();
    call.handle_head(again.exchange, 200, &b.head(None), Millis(due + 10)).unwrap();
    assert_eq!(call.abandoned(), [answers.exchange], "the copy answered: the hung one is the host's to cut");
    call.handle_body(again.exchange, b.take().as_bytes(), Millis(due + 10)).unwrap();
    call.handle_end(again.exchange, Millis(due + 10)).unwrap();
    assert_eq!(events(&mut call), [Event::Response(result())]);
    // The hung instance answers at last, or the host cuts it: nothing more happens.
    call.handle_end(answers.exchange, Millis(9000)).unwrap();
    assert!(events(&mut call).is_empty() && call.poll_transmit().is_none());
}

#[test]
fn a_copy_that_no_server_answered_is_no_news_while_another_may_answer() {
    let mode = Mode::Sep1858;
    let (mut call, first) = answered_sep_1858();
    let due = call.poll_timeout().unwrap().0;
    call.handle_timeout(Millis(due));
    let copy = call.poll_transmit().unwrap();
    // The copy's connection fails, and a gateway answers 502 to it: the first may still answer.
    call.handle_end(copy.exchange, Millis(due + 1)).unwrap();
    assert!(events(&mut call).is_empty() && !call.is_done());
    let mut b = ServerStream::new(mode, "c42", 5).unwrap();
    b.message(&result()).unwrap();
    respond(&mut call, first.exchange, 200, &b.head(None), &b.take(), Millis(due + 20));
    assert_eq!(events(&mut call), [Event::Response(result())]);
}

#[test]
fn a_stream_silent_past_the_stall_resumes_from_its_last_event_and_a_hung_resume_goes_again() {
    let mode = Mode::Legacy;
    let mut call = Call::new(stalling(mode), &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    call.handle_head(1, 200, &sse_head(), Millis(5)).unwrap();
    call.handle_body(1, b"id: e1\ndata: \n\n", Millis(6)).unwrap();
    let due = call.poll_timeout().expect("a stall to wait for").0;
    assert!((56..=106).contains(&due), "silent since its last bytes: {due}");
    call.handle_timeout(Millis(due));
    let get = call.poll_transmit().expect("a resume");
    assert_eq!((get.method, header(&get.headers, "last-event-id")), ("GET", Some("e1")));
    assert_eq!(call.abandoned(), [1]);
    // The resume reached the hung instance too: a copy goes, after the same wait.
    let next = call.poll_timeout().expect("the resume's stall").0;
    assert!((due + 50..=due + 100).contains(&next), "{due} then {next}");
    call.handle_timeout(Millis(next));
    let again = call.poll_transmit().expect("the resume again");
    assert_eq!((again.method, header(&again.headers, "last-event-id")), ("GET", Some("e1")));
    assert_eq!(call.abandoned(), [1]);
    respond(&mut call, again.exchange, 200, &sse_head(), &format!("id: e2\ndata: {}\n\n", result()), Millis(next + 10));
    assert_eq!(call.abandoned(), [1, get.exchange], "the copy won: the first resume is the host's to cut too");
    assert_eq!(events(&mut call), [Event::Response(result())]);
}

#[test]
fn give_ups_are_bounded_then_the_call_waits_for_the_server() {
    let mode = Mode::Legacy;
    let config = CallConfig { limits: StreamLimits { max_reconnects: 2, ..StreamLimits::DEFAULT }, ..stalling(mode) };
    let mut call = Call::new(config, &request(), Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    call.handle_head(1, 200, &sse_head(), Millis(0)).unwrap();
    call.handle_body(1, b"id: e1\n\n", Millis(0)).unwrap();
    let mut at = Vec::new();
    while let Some(due) = call.poll_timeout() {
        at.push(due.0);
        call.handle_timeout(due);
        while call.poll_transmit().is_some() {}
    }
    assert_eq!(at.len(), 2, "two give-ups, then no more: {at:?}");
    assert!((50..=100).contains(&at[0]) && (at[0] + 50..=at[0] + 100).contains(&at[1]), "{at:?}");
    assert!(events(&mut call).is_empty(), "a silence is no failure");
    // The last resume answers at last: the call goes on.
    let last = 3;
    respond(&mut call, last, 200, &sse_head(), &format!("id: e2\ndata: {}\n\n", result()), Millis(9000));
    assert_eq!(events(&mut call), [Event::Response(result())]);
}

#[test]
fn calls_that_waited_alike_do_not_give_up_in_step() {
    // Found by the cluster: behind a plain round robin, calls whose stalls fell due together sent
    // their requests again in step, and the same call's reached the hung instance every time.
    let mut due = alloc::collections::BTreeSet::new();
    for id in 1..=20 {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "greet"}});
        let mut call = Call::new(stalling(Mode::Legacy), &request, Millis(0)).unwrap();
        let _post = call.poll_transmit().unwrap();
        call.handle_head(1, 200, &sse_head(), Millis(0)).unwrap();
        call.handle_body(1, b"id: e1\n\n", Millis(0)).unwrap();
        let at = call.poll_timeout().unwrap().0;
        assert!((50..=100).contains(&at), "{at}");
        due.insert(at);
    }
    assert!(due.len() >= 10, "20 calls, {} distinct times: {due:?}", due.len());
}
