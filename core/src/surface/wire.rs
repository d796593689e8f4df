//! The one JSON shape of every value the core hands to a host (feature `serde`).
//!
//! Bindings used to spell these shapes by hand, each its own way (an event was
//! `{"type":"inputRequired"}` in one language and `{"event":"input_required"}`
//! in another). Now every output type serializes here, once, and every binding
//! passes the text on:
//!
//! | type | shape |
//! |---|---|
//! | [`Classified`] | `{"kind", "id", "method", "resultType", "resultTypePresent"}` |
//! | [`Event`] | `{"type": "inputRequired", "handle", "inputRequests", "round"}`, `{"type": "retryNow", "handle"}`, `{"type": "done", "handle", "response"}` |
//! | [`Resumed`] | `{"responses", "missing", "ignored", "requestState"}` |
//! | [`Round`](crate::round::Round) | `{"answers", "missing", "ignored", "data", "round", "stateId", "expiry"}` (read back too) |
//! | [`Violation`] | `{"rule", "index", "message"}` |
//! | [`Error`] | `{"rule", "area", "code", "message"}` |
//! | [`Limits`] | `{"maxMessageBytes", "maxDepth", "maxInputRequests", "maxRequestStateBytes"}`; read back with each field defaulting |
//! | [`sse::Event`](crate::sse::Event) | `{"event", "data", "id", "retry"}`, only the fields set |
//! | [`http::Request`](crate::http::Request) | `{"exchange", "method", "url", "headers": {name: value}, "body": <JSON>}` |
//! | [`http::call::Event`](crate::http::call::Event) | `{"type": "serverRequest" \| "message" \| "response", "message"}`, `{"type": "violation" \| "failed", "rule", "message"}` |
//! | [`client::operation::Event`](crate::client::operation::Event) | `{"type": "inputRequired", "round", "requests"}`, `{"type": "message", "message"}`, `{"type": "done", "response"}`, `{"type": "violation" \| "failed", "rule", "message"}` |
//! | [`http::serve::Incoming`](crate::http::serve::Incoming) | `{"type": "call", "message"}`, `{"type": "messages", "messages"}`, `{"type": "answers", "key", "responses"}`, `{"type": "resume", "key", "lastEventId"}` |
//!
//! Names ([`RuleId`], [`Area`], [`Protocol`], [`Kind`], [`ResultType`]) are
//! their stable strings; a [`Handle`] is its number.

use crate::{
    base::error::Error,
    base::kind::Kind,
    base::kind::ResultType,
    base::limits::Limits,
    base::protocol::Protocol,
    base::rules::Area,
    base::rules::RuleId,
    conversation::check::Violation,
    machines::client::{Event, Handle},
    machines::server::Resumed,
    one_message::envelope::Classified,
    one_message::envelope::Id,
};
use serde::{
    de::{self, Deserializer},
    ser::{SerializeMap, Serializer},
    Deserialize, Serialize,
};

macro_rules! as_name {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
    )*};
}
as_name!(RuleId, Area, Protocol, Kind, ResultType);

impl<'de> Deserialize<'de> for Protocol {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <alloc::borrow::Cow<'de, str>>::deserialize(d)?;
        Protocol::parse(&name).map_err(|e| de::Error::custom(e.message()))
    }
}

impl Serialize for Handle {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

impl Serialize for Id<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Id::Null => s.serialize_unit(),
            Id::Int(i) => s.serialize_i64(*i),
            Id::UInt(u) => s.serialize_u64(*u),
            Id::Str(t) => s.serialize_str(t),
        }
    }
}

impl Serialize for Classified<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(5))?;
        m.serialize_entry("kind", &self.kind)?;
        m.serialize_entry("id", &self.id)?;
        m.serialize_entry("method", &self.method)?;
        m.serialize_entry("resultType", &self.result_type)?;
        m.serialize_entry("resultTypePresent", &self.result_type_present)?;
        m.end()
    }
}

impl Serialize for Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self {
            Event::InputRequired { handle, input_requests, round } => {
                m.serialize_entry("type", "inputRequired")?;
                m.serialize_entry("handle", handle)?;
                m.serialize_entry("inputRequests", input_requests)?;
                m.serialize_entry("round", round)?;
            }
            Event::RetryNow { handle } => {
                m.serialize_entry("type", "retryNow")?;
                m.serialize_entry("handle", handle)?;
            }
            Event::Done { handle, response } => {
                m.serialize_entry("type", "done")?;
                m.serialize_entry("handle", handle)?;
                m.serialize_entry("response", response)?;
            }
        }
        m.end()
    }
}

impl Serialize for Resumed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("responses", &self.responses)?;
        m.serialize_entry("missing", &self.missing)?;
        m.serialize_entry("ignored", &self.ignored)?;
        m.serialize_entry("requestState", &self.request_state)?;
        m.end()
    }
}

impl Serialize for Violation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("rule", &self.rule)?;
        m.serialize_entry("index", &self.index)?;
        m.serialize_entry("message", &self.message)?;
        m.end()
    }
}

