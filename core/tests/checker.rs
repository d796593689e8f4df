//! The checker on traffic real peers send: parallel calls to one tool, id
//! pools per sender, recovery after a broken message, and a long-lived stream.

use mrtr::check::{check, CheckConfig, Checker, Entry, Operation, Side, TRACKED_BYTES_MAX, TRACKED_MAX};
use mrtr::{Protocol, RuleId};
use serde_json::{json, Value};

fn client(message: Value) -> Entry {
    Entry { from: Side::Client, message, stream: None }
}

fn server(message: Value) -> Entry {
    Entry { from: Side::Server, message, stream: None }
}

fn on(stream: &str, message: Value) -> Entry {
    Entry { from: Side::Server, message, stream: Some(stream.into()) }
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
}

fn weather(id: u64, city: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "get_weather", "arguments": {"city": city}, "_meta": meta()}})
}

fn ask(id: u64, state: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required", "requestState": state,
           "inputRequests": {"units": {"method": "elicitation/create", "params": {"message": "Units?",
               "requestedSchema": {"type": "object", "properties": {"u": {"type": "string"}}}}}}}})
}

fn retry_of(id: u64, city: &str, state: &Value) -> Value {
    let mut m = weather(id, city);
    m["params"]["inputResponses"] = json!({"units": {"action": "accept", "content": {"u": "C"}}});
    m["params"]["requestState"] = state.clone();
    m
}

fn done(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "content": []}})
}

fn rules(entries: &[Entry], protocol: Protocol) -> Vec<(RuleId, usize)> {
    let config = CheckConfig::default().with_protocol(protocol);
    check(entries, config).into_iter().map(|v| (v.rule, v.index)).collect()
}

#[test]
fn parallel_calls_to_one_tool_each_keep_their_own_round() {
    let t = [
        client(weather(1, "Paris")),
        client(weather(2, "Rome")),
        server(ask(1, "state-paris")),
        server(ask(2, "state-rome")),
        // Retried in the other order: each with its own arguments and state.
        client(retry_of(3, "Paris", &json!("state-paris"))),
        client(retry_of(4, "Rome", &json!("state-rome"))),
        server(done(3)),
        server(done(4)),
    ];
    assert_eq!(rules(&t, Protocol::default()), []);
    // A real fault among parallel calls is still found, on its own message.
    let mut broken = t.clone();
    broken[5] = client(retry_of(4, "Rome", &json!("state-paris")));
    assert_eq!(rules(&broken, Protocol::default()), [(RuleId::RetryRequestStateMismatch, 5)]);
}

#[test]
fn each_finished_multi_round_operation_is_reported_once_with_its_own_start() {
    let mut checker = Checker::new(CheckConfig::default());
    let t = [
        client(weather(1, "Paris")),
        client(weather(2, "Rome")),
        server(ask(1, "state-paris")),
        server(ask(2, "state-rome")),
        client(retry_of(3, "Rome", &json!("state-rome"))),
        server(done(3)),
        client(retry_of(4, "Paris", &json!("state-paris"))),
        server(ask(4, "state-paris-2")),
        client(retry_of(5, "Paris", &json!("state-paris-2"))),
        server(done(5)),
        // A one-shot call is no multi-round operation.
        client(weather(6, "Oslo")),
        server(done(6)),
    ];
    let mut finished = Vec::new();
    for entry in &t {
        checker.handle(entry);
        finished.extend(checker.take_operations());
    }
    assert_eq!(checker.take_violations(), []);
    let op = |target: &str, rounds, started, finished, spans: &[(usize, usize)]| Operation {
        method: "tools/call".into(),
        target: Some(target.into()),
        rounds,
        started,
        finished,
        spans: spans.to_vec(),
    };
    // Each round's request and answer, interleaved as they came.
    let rome = op("get_weather", 1, 1, 5, &[(1, 3), (4, 5)]);
    let paris = op("get_weather", 2, 0, 9, &[(0, 2), (6, 7), (8, 9)]);
    assert_eq!(finished, [rome, paris]);
}

