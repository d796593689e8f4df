//! Core errors as the façade's exceptions, and the panic guard of every export.
//!
//! The exception classes live in Python (`mrtr/_errors.py`): one subclass of
//! `MrtrError` per area of the core's catalogue. This module hands the
//! façade's factory what the core's error says (rule, area, JSON-RPC code,
//! message) and picks no class itself.

use mrtr::{Error, RuleId};
use mrtr_facade as facade;
use pyo3::{prelude::*, sync::PyOnceLock};
use std::panic::{catch_unwind, AssertUnwindSafe};

static FACTORY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The exception for a core error: an instance of the class of its area,
/// carrying `.rule`, `.code`, `.message` and `.data` (the members of the
/// JSON-RPC error's `data` a refusal carries, as JSON text, or `None`).
pub fn raise(e: Error) -> PyErr {
    Python::attach(|py| {
        let factory =
            FACTORY.get_or_try_init(py, || py.import("mrtr._errors")?.getattr("_from_native").map(Bound::unbind));
        let made = factory.and_then(|f| {
            f.bind(py).call1((e.rule().name(), e.area().name(), e.code(), e.message(), e.data().map(|d| d.to_string())))
        });
        // Where the façade cannot be imported, that failure is the exception.
        made.map_or_else(|import| import, PyErr::from_value)
    })
}

/// A misuse the binding itself sees (a Python value that cannot be what the
/// argument needs): `usage-invalid-argument`, a `UsageError`.
pub fn usage(what: impl Into<String>) -> PyErr {
    raise(Error::with(RuleId::UsageInvalidArgument, what.into()))
}

/// `Result<T, mrtr::Error>` to `PyResult<T>`.
pub trait OrRaise<T> {
    /// The value, or the exception for the core's error.
    fn or_raise(self) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, Error> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(raise)
    }
}

/// Runs the body of an export. A panic in it becomes the core's
/// `internal-panic` error (`mrtr.PanicError`, an `MrtrError`), so that pyo3
/// never sees one and no `PanicException` (a `BaseException`) reaches Python.
pub fn guard<T>(body: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| Err(raise(facade::panic_error(&*payload))))
}
