//! Arguments from C: the few places that read or write through the caller's
//! pointers. Each function states what it needs of the caller; the exports
//! pass that contract on in their `# Safety` sections.

use crate::json;
use crate::ops::{limits_of, mrtr_limits};
use crate::status::{Failure, MRTR_ERR_INVALID_UTF8};
use mrtr::Limits;
use serde_json::Value;
use std::ffi::c_char;

/// `(ptr, len)` as bytes. `(NULL, 0)` is empty; `(NULL, n > 0)` is a null pointer.
///
/// # Safety
/// `ptr` is NULL or valid for reads of `len` bytes for `'a`.
pub(crate) unsafe fn bytes<'a, T>(ptr: *const T, len: usize, what: &'static str) -> Result<&'a [u8], Failure> {
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(Failure::null(what)) };
    }
    if len > isize::MAX as usize {
        return Err(Failure::invalid(format!("{what}: length {len} is over PTRDIFF_MAX")));
    }
    // SAFETY: non-null, length within isize::MAX, and the caller promises `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// `(ptr, len)` as bytes; NULL is refused even with `len == 0`.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn required<'a>(ptr: *const c_char, len: usize, what: &'static str) -> Result<&'a [u8], Failure> {
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: passed on from the caller.
    unsafe { bytes(ptr, len, what) }
}

/// `(ptr, len)` as UTF-8 text. `(NULL, 0)` is `""`.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn text<'a>(ptr: *const c_char, len: usize, what: &'static str) -> Result<&'a str, Failure> {
    // SAFETY: passed on from the caller.
    let bytes = unsafe { bytes(ptr, len, what) }?;
    std::str::from_utf8(bytes)
        .map_err(|e| Failure::new(MRTR_ERR_INVALID_UTF8, format!("{what} is not UTF-8 (at byte {})", e.valid_up_to())))
}

/// `(ptr, len)` as UTF-8 text; NULL is refused even with `len == 0`.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn required_text<'a>(ptr: *const c_char, len: usize, what: &'static str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: passed on from the caller.
    unsafe { text(ptr, len, what) }
}

/// A required JSON argument, parsed strictly under `limits`.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn json(
    ptr: *const c_char,
    len: usize,
    what: &'static str,
    limits: &Limits,
) -> Result<Value, Failure> {
    // SAFETY: passed on from the caller.
    let bytes = unsafe { required(ptr, len, what) }?;
    Ok(json::parse(bytes, limits)?)
}

/// An optional JSON argument: NULL is `None`.
///
/// # Safety
/// As [`bytes`].
pub(crate) unsafe fn optional_json(
    ptr: *const c_char,
    len: usize,
    what: &'static str,
    limits: &Limits,
) -> Result<Option<Value>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: passed on from the caller.
    unsafe { json(ptr, len, what, limits) }.map(Some)
}

/// `*limits`, or the defaults when NULL.
///
/// # Safety
/// `limits` is NULL or points to a readable `mrtr_limits`.
pub(crate) unsafe fn limits(limits: *const mrtr_limits) -> Limits {
    // SAFETY: the caller promises NULL or a readable, initialised `mrtr_limits` (plain integers).
    unsafe { limits.as_ref() }.map_or(Limits::DEFAULT, limits_of)
}

/// `*ptr`, a struct the caller passes in.
///
/// # Safety
/// `ptr` is NULL or points to a readable, initialised `T`.
pub(crate) unsafe fn read<'a, T>(ptr: *const T, what: &'static str) -> Result<&'a T, Failure> {
    // SAFETY: the caller promises NULL or a readable, initialised `T`.
    unsafe { ptr.as_ref() }.ok_or_else(|| Failure::null(what))
}

/// Writes `value` to the caller's `*out` (without reading or dropping what was there).
///
/// # Safety
/// `out` is NULL or valid for a write of one `T`.
pub(crate) unsafe fn write<T>(out: *mut T, value: T, what: &'static str) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: non-null, and the caller promises it is writable for one `T`.
    unsafe { out.write(value) };
    Ok(())
}