#[test]
fn a_new_post_with_an_earlier_id_opens_a_new_stream() {
    // Two clients through one proxy, both numbering from 1: the second one's
    // answer on post:1 is not a message after the first one's input_required.
    let t = [
        client(weather(1, "Paris")),
        on("post:1", ask(1, "state-paris")),
        client(weather(1, "Rome")),
        on("post:1", done(1)),
    ];
    assert_eq!(rules(&t, Protocol::default()), []);
    // Without the new POST, a message on the closed stream is still reported.
    assert_eq!(
        rules(&[t[0].clone(), t[1].clone(), t[3].clone()], Protocol::default()),
        [(RuleId::MessageAfterInputRequired, 2)]
    );
}

#[test]
fn ids_are_unique_per_sender_not_across_them() {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book"}});
    let elicit = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create",
               "params": {"message": "Date?", "requestedSchema": {"type": "object", "properties": {}}}})
    };
    let answer = |id: u64| json!({"jsonrpc": "2.0", "id": id, "result": {"action": "accept", "content": {}}});
    let t = [
        client(call),
        // The server numbers its own requests from 1 too, on the call's stream.
        on("post:1", elicit(1)),
        client(answer(1)),
        on("post:1", elicit(2)),
        client(answer(2)),
        on("post:1", json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}})),
        // Only now is call 1 finished: a request on its stream is unassociated.
        on("post:1", elicit(3)),
    ];
    assert_eq!(rules(&t, Protocol::V2025_11_25), [(RuleId::ServerRequestUnassociated, 6)]);
}

#[test]
fn a_broken_retry_is_reported_once_and_a_corrected_one_is_not() {
    let t = [
        client(weather(1, "Paris")),
        server(ask(1, "s1")),
        // requestState not a string: refused by the server with an error.
        client(retry_of(2, "Paris", &json!(7))),
        server(json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "bad state"}})),
        // Echoes the wrong state: reported here; the server refuses it too.
        client(retry_of(3, "Paris", &json!("s0"))),
        server(json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "bad state"}})),
        // Corrected: compliant, and it still pairs with the round it answers.
        client(retry_of(4, "Paris", &json!("s1"))),
        server(done(4)),
    ];
    assert_eq!(
        rules(&t, Protocol::default()),
        [(RuleId::RequestStateInvalid, 2), (RuleId::RetryRequestStateMismatch, 4)]
    );
}

#[test]
fn a_million_messages_keep_the_checker_bounded() {
    // Ids may be reused once their request is answered, so a few entries,
    // built once, make an endless conversation: call 1 is retried (as 2) and
    // completes; call 3 is abandoned after its input_required, each time
    // leaving a round open that no retry will ever take.
    let flow = [
        client(weather(1, "Paris")),
        server(ask(1, "s")),
        client(retry_of(2, "Paris", &json!("s"))),
        server(done(2)),
        client(weather(3, "Rome")),
        server(ask(3, "r")),
    ];
    let mut checker = Checker::new(CheckConfig::default());
    let mut peak = 0;
    for entry in flow.iter().cycle().take(1_000_002) {
        checker.handle(entry);
        peak = peak.max(checker.tracked());
    }
    assert!(checker.violations().is_empty(), "{:?}", &checker.violations()[..1]);
    assert!(peak <= TRACKED_MAX + 1, "{peak}");
}

