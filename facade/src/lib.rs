//! JSON text in, JSON text out: the one surface every binding calls.
//!
//! A binding converts its language's values to JSON text (or hands over the
//! bytes it was given), calls one function here, and converts the text that
//! comes back; it decides nothing. Every decision a binding used to make lives
//! here or below:
//!
//! - options: `{"protocol", "limits", "maxRounds"}` ([`Options::from_json`]);
//!   an unknown protocol name is `jsonrpc-invalid` ([`Protocol::parse`]),
//!   anything else malformed is `usage-invalid-argument`;
//! - the JSON shape of every output ([`mrtr::wire`]);
//! - a transcript as a whole is not bound by `maxMessageBytes` (each message
//!   in it is);
//! - handles arriving as host numbers ([`handle`]);
//! - key material, bindings and round options of sealed state;
//! - the tables a binding builds its enums and error classes from ([`catalogue`]).
//!
//! Every failure is an [`Error`] with a rule id; the binding raises the class
//! of [`Error::area`].

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

use alloc::{
    format,
    string::{String, ToString},
    vec::Vec,
};
use kinds::*;
use mrtr::{
    check::{self, Entry, Line},
    client,
    error::{Error, Result},
    rules::{Area, RULES},
    server,
    tasks::TaskStatus,
    Classified, Id, Kind, Limits, Protocol, ResultType, RuleId, Settings, DEFAULT_MAX_ROUNDS,
};
use mrtr_facade_macros::export;
use serde::Serialize;
use serde_json::{json, Value};

/// What every operation takes: the protocol, the limits, the round bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The protocol (the negotiated version).
    pub protocol: Protocol,
    /// Bounds on what is read.
    pub limits: Limits,
    /// Retries per request (the client machine, the checker). Default 10.
    pub max_rounds: Option<u32>,
    /// The checker's multi-turn transport (`sep-1858`, `sep-1335`); `None`:
    /// plain Streamable HTTP.
    pub transport: Option<mrtr::http::Mode>,
    /// The codes of the refusals a server builds (`errorCodes`: `released`,
    /// the default, or `draft`, the next revision's draft registry).
    pub error_codes: mrtr::ErrorCodes,
}

impl Options {
    /// Reads `{"protocol": name, "limits": {…}, "maxRounds": n}`; every field
    /// optional, `null` or empty text meaning all defaults.
    pub fn from_json(text: &[u8]) -> Result<Options> {
        if text.is_empty() {
            return Ok(Options::default());
        }
        let v = parse_arg(text, "options")?;
        Options::from_value(&v)
    }

    /// [`Options::from_json`] of an already parsed value.
    pub fn from_value(v: &Value) -> Result<Options> {
        let o = match v {
            Value::Null => return Ok(Options::default()),
            Value::Object(o) => o,
            _ => return Err(usage("options must be an object")),
        };
        let mut out = Options::default();
        for (k, v) in o {
            match (k.as_str(), v) {
                (_, Value::Null) => {}
                ("protocol", Value::String(p)) => out.protocol = Protocol::parse(p)?,
                ("transport", Value::String(t)) => out.transport = Some(mrtr::http::Mode::from_name(t)?),
                ("errorCodes", Value::String(c)) => {
                    out.error_codes =
                        mrtr::ErrorCodes::from_name(c).ok_or(usage("errorCodes is \"released\" or \"draft\""))?
                }
                ("limits", l) => out.limits = limits_of(l)?,
                ("maxRounds", n) => {
                    out.max_rounds =
                        Some(n.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or(usage("maxRounds is a u32"))?)
                }
                _ => return Err(usage_owned(format!("options has no field {k:?} of that type"))),
            }
        }
        Ok(out)
    }

    /// The client machine's settings (the round bound defaulting as the core's).
    pub fn client_config(&self) -> client::ClientConfig {
        self.settings()
    }

    /// The settings these options name, the round bound defaulting as the core's.
    pub fn settings(&self) -> Settings {
        let max_rounds = self.max_rounds.unwrap_or(DEFAULT_MAX_ROUNDS);
        Settings::DEFAULT.with_protocol(self.protocol).with_limits(self.limits).with_max_rounds(max_rounds)
    }

    /// The checker's settings (the round bound defaulting as the core's).
    pub fn check_config(&self) -> check::CheckConfig {
        check::CheckConfig::new(self.settings()).with_transport(self.transport)
    }
}

fn limits_of(v: &Value) -> Result<Limits> {
    serde_json::from_value(v.clone()).map_err(|e| usage_owned(format!("limits: {e}")))
}

fn usage(what: &'static str) -> Error {
    Error::new(RuleId::UsageInvalidArgument, what)
}

fn usage_owned(what: String) -> Error {
    Error::with(RuleId::UsageInvalidArgument, what)
}

/// A value the caller built (options, a key spec): bad JSON is the caller's bug.
fn parse_arg(text: &[u8], what: &str) -> Result<Value> {
    mrtr::parse(text, &Limits::DEFAULT).map_err(|e| usage_owned(format!("{what} is not JSON: {}", e.message())))
}

/// A message or message part, read under the core's bad-input rules.
fn parse(text: &[u8], limits: &Limits) -> Result<Value> {
    mrtr::parse(text, limits)
}

fn text<T: Serialize + ?Sized>(value: &T) -> String {
    // The core's wire types and `Value` always serialize (string keys only).
    serde_json::to_string(value).unwrap_or_default()
}

/// A handle as a host language holds it (a JavaScript number, a C `uint64_t`
/// cast through `f64`): a non-negative integer below 2^53.
pub fn handle(n: f64) -> Result<u64> {
    if (0.0..=9_007_199_254_740_991.0).contains(&n) && (n as u64) as f64 == n {
        Ok(n as u64)
    } else {
        Err(usage("a handle is a non-negative integer returned by send()"))
    }
}

/// A time (milliseconds), an exchange number or a count as a host language
/// holds it (a JavaScript number): a non-negative integer below 2^53, or
/// `usage-invalid-argument` naming `what`.
pub fn whole(n: f64, what: &str) -> Result<u64> {
    if (0.0..=9_007_199_254_740_991.0).contains(&n) && (n as u64) as f64 == n {
        Ok(n as u64)
    } else {
        Err(usage_owned(format!("{what} is a non-negative integer")))
    }
}

