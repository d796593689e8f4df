//! The client side: `retry`, `taskUpdate`, and the `Client` retry machine.

use crate::convert::{self, LimitsInput, Text};
use crate::errors::{self, guard, OrThrow, Result};
use mrtr::client::{ClientConfig, Event, Handle};
use napi::bindgen_prelude::Either;
use napi_derive::napi;
use serde_json::json;

/// `client::retry`: the retry of `request` answering `result` with
/// `input_responses` under the new `id`, as JSON text.
#[napi(js_name = "retry")]
pub fn retry(
    request: Either<String, &[u8]>,
    result: Either<String, &[u8]>,
    input_responses: Either<String, &[u8]>,
    id: Either<String, &[u8]>,
    protocol: Option<String>,
    limits: Option<LimitsInput>,
) -> Result<String> {
    guard(|| {
        let (protocol, limits) = (convert::protocol(protocol.as_deref())?, convert::limits(limits));
        let parse = |t: &Text<'_>| convert::parse(convert::bytes(t), &limits);
        let (request, result, responses, id) =
            (parse(&request)?, parse(&result)?, parse(&input_responses)?, parse(&id)?);
        let retry = mrtr::client::retry(&request, &result, &responses, &id, protocol, &limits).or_throw()?;
        Ok(convert::text(&retry))
    })
}

/// `client::task_update`: the `tasks/update` request answering an
/// `input_required` task (Tasks extension, `2026-07-28`), as JSON text.
#[napi(js_name = "taskUpdate")]
pub fn task_update(
    get_request: Either<String, &[u8]>,
    get_response: Either<String, &[u8]>,
    input_responses: Either<String, &[u8]>,
    id: Either<String, &[u8]>,
    limits: Option<LimitsInput>,
) -> Result<String> {
    guard(|| {
        let limits = convert::limits(limits);
        let parse = |t: &Text<'_>| convert::parse(convert::bytes(t), &limits);
        let (request, response) = (parse(&get_request)?, parse(&get_response)?);
        let (responses, id) = (parse(&input_responses)?, parse(&id)?);
        let update = mrtr::client::task_update(&request, &response, &responses, &id, &limits).or_throw()?;
        Ok(convert::text(&update))
    })
}

/// The client's retry machine (sans-IO): `client::Client`.
#[napi(js_name = "NativeClient")]
pub struct Client {
    inner: mrtr::client::Client,
    limits: mrtr::Limits,
}

#[napi]
impl Client {
    /// A machine for `protocol`, `max_rounds` retries per request (default
    /// 10) and `limits`.
    #[napi(constructor)]
    pub fn new(protocol: Option<String>, max_rounds: Option<u32>, limits: Option<LimitsInput>) -> Result<Client> {
        guard(|| {
            let d = ClientConfig::default();
            let config = ClientConfig {
                protocol: convert::protocol(protocol.as_deref())?,
                max_rounds: max_rounds.unwrap_or(d.max_rounds),
                limits: convert::limits(limits),
            };
            Ok(Client { inner: mrtr::client::Client::new(config), limits: config.limits })
        })
    }

    /// Starts `request`; returns its handle.
    #[napi]
    pub fn send(&mut self, request: Either<String, &[u8]>) -> Result<f64> {
        guard(|| {
            let request = convert::parse(convert::bytes(&request), &self.limits)?;
            Ok(self.inner.send(request).or_throw()?.0 as f64)
        })
    }

    /// Takes a response message (raw text, read by the core's byte path).
    #[napi]
    pub fn handle_response(&mut self, response: Either<String, &[u8]>) -> Result<()> {
        guard(|| self.inner.handle_response(convert::bytes(&response)).or_throw())
    }

    /// Answers the input requests of `handle` and queues the retry under `id`.
    #[napi]
    pub fn answer(
        &mut self,
        handle: f64,
        input_responses: Either<String, &[u8]>,
        id: Either<String, &[u8]>,
    ) -> Result<()> {
        guard(|| {
            let handle = handle_of(handle)?;
            let responses = convert::parse(convert::bytes(&input_responses), &self.limits)?;
            let id = convert::parse(convert::bytes(&id), &self.limits)?;
            self.inner.answer(handle, &responses, id).or_throw()
        })
    }

    /// Gives up on `handle`.
    #[napi]
    pub fn abandon(&mut self, handle: f64) -> Result<()> {
        guard(|| {
            self.inner.abandon(handle_of(handle)?);
            Ok(())
        })
    }

    /// The next message to send, as JSON text, or `null`.
    #[napi]
    pub fn poll_transmit(&mut self) -> Result<Option<String>> {
        guard(|| Ok(self.inner.poll_transmit().map(|m| convert::text(&m))))
    }

    /// The next event, as JSON text `{type, handle, …}`, or `null`.
    #[napi]
    pub fn poll_event(&mut self) -> Result<Option<String>> {
        guard(|| {
            Ok(self.inner.poll_event().map(|e| {
                convert::text(&match e {
                    Event::InputRequired { handle, input_requests, round } => {
                        json!({"type": "inputRequired", "handle": handle.0, "inputRequests": input_requests, "round": round})
                    }
                    Event::RetryNow { handle } => json!({"type": "retryNow", "handle": handle.0}),
                    Event::Done { handle, response } => json!({"type": "done", "handle": handle.0, "response": response}),
                })
            }))
        })
    }
}

fn handle_of(n: f64) -> Result<Handle> {
    if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 {
        Ok(Handle(n as u64))
    } else {
        Err(errors::arg("a handle is a non-negative integer returned by send()"))
    }
}
