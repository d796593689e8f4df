//! Walks [`CALL_TRANSITIONS`](super::state::CALL_TRANSITIONS): every state
//! is reachable from a start, every listed move is made by driving a real
//! [`Call`] with the host's inputs (the moves it made are compared with the
//! table, both ways), and every move the table does not list is refused in
//! a state the call was driven to.

use super::state::CALL_TRANSITIONS;
use super::*;
use alloc::{collections::BTreeSet, format};

const ENDPOINT: &str = "http://127.0.0.1:8000/mcp";

fn start(mode: Mode) -> Call {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet"}});
    let mut call = Call::new(CallConfig::new(mode, ENDPOINT), &request, Millis(0)).unwrap();
    let _post = call.poll_transmit().unwrap();
    call
}

fn elicit(id: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create",
           "params": {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object"}}})
    .to_string()
}

fn accept(id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept", "content": {}}})
}

fn result_block() -> String {
    format!("data: {}\n\n", json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}}))
}

fn sse(link: Option<&str>) -> Headers {
    let mut head = headers([("content-type", "text/event-stream")]);
    if let Some(link) = link {
        head.push(("link".into(), format!("<{link}>; rel=stream")));
    }
    head
}

/// Opens `exchange` with `status` and `head`, feeds `body`, and ends it when `end`.
fn feed(call: &mut Call, exchange: u64, status: u16, head: &Headers, body: &str, end: bool) {
    call.handle_head(exchange, status, head, Millis(1)).unwrap();
    more(call, exchange, body, end);
}

/// Feeds more of `exchange`'s body, and ends it when `end`.
fn more(call: &mut Call, exchange: u64, body: &str, end: bool) {
    call.handle_body(exchange, body.as_bytes(), Millis(1)).unwrap();
    if end {
        call.handle_end(exchange, Millis(1)).unwrap();
    }
}

/// Answers the server request `id`, which the call reported.
fn answer(call: &mut Call, id: &str) {
    call.answer(&accept(id), Millis(2)).unwrap();
}

/// The reconnect time came.
fn reconnect(call: &mut Call) {
    let at = call.poll_timeout().expect("a reconnect to wait for");
    call.handle_timeout(at);
}

/// `mode`'s call with an answer POSTed on its own (exchange 2, open), its
/// stream then read to `more` and cut: awaiting a reconnect.
fn cut_with_an_answer_open(mode: Mode, more: &str) -> Call {
    let mut call = start(mode);
    feed(&mut call, 1, 200, &sse(None), &format!("id: e1\ndata: {}\n\n", elicit("s1")), false);
    answer(&mut call, "s1");
    self::more(&mut call, 1, more, true);
    call
}

/// A SEP-1858 call asked `s2` after `buffer_input` while its answer to `s1`
/// (exchange 2) is open: awaiting answers.
fn asked_with_an_answer_open() -> Call {
    let mut call = start(Mode::Sep1858);
    feed(&mut call, 1, 200, &sse(None), &format!("data: {}\n\n", elicit("s1")), false);
    answer(&mut call, "s1");
    let rest = format!("event: buffer_input\n\ndata: {}\n\nevent: input_required\nid: e3\n\n", elicit("s2"));
    more(&mut call, 1, &rest, true);
    call
}

/// A SEP-1335 call whose stream ended and whose resume (exchange 2) is out:
/// `asked` is asked first, and answered when `answered`.
fn resumed_1335(asked: bool, answered: bool) -> Call {
    let mut call = start(Mode::Sep1335);
    let body = if asked { format!("retry: 100\ndata: {}\n\n", elicit("s1")) } else { "retry: 100\n\n".into() };
    feed(&mut call, 1, 200, &sse(Some("/mcp?stream=c7")), &body, true);
    if answered {
        answer(&mut call, "s1");
    }
    reconnect(&mut call);
    call
}

