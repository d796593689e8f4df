//! The client machine driven against a stateless server built on
//! `server::respond` / `server::resume`: the flows of the SEP texts end to end.

use mrtr::client::{Client, ClientConfig, Event, Handle};
use mrtr::{server, Limits, Protocol, RuleId};
use serde_json::{json, Value};

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}}})
}

fn login(key: &str) -> Value {
    json!({key: {"method": "elicitation/create", "params": {"message": format!("{key}?"),
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}})
}

/// A weather tool, version `v`: v1 asks github_login and google_login, v2
/// github_login and microsoft_login (001 "Use Case 1: Rolling Upgrades"). It
/// keeps answers it already has in `requestState` (plain JSON: a test server).
fn weather_server(request: &Value, version: u8) -> Value {
    let (p, l) = (Protocol::default(), Limits::default());
    let mut needs = login("github_login");
    let second = if version == 1 { "google_login" } else { "microsoft_login" };
    needs.as_object_mut().unwrap().extend(login(second).as_object().unwrap().clone());
    let got = server::resume(request, &needs, p, &l).expect("a valid request");
    let mut known: serde_json::Map<String, Value> =
        got.request_state.as_deref().map(|s| serde_json::from_str(s).unwrap()).unwrap_or_default();
    known.extend(got.responses);
    let missing: serde_json::Map<String, Value> = needs
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| !known.contains_key(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if missing.is_empty() {
        return json!({"jsonrpc": "2.0", "id": request["id"], "result": {"resultType": "complete",
            "content": [{"type": "text", "text": format!("sunny, for {}", known.len())}]}});
    }
    let state = (!known.is_empty()).then(|| json!(Value::Object(known).to_string()));
    server::respond(request, Some(&json!(missing)), state.as_ref(), p, &l).expect("an allowed answer")
}

fn answer_all(requests: &Value) -> Value {
    let answers = requests
        .as_object()
        .unwrap()
        .keys()
        .map(|k| (k.clone(), json!({"action": "accept", "content": {"name": "octocat"}})));
    Value::Object(answers.collect())
}

/// Runs `client` against `server` until the request is done; returns the final
/// response and the number of retries.
fn drive(client: &mut Client, handle: Handle, mut server: impl FnMut(&Value, usize) -> Value) -> (Value, usize) {
    let (mut next_id, mut retries) = (100, 0);
    loop {
        while let Some(out) = client.poll_transmit() {
            let reply = server(&out, retries);
            client.handle_response(reply.to_string().as_bytes()).expect("a valid response");
        }
        match client.poll_event().expect("an event after each response") {
            Event::InputRequired { handle: h, input_requests, .. } => {
                assert_eq!(h, handle);
                client.answer(h, &answer_all(&input_requests), json!(next_id)).unwrap();
            }
            Event::RetryNow { handle: h } => client.answer(h, &json!({}), json!(next_id)).unwrap(),
            Event::Done { response, .. } => return (response, retries),
        }
        next_id += 1;
        retries += 1;
    }
}

fn call() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
           "params": {"name": "get_weather", "arguments": {"location": "New York"}, "_meta": meta()}})
}

#[test]
fn weather_flow_completes_in_one_retry() {
    let mut client = Client::new(ClientConfig::default());
    let h = client.send(call()).unwrap();
    let (response, retries) = drive(&mut client, h, |req, _| weather_server(req, 2));
    assert_eq!(retries, 1);
    assert_eq!(response["result"]["resultType"], "complete");
}

#[test]
fn rolling_upgrade_keeps_the_old_answer_in_request_state() {
    let mut client = Client::new(ClientConfig::default());
    let h = client.send(call()).unwrap();
    // The first round hits v1, later rounds v2: v2 asks microsoft_login only.
    let mut asked = Vec::new();
    let (response, retries) = drive(&mut client, h, |req, round| {
        let reply = weather_server(req, if round == 0 { 1 } else { 2 });
        asked.push(reply["result"]["inputRequests"].as_object().map(|o| o.keys().cloned().collect::<Vec<_>>()));
        reply
    });
    assert_eq!(retries, 2);
    assert_eq!(asked[1], Some(vec!["microsoft_login".to_string()]));
    // github_login (kept in requestState) and microsoft_login; google_login was ignored.
    assert_eq!(response["result"]["content"][0]["text"], "sunny, for 2");
}

#[test]
fn load_shedding_retries_at_once_and_echoes_state() {
    let mut client = Client::new(ClientConfig::default());
    let h = client.send(call()).unwrap();
    let (response, retries) = drive(&mut client, h, |req, round| {
        if round == 0 {
            let state = json!("half-done");
            return server::respond(req, None, Some(&state), Protocol::default(), &Limits::default()).unwrap();
        }
        assert_eq!(req["params"]["requestState"], "half-done");
        assert!(req["params"].get("inputResponses").is_none());
        json!({"jsonrpc": "2.0", "id": req["id"], "result": {"resultType": "complete", "content": []}})
    });
    assert_eq!((retries, &response["result"]["resultType"]), (1, &json!("complete")));
}

