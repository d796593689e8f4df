//! Classification without an allocator: [`classify`] for `no_std` targets
//! built without the `alloc` feature.
//!
//! [`classify`] checks everything one message alone can show, like
//! `mrtr::classify` with `alloc`, and gives the **same rule id** (and the same
//! kind, id and method) for the same bytes. The only exceptions are the fixed
//! capacities below and the cases under "Divergences". It allocates nothing:
//! what it returns, [`Classified`], holds the id and method in
//! [`heapless::String`]s.
//!
//! # Fixed capacities
//!
//! | constant | bounds | over it |
//! |---|---|---|
//! | [`MAX_ID_BYTES`] = 64 | bytes of a string `id` (unescaped) | `limit-exceeded` |
//! | [`MAX_METHOD_BYTES`] = 64 | bytes of `method` (unescaped) | `limit-exceeded` |
//! | [`MAX_INPUT_REQUESTS`] = 64 | entries of `inputRequests` (and [`Limits::max_input_requests`]) | `limit-exceeded` |
//! | [`MAX_MAP_ENTRIES`] = 64 | entries of `inputResponses`, the draft's `input_responses` (and [`Limits::max_input_requests`]), and of a form's `requestedSchema.properties` | `limit-exceeded` |
//! | [`MAX_NESTING`] = 1024 | nesting of arrays and objects while parsing (only reachable when [`Limits::max_depth`] is above it) | `limit-exceeded` |
//!
//! The allocating path has none of these, only [`Limits`]. The map
//! capacities are checked where the allocating path checks the matching
//! [`Limits`] bound. The id and method capacities are checked last. So no other
//! rule is hidden by them. A capacity failure's message names the constant.
//!
//! # How it works
//!
//! `serde-json-core` is not used, because it does not fit here:
//! - It is lenient where serde_json is strict (`01`, `1.`, `"\x"`, raw control
//!   characters).
//! - It cannot deserialize an unknown type (`deserialize_any`), which the
//!   lenient views need.
//! - Its unescaping refuses escaped surrogate pairs.
//!
//! Instead, this module mirrors the allocating path step by step, allocating
//! nothing:
//!
//! 1. **Size**: [`Limits::max_message_bytes`].
//! 2. **Depth scan**: the allocating path's raw pre-parse scan over any bytes.
//!    Nesting deeper than [`Limits::max_depth`] is `limit-exceeded`, before
//!    any syntax error.
//! 3. **A strict typed scan**: it does what serde_json does while it
//!    deserializes the crate's borrowed views, and fails at the first problem
//!    in document order, as serde_json does:
//!    - the JSON grammar (numbers, escapes, raw control characters, literals,
//!      commas and brackets, trailing bytes): `jsonrpc-parse-error`;
//!    - the strings the views read (keys outside ignored values, and string
//!      values the views keep) must be UTF-8 with paired surrogate escapes:
//!      `jsonrpc-parse-error`. Ignored values, like serde_json's `IgnoredAny`,
//!      are checked for grammar only;
//!    - a number the views read that is out of `f64` range:
//!      `jsonrpc-parse-error`. This is decided on the decimal digits, without
//!      parsing an `f64`;
//!    - a known field twice in one object, or a top-level value that is not
//!      an object: `jsonrpc-invalid` (a batch, after its grammar is checked);
//!    - the 128th nested container the views read (serde_json's recursion
//!      limit): `limit-exceeded`.
//! 4. **Findings after the parse**: what the allocating path's scan finds
//!    once serde_json accepted the message. A string anywhere with an
//!    unpaired surrogate escape is `jsonrpc-parse-error`. An object anywhere
//!    with two byte-identical keys is `jsonrpc-invalid`. When both occur, the
//!    scan's order decides: a string counts at its start, an object at its
//!    closing brace.
//! 5. **The rules**, read lazily from the validated bytes without building a
//!    tree, in the allocating path's order:
//!    - the envelope;
//!    - `resultType` per protocol;
//!    - `input_required` content and input requests, down to the form schema
//!      and sampling messages;
//!    - `requestState`;
//!    - `inputResponses`;
//!    - duplicate map keys after unescaping.
//!
//! Numbers follow serde_json with its `float_roundtrip` feature (correctly
//! rounded `f64`). Whether a float is an integer (an error `code`, a sampling
//! `maxTokens`) is decided exactly on its decimal digits. No `f64` is parsed,
//! and no float tables are linked.
//!
//! Stack: about 2.2 KiB on the deepest path (thumbv7em, release, from the
//! frame sizes). The largest pieces are 64 key spans for a bounded map and a
//! big number on rare number paths (from 10^299 upward, near 2^-1075). Code:
//! about 23 KiB of text for `classify` on thumbv6m and thumbv7em (opt-level
//! `s`, LTO, linked with `--gc-sections`).
//!
//! Time: linear in the message, times the nesting depth, for the
//! duplicate-key check over every object. An object with `n > 64` keys costs
//! `n / 64` passes over it. Bound [`Limits::max_message_bytes`] accordingly.
//!
//! # Divergences from the allocating path
//!
//! - The fixed capacities above.
//! - Without serde_json's `float_roundtrip` feature (it is off unless some
//!   crate in the build turns it on), serde_json rounds some long or extreme
//!   numbers differently (not always to nearest). That can change whether such
//!   a number is an integer or out of range. This path always rounds
//!   correctly.
//!
//! The views this path mirrors are those of `view.rs` (field names and types
//! in `fields()`). A change there needs the same change here. The differential
//! tests (`tests/bare_*.rs`) catch a mismatch.
//!
//! ```
//! use mrtr::bare::{classify, BareId, Kind};
//! use mrtr::{Limits, Protocol};
//! let msg = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}"#;
//! let c = classify(msg, Protocol::default(), &Limits::default()).unwrap();
//! assert_eq!(c.kind, Kind::Request);
//! assert_eq!(c.id, BareId::Int(7));
//! assert_eq!(c.method.as_deref(), Some("tools/call"));
//! ```

use crate::{
    error::Error,
    limits::Limits,
    protocol::{ElicitationIdRule, Protocol, ResultTypeRule},
    rules::RuleId,
};
use core::cmp::Ordering;

/// Bytes of a string `id` (after unescaping) that [`Classified`] can hold.
pub const MAX_ID_BYTES: usize = 64;
/// Bytes of a `method` (after unescaping) that [`Classified`] can hold.
pub const MAX_METHOD_BYTES: usize = 64;
/// Entries of one `inputRequests`; the effective bound is the smaller of this
/// and [`Limits::max_input_requests`].
pub const MAX_INPUT_REQUESTS: usize = 64;
/// Entries of `inputResponses`, `input_responses` (draft) and
/// `requestedSchema.properties`; the first two are also bounded by
/// [`Limits::max_input_requests`].
pub const MAX_MAP_ENTRIES: usize = 64;
/// Nesting of arrays and objects anywhere in a message (the scan's bit stack).
pub const MAX_NESTING: usize = 1024;

/// serde_json's recursion limit: the 128th nested container it descends into fails.
const PARSER_DEPTH: u32 = 128;

/// What a message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A request: `method` and `id`.
    Request,
    /// A notification: `method`, no `id`.
    Notification,
    /// A result that is not `input_required` (complete, task, or untyped).
    Result,
    /// A result with `resultType: "input_required"` (or the draft's envelope fields).
    InputRequired,
    /// An error response.
    Error,
}

impl Kind {
    /// The name the conformance corpus uses.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Notification => "notification",
            Kind::Result => "result",
            Kind::InputRequired => "input_required",
            Kind::Error => "error",
        }
    }
}

/// The `resultType` a result declared, as the protocol reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResultType {
    /// `"complete"`, or absent (read as complete).
    Complete,
    /// `"input_required"`.
    InputRequired,
    /// `"task"` (the Tasks extension, `2026-07-28`).
    Task,
}

/// A message's id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BareId {
    /// No `id` (a notification, or an error response without one).
    None,
    /// `null` (only on error responses).
    Null,
    /// An integer id that fits `i64`.
    Int(i64),
    /// An integer id above `i64::MAX`.
    UInt(u64),
    /// A string id, unescaped, of at most [`MAX_ID_BYTES`] bytes.
    Str(heapless::String<MAX_ID_BYTES>),
}

/// The outcome of [`classify`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classified {
    /// What the message is.
    pub kind: Kind,
    /// Its id.
    pub id: BareId,
    /// Its method (unescaped), for requests and notifications.
    pub method: Option<heapless::String<MAX_METHOD_BYTES>>,
    /// For results: the declared type (absent reads as complete).
    pub result_type: Option<ResultType>,
    /// For results: whether `resultType` was on the wire (and read by the protocol).
    pub result_type_present: bool,
}

