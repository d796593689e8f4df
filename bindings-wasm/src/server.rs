//! The server side: `respond` (answer with `input_required`) and `resume`
//! (read a retry).

use crate::convert;
use crate::errors::{OrThrow, Result};
use serde_json::json;
use wasm_bindgen::prelude::*;

/// `server::respond`: the `input_required` response to `request`, as JSON
/// text. `input_requests` and `request_state` are JSON text, or
/// `undefined`/`null` (absent).
#[wasm_bindgen(js_name = "respond")]
pub fn respond(
    request: &JsValue,
    input_requests: &JsValue,
    request_state: &JsValue,
    protocol: Option<String>,
    limits: Option<String>,
) -> Result<String> {
    let (protocol, limits) = (convert::protocol(protocol.as_deref())?, convert::limits_text(limits)?);
    let request = convert::parse_js(request, &limits)?;
    let requests = convert::parse_opt(input_requests, &limits)?;
    let state = convert::parse_opt(request_state, &limits)?;
    let response = mrtr::server::respond(&request, requests.as_ref(), state.as_ref(), protocol, &limits).or_throw()?;
    Ok(convert::text(&response))
}

/// `server::resume`: what `request` carries against what the server `needs`
/// (both JSON text), as JSON text `{responses, missing, ignored, requestState}`.
#[wasm_bindgen(js_name = "resume")]
pub fn resume(request: &JsValue, needs: &JsValue, protocol: Option<String>, limits: Option<String>) -> Result<String> {
    let (protocol, limits) = (convert::protocol(protocol.as_deref())?, convert::limits_text(limits)?);
    let request = convert::parse_js(request, &limits)?;
    let needs = convert::parse_js(needs, &limits)?;
    let r = mrtr::server::resume(&request, &needs, protocol, &limits).or_throw()?;
    Ok(convert::text(&json!({
        "responses": r.responses,
        "missing": r.missing,
        "ignored": r.ignored,
        "requestState": r.request_state,
    })))
}
