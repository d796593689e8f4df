//! The error every export raises and the panic boundary. [`MrtrError`] is
//! generated from the core's areas (`areas.rs`): one variant, so one exception
//! class in Kotlin (`MrtrException.Retry`), Swift and Python
//! (`MrtrError.Retry`), per area; the core's table says which rule is where.

pub use crate::areas::MrtrError;
use mrtr::{Error, RuleId};
use mrtr_facade as facade;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

impl From<Error> for MrtrError {
    fn from(e: Error) -> MrtrError {
        let data = e.data().map(|d| d.to_string());
        MrtrError::in_area(e.area(), e.rule().name().into(), e.code(), e.message().into(), data)
    }
}

impl MrtrError {
    /// The rule id.
    pub fn rule(&self) -> &str {
        self.parts().0
    }

    /// The JSON-RPC error code, if any.
    pub fn code(&self) -> Option<i32> {
        self.parts().1
    }

    /// The sentence.
    pub fn message(&self) -> &str {
        self.parts().2
    }

    /// The refusal's data for the peer (`error.data`), as JSON text, if any.
    pub fn data(&self) -> Option<&str> {
        self.parts().3
    }
}

impl std::fmt::Display for MrtrError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.rule(), self.message())
    }
}

impl std::error::Error for MrtrError {}

/// `Result` with [`MrtrError`].
pub type Result<T, E = MrtrError> = std::result::Result<T, E>;

/// An exception a host's callback (the replay guard) threw that is not an
/// `MrtrError`: UniFFI gives its text only, so it comes back as
/// `usage-invalid-argument` naming it. (An `MrtrError` thrown by the callback
/// comes back as it was.)
impl From<uniffi::UnexpectedUniFFICallbackError> for MrtrError {
    fn from(e: uniffi::UnexpectedUniFFICallbackError) -> MrtrError {
        usage(format!("the host's callback threw: {}", e.reason))
    }
}

/// A misuse of the API the binding itself sees (`usage-invalid-argument`).
pub(crate) fn usage(message: impl Into<String>) -> MrtrError {
    Error::with(RuleId::UsageInvalidArgument, message.into()).into()
}

/// A value the façade wrote (`mrtr::wire`), read back as this binding's record.
pub(crate) fn wire<T: serde::de::DeserializeOwned>(text: &str) -> Result<T> {
    let bug = |e: serde_json::Error| Error::with(RuleId::InternalPanic, format!("mrtr wrote unreadable JSON: {e}"));
    Ok(serde_json::from_str(text).map_err(bug)?)
}

/// Runs an export's body; a panic becomes [`MrtrError::Panic`] (rule
/// `internal-panic`) instead of UniFFI's untyped internal error. A lock held
/// during the panic is poisoned, so the object it guards refuses later calls
/// with `Panic` too.
pub(crate) fn guard<T>(body: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| Err(facade::panic_error(&*payload).into()))
}

pub(crate) fn poisoned<E>(_: E) -> MrtrError {
    Error::new(RuleId::InternalPanic, "this object panicked in an earlier call and is unusable").into()
}

/// A mutex's guard, or `Panic` if an earlier panic poisoned it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> Result<MutexGuard<'_, T>> {
    m.lock().map_err(poisoned)
}

/// A read guard, or `Panic` if an earlier panic poisoned the lock.
pub(crate) fn read<T>(m: &RwLock<T>) -> Result<RwLockReadGuard<'_, T>> {
    m.read().map_err(poisoned)
}

/// A write guard, or `Panic` if an earlier panic poisoned the lock.
pub(crate) fn write<T>(m: &RwLock<T>) -> Result<RwLockWriteGuard<'_, T>> {
    m.write().map_err(poisoned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr::rules::RULES;

    #[test]
    fn every_rule_raises_the_variant_of_its_area() {
        for r in RULES {
            let e = MrtrError::from(Error::new(r.id, "x"));
            assert_eq!((e.rule(), e.code(), e.message()), (r.name, r.code, "x"));
            assert_eq!(format!("{e:?}").split(' ').next(), Some(r.area.title()), "{}", r.name);
        }
    }

    #[test]
    fn a_panic_is_internal_panic() {
        let e = guard::<()>(|| panic!("boom")).unwrap_err();
        assert!(matches!(e, MrtrError::Panic { .. }));
        assert_eq!((e.rule(), e.code()), ("internal-panic", Some(-32603)));
        assert!(e.message().contains("boom"), "{e}");
    }
}
