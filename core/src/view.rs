//! Borrowed, lenient views of MRTR messages: the hot path's parse.
//!
//! A view reads only the fields the rules look at and never fails on a field of
//! the wrong type: it records "absent", the value, or "other", so that the
//! validators can name the precise rule (`request-state-invalid` rather than a
//! generic parse error). Strings borrow from the input where they have no
//! escapes; nothing here builds a `serde_json::Value`. The same views
//! deserialize from bytes (classify) and from a `&serde_json::Value` (the
//! builders and the checker), so each rule is written once.

use alloc::{borrow::Cow, boxed::Box, vec::Vec};
use core::{fmt, marker::PhantomData};
use serde::{
    de::{self, value::MapAccessDeserializer, IgnoredAny, MapAccess, SeqAccess, Visitor},
    Deserialize, Deserializer,
};

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
    /// A non-negative integer that fits `u64`.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match *self {
            Prim::Int(i) if i >= 0 => Some(i as u64),
            Prim::UInt(u) => Some(u),
            _ => None,
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Prim<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(PrimVisitor(PhantomData))
    }
}

struct PrimVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for PrimVisitor<'a> {
    type Value = Prim<'a>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Prim<'a>, E> {
        Ok(Prim::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Prim<'a>, E> {
        Ok(Prim::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Prim<'a>, E> {
        Ok(i64::try_from(v).map_or(Prim::UInt(v), Prim::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Prim<'a>, E> {
        Ok(Prim::Float(v))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Prim<'a>, E> {
        Ok(Prim::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Prim<'a>, E> {
        Ok(Prim::Str(Cow::Owned(v.into())))
    }
    fn visit_string<E>(self, v: alloc::string::String) -> Result<Prim<'a>, E> {
        Ok(Prim::Str(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<Prim<'a>, E> {
        Ok(Prim::Null)
    }
    fn visit_none<E>(self) -> Result<Prim<'a>, E> {
        Ok(Prim::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Prim<'a>, D::Error> {
        d.deserialize_any(PrimVisitor(PhantomData))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Prim<'a>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Prim<'a>>()? {
            items.push(item);
        }
        Ok(Prim::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Prim<'a>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Prim::Object)
    }
}

/// Implements the visitor methods of every non-object, non-array JSON value as
/// "other", so a container view never fails on a scalar.
macro_rules! scalars_are_other {
    ($other:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
    };
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
    pub(crate) fn is_absent(&self) -> bool {
        matches!(self, Obj::Absent)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjVisitor(PhantomData))
    }
}

struct ObjVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjVisitor<T> {
    type Value = Obj<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    scalars_are_other!(Obj::Other);
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Obj<T>, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Obj<T>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Obj::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Obj::Present)
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

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Arr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ArrVisitor(PhantomData))
    }
}

struct ArrVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ArrVisitor<T> {
    type Value = Arr<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    scalars_are_other!(Arr::Other);
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Arr<T>, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Arr<T>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<T>()? {
            items.push(item);
        }
        Ok(Arr::Items(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Arr<T>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Arr::Other)
    }
}

/// A string-keyed object kept in insertion order (`inputRequests`,
/// `inputResponses`, schema `properties`), duplicates included so that the
/// validators can refuse them.
#[derive(Clone, Debug, Default)]
pub(crate) enum Map<'a, T> {
    #[default]
    Absent,
    Entries(Vec<(Cow<'a, str>, T)>),
    Array,
    Other,
}

impl<'a, T> Map<'a, T> {
    pub(crate) fn entries(&self) -> Option<&[(Cow<'a, str>, T)]> {
        match self {
            Map::Entries(v) => Some(v),
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
    /// The first key that appears twice.
    pub(crate) fn duplicate_key(&self) -> Option<&str> {
        let entries = self.entries()?;
        if entries.len() < 2 {
            return None;
        }
        let mut keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_ref()).collect();
        keys.sort_unstable();
        keys.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
    }
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for Map<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(MapVisitor(PhantomData))
    }
}

struct MapVisitor<'a, T>(PhantomData<(&'a (), T)>);

impl<'de: 'a, 'a, T: Deserialize<'de>> Visitor<'de> for MapVisitor<'a, T> {
    type Value = Map<'a, T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    scalars_are_other!(Map::Other);
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Map::Array)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(map.size_hint().unwrap_or(4).min(64));
        while let Some(key) = map.next_key::<Prim<'a>>()? {
            let Prim::Str(key) = key else {
                return Err(de::Error::custom("object key is not a string"));
            };
            items.push((key, map.next_value::<T>()?));
        }
        Ok(Map::Entries(items))
    }
}

