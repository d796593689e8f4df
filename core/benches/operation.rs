//! One two-round `tools/call` over HTTP, client side, side by side: the glue
//! hosts wrote before (`client::Client` for the rounds, one `http::call::Call`
//! per round, ids picked by the host) against `client::Operation`, which owns
//! all of it. The server's answers are canned JSON bodies, delivered whole;
//! both sides do the same protocol work (classify, validate the answers,
//! build each retry), so the difference is the operation's own cost.
//!
//! The goal: the operation costs no more per round than the glue.
//!
//! Run: `cargo bench -p mrtr --bench operation -- --warm-up-time 1 --measurement-time 3`.

use criterion::{criterion_group, criterion_main, Criterion};
use mrtr::client::operation::{Config, Event as OpEvent, Operation};
use mrtr::client::{Client, ClientConfig, Event as ClientEvent};
use mrtr::http::call::{headers, Call, CallConfig, Event as CallEvent};
use mrtr::http::{Headers, Mode};
use mrtr::Millis;
use serde_json::{json, Value};
use std::hint::black_box;

const ENDPOINT: &str = "http://127.0.0.1:8000/mcp";

fn request() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "greet", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}}})
}

fn ask(field: &str) -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": format!("{field}?"),
        "requestedSchema": {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}}})
}

/// The server's answer to the request with `id` in `round` (0, 1, 2).
fn answer(id: &Value, round: usize) -> String {
    let result = match round {
        0 => json!({"resultType": "input_required", "inputRequests": {"name": ask("name")}, "requestState": "s1"}),
        1 => json!({"resultType": "input_required", "inputRequests": {"city": ask("city")}, "requestState": "s2"}),
        _ => json!({"resultType": "complete", "content": [{"type": "text", "text": "Hello"}], "isError": false}),
    };
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

fn user(key: &str) -> Value {
    json!({"action": "accept", "content": {key: "Ada"}})
}

fn json_head() -> Headers {
    headers([("content-type", "application/json")])
}

/// The glue: a Client for the rounds, a Call per round, the host's ids.
fn glue() -> Value {
    let mut client = Client::new(ClientConfig::default());
    let handle = client.send(request()).unwrap();
    let mut next_id = 2u64;
    for round in 0.. {
        let sent = client.poll_transmit().unwrap();
        let mut call = Call::new(CallConfig::new(Mode::Streamable, ENDPOINT), &sent, Millis(0)).unwrap();
        let post = call.poll_transmit().unwrap();
        // The server reads the POST's body, as on the other side.
        let received: Value = serde_json::from_str(post.body.as_deref().unwrap()).unwrap();
        call.handle_head(post.exchange, 200, &json_head(), Millis(0)).unwrap();
        call.handle_body(post.exchange, answer(&received["id"], round).as_bytes(), Millis(0)).unwrap();
        call.handle_end(post.exchange, Millis(0)).unwrap();
        let Some(CallEvent::Response(response)) = call.poll_event() else { panic!("no response") };
        client.handle_response_value(response).unwrap();
        match client.poll_event().unwrap() {
            ClientEvent::InputRequired { input_requests, .. } => {
                let answers: serde_json::Map<String, Value> =
                    input_requests.as_object().unwrap().keys().map(|k| (k.clone(), user(k))).collect();
                client.answer(handle, &Value::Object(answers), json!(next_id)).unwrap();
                next_id += 1;
            }
            ClientEvent::Done { response, .. } => return response,
            ClientEvent::RetryNow { .. } => unreachable!(),
        }
    }
    unreachable!()
}

/// The operation: the host only carries bytes and answers keys.
fn operation() -> Value {
    let mut op = Operation::new(Config::new(Mode::Streamable, ENDPOINT), request(), Millis(0)).unwrap();
    for round in 0.. {
        let post = op.poll_transmit().unwrap();
        let received: Value = serde_json::from_str(post.body.as_deref().unwrap()).unwrap();
        op.handle_head(post.exchange, 200, &json_head(), Millis(0)).unwrap();
        op.handle_body(post.exchange, answer(&received["id"], round).as_bytes(), Millis(0)).unwrap();
        op.handle_end(post.exchange, Millis(0)).unwrap();
        match op.poll_event().unwrap() {
            OpEvent::InputRequired { requests, .. } => {
                for key in requests.keys() {
                    op.answer(key, user(key), Millis(0)).unwrap();
                }
            }
            OpEvent::Done(response) => return response,
            other => panic!("{other:?}"),
        }
    }
    unreachable!()
}

fn bench(c: &mut Criterion) {
    assert_eq!(glue()["result"]["resultType"], operation()["result"]["resultType"]);
    let mut group = c.benchmark_group("two-round tools/call, client side");
    group.bench_function("Client + a Call per round (host glue)", |b| b.iter(|| black_box(glue())));
    group.bench_function("Operation", |b| b.iter(|| black_box(operation())));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
