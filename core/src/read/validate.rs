//! The rules one message alone can show, written once: what `classify`
//! checks (the envelope, `resultType` per protocol, `input_required` content,
//! input requests down to the form schema, `requestState`, the shape of
//! `inputResponses`, the map bounds of [`Limits`]), and what the server
//! helpers check of the same fields.
//!
//! They read a message through [`Node`], a small read trait with two
//! implementations: the strict span reader (`json::At`, the bytes of
//! `classify` with or without an allocator) and a parsed `serde_json::Value`
//! (`view::J`, as the builders, the server helpers and the checker hold a
//! message). So both paths give the same rule id for the same message by
//! construction; the fuzz target `bare_differential` holds the readers equal.
//!
//! Precedence (`conformance/README.md`, "Several faults in one message"):
//! the reader refuses a malformed document first; then these checks run in
//! the order written here, fields in the order each function names them, map
//! entries in document order, and the first failure is the message's rule.
//!
//! Conversation checking reads on past a fault of a message's content (its
//! MRTR fields, `resultType`, the `input_required` content): a [`Faults`]
//! sink decides whether the first fault ends the reading ([`FirstFault`], for
//! `classify`) or each is kept and the kind of the message still comes out
//! (a `Vec<Error>`, for the checker), so that an `input_required` result with
//! one bad input request still opens its round. A fault of the envelope
//! (which says what kind of message it is) always ends the reading.

use crate::{
    base::error::{Error, Result},
    base::kind::{Kind, ResultType},
    base::limits::Limits,
    base::protocol::{ElicitationIdRule, Protocol, ResultTypeRule},
    base::rules::RuleId,
};

/// What kind of JSON value a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Type {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

/// A number as `serde_json` hands it over: an integer that fits, or a float.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Num {
    Int(i64),
    UInt(u64),
    Float,
}

/// Read access to one JSON value, as the rules need it.
pub(crate) trait Node: Copy {
    /// What kind of value this is.
    fn kind(self) -> Type;
    /// The values of `names` in this object (each `None` when absent, or
    /// when this is not an object), in one pass over its entries.
    fn fields<const K: usize>(self, names: [&str; K]) -> [Option<Self>; K];
    /// The (key, value) entries of an object, in document order.
    fn entries(self) -> impl Iterator<Item = (Self, Self)>;
    /// The elements of an array.
    fn elements(self) -> impl Iterator<Item = Self>;
    /// Whether this is a string equal to `lit`.
    fn is(self, lit: &str) -> bool;
    /// Whether two strings are equal.
    fn same(self, other: Self) -> bool;
    /// A string's length in bytes (unescaped).
    fn str_len(self) -> usize;
    /// This value as a number, if it is one.
    fn number(self) -> Option<Num>;
    /// A JSON integer, or a float with no fraction within `[-2^63, 2^63]`.
    fn is_integer(self) -> bool;
    /// A string's text.
    #[cfg(feature = "alloc")]
    fn text(self) -> alloc::string::String;
    /// A key's text to name in an error message. Spans name none: the bytes
    /// path allocates nothing, even in a build with `alloc` (`mrtr::bare`).
    #[cfg(feature = "alloc")]
    fn label(self) -> Option<alloc::string::String> {
        None
    }

    fn is_object(self) -> bool {
        self.kind() == Type::Object
    }
    fn is_array(self) -> bool {
        self.kind() == Type::Array
    }
    fn is_string(self) -> bool {
        self.kind() == Type::String
    }
    fn is_one_of(self, lits: &[&str]) -> bool {
        lits.iter().any(|l| self.is(l))
    }
    /// A non-negative integer that fits `u64`.
    fn is_u64(self) -> bool {
        matches!(self.number(), Some(Num::Int(0..) | Num::UInt(_)))
    }
}

/// Where the faults of a message's content go. The validators take it as a
/// trait object, so that each reader's validators are compiled once whatever
/// the sink (the wasm build's size), at the cost of a dynamic call per fault.
pub(crate) trait Faults {
    /// Takes a fault: `Err` ends the reading, `Ok` reads on.
    fn take(&mut self, fault: Error) -> Result<()>;

