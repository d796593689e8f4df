//! Each way a run ends: answered, suspended, refused (caught by the tool,
//! or beside the tool's own error), completed, the data kept or set.

use super::*;
use crate::question_elicit;
use alloc::string::ToString;

use mrtr::RuleId;
use serde_json::json;

const SETTINGS: &[u8] = br#"{"ttl": 60, "maxRounds": 2}"#;
const CALL: &[u8] = br#"{"subject": "alice", "now": 1000}"#;
const REQUEST: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet","arguments":{"n":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}"#;
const SCHEMA: &[u8] = br#"{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}"#;
const RANDOM: Randomness<'static> = Randomness::Bytes(&[7; 24]);

fn ring() -> KeyRing {
    KeyRing::new(1, "xchacha20-poly1305", Some(&[3; 32]), None).unwrap()
}

fn question() -> String {
    question_elicit("Name?", SCHEMA).unwrap()
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// The retry of `REQUEST` after the `input_required` response `asked`, with `answers`.
fn retry(asked: &str, answers: Value) -> String {
    let mut retry = json_of(REQUEST);
    retry["params"]["requestState"] = json_of(asked)["result"]["requestState"].take();
    retry["params"]["inputResponses"] = answers;
    retry.to_string()
}

fn start(ring: &KeyRing, request: &str) -> ToolRun {
    ToolRun::start(&ring.reading().unwrap(), request.as_bytes(), SETTINGS, CALL, None).unwrap()
}

/// The first round's `input_required`, asking the name, with `data` set when given.
fn first_round(ring: &KeyRing, data: Option<&[u8]>) -> String {
    let mut run = start(ring, REQUEST);
    assert_eq!(run.ask(question().as_bytes(), None).unwrap(), None);
    if data.is_some() {
        run.set_data(data);
    }
    run.respond(ring, None, RANDOM).unwrap()
}

fn accepted(name: Value) -> Value {
    json!({"q1": {"action": "accept", "content": {"v": name}}})
}

#[test]
fn a_suspended_run_asks_every_question_of_its_round_and_nothing_after_the_stop() {
    let ring = ring();
    let mut run = start(&ring, REQUEST);
    assert_eq!((run.arguments().as_deref(), run.round(), run.state()), (Some(r#"{"n":1}"#), 0, None));
    assert_eq!(run.ask(question().as_bytes(), None).unwrap(), None);
    // Asked together, before the host stops the tool: both go into the round.
    assert_eq!(run.ask_elicit("Greeting?", SCHEMA, Some("g")).unwrap(), None);
    run.stop();
    assert_eq!(run.ask(question().as_bytes(), Some("late")).unwrap(), None);
    assert_eq!(run.missing(), ["q1", "g"]);
    let asked = json_of(&run.respond(&ring, None, RANDOM).unwrap());
    assert_eq!(asked["result"]["resultType"], "input_required");
    let keys: Vec<&String> = asked["result"]["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["q1", "g"]);
}

#[test]
fn an_answered_run_completes_with_the_tools_result() {
    let ring = ring();
    let asked = first_round(&ring, None);
    let mut run = start(&ring, &retry(&asked, accepted(json!("Ada"))));
    let answer = json_of(&run.ask(question().as_bytes(), None).unwrap().unwrap());
    assert_eq!((answer["content"]["v"].as_str(), run.round()), (Some("Ada"), 1));
    assert!(run.state().is_some_and(|s| s.contains("stateId")));
    let done = json_of(&run.respond(&ring, Some(br#"{"content":[]}"#), RANDOM).unwrap());
    assert_eq!((done["id"].as_u64(), done["result"]["resultType"].as_str()), (Some(7), Some("complete")));
    assert_eq!(run.refused(), Ok(()));
    assert_eq!(run.refusal_response(&Options::default()), None);
}

#[test]
fn a_refusal_the_tool_caught_still_ends_the_run() {
    let ring = ring();
    let asked = first_round(&ring, None);
    // Unpinned answers are checked against the question as this round asks it: a number, now.
    let unpinned = br#"{"ttl": 60, "pinAnswers": false}"#;
    let request = retry(&asked, accepted(json!("Ada")));
    let mut run = ToolRun::start(&ring.reading().unwrap(), request.as_bytes(), unpinned, CALL, None).unwrap();
    let number = br#"{"type":"object","properties":{"v":{"type":"number"}},"required":["v"]}"#;
    let refusal = run.ask_elicit("Age?", number, None).unwrap_err();
    assert_eq!(refusal.rule(), RuleId::RetryInputResponseInvalid);
    // The tool caught it and asks on: nothing is asked any more.
    assert_eq!(run.ask(question().as_bytes(), Some("again")).unwrap(), None);
    // It returns a result anyway: the run ends with the refusal, as its error and as its response.
    assert_eq!(run.respond(&ring, Some(br#"{"content":[]}"#), RANDOM), Err(refusal.clone()));
    let sent = json_of(&run.refusal_response(&Options::default()).unwrap());
    let expected = crate::error_response(b"7", refusal.rule().name(), refusal.message(), None, &Options::default());
    let expected = json_of(&expected.unwrap());
    assert_eq!(sent["response"]["error"]["code"], expected["response"]["error"]["code"]);
    assert_eq!((sent["response"]["id"].as_u64(), &sent["status"]), (Some(7), &expected["status"]));
    assert_eq!(sent["response"]["error"]["message"], refusal.message());
}

#[test]
fn a_refusal_wins_over_the_tools_own_error_and_only_then() {
    let ring = ring();
    let mut run = start(&ring, REQUEST);
    // A question that is no input request: the tool's bad question, refused.
    let refusal = run.ask(br#"{"method": "tools/list"}"#, None).unwrap_err();
    assert_eq!(run.refused(), Err(refusal.clone()));
    // A later refusal does not replace the first.
    let ring_owned = run.refuse(mrtr::Error::with(RuleId::UsageInvalidArgument, "later".into()));
    assert_eq!(ring_owned, refusal);
    // Without a refusal, the tool's own error is the host's to propagate.
    let mut clean = start(&ring, REQUEST);
    assert_eq!(clean.ask(question().as_bytes(), None).unwrap(), None);
    assert_eq!(clean.refused(), Ok(()));
    // A schema that is no JSON is the tool's own error: nothing asked, nothing recorded.
    assert!(clean.ask_elicit("Name?", b"{", None).is_err());
    assert_eq!((clean.refused(), clean.missing().len()), (Ok(()), 1));
}

#[test]
fn the_data_set_is_sealed_and_otherwise_the_last_rounds_is_kept_as_it_came() {
    let ring = ring();
    let asked = first_round(&ring, Some(br#"{"step": 1}"#));
    // Round two asks again and sets nothing: the data of round one is kept.
    let mut second = start(&ring, &retry(&asked, json!({})));
    assert_eq!(second.data().as_deref(), Some(r#"{"step":1}"#));
    assert_eq!(second.ask(question().as_bytes(), None).unwrap(), None);
    let kept = second.respond(&ring, None, RANDOM).unwrap();
    let third = start(&ring, &retry(&kept, json!({})));
    assert_eq!(third.data().as_deref(), Some(r#"{"step":1}"#));
    // Setting none keeps nothing.
    let mut cleared = start(&ring, &retry(&asked, json!({})));
    assert_eq!(cleared.ask(question().as_bytes(), None).unwrap(), None);
    cleared.set_data_value(None);
    assert_eq!(cleared.data(), None);
    let none = cleared.respond(&ring, None, RANDOM).unwrap();
    assert_eq!(start(&ring, &retry(&none, json!({}))).data(), None);
}

#[test]
fn a_callback_tool_that_returns_after_a_none_still_asks() {
    let ring = ring();
    let mut run = start(&ring, REQUEST);
    assert_eq!(run.ask(question().as_bytes(), None).unwrap(), None);
    let asked = json_of(&run.respond(&ring, Some(b"null"), RANDOM).unwrap());
    assert_eq!(asked["result"]["resultType"], "input_required");
    // A run that asked nothing unanswered needs the tool's result.
    let mut done = start(&ring, REQUEST);
    assert_eq!(done.respond(&ring, None, RANDOM).unwrap_err().rule(), RuleId::UsageInvalidArgument);
}

#[test]
fn the_round_cap_met_while_responding_is_the_runs_refusal() {
    let ring = ring();
    let mut asked = first_round(&ring, None);
    for _ in 0..2 {
        let mut run = start(&ring, &retry(&asked, json!({})));
        assert_eq!(run.ask(question().as_bytes(), None).unwrap(), None);
        match run.respond(&ring, None, RANDOM) {
            Ok(next) => asked = next,
            Err(e) => {
                assert_eq!((e.rule(), run.refused()), (RuleId::RetryRoundsExceeded, Err(e.clone())));
                assert!(run.refusal_response(&Options::default()).is_some());
                return;
            }
        }
    }
    panic!("two rounds allowed, and a third asked");
}

#[test]
fn a_bridge_finishes_a_round_as_its_run_ended() {
    const KEY: &str = "0123456789abcdef";
    // Unanswered: the question goes on the stream.
    let mut bridge = ToolBridge::new(REQUEST.as_bytes(), KEY, b"").unwrap();
    let mut run = bridge.replay().run();
    assert_eq!((run.arguments(), run.ask(question().as_bytes(), None).unwrap()), (None, None));
    bridge.finish(&run, None, 0).unwrap();
    assert_eq!((bridge.pending().len(), bridge.is_done()), (1, false));
    // Refused, though the tool returned: the call ends with the error.
    let mut bridge = ToolBridge::new(REQUEST.as_bytes(), KEY, b"").unwrap();
    let mut run = bridge.replay().run();
    assert!(run.ask(br#"{"method": "tools/list"}"#, None).is_err());
    bridge.finish(&run, Some(b"{}"), 0).unwrap();
    let written: String = core::iter::from_fn(|| bridge.poll_write()).collect();
    assert!(bridge.is_done() && written.contains(r#""error""#), "{written}");
    // Nothing missing: the result completes the call.
    let mut bridge = ToolBridge::new(REQUEST.as_bytes(), KEY, b"").unwrap();
    let run = bridge.replay().run();
    bridge.finish(&run, Some(br#"{"content":[]}"#), 0).unwrap();
    let written: String = core::iter::from_fn(|| bridge.poll_write()).collect();
    assert!(bridge.is_done() && written.contains(r#""result""#), "{written}");
}