/// Classifies and validates one raw message under `protocol`, without allocating.
///
/// Fails with the rule the message breaks, as `mrtr::classify` does:
/// `jsonrpc-parse-error`, `jsonrpc-invalid`, `limit-exceeded`,
/// `result-type-unknown`, `input-request-invalid`, `input-required-empty`,
/// `request-state-invalid`, `state-too-large`, `input-responses-malformed`.
/// See the [module docs](self) for the fixed capacities.
pub fn classify(bytes: &[u8], protocol: Protocol, limits: &Limits) -> Result<Classified, Error> {
    if bytes.len() > limits.max_message_bytes {
        return Err(Error::new(RuleId::LimitExceeded, "message over the configured byte bound"));
    }
    if core::str::from_utf8(bytes).is_err() {
        return Err(Error::new(RuleId::JsonrpcParseError, "the message is not UTF-8"));
    }
    if raw_too_deep(bytes, limits.max_depth) {
        return Err(Error::new(RuleId::LimitExceeded, "message nested deeper than the configured bound"));
    }
    let mut parser = Parser { b: bytes, i: 0, depth_left: PARSER_DEPTH, level: 0 };
    let env = parser.document().map_err(Fail::error)?;
    let d = Doc { b: bytes };
    if let Some(error) = d.finding() {
        return Err(error);
    }
    Rules { d, protocol, limits }.classify(env)
}

/// Checks that a server may answer `method` with `input_required` under
/// `protocol` (`input-required-method-not-allowed`).
pub fn check_allow_list(method: &str, protocol: Protocol) -> Result<(), Error> {
    if protocol.allows_input_required(method) {
        Ok(())
    } else {
        Err(Error::new(
            RuleId::InputRequiredMethodNotAllowed,
            "the protocol does not allow input_required for this method",
        ))
    }
}

// ---------------------------------------------------------------------------
// The raw scan (the allocating path's `scan.rs`), without a stack.

/// Whether the bracket depth exceeds `max`, counted over any bytes the way the
/// allocating path's pre-parse scan counts it (strings skipped by its rules).
fn raw_too_deep(b: &[u8], max: usize) -> bool {
    let (mut depth, mut i) = (0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'"' => {
                i = raw_string_end(b, i + 1).0 + 1;
                continue;
            }
            b'{' | b'[' => {
                if depth >= max {
                    return true;
                }
                depth += 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    false
}

/// The index of the closing quote of the string whose content starts at `i`,
/// and whether it holds an unpaired surrogate escape (as `scan.rs` reads it).
fn raw_string_end(b: &[u8], mut i: usize) -> (usize, bool) {
    let (mut lone, mut pending_high) = (false, false);
    while i < b.len() {
        match b[i] {
            b'"' => return (i, lone || pending_high),
            b'\\' if b.get(i + 1) == Some(&b'u') => {
                match b.get(i + 2..i + 6).and_then(hex) {
                    Some(0xD800..=0xDBFF) => {
                        lone |= pending_high;
                        pending_high = true;
                    }
                    Some(0xDC00..=0xDFFF) => {
                        lone |= !pending_high;
                        pending_high = false;
                    }
                    _ => {
                        lone |= pending_high;
                        pending_high = false;
                    }
                }
                i += 6;
                continue;
            }
            b'\\' => {
                lone |= pending_high;
                pending_high = false;
                i += 2;
                continue;
            }
            _ => {
                lone |= pending_high;
                pending_high = false;
            }
        }
        i += 1;
    }
    (b.len(), lone || pending_high)
}

// ---------------------------------------------------------------------------
// Pass 1: the strict typed scan.

/// Why the scan stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fail {
    /// Not one JSON value (serde_json's syntax and EOF errors).
    Parse,
    /// A wrong shape serde_json reports while deserializing the views.
    Data,
    /// serde_json's recursion limit.
    Depth,
    /// This path's [`MAX_NESTING`].
    Nesting,
}

impl Fail {
    fn error(self) -> Error {
        match self {
            Fail::Parse => Error::new(RuleId::JsonrpcParseError, "not one JSON value"),
            Fail::Data => {
                Error::new(RuleId::JsonrpcInvalid, "not a JSON-RPC message (a field twice, or not an object)")
            }
            Fail::Depth => Error::new(RuleId::LimitExceeded, "message nested deeper than 128"),
            Fail::Nesting => {
                Error::new(RuleId::LimitExceeded, "message nested deeper than the bare capacity MAX_NESTING")
            }
        }
    }
}

/// The views of `view.rs`, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Envelope,
    Params,
    Meta,
    Capabilities,
    ElicitationCapability,
    Result,
    Task,
    ErrorObject,
    InputRequest,
    InputParams,
    SamplingMessage,
    Schema,
    Property,
    Items,
    Const,
    Response,
    WrappedResponse,
    Root,
}

/// How a view reads a value (the types of `view.rs`).
#[derive(Clone, Copy, Debug)]
enum Ty {
    /// Not read (`IgnoredAny`): grammar only.
    Ign,
    /// `Prim`: scalars read, arrays of `Prim`, objects with ignored values.
    Prim,
    /// `Obj<view>`.
    Obj(St),
    /// `Arr<Obj<view>>`.
    Arr(St),
    /// `Map<Obj<view>>`.
    Map(St),
    /// `Map<Prim>`.
    MapPrim,
}

type Fields = &'static [(&'static str, Ty)];

const ENVELOPE: Fields = &[
    ("jsonrpc", Ty::Prim),
    ("id", Ty::Prim),
    ("method", Ty::Prim),
    ("params", Ty::Obj(St::Params)),
    ("result", Ty::Obj(St::Result)),
    ("error", Ty::Obj(St::ErrorObject)),
    ("input_requests", Ty::Map(St::InputRequest)),
    ("request_state", Ty::Prim),
    ("input_responses", Ty::Map(St::WrappedResponse)),
];

/// The fields each view reads, with their types, in declaration order.
fn fields(st: St) -> Fields {
    match st {
        St::Envelope => ENVELOPE,
        St::Params => &[
            ("inputResponses", Ty::Map(St::Response)),
            ("requestState", Ty::Prim),
            ("_meta", Ty::Obj(St::Meta)),
            ("taskId", Ty::Prim),
        ],
        St::Meta => &[
            ("io.modelcontextprotocol/protocolVersion", Ty::Prim),
            ("io.modelcontextprotocol/clientCapabilities", Ty::Obj(St::Capabilities)),
            ("io.modelcontextprotocol/related-task", Ty::Obj(St::Task)),
        ],
        St::Capabilities => {
            &[("elicitation", Ty::Obj(St::ElicitationCapability)), ("sampling", Ty::Prim), ("roots", Ty::Prim)]
        }
        St::ElicitationCapability => &[("form", Ty::Prim), ("url", Ty::Prim)],
        St::Result => {
            &[("resultType", Ty::Prim), ("inputRequests", Ty::Map(St::InputRequest)), ("requestState", Ty::Prim)]
        }
        St::Task => &[("taskId", Ty::Prim)],
        St::ErrorObject => &[("code", Ty::Prim), ("message", Ty::Prim)],
        St::InputRequest => {
            &[("method", Ty::Prim), ("params", Ty::Obj(St::InputParams)), ("jsonrpc", Ty::Prim), ("id", Ty::Prim)]
        }
        St::InputParams => &[
            ("message", Ty::Prim),
            ("mode", Ty::Prim),
            ("requestedSchema", Ty::Obj(St::Schema)),
            ("url", Ty::Prim),
            ("elicitationId", Ty::Prim),
            ("messages", Ty::Arr(St::SamplingMessage)),
            ("maxTokens", Ty::Prim),
        ],
        St::SamplingMessage => &[("role", Ty::Prim), ("content", Ty::Prim)],
        St::Schema => {
            &[("type", Ty::Prim), ("properties", Ty::Map(St::Property)), ("required", Ty::Prim), ("$schema", Ty::Prim)]
        }
        St::Property => &[
            ("type", Ty::Prim),
            ("format", Ty::Prim),
            ("minLength", Ty::Prim),
            ("maxLength", Ty::Prim),
            ("minimum", Ty::Prim),
            ("maximum", Ty::Prim),
            ("enum", Ty::Prim),
            ("enumNames", Ty::Prim),
            ("oneOf", Ty::Arr(St::Const)),
            ("items", Ty::Obj(St::Items)),
            ("minItems", Ty::Prim),
            ("maxItems", Ty::Prim),
            ("properties", Ty::Prim),
        ],
        St::Items => &[("type", Ty::Prim), ("enum", Ty::Prim), ("anyOf", Ty::Arr(St::Const))],
        St::Const => &[("const", Ty::Prim), ("title", Ty::Prim)],
        St::Response => &[
            ("action", Ty::Prim),
            ("content", Ty::MapPrim),
            ("role", Ty::Prim),
            ("model", Ty::Prim),
            ("roots", Ty::Arr(St::Root)),
        ],
        St::WrappedResponse => &[("result", Ty::Obj(St::Response))],
        St::Root => &[("uri", Ty::Prim)],
    }
}

