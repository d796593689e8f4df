//! Sealed rounds end to end: a client's retries against servers built on
//! `round::SealedRounds`, and each attack of the security review on them
//! refused (replay, rollback, a changed question, a stale answer, a frozen
//! clock).
#![cfg(feature = "state")]

use mrtr::round::{Round, SealedRounds};
use mrtr::state::{Algorithm, Key, KeyRing, MemoryGuard, SeedRng, Subject};
use mrtr::Millis;
use mrtr::{client, Limits, Protocol, RuleId};
use serde_json::{json, Value};

const ALICE: Subject<'static> = Subject::Principal("alice");

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
}

fn ask(key: &str, message: &str) -> Value {
    json!({key: {"method": "elicitation/create", "params": {"message": message,
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}})
}

fn needs(keys: &[(&str, &str)]) -> Value {
    let mut all = serde_json::Map::new();
    for (key, message) in keys {
        all.extend(ask(key, message).as_object().unwrap().clone());
    }
    Value::Object(all)
}

fn first() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "get_weather", "arguments": {"location": "New York"}, "_meta": meta()}})
}

fn answer_all(requests: &Value, name: &str) -> Value {
    let keys = requests.as_object().unwrap().keys();
    Value::Object(keys.map(|k| (k.clone(), json!({"action": "accept", "content": {"name": name}}))).collect())
}

fn ring() -> KeyRing {
    KeyRing::new(Key::new(1, Algorithm::XChaCha20Poly1305, &[9; 32]))
}

fn rounds(ring: &KeyRing) -> SealedRounds<'_> {
    SealedRounds::new(ring, 300, Protocol::default(), Limits::default())
}

fn seed(n: u8) -> [u8; 24] {
    [n; 24]
}

/// The retry of `request` answering `response`'s asks with `answers`, under `id`.
fn retry(request: &Value, response: &Value, answers: &Value, id: u64) -> Value {
    client::retry(request, response, answers, &json!(id), Protocol::default(), &Limits::default()).unwrap()
}

/// Resumes `request` at `now` for alice, and asks what is missing.
fn round_trip(r: &SealedRounds<'_>, request: &Value, need: &Value, now: u64, n: u8) -> (Round, Value) {
    let call = r.call(request, ALICE, Millis::from_secs(now)).unwrap();
    let round = r.resume(&call, need, None).unwrap();
    let response = r.respond(&call, &round, need, Some(json!({"n": n})), &mut SeedRng::Bytes(&seed(n))).unwrap();
    (round, response)
}

#[test]
fn answers_carry_across_a_rolling_upgrade_and_the_state_binds_principal_time_and_request() {
    let ring = ring();
    let r = rounds(&ring);
    let v1 = needs(&[("github_login", "GitHub?"), ("google_login", "Google?")]);
    let v2 = needs(&[("github_login", "GitHub?"), ("microsoft_login", "Microsoft?")]);
    let (round, answer) = round_trip(&r, &first(), &v1, 1000, 1);
    assert_eq!((round.missing.len(), round.number, round.state), (2, 0, None));
    let second = retry(&first(), &answer, &answer_all(&answer["result"]["inputRequests"], "octocat"), 2);
    // A newer server keeps github_login, asks microsoft_login, and ignores google_login.
    let (round, answer) = round_trip(&r, &second, &v2, 1010, 2);
    assert_eq!(round.missing, ["microsoft_login"]);
    assert_eq!(round.ignored, ["google_login"]);
    assert_eq!((round.number, round.data.clone()), (1, Some(json!({"n": 1}))));
    let token = answer["result"]["requestState"].as_str().unwrap();
    assert!(!token.contains("octocat"), "answers travel encrypted");
    assert_eq!(round.state.unwrap().expiry, 1300);
    let third = retry(&second, &answer, &answer_all(&answer["result"]["inputRequests"], "octocat"), 3);
    let call = r.call(&third, ALICE, Millis::from_secs(1020)).unwrap();
    let done = r.resume(&call, &v2, None).unwrap();
    assert!(done.is_complete());
    assert_eq!(done.answers.keys().collect::<Vec<_>>(), ["github_login", "microsoft_login"]);
    assert_eq!((done.number, done.data), (2, Some(json!({"n": 2}))));
    // The same state for another principal, too late, or for other arguments.
    let refused = |request: &Value, subject, now| {
        let call = r.call(request, subject, now).unwrap();
        r.resume(&call, &v2, None).unwrap_err().rule()
    };
    assert_eq!(refused(&third, Subject::Principal("mallory"), Millis::from_secs(1020)), RuleId::StateWrongSubject);
    assert_eq!(refused(&third, ALICE, Millis::from_secs(1010 + 300)), RuleId::StateExpired);
    let mut elsewhere = third.clone();
    elsewhere["params"]["arguments"]["location"] = json!("Paris");
    assert_eq!(refused(&elsewhere, ALICE, Millis::from_secs(1020)), RuleId::StateWrongRequest);
    let mut with_task = third.clone();
    with_task["params"]["task"] = json!({"ttl": 60000});
    assert_eq!(refused(&with_task, ALICE, Millis::from_secs(1020)), RuleId::StateWrongRequest, "every param is bound");
    // SEP-3221: a client re-sends the host's secureArguments unchanged, so they are bound as well.
    let mut with_secure = third.clone();
    with_secure["params"]["secureArguments"] = json!({"tenant": "t-2"});
    assert_eq!(
        refused(&with_secure, ALICE, Millis::from_secs(1020)),
        RuleId::StateWrongRequest,
        "secureArguments are bound"
    );
}

