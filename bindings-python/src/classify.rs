//! `classify`: what one message is, and whether it breaks a rule it alone can show.

use crate::{
    convert::{self, Raw, DETACH_BYTES},
    errors::OrRaise,
    options::{self, Limits},
    tables::kind_member,
};
use mrtr::{Classified as Core, Id, ResultType};
use pyo3::prelude::*;

/// A JSON-RPC id, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnedId {
    /// An integer id.
    Int(i64),
    /// An integer id above `i64::MAX`.
    UInt(u64),
    /// A string id.
    Str(String),
}

/// The outcome of `classify`: a small view holding Rust values; its
/// attributes are made into Python objects only when read.
#[pyclass(module = "mrtr._mrtr", name = "Classified", frozen, eq)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classified {
    kind: &'static str,
    id: Option<OwnedId>,
    method: Option<String>,
    result_type: Option<&'static str>,
    result_type_present: bool,
}

impl From<Core<'_>> for Classified {
    fn from(c: Core<'_>) -> Classified {
        Classified {
            kind: c.kind.name(),
            id: match c.id {
                None | Some(Id::Null) => None,
                Some(Id::Int(i)) => Some(OwnedId::Int(i)),
                Some(Id::UInt(u)) => Some(OwnedId::UInt(u)),
                Some(Id::Str(s)) => Some(OwnedId::Str(s.into_owned())),
            },
            method: c.method.map(|m| m.into_owned()),
            result_type: c.result_type.map(|t| match t {
                ResultType::Complete => "complete",
                ResultType::InputRequired => "input_required",
                ResultType::Task => "task",
            }),
            result_type_present: c.result_type_present,
        }
    }
}

#[pymethods]
impl Classified {
    /// What the message is: a `Kind`.
    #[getter]
    fn kind<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        kind_member(py, self.kind)
    }

    /// Its id (`int` or `str`), or `None`.
    #[getter]
    fn id<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        Ok(match &self.id {
            None => None,
            Some(OwnedId::Int(i)) => Some(i.into_pyobject(py)?.into_any()),
            Some(OwnedId::UInt(u)) => Some(u.into_pyobject(py)?.into_any()),
            Some(OwnedId::Str(s)) => Some(s.into_pyobject(py)?.into_any()),
        })
    }

    /// Its method, for requests and notifications.
    #[getter]
    fn method(&self) -> Option<&str> {
        self.method.as_deref()
    }

    /// For results: `"complete"`, `"input_required"` or `"task"` (absent reads as complete).
    #[getter]
    fn result_type(&self) -> Option<&'static str> {
        self.result_type
    }

    /// For results: whether `resultType` was on the wire.
    #[getter]
    fn result_type_present(&self) -> bool {
        self.result_type_present
    }

    fn __repr__(&self) -> String {
        let id = match &self.id {
            None => "None".to_string(),
            Some(OwnedId::Int(i)) => i.to_string(),
            Some(OwnedId::UInt(u)) => u.to_string(),
            Some(OwnedId::Str(s)) => format!("{s:?}"),
        };
        let method = self.method.as_ref().map_or("None".to_string(), |m| format!("{m:?}"));
        format!("Classified(kind={:?}, id={id}, method={method})", self.kind)
    }
}

/// Classifies and validates one message: raw JSON (`bytes`, `str`) is read
/// straight from its bytes, with the GIL released when large; a `dict` is
/// converted first.
#[pyfunction]
#[pyo3(signature = (message, protocol=None, limits=None))]
pub fn classify(
    py: Python<'_>,
    message: &Bound<'_, PyAny>,
    protocol: Option<&str>,
    limits: Option<&Bound<'_, Limits>>,
) -> PyResult<Classified> {
    let protocol = options::protocol(protocol)?;
    let limits = options::limits(limits);
    if let Some(raw) = Raw::of(message)? {
        let bytes = raw.as_bytes();
        let run = || mrtr::classify(bytes, protocol, &limits).map(Classified::from);
        return if bytes.len() >= DETACH_BYTES { py.detach(run) } else { run() }.or_raise();
    }
    let value = convert::from_python(message, &limits)?;
    mrtr::classify_value(&value, protocol, &limits).map(Classified::from).or_raise()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Classified>()?;
    m.add_function(wrap_pyfunction!(classify, m)?)
}
