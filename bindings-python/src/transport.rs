//! The transports' classes where Python's idiom differs from the façade's
//! rows: the constructors of `HttpCall` and `Operation` (the configuration
//! as keywords, set over `config`), `Operation.restore`, the decoder's
//! constructor and iteration, and `read_http_request` (a body of `None`).
//! Every other row of the transports (the machines' inputs and outputs,
//! `ServerStream`, `sse_encode`, `stream_url`, …) is generated
//! (`exports.rs`), and joins these classes in a second `#[pymethods]` block.
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
    options::{title, Lim, Nat, Proto, Text},
};
use mrtr::{facade, Limits};
use pyo3::{prelude::*, types::PyDict};
use serde_json::{Map, Value};

/// Bytes an input carries: `bytes`, `bytearray`, or a `str` as its UTF-8
/// (one with lone surrogates as its ill-formed bytes, for the core to refuse).
pub(crate) fn bytes_of(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Raw> {
    Raw::of(obj)?.ok_or_else(|| usage(format!("{what} is bytes (or a str, as its UTF-8)")))
}

/// Header fields: a `dict` (or any mapping) of names to `str` values, as the
/// JSON object the façade reads (it lower-cases the names and refuses
/// anything but strings); `None`: not given.
fn headers_value(headers: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    let Some(h) = headers.filter(|h| !h.is_none()) else { return Ok(None) };
    if h.is_instance_of::<PyDict>() {
        return from_python(h, &Limits::DEFAULT).map(Some);
    }
    let as_dict = PyDict::new(h.py());
    as_dict.call_method1("update", (h,)).map_err(|_| usage("header fields are a dict of str to str"))?;
    from_python(as_dict.as_any(), &Limits::DEFAULT).map(Some)
}

/// [`headers_value`] as the façade's text (empty: none).
pub(crate) fn headers_text(headers: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
    Ok(headers_value(headers)?.map(|v| v.to_string()).unwrap_or_default())
}

/// The façade's options for `protocol` and `limits` (every other field its default).
pub(crate) fn options(protocol: Option<Proto>, limits: Option<Lim>) -> facade::Options {
    facade::Options {
        protocol: protocol.unwrap_or_default().0,
        limits: limits.unwrap_or_default().0,
        ..Default::default()
    }
}

/// The incremental event-stream decoder: `feed` bytes as they arrive,
/// `finish` at the end of the body, and take each block with `poll_event`
/// (or by iterating) as a `dict` of the fields it set (`event`, `data`, `id`:
/// `str`; `retry`: `int`). A block the decoder cannot read (a line that is no
/// UTF-8, a block over `max_message_bytes`) is raised from `poll_event` (or
/// the iteration) as the `MrtrError` of its rule, in its place; the decoder
/// goes on with the next block.
#[pyclass(module = "mrtr._mrtr", name = "SseDecoder", weakref)]
pub struct SseDecoder {
    pub(crate) core: facade::SseDecoder,
}

#[pymethods]
impl SseDecoder {
    #[new]
    #[pyo3(signature = (limits=None))]
    fn new(limits: Option<Lim>) -> PyResult<SseDecoder> {
        guard(|| Ok(SseDecoder { core: facade::SseDecoder::new(&options(None, limits)) }))
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.poll_event(py)
    }
}

/// The façade's call configuration: `config` (a `dict` of its camelCase
/// fields, or its JSON text) with each keyword given (not `None`) set over it.
fn call_config(config: Option<&Bound<'_, PyAny>>, keywords: &[(&str, Option<Value>)]) -> PyResult<Vec<u8>> {
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

/// The client machine of one JSON-RPC call over HTTP (sans-IO), in any
/// transport mode. The host sends what `poll_transmit` gives (each a `dict`
/// `{"exchange", "method", "url", "headers", "body"}`), feeds back what its
/// HTTP stack received for that exchange (`handle_head`, `handle_body`,
/// `handle_end`), the time (`handle_timeout` when `poll_timeout` names it)
/// and its answers to server requests (`answer`); after every input it
/// drains `poll_transmit`, then `poll_event`, then reads `poll_timeout`.
/// Times are milliseconds on the host's clock.
#[pyclass(module = "mrtr._mrtr", name = "HttpCall", weakref)]
pub struct HttpCall {
    pub(crate) core: facade::HttpCall,
    pub(crate) limits: Limits,
}

fn opt_value(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Value>> {
    v.filter(|v| !v.is_none()).map(|v| from_python(v, &Limits::DEFAULT)).transpose()
}

#[pymethods]
impl HttpCall {
    /// Starts `request` (a `dict`, or its JSON text) at `now`. The
    /// configuration is `config` (the façade's: `{"mode", "url", "headers",
    /// "protocol", "limits", "maxEvents", …}`) and/or the keywords, which
    /// are set over it (`None`: not given); `mode` and `url` are required.
    #[new]
    #[pyo3(signature = (
        request, now, config=None, *, mode=None, url=None, headers=None, protocol=None, limits=None,
        max_events=None, max_links=None, max_link_bytes=None, max_retry_ms=None, max_reconnects=None,
        default_retry_ms=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        request: &Bound<'_, PyAny>,
        now: Nat,
        config: Option<&Bound<'_, PyAny>>,
        mode: Option<&Bound<'_, PyAny>>,
        url: Option<&Bound<'_, PyAny>>,
        headers: Option<&Bound<'_, PyAny>>,
        protocol: Option<&Bound<'_, PyAny>>,
        limits: Option<Lim>,
        max_events: Option<&Bound<'_, PyAny>>,
        max_links: Option<&Bound<'_, PyAny>>,
        max_link_bytes: Option<&Bound<'_, PyAny>>,
        max_retry_ms: Option<&Bound<'_, PyAny>>,
        max_reconnects: Option<&Bound<'_, PyAny>>,
        default_retry_ms: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<HttpCall> {
        guard(|| {
            let walk = limits.map(|l| l.0).unwrap_or(Limits::DEFAULT);
            let limits_value = limits.map(|l| serde_json::to_value(l.0).unwrap_or_default());
            let keywords = [
                ("mode", opt_value(mode)?),
                ("url", opt_value(url)?),
                ("headers", headers_value(headers)?),
                ("protocol", opt_value(protocol)?),
                ("limits", limits_value),
                ("max_events", opt_value(max_events)?),
                ("max_links", opt_value(max_links)?),
                ("max_link_bytes", opt_value(max_link_bytes)?),
                ("max_retry_ms", opt_value(max_retry_ms)?),
                ("max_reconnects", opt_value(max_reconnects)?),
                ("default_retry_ms", opt_value(default_retry_ms)?),
            ];
            let config = call_config(config, &keywords)?;
            let request = json_text(request, &walk)?;
            let core = facade::HttpCall::new(&config, request.as_bytes(), now.0).or_raise()?;
            Ok(HttpCall { core, limits: walk })
        })
    }
}

/// An operation's configuration as the façade reads it, from `config` (a
/// `dict` or JSON text) and the keywords set over it (`mode`, `url`,
/// `headers`, `protocol`, `max_rounds`, `max_resends`, `task_poll_ms`,
/// `versions`, `default_retry_ms`, in that order), and the limits of walking
/// the Python values given with it.
fn operation_config(
    config: Option<&Bound<'_, PyAny>>,
    keywords: [Option<&Bound<'_, PyAny>>; 9],
    limits: Option<Lim>,
) -> PyResult<(Vec<u8>, Limits)> {
    let walk = limits.map(|l| l.0).unwrap_or(Limits::DEFAULT);
    let [mode, url, headers, protocol, max_rounds, max_resends, task_poll_ms, versions, default_retry_ms] = keywords;
    let keywords = [
        ("mode", opt_value(mode)?),
        ("url", opt_value(url)?),
        ("headers", headers_value(headers)?),
        ("protocol", opt_value(protocol)?),
        ("limits", limits.map(|l| serde_json::to_value(l.0).unwrap_or_default())),
        ("max_rounds", opt_value(max_rounds)?),
        ("max_resends", opt_value(max_resends)?),
        ("task_poll_ms", opt_value(task_poll_ms)?),
        ("versions", opt_value(versions)?),
        ("default_retry_ms", opt_value(default_retry_ms)?),
    ];
    Ok((call_config(config, &keywords)?, walk))
}

/// One client operation over HTTP (sans-IO), in any transport mode: the
/// rounds of `2026-07-28` (each retry under a new id, with the answers and
/// the exact `requestState`) or the server requests on a call's stream
/// (`2025-11-25`, SEP-1858, SEP-1335), each question answered the same way,
/// `answer(key, result, now)`. Drain after every input: `poll_transmit`, then
/// `poll_event`, then read `poll_timeout`; `mrtr.run_operation` does it over
/// HTTP. Times are milliseconds on the host's clock.
#[pyclass(module = "mrtr._mrtr", name = "Operation", weakref)]
pub struct Operation {
    pub(crate) core: facade::Operation,
    pub(crate) limits: Limits,
}

#[pymethods]
impl Operation {
    /// Starts `request` (a `dict`, or its JSON text) at `now`. The
    /// configuration is `config` (an `HttpCall`'s, plus `"maxRounds"`,
    /// `"maxResends"`, `"taskPollMs"` and `"versions"`) and/or the keywords set over it;
    /// `mode` and `url` are required.
    #[new]
    #[pyo3(signature = (
        request, now, config=None, *, mode=None, url=None, headers=None, protocol=None, limits=None,
        max_rounds=None, max_resends=None, task_poll_ms=None, versions=None, default_retry_ms=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        request: &Bound<'_, PyAny>,
        now: Nat,
        config: Option<&Bound<'_, PyAny>>,
        mode: Option<&Bound<'_, PyAny>>,
        url: Option<&Bound<'_, PyAny>>,
        headers: Option<&Bound<'_, PyAny>>,
        protocol: Option<&Bound<'_, PyAny>>,
        limits: Option<Lim>,
        max_rounds: Option<&Bound<'_, PyAny>>,
        max_resends: Option<&Bound<'_, PyAny>>,
        task_poll_ms: Option<&Bound<'_, PyAny>>,
        versions: Option<&Bound<'_, PyAny>>,
        default_retry_ms: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Operation> {
        guard(|| {
            let (config, walk) = operation_config(
                config,
                [mode, url, headers, protocol, max_rounds, max_resends, task_poll_ms, versions, default_retry_ms],
                limits,
            )?;
            let request = json_text(request, &walk)?;
            let core = facade::Operation::new(&config, request.as_bytes(), now.0).or_raise()?;
            Ok(Operation { core, limits: walk })
        })
    }

    /// The operation of `snapshot` (what `snapshot()` gave, or its JSON text)
    /// under the configuration given as to the constructor, at `now`: the round
    /// in flight goes again under a new id, an open round asks its unanswered
    /// questions again, a followed task is polled after the wait that was left.
    #[staticmethod]
    #[pyo3(signature = (
        snapshot, now, config=None, *, mode=None, url=None, headers=None, protocol=None, limits=None,
        max_rounds=None, max_resends=None, task_poll_ms=None, versions=None, default_retry_ms=None
    ))]
    #[allow(clippy::too_many_arguments)]
    fn restore(
        snapshot: &Bound<'_, PyAny>,
        now: Nat,
        config: Option<&Bound<'_, PyAny>>,
        mode: Option<&Bound<'_, PyAny>>,
        url: Option<&Bound<'_, PyAny>>,
        headers: Option<&Bound<'_, PyAny>>,
        protocol: Option<&Bound<'_, PyAny>>,
        limits: Option<Lim>,
        max_rounds: Option<&Bound<'_, PyAny>>,
        max_resends: Option<&Bound<'_, PyAny>>,
        task_poll_ms: Option<&Bound<'_, PyAny>>,
        versions: Option<&Bound<'_, PyAny>>,
        default_retry_ms: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Operation> {
        guard(|| {
            let (config, walk) = operation_config(
                config,
                [mode, url, headers, protocol, max_rounds, max_resends, task_poll_ms, versions, default_retry_ms],
                limits,
            )?;
            let snapshot = json_text(snapshot, &walk)?;
            let core = facade::Operation::restore(&config, snapshot.as_bytes(), now.0).or_raise()?;
            Ok(Operation { core, limits: walk })
        })
    }
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
    m.add_class::<SseDecoder>()?;
    m.add_class::<HttpCall>()?;
    m.add_class::<Operation>()?;
    m.add_function(wrap_pyfunction!(read_http_request, m)?)
}