    /// Takes the fault of a check, if it failed.
    fn check(&mut self, checked: Result<()>) -> Result<()> {
        checked.or_else(|fault| self.take(fault))
    }
}

/// The first fault is the message's rule (`classify`: one message, one verdict).
pub(crate) struct FirstFault;

impl Faults for FirstFault {
    fn take(&mut self, fault: Error) -> Result<()> {
        Err(fault)
    }
}

/// Every fault is kept, in the order found (conversation checking).
#[cfg(feature = "alloc")]
impl Faults for alloc::vec::Vec<Error> {
    fn take(&mut self, fault: Error) -> Result<()> {
        self.push(fault);
        Ok(())
    }
}

/// An id as the rules found it; the front ends copy strings out.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ident<N> {
    Null,
    Int(i64),
    UInt(u64),
    Str(N),
}

/// The outcome of [`classify`], before a front end copies out the strings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Verdict<N> {
    pub kind: Kind,
    pub id: Option<Ident<N>>,
    pub method: Option<N>,
    pub result_type: Option<ResultType>,
    pub result_type_present: bool,
}

/// `input-request-invalid` for the input request under `key`.
fn invalid<N: Node>(key: Option<N>, why: &'static str) -> Error {
    #[cfg(feature = "alloc")]
    if let Some(key) = key.and_then(N::label) {
        return Error::with(RuleId::InputRequestInvalid, alloc::format!("inputRequests[{key:?}]: {why}"));
    }
    let _ = key;
    fail(RuleId::InputRequestInvalid, why)
}

fn fail(rule: RuleId, message: &'static str) -> Error {
    Error::new(rule, message)
}

const ENVELOPE: [&str; 9] =
    ["jsonrpc", "id", "method", "params", "result", "error", "input_requests", "request_state", "input_responses"];

/// Classifies and validates one message (a parsed top-level value).
pub(crate) fn classify<N: Node>(env: N, protocol: Protocol, limits: &Limits) -> Result<Verdict<N>> {
    classify_into(env, protocol, limits, &mut FirstFault)
}

