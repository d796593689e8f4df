//! Integers across the boundary. The JVM has no unsigned integers: Kotlin's
//! `ULong`/`UInt` are inline classes whose functions Java cannot call (their
//! names are mangled). So every integer this binding takes or gives is signed
//! (`i64`, `i32`), and what the core counts unsigned is converted here: a
//! value out of the core's range is the caller's misuse
//! (`usage-invalid-argument`, naming the parameter); a value the core gives
//! beyond the signed range (never in practice: times in ms, handles, counts)
//! saturates.

use crate::error::{usage, Result};

/// `value` in the core's unsigned type `T`, or `usage-invalid-argument` naming `what`.
pub(crate) fn unsigned<T: TryFrom<i64>>(value: impl Into<i64>, what: &str) -> Result<T> {
    let value = value.into();
    T::try_from(value).map_err(|_| usage(format!("{what} is out of range: {value}")))
}

/// [`unsigned`] of an optional argument.
pub(crate) fn unsigned_opt<T: TryFrom<i64>>(value: Option<impl Into<i64>>, what: &str) -> Result<Option<T>> {
    value.map(|v| unsigned(v, what)).transpose()
}

/// A core count or time as `i64` (saturating).
pub(crate) fn long(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A core count as `i32` (saturating).
pub(crate) fn int(value: u32) -> i32 {
    i32::try_from(value).unwrap_or(i32::MAX)
}
