//! `check`: a whole recorded conversation against every rule, the façade's
//! (`facade::check`, `facade::check_jsonl`) under its `Options`; the
//! incremental `Checker` is generated (`exports.rs`).
//!
//! A transcript is a list of entries: message entries `{"from": "client" |
//! "server", "message": …, "stream": "post:<id>" | "get" | None}` and HTTP
//! entries `{"from", "at", "http": {…}}` (the corpus' and `mrtr check`'s
//! format, read by the core), or the same as JSON Lines (`str`/`bytes`). The
//! binding writes a list of dicts out as the JSON array the façade reads;
//! what an entry may be, and what bounds it, is the façade's.

use crate::{
    convert::{from_python, make, maybe_detached, output_value, Raw},
    errors::{guard, usage, OrRaise},
    options::{Lim, Proto, Transport},
};
use mrtr::Limits;
use mrtr_facade as facade;
use pyo3::prelude::*;
use serde_json::Value;

/// The façade's options of a check.
fn options(
    protocol: Option<Proto>,
    max_rounds: Option<u32>,
    limits: Option<Lim>,
    transport: Option<Transport>,
) -> facade::Options {
    facade::Options {
        protocol: protocol.unwrap_or_default().0,
        limits: limits.unwrap_or_default().0,
        max_rounds,
        transport: transport.map(|t| t.0),
        ..facade::Options::default()
    }
}

/// How a Python entry is walked into JSON: the façade bounds each message
/// in it by `maxMessageBytes`, not the entry (an HTTP entry carries many),
/// so only the depth bounds the walk.
fn entry_budget(limits: &Limits) -> Limits {
    Limits { max_message_bytes: usize::MAX, ..*limits }
}

/// The violations of the façade's JSON text (`[{"rule", "index", "message"}]`) as the package's `Violation`s.
fn violations<'py>(py: Python<'py>, text: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let found = match output_value(text)? {
        Value::Array(found) => found,
        _ => Vec::new(),
    };
    found.iter().map(|v| make(py, "Violation", v)).collect()
}

/// Checks a whole conversation; returns the violations in transcript order.
#[pyfunction]
#[pyo3(signature = (transcript, protocol=None, max_rounds=None, limits=None, transport=None))]
pub fn check<'py>(
    py: Python<'py>,
    transcript: &Bound<'py, PyAny>,
    protocol: Option<Proto>,
    max_rounds: Option<u32>,
    limits: Option<Lim>,
    transport: Option<Transport>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    guard(|| {
        let o = options(protocol, max_rounds, limits, transport);
        let found = if let Some(raw) = Raw::of(transcript)? {
            let bytes = raw.as_bytes();
            maybe_detached(py, bytes.len(), || facade::check_jsonl(bytes, &o))
        } else {
            let items =
                transcript.try_iter().map_err(|_| usage("a transcript is JSON Lines or an iterable of entries"))?;
            let budget = entry_budget(&o.limits);
            let entries = items.map(|item| from_python(&item?, &budget)).collect::<PyResult<Vec<_>>>()?;
            let text = Value::Array(entries).to_string();
            maybe_detached(py, text.len(), || facade::check(text.as_bytes(), &o))
        }
        .or_raise()?;
        violations(py, &found)
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(check, m)?)
}