#[test]
fn the_clock_is_per_call_so_one_long_lived_settings_value_expires_tokens() {
    // Security review L7: settings built once used to freeze `now` and the subject.
    let ring = ring();
    let r = rounds(&ring);
    let need = needs(&[("github_login", "GitHub?")]);
    let (_, answer) = round_trip(&r, &first(), &need, 1000, 1);
    let second = retry(&first(), &answer, &answer_all(&answer["result"]["inputRequests"], "octocat"), 2);
    for (now, ok) in [(1299, true), (1300, false), (5000, false)] {
        let call = r.call(&second, ALICE, Millis::from_secs(now)).unwrap();
        assert_eq!(r.resume(&call, &need, None).is_ok(), ok, "at {now}");
    }
}

#[test]
fn under_a_guard_a_state_is_single_use_so_rounds_never_roll_back_and_a_final_round_runs_once() {
    // Security review M2: round 1's state replayed after round 2 brought back round 1's data.
    let ring = ring();
    let r = rounds(&ring);
    let mut guard = MemoryGuard::new();
    let need = needs(&[("confirm", "Pay 10 EUR?"), ("otp", "The code?")]);
    let request = first();
    let call1 = r.call(&request, ALICE, Millis::from_secs(1000)).unwrap();
    let round1 = r.resume(&call1, &need, Some(&mut guard)).unwrap();
    let ask1 = needs(&[("confirm", "Pay 10 EUR?")]);
    let mut partial = round1.clone();
    partial.missing = vec!["confirm".into()];
    let answer1 =
        r.respond(&call1, &partial, &ask1, Some(json!({"attempts": 0})), &mut SeedRng::Bytes(&seed(1))).unwrap();
    let second = retry(&first(), &answer1, &answer_all(&answer1["result"]["inputRequests"], "yes"), 2);
    // Round 2 uses round 1's state.
    let call2 = r.call(&second, ALICE, Millis::from_secs(1010)).unwrap();
    let round2 = r.resume(&call2, &ask1, Some(&mut guard)).unwrap();
    assert!(round2.is_complete());
    let answer2 = r
        .respond(
            &call2,
            &Round { missing: vec!["otp".into()], ..round2.clone() },
            &need,
            Some(json!({"attempts": 1})),
            &mut SeedRng::Bytes(&seed(2)),
        )
        .unwrap();
    // Round 1's state presented again: refused, nothing rolls back.
    let call2_again = r.call(&second, ALICE, Millis::from_secs(1020)).unwrap();
    assert_eq!(r.resume(&call2_again, &ask1, Some(&mut guard)).unwrap_err().rule(), RuleId::StateReplayed);
    // The final round runs once; its replay is refused, and the host finds its stored answer by the state id.
    let third = retry(&second, &answer2, &answer_all(&answer2["result"]["inputRequests"], "123456"), 3);
    let call3 = r.call(&third, ALICE, Millis::from_secs(1030)).unwrap();
    let done = r.resume(&call3, &need, Some(&mut guard)).unwrap();
    assert!(done.is_complete());
    assert_eq!(done.data, Some(json!({"attempts": 1})));
    let final_id = done.state.unwrap().id;
    let state = third["params"]["requestState"].as_str().unwrap();
    assert_eq!(mrtr::state::inspect(state).unwrap().id, final_id);
    assert_eq!(r.resume(&call3, &need, Some(&mut guard)).unwrap_err().rule(), RuleId::StateReplayed);
    // Without a guard the same state opens again: the documented default.
    assert!(r.resume(&call3, &need, None).is_ok());
}

