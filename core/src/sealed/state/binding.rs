//! What a token is bound to, checked when it is opened: the principal and
//! the request.
//!
//! # What is bound
//!
//! - The **subject**: the authenticated principal, or [`Subject::Anonymous`],
//!   an explicit choice that never equals any principal (an empty principal
//!   is refused, so a missing auth context cannot bind as "anonymous" by
//!   accident).
//! - The **request**: the protocol, the method, the target (the param the
//!   method acts on, chosen by method: [`target_field`]) and a SHA-256 digest
//!   of **every param** except `inputResponses`, `requestState` and `_meta`
//!   (the retry's carriers and metadata, which change between rounds by
//!   design). Whatever else a handler can read (`arguments`, `name`, `uri`,
//!   `taskId`, a `task` request, params a later version adds) is bound.
//!   Numbers are digested as their exact decimal value ([`canonical`](super::canonical)).
//!
//! The handler must read the same request that was bound: a host that binds
//! a `serde_json::Value` and runs its handler on that value is exact for it;
//! hosts that hold raw text (every binding does) digest the text
//! ([`Binding::with_exact_digest`]), so that a number no `f64` holds exactly
//! still binds apart.

use super::canonical;
use crate::{
    base::error::{err, Result},
    base::protocol::Protocol,
};
use alloc::{collections::BTreeMap, string::String};
use serde_json::{value::RawValue, Value};
use sha2::{Digest, Sha256};

/// The params a retry changes by design, so the binding leaves them out
/// ([`crate::protocol::RETRY_FREE_PARAMS`]: the same list as the retry
/// comparison, so that a retry the checker accepts opens its state).
pub const UNBOUND_PARAMS: [&str; 3] = crate::base::protocol::RETRY_FREE_PARAMS;

/// Who a token belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject<'a> {
    /// An authenticated principal: a non-empty id from the host's auth layer.
    Principal(&'a str),
    /// No principal, chosen explicitly: such a token opens for any anonymous
    /// caller, so it must carry nothing user-specific.
    Anonymous,
}

impl<'a> Subject<'a> {
    /// The principal `id`; an empty one is refused (`usage-invalid-argument`):
    /// use [`Subject::Anonymous`] to mean "nobody".
    pub fn principal(id: &'a str) -> Result<Subject<'a>> {
        if id.is_empty() {
            return Err(err!(UsageInvalidArgument, "a principal is non-empty: bind Subject::Anonymous explicitly"));
        }
        Ok(Subject::Principal(id))
    }

    /// The parts of the subject tag's input.
    pub(super) fn tag_parts(&self) -> [&[u8]; 2] {
        match self {
            Subject::Principal(id) => [b"subject", id.as_bytes()],
            Subject::Anonymous => [b"anonymous", b""],
        }
    }
}

/// What a token is bound to: checked when it is opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding<'a> {
    /// The authenticated principal, or the explicit anonymous one.
    pub subject: Subject<'a>,
    /// The protocol of the conversation.
    pub protocol: Protocol,
    /// The request's method.
    pub method: &'a str,
    /// What the method acts on: the tool or prompt name, the resource URI, the task id.
    pub target: &'a str,
    /// SHA-256 of the canonical params (see the module doc: every param but three).
    pub params_digest: [u8; 32],
}

impl<'a> Binding<'a> {
    /// The binding of `request` for `subject`.
    ///
    /// The target is chosen by method ([`target_field`]), never by whichever
    /// field is present. A method that carries no sealed state is refused
    /// (`input-required-method-not-allowed`), a missing or non-string target
    /// too (`jsonrpc-invalid`): binding it to the empty string would let its
    /// state open for any other such request.
    pub fn for_request(request: &'a Value, subject: Subject<'a>, protocol: Protocol) -> Result<Binding<'a>> {
        let params_digest = params_digest(&request["params"]);
        Ok(Binding { params_digest, ..Self::undigested(request, subject, protocol)? })
    }

    /// [`Binding::for_request`] with the params digested from `request_text`,
    /// the raw JSON text `request` was parsed from: exact for every number as
    /// written, and the params digested once (the same as
    /// `for_request(…)?.with_exact_digest(request_text)`, without the digest
    /// of the parsed params it replaces).
    pub fn for_request_text(
        request: &'a Value,
        request_text: &[u8],
        subject: Subject<'a>,
        protocol: Protocol,
    ) -> Result<Binding<'a>> {
        Self::undigested(request, subject, protocol)?.with_exact_digest(request_text)
    }

    /// [`Binding::for_request`] with the digest a caller computed for this
    /// very request before (a replayed tool's later rounds): not read again.
    pub fn for_request_digested(
        request: &'a Value,
        subject: Subject<'a>,
        protocol: Protocol,
        params_digest: [u8; 32],
    ) -> Result<Binding<'a>> {
        Ok(Binding { params_digest, ..Self::undigested(request, subject, protocol)? })
    }

    /// The binding's checks and fields but its digest (zero: every
    /// constructor sets it).
    fn undigested(request: &'a Value, subject: Subject<'a>, protocol: Protocol) -> Result<Binding<'a>> {
        let method =
            request["method"].as_str().ok_or_else(|| err!(JsonrpcInvalid, "a request's method is a string"))?;
        let field = target_field(method)
            .ok_or_else(|| err!(InputRequiredMethodNotAllowed, "{method} carries no sealed requestState"))?;
        let params = &request["params"];
        let target = params
            .get(field)
            .and_then(Value::as_str)
            .ok_or_else(|| err!(JsonrpcInvalid, "{method} names its target in params.{field}, a string"))?;
        let subject = match subject {
            Subject::Principal(id) => Subject::principal(id)?,
            anonymous => anonymous,
        };
        Ok(Binding { subject, protocol, method, target, params_digest: [0; 32] })
    }

    /// The same binding with the params digested from `request_text`, the raw
    /// JSON text `request` was parsed from: exact for every number as written.
    pub fn with_exact_digest(mut self, request_text: &[u8]) -> Result<Binding<'a>> {
        self.params_digest = params_digest_text(request_text)?;
        Ok(self)
    }
}

