//! `classify`: what one message is, and whether it breaks a rule it alone can show.

use crate::{
    convert::{self, Raw, DETACH_BYTES},
    errors::{guard, OrRaise},
    options::{Lim, Proto},
    tables::kind_member,
};
use mrtr::{Classified as Core, Id, ResultType};
use pyo3::prelude::*;
use std::borrow::Cow;

/// The outcome of `classify`: the core's own value, owned; its attributes
/// are made into Python objects only when read.
#[pyclass(module = "mrtr._mrtr", name = "Classified", frozen, eq)]
#[derive(PartialEq)]
pub struct Classified(Core<'static>);

#[pymethods]
impl Classified {
    /// What the message is: a `Kind`.
    #[getter]
    fn kind<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        kind_member(py, self.0.kind)
    }

    /// Its id (`int` or `str`), or `None`.
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::to_python(py, &serde_json::to_value(&self.0.id).unwrap_or_default())
    }

    /// Its method, for requests and notifications.
    #[getter]
    fn method(&self) -> Option<&str> {
        self.0.method.as_deref()
    }

    /// For results: `"complete"`, `"input_required"` or `"task"` (absent reads as complete).
    #[getter]
    fn result_type(&self) -> Option<&'static str> {
        self.0.result_type.map(ResultType::name)
    }

    /// For results: whether `resultType` was on the wire.
    #[getter]
    fn result_type_present(&self) -> bool {
        self.0.result_type_present
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let (kind, id) = (self.0.kind.name(), self.id(py)?.repr()?);
        Ok(format!("Classified(kind={kind:?}, id={id}, method={:?})", self.0.method.as_deref()))
    }
}

/// Classifies and validates one message: raw JSON (`bytes`, `str`) is read
/// straight from its bytes, with the GIL released when large; a `dict` is
/// converted first.
#[pyfunction]
#[pyo3(signature = (message, protocol=None, limits=None))]
pub fn classify(message: &Bound<'_, PyAny>, protocol: Option<Proto>, limits: Option<Lim>) -> PyResult<Classified> {
    guard(|| {
        let (protocol, limits) = (protocol.unwrap_or_default().0, limits.unwrap_or_default().0);
        let owned = |c: Core<'_>| {
            let (kind, result_type, result_type_present) = (c.kind, c.result_type, c.result_type_present);
            let (id, method) = (c.id.map(Id::into_owned), c.method.map(|m| Cow::Owned(m.into_owned())));
            Classified(Core { kind, id, method, result_type, result_type_present })
        };
        if let Some(raw) = Raw::of(message)? {
            let bytes = raw.as_bytes();
            let run = || mrtr::classify(bytes, protocol, &limits).map(owned);
            return if bytes.len() >= DETACH_BYTES { message.py().detach(run) } else { run() }.or_raise();
        }
        let value = convert::from_python(message, &limits)?;
        mrtr::classify_value(&value, protocol, &limits).map(owned).or_raise()
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Classified>()?;
    m.add_function(wrap_pyfunction!(classify, m)?)
}
