//! Arguments from C: the few places that read or write through the caller's
//! pointers. Each function states what it needs of the caller; the exports
//! pass that contract on in their `# Safety` sections.

use crate::status::{null, usage};
use mrtr::Error;
use std::ffi::c_char;

/// `(ptr, len)` as bytes. `(NULL, 0)` is empty; `(NULL, n > 0)` is a null pointer.
///
/// # Safety
/// `ptr` is NULL or valid for reads of `len` bytes for `'a`.
pub(crate) unsafe fn bytes<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [u8], Error> {
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(null(what)) };
    }
    if len > isize::MAX as usize {
        return Err(usage(format!("{what}: length {len} is over PTRDIFF_MAX")));
    }
    // SAFETY: non-null, length within isize::MAX, and the caller promises `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// `(ptr, len)` as bytes; NULL is refused even with `len == 0`.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn required<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [u8], Error> {
    if ptr.is_null() {
        return Err(null(what));
    }
    // SAFETY: passed on from the caller.
    unsafe { bytes(ptr, len, what) }
}

/// `(ptr, len)` as bytes, or `None` when `ptr` is NULL (an optional argument).
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn optional<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<Option<&'a [u8]>, Error> {
    // SAFETY: passed on from the caller.
    (!ptr.is_null()).then(|| unsafe { bytes(ptr, len, what) }).transpose()
}

/// `(ptr, len)` as UTF-8 text. `(NULL, 0)` is `""`.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn text<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str, Error> {
    // SAFETY: passed on from the caller.
    let bytes = unsafe { bytes(ptr, len, what) }?;
    std::str::from_utf8(bytes).map_err(|e| usage(format!("{what} is not UTF-8 (at byte {})", e.valid_up_to())))
}

/// Writes `value` to the caller's `*out` (without reading or dropping what was there).
///
/// # Safety
/// `out` is NULL or valid for a write of one `T`.
pub(crate) unsafe fn write<T>(out: *mut T, value: T, what: &str) -> Result<(), Error> {
    if out.is_null() {
        return Err(null(what));
    }
    // SAFETY: non-null, and the caller promises it is writable for one `T`.
    unsafe { out.write(value) };
    Ok(())
}

/// [`text`] that may be absent: NULL is `None`.
///
/// # Safety
/// `ptr` is NULL or valid for `len` bytes.
pub(crate) unsafe fn optional_text<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<Option<&'a str>, Error> {
    // SAFETY: passed on from the caller.
    (!ptr.is_null()).then(|| unsafe { text(ptr, len, what) }).transpose()
}
