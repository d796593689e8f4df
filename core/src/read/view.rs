//! Borrowed, lenient views of a parsed message (`serde_json::Value`): how the
//! builders and the checker read one.
//!
//! A view reads only the fields the rules look at and never fails on a field of
//! the wrong type: it records "absent", the value, or "other", so that the
//! validators can name the precise rule (`request-state-invalid` rather than a
//! generic parse error). Strings borrow from the `Value`. The single-message
//! rules (`validate`) read the `Value` itself, through [`J`], their `Node`
//! here: the same rules the strict reader's spans go through for `classify`.

use crate::read::validate::{Node, Num, Type};
use alloc::{borrow::Cow, boxed::Box, vec::Vec};
use serde_json::Value;

/// A scalar, or the kind of a composite value (an array of scalars is kept:
/// multi-select elicitation answers are arrays of strings).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) enum Prim<'a> {
    /// The field was not there.
    #[default]
    Absent,
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(Cow<'a, str>),
    Array(Vec<Prim<'a>>),
    Object,
}

impl<'a> Prim<'a> {
    pub(crate) fn is_absent(&self) -> bool {
        matches!(self, Prim::Absent)
    }
    pub(crate) fn is_present(&self) -> bool {
        !self.is_absent()
    }
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Prim::Str(s) => Some(s),
            _ => None,
        }
    }
    /// The value as a number, if it is one.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match *self {
            Prim::Int(i) => Some(i as f64),
            Prim::UInt(u) => Some(u as f64),
            Prim::Float(f) => Some(f),
            _ => None,
        }
    }
    /// Whether the value is a JSON integer (or a float with no fraction).
    pub(crate) fn is_integer(&self) -> bool {
        match *self {
            Prim::Int(_) | Prim::UInt(_) => true,
            Prim::Float(f) => f.is_finite() && f == (f as i64) as f64,
            _ => false,
        }
    }
    /// The field as the single-message rules read it (`None`: absent).
    pub(crate) fn node(&self) -> Option<J<'_>> {
        (!self.is_absent()).then_some(J::Prim(self))
    }
    /// A non-negative integer that fits `u64`.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match *self {
            Prim::Int(i) if i >= 0 => Some(i as u64),
            Prim::UInt(u) => Some(u),
            _ => None,
        }
    }
}

/// An object read as `T`, or absent, or something else.
#[derive(Clone, Debug, Default)]
pub(crate) enum Obj<T> {
    #[default]
    Absent,
    Present(T),
    /// Present, but not an object.
    Other,
}

impl<T> Obj<T> {
    pub(crate) fn get(&self) -> Option<&T> {
        match self {
            Obj::Present(t) => Some(t),
            _ => None,
        }
    }
}

/// An array of `T`, or absent, or something else.
#[derive(Clone, Debug, Default)]
pub(crate) enum Arr<T> {
    #[default]
    Absent,
    Items(Vec<T>),
    Other,
}

impl<T> Arr<T> {
    pub(crate) fn get(&self) -> Option<&[T]> {
        match self {
            Arr::Items(v) => Some(v),
            _ => None,
        }
    }
}

/// A string-keyed object kept in insertion order (`inputRequests`,
/// `inputResponses`, schema `properties`).
#[derive(Clone, Debug, Default)]
pub(crate) enum Map<'a, T> {
    #[default]
    Absent,
    /// An object's entries, and the object.
    Entries(Vec<(Cow<'a, str>, T)>, &'a Value),
    Array(&'a Value),
    Other(&'a Value),
}

impl<'a, T> Map<'a, T> {
    pub(crate) fn entries(&self) -> Option<&[(Cow<'a, str>, T)]> {
        match self {
            Map::Entries(v, _) => Some(v),
            _ => None,
        }
    }
    pub(crate) fn is_absent(&self) -> bool {
        matches!(self, Map::Absent)
    }
    pub(crate) fn is_present(&self) -> bool {
        !self.is_absent()
    }
    pub(crate) fn get(&self, key: &str) -> Option<&T> {
        self.entries()?.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// The map as the single-message rules read it (`None`: absent).
    pub(crate) fn node(&self) -> Option<J<'a>> {
        match *self {
            Map::Absent => None,
            Map::Entries(_, v) | Map::Array(v) | Map::Other(v) => Some(J::Value(v)),
        }
    }
}

/// Reads a view from a parsed message.
pub(crate) trait Read<'a>: Sized {
    /// The view of a field (`None`: the field is absent). Never fails.
    fn read(v: Option<&'a Value>) -> Self;
}

impl<'a> Read<'a> for Prim<'a> {
    fn read(v: Option<&'a Value>) -> Self {
        match v {
            None => Prim::Absent,
            Some(Value::Null) => Prim::Null,
            Some(Value::Bool(b)) => Prim::Bool(*b),
            Some(Value::Number(n)) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => Prim::Int(i),
                (None, Some(u)) => Prim::UInt(u),
                (None, None) => Prim::Float(n.as_f64().unwrap_or_default()),
            },
            Some(Value::String(s)) => Prim::Str(Cow::Borrowed(s)),
            Some(Value::Array(items)) => Prim::Array(items.iter().map(|i| Prim::read(Some(i))).collect()),
            Some(Value::Object(_)) => Prim::Object,
        }
    }
}

impl<'a, T: Read<'a>> Read<'a> for Obj<T> {
    fn read(v: Option<&'a Value>) -> Self {
        match v {
            None => Obj::Absent,
            Some(o @ Value::Object(_)) => Obj::Present(T::read(Some(o))),
            Some(_) => Obj::Other,
        }
    }
}

