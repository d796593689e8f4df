//! Opaque handles: boxing, and in debug builds a table of the live ones, so
//! that a double free or a stale handle is `MRTR_ERR_INVALID_HANDLE` rather
//! than memory corruption. The table is consulted before any dereference, so
//! a freed pointer is never read. (An address the allocator has handed out
//! again to a new object of the same kind cannot be told apart: the check is
//! a debugging aid, not a guarantee.)

use crate::status::Failure;

/// What a pointer in the table is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub(crate) enum Kind {
    Client,
    Checker,
    KeyRing,
    Buf,
}

#[cfg(debug_assertions)]
mod table {
    use super::Kind;
    use std::collections::BTreeMap;
    use std::sync::{Mutex, MutexGuard};

    static LIVE: Mutex<BTreeMap<usize, Kind>> = Mutex::new(BTreeMap::new());

    fn live() -> MutexGuard<'static, BTreeMap<usize, Kind>> {
        LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn insert(addr: usize, kind: Kind) {
        live().insert(addr, kind);
    }

    pub(crate) fn is_live(addr: usize, kind: Kind) -> bool {
        live().get(&addr) == Some(&kind)
    }

    pub(crate) fn remove(addr: usize, kind: Kind) -> bool {
        let mut live = live();
        if live.get(&addr) == Some(&kind) {
            live.remove(&addr);
            true
        } else {
            false
        }
    }
}

/// Records a new handle or buffer (debug builds).
#[cfg_attr(not(debug_assertions), allow(unused_variables))]
pub(crate) fn born(addr: usize, kind: Kind) {
    #[cfg(debug_assertions)]
    table::insert(addr, kind);
}

/// Checks that `addr` is a live `kind` (debug builds; always true otherwise).
#[cfg_attr(not(debug_assertions), allow(unused_variables))]
pub(crate) fn check(addr: usize, kind: Kind) -> Result<(), Failure> {
    #[cfg(debug_assertions)]
    if !table::is_live(addr, kind) {
        return Err(stale(kind));
    }
    Ok(())
}

/// Forgets a handle or buffer being freed; an error if it was not live (debug builds).
#[cfg_attr(not(debug_assertions), allow(unused_variables))]
pub(crate) fn dies(addr: usize, kind: Kind) -> Result<(), Failure> {
    #[cfg(debug_assertions)]
    if !table::remove(addr, kind) {
        return Err(stale(kind));
    }
    Ok(())
}

#[cfg(debug_assertions)]
fn stale(kind: Kind) -> Failure {
    Failure::new(
        crate::status::MRTR_ERR_INVALID_HANDLE,
        format!("{kind:?}: freed already, or not from this library (debug build check)"),
    )
}

/// A handle type: its kind in the table.
pub(crate) trait Handle: Sized {
    const KIND: Kind;
}

/// Boxes `value` and writes the new handle to `*out`.
///
/// # Safety
/// `out` is NULL or writable for one pointer.
pub(crate) unsafe fn new_handle<T: Handle>(out: *mut *mut T, value: T) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::null("out"));
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
pub(crate) unsafe fn get<'a, T: Handle>(ptr: *const T, what: &'static str) -> Result<&'a T, Failure> {
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    check(ptr as usize, T::KIND)?;
    // SAFETY: a live handle points to a `T` boxed by `new_handle`; the caller guarantees no concurrent mutation.
    Ok(unsafe { &*ptr })
}

/// The handle's object, exclusive.
///
/// # Safety
/// `ptr` is NULL or a live handle from `new_handle`, used by no one else meanwhile.
pub(crate) unsafe fn get_mut<'a, T: Handle>(ptr: *mut T, what: &'static str) -> Result<&'a mut T, Failure> {
    if ptr.is_null() {
        return Err(Failure::null(what));
    }
    check(ptr as usize, T::KIND)?;
    // SAFETY: a live handle points to a `T` boxed by `new_handle`; the caller guarantees exclusive use.
    Ok(unsafe { &mut *ptr })
}

/// Drops the handle's object. NULL is a no-op.
///
/// # Safety
/// `ptr` is NULL or a live handle from `new_handle`; it is not used afterwards.
pub(crate) unsafe fn free<T: Handle>(ptr: *mut T) -> Result<(), Failure> {
    if ptr.is_null() {
        return Ok(());
    }
    dies(ptr as usize, T::KIND)?;
    // SAFETY: `ptr` came from `Box::into_raw` in `new_handle` and is freed once (the caller's promise, and
    // in debug builds the table's).
    drop(unsafe { Box::from_raw(ptr) });
    Ok(())
}