#[test]
fn a_request_refused_for_another_reason_does_not_use_up_its_state() {
    let ring = ring();
    let r = rounds(&ring);
    let need = needs(&[("github_login", "GitHub?")]);
    let (_, answer) = round_trip(&r, &first(), &need, 1000, 1);
    let mut bad = retry(&first(), &answer, &answer_all(&answer["result"]["inputRequests"], "octocat"), 2);
    bad["params"]["inputResponses"]["github_login"] = json!({"action": "accept", "content": {"name": 7}});
    let mut guard = MemoryGuard::new();
    let call = r.call(&bad, ALICE, Millis::from_secs(1001)).unwrap();
    assert_eq!(r.resume(&call, &need, Some(&mut guard)).unwrap_err().rule(), RuleId::RetryInputResponseInvalid);
    assert!(guard.is_empty());
}

#[test]
fn an_answer_counts_only_for_the_question_it_answered() {
    // Security review L6: "delete 3 files?" answered yes must not answer "delete 300 files?".
    let ring = ring();
    let r = rounds(&ring);
    let three = needs(&[("confirm", "Delete 3 files?"), ("reason", "Why?")]);
    let request = first();
    let call = r.call(&request, ALICE, Millis::from_secs(1000)).unwrap();
    let round = r.resume(&call, &three, None).unwrap();
    let only_confirm = Round { missing: vec!["confirm".into()], ..round };
    let answer = r.respond(&call, &only_confirm, &three, None, &mut SeedRng::Bytes(&seed(1))).unwrap();
    let second = retry(&first(), &answer, &answer_all(&answer["result"]["inputRequests"], "yes"), 2);
    // The same question: the fresh answer counts.
    let call2 = r.call(&second, ALICE, Millis::from_secs(1001)).unwrap();
    assert_eq!(r.resume(&call2, &three, None).unwrap().missing, ["reason"]);
    // The question changed between the ask and the answer: asked again.
    let three_hundred = needs(&[("confirm", "Delete 300 files?"), ("reason", "Why?")]);
    assert_eq!(r.resume(&call2, &three_hundred, None).unwrap().missing, ["confirm", "reason"]);
    // A carried answer whose question changed in a later round is asked again too.
    let round2 = r.resume(&call2, &three, None).unwrap();
    let answer2 = r.respond(&call2, &round2, &three, None, &mut SeedRng::Bytes(&seed(2))).unwrap();
    let third = retry(&second, &answer2, &answer_all(&answer2["result"]["inputRequests"], "cleanup"), 3);
    let call3 = r.call(&third, ALICE, Millis::from_secs(1002)).unwrap();
    assert!(r.resume(&call3, &three, None).unwrap().is_complete());
    assert_eq!(r.resume(&call3, &three_hundred, None).unwrap().missing, ["confirm"]);
    // A fresh answer to a question never asked does not count, nor does one changing an earlier answer.
    let mut sneaky = third.clone();
    sneaky["params"]["inputResponses"]["confirm"] = json!({"action": "decline"});
    let call4 = r.call(&sneaky, ALICE, Millis::from_secs(1003)).unwrap();
    let round4 = r.resume(&call4, &three, None).unwrap();
    assert_eq!(round4.answers["confirm"], json!({"action": "accept", "content": {"name": "yes"}}));
    // A first request (no state) that answers by key was asked by no state: ignored, and every question asked.
    let mut upfront = first();
    upfront["params"]["inputResponses"] = answer_all(&three, "yes");
    let call6 = r.call(&upfront, ALICE, Millis::from_secs(1004)).unwrap();
    let round6 = r.resume(&call6, &three, None).unwrap();
    assert_eq!(
        (&round6.missing, &round6.ignored),
        (&vec!["confirm".to_string(), "reason".into()], &vec!["confirm".to_string(), "reason".into()])
    );
    // Unpinned, the keys name the questions: a first request's answers are taken by key.
    let by_key = SealedRounds { pin_answers: false, ..rounds(&ring) };
    assert!(by_key
        .resume(&by_key.call(&upfront, ALICE, Millis::from_secs(1004)).unwrap(), &three, None)
        .unwrap()
        .is_complete());
    // Unpinned, the fresh answer overrides (the v1 behaviour, for hosts that opt out).
    let loose = SealedRounds { pin_answers: false, ..rounds(&ring) };
    let call5 = loose.call(&sneaky, ALICE, Millis::from_secs(1003)).unwrap();
    assert_eq!(loose.resume(&call5, &three, None).unwrap().answers["confirm"], json!({"action": "decline"}));
}

