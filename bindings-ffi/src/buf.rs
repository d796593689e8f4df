//! `mrtr_buf`: bytes the library allocated and the caller frees.

use crate::handles::{self, Kind};
use crate::status::{guard, mrtr_status, usage};
use mrtr::Error;

/// Bytes owned by the caller once returned: a JSON text, a token, a payload.
/// `ptr[len]` is a NUL that `len` does not count, so text can be printed with
/// `%s` (a payload may itself contain NULs). Free with `mrtr_buf_free`,
/// exactly as returned. `{NULL, 0}` is the empty buffer (a failed call, or
/// nothing to poll).
#[repr(C)]
#[derive(Debug)]
pub struct mrtr_buf {
    /// The bytes, or NULL.
    pub ptr: *mut u8,
    /// How many bytes, not counting the NUL after them.
    pub len: usize,
}

impl mrtr_buf {
    /// The empty buffer.
    pub const EMPTY: mrtr_buf = mrtr_buf { ptr: std::ptr::null_mut(), len: 0 };

    /// A buffer owning `bytes` (plus the trailing NUL).
    pub(crate) fn from_vec(mut bytes: Vec<u8>) -> mrtr_buf {
        let len = bytes.len();
        bytes.push(0);
        let ptr = Box::into_raw(bytes.into_boxed_slice()).cast::<u8>();
        handles::born(ptr as usize, Kind::Buf);
        mrtr_buf { ptr, len }
    }
}

/// An output argument of type `mrtr_buf *`: emptied when the call starts,
/// filled when it succeeds.
pub(crate) struct Out(*mut mrtr_buf);

impl Out {
    /// Empties `*out`.
    ///
    /// # Safety
    /// `out` is NULL or valid for a write of one `mrtr_buf` until the call returns.
    pub(crate) unsafe fn new(out: *mut mrtr_buf) -> Result<Out, Error> {
        // SAFETY: passed on from the caller.
        unsafe { crate::args::write(out, mrtr_buf::EMPTY, "out") }?;
        Ok(Out(out))
    }

    /// Hands `bytes` (a JSON text, a token, a payload) to the caller.
    pub(crate) fn set(self, bytes: impl Into<Vec<u8>>) {
        self.put(bytes);
    }

    /// [`Out::set`], returning where the bytes now live (until the caller frees them).
    pub(crate) fn put(self, bytes: impl Into<Vec<u8>>) -> *const u8 {
        let buf = mrtr_buf::from_vec(bytes.into());
        let at = buf.ptr.cast_const();
        // SAFETY: `new` checked the pointer is non-null; the caller promised it is writable for this call.
        unsafe { self.0.write(buf) };
        at
    }
}

/// Frees a buffer the library returned and sets it to `{NULL, 0}`, so that
/// freeing the same `mrtr_buf` twice is harmless. NULL and `{NULL, 0}` are
/// no-ops. Freeing a copy of a freed buffer is undefined (debug builds:
/// `MRTR_ERR_USAGE_UNKNOWN_HANDLE`, and nothing is freed).
///
/// # Safety
/// `buf` is NULL or points to an `mrtr_buf` that is `{NULL, 0}` or exactly as
/// a function of this library returned it.
#[no_mangle]
pub unsafe extern "C" fn mrtr_buf_free(buf: *mut mrtr_buf) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises NULL or a valid `mrtr_buf`.
        let Some(buf) = (unsafe { buf.as_mut() }) else { return Ok(()) };
        if buf.ptr.is_null() {
            return Ok(());
        }
        let total = buf.len.checked_add(1).ok_or_else(|| usage("not a buffer of this library"))?;
        handles::check(buf.ptr as usize, Kind::Buf, true)?;
        let bytes = std::ptr::slice_from_raw_parts_mut(buf.ptr, total);
        // SAFETY: `ptr` and `len + 1` are those of the boxed slice `from_vec` leaked (the caller's promise).
        drop(unsafe { Box::from_raw(bytes) });
        *buf = mrtr_buf::EMPTY;
        Ok(())
    })
}
