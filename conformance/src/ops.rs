//! Runs one case's op through the public API of `mrtr` and compares.

use crate::corpus::{json_eq, set_eq, Case};
use crate::transcript;
use mrtr::{bare::BareId, check, client, server, Error, Limits, Millis, Protocol, RuleId};
use serde_json::{json, Value};

/// The ops this runner knows.
pub const OPS: [&str; 8] = ["classify", "check", "retry", "resume", "respond", "state", "sse", "http-client"];

/// Runs `case` and compares its outcome with `expect`.
pub fn run(case: &Case) -> Result<(), String> {
    let actual = outcome(&case.op, &case.input)?;
    compare(&case.op, &case.expect, &actual)
        .map_err(|why| format!("{why}\n  expected: {}\n  actual:   {}", case.expect, actual))
}

/// The outcome of `op` on `input`, as the corpus writes expectations.
pub fn outcome(op: &str, input: &Value) -> Result<Value, String> {
    let limits = Limits::default();
    let result = match op {
        "classify" => classify(input, &limits),
        "check" => return check_op(input),
        "retry" => retry(input, &limits),
        "resume" => resume(input, &limits),
        "respond" => respond(input, &limits),
        "state" => sealed_state(input),
        "sse" => return sse_op(input),
        "http-client" => return http_client_op(input),
        other => return Err(format!("unknown op {other:?}")),
    };
    Ok(result.unwrap_or_else(|e| json!({ "error": e.rule().name() })))
}

fn protocol(name: Option<&Value>) -> Result<Protocol, Error> {
    Protocol::parse_or_default(name.and_then(Value::as_str))
}

fn classify(input: &Value, limits: &Limits) -> Result<Value, Error> {
    let p = protocol(input.get("protocol"))?;
    let bytes = message_bytes(input)?;
    let c = mrtr::classify(&bytes, p, limits)?;
    let id = match c.id {
        None | Some(mrtr::Id::Null) => Value::Null,
        Some(mrtr::Id::Int(i)) => json!(i),
        Some(mrtr::Id::UInt(u)) => json!(u),
        Some(mrtr::Id::Str(s)) => json!(s),
    };
    Ok(json!({ "kind": c.kind.name(), "id": id, "method": c.method }))
}

/// The outcome of a `classify` case through `mrtr::bare::classify`, the
/// no-allocator path: `cargo test` runs every `classify` case through both.
pub fn bare_classify(input: &Value) -> Value {
    let classified = || -> Result<Value, Error> {
        let c = mrtr::bare::classify(&message_bytes(input)?, protocol(input.get("protocol"))?, &Limits::default())?;
        let id = match c.id {
            BareId::None | BareId::Null => Value::Null,
            BareId::Int(i) => json!(i),
            BareId::UInt(u) => json!(u),
            BareId::Str(s) => json!(s.as_str()),
        };
        Ok(json!({ "kind": c.kind.name(), "id": id, "method": c.method.as_deref() }))
    };
    classified().unwrap_or_else(|e| json!({ "error": e.rule().name() }))
}

/// The message a `classify` case gives: `hex` (raw bytes, for those a JSON
/// string cannot hold, such as invalid UTF-8) or `text`.
pub(crate) fn message_bytes(input: &Value) -> Result<Vec<u8>, Error> {
    match input.get("hex") {
        Some(h) => hex(h),
        None => Ok(input["text"].as_str().unwrap_or_default().as_bytes().to_vec()),
    }
}

/// Bytes written in hex in a case (a malformed case is the corpus' fault: a
/// usage error, never a peer's rule).
fn hex(v: &Value) -> Result<Vec<u8>, Error> {
    let bad = |what: &'static str| Error::new(RuleId::UsageInvalidArgument, what);
    let s = v.as_str().ok_or(bad("hex string expected"))?;
    if s.len() % 2 != 0 {
        return Err(bad("hex of odd length"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2).unwrap_or("zz"), 16).map_err(|_| bad("bad hex")))
        .collect()
}

fn check_op(input: &Value) -> Result<Value, String> {
    let config = input.get("config").cloned().unwrap_or(json!({}));
    let protocol = protocol(config.get("protocol")).map_err(|e| e.to_string())?;
    let max_rounds = config.get("maxRounds").and_then(Value::as_u64).map_or(mrtr::DEFAULT_MAX_ROUNDS, |n| n as u32);
    let transport = match config.get("transport").and_then(Value::as_str) {
        Some(name) => Some(mrtr::http::Mode::from_name(name).map_err(|e| e.to_string())?),
        None => None,
    };
    let lines = input["transcript"].as_array().ok_or("transcript must be an array")?;
    let lines = lines.iter().map(transcript::line).collect::<Result<Vec<_>, _>>()?;
    let config =
        check::CheckConfig::default().with_protocol(protocol).with_max_rounds(max_rounds).with_transport(transport);
    let violations: Vec<Value> =
        check::check_lines(&lines, config).iter().map(|v| json!({"rule": v.rule.name(), "index": v.index})).collect();
    Ok(json!({ "violations": violations }))
}

