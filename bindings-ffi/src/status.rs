//! Status codes, the thread-local last error and the panic boundary: the
//! bottom layer, importing nothing from the crate.
//!
//! A status is `MRTR_OK` or the number of the rule the call failed
//! (`tables.rs`). A misuse of the C API is a rule like any other:
//! `usage-invalid-argument`, `usage-unknown-handle`; a panic is
//! `internal-panic`. The message lives in a thread-local slot rather than a
//! caller's buffer (rustls-ffi's `rustls_error`): a status already says which
//! rule, so the sentence needs no buffer sizing and no second call.

use mrtr::{Error, RuleId};
use mrtr_facade as facade;
use std::cell::RefCell;
use std::ffi::{c_char, CString};
use std::panic::{self, AssertUnwindSafe};

/// What a call did: `MRTR_OK` (0), or the number of the rule it failed (`MRTR_ERR_*`, > 0).
pub type mrtr_status = i32;

/// Success.
pub const MRTR_OK: mrtr_status = 0;

/// What an export's body returns.
pub(crate) type Outcome = Result<(), Error>;

/// A misuse of the C API: `usage-invalid-argument`.
pub(crate) fn usage(message: impl Into<String>) -> Error {
    Error::with(RuleId::UsageInvalidArgument, message.into())
}

/// A required pointer that was NULL.
pub(crate) fn null(what: &str) -> Error {
    usage(format!("{what} is NULL"))
}

thread_local! {
    static LAST: RefCell<(mrtr_status, Option<CString>)> = const { RefCell::new((MRTR_OK, None)) };
}

fn record(outcome: Outcome) -> mrtr_status {
    let (code, message) = match outcome {
        Ok(()) => (MRTR_OK, None),
        Err(e) => (mrtr_status::from(e.rule() as u16), CString::new(e.message().replace('\0', "\\0")).ok()),
    };
    // `try_with`: during thread teardown the slot may be gone; the code still returns.
    let _ = LAST.try_with(|last| {
        if let Ok(mut last) = last.try_borrow_mut() {
            if code != MRTR_OK || last.0 != MRTR_OK {
                *last = (code, message);
            }
        }
    });
    code
}

/// The panic boundary every export runs in: `f`'s outcome becomes a status
/// and the thread's last error; a panic becomes `internal-panic`.
pub(crate) fn guard(f: impl FnOnce() -> Outcome) -> mrtr_status {
    record(panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(facade::panic_error(&*payload))))
}

/// The status of the last call into the library on this thread that
/// returned one (`MRTR_OK` after a success).
#[no_mangle]
pub extern "C" fn mrtr_last_error_code() -> mrtr_status {
    LAST.try_with(|l| l.try_borrow().map(|l| l.0).unwrap_or(MRTR_OK)).unwrap_or(MRTR_OK)
}

/// One sentence on why the last failing call on this thread failed (`""`
/// after a success). The string belongs to the library: it stays valid until
/// the next call into the library on this thread; copy it to keep it. It
/// never contains key material.
#[no_mangle]
pub extern "C" fn mrtr_last_error_message() -> *const c_char {
    let ptr = LAST.try_with(|l| l.try_borrow().ok().and_then(|l| l.1.as_ref().map(|m| m.as_ptr())));
    ptr.ok().flatten().unwrap_or(c"".as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn message() -> String {
        // SAFETY: the message pointer is valid until the next call on this thread.
        unsafe { CStr::from_ptr(mrtr_last_error_message()) }.to_string_lossy().into_owned()
    }

    #[test]
    fn a_panic_is_internal_panic_with_a_message() {
        assert_eq!(guard(|| panic!("boom")), RuleId::InternalPanic as i32);
        assert_eq!(mrtr_last_error_code(), 90);
        assert!(message().contains("boom"), "{}", message());
        assert_eq!(guard(|| Err(null("out"))), RuleId::UsageInvalidArgument as i32);
        assert_eq!(message(), "out is NULL");
        assert_eq!(guard(|| Ok(())), MRTR_OK);
        assert_eq!((mrtr_last_error_code(), message().as_str()), (MRTR_OK, ""));
    }
}
