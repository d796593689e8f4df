//! `classify`: one raw message, validated (the hot path).
//!
//! The outcome crosses as one small array of primitives, `[code, method, id]`,
//! which the wrapper turns into the `Classified` object: building a JS object
//! field by field through Node-API costs more than the core's validation of a
//! small message.

use crate::convert::{self, LimitsInput};
use crate::errors::{guard, OrThrow, Result};
use mrtr::{Id, Kind, ResultType};
use napi::bindgen_prelude::{Either, Either3, Null};
use napi_derive::napi;

/// Every `Kind`, in the order of the codes `classify` returns (bits 0–2).
pub const KINDS: [Kind; 5] = [Kind::Request, Kind::Notification, Kind::Result, Kind::InputRequired, Kind::Error];

/// Every `ResultType` and its wire name, in the order of the codes `classify`
/// returns (bits 3–4, 1-based; 0 is none).
pub const RESULT_TYPES: [(ResultType, &str); 3] =
    [(ResultType::Complete, "complete"), (ResultType::InputRequired, "input_required"), (ResultType::Task, "task")];

/// What `classify` found: `[code, method, id]`. `code` is the index of the
/// kind in [`KINDS`] (bits 0–2), 1 + the index of the result type in
/// [`RESULT_TYPES`] or 0 (bits 3–4), and whether `resultType` was on the wire
/// (bit 5); `method` and `id` are `null` when absent.
pub type Outcome = (u32, Either<String, Null>, Either3<String, f64, Null>);

/// Classifies and validates one raw message (`text`: string or bytes) under
/// `protocol`.
#[napi(js_name = "classify")]
pub fn classify(text: Either<String, &[u8]>, protocol: Option<String>, limits: Option<LimitsInput>) -> Result<Outcome> {
    guard(|| {
        let (protocol, limits) = (convert::protocol(protocol.as_deref())?, convert::limits(limits));
        let c = mrtr::classify(convert::bytes(&text), protocol, &limits).or_throw()?;
        let kind = KINDS.iter().position(|k| *k == c.kind).unwrap_or_default() as u32;
        let result_type =
            c.result_type.and_then(|t| RESULT_TYPES.iter().position(|(r, _)| *r == t)).map_or(0, |i| i + 1);
        let code = kind | (result_type as u32) << 3 | u32::from(c.result_type_present) << 5;
        let id = match c.id {
            None | Some(Id::Null) => Either3::C(Null),
            Some(Id::Int(i)) => Either3::B(i as f64),
            Some(Id::UInt(u)) => Either3::B(u as f64),
            Some(Id::Str(s)) => Either3::A(s.into_owned()),
        };
        Ok((code, c.method.map_or(Either::B(Null), |m| Either::A(m.into_owned())), id))
    })
}
