//! `check`: a whole recorded conversation against every rule, and the
//! incremental `Checker`.
//!
//! A transcript is a list of entries `{"from": "client"|"server", "message":
//! …, "stream": "post:<id>"|"get"|None}` (the corpus' and `mrtr check`'s
//! format, read by the core's `Entry::from_value`), or the same as JSON Lines
//! (`str`/`bytes`).

use crate::{
    convert::{from_python, make, Raw, DETACH_BYTES},
    errors::{guard, usage, OrRaise},
    options::{Lim, Proto},
};
use mrtr::{
    check::{self as core, CheckConfig, Entry, Violation},
    facade, Limits,
};
use pyo3::prelude::*;

fn config(protocol: Option<Proto>, max_rounds: Option<u32>, limits: Option<Lim>) -> CheckConfig {
    let d = CheckConfig::default();
    let max_rounds = max_rounds.unwrap_or(d.max_rounds);
    CheckConfig { protocol: protocol.unwrap_or_default().0, max_rounds, limits: limits.unwrap_or_default().0 }
}

/// The entries of a transcript argument: JSON Lines (read with the GIL
/// released when large) or an iterable of entry dicts.
fn entries(py: Python<'_>, transcript: &Bound<'_, PyAny>, limits: &Limits) -> PyResult<Vec<Entry>> {
    if let Some(raw) = Raw::of(transcript)? {
        let bytes = raw.as_bytes();
        return if bytes.len() >= DETACH_BYTES {
            py.detach(|| facade::read_jsonl(bytes, limits))
        } else {
            facade::read_jsonl(bytes, limits)
        }
        .or_raise();
    }
    let items = transcript.try_iter().map_err(|_| usage("a transcript is JSON Lines or an iterable of entries"))?;
    items.map(|item| Entry::from_value(&from_python(&item?, limits)?).or_raise()).collect()
}

fn violations<'py>(py: Python<'py>, found: &[Violation]) -> PyResult<Vec<Bound<'py, PyAny>>> {
    found.iter().map(|v| make(py, "Violation", v)).collect()
}

/// Checks a whole conversation; returns the violations in transcript order.
#[pyfunction]
#[pyo3(signature = (transcript, protocol=None, max_rounds=None, limits=None))]
pub fn check<'py>(
    py: Python<'py>,
    transcript: &Bound<'py, PyAny>,
    protocol: Option<Proto>,
    max_rounds: Option<u32>,
    limits: Option<Lim>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    guard(|| {
        let config = config(protocol, max_rounds, limits);
        let entries = entries(py, transcript, &config.limits)?;
        let found = if entries.len() >= 64 {
            py.detach(|| core::check(&entries, config))
        } else {
            core::check(&entries, config)
        };
        violations(py, &found)
    })
}

/// The incremental checker: feed entries one at a time.
#[pyclass(module = "mrtr._mrtr", name = "Checker", weakref)]
pub struct Checker {
    core: core::Checker,
    limits: Limits,
}

#[pymethods]
impl Checker {
    #[new]
    #[pyo3(signature = (protocol=None, max_rounds=None, limits=None))]
    fn new(protocol: Option<Proto>, max_rounds: Option<u32>, limits: Option<Lim>) -> PyResult<Checker> {
        guard(|| {
            let config = config(protocol, max_rounds, limits);
            Ok(Checker { core: core::Checker::new(config), limits: config.limits })
        })
    }

    /// Checks the next entry; returns the violations it added.
    fn handle<'py>(&mut self, py: Python<'py>, entry: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        guard(|| {
            let before = self.core.violations().len();
            self.core.handle(&Entry::from_value(&from_python(entry, &self.limits)?).or_raise()?);
            violations(py, &self.core.violations()[before..])
        })
    }

    /// Every violation so far.
    #[getter]
    fn violations<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        guard(|| violations(py, self.core.violations()))
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Checker>()?;
    m.add_function(wrap_pyfunction!(check, m)?)
}
