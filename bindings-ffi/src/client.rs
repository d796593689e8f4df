//! The client's retry machine (`mrtr::client::Client`) behind an opaque handle.

use crate::args;
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, Handle, Kind};
use crate::json;
use crate::ops::{mrtr_limits, mrtr_protocol, protocol};
use crate::status::{guard, mrtr_status};
use mrtr::client::{Client, ClientConfig, Event, Handle as RequestHandle};
use mrtr::Limits;
use serde_json::json;
use std::ffi::c_char;

/// A request started with `mrtr_client_send`, as the machine names it.
pub type mrtr_request_handle = u64;

/// The client's retry machine (opaque).
pub struct mrtr_client {
    inner: Client,
    limits: Limits,
}

impl Handle for mrtr_client {
    const KIND: Kind = Kind::Client;
}

/// A client machine for the negotiated protocol. `max_rounds`: retries
/// allowed per request before `retry-rounds-exceeded`
/// (`MRTR_DEFAULT_MAX_ROUNDS`). Free with `mrtr_client_free`.
///
/// After every input (`send`, `handle_response`, `answer`), drain
/// `mrtr_client_poll_transmit` (messages to send, in order), then
/// `mrtr_client_poll_event`.
///
/// # Safety
/// `limits` is NULL or readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_client_new(
    protocol_number: mrtr_protocol,
    max_rounds: u32,
    limits: *const mrtr_limits,
    out: *mut *mut mrtr_client,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let limits = unsafe { args::limits(limits) };
        let config = ClientConfig { protocol: protocol(protocol_number)?, max_rounds, limits };
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, mrtr_client { inner: Client::new(config), limits }) }
    })
}

/// Starts `request` (a JSON-RPC request without `inputResponses` or
/// `requestState`, whose id is not in flight); `*out_handle` names it in
/// events. The request is queued for `mrtr_client_poll_transmit`.
///
/// # Safety
/// `client` is a live client; `request` is valid for `request_len` bytes; `out_handle` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_client_send(
    client: *mut mrtr_client,
    request: *const c_char,
    request_len: usize,
    out_handle: *mut mrtr_request_handle,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises a live client used by no one else meanwhile.
        let client = unsafe { handles::get_mut(client, "client") }?;
        if out_handle.is_null() {
            return Err(crate::status::Failure::null("out_handle"));
        }
        // SAFETY: the caller's contract, passed on.
        let request = unsafe { args::json(request, request_len, "request", &client.limits) }?;
        let handle = client.inner.send(request)?;
        // SAFETY: the caller promises `out_handle` is writable (checked non-null above).
        unsafe { args::write(out_handle, handle.0, "out_handle") }
    })
}

/// Takes a response message from the server (raw bytes; the core validates
/// them as `mrtr_classify` does). A response to no request in flight is
/// `jsonrpc-invalid`.
///
/// # Safety
/// `client` is a live client; `response` is valid for `response_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_client_handle_response(
    client: *mut mrtr_client,
    response: *const c_char,
    response_len: usize,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises a live client used by no one else meanwhile.
        let client = unsafe { handles::get_mut(client, "client") }?;
        // SAFETY: the caller's contract, passed on.
        let bytes = unsafe { args::required(response, response_len, "response") }?;
        Ok(client.inner.handle_response(bytes)?)
    })
}

/// Answers the input requests of `handle` with `input_responses` (an
/// `inputResponses` object, `{}` for a `retry_now` event) and queues the
/// retry under the new `id` (a JSON string or integer).
///
/// # Safety
/// `client` is a live client; both `(pointer, length)` pairs are valid.
#[no_mangle]
pub unsafe extern "C" fn mrtr_client_answer(
    client: *mut mrtr_client,
    handle: mrtr_request_handle,
    input_responses: *const c_char,
    input_responses_len: usize,
    id: *const c_char,
    id_len: usize,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises a live client used by no one else meanwhile.
        let client = unsafe { handles::get_mut(client, "client") }?;
        let l = client.limits;
        // SAFETY: the caller's contract, passed on.
        let (responses, id) = unsafe {
            (
                args::json(input_responses, input_responses_len, "input_responses", &l)?,
                args::json(id, id_len, "id", &l)?,
            )
        };
        Ok(client.inner.answer(RequestHandle(handle), &responses, id)?)
    })
}

/// Gives up on `handle` (a client may always abandon a round).
///
/// # Safety
/// `client` is a live client.
#[no_mangle]
pub unsafe extern "C" fn mrtr_client_abandon(client: *mut mrtr_client, handle: mrtr_request_handle) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises a live client used by no one else meanwhile.
        let client = unsafe { handles::get_mut(client, "client") }?;
        client.inner.abandon(RequestHandle(handle));
        Ok(())
    })
}

/// The next message to send, as JSON, or `{NULL, 0}` when none is queued.
///
/// # Safety
/// `client` is a live client; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_client_poll_transmit(client: *mut mrtr_client, out: *mut mrtr_buf) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (out, client) = unsafe { (Out::new(out)?, handles::get_mut(client, "client")?) };
        match client.inner.poll_transmit() {
            Some(message) => out.set(json::to_vec(&message)),
            None => out.none(),
        }
        Ok(())
    })
}

/// The next event, as JSON, or `{NULL, 0}` when none is queued:
/// `{"event": "input_required", "handle": h, "inputRequests": {...}, "round": r}`
/// (fulfil them, then `mrtr_client_answer`),
/// `{"event": "retry_now", "handle": h}` (answer at once with `{}`), or
/// `{"event": "done", "handle": h, "response": {...}}` (a complete result, a task, or an error).
///
/// # Safety
/// `client` is a live client; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_client_poll_event(client: *mut mrtr_client, out: *mut mrtr_buf) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (out, client) = unsafe { (Out::new(out)?, handles::get_mut(client, "client")?) };
        let event = match client.inner.poll_event() {
            None => {
                out.none();
                return Ok(());
            }
            Some(Event::InputRequired { handle, input_requests, round }) => {
                json!({ "event": "input_required", "handle": handle.0, "inputRequests": input_requests, "round": round })
            }
            Some(Event::RetryNow { handle }) => json!({ "event": "retry_now", "handle": handle.0 }),
            Some(Event::Done { handle, response }) => {
                json!({ "event": "done", "handle": handle.0, "response": response })
            }
        };
        out.set(json::to_vec(&event));
        Ok(())
    })
}

/// Frees a client. NULL is a no-op.
///
/// # Safety
/// `client` is NULL or a live client, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn mrtr_client_free(client: *mut mrtr_client) -> mrtr_status {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(client) })
}
