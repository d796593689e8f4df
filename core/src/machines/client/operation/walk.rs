//! Walks [`OPERATION_TRANSITIONS`](super::state::OPERATION_TRANSITIONS):
//! every state is reachable from the start, every listed move is made by
//! driving a real [`Operation`] with the host's inputs (the moves it made
//! are compared with the table, both ways), and every move the table does
//! not list is refused in a state the operation was driven to.

use super::state::OPERATION_TRANSITIONS;
use super::*;
use crate::base::protocol::{META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION};
use crate::machines::http::{call::headers, Headers};
use alloc::{collections::BTreeSet, string::ToString};

const ENDPOINT: &str = "http://127.0.0.1:8000/mcp";

/// A `2026-07-28` `tools/call`; with `tasks`, the client speaks the Tasks extension.
fn mrtr_request(tasks: bool) -> Value {
    let mut request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet",
        "arguments": {}, "_meta": {META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: {"elicitation": {"form": {}}}}}});
    if tasks {
        request["params"]["_meta"][META_CLIENT_CAPABILITIES]["extensions"] =
            json!({"io.modelcontextprotocol/tasks": {}});
    }
    request
}

fn question() -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": "Name?",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}})
}

fn accept() -> Value {
    json!({"action": "accept", "content": {"name": "Ada"}})
}

fn complete(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "content": [], "isError": false}})
}

fn json_head() -> Headers {
    headers([("content-type", "application/json")])
}

fn sse_head() -> Headers {
    headers([("content-type", "text/event-stream")])
}

/// Answers the next request the operation sends with `body` under `head`, whole.
fn respond(op: &mut Operation, head: &Headers, body: impl FnOnce(&Value) -> String, now: Millis) {
    let sent = op.poll_transmit().expect("a request to answer");
    let request: Value = serde_json::from_str(sent.body.as_deref().unwrap_or("null")).unwrap();
    op.handle_head(sent.exchange, 200, head, now).unwrap();
    op.handle_body(sent.exchange, body(&request).as_bytes(), now).unwrap();
    op.handle_end(sent.exchange, now).unwrap();
}

/// An MRTR operation whose first round the server answered `input_required`.
fn asking() -> Operation {
    let mut op = Operation::new(Config::new(Mode::Streamable, ENDPOINT), mrtr_request(false), Millis(0)).unwrap();
    let asked = |r: &Value| {
        json!({"jsonrpc": "2.0", "id": r["id"], "result": {"resultType": "input_required",
            "inputRequests": {"name": question()}, "requestState": "s1"}})
        .to_string()
    };
    respond(&mut op, &json_head(), asked, Millis(1));
    op
}

/// A `2025-11-25` operation whose call's stream asked twice; the host answered `answered` of them.
fn answered(answered: usize) -> Operation {
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "greet"}});
    let mut op = Operation::new(Config::new(Mode::Legacy, ENDPOINT), request, Millis(0)).unwrap();
    let post = op.poll_transmit().unwrap();
    op.handle_head(post.exchange, 200, &sse_head(), Millis(1)).unwrap();
    for id in ["s1", "s2"] {
        let asked = json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": question()["params"]});
        op.handle_body(post.exchange, alloc::format!("data: {asked}\n\n").as_bytes(), Millis(1)).unwrap();
    }
    for key in ["s1", "s2"].into_iter().take(answered) {
        op.answer(key, accept(), Millis(2)).unwrap();
    }
    op
}

/// A Tasks operation whose task is working: it polls.
fn polling() -> Operation {
    let mut op = Operation::new(Config::new(Mode::Streamable, ENDPOINT), mrtr_request(true), Millis(0)).unwrap();
    let record = json!({"taskId": "t1", "status": "working", "createdAt": "2026-11-27T09:00:00Z",
        "lastUpdatedAt": "2026-11-27T09:00:01Z", "ttlMs": 60000, "pollIntervalMs": 50});
    let created = |r: &Value| crate::machines::server::tasks::created(r, &record).unwrap().to_string();
    respond(&mut op, &json_head(), created, Millis(1));
    op
}