fn retry(input: &Value, limits: &Limits) -> Result<Value, Error> {
    let p = protocol(input.get("protocol"))?;
    let responses = input.get("inputResponses").cloned().unwrap_or(json!({}));
    let request = client::retry(&input["request"], &input["result"], &responses, &input["id"], p, limits)?;
    Ok(json!({ "request": request }))
}

fn resume(input: &Value, limits: &Limits) -> Result<Value, Error> {
    let p = protocol(input.get("protocol"))?;
    let needs = input.get("needs").cloned().unwrap_or(json!({}));
    let r = server::resume(&input["request"], &needs, p, limits)?;
    Ok(json!({ "responses": r.responses, "missing": r.missing, "ignored": r.ignored, "requestState": r.request_state }))
}

fn respond(input: &Value, limits: &Limits) -> Result<Value, Error> {
    let p = protocol(input.get("protocol"))?;
    let present = |k: &str| input.get(k).filter(|v| !v.is_null());
    let response = server::respond(&input["request"], present("inputRequests"), present("requestState"), p, limits)?;
    Ok(json!({ "response": response }))
}

/// The `sse` op: every chunk fed to the decoder, the stream ended, every
/// block listed (an unreadable one as `{"error": rule}`).
fn sse_op(input: &Value) -> Result<Value, String> {
    let mut decoder = mrtr::sse::Decoder::new();
    for chunk in input["chunks"].as_array().ok_or("chunks must be an array")? {
        decoder.feed(chunk.as_str().ok_or("a chunk is a string")?.as_bytes());
    }
    decoder.finish();
    let events: Vec<Value> = core::iter::from_fn(|| decoder.poll_event())
        .map(|block| match block {
            Ok(e) => serde_json::to_value(&e).unwrap_or_default(),
            Err(e) => json!({ "error": e.rule().name() }),
        })
        .collect();
    Ok(json!({ "events": events }))
}

/// The `http-client` op: the machine driven by the script's steps; after its
/// creation and after each step, what it sends, its events and its timeout.
fn http_client_op(input: &Value) -> Result<Value, String> {
    use mrtr::http::{call::Call, Headers};
    let config = mrtr_facade::call_config(input["config"].to_string().as_bytes()).map_err(|e| e.to_string())?;
    let mut now = Millis(input.get("now").and_then(Value::as_u64).unwrap_or(0));
    let mut call = match Call::new(config, &input["request"], now) {
        Ok(call) => call,
        Err(e) => return Ok(json!({ "outputs": [[{ "error": e.rule().name() }]] })),
    };
    let mut outputs = vec![drain(&mut call)];
    for step in input["steps"].as_array().ok_or("steps must be an array")? {
        now = step.get("at").and_then(Value::as_u64).map_or(now, Millis);
        let exchange = |part: &Value| part["exchange"].as_u64().ok_or("a step names its exchange");
        let done = if let Some(head) = step.get("head") {
            let headers: Headers = head["headers"]
                .as_object()
                .map(|h| {
                    h.iter().map(|(n, v)| (n.to_ascii_lowercase(), v.as_str().unwrap_or_default().into())).collect()
                })
                .unwrap_or_default();
            let status = head["status"].as_u64().ok_or("a head has a status")? as u16;
            call.handle_head(exchange(head)?, status, &headers, now)
        } else if let Some(body) = step.get("body") {
            let bytes = match body.get("hex") {
                Some(h) => hex(h).map_err(|e| e.to_string())?,
                None => body["text"].as_str().ok_or("a body step has text or hex")?.as_bytes().to_vec(),
            };
            call.handle_body(exchange(body)?, &bytes, now)
        } else if let Some(end) = step.get("end") {
            call.handle_end(exchange(end)?, now)
        } else if let Some(answer) = step.get("answer") {
            call.answer(answer, now)
        } else if let Some(at) = step.get("timeout").and_then(Value::as_u64) {
            now = Millis(at);
            call.handle_timeout(now);
            Ok(())
        } else {
            return Err(format!("unknown step {step}"));
        };
        outputs.push(match done {
            Ok(()) => drain(&mut call),
            Err(e) => vec![json!({ "error": e.rule().name() })],
        });
    }
    Ok(json!({ "outputs": outputs }))
}

/// What a call machine has to say after an input, in the drain order.
fn drain(call: &mut mrtr::http::call::Call) -> Vec<Value> {
    let mut out = Vec::new();
    while let Some(request) = call.poll_transmit() {
        out.push(json!({ "send": serde_json::to_value(&request).unwrap_or_default() }));
    }
    while let Some(event) = call.poll_event() {
        out.push(json!({ "event": serde_json::to_value(&event).unwrap_or_default() }));
    }
    if let Some(at) = call.poll_timeout() {
        out.push(json!({ "timeout": at }));
    }
    out
}

