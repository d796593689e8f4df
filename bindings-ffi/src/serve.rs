//! The server side of the transports (`mrtr::facade::ServerStream`,
//! `read_http_request`, `stream_url`, `unassociated_reply`): a response
//! stream behind an opaque handle, and the stateless helpers.
//!
//! Modes are named as in a call's configuration: `"2026-07-28"`,
//! `"2025-11-25"`, `"sep-1858"`, `"sep-1335"` (another name:
//! `usage-invalid-argument`).

use crate::args::{bytes, required, text};
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, get, get_mut, Handle, Kind};
use crate::status::{guard, mrtr_status};
use crate::tables::mrtr_protocol;
use crate::types::{mrtr_limits, options};
use mrtr::facade::{self, ServerStream};
use std::ffi::c_char;

/// A server's response stream for one continuation (opaque): the mode's
/// event sequence as event-stream text, numbered event ids.
pub struct mrtr_server_stream(ServerStream);

impl Handle for mrtr_server_stream {
    const KIND: Kind = Kind::ServerStream;
}

/// A response stream of `mode` for the continuation `key` (the host's name
/// for the call's state in its own store: event ids are `<key>.<n>`, a
/// stream URL carries `?stream=<key>`), numbering events from `first`. An
/// empty key, or one with a line end or NUL, is `usage-invalid-argument`.
/// Free with `mrtr_server_stream_free`.
///
/// # Safety
/// `mode` and `key` are valid for their lengths; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_server_stream_new(
    mode: *const c_char,
    mode_len: usize,
    key: *const c_char,
    key_len: usize,
    first: u64,
    out: *mut *mut mrtr_server_stream,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (mode, key) = unsafe { (text(mode, mode_len, "mode")?, text(key, key_len, "key")?) };
        let stream = ServerStream::new(mode, key, first)?;
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, mrtr_server_stream(stream)) }
    })
}

/// The header fields of the response head (status 200), as a JSON object
/// `{<name>: <value>}`: `content-type: text/event-stream`, `cache-control`,
/// and under `sep-1335` the `link: <stream_url>; rel="stream"` (NULL: no
/// link).
///
/// # Safety
/// `stream` is a live stream; `stream_url` is NULL or valid for `stream_url_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_server_stream_head(
    stream: *const mrtr_server_stream,
    stream_url: *const c_char,
    stream_url_len: usize,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, stream, url) = unsafe {
            (
                Out::new(out)?,
                get(stream, "stream")?,
                (!stream_url.is_null()).then(|| text(stream_url, stream_url_len, "stream_url")).transpose()?,
            )
        };
        out.set(stream.0.head(url));
        Ok(())
    })
}

/// Writes the JSON-RPC `message` as an event; `*out_id` is its event id (text).
///
/// # Safety
/// `stream` is a live stream; `message` is valid for `message_len` bytes; `out_id` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_server_stream_message(
    stream: *mut mrtr_server_stream,
    message: *const c_char,
    message_len: usize,
    out_id: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, stream, message) =
            unsafe { (Out::new(out_id)?, get_mut(stream, "stream")?, required(message, message_len, "message")?) };
        out.set(stream.0.message(message)?);
        Ok(())
    })
}

/// Writes a `retry: <ms>` block; `*out_id` is its event id (text).
///
/// # Safety
/// `stream` is a live stream; `out_id` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_server_stream_retry(
    stream: *mut mrtr_server_stream,
    retry_ms: u64,
    out_id: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (out, stream) = unsafe { (Out::new(out_id)?, get_mut(stream, "stream")?) };
        out.set(stream.0.retry(retry_ms)?);
        Ok(())
    })
}

