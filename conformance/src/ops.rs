//! Runs one case's op through the public API of `mrtr` and compares.

use crate::corpus::{json_eq, set_eq, Case};
use crate::transcript;
use mrtr::{check, client, server, Error, Limits, Protocol, RuleId};
use serde_json::{json, Value};

/// The ops this runner knows.
pub const OPS: [&str; 6] = ["classify", "check", "retry", "resume", "respond", "state"];

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

/// The message a `classify` case gives: `hex` (raw bytes, for those a JSON
/// string cannot hold, such as invalid UTF-8) or `text`.
fn message_bytes(input: &Value) -> Result<Vec<u8>, Error> {
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
    let max_rounds = config.get("maxRounds").and_then(Value::as_u64).map_or(10, |n| n as u32);
    let entries = input["transcript"].as_array().ok_or("transcript must be an array")?;
    let entries = entries.iter().map(transcript::entry).collect::<Result<Vec<_>, _>>()?;
    let config = check::CheckConfig { protocol, max_rounds, ..Default::default() };
    let violations: Vec<Value> =
        check::check(&entries, config).iter().map(|v| json!({"rule": v.rule.name(), "index": v.index})).collect();
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

/// The `state` op: a key ring from `keys`/`current` (and `context`), then
/// `seal` (expect the token) or `open` (expect the payload, the state id and
/// the expiry) under `binding` (or its raw JSON text, `bindingText`); `used`
/// ids are already in the replay guard.
fn sealed_state(input: &Value) -> Result<Value, Error> {
    use mrtr::facade::BindingSpec;
    use mrtr::state::{Algorithm, Key, KeyRing, StateId};
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
        let now = seal["now"].as_u64().ok_or(bad("now"))?;
        let ttl = seal["ttl"].as_u64().ok_or(bad("ttl"))? as u32;
        let payload = seal["payload"].as_str().unwrap_or_default().as_bytes();
        let token = ring.seal_with_nonce(&binding, now, ttl, payload, &hex(&seal["nonce"])?)?;
        return Ok(json!({ "token": token }));
    }
    let open = &input["open"];
    let (token, now) = (open["token"].as_str().unwrap_or_default(), open["now"].as_u64().unwrap_or(0));
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