/// An HTTP status as a host language holds it: a whole number below 65536.
pub fn status(n: f64) -> Result<u16> {
    u16::try_from(whole(n, "a status")?).map_err(|_| usage("a status is below 65536"))
}

/// [`mrtr::classify`] with the options: the hot path, typed.
pub fn classify<'m>(message: &'m [u8], o: &Options) -> Result<mrtr::Classified<'m>> {
    mrtr::classify(message, o.protocol, &o.limits)
}

/// [`classify`] as JSON text (see [`mrtr::wire`]).
pub fn classify_json(message: &[u8], o: &Options) -> Result<String> {
    classify(message, o).map(|c| text(&c))
}

/// Classifies one raw message: what it found, packed into one string (`facade::classify_packed`).
///
/// [`classify`] packed into one short string, for a JavaScript host: one
/// crossing of its boundary and no JSON to parse on the hot path.
///
/// The first UTF-16 unit is a code: the kind's index in `Kind::ALL` (bits
/// 0–2) and 1 + the result type's index in `ResultType::ALL` or 0 (bits 3–4),
/// the orders of the catalogue's `kinds` and `resultTypes`; whether
/// `resultType` was on the wire (bit 5); whether there is a method (bit 6);
/// the id, a number (bit 7) or a string (bit 8). Then the method as
/// `<UTF-16 length>:<method>`, then the id (a number in decimal).
#[export(name = "classify")]
pub fn classify_packed(text: JsonText, options: &Options) -> Result<String> {
    classify(text, options).map(|c| packed(&c))
}

/// `c` packed (see [`classify_packed`]).
pub fn packed(c: &Classified<'_>) -> String {
    let id_bits = match &c.id {
        None | Some(Id::Null) => 0,
        Some(Id::Int(_) | Id::UInt(_)) => 1 << 7,
        Some(Id::Str(_)) => 1 << 8,
    };
    let index = |n: Option<usize>| n.unwrap_or_default() as u32;
    let kind = index(Kind::ALL.iter().position(|k| *k == c.kind));
    let result_type = c.result_type.map_or(0, |t| 1 + index(ResultType::ALL.iter().position(|r| *r == t)));
    let code =
        kind | result_type << 3 | u32::from(c.result_type_present) << 5 | u32::from(c.method.is_some()) << 6 | id_bits;
    // At most 9 bits: always a char, and one UTF-16 unit.
    let mut out = String::with_capacity(24 + c.method.as_ref().map_or(0, |m| m.len()));
    out.push(char::from_u32(code).unwrap_or_default());
    if let Some(m) = &c.method {
        decimal(&mut out, m.encode_utf16().count() as u64);
        out.push(':');
        out.push_str(m);
    }
    match &c.id {
        Some(Id::Int(i)) if *i < 0 => {
            out.push('-');
            decimal(&mut out, i.unsigned_abs());
        }
        Some(Id::Int(i)) => decimal(&mut out, i.unsigned_abs()),
        Some(Id::UInt(u)) => decimal(&mut out, *u),
        Some(Id::Str(s)) => out.push_str(s),
        None | Some(Id::Null) => {}
    }
    out
}

/// `n` in decimal, without the formatting machinery (this is the hot path).
fn decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|d| char::from(*d)));
}

/// Checks a whole conversation (message entries and HTTP entries): the violations, in transcript order
/// (none: compliant).
#[export(shapes(transcript = Transcript, options = CheckConfig), returns = Violations)]
pub fn check(transcript: JsonText, options: &Options) -> Result<JsonString> {
    // The transcript holds many messages: only each message is bound by maxMessageBytes.
    let whole = Limits { max_message_bytes: usize::MAX, ..options.limits };
    let v = parse(transcript, &whole)?;
    let entries = v.as_array().ok_or(usage("a transcript is a JSON array of entries"))?;
    let lines = entries.iter().map(|e| Line::from_value_with(e, &options.limits)).collect::<Result<Vec<_>>>()?;
    Ok(text(&check::check_lines(&lines, options.check_config())))
}

/// Checks a conversation in JSON Lines (one entry a non-blank line, as `mrtr
/// check` reads it): the violations as JSON text. A line that is not an entry
/// fails with its rule, the message naming the line (1-based).
pub fn check_jsonl(transcript: &[u8], o: &Options) -> Result<String> {
    Ok(text(&check::check_lines(&read_jsonl(transcript, &o.limits)?, o.check_config())))
}

/// The entries of a JSON Lines transcript ([`check::read_jsonl_bytes`]); an
/// error keeps its rule and names its line in the message (`line N: …`), so
/// every binding reports a bad line alike.
pub fn read_jsonl(transcript: &[u8], limits: &Limits) -> Result<Vec<Line>> {
    let entries = check::read_jsonl_bytes(transcript, limits)
        .map_err(|(line, e)| Error::with(e.rule(), format!("line {line}: {}", e.message())))?;
    Ok(entries.into_iter().map(|(_, e)| e).collect())
}

/// The incremental checker of a conversation: `handle` one entry at a time (a message, or an HTTP
/// exchange), read the violations so far.
#[export(machine)]
pub struct Checker {
    inner: check::Audit,
    limits: Limits,
}

impl Checker {
    /// A checker with the options.
    #[export(shapes(options = CheckConfig))]
    pub fn new(options: &Options) -> Checker {
        Checker { inner: check::Audit::new(options.check_config()), limits: options.limits }
    }

    /// Checks one entry.
    ///
    /// Checks one entry (`{"from", "message", "stream"}`, or an HTTP entry
    /// `{"from", "at", "http"}`).
    #[export(shapes(entry = TranscriptEntry))]
    pub fn handle(&mut self, entry: JsonText) -> Result<()> {
        let v = parse(entry, &Limits { max_message_bytes: usize::MAX, ..self.limits })?;
        self.inner.handle(&Line::from_value_with(&v, &self.limits)?);
        Ok(())
    }

