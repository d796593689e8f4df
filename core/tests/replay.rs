//! Await-style tools replayed over sealed rounds (`round::replay`): a tool
//! that asks twice, across requests, against a client that answers; a changed
//! or reordered question asked again; answers never asked for ignored; the
//! round cap; and single use of a final round.
#![cfg(feature = "state")]

use mrtr::round::replay::{Asked, Replay};
use mrtr::round::SealedRounds;
use mrtr::state::{Algorithm, Key, KeyRing, MemoryGuard, SeedRng, Subject};
use mrtr::Millis;
use mrtr::{client, Limits, Protocol, RuleId};
use serde_json::{json, Value};

const ALICE: Subject<'static> = Subject::Principal("alice");

fn request() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}})
}

fn question(message: &str) -> Value {
    json!({"method": "elicitation/create", "params": {"message": message,
        "requestedSchema": {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}}})
}

fn ring() -> KeyRing {
    KeyRing::new(Key::new(1, Algorithm::XChaCha20Poly1305, &[5; 32]))
}

/// The outcome of one run of a tool.
#[derive(Debug, PartialEq)]
enum Run {
    Done(String),
    Asks(Value),
}

/// The tool: asks a name, then a greeting (whose wording may change), and
/// greets. `side_effects` counts how often its final line ran.
fn greet(
    r: &SealedRounds<'_>,
    request: &Value,
    now: u64,
    second: &str,
    guard: Option<&mut MemoryGuard>,
    side_effects: &mut u32,
) -> Result<Run, mrtr::Error> {
    let call = r.call(request, ALICE, Millis::from_secs(now))?;
    let mut replay = Replay::start(r, &call, guard.map(|g| g as &mut dyn mrtr::state::ReplayGuard))?;
    let name = match replay.ask(&question("Your name?"))? {
        Asked::Answered(a) => a["content"]["v"].as_str().unwrap_or_default().to_string(),
        Asked::Missing => {
            return Ok(Run::Asks(replay.input_required(r, &call, None, &mut SeedRng::Bytes(&[now as u8; 24]))?))
        }
    };
    let word = match replay.ask(&question(second))? {
        Asked::Answered(a) => a["content"]["v"].as_str().unwrap_or_default().to_string(),
        Asked::Missing => {
            return Ok(Run::Asks(replay.input_required(r, &call, None, &mut SeedRng::Bytes(&[now as u8; 24]))?))
        }
    };
    *side_effects += 1;
    Ok(Run::Done(format!("{word}, {name}")))
}

/// The client's retry answering every ask of `response` with `value`.
fn retry(request: &Value, response: &Value, value: &str, id: u64) -> Value {
    let asks = response["result"]["inputRequests"].as_object().unwrap();
    let answers: serde_json::Map<String, Value> =
        asks.keys().map(|k| (k.clone(), json!({"action": "accept", "content": {"v": value}}))).collect();
    client::retry(request, response, &Value::Object(answers), &json!(id), Protocol::default(), &Limits::default())
        .unwrap()
}

fn asks(run: &Run) -> &Value {
    match run {
        Run::Asks(response) => response,
        Run::Done(done) => panic!("the tool completed early: {done}"),
    }
}

