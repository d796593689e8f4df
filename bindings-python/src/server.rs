//! The server side: `respond` answers with `input_required`, `resume` reads
//! the retry that comes back (a `Resumed`, made from the core's wire shape),
//! `complete` builds the final response and `check_headers` checks a
//! request's HTTP header fields against its body (both the façade's).

use crate::{
    convert::{from_python, json_arg, json_text, make, output, to_python},
    errors::{guard, OrRaise},
    options::{Lim, Proto},
    transport::{headers_text, options},
};
use mrtr::{facade, server};
use pyo3::prelude::*;

/// Builds the `input_required` answer to `request`.
///
/// `input_requests` is the `inputRequests` object (or `None`); `request_state`
/// the opaque state (or `None`), taken as a Python value (a `str`), never as raw JSON.
#[pyfunction]
#[pyo3(signature = (request, input_requests=None, request_state=None, protocol=None, limits=None))]
pub fn respond<'py>(
    request: &Bound<'py, PyAny>,
    input_requests: Option<&Bound<'py, PyAny>>,
    request_state: Option<&Bound<'py, PyAny>>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let l = &limits.unwrap_or_default().0;
        let (py, request) = (request.py(), json_arg(request, l)?);
        let asked = input_requests.map(|r| json_arg(r, l)).transpose()?;
        let state = request_state.map(|s| from_python(s, l)).transpose()?;
        let built = server::respond(&request, asked.as_ref(), state.as_ref(), protocol.unwrap_or_default().0, l);
        to_python(py, &built.or_raise()?)
    })
}

/// Reads the MRTR fields of `request` against what this server `needs`.
#[pyfunction]
#[pyo3(signature = (request, needs, protocol=None, limits=None))]
pub fn resume<'py>(
    request: &Bound<'py, PyAny>,
    needs: &Bound<'py, PyAny>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let l = &limits.unwrap_or_default().0;
        let (py, request, needs) = (request.py(), json_arg(request, l)?, json_arg(needs, l)?);
        make(py, "Resumed", &server::resume(&request, &needs, protocol.unwrap_or_default().0, l).or_raise()?)
    })
}

/// The final response to `request` with `result`: `resultType: "complete"`,
/// and `ttlMs: 0` when `request` is a retry (its result must not be cached).
#[pyfunction]
#[pyo3(signature = (request, result, protocol=None, limits=None))]
pub fn complete<'py>(
    request: &Bound<'py, PyAny>,
    result: &Bound<'py, PyAny>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let (py, o) = (request.py(), options(protocol, limits));
        let (request, result) = (json_text(request, &o.limits)?, json_text(result, &o.limits)?);
        output(py, &facade::complete(request.as_bytes(), result.as_bytes(), &o).or_raise()?)
    })
}

/// Checks a request's HTTP header fields (`MCP-Protocol-Version`,
/// `Mcp-Method`, `Mcp-Name`) against its body: `request-header-mismatch`.
#[pyfunction]
#[pyo3(signature = (request, headers, protocol=None, limits=None))]
pub fn check_headers(
    request: &Bound<'_, PyAny>,
    headers: &Bound<'_, PyAny>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<()> {
    guard(|| {
        let o = options(protocol, limits);
        let (request, headers) = (json_text(request, &o.limits)?, headers_text(Some(headers))?);
        facade::check_headers(request.as_bytes(), headers.as_bytes(), &o).or_raise()
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(respond, m)?)?;
    m.add_function(wrap_pyfunction!(resume, m)?)?;
    m.add_function(wrap_pyfunction!(complete, m)?)?;
    m.add_function(wrap_pyfunction!(check_headers, m)?)
}
