//! The core's catalogue (`mrtr_facade::catalogue`), which the façade builds
//! its enums and exception classes from, and the predicates those enums call.

use crate::{
    errors::{guard, OrRaise},
    options::Proto,
};
use mrtr::{tasks::TaskStatus, Kind, Protocol};
use mrtr_facade as facade;
use pyo3::{prelude::*, sync::PyOnceLock, types::PyTuple};

/// The core's tables as JSON text: rules (with area, number, code, source),
/// areas, protocols, kinds, result types, task statuses, algorithms, default limits.
#[pyfunction]
fn catalogue() -> PyResult<String> {
    guard(|| Ok(facade::catalogue()))
}

/// `next` if a task may go from `current` to `next`, else `task-transition-invalid`.
#[pyfunction]
fn task_transition(current: &str, next: &str) -> PyResult<&'static str> {
    guard(|| facade::task_transition(current, next).or_raise())
}

/// Whether a task may go from status `current` to status `next`.
#[pyfunction]
fn task_may_become(current: &str, next: &str) -> PyResult<bool> {
    guard(|| Ok(TaskStatus::from_name(current).or_raise()?.may_become(TaskStatus::from_name(next).or_raise()?)))
}

/// Whether nothing may follow the status `name`.
#[pyfunction]
fn task_is_terminal(name: &str) -> PyResult<bool> {
    guard(|| TaskStatus::from_name(name).map(TaskStatus::is_terminal).or_raise())
}

/// Whether `protocol` lets a server answer `method` with `input_required`.
#[pyfunction]
fn allows_input_required(protocol: Proto, method: &str) -> PyResult<bool> {
    guard(|| Ok(protocol.0.allows_input_required(method)))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DEFAULT_PROTOCOL", Protocol::default().name())?;
    m.add_function(wrap_pyfunction!(catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(task_transition, m)?)?;
    m.add_function(wrap_pyfunction!(task_may_become, m)?)?;
    m.add_function(wrap_pyfunction!(task_is_terminal, m)?)?;
    m.add_function(wrap_pyfunction!(allows_input_required, m)?)
}

static KINDS: PyOnceLock<Py<PyTuple>> = PyOnceLock::new();

/// The façade's `Kind` member for `kind` (a tuple lookup: `classify` is hot).
pub fn kind_member(py: Python<'_>, kind: Kind) -> PyResult<Bound<'_, PyAny>> {
    let members = KINDS.get_or_try_init(py, || {
        let enum_ = py.import("mrtr._enums")?.getattr("Kind")?;
        Kind::ALL
            .iter()
            .map(|k| enum_.call1((k.name(),)))
            .collect::<PyResult<Vec<_>>>()
            .and_then(|m| PyTuple::new(py, m).map(Bound::unbind))
    })?;
    members.bind(py).get_item(Kind::ALL.iter().position(|k| *k == kind).unwrap_or_default())
}