impl<'a, T: Read<'a>> Read<'a> for Box<T> {
    fn read(v: Option<&'a Value>) -> Self {
        Box::new(T::read(v))
    }
}

impl<'a, T: Read<'a>> Read<'a> for Arr<T> {
    fn read(v: Option<&'a Value>) -> Self {
        match v {
            None => Arr::Absent,
            Some(Value::Array(items)) => Arr::Items(items.iter().map(|i| T::read(Some(i))).collect()),
            Some(_) => Arr::Other,
        }
    }
}

impl<'a, T: Read<'a>> Read<'a> for Map<'a, T> {
    fn read(v: Option<&'a Value>) -> Self {
        match v {
            None => Map::Absent,
            Some(m @ Value::Object(o)) => {
                Map::Entries(o.iter().map(|(k, v)| (Cow::Borrowed(k.as_str()), T::read(Some(v)))).collect(), m)
            }
            Some(a @ Value::Array(_)) => Map::Array(a),
            Some(other) => Map::Other(other),
        }
    }
}

/// Declares a view: a struct of the fields the rules read (each with its wire
/// name), and how it is read.
macro_rules! views {
    ($($(#[$doc:meta])* $name:ident { $($field:ident: $ty:ty = $wire:tt),* $(,)? })*) => {$(
        $(#[$doc])*
        #[derive(Debug, Default)]
        pub(crate) struct $name<'a> {
            $(pub $field: $ty,)*
        }

        impl<'a> Read<'a> for $name<'a> {
            fn read(v: Option<&'a Value>) -> Self {
                let object = v.and_then(Value::as_object);
                $name { $($field: Read::read(object.and_then(|o| o.get($wire))),)* }
            }
        }
    )*};
}

views! {
    /// The JSON-RPC envelope, as far as the builders and the checker read it.
    EnvelopeView {
        id: Prim<'a> = "id",
        method: Prim<'a> = "method",
        params: Obj<ParamsView<'a>> = "params",
        result: Prim<'a> = "result",
        error: Prim<'a> = "error",
    }

    /// Request params: the MRTR fields and what identifies the target.
    ParamsView {
        input_responses: Map<'a, Obj<ResponseView<'a>>> = "inputResponses",
        request_state: Prim<'a> = "requestState",
        meta: Obj<MetaView<'a>> = "_meta",
        task_id: Prim<'a> = "taskId",
    }

    /// The `_meta` keys MRTR reads.
    MetaView {
        protocol_version: Prim<'a> = "io.modelcontextprotocol/protocolVersion",
        client_capabilities: Obj<CapabilitiesView<'a>> = "io.modelcontextprotocol/clientCapabilities",
        related_task: Obj<TaskView<'a>> = "io.modelcontextprotocol/related-task",
    }

    /// Client capabilities, as far as input requests need them.
    CapabilitiesView {
        elicitation: Obj<ElicitationCapabilityView<'a>> = "elicitation",
        sampling: Prim<'a> = "sampling",
        sampling_detail: Obj<SamplingCapabilityView<'a>> = "sampling",
        roots: Prim<'a> = "roots",
    }

    /// `capabilities.sampling`.
    SamplingCapabilityView {
        tools: Prim<'a> = "tools",
    }

    /// `capabilities.elicitation`.
    ElicitationCapabilityView {
        form: Prim<'a> = "form",
        url: Prim<'a> = "url",
    }

    /// A task, or a related-task reference.
    TaskView {
        task_id: Prim<'a> = "taskId",
    }

    /// One value of `inputRequests`, as far as its answer is checked against it.
    InputRequestView {
        method: Prim<'a> = "method",
        params: Obj<InputParamsView<'a>> = "params",
    }

    /// The params of an input request that decide what fits as its answer.
    InputParamsView {
        mode: Prim<'a> = "mode",
        requested_schema: Obj<SchemaView<'a>> = "requestedSchema",
        tools: Prim<'a> = "tools",
        tool_choice: Prim<'a> = "toolChoice",
    }

    /// The restricted `requestedSchema` of form-mode elicitation.
    SchemaView {
        properties: Map<'a, Obj<PropertyView<'a>>> = "properties",
        required: Prim<'a> = "required",
    }

    /// One property of `requestedSchema`: a primitive schema.
    PropertyView {
        kind: Prim<'a> = "type",
        format: Prim<'a> = "format",
        min_length: Prim<'a> = "minLength",
        max_length: Prim<'a> = "maxLength",
        minimum: Prim<'a> = "minimum",
        maximum: Prim<'a> = "maximum",
        enumeration: Prim<'a> = "enum",
        one_of: Arr<Obj<ConstView<'a>>> = "oneOf",
        items: Obj<Box<ItemsView<'a>>> = "items",
        min_items: Prim<'a> = "minItems",
        max_items: Prim<'a> = "maxItems",
    }

    /// `items` of a multi-select enum.
    ItemsView {
        enumeration: Prim<'a> = "enum",
        any_of: Arr<Obj<ConstView<'a>>> = "anyOf",
    }

    /// `{ "const": …, "title": … }` of a titled enum.
    ConstView {
        value: Prim<'a> = "const",
    }

    /// One value of `inputResponses`: the union of the three result kinds.
    ResponseView {
        action: Prim<'a> = "action",
        content: Content<'a> = "content",
        role: Prim<'a> = "role",
        model: Prim<'a> = "model",
        roots: Arr<Obj<RootView<'a>>> = "roots",
    }

    /// A root of `ListRootsResult`.
    RootView {
        uri: Prim<'a> = "uri",
    }
}