/// Security review M1: large requests nobody answers are held as their
/// text, within a byte budget (the oldest forgotten first), and the latest
/// are still followed: an answer to one opens its round.
#[test]
fn large_unanswered_requests_are_held_within_a_byte_budget() {
    let big = "x".repeat(6 << 20);
    let large = |id: u64| weather(id, &big);
    let mut checker = Checker::new(CheckConfig::default());
    let mut peak = 0;
    for id in 1..=20 {
        checker.handle(&client(large(id)));
        peak = peak.max(checker.held_bytes());
    }
    assert!(peak <= TRACKED_BYTES_MAX, "{peak}");
    let held = checker.held_bytes();
    assert!(held > TRACKED_BYTES_MAX - (7 << 20), "the budget is used, not emptied: {held}");
    // The last request is still in flight: its input_required opens a round
    // that its retry (a new id, the exact state) takes without a fault.
    checker.handle(&server(ask(20, "s20")));
    checker.handle(&client(retry_of(21, &big, &json!("s20"))));
    checker.handle(&server(done(21)));
    assert!(checker.violations().is_empty(), "{:?}", checker.violations());
    assert_eq!(checker.take_operations().len(), 1);
    let answered = serde_json::to_string(&large(20)).unwrap().len();
    assert_eq!(checker.held_bytes(), held - answered, "the answered requests are let go");
}

/// The bounds of [`mrtr::Limits`] are faults of a message's content too: a
/// result past them still opens its round, and a state the retry only echoes
/// is the server's fault, reported once.
#[test]
fn a_bound_broken_by_a_result_is_one_report_and_its_round_still_pairs() {
    let limits = mrtr::Limits { max_request_state_bytes: 8, max_input_requests: 1, ..mrtr::Limits::DEFAULT };
    let config = CheckConfig::default().with_limits(limits);
    let long = json!("a state over eight bytes");
    let mut two_asks = ask(2, "s1");
    two_asks["result"]["inputRequests"]["more"] = two_asks["result"]["inputRequests"]["units"].clone();
    let mut answers_both = retry_of(3, "Paris", &json!("s1"));
    answers_both["params"]["inputResponses"]["more"] = json!({"action": "decline"});
    let t = [
        client(weather(1, "Paris")),
        server(ask(1, long.as_str().unwrap())),
        client(retry_of(2, "Paris", &long)),
        server(two_asks),
        client(answers_both),
        server(done(3)),
    ];
    let found: Vec<_> = check(&t, config).into_iter().map(|v| (v.rule, v.index)).collect();
    // A bound is the checker's own, held by every message: the retry that
    // answers both keys is past it as well (its echoed state is not).
    assert_eq!(found, [(RuleId::StateTooLarge, 1), (RuleId::LimitExceeded, 3), (RuleId::LimitExceeded, 4)]);
}