/// Every scenario, each driving an operation through some of the table's moves.
fn scenarios() -> Vec<Operation> {
    let mut ops = Vec::new();
    // MRTR: asked, answered, the retry, its response.
    let mut op = asking();
    op.answer("name", accept(), Millis(2)).unwrap();
    respond(&mut op, &json_head(), |r| complete(&r["id"]).to_string(), Millis(3));
    ops.push(op);
    // A round cut before its response goes again.
    let config = Config { idempotent: true, ..Config::new(Mode::Streamable, ENDPOINT) };
    let mut op = Operation::new(config, mrtr_request(false), Millis(0)).unwrap();
    respond(&mut op, &sse_head(), |_| ": started\n\n".into(), Millis(1));
    ops.push(op);
    // A stream mode's call answered twice, then its response.
    let mut op = answered(2);
    op.handle_body(1, alloc::format!("data: {}\n\n", complete(&json!(7))).as_bytes(), Millis(3)).unwrap();
    ops.push(op);
    // A task polled: `tasks/get` goes at its time.
    let mut op = polling();
    op.handle_timeout(op.poll_timeout().unwrap());
    ops.push(op);
    // A task restored under an endpoint that is no URL: its `tasks/get` cannot go, the failure is final.
    let snapshot = polling().snapshot(Millis(1)).unwrap();
    let mut op = Operation::restore(Config::new(Mode::Streamable, "no url"), &snapshot, Millis(1)).unwrap();
    op.handle_timeout(op.poll_timeout().unwrap());
    ops.push(op);
    ops
}

/// An operation driven to `state`.
fn reach(state: OperationState) -> Operation {
    let mut op = match state {
        OperationState::Sending => {
            Operation::new(Config::new(Mode::Streamable, ENDPOINT), mrtr_request(false), Millis(0)).unwrap()
        }
        OperationState::Answered => answered(1),
        OperationState::Asking => asking(),
        OperationState::Polling => polling(),
        OperationState::Over => scenarios().swap_remove(0),
    };
    assert_eq!(op.phase.state(), state);
    while op.poll_transmit().is_some() {}
    while op.poll_event().is_some() {}
    op
}

#[test]
fn every_state_is_reachable_from_the_start() {
    let mut seen = alloc::vec![OperationState::Sending];
    let mut i = 0;
    while i < seen.len() {
        for (from, _, to) in OPERATION_TRANSITIONS {
            if *from == seen[i] && !seen.contains(to) {
                seen.push(*to);
            }
        }
        i += 1;
    }
    for state in OperationState::ALL {
        assert!(seen.contains(&state), "{state:?} is unreachable");
    }
}

#[test]
fn driving_real_operations_makes_every_listed_move_and_no_other() {
    let mut made = BTreeSet::new();
    for op in scenarios() {
        for (from, input, to) in &op.trail {
            made.insert(alloc::format!("{from:?} --{input:?}-> {to:?}"));
        }
    }
    let listed: BTreeSet<_> =
        OPERATION_TRANSITIONS.iter().map(|(f, i, t)| alloc::format!("{f:?} --{i:?}-> {t:?}")).collect();
    let missing: Vec<_> = listed.difference(&made).collect();
    assert!(missing.is_empty(), "listed but never made: {missing:?}");
    assert_eq!(made, listed);
}

#[test]
fn every_move_not_listed_is_refused_and_changes_nothing() {
    for state in OperationState::ALL {
        let mut op = reach(state);
        for input in OperationInput::ALL {
            if OPERATION_TRANSITIONS.iter().any(|(f, i, _)| *f == state && *i == input) {
                continue;
            }
            let refused = op.step(input, Phase::Over).unwrap_err();
            assert_eq!(refused.rule(), RuleId::UsageOutOfTurn, "{state:?} {input:?}");
            assert_eq!(op.phase.state(), state, "{input:?} moved it");
        }
        assert!(op.poll_transmit().is_none() && op.poll_event().is_none(), "{state:?}");
    }
}