/// `http-client` outcomes compare exactly, but for the prose `message` of
/// `violation` and `failed` events (only their rule is the contract).
fn compare_outputs(expect: &Value, actual: &Value) -> Result<(), String> {
    fn strip(v: &Value) -> Value {
        let mut v = v.clone();
        for step in v["outputs"].as_array_mut().into_iter().flatten() {
            for item in step.as_array_mut().into_iter().flatten() {
                let event = &mut item["event"];
                if event.get("rule").is_some() {
                    event.as_object_mut().map(|e| e.remove("message"));
                }
            }
        }
        v
    }
    if json_eq(&strip(expect), &strip(actual)) {
        Ok(())
    } else {
        Err("outputs differ".into())
    }
}

/// The `state` op: a key ring from `keys`/`current` (and `context`), then
/// `seal` (expect the token) or `open` (expect the payload, the state id and
/// the expiry) under `binding` (or its raw JSON text, `bindingText`); `used`
/// ids are already in the replay guard.
fn sealed_state(input: &Value) -> Result<Value, Error> {
    use mrtr::state::{Algorithm, Key, KeyRing, StateId};
    use mrtr_facade::BindingSpec;
    let bad = |what: &'static str| Error::new(RuleId::JsonrpcInvalid, what);
    let mut keys = Vec::new();
    for k in input["keys"].as_array().ok_or(bad("keys"))? {
        let alg = Algorithm::from_name(k["alg"].as_str().unwrap_or_default()).ok_or(bad("unknown algorithm"))?;
        let secret: [u8; 32] = hex(&k["secret"])?.try_into().map_err(|_| bad("a secret is 32 bytes"))?;
        keys.push(Key::new(k["id"].as_u64().ok_or(bad("key id"))? as u8, alg, &secret));
    }
    let mut keys = keys.into_iter();
    let mut ring = KeyRing::new(keys.next().ok_or(bad("no key"))?);
    keys.for_each(|k| ring.add(k));
    if let Some(id) = input.get("current").and_then(Value::as_u64) {
        ring.set_current(id as u8);
    }
    if let Some(max) = input.get("maxTokenBytes").and_then(Value::as_u64) {
        ring.set_max_token_bytes(max as usize);
    }
    if let Some(label) = input.get("context").and_then(Value::as_str) {
        ring.set_context(label.as_bytes())?;
    }
    let text = match input.get("bindingText").and_then(Value::as_str) {
        Some(text) => text.to_string(),
        None => input["binding"].to_string(),
    };
    let spec = BindingSpec::from_json(text.as_bytes())?;
    let binding = spec.binding();
    if let Some(seal) = input.get("seal") {
        let now = Millis::from_secs(seal["now"].as_u64().ok_or(bad("now"))?);
        let ttl = seal["ttl"].as_u64().ok_or(bad("ttl"))? as u32;
        let payload = seal["payload"].as_str().unwrap_or_default().as_bytes();
        let token = ring.seal_with_nonce(&binding, now, ttl, payload, &hex(&seal["nonce"])?)?;
        return Ok(json!({ "token": token }));
    }
    let open = &input["open"];
    let (token, now) =
        (open["token"].as_str().unwrap_or_default(), Millis::from_secs(open["now"].as_u64().unwrap_or(0)));
    let opened = match open.get("used").and_then(Value::as_array) {
        Some(used) => {
            let used: Vec<StateId> = used.iter().filter_map(|id| StateId::from_hex(id.as_str()?)).collect();
            let mut guard = |id: &StateId, _expiry: u64| !used.contains(id);
            ring.open_once(token, &binding, now, &mut guard)?
        }
        None => ring.open(token, &binding, now)?,
    };
    Ok(json!({
        "payload": String::from_utf8_lossy(&opened.payload),
        "stateId": opened.id.to_string(),
        "expiry": opened.expiry,
    }))
}

/// Compares as `conformance/README.md` says: an error exactly; otherwise the
/// listed keys, with `violations`, `missing` and `ignored` as sets.
pub fn compare(op: &str, expect: &Value, actual: &Value) -> Result<(), String> {
    if op == "http-client" {
        return compare_outputs(expect, actual);
    }
    if expect.get("error").is_some() || actual.get("error").is_some() {
        return if json_eq(
            &expect.get("error").cloned().unwrap_or(Value::Null),
            &actual.get("error").cloned().unwrap_or(Value::Null),
        ) {
            Ok(())
        } else {
            Err("outcome differs".into())
        };
    }
    let expect = expect.as_object().ok_or("expect must be an object")?;
    for (key, want) in expect {
        let got = actual.get(key).unwrap_or(&Value::Null);
        let as_set = matches!((op, key.as_str()), ("check", "violations") | ("resume", "missing" | "ignored"));
        let same = if as_set { set_eq(want, got) } else { json_eq(want, got) };
        if !same {
            return Err(format!("{key:?} differs"));
        }
    }
    Ok(())
}
