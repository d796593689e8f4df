//! `check`: a whole recorded conversation against every rule, and the
//! incremental `Checker`.
//!
//! A transcript is a list of entries `{"from": "client"|"server", "message":
//! …, "stream": "post:<id>"|"get"|None}` (the corpus' and `mrtr check`'s
//! format), or the same as JSON Lines (`str`/`bytes`).

use crate::{
    convert::{self, Raw, DETACH_BYTES},
    errors::raise,
    options::{self, Limits},
    tables::rule_member,
};
use mrtr::{
    check::{CheckConfig, Checker as Core, Entry, Side, Violation as CoreViolation},
    Error,
};
use pyo3::{
    exceptions::{PyTypeError, PyValueError},
    prelude::*,
    types::{PyDict, PyList},
};
use serde_json::Value;

/// A rule broken by the entry at `index`.
#[pyclass(module = "mrtr._mrtr", name = "Violation", frozen, eq)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation(CoreViolation);

#[pymethods]
impl Violation {
    /// The rule: a `Rule`.
    #[getter]
    fn rule<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        rule_member(py, self.0.rule)
    }

    /// The index of the offending entry.
    #[getter]
    fn index(&self) -> usize {
        self.0.index
    }

    /// What is wrong, in one sentence.
    #[getter]
    fn message(&self) -> &str {
        &self.0.message
    }

    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("rule", "index", "message")
    }

    fn __repr__(&self) -> String {
        format!("Violation(rule={:?}, index={}, message={:?})", self.0.rule.name(), self.0.index, self.0.message)
    }
}

fn config(protocol: Option<&str>, max_rounds: u32, limits: Option<&Bound<'_, Limits>>) -> PyResult<CheckConfig> {
    Ok(CheckConfig { protocol: options::protocol(protocol)?, max_rounds, limits: options::limits(limits) })
}

/// One entry from its JSON form.
fn entry_of_value(value: Value) -> Result<Entry, String> {
    let Value::Object(mut map) = value else { return Err("an entry is an object".into()) };
    let from = match map.get("from").and_then(Value::as_str) {
        Some("client") => Side::Client,
        Some("server") => Side::Server,
        _ => return Err("\"from\" must be \"client\" or \"server\"".into()),
    };
    let message = map.shift_remove("message").ok_or("an entry needs a \"message\"")?;
    let stream = match map.shift_remove("stream") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => return Err("\"stream\" must be a string".into()),
    };
    Ok(Entry { from, message, stream })
}

fn entry_of(obj: &Bound<'_, PyAny>, limits: &mrtr::Limits) -> PyResult<Entry> {
    if !obj.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err("an entry is a dict {\"from\", \"message\", \"stream\"}"));
    }
    entry_of_value(convert::from_python(obj, limits)?).map_err(PyValueError::new_err)
}

/// Why a JSON Lines transcript could not be read, and on which line (1-based).
enum LineError {
    /// Not one JSON value (or over a bound): the core's rule.
    Json(usize, Error),
    /// JSON, but not an entry.
    Entry(usize, String),
}

impl LineError {
    fn into_py(self) -> PyErr {
        match self {
            LineError::Json(n, e) => raise(Error::with(e.rule(), format!("line {n}: {}", e.message()))),
            LineError::Entry(n, e) => PyValueError::new_err(format!("line {n}: {e}")),
        }
    }
}

/// JSON Lines: one entry per non-blank line. Needs no GIL.
fn entries_of_jsonl(bytes: &[u8], limits: &mrtr::Limits) -> Result<Vec<Entry>, LineError> {
    let mut out = Vec::new();
    for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let value = convert::parse(line, limits).map_err(|e| LineError::Json(i + 1, e))?;
        out.push(entry_of_value(value).map_err(|e| LineError::Entry(i + 1, e))?);
    }
    Ok(out)
}

/// The entries of a transcript argument: JSON Lines (read with the GIL
/// released when large) or an iterable of entry dicts.
fn entries(py: Python<'_>, transcript: &Bound<'_, PyAny>, limits: &mrtr::Limits) -> PyResult<Vec<Entry>> {
    if let Some(raw) = Raw::of(transcript)? {
        let bytes = raw.as_bytes();
        let read = if bytes.len() >= DETACH_BYTES {
            py.detach(|| entries_of_jsonl(bytes, limits))
        } else {
            entries_of_jsonl(bytes, limits)
        };
        return read.map_err(LineError::into_py);
    }
    transcript.try_iter()?.map(|item| entry_of(&item?, limits)).collect()
}

fn violations(py: Python<'_>, found: Vec<CoreViolation>) -> PyResult<Bound<'_, PyList>> {
    PyList::new(py, found.into_iter().map(Violation))
}

/// Checks a whole conversation; returns the violations in transcript order.
#[pyfunction]
#[pyo3(signature = (transcript, protocol=None, max_rounds=10, limits=None))]
pub fn check<'py>(
    py: Python<'py>,
    transcript: &Bound<'py, PyAny>,
    protocol: Option<&str>,
    max_rounds: u32,
    limits: Option<&Bound<'py, Limits>>,
) -> PyResult<Bound<'py, PyList>> {
    let config = config(protocol, max_rounds, limits)?;
    let entries = entries(py, transcript, &config.limits)?;
    let found = if entries.len() >= 64 {
        py.detach(|| mrtr::check::check(&entries, config))
    } else {
        mrtr::check::check(&entries, config)
    };
    violations(py, found)
}

/// The incremental checker: feed entries one at a time.
#[pyclass(module = "mrtr._mrtr", name = "Checker", weakref)]
pub struct Checker {
    core: Core,
    limits: mrtr::Limits,
}

#[pymethods]
impl Checker {
    #[new]
    #[pyo3(signature = (protocol=None, max_rounds=10, limits=None))]
    fn new(protocol: Option<&str>, max_rounds: u32, limits: Option<&Bound<'_, Limits>>) -> PyResult<Checker> {
        let config = config(protocol, max_rounds, limits)?;
        Ok(Checker { core: Core::new(config), limits: config.limits })
    }

    /// Checks the next entry; returns the violations it added.
    fn handle<'py>(&mut self, py: Python<'py>, entry: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyList>> {
        let entry = entry_of(entry, &self.limits)?;
        let before = self.core.violations().len();
        self.core.handle(&entry);
        violations(py, self.core.violations()[before..].to_vec())
    }

    /// Every violation so far.
    #[getter]
    fn violations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        violations(py, self.core.violations().to_vec())
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Violation>()?;
    m.add_class::<Checker>()?;
    m.add_function(wrap_pyfunction!(check, m)?)
}