/// `content` of an input response: form answers (an object of primitives) or
/// sampling content (an object or an array).
pub(crate) type Content<'a> = Map<'a, Prim<'a>>;

// ---------------------------------------------------------------------------
// A parsed message as the single-message rules read it.

/// A value of a parsed message as a `Node`: the `Value` path's reader of the
/// rules in `validate` (the bytes path's is the strict reader's spans).
#[derive(Clone, Copy, Debug)]
pub(crate) enum J<'v> {
    /// A value of the message.
    Value(&'v Value),
    /// An object's key.
    Key(&'v str),
    /// A scalar a view has already read (a `requestState` handed over as a view).
    Prim(&'v Prim<'v>),
}

impl<'v> J<'v> {
    fn str(self) -> Option<&'v str> {
        match self {
            J::Value(Value::String(s)) => Some(s),
            J::Key(k) => Some(k),
            J::Prim(Prim::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// A scalar as a view reads it (`None` for containers and keys).
    fn scalar(self) -> Option<Prim<'v>> {
        match self {
            J::Value(v) if !(v.is_array() || v.is_object()) => Some(Prim::read(Some(v))),
            J::Prim(p) if !matches!(p, Prim::Array(_)) => Some(p.clone()),
            _ => None,
        }
    }
}

impl Node for J<'_> {
    fn kind(self) -> Type {
        match self {
            J::Key(_) => Type::String,
            J::Value(Value::Array(_)) | J::Prim(Prim::Array(_)) => Type::Array,
            J::Value(Value::Object(_)) | J::Prim(Prim::Object) => Type::Object,
            _ => match self.scalar() {
                Some(Prim::Str(_)) => Type::String,
                Some(Prim::Bool(_)) => Type::Bool,
                Some(Prim::Int(_) | Prim::UInt(_) | Prim::Float(_)) => Type::Number,
                _ => Type::Null,
            },
        }
    }

    fn fields<const K: usize>(self, names: [&str; K]) -> [Option<Self>; K] {
        match self {
            J::Value(Value::Object(o)) => names.map(|n| o.get(n).map(J::Value)),
            _ => [None; K],
        }
    }

    fn entries(self) -> impl Iterator<Item = (Self, Self)> {
        let object = match self {
            J::Value(Value::Object(o)) => Some(o),
            _ => None,
        };
        object.into_iter().flatten().map(|(k, v)| (J::Key(k), J::Value(v)))
    }

    /// The elements of an array of the message (a view's `Prim` is never one here).
    fn elements(self) -> impl Iterator<Item = Self> {
        let items = match self {
            J::Value(Value::Array(items)) => Some(items),
            _ => None,
        };
        items.into_iter().flatten().map(J::Value)
    }

    fn is(self, lit: &str) -> bool {
        self.str() == Some(lit)
    }

    fn same(self, other: Self) -> bool {
        self.str().is_some() && self.str() == other.str()
    }

    fn str_len(self) -> usize {
        self.str().map_or(0, str::len)
    }

    fn number(self) -> Option<Num> {
        match self.scalar()? {
            Prim::Int(i) => Some(Num::Int(i)),
            Prim::UInt(u) => Some(Num::UInt(u)),
            Prim::Float(_) => Some(Num::Float),
            _ => None,
        }
    }

    fn is_integer(self) -> bool {
        self.scalar().is_some_and(|p| p.is_integer())
    }

    fn text(self) -> alloc::string::String {
        self.str().unwrap_or_default().into()
    }

    fn label(self) -> Option<alloc::string::String> {
        Some(self.text())
    }
}