/// [`classify`], the faults of the message's content going to `faults`;
/// `Err` is a fault of the envelope, or the one that ended the reading.
pub(crate) fn classify_into<N: Node>(
    env: N,
    protocol: Protocol,
    limits: &Limits,
    faults: &mut dyn Faults,
) -> Result<Verdict<N>> {
    if !env.is_object() {
        return Err(fail(RuleId::JsonrpcInvalid, "a JSON-RPC message is one object, not a batch"));
    }
    let [jsonrpc, id, method, params, result, error, input_requests, request_state, input_responses] =
        env.fields(ENVELOPE);
    if !jsonrpc.is_some_and(|j| j.is("2.0")) {
        return Err(fail(RuleId::JsonrpcInvalid, "\"jsonrpc\" must be \"2.0\""));
    }
    let draft_fields = input_requests.is_some() || request_state.is_some();
    let draft = protocol.rules().draft_envelope;
    let verdict =
        |kind, id, result_type, present| Verdict { kind, id, method: None, result_type, result_type_present: present };
    match (method, result, error) {
        (Some(method), None, None) => {
            if !method.is_string() {
                return Err(fail(RuleId::JsonrpcInvalid, "\"method\" must be a string"));
            }
            let id = id.map(request_id).transpose()?;
            match params {
                Some(params) if params.is_object() => {
                    let [responses, request_state] = params.fields(["inputResponses", "requestState"]);
                    call_fields_into(responses, request_state, limits, faults)?;
                }
                Some(_) => return Err(fail(RuleId::JsonrpcInvalid, "\"params\" must be an object")),
                None => {}
            }
            if draft {
                if let Some(responses) = input_responses {
                    faults.check(responses_shape(Some(responses), true, limits))?;
                }
                faults.check(state(request_state, limits))?;
            }
            let kind = if id.is_some() { Kind::Request } else { Kind::Notification };
            Ok(Verdict { method: Some(method), ..verdict(kind, id, None, false) })
        }
        (Some(_), _, _) => Err(fail(RuleId::JsonrpcInvalid, "a request carries no result or error")),
        (None, Some(_), Some(_)) => Err(fail(RuleId::JsonrpcInvalid, "a response carries result or error, not both")),
        (None, Some(_), None) | (None, None, Some(_)) if draft && draft_fields => {
            Err(fail(RuleId::JsonrpcInvalid, "a draft incomplete response carries no result or error"))
        }
        (None, None, Some(error)) => {
            if !error.is_object() {
                return Err(fail(RuleId::JsonrpcInvalid, "\"error\" must be an object"));
            }
            let [code, message] = error.fields(["code", "message"]);
            if !code.is_some_and(Node::is_integer) || !message.is_some_and(Node::is_string) {
                return Err(fail(RuleId::JsonrpcInvalid, "\"error\" needs an integer code and a string message"));
            }
            let id = match id {
                Some(null) if null.kind() == Type::Null => Some(Ident::Null),
                id => id.map(request_id).transpose()?,
            };
            Ok(verdict(Kind::Error, id, None, false))
        }
        (None, Some(result), None) => {
            if !result.is_object() {
                return Err(fail(RuleId::JsonrpcInvalid, "\"result\" must be an object"));
            }
            let [result_type, requests, request_state] = result.fields(["resultType", "inputRequests", "requestState"]);
            let t = validate_result(result_type, requests, request_state, (protocol, limits), faults)?;
            let kind = if t == ResultType::InputRequired { Kind::InputRequired } else { Kind::Result };
            let present = result_type.is_some() && protocol.rules().result_type != ResultTypeRule::Ignored;
            Ok(verdict(kind, Some(request_id_of(id)?), Some(t), present))
        }
        (None, None, None) if draft && draft_fields => {
            input_required_into(input_requests, request_state, protocol, limits, faults)?;
            Ok(verdict(Kind::InputRequired, Some(request_id_of(id)?), Some(ResultType::InputRequired), false))
        }
        (None, None, None) => Err(fail(RuleId::JsonrpcInvalid, "neither a request nor a response")),
    }
}

fn request_id_of<N: Node>(id: Option<N>) -> Result<Ident<N>> {
    id.map_or(Err(fail(RuleId::JsonrpcInvalid, "\"id\" must be a string or an integer")), request_id)
}

pub(crate) fn request_id<N: Node>(id: N) -> Result<Ident<N>> {
    match (id.kind(), id.number()) {
        (Type::String, _) => Ok(Ident::Str(id)),
        (_, Some(Num::Int(i))) => Ok(Ident::Int(i)),
        (_, Some(Num::UInt(u))) => Ok(Ident::UInt(u)),
        _ => Err(fail(RuleId::JsonrpcInvalid, "\"id\" must be a string or an integer")),
    }
}

/// The MRTR fields of request params: `inputResponses` and `requestState`.
#[cfg(feature = "alloc")]
pub(crate) fn call_fields<N: Node>(responses: Option<N>, request_state: Option<N>, limits: &Limits) -> Result<()> {
    call_fields_into(responses, request_state, limits, &mut FirstFault)
}

fn call_fields_into<N: Node>(
    responses: Option<N>,
    request_state: Option<N>,
    limits: &Limits,
    faults: &mut dyn Faults,
) -> Result<()> {
    if responses.is_some() {
        faults.check(responses_shape(responses, false, limits))?;
    }
    faults.check(state(request_state, limits))
}

/// `requestState`: absent, or a string within the bound.
pub(crate) fn state<N: Node>(state: Option<N>, limits: &Limits) -> Result<()> {
    match state {
        None => Ok(()),
        Some(s) if !s.is_string() => Err(fail(RuleId::RequestStateInvalid, "requestState must be a string")),
        Some(s) if s.str_len() > limits.max_request_state_bytes => {
            Err(fail(RuleId::StateTooLarge, "requestState over Limits::max_request_state_bytes"))
        }
        Some(_) => Ok(()),
    }
}