/// The top-level value: an object (a batch or a scalar is refused).
#[derive(Clone, Copy, Debug)]
struct Envelope {
    v: Span,
}

/// A stack of container kinds, one bit per level (1 = object).
struct Bits {
    bits: [u8; MAX_NESTING / 8],
    len: usize,
}

impl Bits {
    fn top(&self) -> Option<bool> {
        let i = self.len.checked_sub(1)?;
        Some(self.bits[i / 8] & (1 << (i % 8)) != 0)
    }
    fn push(&mut self, object: bool) -> Result<(), Fail> {
        let i = self.len;
        let byte = self.bits.get_mut(i / 8).ok_or(Fail::Nesting)?;
        if object {
            *byte |= 1 << (i % 8);
        } else {
            *byte &= !(1 << (i % 8));
        }
        self.len += 1;
        Ok(())
    }
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
    /// serde_json's `remaining_depth`.
    depth_left: u32,
    /// Containers open at the current position.
    level: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), Fail> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(Fail::Parse)
        }
    }

    /// Enters a container serde_json descends into (its recursion check).
    fn open(&mut self) -> Result<(), Fail> {
        self.depth_left -= 1;
        if self.depth_left == 0 {
            return Err(Fail::Depth);
        }
        self.nest()
    }

    fn nest(&mut self) -> Result<(), Fail> {
        self.level += 1;
        if self.level > MAX_NESTING {
            return Err(Fail::Nesting);
        }
        self.i += 1;
        Ok(())
    }

    fn close(&mut self) {
        self.depth_left += 1;
        self.level -= 1;
    }

    fn document(&mut self) -> Result<Envelope, Fail> {
        self.ws();
        let start = self.i;
        match self.peek() {
            Some(b'{') => {
                self.open()?;
                self.struct_map(St::Envelope)?;
                self.close();
            }
            // A batch: its syntax (values skipped, not read), then jsonrpc-invalid.
            Some(b'[') => {
                self.walk(false)?;
                self.ws();
                return Err(if self.i < self.b.len() { Fail::Parse } else { Fail::Data });
            }
            // serde_json reads the scalar (so its syntax errors win), then refuses its type.
            _ => {
                self.scalar(true)?;
                return Err(Fail::Data);
            }
        }
        let v = Span { s: start, e: self.i };
        self.ws();
        if self.i < self.b.len() {
            return Err(Fail::Parse);
        }
        Ok(Envelope { v })
    }

    /// serde_json's `has_next_key`: `true` at a key's opening quote, `false`
    /// once the closing brace is consumed.
    fn next_key(&mut self, first: &mut bool) -> Result<bool, Fail> {
        self.ws();
        match self.peek() {
            None => Err(Fail::Parse),
            Some(b'}') => {
                self.i += 1;
                Ok(false)
            }
            Some(c) if *first => {
                *first = false;
                if c == b'"' {
                    Ok(true)
                } else {
                    Err(Fail::Parse)
                }
            }
            Some(b',') => {
                self.i += 1;
                self.ws();
                if self.peek() == Some(b'"') {
                    Ok(true)
                } else {
                    Err(Fail::Parse)
                }
            }
            Some(_) => Err(Fail::Parse),
        }
    }

    /// serde_json's `has_next_element`: `true` at an element, `false` once the
    /// closing bracket is consumed.
    fn next_element(&mut self, first: &mut bool) -> Result<bool, Fail> {
        self.ws();
        match self.peek() {
            None => Err(Fail::Parse),
            Some(b']') => {
                self.i += 1;
                Ok(false)
            }
            Some(_) if *first => {
                *first = false;
                Ok(true)
            }
            Some(b',') => {
                self.i += 1;
                self.ws();
                match self.peek() {
                    Some(b']') | None => Err(Fail::Parse),
                    Some(_) => Ok(true),
                }
            }
            Some(_) => Err(Fail::Parse),
        }
    }

    /// A derived view's `visit_map`: known fields typed, once each; others ignored.
    fn struct_map(&mut self, st: St) -> Result<(), Fail> {
        let fields = fields(st);
        let mut seen = 0u32;
        let mut first = true;
        while self.next_key(&mut first)? {
            let start = self.i;
            self.string(true)?;
            let key = Span { s: start, e: self.i };
            let ty = match fields.iter().position(|(name, _)| str_is(self.b, key, name)) {
                Some(f) => {
                    // serde's `duplicate_field`, raised before the colon.
                    if seen & (1 << f) != 0 {
                        return Err(Fail::Data);
                    }
                    seen |= 1 << f;
                    fields[f].1
                }
                None => Ty::Ign,
            };
            self.ws();
            self.expect(b':')?;
            self.value(ty)?;
        }
        Ok(())
    }

    /// An object whose keys are read and whose values are `elem`.
    fn map_entries(&mut self, elem: Ty) -> Result<(), Fail> {
        let mut first = true;
        while self.next_key(&mut first)? {
            self.string(true)?;
            self.ws();
            self.expect(b':')?;
            self.value(elem)?;
        }
        Ok(())
    }

    fn seq(&mut self, elem: Ty) -> Result<(), Fail> {
        let mut first = true;
        while self.next_element(&mut first)? {
            self.value(elem)?;
        }
        Ok(())
    }

    fn value(&mut self, ty: Ty) -> Result<(), Fail> {
        match ty {
            Ty::Ign => return self.walk(false),
            Ty::Prim => return self.walk(true),
            _ => {}
        }
        self.ws();
        match self.peek() {
            Some(b'{') => {
                self.open()?;
                match ty {
                    Ty::Obj(st) => self.struct_map(st)?,
                    Ty::Map(st) => self.map_entries(Ty::Obj(st))?,
                    Ty::MapPrim => self.map_entries(Ty::Prim)?,
                    // `Arr` on an object: keys read, values ignored.
                    _ => self.map_entries(Ty::Ign)?,
                }
                self.close();
                Ok(())
            }
            Some(b'[') => {
                self.open()?;
                match ty {
                    Ty::Arr(st) => self.seq(Ty::Obj(st))?,
                    // `Obj` and `Map` on an array: elements ignored.
                    _ => self.seq(Ty::Ign)?,
                }
                self.close();
                Ok(())
            }
            _ => self.scalar(true),
        }
    }

    /// A `Prim` value (`read`) or an ignored one, without recursion.
    ///
    /// `Prim` arrays hold `Prim`s; `Prim` objects have read keys and ignored
    /// values; ignored containers hold ignored values and do not count toward
    /// serde_json's recursion limit. The frames in `Prim` mode are the bottom
    /// `prim_len` of the stack.
    fn walk(&mut self, read: bool) -> Result<(), Fail> {
        let mut stack = Bits { bits: [0; MAX_NESTING / 8], len: 0 };
        let mut prim_len = 0usize;
        loop {
            // One value (or the opening of a container).
            let prim = match stack.top() {
                None => read,
                Some(object) => !object && stack.len == prim_len,
            };
            self.ws();
            match self.peek() {
                Some(c @ (b'[' | b'{')) => {
                    if prim {
                        self.open()?;
                        prim_len = stack.len + 1;
                    } else {
                        self.nest()?;
                    }
                    stack.push(c == b'{')?;
                    self.ws();
                    match (self.peek(), c) {
                        (None, _) => return Err(Fail::Parse),
                        (Some(b'}'), b'{') | (Some(b']'), b'[') => {}
                        (Some(_), b'{') => {
                            self.key(stack.len == prim_len)?;
                            continue;
                        }
                        (Some(_), _) => continue,
                    }
                }
                _ => self.scalar(prim)?,
            }
            // A value is complete (or a container is empty): commas and closers.
            loop {
                let Some(object) = stack.top() else { return Ok(()) };
                self.ws();
                match self.peek() {
                    Some(b',') => {
                        self.i += 1;
                        if object {
                            self.key(stack.len == prim_len)?;
                        }
                        break;
                    }
                    Some(b']') if !object => {}
                    Some(b'}') if object => {}
                    _ => return Err(Fail::Parse),
                }
                self.i += 1;
                if stack.len == prim_len {
                    prim_len -= 1;
                    self.close();
                } else {
                    self.level -= 1;
                }
                stack.len -= 1;
            }
        }
    }

    /// An object key and its colon.
    fn key(&mut self, read: bool) -> Result<(), Fail> {
        self.ws();
        if self.peek() != Some(b'"') {
            return Err(Fail::Parse);
        }
        self.string(read)?;
        self.ws();
        self.expect(b':')
    }

    fn scalar(&mut self, read: bool) -> Result<(), Fail> {
        match self.peek() {
            Some(b'"') => self.string(read),
            Some(b't') => self.ident(b"true"),
            Some(b'f') => self.ident(b"false"),
            Some(b'n') => self.ident(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(read),
            _ => Err(Fail::Parse),
        }
    }

    fn ident(&mut self, word: &[u8]) -> Result<(), Fail> {
        if self.b.get(self.i..self.i + word.len()) == Some(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(Fail::Parse)
        }
    }

    fn hex4(&mut self) -> Result<u32, Fail> {
        let digits = self.b.get(self.i..self.i + 4).ok_or(Fail::Parse)?;
        self.i += 4;
        hex(digits).ok_or(Fail::Parse)
    }

    /// A string at its opening quote. `read`: as serde_json's `parse_str`
    /// (UTF-8 and paired surrogates); else as `ignore_str` (escapes and
    /// control characters only).
    fn string(&mut self, read: bool) -> Result<(), Fail> {
        self.i += 1;
        let start = self.i;
        loop {
            match self.peek().ok_or(Fail::Parse)? {
                b'"' => {
                    if read && core::str::from_utf8(&self.b[start..self.i]).is_err() {
                        return Err(Fail::Parse);
                    }
                    self.i += 1;
                    return Ok(());
                }
                b'\\' => {
                    self.i += 1;
                    let c = self.peek().ok_or(Fail::Parse)?;
                    self.i += 1;
                    match c {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            let n = self.hex4()?;
                            if read {
                                if (0xDC00..=0xDFFF).contains(&n) {
                                    return Err(Fail::Parse);
                                }
                                if (0xD800..=0xDBFF).contains(&n) {
                                    self.expect(b'\\')?;
                                    self.expect(b'u')?;
                                    if !(0xDC00..=0xDFFF).contains(&self.hex4()?) {
                                        return Err(Fail::Parse);
                                    }
                                }
                            }
                        }
                        _ => return Err(Fail::Parse),
                    }
                }
                c if c < 0x20 => return Err(Fail::Parse),
                _ => self.i += 1,
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        self.i - start
    }

    /// A number: the JSON grammar, and when `read`, serde_json's range check.
    fn number(&mut self, read: bool) -> Result<(), Fail> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => {
                self.i += 1;
                if let Some(b'0'..=b'9') = self.peek() {
                    return Err(Fail::Parse);
                }
            }
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(Fail::Parse),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(Fail::Parse);
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(Fail::Parse);
            }
        }
        if read && Dec::parse(&self.b[start..self.i]).out_of_range() {
            return Err(Fail::Parse);
        }
        Ok(())
    }
}

