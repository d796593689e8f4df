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
    guard(|| output(request.py(), &builder(request, result, protocol, limits, facade::complete)?))
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

/// What every request must pass before a server acts on it: its `_meta`
/// (`request-meta-missing`), its HTTP header fields when given
/// (`request-header-mismatch`), then a protocol version among `supported`
/// (`protocol-version-unsupported`, -32022, whose `.data` lists them).
#[pyfunction]
#[pyo3(signature = (request, supported, headers=None, protocol=None, limits=None))]
pub fn check_request(
    request: &Bound<'_, PyAny>,
    supported: &Bound<'_, PyAny>,
    headers: Option<&Bound<'_, PyAny>>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<()> {
    guard(|| {
        let o = options(protocol, limits);
        let (request, supported) = (json_text(request, &o.limits)?, json_text(supported, &o.limits)?);
        let headers = headers.map(|h| headers_text(Some(h))).transpose()?;
        let headers = headers.as_deref().map(str::as_bytes);
        facade::check_request(request.as_bytes(), headers, supported.as_bytes(), &o).or_raise()
    })
}

/// The client capabilities `questions` (a dict of input requests) need that
/// `request` did not declare, as one `ClientCapabilities` dict, or `None`.
#[pyfunction]
#[pyo3(signature = (request, questions, protocol=None, limits=None))]
pub fn missing_capabilities<'py>(
    request: &Bound<'py, PyAny>,
    questions: &Bound<'py, PyAny>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let missing = builder(request, questions, protocol, limits, facade::missing_capabilities)?;
    guard(|| missing.map(|m| output(request.py(), &m)).transpose())
}

/// Raises `request-capability-missing` (-32021, `.data` naming the
/// capabilities) unless `request` declared every capability `questions` need.
#[pyfunction]
#[pyo3(signature = (request, questions, protocol=None, limits=None))]
pub fn require_capabilities(
    request: &Bound<'_, PyAny>,
    questions: &Bound<'_, PyAny>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<()> {
    builder(request, questions, protocol, limits, facade::require_capabilities)
}

/// Raises `request-capability-missing` (-32021) unless `request` declared
/// every capability of `required` (a `ClientCapabilities` dict, such as
/// `{"extensions": {"io.modelcontextprotocol/tasks": {}}}`).
#[pyfunction]
#[pyo3(signature = (request, required, protocol=None, limits=None))]
pub fn require_declared(
    request: &Bound<'_, PyAny>,
    required: &Bound<'_, PyAny>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<()> {
    builder(request, required, protocol, limits, facade::require_declared)
}

/// The response to `request` that starts the task of `record` (a task record
/// dict: `taskId`, `status`, `createdAt`, `lastUpdatedAt`, `ttlMs`, …).
#[pyfunction]
#[pyo3(signature = (request, record, protocol=None, limits=None))]
pub fn task_created<'py>(
    request: &Bound<'py, PyAny>,
    record: &Bound<'py, PyAny>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| output(request.py(), &builder(request, record, protocol, limits, facade::task_created)?))
}

/// The complete answer to `tasks/get` `request` for the task of `record`: the
/// fields of its status (`result`, `error`, or only the input requests its
/// `answered` keys leave open).
#[pyfunction]
#[pyo3(signature = (request, record, protocol=None, limits=None))]
pub fn task_get_response<'py>(
    request: &Bound<'py, PyAny>,
    record: &Bound<'py, PyAny>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| output(request.py(), &builder(request, record, protocol, limits, facade::task_get_response)?))
}

/// The façade's `f` on two JSON arguments (the request, and what it is
/// checked against or built with) under `protocol` and `limits`, its error
/// raised: the body of every two-argument builder here.
fn builder<T>(
    request: &Bound<'_, PyAny>,
    other: &Bound<'_, PyAny>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
    f: impl FnOnce(&[u8], &[u8], &facade::Options) -> mrtr::Result<T>,
) -> PyResult<T> {
    guard(|| {
        let o = options(protocol, limits);
        let (request, other) = (json_text(request, &o.limits)?, json_text(other, &o.limits)?);
        f(request.as_bytes(), other.as_bytes(), &o).or_raise()
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check_request, m)?)?;
    m.add_function(wrap_pyfunction!(missing_capabilities, m)?)?;
    m.add_function(wrap_pyfunction!(require_capabilities, m)?)?;
    m.add_function(wrap_pyfunction!(require_declared, m)?)?;
    m.add_function(wrap_pyfunction!(task_created, m)?)?;
    m.add_function(wrap_pyfunction!(task_get_response, m)?)?;
    m.add_function(wrap_pyfunction!(respond, m)?)?;
    m.add_function(wrap_pyfunction!(resume, m)?)?;
    m.add_function(wrap_pyfunction!(complete, m)?)?;
    m.add_function(wrap_pyfunction!(check_headers, m)?)
}
