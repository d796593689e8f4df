//! `classify` with an allocator, over bytes or over a parsed message.
//!
//! [`classify`] is the hot path: the strict reader (`json`) checks the bytes
//! and the single-message rules (`validate`) read them in place, building no
//! tree. [`classify_value`] runs the same rules over a `serde_json::Value`
//! (`view::J`); [`parse`] gives the `Value`-based ops a
//! `Value` under the same document checks as [`classify`]. Rules that need
//! the request a result answers (the allow-list, capabilities) belong to the
//! server helpers and the checker.

use crate::{
    base::error::{err, Error, Result},
    base::limits::Limits,
    base::protocol::Protocol,
    read::json::{self, At, Doc, Grown},
    read::validate::{self, Ident, Node, Type, Verdict},
    read::view::{EnvelopeView, InputRequestView, Map, Obj, ParamsView, Prim, Read, J},
};
use alloc::borrow::Cow;

pub use crate::base::kind::{Kind, ResultType};

/// A JSON-RPC id: a string or an integer (`null` only on error responses).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Id<'a> {
    /// `null` (an error response to an unreadable request).
    Null,
    /// An integer id.
    Int(i64),
    /// An integer id above `i64::MAX`.
    UInt(u64),
    /// A string id.
    Str(Cow<'a, str>),
}

impl Id<'_> {
    /// The text of an id held as JSON: a string as it is, anything else as
    /// its JSON text (`1` and `"1"` print alike). How an id names its POST's
    /// stream (`post:<id>`) in a recorded conversation, and how machines
    /// quote it in messages.
    pub fn text(id: &serde_json::Value) -> alloc::string::String {
        match id {
            serde_json::Value::String(s) => s.clone(),
            other => alloc::string::ToString::to_string(other),
        }
    }

    /// This id, owning its string.
    pub fn into_owned(self) -> Id<'static> {
        match self {
            Id::Null => Id::Null,
            Id::Int(i) => Id::Int(i),
            Id::UInt(u) => Id::UInt(u),
            Id::Str(s) => Id::Str(Cow::Owned(s.into_owned())),
        }
    }
}

/// An id prints as [`Id::text`] does: a string as it is, a number as its
/// digits, `null` as `null`.
impl core::fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Id::Null => f.write_str("null"),
            Id::Int(i) => write!(f, "{i}"),
            Id::UInt(u) => write!(f, "{u}"),
            Id::Str(s) => f.write_str(s),
        }
    }
}

/// The outcome of [`classify`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classified<'a> {
    /// What the message is.
    pub kind: Kind,
    /// Its id, if it has one.
    pub id: Option<Id<'a>>,
    /// Its method, for requests and notifications.
    pub method: Option<Cow<'a, str>>,
    /// For results: the declared type (absent reads as complete).
    pub result_type: Option<ResultType>,
    /// For results: whether `resultType` was on the wire.
    pub result_type_present: bool,
}

impl Classified<'_> {
    /// This classification, owning its strings (to keep it past the message).
    pub fn into_owned(self) -> Classified<'static> {
        Classified {
            kind: self.kind,
            id: self.id.map(Id::into_owned),
            method: self.method.map(|m| Cow::Owned(m.into_owned())),
            result_type: self.result_type,
            result_type_present: self.result_type_present,
        }
    }
}

/// Classifies and validates one raw message under `protocol`.
///
/// Fails with the rule the message breaks: `jsonrpc-parse-error`,
/// `jsonrpc-invalid`, `limit-exceeded`, `result-type-unknown`,
/// `input-request-invalid`, `input-required-empty`, `request-state-invalid`,
/// `state-too-large`, `input-responses-malformed`. When a message breaks
/// several, `conformance/README.md` ("Several faults in one message") says which.
pub fn classify<'a>(bytes: &'a [u8], protocol: Protocol, limits: &Limits) -> Result<Classified<'a>> {
    let mut memory = Grown::default();
    json::read(bytes, limits, &mut memory)?;
    let doc = Doc { b: bytes, ends: json::Memory::ends(&memory) };
    let verdict = validate::classify(doc.root(), protocol, limits)?;
    // Strings without escapes borrow from the message.
    Ok(classified(verdict, |at: At<'_>, _| match at.escaped() {
        false => Cow::Borrowed(core::str::from_utf8(at.raw_in(bytes)).unwrap_or_default()),
        true => Cow::Owned(at.text()),
    }))
}

/// Parses one JSON text into a `serde_json::Value` under the document checks
/// of [`classify`]: the byte and depth bounds (`limit-exceeded`), the grammar
/// with lone surrogate escapes and numbers out of `f64` range
/// (`jsonrpc-parse-error`), and a key repeated in any object
/// (`jsonrpc-invalid`, where a `Value` would silently keep the last).
/// Bindings and tools that take JSON text call this before the `Value`-based ops.
///
/// The `Value` is built from the reader's spans rather than by `serde_json`'s
/// parser, so that one reader decides every document (`serde_json` would
/// also refuse the 128th level of nesting, which [`Limits::max_depth`] allows).
pub fn parse(bytes: &[u8], limits: &Limits) -> Result<serde_json::Value> {
    let mut memory = Grown::default();
    json::read(bytes, limits, &mut memory)?;
    Ok(value(Doc { b: bytes, ends: json::Memory::ends(&memory) }.root()))
}

