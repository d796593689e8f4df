//! The client side: `retry`, `taskUpdate`, and the `Client` retry machine.

use crate::convert;
use crate::errors::{OrThrow, Result};
use mrtr::client::{ClientConfig, Event, Handle};
use serde_json::json;
use wasm_bindgen::prelude::*;

/// `client::retry`: the retry of `request` answering `result` with
/// `input_responses` under the new `id` (each JSON text), as JSON text.
#[wasm_bindgen(js_name = "retry")]
pub fn retry(
    request: &JsValue,
    result: &JsValue,
    input_responses: &JsValue,
    id: &JsValue,
    protocol: Option<String>,
    limits: Option<String>,
) -> Result<String> {
    let (protocol, limits) = (convert::protocol(protocol.as_deref())?, convert::limits_text(limits)?);
    let parse = |t: &JsValue| convert::parse_js(t, &limits);
    let (request, result, responses, id) = (parse(request)?, parse(result)?, parse(input_responses)?, parse(id)?);
    let retry = mrtr::client::retry(&request, &result, &responses, &id, protocol, &limits).or_throw()?;
    Ok(convert::text(&retry))
}

/// `client::task_update`: the `tasks/update` request answering an
/// `input_required` task (Tasks extension, `2026-07-28`), as JSON text.
#[wasm_bindgen(js_name = "taskUpdate")]
pub fn task_update(
    get_request: &JsValue,
    get_response: &JsValue,
    input_responses: &JsValue,
    id: &JsValue,
    limits: Option<String>,
) -> Result<String> {
    let limits = convert::limits_text(limits)?;
    let parse = |t: &JsValue| convert::parse_js(t, &limits);
    let (request, response) = (parse(get_request)?, parse(get_response)?);
    let (responses, id) = (parse(input_responses)?, parse(id)?);
    let update = mrtr::client::task_update(&request, &response, &responses, &id, &limits).or_throw()?;
    Ok(convert::text(&update))
}

/// The client's retry machine (sans-IO): `client::Client`.
#[wasm_bindgen(js_name = "NativeClient")]
pub struct Client {
    inner: mrtr::client::Client,
    limits: mrtr::Limits,
}

#[wasm_bindgen(js_class = "NativeClient")]
impl Client {
    /// A machine for `protocol`, `max_rounds` retries per request (default
    /// 10) and `limits` (JSON text).
    #[wasm_bindgen(constructor)]
    pub fn new(protocol: Option<String>, max_rounds: Option<u32>, limits: Option<String>) -> Result<Client> {
        let d = ClientConfig::default();
        let config = ClientConfig {
            protocol: convert::protocol(protocol.as_deref())?,
            max_rounds: max_rounds.unwrap_or(d.max_rounds),
            limits: convert::limits_text(limits)?,
        };
        Ok(Client { inner: mrtr::client::Client::new(config), limits: config.limits })
    }

    /// Starts `request` (JSON text); returns its handle.
    pub fn send(&mut self, request: &JsValue) -> Result<f64> {
        let request = convert::parse_js(request, &self.limits)?;
        Ok(self.inner.send(request).or_throw()?.0 as f64)
    }

    /// Takes a response message (raw text, read by the core's byte path).
    #[wasm_bindgen(js_name = "handleResponse")]
    pub fn handle_response(&mut self, response: &JsValue) -> Result<()> {
        self.inner.handle_response(&convert::bytes(response)?).or_throw()
    }

    /// Answers the input requests of `handle` and queues the retry under `id`.
    pub fn answer(&mut self, handle: f64, input_responses: &JsValue, id: &JsValue) -> Result<()> {
        let handle = Handle(convert::whole(handle, "a handle")?);
        let responses = convert::parse_js(input_responses, &self.limits)?;
        let id = convert::parse_js(id, &self.limits)?;
        self.inner.answer(handle, &responses, id).or_throw()
    }

    /// Gives up on `handle`.
    pub fn abandon(&mut self, handle: f64) -> Result<()> {
        self.inner.abandon(Handle(convert::whole(handle, "a handle")?));
        Ok(())
    }

    /// The next message to send, as JSON text, or `undefined`.
    #[wasm_bindgen(js_name = "pollTransmit")]
    pub fn poll_transmit(&mut self) -> Option<String> {
        self.inner.poll_transmit().map(|m| convert::text(&m))
    }

    /// The next event, as JSON text `{type, handle, …}`, or `undefined`.
    #[wasm_bindgen(js_name = "pollEvent")]
    pub fn poll_event(&mut self) -> Option<String> {
        self.inner.poll_event().map(|e| {
            convert::text(&match e {
                Event::InputRequired { handle, input_requests, round } => {
                    json!({"type": "inputRequired", "handle": handle.0, "inputRequests": input_requests, "round": round})
                }
                Event::RetryNow { handle } => json!({"type": "retryNow", "handle": handle.0}),
                Event::Done { handle, response } => json!({"type": "done", "handle": handle.0, "response": response}),
            })
        })
    }
}