    /// Checks one message, given apart from its entry: who sent it, its
    /// bytes, and (server messages over Streamable HTTP) its stream.
    pub fn handle_message(&mut self, from: check::Side, message: &[u8], stream: Option<&str>) -> Result<()> {
        let message = parse(message, &self.limits)?;
        self.inner.handle(&Line::Message(Entry { from, message, stream: stream.map(String::from) }));
        Ok(())
    }

    /// The violations so far, in transcript order.
    #[export(returns = Violations)]
    pub fn violations(&self) -> JsonString {
        text(self.inner.violations())
    }
}

/// An object argument a caller may leave out, none being the empty object
/// (no input responses: a retry that only carries the state back; no needs).
fn parse_or_none(text: Option<&[u8]>, limits: &Limits) -> Result<Value> {
    text.map_or_else(|| Ok(Value::Object(serde_json::Map::new())), |t| parse(t, limits))
}

/// Client: the retry of `request` (the request last sent) answering `result` (the response carrying
/// `input_required`) with `input_responses` (an `inputResponses` object; none: no answers) under the
/// new `id` (a JSON string or integer). In `sep-2322` the answer to `tasks/result` is a
/// `tasks/input_response` request. Fails with `input-responses-unsolicited`,
/// `input-required-method-not-allowed`, `retry-id-reused`, `retry-missing-input-response`,
/// `retry-input-response-invalid`, or the rule a malformed argument breaks.
///
/// [`client::retry`] over JSON text (`input_responses` none: no answers,
/// the retry of a load-shedding `input_required` that only carries state).
#[export(shapes(id = Id))]
pub fn retry(
    request: JsonText,
    result: JsonText,
    input_responses: OptJsonText,
    id: JsonValue,
    options: &Options,
) -> Result<JsonString> {
    let l = &options.limits;
    let (request, result) = (parse(request, l)?, parse(result, l)?);
    let (responses, id) = (parse_or_none(input_responses, l)?, parse(id, l)?);
    client::retry(&request, &result, &responses, &id, options.protocol, l).map(|v| text(&v))
}

/// Client (the Tasks extension of `2026-07-28`): the `tasks/update` request answering the input
/// requests of the task that `get_response` (the answer to the `tasks/get` request `get_request`)
/// shows, with `input_responses` (none: no answers), under the new `id`.
///
/// [`client::task_update`] over JSON text (`input_responses` none: no answers).
#[export(shapes(id = Id))]
pub fn task_update(
    get_request: JsonText,
    get_response: JsonText,
    input_responses: OptJsonText,
    id: JsonValue,
    options: &Options,
) -> Result<JsonString> {
    let l = &options.limits;
    let (request, response) = (parse(get_request, l)?, parse(get_response, l)?);
    let (responses, id) = (parse_or_none(input_responses, l)?, parse(id, l)?);
    client::task_update(&request, &response, &responses, &id, l).map(|v| text(&v))
}

/// Server: the `input_required` answer to `request`; `input_requests` (an `inputRequests` object) and
/// `request_state` (a JSON string) are optional, an absent one left out. Fails with
/// `input-required-method-not-allowed`, `request-meta-missing`, `request-capability-missing` (-32021:
/// `data.requiredCapabilities` names what the asks need), `input-required-empty`,
/// `input-request-invalid`, `request-state-invalid`.
///
/// [`server::respond`] over JSON text (`None`: the field is absent).
#[export(shapes(input_requests = Questions, request_state = RequestState))]
pub fn respond(
    request: JsonText,
    input_requests: OptJsonText,
    request_state: OptJsonValue,
    options: &Options,
) -> Result<JsonString> {
    let l = &options.limits;
    let request = parse(request, l)?;
    let asked = input_requests.map(|t| parse(t, l)).transpose()?;
    let state = request_state.map(|t| parse(t, l)).transpose()?;
    server::respond(&request, asked.as_ref(), state.as_ref(), options.protocol, l).map(|v| text(&v))
}

/// Server: the MRTR fields of `request` read against what this server `needs` (an
/// `inputRequests`-shaped object): `{"responses": {<needed keys present>: …}, "missing": [<needed keys
/// absent>], "ignored": [<keys present, not needed>], "requestState": <string or null>}`.
///
/// [`server::resume`] over JSON text: `{"responses", "missing", "ignored",
/// "requestState"}` (`needs` none: the server needs nothing).
#[export(shapes(needs = Questions), returns = Resumed)]
pub fn resume(request: JsonText, needs: OptJsonText, options: &Options) -> Result<JsonString> {
    let l = &options.limits;
    let (request, needs) = (parse(request, l)?, parse_or_none(needs, l)?);
    server::resume(&request, &needs, options.protocol, l).map(|r| text(&r))
}

/// `next`, when a task may go from `current` to `next`; else the refusal (`task-status-invalid`,
/// `task-transition-invalid`).
///
/// `from` may become `to`? The name of `to`, or `task-status-invalid` /
/// `task-transition-invalid`.
#[export(shapes(current = TaskStatus, next = TaskStatus), returns = TaskStatus)]
pub fn task_transition(current: &str, next: &str) -> Result<&'static str> {
    TaskStatus::from_name(current)?.transition(TaskStatus::from_name(next)?).map(TaskStatus::name)
}

/// The client's retry machine (sans-IO). Inputs: `send`, `handle_response`, `answer`; after each, drain
/// `poll_transmit` (messages to send, in order), then `poll_event`.
///
/// The client's retry machine over JSON text (see [`client::Client`] for the
/// drain order: `poll_transmit` first, then `poll_event`).
#[export(machine)]
pub struct Client {
    inner: client::Client,
    limits: Limits,
}

impl Client {
    /// A machine with the options.
    #[export(shapes(options = ClientConfig))]
    pub fn new(options: &Options) -> Client {
        Client { inner: client::Client::new(options.client_config()), limits: options.limits }
    }

    /// Starts a request: its handle.
    ///
    /// Starts `request`; its handle.
    #[export(returns = Handle)]
    pub fn send(&mut self, request: JsonText) -> Result<Handle> {
        let request = parse(request, &self.limits)?;
        self.inner.send(request).map(|h| h.0)
    }

    /// Takes a response message.
    #[export]
    pub fn handle_response(&mut self, response: JsonText) -> Result<()> {
        self.inner.handle_response(response)
    }