/// The param of a request that names its target, by method: `name` for
/// `tools/call` and `prompts/get`, `uri` for `resources/read`, `taskId` for
/// the task methods; `None` for a method that never carries sealed state.
pub fn target_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        m if m.starts_with("tasks/") => Some("taskId"),
        _ => None,
    }
}

/// SHA-256 of the canonical JSON of a request's `params` without
/// [`UNBOUND_PARAMS`] (absent or `null` params read as `{}`).
pub fn params_digest(params: &Value) -> [u8; 32] {
    let mut hasher = Sha256::new();
    match params {
        Value::Object(map) => {
            let bound = map.iter().filter(|(k, _)| !UNBOUND_PARAMS.contains(&k.as_str()));
            let bound: serde_json::Map<_, _> = bound.map(|(k, v)| (k.clone(), v.clone())).collect();
            canonical::write_value(&Value::Object(bound), &mut |b| hasher.update(b));
        }
        Value::Null => hasher.update(b"{}"),
        other => canonical::write_value(other, &mut |b| hasher.update(b)),
    }
    hasher.finalize().into()
}

/// [`params_digest`] of the request whose raw JSON text is `request_text`,
/// every number exact as written. The text is checked as [`crate::parse`]
/// checks a message (UTF-8, duplicate keys, depth), but against no byte or
/// entry bound: the caller applied its own [`Limits`](crate::Limits) when it
/// parsed the request.
pub fn params_digest_text(request_text: &[u8]) -> Result<[u8; 32]> {
    let request: BTreeMap<String, &RawValue> = raw_object(request_text)?;
    digest_raw_params(request.get("params").map(|p| p.get()))
}

/// [`params_digest`] of a params object given as JSON text (a hand-built
/// binding's), every number exact as written; read as
/// [`params_digest_text`] reads a request.
pub fn params_digest_json(params_text: &[u8]) -> Result<[u8; 32]> {
    crate::one_message::envelope::parse(params_text, &UNBOUNDED)?;
    let text = core::str::from_utf8(params_text).map_err(|_| err!(JsonrpcParseError, "JSON text is UTF-8"))?;
    digest_raw_params(Some(text))
}

/// The checks of [`crate::parse`] without its size bounds, which the caller
/// applied when it parsed the same text.
const UNBOUNDED: crate::base::limits::Limits = crate::base::limits::Limits {
    max_message_bytes: usize::MAX,
    max_input_requests: usize::MAX,
    max_request_state_bytes: usize::MAX,
    ..crate::base::limits::Limits::DEFAULT
};

fn raw_object(text: &[u8]) -> Result<BTreeMap<String, &RawValue>> {
    crate::one_message::envelope::parse(text, &UNBOUNDED)?;
    let text = core::str::from_utf8(text).map_err(|_| err!(JsonrpcParseError, "a message is UTF-8"))?;
    serde_json::from_str(text).map_err(|_| err!(JsonrpcInvalid, "a request is a JSON object"))
}

fn digest_raw_params(params: Option<&str>) -> Result<[u8; 32]> {
    let mut hasher = Sha256::new();
    match params.map(str::trim) {
        None | Some("null") => hasher.update(b"{}"),
        Some(params) => canonical::write_text(params, &UNBOUND_PARAMS, &mut |b| hasher.update(b))?,
    }
    Ok(hasher.finalize().into())
}

/// SHA-256 of the canonical JSON of any value: a hand-built binding's params,
/// or the question an answer is pinned to.
pub fn value_digest(value: &Value) -> [u8; 32] {
    let mut hasher = Sha256::new();
    canonical::write_value(value, &mut |b| hasher.update(b));
    hasher.finalize().into()
}