fn hex(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0u32, |n, &c| Some(n * 16 + (c as char).to_digit(16)?))
}

// ---------------------------------------------------------------------------
// Strings of the validated input.

/// A value's bytes in the input (a string's include its quotes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    s: usize,
    e: usize,
}

/// The unescaped bytes of a (validated) string.
struct Unescape<'a> {
    b: &'a [u8],
    i: usize,
    end: usize,
    buf: [u8; 4],
    at: usize,
    len: usize,
}

impl<'a> Unescape<'a> {
    fn new(b: &'a [u8], string: Span) -> Self {
        Unescape { b, i: string.s + 1, end: string.e.saturating_sub(1), buf: [0; 4], at: 0, len: 0 }
    }

    fn hex_at(&self, i: usize) -> u32 {
        self.b.get(i..i + 4).and_then(hex).unwrap_or(0xFFFD)
    }
}

impl Iterator for Unescape<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        if self.at < self.len {
            self.at += 1;
            return Some(self.buf[self.at - 1]);
        }
        if self.i >= self.end {
            return None;
        }
        let c = self.b[self.i];
        if c != b'\\' {
            self.i += 1;
            return Some(c);
        }
        let e = self.b.get(self.i + 1).copied().unwrap_or(b'\\');
        self.i += 2;
        Some(match e {
            b'b' => 0x08,
            b'f' => 0x0C,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let mut n = self.hex_at(self.i);
                self.i += 4;
                if (0xD800..=0xDBFF).contains(&n) {
                    let low = self.hex_at(self.i + 2);
                    self.i += 6;
                    n = 0x1_0000 + ((n - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF);
                }
                let ch = char::from_u32(n).unwrap_or(char::REPLACEMENT_CHARACTER);
                self.len = ch.encode_utf8(&mut self.buf).len();
                self.at = 1;
                self.buf[0]
            }
            other => other,
        })
    }
}

/// Whether the string at `s` unescapes to `lit`.
fn str_is(b: &[u8], s: Span, lit: &str) -> bool {
    // Unescaping never lengthens, so a raw string shorter than `lit` differs.
    s.e - s.s >= lit.len() + 2 && Unescape::new(b, s).eq(lit.bytes())
}

// ---------------------------------------------------------------------------
// Numbers, decided on their decimal digits.

/// A (grammatical) JSON number as decimal parts.
struct Dec<'a> {
    negative: bool,
    /// No fraction and no exponent.
    plain: bool,
    int: &'a [u8],
    frac: &'a [u8],
    /// The exponent, when it fits serde_json's `i32`.
    exp: i64,
    /// The exponent overflowed `i32` (serde_json: 0, or out of range).
    exp_overflow: bool,
    exp_negative: bool,
}

/// A number as serde_json's views see it.
enum Num {
    Int(i64),
    UInt(u64),
    Float,
}

impl<'a> Dec<'a> {
    fn parse(n: &'a [u8]) -> Dec<'a> {
        let negative = n.first() == Some(&b'-');
        let rest = &n[usize::from(negative)..];
        let int_len = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        let (int, mut rest) = rest.split_at(int_len);
        let mut frac: &[u8] = &[];
        if rest.first() == Some(&b'.') {
            let len = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            frac = &rest[1..1 + len];
            rest = &rest[1 + len..];
        }
        let plain = rest.is_empty() && frac.is_empty() && n.get(usize::from(negative) + int_len) != Some(&b'.');
        let (mut exp, mut exp_overflow, mut exp_negative) = (0i64, false, false);
        if let Some(e) = rest.get(1..) {
            exp_negative = e.first() == Some(&b'-');
            let digits = e.strip_prefix(b"-").or_else(|| e.strip_prefix(b"+")).unwrap_or(e);
            let mut mag = 0i64;
            for &d in digits {
                mag = mag * 10 + i64::from(d - b'0');
                if mag > i64::from(i32::MAX) {
                    exp_overflow = true;
                    break;
                }
            }
            exp = if exp_negative { -mag } else { mag };
        }
        Dec { negative, plain, int, frac, exp, exp_overflow, exp_negative }
    }

    fn all_digits(&self) -> impl Iterator<Item = u8> + '_ {
        self.int.iter().chain(self.frac).map(|c| c - b'0')
    }

    /// Leading zeros among all digits; equal to the digit count for zero.
    fn leading_zeros(&self) -> usize {
        self.all_digits().take_while(|&d| d == 0).count()
    }

    fn is_zero(&self) -> bool {
        self.leading_zeros() == self.int.len() + self.frac.len()
    }