#[test]
fn a_carried_answer_that_no_longer_fits_the_need_goes_back_to_missing() {
    // Security review L6: only fresh answers used to be validated.
    let ring = ring();
    let r = SealedRounds { pin_answers: false, ..rounds(&ring) };
    let text = needs(&[("code", "The code?")]);
    let (_, answer) = round_trip(&r, &first(), &text, 1000, 1);
    let second = retry(&first(), &answer, &answer_all(&answer["result"]["inputRequests"], "abc"), 2);
    let call = r.call(&second, ALICE, Millis::from_secs(1001)).unwrap();
    let round = r.resume(&call, &text, None).unwrap();
    let answer2 =
        r.respond(&call, &Round { missing: vec![], ..round }, &text, None, &mut SeedRng::Bytes(&seed(2))).unwrap();
    let third = retry(&second, &answer2, &json!({}), 3);
    // Version 2 wants a number: the carried "abc" no longer fits.
    let numeric = json!({"code": {"method": "elicitation/create", "params": {"message": "The code?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "number"}}, "required": ["name"]}}}});
    let call3 = r.call(&third, ALICE, Millis::from_secs(1002)).unwrap();
    assert!(r.resume(&call3, &text, None).unwrap().is_complete());
    assert_eq!(r.resume(&call3, &numeric, None).unwrap().missing, ["code"]);
}

#[test]
fn a_call_whose_binding_changes_seals_under_the_new_one() {
    // A call remembers its binding's tags between its open and its seal; a
    // host that rebinds the call (say, with the exact digest of its text)
    // must never get the old binding's tags.
    let ring = ring();
    let r = rounds(&ring);
    let need = needs(&[("github_login", "GitHub?")]);
    let request = first();
    let mut call = r.call(&request, ALICE, Millis::from_secs(1000)).unwrap();
    let round = r.resume(&call, &need, None).unwrap();
    r.respond(&call, &round, &need, None, &mut SeedRng::Bytes(&seed(1))).unwrap();
    call.binding.subject = Subject::Principal("bob");
    let response = r.respond(&call, &round, &need, None, &mut SeedRng::Bytes(&seed(2))).unwrap();
    let answered = answer_all(&response["result"]["inputRequests"], "octocat");
    let again = retry(&request, &response, &answered, 2);
    let as_bob = r.call(&again, Subject::Principal("bob"), Millis::from_secs(1001)).unwrap();
    assert!(r.resume(&as_bob, &need, None).unwrap().missing.is_empty(), "the state is bob's");
    let as_alice = r.call(&again, ALICE, Millis::from_secs(1001)).unwrap();
    assert_eq!(r.resume(&as_alice, &need, None).unwrap_err().rule(), RuleId::StateWrongSubject);
}

#[test]
fn a_raw_token_never_opens_as_a_round() {
    let ring = ring();
    let r = rounds(&ring);
    let need = needs(&[("github_login", "GitHub?")]);
    let original = first();
    let call = r.call(&original, ALICE, Millis::from_secs(1000)).unwrap();
    let forged = ring
        .seal(
            &call.binding,
            Millis::from_secs(1000),
            300,
            br#"{"round":1,"answers":{},"answered":{},"asked":{},"data":{"admin":true}}"#,
            &mut SeedRng::Bytes(&seed(3)),
        )
        .unwrap();
    let mut request = first();
    request["id"] = json!(2);
    request["params"]["requestState"] = json!(forged);
    let call = r.call(&request, ALICE, Millis::from_secs(1001)).unwrap();
    assert_eq!(r.resume(&call, &need, None).unwrap_err().rule(), RuleId::StateTampered);
}

#[test]
fn a_host_with_larger_limits_binds_a_request_over_the_default_bound() {
    // The exact digest reads the text the host parsed under its own limits, not under the defaults.
    let ring = ring();
    let big = "x".repeat(Limits::DEFAULT.max_message_bytes + 1);
    let mut request = first();
    request["params"]["arguments"]["blob"] = json!(big);
    let text = request.to_string();
    let limits = Limits { max_message_bytes: 64 << 20, ..Limits::DEFAULT };
    let r = SealedRounds::new(&ring, 300, Protocol::default(), limits);
    let mut call = r.call(&request, ALICE, Millis::from_secs(1000)).unwrap();
    call.binding = call.binding.with_exact_digest(text.as_bytes()).unwrap();
    assert_eq!(call.binding.params_digest, mrtr::state::params_digest(&request["params"]));
}
