//! Opaque handles: boxing, and in debug builds a table of the live ones, so
//! that a double free or a stale handle is `usage-unknown-handle` rather than
//! memory corruption. The table is consulted before any dereference, so a
//! freed pointer is never read. (An address the allocator has handed out
//! again to a new object of the same kind cannot be told apart: the check is
//! a debugging aid, not a guarantee.)

use crate::status::null;
use mrtr::Error;
use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

/// What a pointer in the table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Client,
    Checker,
    KeyRing,
    SseDecoder,
    HttpCall,
    Operation,
    ServerStream,
    ToolReplay,
    ToolRun,
    ToolBridge,
    Session,
    Buf,
}

/// The live handles and buffers (filled in debug builds only).
static LIVE: Mutex<BTreeMap<usize, Kind>> = Mutex::new(BTreeMap::new());

fn live() -> MutexGuard<'static, BTreeMap<usize, Kind>> {
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Records a new handle or buffer (debug builds).
pub(crate) fn born(addr: usize, kind: Kind) {
    if cfg!(debug_assertions) {
        live().insert(addr, kind);
    }
}

/// Checks that `addr` is a live `kind`, and forgets it when it `dies` (debug builds; always fine otherwise).
pub(crate) fn check(addr: usize, kind: Kind, dies: bool) -> Result<(), Error> {
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    let mut live = live();
    if live.get(&addr) != Some(&kind) {
        let why = format!("{kind:?}: freed already, or not from this library (debug build check)");
        return Err(Error::with(mrtr::RuleId::UsageUnknownHandle, why));
    }
    if dies {
        live.remove(&addr);
    }
    Ok(())
}

/// A handle type: its kind in the table.
pub(crate) trait Handle: Sized {
    const KIND: Kind;
}

/// Boxes `value` and writes the new handle to `*out`.
///
/// # Safety
/// `out` is NULL or writable for one pointer.
pub(crate) unsafe fn new_handle<T: Handle>(out: *mut *mut T, value: T) -> Result<(), Error> {
    if out.is_null() {
        return Err(null("out"));
    }
    let ptr = Box::into_raw(Box::new(value));
    born(ptr as usize, T::KIND);
    // SAFETY: `out` is non-null and the caller promises it is writable for one pointer.
    unsafe { out.write(ptr) };
    Ok(())
}

/// The handle's object, shared.
///
/// # Safety
/// `ptr` is NULL or a live handle from `new_handle`, not used mutably elsewhere meanwhile.
pub(crate) unsafe fn get<'a, T: Handle>(ptr: *const T, what: &str) -> Result<&'a T, Error> {
    if ptr.is_null() {
        return Err(null(what));
    }
    check(ptr as usize, T::KIND, false)?;
    // SAFETY: a live handle points to a `T` boxed by `new_handle`; the caller guarantees no concurrent mutation.
    Ok(unsafe { &*ptr })
}

/// The handle's object, exclusive.
///
/// # Safety
/// `ptr` is NULL or a live handle from `new_handle`, used by no one else meanwhile.
pub(crate) unsafe fn get_mut<'a, T: Handle>(ptr: *mut T, what: &str) -> Result<&'a mut T, Error> {
    if ptr.is_null() {
        return Err(null(what));
    }
    check(ptr as usize, T::KIND, false)?;
    // SAFETY: a live handle points to a `T` boxed by `new_handle`; the caller guarantees exclusive use.
    Ok(unsafe { &mut *ptr })
}

/// Drops the handle's object. NULL is a no-op.
///
/// # Safety
/// `ptr` is NULL or a live handle from `new_handle`; it is not used afterwards.
pub(crate) unsafe fn free<T: Handle>(ptr: *mut T) -> Result<(), Error> {
    if ptr.is_null() {
        return Ok(());
    }
    check(ptr as usize, T::KIND, true)?;
    // SAFETY: `ptr` came from `Box::into_raw` in `new_handle` and is freed once (the caller's promise, and
    // in debug builds the table's).
    drop(unsafe { Box::from_raw(ptr) });
    Ok(())
}
