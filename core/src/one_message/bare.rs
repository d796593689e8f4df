//! Classification without an allocator: [`classify`] for `no_std` targets
//! built without the `alloc` feature.
//!
//! [`classify`] is `mrtr::classify` with fixed-size outputs: the same strict
//! reader and the same rules (one engine), so it gives the **same rule id**
//! (and the same kind, id and method) for the same bytes, but for the fixed
//! capacities below. It allocates nothing: [`Classified`] holds the id and
//! method in [`heapless::String`]s.
//!
//! # Fixed capacities
//!
//! | constant | bounds | over it |
//! |---|---|---|
//! | [`MAX_ID_BYTES`] = 64 | bytes of a string `id` (unescaped) | `limit-exceeded` |
//! | [`MAX_METHOD_BYTES`] = 64 | bytes of `method` (unescaped) | `limit-exceeded` |
//! | [`MAX_NESTING`] = 1024 | nesting of arrays and objects (only reachable when [`Limits::max_depth`] is above it) | `limit-exceeded` |
//!
//! The id and method capacities are checked after every rule, so they hide
//! none; a capacity failure's message names the constant. The allocating path
//! has the nesting capacity too, and no other.
//!
//! Stack: the reader's bit stack of container kinds (128 bytes) and the keys
//! of the open objects it remembers (48 of them; a document with more is
//! checked again object by object, slower, never differently). No `f64` is
//! parsed and no float tables are linked: numbers are decided on their digits.
//!
//! Time: linear in the message, times the nesting depth (a field is found by
//! scanning its object).
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
    base::error::Error,
    base::limits::Limits,
    base::protocol::Protocol,
    base::rules::RuleId,
    read::json::{self, At, Doc, Fixed},
    read::validate::{self, Ident},
};

pub use crate::base::kind::{Kind, ResultType};
pub use crate::read::json::MAX_NESTING;

/// Bytes of a string `id` (after unescaping) that [`Classified`] can hold.
pub const MAX_ID_BYTES: usize = 64;
/// Bytes of a `method` (after unescaping) that [`Classified`] can hold.
pub const MAX_METHOD_BYTES: usize = 64;

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
    json::read(bytes, limits, &mut Fixed::default())?;
    let doc = Doc { b: bytes, ends: &[] };
    let v = validate::classify(doc.root(), protocol, limits)?;
    let over = |what| Error::new(RuleId::LimitExceeded, what);
    let method = match v.method {
        Some(m) => Some(copy(m).ok_or(over("method over the bare capacity MAX_METHOD_BYTES"))?),
        None => None,
    };
    let id = match v.id {
        None => BareId::None,
        Some(Ident::Null) => BareId::Null,
        Some(Ident::Int(i)) => BareId::Int(i),
        Some(Ident::UInt(u)) => BareId::UInt(u),
        Some(Ident::Str(s)) => BareId::Str(copy(s).ok_or(over("string id over the bare capacity MAX_ID_BYTES"))?),
    };
    Ok(Classified { kind: v.kind, id, method, result_type: v.result_type, result_type_present: v.result_type_present })
}

/// A string's unescaped text, if it fits `N` bytes.
fn copy<const N: usize>(s: At<'_>) -> Option<heapless::String<N>> {
    let mut buf = heapless::Vec::<u8, N>::new();
    for byte in s.unescaped() {
        buf.push(byte).ok()?;
    }
    heapless::String::from_utf8(buf).ok()
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