/// `inputResponses`, or the draft's `input_responses` (`wrapped`: each value
/// `{"result": {…}}`): an object of objects within the bound.
pub(crate) fn responses_shape<N: Node>(responses: Option<N>, wrapped: bool, limits: &Limits) -> Result<()> {
    let Some(map) = responses.filter(|r| r.is_object()) else {
        return Err(fail(RuleId::InputResponsesMalformed, "inputResponses must be an object"));
    };
    if map.entries().count() > limits.max_input_requests {
        return Err(fail(RuleId::LimitExceeded, "inputResponses over Limits::max_input_requests"));
    }
    let fits = |v: N| match wrapped {
        false => v.is_object(),
        true => v.fields(["result"])[0].is_some_and(Node::is_object),
    };
    match map.entries().all(|(_, v)| fits(v)) {
        true => Ok(()),
        false => Err(fail(RuleId::InputResponsesMalformed, "each input response must be an object")),
    }
}

/// The declared `resultType` of a result and, for `input_required`, its
/// content. An unknown `resultType` reads on as a final result.
fn validate_result<N: Node>(
    result_type: Option<N>,
    requests: Option<N>,
    request_state: Option<N>,
    (protocol, limits): (Protocol, &Limits),
    faults: &mut dyn Faults,
) -> Result<ResultType> {
    let rules = protocol.rules();
    match result_type {
        _ if rules.result_type == ResultTypeRule::Ignored => Ok(ResultType::Complete),
        None => Ok(ResultType::Complete),
        Some(t) if t.is("complete") => Ok(ResultType::Complete),
        Some(t) if t.is("task") && rules.task_result_type => Ok(ResultType::Task),
        Some(t) if t.is("input_required") => {
            input_required_into(requests, request_state, protocol, limits, faults)?;
            Ok(ResultType::InputRequired)
        }
        Some(_) => {
            faults.take(fail(RuleId::ResultTypeUnknown, "resultType is not a string this protocol knows"))?;
            Ok(ResultType::Complete)
        }
    }
}

/// The content of an `input_required` answer.
#[cfg(feature = "alloc")]
pub(crate) fn input_required<N: Node>(
    requests: Option<N>,
    request_state: Option<N>,
    protocol: Protocol,
    limits: &Limits,
) -> Result<()> {
    input_required_into(requests, request_state, protocol, limits, &mut FirstFault)
}

fn input_required_into<N: Node>(
    requests: Option<N>,
    request_state: Option<N>,
    protocol: Protocol,
    limits: &Limits,
    faults: &mut dyn Faults,
) -> Result<()> {
    if requests.is_some() {
        input_requests_into(requests, protocol, limits, faults)?;
    }
    faults.check(state(request_state, limits))?;
    if protocol.rules().input_required_needs_content && requests.is_none() && request_state.is_none() {
        faults.take(fail(RuleId::InputRequiredEmpty, "input_required needs inputRequests or requestState"))?;
    }
    Ok(())
}

/// An `inputRequests` map: an object within the bound, each value a valid
/// input request for `protocol`.
#[cfg(feature = "alloc")]
pub(crate) fn input_requests<N: Node>(requests: Option<N>, protocol: Protocol, limits: &Limits) -> Result<()> {
    input_requests_into(requests, protocol, limits, &mut FirstFault)
}

/// [`input_requests`], each bad input request a fault of its own.
fn input_requests_into<N: Node>(
    requests: Option<N>,
    protocol: Protocol,
    limits: &Limits,
    faults: &mut dyn Faults,
) -> Result<()> {
    let Some(map) = requests.filter(|r| r.is_object()) else {
        return faults.take(invalid::<N>(None, "inputRequests must be an object"));
    };
    if map.entries().count() > limits.max_input_requests {
        return faults.take(fail(RuleId::LimitExceeded, "inputRequests over Limits::max_input_requests"));
    }
    map.entries().try_for_each(|(key, request)| faults.check(input_request(key, request, protocol)))
}

