//! The server side written in Python's idiom: `resume` reads the retry that
//! comes back (a `Resumed`, made from the core's wire shape), and
//! `check_headers` / `check_request` check a request (the header fields
//! among the keywords). The builders (`respond`, `complete`, the capability
//! checks, the task responses) are generated (`exports.rs`).

use crate::{
    convert::{json_arg, json_text, make},
    errors::{guard, OrRaise},
    options::{Lim, Proto},
    transport::{headers_text, options},
};
use mrtr::server;
use mrtr_facade as facade;
use pyo3::prelude::*;

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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check_request, m)?)?;
    m.add_function(wrap_pyfunction!(resume, m)?)?;
    m.add_function(wrap_pyfunction!(check_headers, m)?)
}