/// Writes the mode's sequence asking for `requests` (a JSON array of
/// JSON-RPC requests: elicitation, sampling, roots): under `sep-1858`
/// `buffer_input`, the requests, `input_required`; under `sep-1335` the
/// requests and `retry: <retry_ms>`; under `2025-11-25` the requests (a
/// `2026-07-28` server asks inside results: `usage-invalid-argument`).
/// After a `sep-1858` or `sep-1335` ask the host ends the response; under
/// `sep-1858` anything written after it is `usage-out-of-turn`. `*out_id` is
/// the last event id written (text).
///
/// # Safety
/// `stream` is a live stream; `requests` is valid for `requests_len` bytes; `out_id` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_server_stream_ask(
    stream: *mut mrtr_server_stream,
    requests: *const c_char,
    requests_len: usize,
    retry_ms: u64,
    out_id: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, stream, requests) =
            unsafe { (Out::new(out_id)?, get_mut(stream, "stream")?, required(requests, requests_len, "requests")?) };
        out.set(stream.0.ask(requests, retry_ms)?);
        Ok(())
    })
}

/// The event-stream text written since the last take (to write to the
/// response body), and empties it.
///
/// # Safety
/// `stream` is a live stream; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_server_stream_take(stream: *mut mrtr_server_stream, out: *mut mrtr_buf) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (out, stream) = unsafe { (Out::new(out)?, get_mut(stream, "stream")?) };
        out.set(stream.0.take());
        Ok(())
    })
}

/// Frees a stream. NULL is a no-op.
///
/// # Safety
/// `stream` is NULL or a live stream, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn mrtr_server_stream_free(stream: *mut mrtr_server_stream) -> mrtr_status {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(stream) })
}

/// Reads an incoming HTTP request to an MCP endpoint (or a stream URL) under
/// `mode`: its `method`, `url`, `headers` (a JSON object of names to
/// strings; NULL: none) and `body` (raw bytes; `(NULL, 0)`: none). `*out` is
/// what it asks, as the core's JSON: `{"type": "call", "message"}` (a new
/// call), `{"type": "messages", "messages": [...]}` (answer `202`),
/// `{"type": "answers", "key", "responses": [...]}` (buffered answers of the
/// continuation `key`), `{"type": "resume", "key": <or null>,
/// "lastEventId": <or null>}` (a GET resuming a stream). A body that is not
/// JSON-RPC fails with its rule (`jsonrpc-parse-error`, `jsonrpc-invalid`,
/// `limit-exceeded`): answer it with HTTP 400.
///
/// # Safety
/// Each `(pointer, length)` pair is valid (NULL only where said); `limits` is NULL or readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_read_http_request(
    mode: *const c_char,
    mode_len: usize,
    method: *const c_char,
    method_len: usize,
    url: *const c_char,
    url_len: usize,
    headers: *const c_char,
    headers_len: usize,
    body: *const u8,
    body_len: usize,
    protocol_number: mrtr_protocol,
    limits: *const mrtr_limits,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, o, mode, method, url, headers, body) = unsafe {
            (
                Out::new(out)?,
                options(protocol_number, limits, None)?,
                text(mode, mode_len, "mode")?,
                text(method, method_len, "method")?,
                text(url, url_len, "url")?,
                bytes(headers, headers_len, "headers")?,
                bytes(body, body_len, "body")?,
            )
        };
        out.set(facade::read_http_request(mode, method, url, headers, body, &o)?);
        Ok(())
    })
}

/// The `rel="stream"` URL of the continuation `key` at `endpoint` (SEP-1335),
/// as text.
///
/// # Safety
/// `endpoint` and `key` are valid for their lengths; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_stream_url(
    endpoint: *const c_char,
    endpoint_len: usize,
    key: *const c_char,
    key_len: usize,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, endpoint, key) =
            unsafe { (Out::new(out)?, text(endpoint, endpoint_len, "endpoint")?, text(key, key_len, "key")?) };
        out.set(facade::stream_url(endpoint, key)?);
        Ok(())
    })
}

/// A client's answer to a server request that arrived outside any request of
/// its own in flight (SEP-2260; e.g. on the standalone GET stream): the
/// JSON-RPC error response (-32602) to send back for `elicitation/create`,
/// `sampling/createMessage` and `roots/list`, or `{NULL, 0}` for any other
/// message (`ping` is exempt).
///
/// # Safety
/// `request` is valid for `request_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_unassociated_reply(
    request: *const c_char,
    request_len: usize,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, request) = unsafe { (Out::new(out)?, required(request, request_len, "request")?) };
        if let Some(reply) = facade::unassociated_reply(request)? {
            out.set(reply);
        }
        Ok(())
    })
}
