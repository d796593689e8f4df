//! The C value types and their conversions to the core's: limits, the
//! classification struct and ids; the protocol, kind, result type,
//! area and algorithm numbers are the constants of `tables.rs`.

use crate::status::usage;
use crate::tables::{mrtr_kind, mrtr_protocol, mrtr_result_type};
use mrtr::{Error, Limits, Protocol};
use mrtr_facade::Options;

/// Bounds on what the core reads (see `mrtr::Limits`). Over a bound:
/// `MRTR_ERR_LIMIT_EXCEEDED` (or `MRTR_ERR_STATE_TOO_LARGE`). Every function
/// taking a `const mrtr_limits *` reads the defaults from NULL.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_limits {
    /// Bytes of one message, and of every JSON argument but a transcript. Default 16 MiB.
    pub max_message_bytes: usize,
    /// Nesting depth of arrays and objects. Default 128 (the parser never goes deeper than 128).
    pub max_depth: usize,
    /// Entries of one `inputRequests` or `inputResponses`. Default 1024.
    pub max_input_requests: usize,
    /// Bytes of one `requestState`. Default 64 KiB.
    pub max_request_state_bytes: usize,
}

impl From<Limits> for mrtr_limits {
    fn from(l: Limits) -> mrtr_limits {
        let Limits { max_message_bytes, max_depth, max_input_requests, max_request_state_bytes } = l;
        mrtr_limits { max_message_bytes, max_depth, max_input_requests, max_request_state_bytes }
    }
}

/// `*limits`, or the defaults when NULL.
///
/// # Safety
/// `limits` is NULL or points to a readable `mrtr_limits`.
pub(crate) unsafe fn limits(limits: *const mrtr_limits) -> Limits {
    // SAFETY: the caller promises NULL or a readable, initialised `mrtr_limits` (plain integers).
    unsafe { limits.as_ref() }.map_or(Limits::DEFAULT, |l| Limits {
        max_message_bytes: l.max_message_bytes,
        max_depth: l.max_depth,
        max_input_requests: l.max_input_requests,
        max_request_state_bytes: l.max_request_state_bytes,
    })
}

/// The core's protocol of a C protocol number.
pub(crate) fn protocol(p: mrtr_protocol) -> Result<Protocol, Error> {
    let found = usize::try_from(p).ok().and_then(|i| Protocol::ALL.get(i));
    found.copied().ok_or_else(|| usage(format!("no protocol has the number {p}")))
}

/// The façade's options of a call: the protocol, `*limits`, the round bound.
///
/// # Safety
/// As [`limits`].
pub(crate) unsafe fn options(p: mrtr_protocol, l: *const mrtr_limits, rounds: Option<u32>) -> Result<Options, Error> {
    // SAFETY: passed on from the caller.
    Ok(Options { protocol: protocol(p)?, limits: unsafe { limits(l) }, max_rounds: rounds, ..Options::default() })
}

/// Which field of `mrtr_classified` holds the id.
pub type mrtr_id_type = i32;
/// No id (a notification).
pub const MRTR_ID_NONE: mrtr_id_type = 0;
/// `null` (an error response).
pub const MRTR_ID_NULL: mrtr_id_type = 1;
/// An integer in `id_int`.
pub const MRTR_ID_INT: mrtr_id_type = 2;
/// An integer above `INT64_MAX` in `id_uint`.
pub const MRTR_ID_UINT: mrtr_id_type = 3;
/// A string: read it with `mrtr_classify_json`.
pub const MRTR_ID_STRING: mrtr_id_type = 4;

/// The outcome of `mrtr_classify`, without allocating.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct mrtr_classified {
    /// `MRTR_KIND_*`.
    pub kind: mrtr_kind,
    /// `MRTR_RESULT_TYPE_*`.
    pub result_type: mrtr_result_type,
    /// Whether `resultType` was on the wire (results only).
    pub result_type_present: bool,
    /// `MRTR_ID_*`.
    pub id_type: mrtr_id_type,
    /// The id when `id_type == MRTR_ID_INT`, else 0.
    pub id_int: i64,
    /// The id when `id_type == MRTR_ID_UINT`, else 0.
    pub id_uint: u64,
}

impl From<&mrtr::Classified<'_>> for mrtr_classified {
    fn from(c: &mrtr::Classified<'_>) -> mrtr_classified {
        use mrtr::Id;
        let (id_type, id_int, id_uint) = match c.id {
            None => (MRTR_ID_NONE, 0, 0),
            Some(Id::Null) => (MRTR_ID_NULL, 0, 0),
            Some(Id::Int(i)) => (MRTR_ID_INT, i, 0),
            Some(Id::UInt(u)) => (MRTR_ID_UINT, 0, u),
            Some(Id::Str(_)) => (MRTR_ID_STRING, 0, 0),
        };
        // The numbers of `tables.rs`: the core's stable discriminants (0: no result type).
        let kind = c.kind as mrtr_kind;
        let result_type = c.result_type.map_or(0, |t| t as mrtr_result_type);
        mrtr_classified { kind, result_type, result_type_present: c.result_type_present, id_type, id_int, id_uint }
    }
}
