//! The core's catalogues, for the façade to build its `str` enums from
//! (`Rule`, `Protocol`, `TaskStatus`, `Kind`), and the task status table.

use crate::errors::OrRaise;
use mrtr::{protocol::Protocol, rules::RULES, tasks::TaskStatus};
use pyo3::{
    prelude::*,
    sync::PyOnceLock,
    types::{PyDict, PyString},
};

/// `(name, number, code, source)` for every rule of `mrtr::rules::RULES`, in order.
fn rules() -> Vec<(&'static str, u16, Option<i32>, &'static str)> {
    RULES.iter().map(|r| (r.name, r.id as u16, r.code, r.source)).collect()
}

/// The protocol names, default first.
fn protocols() -> Vec<&'static str> {
    Protocol::ALL.iter().map(|p| p.name()).collect()
}

/// `(name, is_terminal)` for every task status.
fn task_statuses() -> Vec<(&'static str, bool)> {
    TaskStatus::ALL.iter().map(|s| (s.name(), s.is_terminal())).collect()
}

/// The message kinds `classify` tells apart.
const KINDS: [&str; 5] = ["request", "notification", "result", "input_required", "error"];

/// Whether a task may go from status `from` to status `to` (names; an unknown
/// name is `task-status-invalid`).
#[pyfunction]
fn task_may_become(current: &str, next: &str) -> PyResult<bool> {
    let (from, to) = (TaskStatus::from_name(current).or_raise()?, TaskStatus::from_name(next).or_raise()?);
    Ok(from.may_become(to))
}

/// `to` if a task may go from `from` to `to`, else `task-transition-invalid`.
#[pyfunction]
fn task_transition(current: &str, next: &str) -> PyResult<&'static str> {
    let (from, to) = (TaskStatus::from_name(current).or_raise()?, TaskStatus::from_name(next).or_raise()?);
    Ok(from.transition(to).or_raise()?.name())
}

/// The status named `name`, or `task-status-invalid`.
#[pyfunction]
fn task_status(name: &str) -> PyResult<&'static str> {
    Ok(TaskStatus::from_name(name).or_raise()?.name())
}

/// Whether `protocol` lets a server answer `method` with `input_required`.
#[pyfunction]
fn allows_input_required(protocol: &str, method: &str) -> PyResult<bool> {
    Ok(crate::options::protocol(Some(protocol))?.allows_input_required(method))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RULES", rules())?;
    m.add("PROTOCOLS", protocols())?;
    m.add("DEFAULT_PROTOCOL", Protocol::default().name())?;
    m.add("TASK_STATUSES", task_statuses())?;
    m.add("KINDS", KINDS.to_vec())?;
    m.add_function(wrap_pyfunction!(task_may_become, m)?)?;
    m.add_function(wrap_pyfunction!(task_transition, m)?)?;
    m.add_function(wrap_pyfunction!(task_status, m)?)?;
    m.add_function(wrap_pyfunction!(allows_input_required, m)?)?;
    Ok(())
}

static RULE_MEMBERS: PyOnceLock<Py<PyDict>> = PyOnceLock::new();
static KIND_MEMBERS: PyOnceLock<Py<PyDict>> = PyOnceLock::new();

fn member<'py>(
    py: Python<'py>,
    cell: &PyOnceLock<Py<PyDict>>,
    table: &str,
    name: &'static str,
) -> PyResult<Bound<'py, PyAny>> {
    let members = cell.get_or_try_init(py, || {
        py.import("mrtr._enums")?.getattr(table)?.cast_into::<PyDict>().map(Bound::unbind).map_err(PyErr::from)
    })?;
    match members.bind(py).get_item(name)? {
        Some(m) => Ok(m),
        None => Ok(PyString::new(py, name).into_any()),
    }
}

/// The façade's `Rule` member for `rule`.
pub fn rule_member(py: Python<'_>, rule: mrtr::RuleId) -> PyResult<Bound<'_, PyAny>> {
    member(py, &RULE_MEMBERS, "_RULE_BY_NAME", rule.name())
}

/// The façade's `Kind` member named `name`.
pub fn kind_member<'py>(py: Python<'py>, name: &'static str) -> PyResult<Bound<'py, PyAny>> {
    member(py, &KIND_MEMBERS, "_KIND_BY_NAME", name)
}