#[test]
fn rounds_are_bounded() {
    let mut client = Client::new(ClientConfig::DEFAULT.with_max_rounds(2));
    let h = client.send(call()).unwrap();
    let state = json!("again");
    for (round, id) in (0..=2).zip(10..) {
        let out = client.poll_transmit().unwrap();
        let reply = server::respond(&out, None, Some(&state), Protocol::default(), &Limits::default()).unwrap();
        client.handle_response_value(reply).unwrap();
        assert_eq!(client.poll_event(), Some(Event::RetryNow { handle: h }));
        let result = client.answer(h, &json!({}), json!(id));
        if round < 2 {
            result.unwrap();
        } else {
            assert_eq!(result.unwrap_err().rule(), RuleId::RetryRoundsExceeded);
        }
    }
}

#[test]
fn the_machine_refuses_what_the_rules_forbid() {
    let mut client = Client::new(ClientConfig::default());
    let mut with_state = call();
    with_state["params"]["requestState"] = json!("x");
    assert_eq!(client.send(with_state).unwrap_err().rule(), RuleId::InputResponsesUnsolicited);
    let h = client.send(call()).unwrap();
    let mut dup = call();
    dup["params"]["name"] = json!("other");
    assert_eq!(client.send(dup).unwrap_err().rule(), RuleId::RetryIdReused);
    let out = client.poll_transmit().unwrap();
    let reply = weather_server(&out, 2);
    client.handle_response_value(reply).unwrap();
    let Some(Event::InputRequired { input_requests, .. }) = client.poll_event() else { panic!("input required") };
    assert_eq!(client.answer(h, &answer_all(&input_requests), json!(1)).unwrap_err().rule(), RuleId::RetryIdReused);
    let partial = json!({"github_login": {"action": "accept", "content": {"name": "x"}}});
    assert_eq!(client.answer(h, &partial, json!(2)).unwrap_err().rule(), RuleId::RetryMissingInputResponse);
    let mut wrong = answer_all(&input_requests);
    wrong["github_login"] = json!({"action": "accept", "content": {"login": "x"}});
    assert_eq!(client.answer(h, &wrong, json!(2)).unwrap_err().rule(), RuleId::RetryInputResponseInvalid);
    client.answer(h, &answer_all(&input_requests), json!(2)).unwrap();
    assert_eq!(client.poll_transmit().unwrap()["id"], 2);
}

#[test]
fn an_input_required_task_is_answered_with_tasks_update_once_per_key() {
    use mrtr::check::{check, CheckConfig, Entry, Side};
    let (l, meta) = (Limits::default(), meta());
    let get =
        json!({"jsonrpc": "2.0", "id": 7, "method": "tasks/get", "params": {"taskId": "t1", "_meta": meta.clone()}});
    let task = |status: &str, extra: Value| {
        let mut r = json!({"resultType": "complete", "taskId": "t1", "status": status,
            "createdAt": "2026-07-28T10:00:00Z", "lastUpdatedAt": "2026-07-28T10:00:01Z", "ttlMs": 60000});
        r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        r
    };
    let shown = json!({"jsonrpc": "2.0", "id": 7, "result": task("input_required", json!({"inputRequests": login("echo_input")}))});
    let update = mrtr::client::task_update(&get, &shown, &answer_all(&login("echo_input")), &json!(8), &l).unwrap();
    assert_eq!(update["method"], "tasks/update");
    assert_eq!(update["params"]["taskId"], "t1");
    assert_eq!(update["params"]["inputResponses"]["echo_input"]["action"], "accept");
    let missing = mrtr::client::task_update(&get, &shown, &json!({}), &json!(8), &l).unwrap_err();
    assert_eq!(missing.rule(), RuleId::RetryMissingInputResponse);

    // The whole extension flow checks clean; asking the answered key again does not.
    let call = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "echo", "_meta": meta}});
    let created = json!({"jsonrpc": "2.0", "id": 6, "result": {"resultType": "task", "taskId": "t1", "status": "working",
        "createdAt": "2026-07-28T10:00:00Z", "lastUpdatedAt": "2026-07-28T10:00:00Z", "ttlMs": 60000}});
    let ack = json!({"jsonrpc": "2.0", "id": 8, "result": {"resultType": "complete"}});
    let mut get2 = get.clone();
    get2["id"] = json!(9);
    let again = json!({"jsonrpc": "2.0", "id": 9, "result": task("input_required", json!({"inputRequests": login("echo_input")}))});
    let done = json!({"jsonrpc": "2.0", "id": 9, "result": task("completed", json!({"result": {"content": []}}))});
    let flow = |last: &Value| {
        let msgs = [
            (Side::Client, &call),
            (Side::Server, &created),
            (Side::Client, &get),
            (Side::Server, &shown),
            (Side::Client, &update),
            (Side::Server, &ack),
            (Side::Client, &get2),
            (Side::Server, last),
        ];
        let entries: Vec<Entry> =
            msgs.iter().map(|(from, m)| Entry { from: *from, message: (*m).clone(), stream: None }).collect();
        check(&entries, CheckConfig::default()).into_iter().map(|v| (v.rule, v.index)).collect::<Vec<_>>()
    };
    assert_eq!(flow(&done), vec![]);
    assert_eq!(flow(&again), vec![(RuleId::TaskInputKeyReused, 7)]);
}
