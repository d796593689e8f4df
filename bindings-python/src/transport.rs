//! The kernel of the transports' generated rows (`exports.rs`: the machines,
//! their keyword constructors, `ServerStream`, `sse_encode`, …): how bytes,
//! header fields, the options and a configuration's keywords cross. What is
//! Python's own stays here: the decoder as an iterator, and
//! `read_http_request` (a body of `None`).
//!
//! The binding converts and nothing more: arguments become the façade's JSON
//! text (a `dict` written out, a `str`/`bytes` JSON text passed as given),
//! a call's keywords become the façade's configuration fields (snake_case to
//! camelCase), and the façade's JSON text comes back as plain Python
//! (`dict`, `list`, `str`, `int`). What a mode does, what a field means and
//! every default is the core's.

use crate::{
    convert::{from_python, json_text, maybe_detached, output, Raw},
    errors::{guard, usage, OrRaise},
    options::{title, Lim, Proto, Text},
};
use mrtr::Limits;
use mrtr_facade as facade;
use pyo3::{prelude::*, types::PyDict};
use serde_json::{Map, Value};

use crate::exports::SseDecoder;

/// Bytes an input carries: `bytes`, `bytearray`, or a `str` as its UTF-8
/// (one with lone surrogates as its ill-formed bytes, for the core to refuse).
pub(crate) fn bytes_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Raw> {
    Raw::of(obj)?.ok_or_else(|| usage(format!("{what} is bytes (or a str, as its UTF-8)")))
}

/// Header fields: a `dict` of names to `str` values, as the JSON object the
/// façade reads (it lower-cases the names and refuses anything but strings);
/// any other mapping by its `items()`, and an iterable of `(name, value)`
/// pairs, as the façade's list of pairs, so that a field sent twice stays
/// twice (Starlette's `Headers.items()` gives every field) and the core
/// judges it, never a last-wins `dict`; `None`: not given.
pub(crate) fn headers_value(headers: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    let Some(h) = headers.filter(|h| !h.is_none()) else { return Ok(None) };
    if h.is_instance_of::<PyDict>() {
        return from_python(h, &Limits::DEFAULT).map(Some);
    }
    let pairs = if h.hasattr("items")? { h.call_method0("items")? } else { h.clone() };
    let bad = || usage("header fields are a dict of str to str, or (name, value) pairs");
    let mut list = Vec::new();
    for pair in pairs.try_iter().map_err(|_| bad())? {
        let (name, value): (String, String) = pair?.extract().map_err(|_| bad())?;
        list.push(Value::Array(vec![Value::String(name), Value::String(value)]));
    }
    Ok(Some(Value::Array(list)))
}

/// [`headers_value`] as the façade's text (empty: none).
pub(crate) fn headers_text(headers: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    Ok(headers_value(headers)?.map(|v| v.to_string()).unwrap_or_default())
}

/// A keyword's value as JSON (`None`: not given).
pub(crate) fn opt_value(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    v.filter(|v| !v.is_none()).map(|v| from_python(v, &Limits::DEFAULT)).transpose()
}

/// `limits` as the JSON of a configuration's `limits` field (none: not given).
pub(crate) fn limits_value(limits: Option<Lim>) -> Option<Value> {
    // Limits always serialize (numbers only).
    limits.map(|l| serde_json::to_value(l.0).unwrap_or_default())
}

/// The façade's options for `protocol` and `limits` (every other field its default).
pub(crate) fn options(protocol: Option<Proto>, limits: Option<Lim>) -> facade::Options {
    facade::Options {
        protocol: protocol.unwrap_or_default().0,
        limits: limits.unwrap_or_default().0,
        ..Default::default()
    }
}

/// The decoder as Python's iterator: each block, until none is ready (an
/// unreadable block raises in its place; iterating again goes on after it).
#[pymethods]
impl SseDecoder {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.poll_event(py)
    }
}

/// The façade's call configuration: `config` (a `dict` of its camelCase
/// fields, or its JSON text) with each keyword given (not `None`) set over it.
pub(crate) fn call_config(config: Option<&Bound<'_, PyAny>>, keywords: &[(&str, Option<Value>)]) -> PyResult<Vec<u8>> {
    let given: Vec<_> = keywords.iter().filter_map(|(k, v)| v.as_ref().map(|v| (*k, v))).collect();
    let base = match config.filter(|c| !c.is_none()) {
        None => Value::Object(Map::new()),
        Some(c) => match Raw::of(c)? {
            // JSON text goes to the façade as given, unless keywords are set over it.
            Some(raw) if given.is_empty() => return Ok(raw.as_bytes().to_vec()),
            Some(raw) => crate::convert::parse_detached(c.py(), &raw, &Limits::DEFAULT)?,
            None => from_python(c, &Limits::DEFAULT)?,
        },
    };
    let mut fields = match base {
        Value::Object(fields) => fields,
        other if given.is_empty() => return Ok(other.to_string().into_bytes()),
        _ => return Err(usage("a call's configuration is a dict")),
    };
    for (name, value) in given {
        let camel: String = name.split('_').enumerate().map(title).collect();
        fields.insert(camel, value.clone());
    }
    Ok(Value::Object(fields).to_string().into_bytes())
}

/// Reads an incoming HTTP request to an MCP endpoint (or a stream URL):
/// `{"type": "call", "message"}`, `{"type": "messages", "messages"}`,
/// `{"type": "answers", "key", "responses"}` or `{"type": "resume", "key",
/// "lastEventId"}`. `body` is the raw body (`bytes`, a `str`, or a `dict`
/// written out; `None`: empty).
#[pyfunction]
#[pyo3(signature = (mode, method, url, headers=None, body=None, protocol=None, limits=None))]
#[allow(clippy::too_many_arguments)]
pub fn read_http_request<'py>(
    py: Python<'py>,
    mode: Text,
    method: Text,
    url: Text,
    headers: Option<&Bound<'py, PyAny>>,
    body: Option<&Bound<'py, PyAny>>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let o = options(protocol, limits);
        let headers = headers_text(headers)?;
        let body = body.filter(|b| !b.is_none()).map(|b| json_text(b, &o.limits)).transpose()?;
        let bytes = body.as_ref().map(|b| b.as_bytes()).unwrap_or_default();
        let (mode, method, url) = (&mode.0, &method.0, &url.0);
        let read = maybe_detached(py, bytes.len(), || {
            facade::read_http_request(mode, method, url, headers.as_bytes(), bytes, &o)
        });
        output(py, &read.or_raise()?)
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read_http_request, m)?)
}