/// The JSON-RPC envelope, with the draft dialect's snake_case fields.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct EnvelopeView<'a> {
    #[serde(default, borrow)]
    pub jsonrpc: Prim<'a>,
    #[serde(default, borrow)]
    pub id: Prim<'a>,
    #[serde(default, borrow)]
    pub method: Prim<'a>,
    #[serde(default, borrow)]
    pub params: Obj<ParamsView<'a>>,
    #[serde(default, borrow)]
    pub result: Obj<ResultView<'a>>,
    #[serde(default, borrow)]
    pub error: Obj<ErrorView<'a>>,
    #[serde(default, borrow)]
    pub input_requests: Map<'a, Obj<InputRequestView<'a>>>,
    #[serde(default, borrow)]
    pub request_state: Prim<'a>,
    #[serde(default, borrow)]
    pub input_responses: Map<'a, Obj<WrappedResponseView<'a>>>,
}

/// Request params: the MRTR fields and what identifies the target.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ParamsView<'a> {
    #[serde(default, borrow, rename = "inputResponses")]
    pub input_responses: Map<'a, Obj<ResponseView<'a>>>,
    #[serde(default, borrow, rename = "requestState")]
    pub request_state: Prim<'a>,
    #[serde(default, borrow, rename = "_meta")]
    pub meta: Obj<MetaView<'a>>,
    #[serde(default, borrow, rename = "taskId")]
    pub task_id: Prim<'a>,
}

/// The `_meta` keys MRTR reads.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct MetaView<'a> {
    #[serde(default, borrow, rename = "io.modelcontextprotocol/protocolVersion")]
    pub protocol_version: Prim<'a>,
    #[serde(default, borrow, rename = "io.modelcontextprotocol/clientCapabilities")]
    pub client_capabilities: Obj<CapabilitiesView<'a>>,
    #[serde(default, borrow, rename = "io.modelcontextprotocol/related-task")]
    pub related_task: Obj<TaskView<'a>>,
}

/// Client capabilities, as far as input requests need them.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct CapabilitiesView<'a> {
    #[serde(default, borrow)]
    pub elicitation: Obj<ElicitationCapabilityView<'a>>,
    #[serde(default, borrow)]
    pub sampling: Prim<'a>,
    #[serde(default, borrow)]
    pub roots: Prim<'a>,
}

/// `capabilities.elicitation`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ElicitationCapabilityView<'a> {
    #[serde(default, borrow)]
    pub form: Prim<'a>,
    #[serde(default, borrow)]
    pub url: Prim<'a>,
}

/// A result: `resultType`, the MRTR fields, and task fields.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ResultView<'a> {
    #[serde(default, borrow, rename = "resultType")]
    pub result_type: Prim<'a>,
    #[serde(default, borrow, rename = "inputRequests")]
    pub input_requests: Map<'a, Obj<InputRequestView<'a>>>,
    #[serde(default, borrow, rename = "requestState")]
    pub request_state: Prim<'a>,
}

/// A task, or a related-task reference.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct TaskView<'a> {
    #[serde(default, borrow, rename = "taskId")]
    pub task_id: Prim<'a>,
}

/// A JSON-RPC error object.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ErrorView<'a> {
    #[serde(default, borrow)]
    pub code: Prim<'a>,
    #[serde(default, borrow)]
    pub message: Prim<'a>,
}

/// One value of `inputRequests`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct InputRequestView<'a> {
    #[serde(default, borrow)]
    pub method: Prim<'a>,
    #[serde(default, borrow)]
    pub params: Obj<InputParamsView<'a>>,
    #[serde(default, borrow)]
    pub jsonrpc: Prim<'a>,
    #[serde(default, borrow)]
    pub id: Prim<'a>,
}