#[test]
fn a_tool_that_asks_twice_finishes_in_three_requests() {
    let ring = ring();
    let r = SealedRounds::new(&ring, 300, Protocol::default(), Limits::default());
    let mut effects = 0;
    let first = greet(&r, &request(), 100, "Greeting?", None, &mut effects).unwrap();
    assert_eq!(asks(&first)["result"]["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["q1"]);
    let second_request = retry(&request(), asks(&first), "Ada", 2);
    let second = greet(&r, &second_request, 101, "Greeting?", None, &mut effects).unwrap();
    assert_eq!(asks(&second)["result"]["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["q2"]);
    let third = retry(&second_request, asks(&second), "Good day", 3);
    assert_eq!(greet(&r, &third, 102, "Greeting?", None, &mut effects).unwrap(), Run::Done("Good day, Ada".into()));
    assert_eq!(effects, 1);
}

#[test]
fn a_changed_question_is_asked_again_never_answered_by_another() {
    let ring = ring();
    let r = SealedRounds::new(&ring, 300, Protocol::default(), Limits::default());
    let mut effects = 0;
    let first = greet(&r, &request(), 100, "Greeting?", None, &mut effects).unwrap();
    let second_request = retry(&request(), asks(&first), "Ada", 2);
    let second = greet(&r, &second_request, 101, "Greeting?", None, &mut effects).unwrap();
    let third = retry(&second_request, asks(&second), "Good day", 3);
    // A newer version behind the balancer words its second question otherwise.
    let again = greet(&r, &third, 102, "Salutation?", None, &mut effects).unwrap();
    assert_eq!(asks(&again)["result"]["inputRequests"]["q2"]["params"]["message"], "Salutation?");
    assert_eq!(effects, 0);
}

#[test]
fn an_answer_to_a_question_never_asked_counts_for_nothing() {
    let ring = ring();
    let r = SealedRounds::new(&ring, 300, Protocol::default(), Limits::default());
    let mut effects = 0;
    let first = greet(&r, &request(), 100, "Greeting?", None, &mut effects).unwrap();
    let mut sly = retry(&request(), asks(&first), "Ada", 2);
    // The client slips in an answer to the next question before it was asked.
    sly["params"]["inputResponses"]["q2"] = json!({"action": "accept", "content": {"v": "Bye"}});
    let second = greet(&r, &sly, 101, "Greeting?", None, &mut effects).unwrap();
    assert!(asks(&second)["result"]["inputRequests"].get("q2").is_some());
}

/// The tool run to its end under `guard`, its final round run once: the
/// second request and the third (final) one, as the client sent them.
fn finished_under_a_guard(r: &SealedRounds<'_>, guard: &mut MemoryGuard, effects: &mut u32) -> (Value, Value) {
    let first = greet(r, &request(), 100, "Greeting?", Some(&mut *guard), effects).unwrap();
    let second_request = retry(&request(), asks(&first), "Ada", 2);
    let second = greet(r, &second_request, 101, "Greeting?", Some(&mut *guard), effects).unwrap();
    let third = retry(&second_request, asks(&second), "Good day", 3);
    assert!(matches!(greet(r, &third, 102, "Greeting?", Some(&mut *guard), effects), Ok(Run::Done(_))));
    (second_request, third)
}

#[test]
fn a_final_round_runs_once_under_a_guard_and_the_cap_holds() {
    let ring = ring();
    let r = SealedRounds::new(&ring, 300, Protocol::default(), Limits::default());
    let (mut guard, mut effects) = (MemoryGuard::default(), 0);
    let (second_request, third) = finished_under_a_guard(&r, &mut guard, &mut effects);
    let replayed = greet(&r, &third, 103, "Greeting?", Some(&mut guard), &mut effects).unwrap_err();
    assert_eq!((replayed.rule(), effects), (RuleId::StateReplayed, 1));

    let call = r.call(&second_request, ALICE, Millis::from_secs(101)).unwrap();
    let mut replay = Replay::start(&r, &call, None).unwrap();
    replay.max_rounds = 1;
    assert!(matches!(replay.ask(&question("Your name?")), Ok(Asked::Answered(_))));
    assert_eq!(replay.ask(&question("Greeting?")).unwrap(), Asked::Missing);
    let capped = replay.input_required(&r, &call, None, &mut SeedRng::Bytes(&[1; 24])).unwrap_err();
    assert_eq!(capped.rule(), RuleId::RetryRoundsExceeded);
}

/// The final round's request without its state: the same answers, on a first request.
fn stateless(retry: &Value) -> Value {
    let mut bare = retry.clone();
    bare["params"].as_object_mut().unwrap().remove("requestState");
    bare
}

#[test]
fn answers_without_the_state_that_asked_are_ignored_so_a_final_round_never_runs_twice() {
    // Security review M3 and issue 26: under a guard, the replayed final round was refused, but the
    // same answers sent without `requestState` ran the tool's side effect again.
    let ring = ring();
    let r = SealedRounds::new(&ring, 300, Protocol::default(), Limits::default());
    let (mut guard, mut effects) = (MemoryGuard::default(), 0);
    let (second_request, third) = finished_under_a_guard(&r, &mut guard, &mut effects);
    // Dropping the state starts over: every question is asked again, under a new state.
    for dropped in [stateless(&second_request), stateless(&third)] {
        let again = greet(&r, &dropped, 103, "Greeting?", Some(&mut guard), &mut effects).unwrap();
        assert_eq!(asks(&again)["result"]["inputRequests"].as_object().unwrap().keys().collect::<Vec<_>>(), ["q1"]);
        assert!(asks(&again)["result"]["requestState"].is_string());
    }
    assert_eq!(effects, 1);
    // With pins off the keys name the questions, and a pre-answered first request is taken by key.
    let by_key =
        SealedRounds { pin_answers: false, ..SealedRounds::new(&ring, 300, Protocol::default(), Limits::default()) };
    let mut upfront = stateless(&third);
    upfront["params"]["inputResponses"]["q1"] = json!({"action": "accept", "content": {"v": "Ada"}});
    assert_eq!(
        greet(&by_key, &upfront, 104, "Greeting?", None, &mut effects).unwrap(),
        Run::Done("Good day, Ada".into())
    );
}

#[test]
fn a_refused_answer_leaves_the_state_unspent_so_the_client_can_correct_it() {
    // Security review L1: the await-style path spent the guard before it checked the answers, so an honest
    // client whose answer had a wrong type got `state-replayed` on its corrected retry.
    let ring = ring();
    let r = SealedRounds::new(&ring, 300, Protocol::default(), Limits::default());
    let (mut guard, mut effects) = (MemoryGuard::default(), 0);
    let first = greet(&r, &request(), 100, "Greeting?", Some(&mut guard), &mut effects).unwrap();
    let mut wrong = retry(&request(), asks(&first), "Ada", 2);
    wrong["params"]["inputResponses"]["q1"]["content"]["v"] = json!(42);
    let refused = greet(&r, &wrong, 101, "Greeting?", Some(&mut guard), &mut effects).unwrap_err();
    assert_eq!(refused.rule(), RuleId::RetryInputResponseInvalid);
    assert!(guard.is_empty(), "the refused request spent the state");
    let corrected = retry(&request(), asks(&first), "Ada", 3);
    let second = greet(&r, &corrected, 102, "Greeting?", Some(&mut guard), &mut effects).unwrap();
    assert!(asks(&second)["result"]["inputRequests"].get("q2").is_some());
    // Once spent, the same state is refused as before.
    let again = greet(&r, &corrected, 103, "Greeting?", Some(&mut guard), &mut effects).unwrap_err();
    assert_eq!(again.rule(), RuleId::StateReplayed);
}

#[test]
fn misuse_and_bad_questions_have_their_rules() {
    let ring = ring();
    let r = SealedRounds::new(&ring, 300, Protocol::default(), Limits::default());
    let req = request();
    let call = r.call(&req, ALICE, Millis::from_secs(1)).unwrap();
    let mut replay = Replay::start(&r, &call, None).unwrap();
    assert_eq!(replay.ask(&json!({"method": "elicitation/create"})).unwrap_err().rule(), RuleId::InputRequestInvalid);
    replay.ask_as("k", &question("?")).unwrap();
    assert_eq!(replay.ask_as("k", &question("?")).unwrap_err().rule(), RuleId::UsageInvalidArgument);
    let done = Replay::start(&r, &call, None).unwrap();
    assert_eq!(
        done.input_required(&r, &call, None, &mut SeedRng::Bytes(&[1; 24])).unwrap_err().rule(),
        RuleId::UsageOutOfTurn
    );
}

#[test]
fn a_retry_result_is_complete_and_never_cached() {
    let first = request();
    let done = mrtr::server::complete(&first, &json!({"content": [], "ttlMs": 60000}), Protocol::default()).unwrap();
    assert_eq!(
        (done["result"]["resultType"].as_str(), done["result"]["ttlMs"].as_u64()),
        (Some("complete"), Some(60000))
    );
    let mut retry = first.clone();
    retry["params"]["requestState"] = json!("s");
    let done = mrtr::server::complete(&retry, &json!({"content": [], "ttlMs": 60000}), Protocol::default()).unwrap();
    assert_eq!(done["result"]["ttlMs"], 0);
    let legacy = mrtr::server::complete(&first, &json!({"content": []}), Protocol::V2025_11_25).unwrap();
    assert_eq!(legacy["result"].get("resultType"), None);
    let (body, status) = mrtr::server::error_response(&json!(7), &mrtr::Error::new(RuleId::StateTampered, "no"));
    assert_eq!(
        (body["error"]["code"].as_i64(), body["error"]["data"]["rule"].as_str(), status),
        (Some(-32602), Some("state-tampered"), 400)
    );
}

mod bridge {
    use super::question;
    use mrtr::round::bridge::Bridge;
    use mrtr::round::replay::{Asked, Replay};
    use mrtr::{sse, Limits, Millis, RuleId};
    use serde_json::{json, Value};

    fn legacy_request() -> Value {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "greet", "arguments": {}}})
    }

    /// The tool: a name, then a greeting word.
    fn run(replay: &mut Replay) -> Option<String> {
        let name = match replay.ask(&question("Your name?")).unwrap() {
            Asked::Answered(a) => a["content"]["v"].as_str().unwrap().to_string(),
            Asked::Missing => return None,
        };
        match replay.ask(&question("Greeting?")).unwrap() {
            Asked::Answered(a) => Some(format!("{}, {name}", a["content"]["v"].as_str().unwrap())),
            Asked::Missing => None,
        }
    }

    /// The server messages written on the stream so far.
    fn written(bridge: &mut Bridge) -> Vec<Value> {
        let mut d = sse::Decoder::new();
        while let Some(text) = bridge.poll_write() {
            d.feed(text.as_bytes());
        }
        std::iter::from_fn(|| d.poll_event()).filter_map(|e| serde_json::from_str(&e.unwrap().data?).ok()).collect()
    }

    fn accept(request: &Value, v: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"v": v}}})
    }

    /// One round: replay; ask what is missing or complete. The messages written.
    fn step(bridge: &mut Bridge, now: u64) -> Vec<Value> {
        let mut replay = bridge.replay();
        match run(&mut replay) {
            Some(done) => bridge.complete(&json!({"content": [{"type": "text", "text": done}]})).unwrap(),
            None => bridge.ask(&replay, Millis(now)).unwrap(),
        }
        written(bridge)
    }

    #[test]
    fn a_two_question_tool_served_to_a_2025_11_25_client() {
        let mut b = Bridge::new(&legacy_request(), "c1c1c1c1c1c1c1c1", Limits::default()).unwrap();
        let asked = step(&mut b, 0);
        assert_eq!((asked.len(), asked[0]["method"].as_str()), (1, Some("elicitation/create")));
        assert_eq!(b.poll_timeout(), Some(Millis(300_000)));
        assert!(b.handle_answer(&accept(&asked[0], "Ada"), Millis(5)).unwrap());
        let asked = step(&mut b, 10);
        assert_eq!(asked[0]["params"]["message"], "Greeting?");
        assert_eq!(asked[0]["id"], json!("c1c1c1c1c1c1c1c1-2-q2"), "each round's requests have ids of their own");
        let wrong =
            json!({"jsonrpc": "2.0", "id": asked[0]["id"], "result": {"action": "accept", "content": {"x": 1}}});
        assert_eq!(b.handle_answer(&wrong, Millis(11)).unwrap_err().rule(), RuleId::RetryInputResponseInvalid);
        assert!(b.handle_answer(&accept(&asked[0], "Hello"), Millis(12)).unwrap());
        let done = step(&mut b, 13);
        assert_eq!(done[0]["id"], 7);
        assert_eq!(done[0]["result"]["content"][0]["text"], "Hello, Ada");
        assert!(b.is_done() && b.poll_timeout().is_none());
        assert_eq!(b.handle_answer(&accept(&asked[0], "x"), Millis(14)).unwrap_err().rule(), RuleId::UsageOutOfTurn);
    }

    #[test]
    fn server_request_ids_come_from_the_bridges_key_never_from_the_clients_id() {
        // Security review M4: ids were the alphanumerics of the client's request id, so calls with ids
        // `a-1` and `a1` (or `1` and `"1"`) asked under one id, and anyone could guess another's.
        let call = |id: Value, key: &str| {
            let mut request = legacy_request();
            request["id"] = id;
            let mut b = Bridge::new(&request, key, Limits::default()).unwrap();
            step(&mut b, 0)[0]["id"].clone()
        };
        let (one, other) = (call(json!("a-1"), "0123456789abcdef"), call(json!("a1"), "fedcba9876543210"));
        assert_eq!((one, other), (json!("0123456789abcdef-1-q1"), json!("fedcba9876543210-1-q1")));
        for short in ["", "k1", "0123456789abcde"] {
            let refused = Bridge::new(&legacy_request(), short, Limits::default()).unwrap_err();
            assert_eq!(refused.rule(), RuleId::UsageInvalidArgument, "key {short:?}");
        }
    }

    #[test]
    fn an_unanswered_round_times_out_and_the_cap_holds() {
        let mut b = Bridge::new(&legacy_request(), "c2c2c2c2c2c2c2c2", Limits::default()).unwrap();
        b.round_timeout_ms = 1000;
        let _ = step(&mut b, 0);
        b.handle_timeout(Millis(999));
        assert!(!b.is_done());
        b.handle_timeout(Millis(1000));
        let last = written(&mut b);
        assert_eq!(last[0]["error"]["data"]["rule"], "limit-exceeded");
        assert!(b.is_done());

        let mut capped = Bridge::new(&legacy_request(), "c3c3c3c3c3c3c3c3", Limits::default()).unwrap();
        capped.max_rounds = 0;
        let mut replay = capped.replay();
        assert!(run(&mut replay).is_none());
        assert_eq!(capped.ask(&replay, Millis(0)).unwrap_err().rule(), RuleId::RetryRoundsExceeded);
        assert_eq!(written(&mut capped)[0]["error"]["data"]["rule"], "retry-rounds-exceeded");
    }
}