pub(crate) fn input_request<N: Node>(key: N, request: N, protocol: Protocol) -> Result<()> {
    let key = Some(key);
    if !request.is_object() {
        return Err(invalid(key, "an input request must be an object"));
    }
    let [method, params, jsonrpc, id] = request.fields(["method", "params", "jsonrpc", "id"]);
    if jsonrpc.is_some() || id.is_some() {
        return Err(invalid(key, "an input request carries no jsonrpc or id"));
    }
    let Some(method) = method.filter(|m| m.is_string()) else {
        return Err(invalid(key, "an input request's method must be a string"));
    };
    let params = match params {
        Some(p) if p.is_object() => p,
        None if method.is("roots/list") => return Ok(()),
        _ => return Err(invalid(key, "an input request's params must be an object")),
    };
    let checked = if method.is("elicitation/create") {
        elicitation(key, params, protocol)
    } else if method.is("sampling/createMessage") {
        sampling(key, params)
    } else if method.is("roots/list") {
        Ok(())
    } else {
        Err(invalid(key, "not an input request method"))
    };
    naming_method(method, checked)
}

/// Names the input request's method in its fault, where the reader can
/// (a parsed value, with `alloc`): the first thing a reader of the report
/// needs to find the ask at fault.
fn naming_method<N: Node>(method: N, checked: Result<()>) -> Result<()> {
    #[cfg(feature = "alloc")]
    if let (Err(e), Some(name)) = (&checked, method.label()) {
        return Err(Error::with(e.rule(), alloc::format!("{} (method {name:?})", e.message())));
    }
    let _ = method;
    checked
}

fn elicitation<N: Node>(key: Option<N>, params: N, protocol: Protocol) -> Result<()> {
    let [message, mode, schema, url, elicitation_id] =
        params.fields(["message", "mode", "requestedSchema", "url", "elicitationId"]);
    if !message.is_some_and(Node::is_string) {
        return Err(invalid(key, "elicitation needs a string message"));
    }
    match mode {
        None => form(key, schema),
        Some(m) if m.is("form") => form(key, schema),
        Some(m) if m.is("url") => {
            if !url.is_some_and(Node::is_string) {
                return Err(invalid(key, "url elicitation needs a string url"));
            }
            match (protocol.rules().elicitation_id, elicitation_id) {
                (ElicitationIdRule::Forbidden, None) => Ok(()),
                (ElicitationIdRule::Forbidden, _) => {
                    Err(invalid(key, "url elicitation has no elicitationId in this protocol"))
                }
                (ElicitationIdRule::Required, Some(id)) if id.is_string() => Ok(()),
                (ElicitationIdRule::Required, _) => {
                    Err(invalid(key, "url elicitation needs a string elicitationId in this protocol"))
                }
            }
        }
        Some(_) => Err(invalid(key, "elicitation mode must be \"form\" or \"url\"")),
    }
}

fn sampling<N: Node>(key: Option<N>, params: N) -> Result<()> {
    let [messages, max_tokens] = params.fields(["messages", "maxTokens"]);
    let Some(messages) = messages.filter(|m| m.is_array()) else {
        return Err(invalid(key, "sampling needs a messages array"));
    };
    let message_ok = |m: N| {
        let [role, content] = m.fields(["role", "content"]);
        m.is_object()
            && role.is_some_and(|r| r.is_one_of(&["user", "assistant"]))
            && content.is_some_and(|c| matches!(c.kind(), Type::Object | Type::Array))
    };
    if !messages.elements().all(message_ok) {
        return Err(invalid(key, "each sampling message needs a role and content"));
    }
    if !max_tokens.is_some_and(Node::is_integer) {
        return Err(invalid(key, "sampling needs an integer maxTokens"));
    }
    Ok(())
}

