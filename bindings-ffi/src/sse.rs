//! The event-stream decoder's constructor: a decoder is bounded by limits
//! alone (it reads no protocol), which the export table's options do not
//! say; its other functions are generated (`exports`).

use crate::exports::mrtr_sse_decoder;
use crate::handles;
use crate::status::{guard, mrtr_status};
use crate::types::{limits as limits_at, mrtr_limits};
use mrtr_facade::{Options, SseDecoder};

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
