//! The event-stream (`text/event-stream`) decoder behind an opaque handle,
//! and the encoder (`mrtr::facade::SseDecoder`, `sse_encode`).

use crate::args::{bytes, required};
use crate::buf::{mrtr_buf, Out};
use crate::handles::{self, get_mut, Handle, Kind};
use crate::status::{guard, mrtr_status};
use crate::types::{limits as limits_at, mrtr_limits};
use mrtr::facade::{self, Options, SseDecoder};
use std::ffi::c_char;

/// The incremental event-stream decoder (opaque): bytes in any chunking,
/// blocks out.
pub struct mrtr_sse_decoder(SseDecoder);

impl Handle for mrtr_sse_decoder {
    const KIND: Kind = Kind::SseDecoder;
}

/// A decoder bounding each block by `limits->max_message_bytes` (line bytes;
/// NULL: the defaults). Free with `mrtr_sse_decoder_free`.
///
/// Feed it with `mrtr_sse_decoder_feed`, end the stream with
/// `mrtr_sse_decoder_finish`, and take the blocks with
/// `mrtr_sse_decoder_poll_event`.
///
/// # Safety
/// `limits` is NULL or readable; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_sse_decoder_new(
    limits: *const mrtr_limits,
    out: *mut *mut mrtr_sse_decoder,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises NULL or a readable `mrtr_limits`.
        let o = Options { limits: unsafe { limits_at(limits) }, ..Options::default() };
        // SAFETY: the caller promises `out` is writable.
        unsafe { handles::new_handle(out, mrtr_sse_decoder(SseDecoder::new(&o))) }
    })
}

/// Decodes the next `chunk_len` bytes of the stream (any split of a stream
/// gives the same blocks; `(NULL, 0)` is an empty chunk). Bytes that are not
/// UTF-8 are not refused here: the block holding them is reported as an error
/// by `mrtr_sse_decoder_poll_event`.
///
/// # Safety
/// `decoder` is a live decoder; `chunk` is NULL with `chunk_len == 0` or valid for `chunk_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_sse_decoder_feed(
    decoder: *mut mrtr_sse_decoder,
    chunk: *const u8,
    chunk_len: usize,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (decoder, chunk) = unsafe { (get_mut(decoder, "decoder")?, bytes(chunk, chunk_len, "chunk")?) };
        decoder.0.feed(chunk);
        Ok(())
    })
}

/// Ends the stream: a block not ended by a blank line is discarded (as a
/// browser discards it). Blocks already decoded stay to be polled; a later
/// `mrtr_sse_decoder_feed` starts a new stream.
///
/// # Safety
/// `decoder` is a live decoder.
#[no_mangle]
pub unsafe extern "C" fn mrtr_sse_decoder_finish(decoder: *mut mrtr_sse_decoder) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises a live decoder used by no one else meanwhile.
        unsafe { get_mut(decoder, "decoder") }?.0.finish();
        Ok(())
    })
}

/// The next decoded block as the core's JSON, `{"event", "data", "id",
/// "retry"}` (only the fields its lines set), or `{NULL, 0}` with `MRTR_OK`
/// when none is ready. A block the decoder could not read fails this call
/// with its rule and leaves `*out` `{NULL, 0}`: `MRTR_ERR_JSONRPC_PARSE_ERROR`
/// (a line that is not UTF-8), `MRTR_ERR_LIMIT_EXCEEDED` (a block over
/// `max_message_bytes`). Decoding went on after it: keep polling.
///
/// # Safety
/// `decoder` is a live decoder; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_sse_decoder_poll_event(
    decoder: *mut mrtr_sse_decoder,
    out: *mut mrtr_buf,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract.
        let (out, decoder) = unsafe { (Out::new(out)?, get_mut(decoder, "decoder")?) };
        if let Some(block) = decoder.0.poll_event() {
            out.set(block?);
        }
        Ok(())
    })
}

/// Frees a decoder. NULL is a no-op.
///
/// # Safety
/// `decoder` is NULL or a live decoder, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn mrtr_sse_decoder_free(decoder: *mut mrtr_sse_decoder) -> mrtr_status {
    // SAFETY: the caller's contract.
    guard(|| unsafe { handles::free(decoder) })
}

/// Writes one block, `event` = `{"event", "data", "id", "retry"}` (each
/// optional; strings, `retry` a non-negative integer), as event-stream text
/// into `*out`: what a decoder reads back as the same block. An event that
/// sets no field writes nothing (`*out` is then an empty text, not `{NULL,
/// 0}`). An `event` or `id` holding a line end, an `id` holding NUL, an
/// unknown field or a field of the wrong type is `usage-invalid-argument`.
///
/// # Safety
/// `event` is valid for `event_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_sse_encode(event: *const c_char, event_len: usize, out: *mut mrtr_buf) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller's contract, passed on.
        let (out, event) = unsafe { (Out::new(out)?, required(event, event_len, "event")?) };
        out.set(facade::sse_encode(event)?);
        Ok(())
    })
}
