//! The client's retry machine (`mrtr_facade::Client`) behind an opaque handle.

use crate::args::{optional, required, write};
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, get_mut, Handle, Kind};
use crate::status::{guard, mrtr_status, null};
use crate::tables::mrtr_protocol;
use crate::types::{mrtr_limits, options};
use mrtr_facade::Client;
use std::ffi::c_char;

/// A request started with `mrtr_client_send`, as the machine names it.
pub type mrtr_request_handle = u64;

/// The client's retry machine (opaque).
pub struct mrtr_client(Client);

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
        let o = unsafe { options(protocol_number, limits, Some(max_rounds)) }?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, mrtr_client(Client::new(&o))) }
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
        if out_handle.is_null() {
            return Err(null("out_handle"));
        }
        // SAFETY: the caller promises a live client used by no one else meanwhile, and a valid request.
        let (client, request) = unsafe { (get_mut(client, "client")?, required(request, request_len, "request")?) };
        let handle = client.0.send(request)?;
        // SAFETY: the caller promises `out_handle` is writable.
        unsafe { write(out_handle, handle, "out_handle") }
    })
}

/// Takes a response message from the server (raw bytes; the core validates
/// them as `mrtr_classify` does). A response to no request in flight is
/// `usage-out-of-turn`.
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
        // SAFETY: the caller promises a live client used by no one else meanwhile, and a valid response.
        let (client, response) = unsafe { (get_mut(client, "client")?, required(response, response_len, "response")?) };
        client.0.handle_response(response)
    })
}

/// Answers the input requests of `handle` with `input_responses` (an
/// `inputResponses` object; NULL for a `retryNow` event, which answers
/// nothing) and queues the retry under the new `id` (a JSON string or
/// integer).
///
/// # Safety
/// `client` is a live client; both `(pointer, length)` pairs are valid
/// (`input_responses` may be NULL).
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
        // SAFETY: the caller's contract, passed on.
        let (client, responses, id) = unsafe {
            (
                get_mut(client, "client")?,
                optional(input_responses, input_responses_len, "input_responses")?,
                required(id, id_len, "id")?,
            )
        };
        client.0.answer(handle, responses, id)
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
        unsafe { get_mut(client, "client") }?.0.abandon(handle);
        Ok(())
    })
}

/// The next message to send, as JSON, or `{NULL, 0}` when none is queued.
///
/// # Safety
/// `client` is a live client; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_client_poll_transmit(client: *mut mrtr_client, out: *mut mrtr_buf) -> mrtr_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { poll(client, out, Client::poll_transmit) }
}

/// `next` of the machine into `*out`.
///
/// # Safety
/// As the two exports that call it.
unsafe fn poll(client: *mut mrtr_client, out: *mut mrtr_buf, next: fn(&mut Client) -> Option<String>) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (out, client) = unsafe { (Out::new(out)?, get_mut(client, "client")?) };
        if let Some(text) = next(&mut client.0) {
            out.set(text);
        }
        Ok(())
    })
}

/// The next event, as the core's JSON (`mrtr::wire`), or `{NULL, 0}` when none is queued:
/// `{"type": "inputRequired", "handle": h, "inputRequests": {...}, "round": r}`
/// (fulfil them, then `mrtr_client_answer`),
/// `{"type": "retryNow", "handle": h}` (answer at once with `{}`), or
/// `{"type": "done", "handle": h, "response": {...}}` (a complete result, a task, or an error).
///
/// # Safety
/// `client` is a live client; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_client_poll_event(client: *mut mrtr_client, out: *mut mrtr_buf) -> mrtr_status {
    // SAFETY: the caller's contract, passed on.
    unsafe { poll(client, out, Client::poll_event) }
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