    /// The significant digits `d1 d2 …` (d1 ≠ 0) of `0.d1d2… × 10^P`.
    fn significant(&self) -> impl Iterator<Item = u8> + '_ {
        self.all_digits().skip(self.leading_zeros())
    }

    /// `P` of `0.d1d2… × 10^P` (the value is not zero).
    fn point(&self) -> i64 {
        self.int.len() as i64 - self.leading_zeros() as i64 + self.exp
    }

    /// `|value|` against a positive constant `0.c1c2… × 10^point`.
    fn cmp_const(&self, digits: impl Iterator<Item = u8>, point: i64) -> Ordering {
        if self.is_zero() {
            return Ordering::Less;
        }
        match self.point().cmp(&point) {
            Ordering::Equal => cmp_digits(self.significant(), digits),
            other => other,
        }
    }

    /// serde_json's `NumberOutOfRange`: the nearest `f64` is infinite.
    fn out_of_range(&self) -> bool {
        if self.exp_overflow {
            return !self.exp_negative && !self.is_zero();
        }
        if self.is_zero() || self.point() < 300 {
            return false;
        }
        self.at_least_f64_overflow()
    }

    /// `|value| >= 2^1024 - 2^970`, the least value that rounds to infinity
    /// (a frame of its own: the big number is only needed from 10^299 on).
    #[inline(never)]
    fn at_least_f64_overflow(&self) -> bool {
        let max = Big::<36>::f64_overflow();
        self.cmp_const(max.digits(), max.num_digits() as i64) != Ordering::Less
    }

    /// How serde_json hands the number to a visitor.
    fn num(&self) -> Num {
        if !self.plain {
            return Num::Float;
        }
        let mut s = 0u64;
        for d in self.all_digits() {
            match s.checked_mul(10).and_then(|s| s.checked_add(u64::from(d))) {
                Some(v) => s = v,
                None => return Num::Float,
            }
        }
        match (self.negative, i64::try_from(s)) {
            (false, Ok(i)) => Num::Int(i),
            (false, Err(_)) => Num::UInt(s),
            (true, _) if s == 0 => Num::Float,
            (true, _) if s <= 1 << 63 => Num::Int((s as i64).wrapping_neg()),
            (true, _) => Num::Float,
        }
    }

    /// `Prim::is_integer`: an integer, or an `f64` that is a whole number
    /// within `[-2^63, 2^63]` (what `f as i64` keeps).
    fn is_integer(&self) -> bool {
        if !matches!(self.num(), Num::Float) || self.exp_overflow || self.is_zero() {
            return true;
        }
        // |f| <= 2^63 exactly when |v| <= 2^63 + 1024 (the tie rounds to 2^63).
        const TWO_63_PLUS_1024: &[u8] = b"9223372036854776832";
        if self.cmp_const(TWO_63_PLUS_1024.iter().map(|d| d - b'0'), 19) == Ordering::Greater {
            return false;
        }
        let p = self.point();
        if p >= 17 {
            return true; // v >= 10^16 > 2^53: every f64 there is whole.
        }
        if p < 0 {
            // v < 0.1: whole only when it rounds to 0, i.e. v <= 2^-1075.
            return p < -323 || (p == -323 && self.at_most_half_min_subnormal());
        }
        let p = p as usize;
        let n = self.significant().take(p).fold(0u64, |n, d| n * 10 + u64::from(d));
        if n >= 1 << 52 {
            return true; // ulp >= 1
        }
        let fraction = || self.significant().skip(p);
        if fraction().all(|d| d == 0) {
            return true;
        }
        if n == 0 {
            // v in [0.1, 1): whole when it rounds up to 1 (v >= 1 - 2^-54),
            // since 2^-1075 is far below.
            return cmp_digits(fraction(), one_minus_pow2(54)) != Ordering::Less;
        }
        // v in [2^m, 2^(m+1)), ulp 2^(m-52): whole when within half an ulp of
        // n or n + 1 (ties go to the integer, whose mantissa is even).
        let k = 53 - (63 - n.leading_zeros() as usize);
        cmp_digits(fraction(), pow2_neg(k)) != Ordering::Greater
            || cmp_digits(fraction(), one_minus_pow2(k)) != Ordering::Less
    }

    #[inline(never)]
    fn at_most_half_min_subnormal(&self) -> bool {
        // 2^-1075 = 5^1075 × 10^-1075 (752 digits, 84 limbs).
        let five = Big::<84>::pow5(1075);
        self.cmp_const(five.digits(), five.num_digits() as i64 - 1075) != Ordering::Greater
    }
}

/// Compares two digit streams as decimal fractions (missing digits are zeros).
fn cmp_digits(mut a: impl Iterator<Item = u8>, mut b: impl Iterator<Item = u8>) -> Ordering {
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Ordering::Equal,
            (x, y) => match x.unwrap_or(0).cmp(&y.unwrap_or(0)) {
                Ordering::Equal => {}
                other => return other,
            },
        }
    }
}

/// The `k` fraction digits of `2^-k = 5^k × 10^-k`.
fn pow2_neg(k: usize) -> impl Iterator<Item = u8> {
    // k <= 54: 5^54 has 38 digits (5 limbs).
    let five = Big::<5>::pow5(k as u32);
    let pad = k - five.num_digits();
    core::iter::repeat_n(0, pad).chain(five.into_digits())
}

/// The `k` fraction digits of `1 - 2^-k` (the last digit of `5^k` is 5).
fn one_minus_pow2(k: usize) -> impl Iterator<Item = u8> {
    pow2_neg(k).enumerate().map(move |(i, d)| if i + 1 == k { 10 - d } else { 9 - d })
}

/// A small unsigned big number in base 10^9 (little-endian), of `N` limbs.
#[derive(Clone)]
struct Big<const N: usize> {
    limbs: [u32; N],
    len: usize,
}

const BASE: u64 = 1_000_000_000;

impl<const N: usize> Big<N> {
    fn from_u64(mut x: u64) -> Self {
        let mut big = Big { limbs: [0; N], len: 0 };
        while x > 0 {
            big.limbs[big.len] = (x % BASE) as u32;
            big.len += 1;
            x /= BASE;
        }
        big
    }

    fn mul(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limbs[..self.len] {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = (v % BASE) as u32;
            carry = v / BASE;
        }
        while carry > 0 && self.len < self.limbs.len() {
            self.limbs[self.len] = (carry % BASE) as u32;
            self.len += 1;
            carry /= BASE;
        }
    }

    fn pow5(mut k: u32) -> Self {
        let mut big = Self::from_u64(1);
        while k >= 13 {
            big.mul(1_220_703_125); // 5^13
            k -= 13;
        }
        big.mul(5u32.pow(k));
        big
    }

    /// 2^1024 - 2^970 = (2^54 - 1) × 2^970.
    fn f64_overflow() -> Self {
        let mut big = Self::from_u64((1 << 54) - 1);
        for _ in 0..33 {
            big.mul(1 << 29);
        }
        big.mul(1 << 13);
        big
    }

    fn num_digits(&self) -> usize {
        match self.len {
            0 => 0,
            n => 9 * (n - 1) + digits_of(self.limbs[n - 1]),
        }
    }

    fn digits(&self) -> BigDigits<'_, N> {
        BigDigits { big: self, next: self.len, buf: [0; 9], at: 0, n: 0 }
    }

    fn into_digits(self) -> impl Iterator<Item = u8> {
        let n = self.num_digits();
        (0..n).map(move |i| self.digit(n - 1 - i))
    }

    /// The digit at `10^i`.
    fn digit(&self, i: usize) -> u8 {
        let limb = self.limbs.get(i / 9).copied().unwrap_or(0);
        ((limb / 10u32.pow((i % 9) as u32)) % 10) as u8
    }
}

fn digits_of(mut x: u32) -> usize {
    let mut n = 1;
    while x >= 10 {
        x /= 10;
        n += 1;
    }
    n
}

/// The decimal digits of a [`Big`], most significant first.
struct BigDigits<'b, const N: usize> {
    big: &'b Big<N>,
    next: usize,
    buf: [u8; 9],
    at: usize,
    n: usize,
}

impl<const N: usize> Iterator for BigDigits<'_, N> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        if self.at == self.n {
            self.next = self.next.checked_sub(1)?;
            let mut limb = self.big.limbs[self.next];
            self.n = if self.next + 1 == self.big.len { digits_of(limb) } else { 9 };
            for slot in self.buf[..self.n].iter_mut().rev() {
                *slot = (limb % 10) as u8;
                limb /= 10;
            }
            self.at = 0;
        }
        self.at += 1;
        Some(self.buf[self.at - 1])
    }
}

// ---------------------------------------------------------------------------
// Pass 2: reading the validated input.

struct Doc<'a> {
    b: &'a [u8],
}

