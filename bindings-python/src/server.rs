//! The server side: `respond` answers with `input_required`, `resume` reads
//! the retry that comes back.

use crate::{
    convert::{self, json_arg, str_list, to_py_obj, value_arg},
    errors::OrRaise,
    options::{self, Limits},
};
use mrtr::server;
use pyo3::{prelude::*, types::PyDict};
use serde_json::Value;

/// Builds the `input_required` answer to `request`.
///
/// `input_requests` is the `inputRequests` object (or `None`); `request_state`
/// the opaque state (or `None`), taken as a Python value (a `str`), never as raw JSON.
#[pyfunction]
#[pyo3(signature = (request, input_requests=None, request_state=None, protocol=None, limits=None))]
pub fn respond<'py>(
    py: Python<'py>,
    request: &Bound<'py, PyAny>,
    input_requests: Option<&Bound<'py, PyAny>>,
    request_state: Option<&Bound<'py, PyAny>>,
    protocol: Option<&str>,
    limits: Option<&Bound<'py, Limits>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (protocol, limits) = (options::protocol(protocol)?, options::limits(limits));
    let request = json_arg(request, &limits)?;
    let requests = input_requests.map(|r| json_arg(r, &limits)).transpose()?;
    let state = request_state.map(|s| value_arg(s, &limits)).transpose()?;
    let built = server::respond(&request, requests.as_ref(), state.as_ref(), protocol, &limits).or_raise()?;
    convert::to_python(py, &built)
}

/// What a server learns from an incoming request (`mrtr::server::Resumed`).
#[pyclass(module = "mrtr._mrtr", name = "Resumed", frozen, get_all)]
pub struct Resumed {
    /// The answers to needed keys that are present, in the order of `needs`.
    responses: Py<PyDict>,
    /// Needed keys without an answer: ask again.
    missing: Py<PyAny>,
    /// Keys answered but not needed: ignore them.
    ignored: Py<PyAny>,
    /// The echoed `requestState`, for the server to validate.
    request_state: Option<String>,
}

#[pymethods]
impl Resumed {
    /// Whether every needed answer is there.
    #[getter]
    fn complete(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.missing.bind(py).len()? == 0)
    }

    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str, &'static str) {
        ("responses", "missing", "ignored", "request_state")
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "Resumed(responses=<{} keys>, missing={}, ignored={}, request_state={})",
            self.responses.bind(py).len(),
            self.missing.bind(py).repr()?,
            self.ignored.bind(py).repr()?,
            self.request_state.as_ref().map_or("None".into(), |s| format!("{s:?}")),
        ))
    }
}

/// Reads the MRTR fields of `request` against what this server `needs`.
#[pyfunction]
#[pyo3(signature = (request, needs, protocol=None, limits=None))]
pub fn resume(
    py: Python<'_>,
    request: &Bound<'_, PyAny>,
    needs: &Bound<'_, PyAny>,
    protocol: Option<&str>,
    limits: Option<&Bound<'_, Limits>>,
) -> PyResult<Resumed> {
    let (protocol, limits) = (options::protocol(protocol)?, options::limits(limits));
    let (request, needs) = (json_arg(request, &limits)?, json_arg(needs, &limits)?);
    let r = server::resume(&request, &needs, protocol, &limits).or_raise()?;
    let responses = to_py_obj(py, &Value::Object(r.responses))?.bind(py).clone().cast_into::<PyDict>()?.unbind();
    Ok(Resumed {
        responses,
        missing: str_list(py, &r.missing)?.into_any().unbind(),
        ignored: str_list(py, &r.ignored)?.into_any().unbind(),
        request_state: r.request_state,
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Resumed>()?;
    m.add_function(wrap_pyfunction!(respond, m)?)?;
    m.add_function(wrap_pyfunction!(resume, m)?)
}