impl Serialize for Error {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("rule", &self.rule())?;
        m.serialize_entry("area", &self.area())?;
        m.serialize_entry("code", &self.code())?;
        m.serialize_entry("message", self.message())?;
        if let Some(data) = self.data() {
            m.serialize_entry("data", data)?;
        }
        m.end()
    }
}

/// The wire form of [`Limits`]: every field optional on the way in.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
struct LimitsWire {
    max_message_bytes: usize,
    max_depth: usize,
    max_input_requests: usize,
    max_request_state_bytes: usize,
}

impl Default for LimitsWire {
    fn default() -> Self {
        Limits::DEFAULT.into()
    }
}

impl From<Limits> for LimitsWire {
    fn from(l: Limits) -> Self {
        LimitsWire {
            max_message_bytes: l.max_message_bytes,
            max_depth: l.max_depth,
            max_input_requests: l.max_input_requests,
            max_request_state_bytes: l.max_request_state_bytes,
        }
    }
}

impl Serialize for Limits {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        LimitsWire::from(*self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Limits {
    /// Absent fields keep [`Limits::DEFAULT`]'s value; unknown fields are refused.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = LimitsWire::deserialize(d)?;
        Ok(Limits {
            max_message_bytes: w.max_message_bytes,
            max_depth: w.max_depth,
            max_input_requests: w.max_input_requests,
            max_request_state_bytes: w.max_request_state_bytes,
        })
    }
}

#[cfg(feature = "state")]
mod round {
    use crate::rounds::round::{Round, StateInfo};
    use crate::sealed::state::StateId;
    use alloc::{string::String, string::ToString, vec::Vec};
    use serde::{de::Error as _, Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::{Map, Value};

    #[derive(Serialize, Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct RoundWire {
        #[serde(default)]
        answers: Map<String, Value>,
        #[serde(default)]
        missing: Vec<String>,
        #[serde(default)]
        ignored: Vec<String>,
        #[serde(default)]
        data: Option<Value>,
        #[serde(default)]
        round: u32,
        #[serde(default)]
        state_id: Option<String>,
        #[serde(default)]
        expiry: Option<u64>,
    }

    impl Serialize for Round {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let w = RoundWire {
                answers: self.answers.clone(),
                missing: self.missing.clone(),
                ignored: self.ignored.clone(),
                data: self.data.clone(),
                round: self.number,
                state_id: self.state.map(|s| s.id.to_string()),
                expiry: self.state.map(|s| s.expiry),
            };
            w.serialize(s)
        }
    }

    impl<'de> Deserialize<'de> for Round {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let w = RoundWire::deserialize(d)?;
            let state = match (w.state_id, w.expiry) {
                (Some(id), Some(expiry)) => {
                    let id =
                        StateId::from_hex(&id).ok_or_else(|| D::Error::custom("stateId is 24 or 48 hex digits"))?;
                    Some(StateInfo { id, expiry })
                }
                (None, None) => None,
                _ => return Err(D::Error::custom("stateId and expiry come together")),
            };
            Ok(Round {
                answers: w.answers,
                missing: w.missing,
                ignored: w.ignored,
                data: w.data,
                number: w.round,
                state,
            })
        }
    }
}

/// An event-stream block: only the fields it set.
impl Serialize for crate::read::sse::Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some(e) = &self.event {
            m.serialize_entry("event", e)?;
        }
        if let Some(d) = &self.data {
            m.serialize_entry("data", d)?;
        }
        if let Some(i) = &self.id {
            m.serialize_entry("id", i)?;
        }
        if let Some(r) = &self.retry {
            m.serialize_entry("retry", r)?;
        }
        m.end()
    }
}

/// Header fields as an object of lower-case names (a repeated name keeps its
/// values joined with `, `, as HTTP allows for every field but `set-cookie`).
struct HeaderMap<'a>(&'a [(alloc::string::String, alloc::string::String)]);

impl Serialize for HeaderMap<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut joined: alloc::vec::Vec<(&str, alloc::string::String)> = alloc::vec::Vec::new();
        for (name, value) in self.0 {
            match joined.iter_mut().find(|(n, _)| n == name) {
                Some((_, v)) => {
                    v.push_str(", ");
                    v.push_str(value);
                }
                None => joined.push((name, value.clone())),
            }
        }
        let mut m = s.serialize_map(Some(joined.len()))?;
        for (n, v) in &joined {
            m.serialize_entry(n, v)?;
        }
        m.end()
    }
}

/// A request to send: `{"exchange", "method", "url", "headers", "body"}`, the
/// body as the JSON it is (the client form of an HTTP entry, plus `exchange`).
impl Serialize for crate::machines::http::Request {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("exchange", &self.exchange)?;
        m.serialize_entry("method", self.method)?;
        m.serialize_entry("url", &self.url)?;
        m.serialize_entry("headers", &HeaderMap(&self.headers))?;
        if let Some(body) = &self.body {
            // The machine wrote the body itself: it is JSON.
            let raw = serde_json::value::RawValue::from_string(body.clone()).map_err(serde::ser::Error::custom)?;
            m.serialize_entry("body", &raw)?;
        }
        m.end()
    }
}