impl<'a> Doc<'a> {
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(b'}')
    }

    fn ws(&self, mut i: usize) -> usize {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(i) {
            i += 1;
        }
        i
    }

    /// The value starting at `i` (validated, so brackets match).
    fn span(&self, i: usize) -> Span {
        let n = self.b.len();
        let e = match self.at(i) {
            b'"' => self.string_end(i),
            b'{' | b'[' => {
                let (mut depth, mut j) = (0usize, i);
                loop {
                    if j >= n {
                        break n;
                    }
                    match self.b[j] {
                        b'"' => {
                            j = self.string_end(j);
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                break j + 1;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            _ => {
                let mut j = i;
                while j < n && !matches!(self.b[j], b',' | b']' | b'}' | b' ' | b'\n' | b'\t' | b'\r') {
                    j += 1;
                }
                j
            }
        };
        Span { s: i, e }
    }

    fn string_end(&self, i: usize) -> usize {
        let mut j = i + 1;
        while j < self.b.len() {
            match self.b[j] {
                b'\\' => j += 2,
                b'"' => return j + 1,
                _ => j += 1,
            }
        }
        self.b.len()
    }

    /// What the allocating path's scan finds once the parse succeeded: an
    /// unpaired surrogate escape in any string (`jsonrpc-parse-error`) or an
    /// object, anywhere, with two byte-identical keys (`jsonrpc-invalid`),
    /// whichever the scan meets first (a string at its start, an object at
    /// its closing brace).
    fn finding(&self) -> Option<Error> {
        let b = self.b;
        let mut surrogate_at = None;
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'"' {
                let (end, lone) = raw_string_end(b, i + 1);
                if lone {
                    surrogate_at = Some(i);
                    break;
                }
                i = end;
            }
            i += 1;
        }
        let mut first_close = surrogate_at.unwrap_or(usize::MAX);
        let mut duplicate = false;
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'"' => i = self.string_end(i),
                b'{' => {
                    let object = self.span(i);
                    if object.e - 1 < first_close && self.has_raw_duplicate(object) {
                        first_close = object.e - 1;
                        duplicate = true;
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
        if duplicate {
            Some(err(RuleId::JsonrpcInvalid, "an object has the same key twice"))
        } else {
            surrogate_at.map(|_| err(RuleId::JsonrpcParseError, "an escaped surrogate without its pair is not Unicode"))
        }
    }

    /// Two keys of `object` with the same bytes? Keys are compared in blocks
    /// of 64 (sorted, then each later key looked up), one pass per block.
    #[inline(never)]
    fn has_raw_duplicate(&self, object: Span) -> bool {
        let raw = |k: &Span| &self.b[k.s..k.e];
        let mut block = [Span { s: 0, e: 0 }; 64];
        let mut done = 0;
        loop {
            let mut keys = self.entries(object).map(|(k, _)| k).skip(done);
            let mut n = 0;
            for k in keys.by_ref() {
                block[n] = k;
                n += 1;
                if n == block.len() {
                    break;
                }
            }
            let block = &mut block[..n];
            // Insertion sort: at most 64 keys, and far smaller code than `sort`.
            for i in 1..block.len() {
                let mut j = i;
                while j > 0 && raw(&block[j - 1]) > raw(&block[j]) {
                    block.swap(j - 1, j);
                    j -= 1;
                }
            }
            if block.windows(2).any(|w| raw(&w[0]) == raw(&w[1])) {
                return true;
            }
            if keys.any(|k| block.binary_search_by(|x| raw(x).cmp(raw(&k))).is_ok()) {
                return true;
            }
            if n < 64 {
                return false;
            }
            done += n;
        }
    }

    fn first(&self, v: Option<Span>) -> Option<u8> {
        v.map(|v| self.at(v.s))
    }

    fn object(&self, v: Option<Span>) -> Option<Span> {
        v.filter(|v| self.at(v.s) == b'{')
    }

    fn array(&self, v: Option<Span>) -> Option<Span> {
        v.filter(|v| self.at(v.s) == b'[')
    }

    fn string(&self, v: Option<Span>) -> Option<Span> {
        v.filter(|v| self.at(v.s) == b'"')
    }

    fn is(&self, v: Option<Span>, lit: &str) -> bool {
        self.string(v).is_some_and(|s| str_is(self.b, s, lit))
    }

    fn is_one_of(&self, v: Option<Span>, lits: &[&str]) -> bool {
        lits.iter().any(|l| self.is(v, l))
    }

    fn number(&self, v: Option<Span>) -> Option<Dec<'a>> {
        let v = v.filter(|v| matches!(self.at(v.s), b'-' | b'0'..=b'9'))?;
        Some(Dec::parse(&self.b[v.s..v.e]))
    }

    /// `Prim::is_integer`.
    fn is_integer(&self, v: Option<Span>) -> bool {
        self.number(v).is_some_and(|n| n.is_integer())
    }

    /// `Prim::as_u64().is_some()`.
    fn is_u64(&self, v: Option<Span>) -> bool {
        match self.number(v).map(|n| n.num()) {
            Some(Num::Int(i)) => i >= 0,
            Some(Num::UInt(_)) => true,
            _ => false,
        }
    }

    /// `Prim::Array` of strings only.
    fn is_string_array(&self, v: Option<Span>) -> bool {
        self.array(v).is_some_and(|a| self.elements(a).all(|e| self.string(Some(e)).is_some()))
    }

    fn unescape(&self, s: Span) -> Unescape<'a> {
        Unescape::new(self.b, s)
    }

    fn same_string(&self, a: Span, b: Span) -> bool {
        self.unescape(a).eq(self.unescape(b))
    }

    fn entries(&self, object: Span) -> Entries<'_, 'a> {
        Entries { d: self, i: object.s, end: object.e }
    }

    fn elements(&self, array: Span) -> Elements<'_, 'a> {
        Elements { d: self, i: array.s, end: array.e }
    }

    /// A view's field: the value under `name` in an object.
    fn get(&self, object: Option<Span>, name: &str) -> Option<Span> {
        let object = self.object(object)?;
        self.entries(object).find(|(k, _)| str_is(self.b, *k, name)).map(|(_, v)| v)
    }
}

/// The entries of an object, as (key, value).
struct Entries<'d, 'a> {
    d: &'d Doc<'a>,
    i: usize,
    end: usize,
}

impl Iterator for Entries<'_, '_> {
    type Item = (Span, Span);

    fn next(&mut self) -> Option<(Span, Span)> {
        let d = self.d;
        let mut i = d.ws(self.i);
        if i >= self.end {
            return None;
        }
        if matches!(d.at(i), b'{' | b',') {
            i = d.ws(i + 1);
        }
        if d.at(i) != b'"' {
            self.i = self.end;
            return None;
        }
        let key = d.span(i);
        let colon = d.ws(key.e);
        let value = d.span(d.ws(colon + 1));
        self.i = value.e;
        Some((key, value))
    }
}

/// The elements of an array.
struct Elements<'d, 'a> {
    d: &'d Doc<'a>,
    i: usize,
    end: usize,
}

impl Iterator for Elements<'_, '_> {
    type Item = Span;

    fn next(&mut self) -> Option<Span> {
        let d = self.d;
        let mut i = d.ws(self.i);
        if i >= self.end {
            return None;
        }
        if matches!(d.at(i), b'[' | b',') {
            i = d.ws(i + 1);
        }
        if d.at(i) == b']' {
            self.i = self.end;
            return None;
        }
        let v = d.span(i);
        self.i = v.e;
        Some(v)
    }
}

/// The keys of one bounded map, kept for duplicate and membership checks.
struct Keys {
    keys: [Span; MAX_MAP_ENTRIES],
    len: usize,
}

impl Keys {
    fn new() -> Keys {
        Keys { keys: [Span { s: 0, e: 0 }; MAX_MAP_ENTRIES], len: 0 }
    }
}

fn err(rule: RuleId, message: &'static str) -> Error {
    Error::new(rule, message)
}

/// An id to materialise once every rule has passed.
#[derive(Clone, Copy)]
enum IdAt {
    None,
    Null,
    Int(i64),
    UInt(u64),
    Str(Span),
}

struct Rules<'a> {
    d: Doc<'a>,
    protocol: Protocol,
    limits: &'a Limits,
}

type Res<T = ()> = Result<T, Error>;

impl Rules<'_> {
    fn env(&self, env: Envelope, name: &str) -> Option<Span> {
        self.d.get(Some(env.v), name)
    }

    fn classify(&self, env: Envelope) -> Res<Classified> {
        let d = &self.d;
        if !d.is(self.env(env, "jsonrpc"), "2.0") {
            return Err(err(RuleId::JsonrpcInvalid, "\"jsonrpc\" must be \"2.0\""));
        }
        let method = self.env(env, "method");
        let result = self.env(env, "result");
        let error = self.env(env, "error");
        let draft_fields = self.env(env, "input_requests").is_some() || self.env(env, "request_state").is_some();
        let draft = self.protocol.rules().draft_envelope;
        match (method.is_some(), result.is_none(), error.is_none()) {
            (true, true, true) => self.call(env, method),
            (true, _, _) => Err(err(RuleId::JsonrpcInvalid, "a request carries no result or error")),
            (false, false, false) => Err(err(RuleId::JsonrpcInvalid, "a response carries result or error, not both")),
            (false, _, _) if draft && draft_fields && !(result.is_none() && error.is_none()) => {
                Err(err(RuleId::JsonrpcInvalid, "a draft incomplete response carries no result or error"))
            }
            (false, true, false) => self.error_response(env, error),
            (false, false, true) => self.result(env, result),
            (false, true, true) if draft && draft_fields => self.draft_incomplete(env),
            (false, true, true) => Err(err(RuleId::JsonrpcInvalid, "neither a request nor a response")),
        }
    }

    fn call(&self, env: Envelope, method: Option<Span>) -> Res<Classified> {
        let d = &self.d;
        let Some(method) = d.string(method) else {
            return Err(err(RuleId::JsonrpcInvalid, "\"method\" must be a string"));
        };
        let id = match self.env(env, "id") {
            None => IdAt::None,
            id => self.request_id(id)?,
        };
        match self.env(env, "params") {
            None => {}
            Some(p) if d.at(p.s) == b'{' => {
                let p = Some(p);
                if let Some(responses) = d.get(p, "inputResponses") {
                    self.responses(responses, false)?;
                }
                self.state(d.get(p, "requestState"))?;
            }
            Some(_) => return Err(err(RuleId::JsonrpcInvalid, "\"params\" must be an object")),
        }
        if self.protocol.rules().draft_envelope {
            if let Some(responses) = self.env(env, "input_responses") {
                self.responses(responses, true)?;
            }
            self.state(self.env(env, "request_state"))?;
        }
        let kind = if matches!(id, IdAt::None) { Kind::Notification } else { Kind::Request };
        let mut text = heapless::String::new();
        if !self.copy(method, &mut text) {
            return Err(err(RuleId::LimitExceeded, "method over the bare capacity MAX_METHOD_BYTES"));
        }
        Ok(Classified { kind, id: self.id(id)?, method: Some(text), result_type: None, result_type_present: false })
    }

    /// Unescapes a string into `out`; `false` when it does not fit.
    fn copy<const N: usize>(&self, s: Span, out: &mut heapless::String<N>) -> bool {
        let mut buf = [0u8; N];
        let mut n = 0;
        for byte in self.d.unescape(s) {
            match buf.get_mut(n) {
                Some(slot) => *slot = byte,
                None => return false,
            }
            n += 1;
        }
        // Validated strings are UTF-8.
        core::str::from_utf8(&buf[..n]).is_ok_and(|text| out.push_str(text).is_ok())
    }

    fn request_id(&self, id: Option<Span>) -> Res<IdAt> {
        let d = &self.d;
        if let Some(s) = d.string(id) {
            return Ok(IdAt::Str(s));
        }
        match d.number(id).map(|n| n.num()) {
            Some(Num::Int(i)) => Ok(IdAt::Int(i)),
            Some(Num::UInt(u)) => Ok(IdAt::UInt(u)),
            _ => Err(err(RuleId::JsonrpcInvalid, "\"id\" must be a string or an integer")),
        }
    }

    fn id(&self, id: IdAt) -> Res<BareId> {
        Ok(match id {
            IdAt::None => BareId::None,
            IdAt::Null => BareId::Null,
            IdAt::Int(i) => BareId::Int(i),
            IdAt::UInt(u) => BareId::UInt(u),
            IdAt::Str(s) => {
                let mut text = heapless::String::new();
                if !self.copy(s, &mut text) {
                    return Err(err(RuleId::LimitExceeded, "string id over the bare capacity MAX_ID_BYTES"));
                }
                BareId::Str(text)
            }
        })
    }

    /// `requestState`: absent, or a string within the bound.
    fn state(&self, state: Option<Span>) -> Res {
        match (state, self.d.string(state)) {
            (None, _) => Ok(()),
            (_, Some(s)) if self.d.unescape(s).count() > self.limits.max_request_state_bytes => {
                Err(err(RuleId::StateTooLarge, "requestState over the configured byte bound"))
            }
            (_, Some(_)) => Ok(()),
            _ => Err(err(RuleId::RequestStateInvalid, "requestState must be a string")),
        }
    }

    /// Collects a map's keys into `keys`. More than `limit` entries (the
    /// configured bound, as the allocating path checks it) or more than `cap`
    /// (this path's capacity) is `limit-exceeded`; then a key twice (after
    /// unescaping) is `jsonrpc-invalid`.
    fn fill_keys(&self, map: Span, limit: usize, cap: usize, keys: &mut Keys) -> Res {
        let cap = cap.min(MAX_MAP_ENTRIES);
        let mut n = 0usize;
        for (k, _) in self.d.entries(map) {
            if let Some(slot) = keys.keys.get_mut(n).filter(|_| n < cap) {
                *slot = k;
            }
            n += 1;
        }
        if n > limit {
            return Err(err(RuleId::LimitExceeded, "a map over the configured bound (Limits::max_input_requests)"));
        }
        if n > cap {
            return Err(err(
                RuleId::LimitExceeded,
                "a map over the bare capacity (MAX_INPUT_REQUESTS or MAX_MAP_ENTRIES)",
            ));
        }
        keys.len = n;
        let keys = &keys.keys[..n];
        for (i, a) in keys.iter().enumerate() {
            if keys[i + 1..].iter().any(|b| self.d.same_string(*a, *b)) {
                return Err(err(RuleId::JsonrpcInvalid, "an object has the same key twice"));
            }
        }
        Ok(())
    }

    /// [`Self::fill_keys`] in a frame of its own (the keys are not kept).
    #[inline(never)]
    fn unique_keys(&self, map: Span, limit: usize, cap: usize) -> Res {
        self.fill_keys(map, limit, cap, &mut Keys::new())
    }

    /// `inputResponses` (or the draft's wrapped `input_responses`).
    fn responses(&self, responses: Span, wrapped: bool) -> Res {
        let d = &self.d;
        let Some(map) = d.object(Some(responses)) else {
            return Err(err(RuleId::InputResponsesMalformed, "inputResponses must be an object"));
        };
        self.unique_keys(map, self.limits.max_input_requests, MAX_MAP_ENTRIES)?;
        let fits = |v: Span| match wrapped {
            false => d.object(Some(v)).is_some(),
            true => d.object(d.get(Some(v), "result")).is_some(),
        };
        if d.entries(map).all(|(_, v)| fits(v)) {
            Ok(())
        } else {
            Err(err(RuleId::InputResponsesMalformed, "each input response must be an object"))
        }
    }

    fn error_response(&self, env: Envelope, error: Option<Span>) -> Res<Classified> {
        let d = &self.d;
        if d.object(error).is_none() {
            return Err(err(RuleId::JsonrpcInvalid, "\"error\" must be an object"));
        }
        if !d.is_integer(d.get(error, "code")) || d.string(d.get(error, "message")).is_none() {
            return Err(err(RuleId::JsonrpcInvalid, "\"error\" needs an integer code and a string message"));
        }
        let id = match self.env(env, "id") {
            None => IdAt::None,
            Some(v) if d.at(v.s) == b'n' => IdAt::Null,
            id => self.request_id(id)?,
        };
        Ok(Classified {
            kind: Kind::Error,
            id: self.id(id)?,
            method: None,
            result_type: None,
            result_type_present: false,
        })
    }

    fn result(&self, env: Envelope, result: Option<Span>) -> Res<Classified> {
        if self.d.object(result).is_none() {
            return Err(err(RuleId::JsonrpcInvalid, "\"result\" must be an object"));
        }
        let result_type = self.result_type(result)?;
        let kind = if result_type == ResultType::InputRequired { Kind::InputRequired } else { Kind::Result };
        let present =
            self.d.get(result, "resultType").is_some() && self.protocol.rules().result_type != ResultTypeRule::Ignored;
        let id = self.request_id(self.env(env, "id"))?;
        Ok(Classified {
            kind,
            id: self.id(id)?,
            method: None,
            result_type: Some(result_type),
            result_type_present: present,
        })
    }

    fn result_type(&self, result: Option<Span>) -> Res<ResultType> {
        let (d, rules) = (&self.d, self.protocol.rules());
        if rules.result_type == ResultTypeRule::Ignored {
            return Ok(ResultType::Complete);
        }
        let t = d.get(result, "resultType");
        if t.is_none() || d.is(t, "complete") {
            Ok(ResultType::Complete)
        } else if d.is(t, "task") && rules.task_result_type {
            Ok(ResultType::Task)
        } else if d.is(t, "input_required") {
            self.input_required(d.get(result, "inputRequests"), d.get(result, "requestState"))?;
            Ok(ResultType::InputRequired)
        } else {
            Err(err(RuleId::ResultTypeUnknown, "resultType is not known in this protocol"))
        }
    }

    fn draft_incomplete(&self, env: Envelope) -> Res<Classified> {
        self.input_required(self.env(env, "input_requests"), self.env(env, "request_state"))?;
        let id = self.request_id(self.env(env, "id"))?;
        Ok(Classified {
            kind: Kind::InputRequired,
            id: self.id(id)?,
            method: None,
            result_type: Some(ResultType::InputRequired),
            result_type_present: false,
        })
    }

    fn input_required(&self, requests: Option<Span>, state: Option<Span>) -> Res {
        if let Some(requests) = requests {
            self.requests(requests)?;
        }
        self.state(state)?;
        if self.protocol.rules().input_required_needs_content && requests.is_none() && state.is_none() {
            return Err(err(RuleId::InputRequiredEmpty, "input_required needs inputRequests or requestState"));
        }
        Ok(())
    }

    fn requests(&self, requests: Span) -> Res {
        let d = &self.d;
        let Some(map) = d.object(Some(requests)) else {
            return Err(err(RuleId::InputRequestInvalid, "inputRequests must be an object"));
        };
        self.unique_keys(map, self.limits.max_input_requests, MAX_INPUT_REQUESTS)?;
        d.entries(map).try_for_each(|(_, request)| match d.object(Some(request)) {
            Some(request) => self.request(Some(request)),
            None => Err(err(RuleId::InputRequestInvalid, "an input request must be an object")),
        })
    }

    fn request(&self, r: Option<Span>) -> Res {
        let d = &self.d;
        let invalid = |m| Err(err(RuleId::InputRequestInvalid, m));
        if d.get(r, "jsonrpc").is_some() || d.get(r, "id").is_some() {
            return invalid("an input request must not carry jsonrpc or id");
        }
        let method = d.get(r, "method");
        if d.string(method).is_none() {
            return invalid("an input request's method must be a string");
        }
        let params = d.get(r, "params");
        let roots = d.is(method, "roots/list");
        if d.object(params).is_none() {
            return if params.is_none() && roots {
                Ok(())
            } else {
                invalid("an input request's params must be an object")
            };
        }
        if d.is(method, "elicitation/create") {
            self.elicitation(params)
        } else if d.is(method, "sampling/createMessage") {
            self.sampling(params)
        } else if roots {
            Ok(())
        } else {
            invalid("not an input request method")
        }
    }

    fn elicitation(&self, p: Option<Span>) -> Res {
        let d = &self.d;
        let invalid = |m| Err(err(RuleId::InputRequestInvalid, m));
        if d.string(d.get(p, "message")).is_none() {
            return invalid("elicitation needs a string message");
        }
        let mode = d.get(p, "mode");
        if mode.is_none() || d.is(mode, "form") {
            match d.object(d.get(p, "requestedSchema")) {
                Some(schema) => self.schema(Some(schema)),
                None => invalid("form elicitation needs a requestedSchema object"),
            }
        } else if d.is(mode, "url") {
            if d.string(d.get(p, "url")).is_none() {
                return invalid("url elicitation needs a string url");
            }
            let id = d.get(p, "elicitationId");
            match (self.protocol.rules().elicitation_id, id) {
                (ElicitationIdRule::Forbidden, None) => Ok(()),
                (ElicitationIdRule::Forbidden, Some(_)) => {
                    invalid("url elicitation has no elicitationId in this protocol")
                }
                (ElicitationIdRule::Required, id) if d.string(id).is_some() => Ok(()),
                (ElicitationIdRule::Required, _) => {
                    invalid("url elicitation needs a string elicitationId in this protocol")
                }
            }
        } else {
            invalid("elicitation mode must be \"form\" or \"url\"")
        }
    }

    fn schema(&self, schema: Option<Span>) -> Res {
        let d = &self.d;
        let invalid = |m| Err(err(RuleId::InputRequestInvalid, m));
        if !d.is(d.get(schema, "type"), "object") {
            return invalid("requestedSchema.type must be \"object\"");
        }
        let dollar = d.get(schema, "$schema");
        if dollar.is_some() && d.string(dollar).is_none() {
            return invalid("requestedSchema.$schema must be a string");
        }
        let Some(props) = d.object(d.get(schema, "properties")) else {
            return invalid("requestedSchema.properties must be an object");
        };
        let mut keys = Keys::new();
        self.fill_keys(props, usize::MAX, MAX_MAP_ENTRIES, &mut keys)?;
        for (_, prop) in d.entries(props) {
            if d.object(Some(prop)).is_none() || !self.property(Some(prop)) {
                return invalid("a requestedSchema property is not a valid primitive schema");
            }
        }
        let required = d.get(schema, "required");
        if required.is_none() {
            return Ok(());
        }
        let Some(names) = d.array(required) else {
            return invalid("requestedSchema.required must be an array");
        };
        let names_property = |n: Span| keys.keys[..keys.len].iter().any(|k| d.same_string(*k, n));
        if d.elements(names).all(|n| d.string(Some(n)).is_some_and(names_property)) {
            Ok(())
        } else {
            invalid("requestedSchema.required must name properties")
        }
    }

    fn property(&self, p: Option<Span>) -> bool {
        let d = &self.d;
        let optional = |name: &str, ok: &dyn Fn(Option<Span>) -> bool| {
            let v = d.get(p, name);
            v.is_none() || ok(v)
        };
        if d.get(p, "properties").is_some() {
            return false;
        }
        let kind = d.get(p, "type");
        if d.is(kind, "string") {
            optional("minLength", &|v| d.is_u64(v))
                && optional("maxLength", &|v| d.is_u64(v))
                && optional("format", &|v| d.is_one_of(v, &["date", "date-time", "email", "uri"]))
                && optional("enum", &|v| d.is_string_array(v))
                && optional("enumNames", &|v| d.is_string_array(v))
                && optional("oneOf", &|v| self.titled_consts(v))
        } else if d.is_one_of(kind, &["number", "integer"]) {
            optional("minimum", &|v| d.number(v).is_some()) && optional("maximum", &|v| d.number(v).is_some())
        } else if d.is(kind, "boolean") {
            true
        } else if d.is(kind, "array") {
            let items = d.object(d.get(p, "items"));
            items.is_some()
                && optional("minItems", &|v| d.is_u64(v))
                && optional("maxItems", &|v| d.is_u64(v))
                && ((d.is(d.get(items, "type"), "string") && d.is_string_array(d.get(items, "enum")))
                    || self.titled_consts(d.get(items, "anyOf")))
        } else {
            false
        }
    }

    /// An array of `{const, title}` strings.
    fn titled_consts(&self, v: Option<Span>) -> bool {
        let d = &self.d;
        d.array(v).is_some_and(|a| {
            d.elements(a).all(|o| {
                let o = d.object(Some(o));
                o.is_some() && d.string(d.get(o, "const")).is_some() && d.string(d.get(o, "title")).is_some()
            })
        })
    }

    fn sampling(&self, p: Option<Span>) -> Res {
        let d = &self.d;
        let invalid = |m| Err(err(RuleId::InputRequestInvalid, m));
        let Some(messages) = d.array(d.get(p, "messages")) else {
            return invalid("sampling needs a messages array");
        };
        let message_ok = |m: Span| {
            let m = d.object(Some(m));
            m.is_some()
                && d.is_one_of(d.get(m, "role"), &["user", "assistant"])
                && matches!(d.first(d.get(m, "content")), Some(b'{' | b'['))
        };
        if !d.elements(messages).all(message_ok) {
            return invalid("each sampling message needs a role and content");
        }
        if !d.is_integer(d.get(p, "maxTokens")) {
            return invalid("sampling needs an integer maxTokens");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_int(s: &str) -> bool {
        Dec::parse(s.as_bytes()).is_integer()
    }

    #[test]
    fn big_constants() {
        let max = Big::<36>::f64_overflow();
        assert_eq!(max.num_digits(), 309);
        assert!(max.digits().take(20).eq([1, 7, 9, 7, 6, 9, 3, 1, 3, 4, 8, 6, 2, 3, 1, 5, 8, 0, 7, 9].into_iter()));
        assert_eq!(max.digits().count(), 309);
        let five = Big::<84>::pow5(1075);
        assert_eq!(five.num_digits(), 752);
        assert!(Big::<5>::pow5(54).digits().eq(Big::<84>::pow5(54).digits()));
        assert!(five.digits().take(6).eq([2, 4, 7, 0, 3, 2].into_iter()));
        assert!(pow2_neg(3).eq([1, 2, 5].into_iter()));
        assert!(one_minus_pow2(3).eq([8, 7, 5].into_iter()));
    }

    #[test]
    fn integers_and_ranges() {
        assert!(is_int("1.0") && is_int("1e3") && is_int("-0") && is_int("0.0") && is_int("1e-400"));
        assert!(is_int("1.0000000000000001") && is_int("0.99999999999999999"));
        assert!(!is_int("1.5") && !is_int("0.5") && !is_int("1e-300") && !is_int("1e19"));
        assert!(is_int("9223372036854776832.0") && !is_int("9223372036854776833.0"));
        assert!(Dec::parse(b"1e309").out_of_range() && !Dec::parse(b"1e308").out_of_range());
        assert!(!Dec::parse(b"1e-99999999999").out_of_range() && Dec::parse(b"1e99999999999").out_of_range());
        assert!(!Dec::parse(b"0e99999999999").out_of_range());
    }
}