/// Every scenario, each driving a call through some of the table's moves.
fn scenarios() -> Vec<Call> {
    let json = headers([("content-type", "application/json")]);
    let result = json!({"jsonrpc": "2.0", "id": 1, "result": {}}).to_string();
    let mut calls = Vec::new();
    // Reading: the response; a fault; a cut, the reconnect, and the response on the resumed stream.
    let mut c = start(Mode::Legacy);
    feed(&mut c, 1, 200, &json, &result, true);
    calls.push(c);
    let mut c = start(Mode::Legacy);
    feed(&mut c, 1, 200, &json, "{", true);
    calls.push(c);
    let mut c = start(Mode::Streamable);
    feed(&mut c, 1, 200, &sse(None), "id: k.1\n\n", true);
    reconnect(&mut c);
    feed(&mut c, 2, 200, &sse(None), &result_block(), true);
    calls.push(c);
    // Awaiting a reconnect (with and without `buffer_input`), while an answer's POST is open: its
    // response carries the call's, is a stream that is cut too, or is refused.
    for (mode, more) in [(Mode::Legacy, ""), (Mode::Sep1858, "event: buffer_input\n\n")] {
        let mut c = cut_with_an_answer_open(mode, more);
        feed(&mut c, 2, 200, &sse(None), &result_block(), true);
        calls.push(c);
        let mut c = cut_with_an_answer_open(mode, more);
        feed(&mut c, 2, 200, &sse(None), "id: e2\n\n", true);
        reconnect(&mut c);
        calls.push(c);
        let mut c = cut_with_an_answer_open(mode, more);
        feed(&mut c, 2, 500, &json, "", true);
        calls.push(c);
    }
    // SEP-1858: `input_required` after `buffer_input` or without it, the answers' POST, its response.
    for buffer in ["event: buffer_input\n\n", ""] {
        let mut c = start(Mode::Sep1858);
        let body = format!("{buffer}data: {}\n\nevent: input_required\nid: e2\n\n", elicit("s1"));
        feed(&mut c, 1, 200, &sse(None), &body, true);
        answer(&mut c, "s1");
        feed(&mut c, 2, 200, &json, &result, true);
        calls.push(c);
    }
    // SEP-1858 awaiting answers while an earlier answer's POST is open: its response carries the
    // call's, or is refused.
    let mut c = asked_with_an_answer_open();
    feed(&mut c, 2, 200, &sse(None), &result_block(), true);
    calls.push(c);
    let mut c = asked_with_an_answer_open();
    feed(&mut c, 2, 500, &json, "", true);
    calls.push(c);
    // SEP-1335: a resume answered 204, the answers POSTed to the stream URL, the response there; a
    // 204 with nothing to POST; a fault on the stream.
    let mut c = resumed_1335(true, true);
    feed(&mut c, 2, 204, &Headers::new(), "", true);
    feed(&mut c, 3, 200, &sse(None), &result_block(), true);
    calls.push(c);
    let mut c = resumed_1335(false, false);
    feed(&mut c, 2, 204, &Headers::new(), "", true);
    calls.push(c);
    let mut c = start(Mode::Sep1335);
    feed(&mut c, 1, 200, &sse(None), "data: {\n\n", true);
    calls.push(c);
    calls
}

/// A call driven to `state`.
fn reach(state: CallState) -> Call {
    let mut call = match state {
        CallState::Reading => start(Mode::Legacy),
        CallState::Buffering => start(Mode::Sep1335),
        CallState::AwaitingReconnect => cut_with_an_answer_open(Mode::Legacy, ""),
        CallState::BufferingAwaitingReconnect => cut_with_an_answer_open(Mode::Sep1858, "event: buffer_input\n\n"),
        CallState::AwaitingAnswers => asked_with_an_answer_open(),
        CallState::Ended => {
            let mut c = resumed_1335(true, false);
            feed(&mut c, 2, 204, &Headers::new(), "", true);
            c
        }
        CallState::Done => scenarios().swap_remove(0),
        CallState::Failed => scenarios().swap_remove(1),
    };
    assert_eq!(call.state, state);
    while call.poll_transmit().is_some() {}
    while call.poll_event().is_some() {}
    call
}

#[test]
fn every_state_is_reachable_from_a_start() {
    let mut seen: Vec<CallState> = Mode::ALL.iter().map(|m| CallState::start(*m)).collect();
    let mut i = 0;
    while i < seen.len() {
        for (from, _, to) in CALL_TRANSITIONS {
            if *from == seen[i] && !seen.contains(to) {
                seen.push(*to);
            }
        }
        i += 1;
    }
    for state in CallState::ALL {
        assert!(seen.contains(&state), "{state:?} is unreachable");
    }
}

#[test]
fn driving_real_calls_makes_every_listed_move_and_no_other() {
    let mut made = BTreeSet::new();
    for call in scenarios() {
        for (from, input, to) in &call.trail {
            made.insert(format!("{from:?} --{input:?}-> {to:?}"));
        }
    }
    let listed: BTreeSet<_> = CALL_TRANSITIONS.iter().map(|(f, i, t)| format!("{f:?} --{i:?}-> {t:?}")).collect();
    let missing: Vec<_> = listed.difference(&made).collect();
    assert!(missing.is_empty(), "listed but never made: {missing:?}");
    assert_eq!(made, listed);
}

#[test]
fn every_move_not_listed_is_refused_and_changes_nothing() {
    for state in CallState::ALL {
        let mut call = reach(state);
        for input in CallInput::ALL {
            if CALL_TRANSITIONS.iter().any(|(f, i, _)| *f == state && *i == input) {
                continue;
            }
            let refused = call.step(input).unwrap_err();
            assert_eq!(refused.rule(), RuleId::UsageOutOfTurn, "{state:?} {input:?}");
            assert_eq!(call.state, state, "{input:?} moved it");
        }
        assert!(call.poll_transmit().is_none() && call.poll_event().is_none(), "{state:?}");
        assert_eq!(call.is_done(), state.is_over());
    }
}