/// The restricted `requestedSchema` of form-mode elicitation: a flat object of
/// primitive properties (string, number, integer, boolean and the enum
/// forms); nested objects and arrays of objects are not MCP's subset.
fn form<N: Node>(key: Option<N>, schema: Option<N>) -> Result<()> {
    let Some(schema) = schema.filter(|s| s.is_object()) else {
        return Err(invalid(key, "form elicitation needs a requestedSchema object"));
    };
    let [kind, dollar_schema, properties, required] = schema.fields(["type", "$schema", "properties", "required"]);
    if !kind.is_some_and(|k| k.is("object")) {
        return Err(invalid(key, "requestedSchema.type must be \"object\""));
    }
    if dollar_schema.is_some_and(|s| !s.is_string()) {
        return Err(invalid(key, "requestedSchema.$schema must be a string"));
    }
    let Some(properties) = properties.filter(|p| p.is_object()) else {
        return Err(invalid(key, "requestedSchema.properties must be an object"));
    };
    for (_, property) in properties.entries() {
        if !property.is_object() {
            return Err(invalid(key, "a requestedSchema property must be an object"));
        }
        property_fits(property).map_err(|why| invalid(key, why))?;
    }
    let Some(required) = required else { return Ok(()) };
    if !required.is_array() {
        return Err(invalid(key, "requestedSchema.required must be an array"));
    }
    for name in required.elements() {
        if !name.is_string() {
            return Err(invalid(key, "requestedSchema.required must list strings"));
        }
        if !properties.entries().any(|(p, _)| p.same(name)) {
            return Err(invalid(key, "requestedSchema.required names an unknown property"));
        }
    }
    Ok(())
}

const STRING_FORMATS: [&str; 4] = ["date", "date-time", "email", "uri"];

/// One property of `requestedSchema`: a primitive schema, or why not.
fn property_fits<N: Node>(p: N) -> core::result::Result<(), &'static str> {
    let [nested, kind, min_length, max_length, format, enumeration, enum_names, one_of, minimum, maximum, items, min_items, max_items] =
        p.fields([
            "properties",
            "type",
            "minLength",
            "maxLength",
            "format",
            "enum",
            "enumNames",
            "oneOf",
            "minimum",
            "maximum",
            "items",
            "minItems",
            "maxItems",
        ]);
    let optional = |v: Option<N>, ok: &dyn Fn(N) -> bool, why| v.is_none_or(ok).then_some(()).ok_or(why);
    let number = |v: N| v.number().is_some();
    if nested.is_some() {
        return Err("nests an object, which the restricted schema does not allow");
    }
    let Some(kind) = kind.filter(|k| k.is_string()) else { return Err("lacks a string type") };
    if kind.is("string") {
        optional(min_length, &N::is_u64, "has a minLength that is not a non-negative integer")?;
        optional(max_length, &N::is_u64, "has a maxLength that is not a non-negative integer")?;
        optional(format, &|f| f.is_one_of(&STRING_FORMATS), "has an unknown format")?;
        optional(enumeration, &string_array, "has an enum that is not an array of strings")?;
        optional(enum_names, &string_array, "has enumNames that are not an array of strings")?;
        optional(one_of, &titled_consts, "has a oneOf that is not a list of {const, title} strings")
    } else if kind.is_one_of(&["number", "integer"]) {
        optional(minimum, &number, "has a non-numeric minimum")?;
        optional(maximum, &number, "has a non-numeric maximum")
    } else if kind.is("boolean") {
        Ok(())
    } else if kind.is("array") {
        let Some(items) = items.filter(|i| i.is_object()) else {
            return Err("is an array without an items object");
        };
        optional(min_items, &N::is_u64, "has a minItems that is not a non-negative integer")?;
        optional(max_items, &N::is_u64, "has a maxItems that is not a non-negative integer")?;
        let [kind, enumeration, any_of] = items.fields(["type", "enum", "anyOf"]);
        let untitled = kind.is_some_and(|k| k.is("string")) && enumeration.is_some_and(string_array);
        match untitled || any_of.is_some_and(titled_consts) {
            true => Ok(()),
            false => Err("is an array whose items are neither a string enum nor anyOf {const, title}"),
        }
    } else {
        Err("has a type outside string, number, integer, boolean and array")
    }
}

fn string_array<N: Node>(v: N) -> bool {
    v.is_array() && v.elements().all(Node::is_string)
}

/// An array of `{const, title}` strings.
fn titled_consts<N: Node>(v: N) -> bool {
    v.is_array()
        && v.elements().all(|o| {
            let [value, title] = o.fields(["const", "title"]);
            o.is_object() && value.is_some_and(Node::is_string) && title.is_some_and(Node::is_string)
        })
}