    /// Answers the input requests of `handle`; queues the retry under `id`.
    ///
    /// Answers the input requests of `handle` (none: no answers, the retry
    /// of a load-shedding `input_required`); queues the retry under `id`.
    #[export(shapes(handle = Handle, id = Id))]
    pub fn answer(&mut self, handle: Handle, input_responses: OptJsonText, id: JsonValue) -> Result<()> {
        let (responses, id) = (parse_or_none(input_responses, &self.limits)?, parse(id, &self.limits)?);
        self.inner.answer(client::Handle(handle), &responses, id)
    }

    /// Gives up on `handle`.
    #[export(shapes(handle = Handle))]
    pub fn abandon(&mut self, handle: Handle) {
        self.inner.abandon(client::Handle(handle));
    }

    /// The next message to send, or none.
    #[must_use]
    #[export]
    pub fn poll_transmit(&mut self) -> Option<JsonString> {
        self.inner.poll_transmit().map(|m| text(&m))
    }

    /// The next event (`inputRequired`, `retryNow`, `done`), or none.
    #[must_use]
    #[export(returns = ClientEvent)]
    pub fn poll_event(&mut self) -> Option<JsonString> {
        self.inner.poll_event().map(|e| text(&e))
    }
}

/// The tables (`facade::catalogue`): rules, areas, protocols, kinds, limits, ….
///
/// The tables a binding builds its enums and error classes from, as JSON text:
/// `{"rules": [{"key", "id", "number", "area", "code", "source"}], "areas":
/// [{"name", "title", "summary"}], "protocols", "kinds", "resultTypes",
/// "taskStatuses", "algorithms": [{"key", "value"}], "defaultLimits": {…},
/// "defaultProtocol", "defaultMaxRounds", "version"}`. `key` is the core's
/// variant name (`RetryIdReused`), `value` the wire name; protocols add their
/// `allowList`, task statuses `terminal` and the statuses they may become (`next`).
#[export]
pub fn catalogue() -> JsonString {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({"key": format!("{:?}", r.id), "id": r.name, "number": r.id as u16, "area": r.area,
                   "code": r.code, "source": r.source})
        })
        .collect();
    let areas: Vec<Value> =
        Area::ALL.iter().map(|a| json!({"name": a.name(), "title": a.title(), "summary": a.summary()})).collect();
    let pairs = |rows: &mut dyn Iterator<Item = (String, &'static str)>| -> Vec<Value> {
        rows.map(|(k, v)| json!({"key": k, "value": v})).collect()
    };
    let protocols: Vec<Value> = Protocol::ALL
        .iter()
        .map(|p| json!({"key": format!("{p:?}"), "value": p.name(), "allowList": p.rules().allow_list}))
        .collect();
    let kinds = pairs(&mut Kind::ALL.iter().map(|k| (format!("{k:?}"), k.name())));
    let result_types = pairs(&mut ResultType::ALL.iter().map(|t| (format!("{t:?}"), t.name())));
    let statuses: Vec<Value> = TaskStatus::ALL
        .iter()
        .map(|s| {
            let next: Vec<&str> = TaskStatus::ALL.iter().filter(|n| s.may_become(**n)).map(|n| n.name()).collect();
            json!({"key": format!("{s:?}"), "value": s.name(), "terminal": s.is_terminal(), "next": next})
        })
        .collect();
    let algorithms = pairs(&mut mrtr::state::Algorithm::ALL.iter().map(|a| (format!("{a:?}"), a.name())));
    text(&json!({
        "rules": rules, "areas": areas, "protocols": protocols, "kinds": kinds, "resultTypes": result_types,
        "taskStatuses": statuses, "algorithms": algorithms, "defaultLimits": Limits::DEFAULT,
        "defaultProtocol": Protocol::default(), "defaultMaxRounds": DEFAULT_MAX_ROUNDS,
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

/// An [`Error`] as JSON text (`{"rule", "area", "code", "message"}`), for
/// bindings that carry errors across their boundary as text.
pub fn error_json(e: &Error) -> String {
    text(e)
}

/// The error a binding raises for a panic it caught at its boundary.
pub fn panic_error(payload: &(dyn core::any::Any + Send)) -> Error {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    Error::with(RuleId::InternalPanic, format!("mrtr panicked (a bug in mrtr): {what}"))
}

pub use self::sealed::*;

pub mod exports;
pub mod kinds;
pub mod records;
pub mod settings;

mod session;
pub use session::Session;

mod transport;
pub use transport::*;

mod serve;
pub use serve::*;

mod replay;
pub use replay::*;

mod tool_run;
pub use tool_run::ToolRun;

mod ring;
pub use ring::KeyRing;

mod sealed {
    use super::{export, kinds::*, parse, parse_arg, text, usage, usage_owned, Options};
    use alloc::{format, string::String, string::ToString};
    use mrtr::{
        error::{Error, Result},
        round::{Call, Round, SealedRounds},
        state::{self, Algorithm, Binding, Key, KeyRing, Opened, ReplayGuard, Subject},
        Limits, Protocol,
    };
    use serde_json::{json, value::RawValue, Map, Value};

    /// A key from the host: `id` 0–255, an algorithm name, and exactly one of
    /// a 32-byte `secret` or a `master` secret to derive it from.
    pub fn key(id: i64, algorithm: &str, secret: Option<&[u8]>, master: Option<&[u8]>) -> Result<Key> {
        let id = u8::try_from(id).map_err(|_| usage("a key id is an integer from 0 to 255"))?;
        let alg = Algorithm::from_name(algorithm).ok_or_else(|| {
            let names: alloc::vec::Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
            usage_owned(format!("unknown algorithm {algorithm:?} ({})", names.join(", ")))
        })?;
        match (secret, master) {
            (Some(s), None) => {
                let s: &[u8; 32] = s.try_into().map_err(|_| usage("a secret is exactly 32 bytes"))?;
                Ok(Key::new(id, alg, s))
            }
            (None, Some(m)) => Key::derive(id, alg, m),
            _ => Err(usage("a key has exactly one of secret and master")),
        }
    }

    /// The subject a host names: a non-empty principal, or anonymous by
    /// explicit choice. Neither, or both, is a usage error: no binding
    /// defaults to anonymous.
    pub fn subject(principal: Option<&str>, anonymous: bool) -> Result<Subject<'_>> {
        match (principal, anonymous) {
            (Some(id), false) => Subject::principal(id),
            (None, true) => Ok(Subject::Anonymous),
            (Some(_), true) => Err(usage("a subject is a principal or anonymous, not both")),
            (None, false) => {
                Err(usage("name the subject (the authenticated principal), or choose anonymous explicitly"))
            }
        }
    }

    /// The subject of a JSON object with `"subject"` or `"anonymous": true`.
    fn subject_of(o: &Map<String, Value>) -> Result<(Option<String>, bool)> {
        let principal = match o.get("subject") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(usage("subject is a string")),
        };
        let anonymous = match o.get("anonymous") {
            None | Some(Value::Null | Value::Bool(false)) => false,
            Some(Value::Bool(true)) => true,
            Some(_) => return Err(usage("anonymous is a boolean")),
        };
        subject(principal.as_deref(), anonymous)?;
        Ok((principal, anonymous))
    }

    /// A [`Binding`] the host describes: `{"subject" | "anonymous": true,
    /// "protocol", "method", "target", "params" | "paramsDigest"}`, the digest
    /// computed from the exact text of `params` (every param but
    /// `inputResponses`, `requestState`, `_meta`), or given as 64 hex digits.
    #[derive(Clone, Debug)]
    pub struct BindingSpec {
        principal: Option<String>,
        protocol: Protocol,
        method: String,
        target: String,
        params_digest: [u8; 32],
    }

    impl BindingSpec {
        /// Reads the JSON text of a binding.
        pub fn from_json(text: &[u8]) -> Result<BindingSpec> {
            let v = parse_arg(text, "the binding")?;
            let o = v.as_object().ok_or(usage("a binding is an object"))?;
            const FIELDS: [&str; 7] =
                ["subject", "anonymous", "protocol", "method", "target", "params", "paramsDigest"];
            if let Some(k) = o.keys().find(|k| !FIELDS.contains(&k.as_str())) {
                // A leftover `arguments` (mrtr 0.1) would otherwise be dropped without a word.
                return Err(usage_owned(format!("a binding has no field {k:?} (it binds params or paramsDigest)")));
            }
            let string = |k: &str| -> Result<String> {
                match o.get(k) {
                    Some(Value::String(s)) => Ok(s.clone()),
                    _ => Err(usage_owned(format!("the binding's {k} is a string"))),
                }
            };
            let protocol = match o.get("protocol") {
                None | Some(Value::Null) => Protocol::default(),
                Some(Value::String(p)) => Protocol::parse(p)?,
                Some(_) => return Err(usage("the binding's protocol is a string")),
            };
            let params_digest = match (o.get("paramsDigest"), o.get("params")) {
                (Some(Value::String(hex)), None) => digest_of_hex(hex)?,
                (None, Some(Value::Object(_))) => state::params_digest_json(raw_member(text, "params")?.as_bytes())?,
                // `null` is no default either: a binding names its request's params object.
                (None, Some(_)) => return Err(usage("a binding's params are its request's params object")),
                _ => return Err(usage("a binding has exactly one of params and paramsDigest (64 hex digits)")),
            };
            if params_digest == [0; 32] {
                // A placeholder a host forgot to fill would bind every request alike.
                return Err(usage("paramsDigest is unset (32 zero bytes): the digest of the request's params"));
            }
            let (principal, _) = subject_of(o)?;
            Ok(BindingSpec { principal, protocol, method: string("method")?, target: string("target")?, params_digest })
        }

        /// The core's binding.
        pub fn binding(&self) -> Binding<'_> {
            Binding {
                subject: self.principal.as_deref().map_or(Subject::Anonymous, Subject::Principal),
                protocol: self.protocol,
                method: &self.method,
                target: &self.target,
                params_digest: self.params_digest,
            }
        }
    }

    /// The raw text of the member `key` of the JSON object `text` (parsed before).
    fn raw_member(text: &[u8], key: &str) -> Result<String> {
        let members: alloc::collections::BTreeMap<String, &RawValue> = core::str::from_utf8(text)
            .ok()
            .and_then(|t| serde_json::from_str(t).ok())
            .ok_or(usage("a binding is a JSON object"))?;
        members.get(key).map(|raw| String::from(raw.get())).ok_or(usage("the binding lacks a member"))
    }

    fn digest_of_hex(hex: &str) -> Result<[u8; 32]> {
        let bytes = hex.as_bytes();
        if bytes.len() != 64 || !bytes.iter().all(u8::is_ascii_hexdigit) {
            return Err(usage("paramsDigest is 64 hex digits"));
        }
        let mut out = [0u8; 32];
        for (i, pair) in bytes.chunks(2).enumerate() {
            let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            out[i] = digit(pair[0]) << 4 | digit(pair[1]);
        }
        Ok(out)
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The binding a sealed state of `request` is bound to, for the principal `subject` or, explicitly,
    /// `anonymous`: `{subject | anonymous, protocol, method, target, paramsDigest}`.
    ///
    /// The binding of the request `request` (raw JSON text) for a subject,
    /// as JSON text, the digest (exact, from the text) in hex.
    #[export]
    pub fn binding_for(
        request: JsonText,
        subject: Option<&str>,
        anonymous: bool,
        protocol: Option<&str>,
    ) -> Result<JsonString> {
        let value = parse(request, &Limits::DEFAULT)?;
        let (subject, protocol) = (self::subject(subject, anonymous)?, Protocol::parse_or_default(protocol)?);
        let b = Binding::for_request_text(&value, request, subject, protocol)?;
        let mut out = json!({"protocol": b.protocol, "method": b.method, "target": b.target,
                             "paramsDigest": hex(&b.params_digest)});
        match b.subject {
            Subject::Principal(id) => out["subject"] = id.into(),
            Subject::Anonymous => out["anonymous"] = true.into(),
        }
        Ok(text(&out))
    }

    /// The SHA-256 digest a sealed state binds a request's `params` by: every param but `inputResponses`,
    /// `requestState` and `_meta`, numbers exact (from their text), key order and spelling not.
    ///
    /// The digest of a params object given as JSON text (every param but
    /// `inputResponses`, `requestState`, `_meta`; numbers exact).
    #[export(returns = Digest)]
    pub fn params_digest(params: JsonText) -> Result<Digest> {
        // No default: `null` (a binding's absent params) is no params object, nor anything but one.
        if params.iter().find(|b| !b" \t\n\r".contains(b)) != Some(&b'{') {
            return Err(usage("a request's params are a JSON object"));
        }
        state::params_digest_json(params)
    }

    /// Where a seal's randomness comes from.
    pub enum Randomness<'a> {
        /// Bytes from the caller's CSPRNG (a browser's `crypto.getRandomValues`).
        Bytes(&'a [u8]),
        /// The operating system's random numbers (feature `os-rng`).
        #[cfg(feature = "os-rng")]
        Os,
    }

    /// Seals `payload` for `binding` (JSON text, see [`BindingSpec`]), expiring
    /// `ttl` seconds after `now`.
    pub fn seal(
        ring: &KeyRing,
        binding: &[u8],
        now: u64,
        ttl: u32,
        payload: &[u8],
        randomness: Randomness<'_>,
    ) -> Result<String> {
        let spec = BindingSpec::from_json(binding)?;
        ring.seal(&spec.binding(), mrtr::Millis::from_secs(now), ttl, payload, &mut rng(randomness)?)
    }

    /// Seals with a caller's nonce: test vectors only (feature `test-vectors`).
    #[cfg(feature = "test-vectors")]
    pub fn seal_with_nonce(
        ring: &super::KeyRing,
        binding: &[u8],
        now: u64,
        ttl: u32,
        payload: &[u8],
        nonce: &[u8],
    ) -> Result<String> {
        let now = mrtr::Millis::from_secs(now);
        ring.reading()?.seal_with_nonce(&BindingSpec::from_json(binding)?.binding(), now, ttl, payload, nonce)
    }

    /// Opens `token` (text or raw bytes) for `binding` at `now`, single-use
    /// under `guard` when there is one.
    pub fn open(
        ring: &KeyRing,
        token: &[u8],
        binding: &[u8],
        now: u64,
        guard: Option<&mut dyn ReplayGuard>,
    ) -> Result<Opened> {
        let (spec, now) = (BindingSpec::from_json(binding)?, mrtr::Millis::from_secs(now));
        match guard {
            Some(guard) => ring.open_once(token, &spec.binding(), now, guard),
            None => ring.open(token, &spec.binding(), now),
        }
    }

    /// A deployment's round settings as JSON text: `{"ttl" (default 300),
    /// "protocol", "limits", "pinAnswers" (default true)}`.
    #[derive(Clone, Debug)]
    pub struct RoundsSettings {
        ttl: u32,
        pin_answers: bool,
        options: Options,
    }

    impl RoundsSettings {
        /// Reads the JSON text of round settings.
        pub fn from_json(text: &[u8]) -> Result<RoundsSettings> {
            let mut v = parse_arg(text, "the round settings")?;
            if v.is_null() {
                v = json!({});
            }
            let o = v.as_object_mut().ok_or(usage("round settings are an object"))?;
            let ttl = match o.remove("ttl") {
                None | Some(Value::Null) => 300,
                Some(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or(usage("ttl is seconds (a u32)"))?,
            };
            let pin_answers = match o.remove("pinAnswers") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => b,
                Some(_) => return Err(usage("pinAnswers is a boolean")),
            };
            Ok(RoundsSettings { ttl, pin_answers, options: Options::from_value(&v)? })
        }

        /// The round cap of the settings (`maxRounds`), if given.
        pub(super) fn max_rounds(&self) -> Option<u32> {
            self.options.max_rounds
        }

        /// The protocol of the settings.
        pub fn protocol(&self) -> Protocol {
            self.options.protocol
        }

        /// The options of the settings (`protocol`, `limits`, `maxRounds`): a refusal's response is built under them.
        pub fn options(&self) -> &Options {
            &self.options
        }

        pub(super) fn rounds<'k>(&self, ring: &'k KeyRing) -> SealedRounds<'k> {
            SealedRounds {
                ring,
                ttl: self.ttl,
                protocol: self.options.protocol,
                limits: self.options.limits,
                pin_answers: self.pin_answers,
            }
        }
    }

    /// What is per request, as JSON text: `{"subject" | "anonymous": true, "now"}`.
    pub(super) struct CallSpec {
        principal: Option<String>,
        now: u64,
    }

    impl CallSpec {
        /// The call of a host that names its subject and clock as values (no
        /// JSON text to read per request): the same checks as [`CallSpec::from_json`].
        pub(super) fn new(principal: Option<&str>, anonymous: bool, now: u64) -> Result<CallSpec> {
            subject(principal, anonymous)?;
            Ok(CallSpec { principal: principal.map(String::from), now })
        }

        pub(super) fn from_json(text: &[u8]) -> Result<CallSpec> {
            let v = parse_arg(text, "the call")?;
            let o = v.as_object().ok_or(usage("a call is an object: {subject | anonymous, now}"))?;
            let (principal, _) = subject_of(o)?;
            let now = o.get("now").and_then(Value::as_u64).ok_or(usage("now is seconds since the epoch"))?;
            Ok(CallSpec { principal, now })
        }

        /// The core's call of `request` (its raw text `raw`), the digest exact.
        pub(super) fn call<'a>(
            &'a self,
            rounds: &SealedRounds<'_>,
            request: &'a Value,
            raw: &[u8],
        ) -> Result<Call<'a>> {
            rounds.call_text(request, raw, self.subject(), mrtr::Millis::from_secs(self.now))
        }

        /// [`CallSpec::call`] again for the same request, with the exact
        /// digest [`CallSpec::call`] computed from its text the first time
        /// (the text is not read twice).
        pub(super) fn call_digested<'a>(
            &'a self,
            rounds: &SealedRounds<'_>,
            request: &'a Value,
            params_digest: [u8; 32],
        ) -> Result<Call<'a>> {
            let binding = Binding::for_request_digested(request, self.subject(), rounds.protocol, params_digest)?;
            Ok(rounds.bound_call(request, binding, mrtr::Millis::from_secs(self.now)))
        }

        fn subject(&self) -> Subject<'_> {
            self.principal.as_deref().map_or(Subject::Anonymous, Subject::Principal)
        }
    }

    /// [`SealedRounds::resume`]: the round as JSON text (see `wire`).
    pub fn resume_round(
        ring: &KeyRing,
        request: &[u8],
        needs: &[u8],
        settings: &[u8],
        call: &[u8],
        guard: Option<&mut dyn ReplayGuard>,
    ) -> Result<String> {
        let settings = RoundsSettings::from_json(settings)?;
        let (rounds, spec, l) = (settings.rounds(ring), CallSpec::from_json(call)?, &settings.options.limits);
        let value = parse(request, l)?;
        let round = rounds.resume(&spec.call(&rounds, &value, request)?, &parse(needs, l)?, guard)?;
        Ok(text(&round))
    }

    /// [`SealedRounds::respond`]: the `input_required` response as JSON text.
    #[allow(clippy::too_many_arguments)]
    pub fn respond_round(
        ring: &KeyRing,
        request: &[u8],
        round: &[u8],
        needs: &[u8],
        data: Option<&[u8]>,
        settings: &[u8],
        call: &[u8],
        randomness: Randomness<'_>,
    ) -> Result<String> {
        let settings = RoundsSettings::from_json(settings)?;
        let (rounds, spec, l) = (settings.rounds(ring), CallSpec::from_json(call)?, &settings.options.limits);
        let round: Round = serde_json::from_value(parse_arg(round, "the round")?)
            .map_err(|e| usage_owned(format!("the round: {e}")))?;
        let data = data.map(|d| parse(d, l)).transpose()?;
        let value = parse(request, l)?;
        let call = spec.call(&rounds, &value, request)?;
        let response = rounds.respond(&call, &round, &parse(needs, l)?, data, &mut rng(randomness)?)?;
        Ok(text(&response))
    }

    /// What anyone can read off a token without a key, nothing of it authenticated: `{stateId, keyId,
    /// algorithm, expiry}`.
    ///
    /// [`state::inspect`]: `{"stateId", "keyId", "algorithm", "expiry"}` as JSON text.
    #[export(returns = TokenInfo)]
    pub fn inspect(token: JsonText) -> Result<JsonString> {
        let info = state::inspect(token)?;
        Ok(text(&json!({"stateId": info.id.to_string(), "keyId": info.key_id,
                        "algorithm": info.algorithm.name(), "expiry": info.expiry})))
    }

    pub(super) fn rng(r: Randomness<'_>) -> Result<state::SeedRng<'_>, Error> {
        match r {
            Randomness::Bytes(b) if b.len() < state::SeedRng::MIN_BYTES => {
                Err(usage_owned(format!("sealing needs at least {} random bytes", state::SeedRng::MIN_BYTES)))
            }
            Randomness::Bytes(b) => Ok(state::SeedRng::Bytes(b)),
            #[cfg(feature = "os-rng")]
            Randomness::Os => Ok(state::SeedRng::Os),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_read_every_field_and_say_whose_fault_a_bad_one_is() {
        let o = Options::from_json(br#"{"protocol":"sep-2322","limits":{"maxDepth":9},"maxRounds":3}"#).unwrap();
        assert_eq!((o.protocol, o.limits.max_depth, o.max_rounds), (Protocol::Sep2322, 9, Some(3)));
        assert_eq!(Options::from_json(b"").unwrap(), Options::default());
        assert_eq!(Options::from_json(b"null").unwrap(), Options::default());
        let rule = |t: &[u8]| Options::from_json(t).unwrap_err().rule();
        assert_eq!(rule(br#"{"protocol":"1999-01-01"}"#), RuleId::JsonrpcInvalid);
        assert_eq!(rule(br#"{"limits":{"maxDeep":1}}"#), RuleId::UsageInvalidArgument);
        assert_eq!(rule(br#"{"protocl":"sep-2322"}"#), RuleId::UsageInvalidArgument);
        assert_eq!(rule(b"[1]"), RuleId::UsageInvalidArgument);
        assert_eq!(rule(b"{"), RuleId::UsageInvalidArgument);
    }

    #[test]
    fn classify_packs_kind_method_and_id_into_one_string() {
        let o = Options::default();
        let p = classify_packed(br#"{"jsonrpc":"2.0","id":-12,"method":"tools/call","params":{}}"#, &o).unwrap();
        let code = p.chars().next().unwrap() as u32;
        assert_eq!((code & 7, code >> 6 & 1, code >> 7 & 1), (0, 1, 1));
        assert_eq!(p.chars().skip(1).collect::<String>(), "10:tools/call-12");
        let p = classify_packed(br#"{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete"}}"#, &o).unwrap();
        let code = p.chars().next().unwrap() as u32;
        assert_eq!((code & 7, code >> 3 & 3, code >> 5 & 1, code >> 8 & 1), (2, 1, 1, 1));
        assert_eq!(p.chars().skip(1).collect::<String>(), "a");
    }

    #[test]
    fn a_binding_names_its_params_object() {
        let rule = |t: &str| BindingSpec::from_json(t.as_bytes()).err().map(|e| e.rule());
        let bound = r#"{"subject":"alice","method":"tools/call","target":"t","#;
        assert_eq!(rule(&format!(r#"{bound}"params":{{"n":1}}}}"#)), None);
        for params in ["", r#""params":null"#, r#""params":["n"]"#, r#""params":"{}""#] {
            assert_eq!(rule(&format!("{bound}{params}}}")), Some(RuleId::UsageInvalidArgument), "{params}");
        }
    }

    #[test]
    fn params_are_digested_only_as_an_object() {
        assert_eq!(params_digest(b" {\"n\":1}"), params_digest(b"{\"n\": 1}"));
        for bad in [&b"null"[..], b"[]", b"\"{}\"", b"", b"1"] {
            assert_eq!(params_digest(bad).unwrap_err().rule(), RuleId::UsageInvalidArgument);
        }
    }

    #[test]
    fn handles_are_exact_integers() {
        assert_eq!(handle(3.0), Ok(3));
        for bad in [-1.0, 0.5, f64::NAN, f64::INFINITY, 1e300] {
            assert_eq!(handle(bad).unwrap_err().rule(), RuleId::UsageInvalidArgument, "{bad}");
        }
    }

    #[test]
    fn the_client_machine_speaks_json_text() {
        let mut c = Client::new(&Options::default());
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
        let h = c
            .send(
                format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t",{meta}}}}}"#)
                    .as_bytes(),
            )
            .unwrap();
        assert!(c.poll_transmit().unwrap().contains(r#""method":"tools/call""#));
        c.handle_response(br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}"#)
            .unwrap();
        assert_eq!(c.poll_event().unwrap(), format!(r#"{{"type":"retryNow","handle":{h}}}"#));
        assert_eq!(c.answer(h + 7, None, b"2").unwrap_err().rule(), RuleId::UsageUnknownHandle);
        // A load-shedding round answers nothing: no responses, the state carried back.
        c.answer(h, None, b"2").unwrap();
        let retry = c.poll_transmit().unwrap();
        assert!(retry.contains(r#""requestState":"s""#) && !retry.contains("inputResponses"), "{retry}");
        let stray = c.handle_response(br#"{"jsonrpc":"2.0","id":99,"result":{"resultType":"complete"}}"#);
        assert_eq!(stray.unwrap_err().rule(), RuleId::UsageOutOfTurn);
    }

    #[test]
    fn the_catalogue_lists_every_rule_with_its_area() {
        let v: Value = serde_json::from_str(&catalogue()).unwrap();
        assert_eq!(v["rules"].as_array().unwrap().len(), RULES.len());
        let retry = v["rules"].as_array().unwrap().iter().find(|r| r["id"] == "input-responses-malformed").unwrap();
        assert_eq!((retry["key"].as_str(), retry["area"].as_str()), (Some("InputResponsesMalformed"), Some("retry")));
        assert_eq!(
            (v["protocols"][0]["key"].as_str(), v["protocols"][0]["value"].as_str()),
            (Some("V2026_07_28"), Some("2026-07-28"))
        );
        assert_eq!(v["protocols"][3]["allowList"], json!([]));
        assert_eq!(
            v["taskStatuses"][2],
            json!({"key": "Completed", "value": "completed", "terminal": true, "next": ["completed"]})
        );
        assert_eq!(v["defaultProtocol"], "2026-07-28");
        assert_eq!(v["defaultLimits"]["maxDepth"], 128);
    }

    #[test]
    fn a_transcript_is_bound_per_message_not_as_a_whole() {
        let o = Options { limits: Limits { max_message_bytes: 80, ..Limits::DEFAULT }, ..Options::default() };
        let entry = r#"{"from":"client","message":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#;
        let transcript = format!("[{entry},{entry},{entry}]");
        assert_eq!(check(transcript.as_bytes(), &o).unwrap(), "[]");
        assert_eq!(check(b"{}", &o).unwrap_err().rule(), RuleId::UsageInvalidArgument);
    }

    #[test]
    fn sealed_state_round_trips_through_text() {
        let ring = mrtr::state::KeyRing::new(key(1, "aes-256-gcm", Some(&[7; 32]), None).unwrap());
        let b = br#"{"subject":"alice","method":"tools/call","target":"t","params":{"name":"t","arguments":{"a":1}}}"#;
        let token = seal(&ring, b, 1000, 60, b"hi", Randomness::Bytes(&[9; 32])).unwrap();
        assert_eq!(open(&ring, token.as_bytes(), b, 1001, None).unwrap().payload, b"hi");
        let other =
            br#"{"subject":"bob","method":"tools/call","target":"t","params":{"name":"t","arguments":{"a":1}}}"#;
        assert_eq!(open(&ring, token.as_bytes(), other, 1001, None).unwrap_err().rule(), RuleId::StateWrongSubject);
        assert_eq!(open(&ring, b"\xff", b, 1001, None).unwrap_err().rule(), RuleId::StateMalformed);
        assert_eq!(key(256, "aes-256-gcm", Some(&[7; 32]), None).unwrap_err().rule(), RuleId::UsageInvalidArgument);
        assert_eq!(key(1, "rot13", Some(&[7; 32]), None).unwrap_err().rule(), RuleId::UsageInvalidArgument);
        assert_eq!(key(1, "aes-256-gcm", Some(&[7; 31]), None).unwrap_err().rule(), RuleId::UsageInvalidArgument);
        let short = seal(&ring, b, 1000, 60, b"hi", Randomness::Bytes(&[9; 4]));
        assert_eq!(short.unwrap_err().rule(), RuleId::UsageInvalidArgument);
    }

    #[test]
    fn a_binding_names_its_subject_and_its_params() {
        let ring = mrtr::state::KeyRing::new(key(1, "aes-256-gcm", Some(&[7; 32]), None).unwrap());
        let seal_for =
            |b: &[u8]| seal(&ring, b, 0, 60, b"x", Randomness::Bytes(&[9; 32])).map(|_| ()).unwrap_err().rule();
        // No subject is not anonymous: the host says which it means.
        assert_eq!(seal_for(br#"{"method":"tools/call","target":"t","params":{}}"#), RuleId::UsageInvalidArgument);
        assert_eq!(
            seal_for(br#"{"subject":"","method":"tools/call","target":"t","params":{}}"#),
            RuleId::UsageInvalidArgument
        );
        // No params is not {}: a hand-built binding binds what it means; a v1 `arguments` is not taken for them.
        assert_eq!(seal_for(br#"{"subject":"a","method":"tools/call","target":"t"}"#), RuleId::UsageInvalidArgument);
        let v1 = br#"{"subject":"a","method":"tools/call","target":"t","arguments":{},"params":{}}"#;
        assert_eq!(seal_for(v1), RuleId::UsageInvalidArgument);
        let anon = br#"{"anonymous":true,"method":"tools/call","target":"t","params":{"name":"t"}}"#;
        let token = seal(&ring, anon, 0, 60, b"x", Randomness::Bytes(&[9; 32])).unwrap();
        assert!(open(&ring, token.as_bytes(), anon, 1, None).is_ok());
        let named = br#"{"subject":"anonymous","method":"tools/call","target":"t","params":{"name":"t"}}"#;
        assert_eq!(open(&ring, token.as_bytes(), named, 1, None).unwrap_err().rule(), RuleId::StateWrongSubject);
    }
}