/// A broken input request's report names its method, the first thing a
/// reader needs to find the ask at fault.
#[test]
fn an_invalid_input_request_is_named_by_its_method() {
    let unknown = json!({"method": "tools/call", "params": {}});
    let no_message = json!({"method": "elicitation/create", "params": {}});
    for (request, named) in [(unknown, r#"(method "tools/call")"#), (no_message, r#"(method "elicitation/create")"#)] {
        let mut result = ask(1, "s");
        result["result"]["inputRequests"]["units"] = request;
        let mut checker = Checker::new(CheckConfig::default());
        checker.handle(&client(weather(1, "Paris")));
        checker.handle(&server(result));
        let messages: Vec<&str> = checker.violations().iter().map(|v| v.message.as_str()).collect();
        assert!(
            matches!(&messages[..], [m] if m.starts_with(r#"inputRequests["units"]"#) && m.ends_with(named)),
            "{messages:?}"
        );
    }
}

/// mcp-go's servers send plain state (`size=large`), so two concurrent calls
/// of one tool may be asked with the same `requestState`: each retry still
/// pairs with its own call by the arguments it repeats, and a retry that
/// changed its arguments is still reported, once.
#[test]
fn concurrent_calls_with_the_same_plain_state_each_keep_their_own_round() {
    let t = [
        client(weather(1, "Paris")),
        client(weather(2, "Rome")),
        server(ask(1, "size=large")),
        server(ask(2, "size=large")),
        // Retried in the order the asks came (the latest round is Rome's).
        client(retry_of(3, "Paris", &json!("size=large"))),
        client(retry_of(4, "Rome", &json!("size=large"))),
        server(done(3)),
        server(done(4)),
    ];
    assert_eq!(rules(&t, Protocol::default()), []);
    // Paris's retry with an argument added: paired with Paris's call all the same.
    let mut more = retry_of(3, "Paris", &json!("size=large"));
    more["params"]["arguments"]["units"] = json!("metric");
    let mut changed = t.clone();
    changed[4] = client(more);
    assert_eq!(rules(&changed, Protocol::default()), [(RuleId::RetryRequestChanged, 4)]);
}

/// A URL-mode ask with `"elicitationId": ""` is the server's fault; the
/// client's `content` on a URL-mode accept is its own (the answer of an
/// out-of-band elicitation omits it): both are reported, each once, and an
/// answer fit for a URL-mode ask is not blamed for its question.
#[test]
fn an_answer_to_an_invalid_question_is_judged_by_what_can_be_read_of_it() {
    let mut asked = ask(1, "s");
    asked["result"]["inputRequests"] = json!({"login": {"method": "elicitation/create",
        "params": {"mode": "url", "message": "Sign in", "url": "https://example.com/login", "elicitationId": ""}}});
    let url_capable = |mut m: Value| {
        m["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {"url": {}}});
        m
    };
    let answering = |answer: Value| {
        let mut m = url_capable(weather(2, "Paris"));
        m["params"]["inputResponses"] = json!({ "login": answer });
        m["params"]["requestState"] = json!("s");
        m
    };
    let conversation = |answer: Value| {
        [client(url_capable(weather(1, "Paris"))), server(asked.clone()), client(answering(answer)), server(done(2))]
    };
    let own_fault = conversation(json!({"action": "accept", "content": {}}));
    assert_eq!(
        rules(&own_fault, Protocol::default()),
        [(RuleId::InputRequestInvalid, 1), (RuleId::RetryInputResponseInvalid, 2)]
    );
    let fit = conversation(json!({"action": "accept"}));
    assert_eq!(rules(&fit, Protocol::default()), [(RuleId::InputRequestInvalid, 1)]);
}

/// The Go SDK 1.8 server answers a state-only round's retry with
/// `resultType: "complete"` carrying `requestState`: the client cannot tell
/// it from another state-only round. The `input_required` itself is sound.
#[test]
fn a_final_result_carrying_request_state_is_reported() {
    let shed = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s"}});
    let mut retry = weather(2, "Paris");
    retry["params"]["requestState"] = json!("s");
    let mut stateful_done = done(2);
    stateful_done["result"]["requestState"] = json!("s");
    let t = [client(weather(1, "Paris")), server(shed), client(retry), server(stateful_done)];
    assert_eq!(rules(&t, Protocol::default()), [(RuleId::CompleteRequestState, 3)]);
    let mut fixed = t.clone();
    fixed[3] = server(done(2));
    assert_eq!(rules(&fixed, Protocol::default()), []);
}

fn warnings(checker: &Checker) -> Vec<(mrtr::check::Interop, usize, Option<&str>)> {
    checker.warnings().iter().map(|w| (w.kind, w.index, w.client.as_deref())).collect()
}

fn shed(id: u64, state: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "input_required", "requestState": state}})
}

fn state_retry(id: u64, state: &str) -> Value {
    let mut m = weather(id, "Paris");
    m["params"]["requestState"] = json!(state);
    m["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] = json!({"name": "mcp-go", "version": "1.2.1"});
    m
}

/// Interop warnings: a client that stops retrying state-only rounds (mcp-go
/// gives up after three) or never retries one (the Go SDK client) is named
/// with its clientInfo, at the round it left; no violation comes of it.
#[test]
fn a_client_that_gives_up_on_state_only_rounds_is_warned_of_by_name() {
    use mrtr::check::Interop;
    let mut checker = Checker::new(CheckConfig::default());
    let mut first = weather(1, "Paris");
    first["params"]["_meta"]["io.modelcontextprotocol/clientInfo"] = json!({"name": "mcp-go", "version": "1.2.1"});
    let t = [
        client(first),
        server(shed(1, "s1")),
        client(state_retry(2, "s1")),
        server(shed(2, "s2")),
        client(state_retry(3, "s2")),
        server(shed(3, "s3")),
        client(state_retry(4, "s3")),
        server(shed(4, "s4")),
    ];
    for entry in &t {
        checker.handle(entry);
    }
    assert_eq!(warnings(&checker), [], "a round may still be retried until the conversation ends");
    checker.finish();
    assert_eq!(warnings(&checker), [(Interop::StateOnlyGaveUp, 7, Some("mcp-go 1.2.1"))]);
    assert!(checker.warnings()[0].message.contains("retried 3 state-only rounds"), "{:?}", checker.warnings());
    assert_eq!(checker.violations(), []);

    // Never retried at all: the first round is the one left.
    let mut once = Checker::new(CheckConfig::default());
    once.handle(&client(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": {"name": "go-sdk", "version": "1.8.0"}}})));
    for entry in &t[..2] {
        once.handle(entry);
    }
    once.finish();
    assert_eq!(warnings(&once), [(Interop::StateOnlyNotRetried, 2, Some("mcp-go 1.2.1"))]);
}

/// Under the host's clock: an ask left open past the window is warned of
/// once, while the conversation goes on; a decline sooner than a person
/// answers is warned of at the retry; an `input_required` with `content`
/// (mcp-go's) at once.
#[test]
fn the_clock_drives_the_unanswered_and_too_fast_warnings() {
    use mrtr::check::{Interop, ASK_WINDOW_MS};
    use mrtr::Millis;
    let mut checker = Checker::new(CheckConfig::default().with_human_ms(300));
    let mut asked = ask(1, "s");
    asked["result"]["content"] = json!([]);
    let mut declined = retry_of(2, "Paris", &json!("s"));
    declined["params"]["inputResponses"]["units"] = json!({"action": "decline"});
    let at = |checker: &mut Checker, ms: u64, entry: Entry| {
        checker.set_now(Millis(ms));
        checker.handle(&entry);
    };
    at(&mut checker, 0, client(weather(1, "Paris")));
    at(&mut checker, 10, server(asked.clone()));
    at(&mut checker, 60, client(declined));
    at(&mut checker, 70, server(done(2)));
    assert_eq!(
        warnings(&checker),
        [(Interop::InputRequiredFinalFields, 1, None), (Interop::AnswerTooFast, 2, None)],
        "{:?}",
        checker.warnings()
    );
    // A decline after the person had time to read is no warning.
    let mut slow = Checker::new(CheckConfig::default());
    let mut declined = retry_of(2, "Paris", &json!("s"));
    declined["params"]["inputResponses"]["units"] = json!({"action": "decline"});
    at(&mut slow, 0, client(weather(1, "Paris")));
    at(&mut slow, 10, server(ask(1, "s")));
    at(&mut slow, 5_000, client(declined));
    assert_eq!(warnings(&slow), []);

    // An ask left open: warned of once past the window, not again at the end.
    let mut open = Checker::new(CheckConfig::default());
    at(&mut open, 0, client(weather(1, "Paris")));
    at(&mut open, 10, server(ask(1, "s")));
    at(&mut open, ASK_WINDOW_MS, client(weather(3, "Rome")));
    assert_eq!(warnings(&open), []);
    // The open rounds are swept at most once a second of the host's clock.
    at(&mut open, ASK_WINDOW_MS + 1_000, server(done(3)));
    assert_eq!(warnings(&open), [(Interop::AskUnanswered, 1, None)]);
    open.finish();
    assert_eq!(warnings(&open).len(), 1);
}
