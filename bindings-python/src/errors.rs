//! Core errors as the façade's exceptions.
//!
//! The exception classes live in Python (`mrtr/_errors.py`), where the class
//! of each rule is chosen from its id's prefix. This module only calls the
//! façade's factory with the rule id, the JSON-RPC code and the message.

use pyo3::{exceptions::PyRuntimeError, prelude::*, sync::PyOnceLock};

static FACTORY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The façade's `mrtr._errors._from_native(rule, code, message)`.
fn factory(py: Python<'_>) -> PyResult<&Bound<'_, PyAny>> {
    FACTORY
        .get_or_try_init(py, || Ok::<_, PyErr>(py.import("mrtr._errors")?.getattr("_from_native")?.unbind()))
        .map(|f| f.bind(py))
}

/// The exception for a core error: an instance of `MrtrError`'s subclass for
/// the rule's area, carrying `.rule`, `.code` and `.message`.
pub fn to_py(py: Python<'_>, e: &mrtr::Error) -> PyErr {
    let made = factory(py).and_then(|f| f.call1((e.rule().name(), e.code(), e.message())));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        Err(import) => {
            let err = PyRuntimeError::new_err(e.to_string());
            err.set_cause(py, Some(import));
            err
        }
    }
}

/// [`to_py`] where no `Python` token is at hand (the caller holds the GIL).
pub fn raise(e: mrtr::Error) -> PyErr {
    Python::attach(|py| to_py(py, &e))
}

/// `Result<T, mrtr::Error>` to `PyResult<T>`.
pub trait OrRaise<T> {
    /// The value, or the exception for the core's error.
    fn or_raise(self) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, mrtr::Error> {
    fn or_raise(self) -> PyResult<T> {
        self.map_err(raise)
    }
}