/// The params of any input request (the union of the three kinds' fields).
#[derive(Debug, Default, Deserialize)]
pub(crate) struct InputParamsView<'a> {
    #[serde(default, borrow)]
    pub message: Prim<'a>,
    #[serde(default, borrow)]
    pub mode: Prim<'a>,
    #[serde(default, borrow, rename = "requestedSchema")]
    pub requested_schema: Obj<SchemaView<'a>>,
    #[serde(default, borrow)]
    pub url: Prim<'a>,
    #[serde(default, borrow, rename = "elicitationId")]
    pub elicitation_id: Prim<'a>,
    #[serde(default, borrow)]
    pub messages: Arr<Obj<SamplingMessageView<'a>>>,
    #[serde(default, borrow, rename = "maxTokens")]
    pub max_tokens: Prim<'a>,
}

/// A sampling message.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct SamplingMessageView<'a> {
    #[serde(default, borrow)]
    pub role: Prim<'a>,
    #[serde(default, borrow)]
    pub content: Prim<'a>,
}

/// The restricted `requestedSchema` of form-mode elicitation.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct SchemaView<'a> {
    #[serde(default, borrow, rename = "type")]
    pub kind: Prim<'a>,
    #[serde(default, borrow)]
    pub properties: Map<'a, Obj<PropertyView<'a>>>,
    #[serde(default, borrow)]
    pub required: Prim<'a>,
    #[serde(default, borrow, rename = "$schema")]
    pub schema: Prim<'a>,
}

/// One property of `requestedSchema`: a primitive schema.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct PropertyView<'a> {
    #[serde(default, borrow, rename = "type")]
    pub kind: Prim<'a>,
    #[serde(default, borrow)]
    pub format: Prim<'a>,
    #[serde(default, borrow, rename = "minLength")]
    pub min_length: Prim<'a>,
    #[serde(default, borrow, rename = "maxLength")]
    pub max_length: Prim<'a>,
    #[serde(default, borrow)]
    pub minimum: Prim<'a>,
    #[serde(default, borrow)]
    pub maximum: Prim<'a>,
    #[serde(default, borrow, rename = "enum")]
    pub enumeration: Prim<'a>,
    #[serde(default, borrow, rename = "enumNames")]
    pub enum_names: Prim<'a>,
    #[serde(default, borrow, rename = "oneOf")]
    pub one_of: Arr<Obj<ConstView<'a>>>,
    #[serde(default, borrow)]
    pub items: Obj<Box<ItemsView<'a>>>,
    #[serde(default, borrow, rename = "minItems")]
    pub min_items: Prim<'a>,
    #[serde(default, borrow, rename = "maxItems")]
    pub max_items: Prim<'a>,
    #[serde(default, borrow)]
    pub properties: Prim<'a>,
}

/// `items` of a multi-select enum.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ItemsView<'a> {
    #[serde(default, borrow, rename = "type")]
    pub kind: Prim<'a>,
    #[serde(default, borrow, rename = "enum")]
    pub enumeration: Prim<'a>,
    #[serde(default, borrow, rename = "anyOf")]
    pub any_of: Arr<Obj<ConstView<'a>>>,
}

/// `{ "const": …, "title": … }` of a titled enum.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ConstView<'a> {
    #[serde(default, borrow, rename = "const")]
    pub value: Prim<'a>,
    #[serde(default, borrow)]
    pub title: Prim<'a>,
}

/// One value of `inputResponses`: the union of the three result kinds.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ResponseView<'a> {
    #[serde(default, borrow)]
    pub action: Prim<'a>,
    #[serde(default, borrow)]
    pub content: Content<'a>,
    #[serde(default, borrow)]
    pub role: Prim<'a>,
    #[serde(default, borrow)]
    pub model: Prim<'a>,
    #[serde(default, borrow)]
    pub roots: Arr<Obj<RootView<'a>>>,
}

/// The draft dialect's `{"result": …}` wrapper around an input response.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct WrappedResponseView<'a> {
    #[serde(default, borrow)]
    pub result: Obj<ResponseView<'a>>,
}

/// `content` of an input response: form answers (an object of primitives) or
/// sampling content (an object or an array).
pub(crate) type Content<'a> = Map<'a, Prim<'a>>;

/// A root of `ListRootsResult`.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RootView<'a> {
    #[serde(default, borrow)]
    pub uri: Prim<'a>,
}
