//! The server side: `respond` (answer with `input_required`) and `resume`
//! (read a retry).

use crate::convert::{self, LimitsInput};
use crate::errors::{guard, OrThrow, Result};
use napi::bindgen_prelude::Either;
use napi_derive::napi;
use serde_json::json;

/// `server::respond`: the `input_required` response to `request`, as JSON
/// text. `input_requests` and `request_state` are JSON text or `undefined`
/// (absent).
#[napi(js_name = "respond")]
pub fn respond(
    request: Either<String, &[u8]>,
    input_requests: Option<Either<String, &[u8]>>,
    request_state: Option<Either<String, &[u8]>>,
    protocol: Option<String>,
    limits: Option<LimitsInput>,
) -> Result<String> {
    guard(|| {
        let (protocol, limits) = (convert::protocol(protocol.as_deref())?, convert::limits(limits));
        let request = convert::parse(convert::bytes(&request), &limits)?;
        let requests = convert::parse_opt(input_requests.as_ref(), &limits)?.filter(|v| !v.is_null());
        let state = convert::parse_opt(request_state.as_ref(), &limits)?.filter(|v| !v.is_null());
        let response =
            mrtr::server::respond(&request, requests.as_ref(), state.as_ref(), protocol, &limits).or_throw()?;
        Ok(convert::text(&response))
    })
}

/// `server::resume`: what `request` carries against what the server `needs`,
/// as JSON text `{responses, missing, ignored, requestState}`.
#[napi(js_name = "resume")]
pub fn resume(
    request: Either<String, &[u8]>,
    needs: Either<String, &[u8]>,
    protocol: Option<String>,
    limits: Option<LimitsInput>,
) -> Result<String> {
    guard(|| {
        let (protocol, limits) = (convert::protocol(protocol.as_deref())?, convert::limits(limits));
        let request = convert::parse(convert::bytes(&request), &limits)?;
        let needs = convert::parse(convert::bytes(&needs), &limits)?;
        let r = mrtr::server::resume(&request, &needs, protocol, &limits).or_throw()?;
        Ok(convert::text(&json!({
            "responses": r.responses,
            "missing": r.missing,
            "ignored": r.ignored,
            "requestState": r.request_state,
        })))
    })
}