/// `{"type": "serverRequest" | "message" | "response", "message"}` or
/// `{"type": "violation" | "failed", "rule", "message"}`.
impl Serialize for crate::machines::http::call::Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use crate::machines::http::call::Event as E;
        let mut m = s.serialize_map(None)?;
        let (kind, message, error) = match self {
            E::ServerRequest(v) => ("serverRequest", Some(v), None),
            E::Message(v) => ("message", Some(v), None),
            E::Response(v) => ("response", Some(v), None),
            E::Violation(e) => ("violation", None, Some(e)),
            E::Failed(e) => ("failed", None, Some(e)),
        };
        m.serialize_entry("type", kind)?;
        if let Some(v) = message {
            m.serialize_entry("message", v)?;
        }
        if let Some(e) = error {
            m.serialize_entry("rule", &e.rule())?;
            m.serialize_entry("message", e.message())?;
        }
        m.end()
    }
}

/// `{"type": "inputRequired", "round", "requests"}`, `{"type": "message",
/// "message"}`, `{"type": "done", "response"}`, or `{"type": "violation" |
/// "failed", "rule", "message"}`.
impl Serialize for crate::machines::client::operation::Event {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use crate::machines::client::operation::Event as E;
        let mut m = s.serialize_map(None)?;
        match self {
            E::InputRequired { round, requests } => {
                m.serialize_entry("type", "inputRequired")?;
                m.serialize_entry("round", round)?;
                m.serialize_entry("requests", requests)?;
            }
            E::Message(v) => {
                m.serialize_entry("type", "message")?;
                m.serialize_entry("message", v)?;
            }
            E::Done(v) => {
                m.serialize_entry("type", "done")?;
                m.serialize_entry("response", v)?;
            }
            E::Violation(e) | E::Failed(e) => {
                m.serialize_entry("type", if matches!(self, E::Violation(_)) { "violation" } else { "failed" })?;
                m.serialize_entry("rule", &e.rule())?;
                m.serialize_entry("message", e.message())?;
            }
        }
        m.end()
    }
}

/// `{"type": "call", "message"}`, `{"type": "messages", "messages"}`,
/// `{"type": "answers", "key", "responses"}`, `{"type": "resume", "key", "lastEventId"}`.
impl Serialize for crate::machines::http::serve::Incoming {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use crate::machines::http::serve::Incoming as I;
        let mut m = s.serialize_map(None)?;
        match self {
            I::Call(v) => {
                m.serialize_entry("type", "call")?;
                m.serialize_entry("message", v)?;
            }
            I::Messages(v) => {
                m.serialize_entry("type", "messages")?;
                m.serialize_entry("messages", v)?;
            }
            I::Answers { key, responses } => {
                m.serialize_entry("type", "answers")?;
                m.serialize_entry("key", key)?;
                m.serialize_entry("responses", responses)?;
            }
            I::Resume { key, last_event_id } => {
                m.serialize_entry("type", "resume")?;
                m.serialize_entry("key", key)?;
                m.serialize_entry("lastEventId", last_event_id)?;
            }
        }
        m.end()
    }
}

#[cfg(test)]
mod tests {
    use crate::{base::limits::Limits, base::protocol::Protocol, machines::client};
    use serde_json::{json, Value};

    #[test]
    fn limits_read_back_with_defaults_and_refuse_unknown_fields() {
        let l: Limits = serde_json::from_value(json!({"maxDepth": 8})).unwrap();
        assert_eq!(l, Limits { max_depth: 8, ..Limits::DEFAULT });
        assert_eq!(serde_json::from_value::<Limits>(json!({})).unwrap(), Limits::DEFAULT);
        assert!(serde_json::from_value::<Limits>(json!({"maxDeep": 8})).is_err());
        let back: Limits = serde_json::from_value(serde_json::to_value(Limits::DEFAULT).unwrap()).unwrap();
        assert_eq!(back, Limits::DEFAULT);
    }

    #[test]
    fn events_have_one_shape() {
        let e = client::Event::RetryNow { handle: client::Handle(3) };
        assert_eq!(serde_json::to_value(&e).unwrap(), json!({"type": "retryNow", "handle": 3}));
        let e = client::Event::InputRequired { handle: client::Handle(1), input_requests: json!({}), round: 2 };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"type": "inputRequired", "handle": 1, "inputRequests": {}, "round": 2})
        );
    }

    #[test]
    fn classifications_and_errors_name_their_parts() {
        let msg = br#"{"jsonrpc":"2.0","id":"a","result":{"resultType":"input_required","requestState":"s"}}"#;
        let c = crate::one_message::envelope::classify(msg, Protocol::default(), &Limits::DEFAULT).unwrap();
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            json!({"kind": "input_required", "id": "a", "method": null, "resultType": "input_required", "resultTypePresent": true})
        );
        let e = crate::one_message::envelope::classify(b"{", Protocol::default(), &Limits::DEFAULT).unwrap_err();
        let v: Value = serde_json::to_value(&e).unwrap();
        assert_eq!(
            (v["rule"].as_str(), v["area"].as_str(), v["code"].as_i64()),
            (Some("jsonrpc-parse-error"), Some("protocol"), Some(-32700))
        );
    }
}