/// The `Value` of a checked document's value (recursion bounded by the reader's depth check).
fn value(at: At<'_>) -> serde_json::Value {
    use serde_json::Value;
    match at.kind() {
        Type::Null => Value::Null,
        Type::Bool => Value::Bool(at.bytes().starts_with(b"t")),
        Type::Number => {
            core::str::from_utf8(at.bytes()).ok().and_then(|n| n.parse().ok()).map_or(Value::Null, Value::Number)
        }
        Type::String => Value::String(at.text()),
        Type::Array => Value::Array(at.elements().map(value).collect()),
        Type::Object => Value::Object(at.entries().map(|(k, v)| (k.text(), value(v))).collect()),
    }
}

/// Classifies a message already parsed into a `serde_json::Value`.
pub fn classify_value<'a>(
    message: &'a serde_json::Value,
    protocol: Protocol,
    limits: &Limits,
) -> Result<Classified<'a>> {
    classify_value_with(message, protocol, limits, &mut validate::FirstFault)
}

/// [`classify_value`] reading on past the faults of the message's content
/// (conversation checking: one fault, one report). They go to `faults`, in
/// the order [`classify`] meets them; `Err` is a fault of the envelope, which
/// leaves the kind of the message unknown.
pub(crate) fn classify_value_into<'a>(
    message: &'a serde_json::Value,
    protocol: Protocol,
    limits: &Limits,
    faults: &mut alloc::vec::Vec<Error>,
) -> Result<Classified<'a>> {
    classify_value_with(message, protocol, limits, faults)
}

fn classify_value_with<'a>(
    message: &'a serde_json::Value,
    protocol: Protocol,
    limits: &Limits,
    faults: &mut dyn validate::Faults,
) -> Result<Classified<'a>> {
    let verdict = validate::classify_into(J::Value(message), protocol, limits, faults)?;
    // The strings are `message`'s own, for `'a`.
    let field = |name: &str| Cow::Borrowed(message.get(name).and_then(serde_json::Value::as_str).unwrap_or_default());
    Ok(classified(verdict, |_, name| field(name)))
}

/// A verdict with its id and method copied out by `text(node, field name)`.
fn classified<'a, N>(v: Verdict<N>, text: impl Fn(N, &str) -> Cow<'a, str>) -> Classified<'a> {
    Classified {
        kind: v.kind,
        id: v.id.map(|id| match id {
            Ident::Null => Id::Null,
            Ident::Int(i) => Id::Int(i),
            Ident::UInt(u) => Id::UInt(u),
            Ident::Str(s) => Id::Str(text(s, "id")),
        }),
        method: v.method.map(|m| text(m, "method")),
        result_type: v.result_type,
        result_type_present: v.result_type_present,
    }
}

/// Reads the envelope view of a parsed message.
pub(crate) fn read(message: &serde_json::Value) -> Result<EnvelopeView<'_>> {
    match message.is_object() {
        true => Ok(EnvelopeView::read(Some(message))),
        false => Err(Error::new(crate::base::rules::RuleId::JsonrpcInvalid, "a JSON-RPC message is an object")),
    }
}

/// Maps a `serde_json` parse error to its rule: syntax is a parse error, a
/// wrong shape an invalid message, and `serde_json`'s own nesting bound (met
/// when [`Limits::max_depth`] is above 128) `limit-exceeded`.
pub(crate) fn json_error(e: serde_json::Error) -> Error {
    use serde_json::error::Category;
    let text = alloc::string::ToString::to_string(&e);
    if text.starts_with("recursion limit exceeded") {
        return err!(LimitExceeded, "message nested deeper than serde_json's bound of 128");
    }
    match e.classify() {
        Category::Data => err!(JsonrpcInvalid, "not a JSON-RPC message: {text}"),
        Category::Syntax | Category::Eof | Category::Io => err!(JsonrpcParseError, "not one JSON value: {text}"),
    }
}

/// The MRTR fields of request params (for `server::resume`).
pub(crate) fn validate_call_params(params: &ParamsView<'_>, limits: &Limits) -> Result<()> {
    validate::call_fields(params.input_responses.node(), params.request_state.node(), limits)
}

/// The content of an `input_required` answer (for `server::respond`).
pub(crate) fn validate_input_required(
    requests: &Map<'_, Obj<InputRequestView<'_>>>,
    state: &Prim<'_>,
    protocol: Protocol,
    limits: &Limits,
) -> Result<()> {
    validate::input_required(requests.node(), state.node(), protocol, limits)
}
