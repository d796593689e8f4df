//! `mrtr._mrtr`: the native half of the Python package `mrtr`.
//!
//! Thin by design: every function converts its arguments, calls the `mrtr`
//! core, and converts the outcome back. No protocol rule lives here. The
//! Python façade (`python/mrtr/`) adds the `str` enums (`Rule`, `Protocol`,
//! `TaskStatus`, `Kind`, generated from this module's tables) and the
//! exception classes (chosen by rule id prefix).
//!
//! One module per area of the core: [`classify`], [`check`], [`client`],
//! [`server`], [`state`] (sealed `requestState`), with [`convert`] (Python
//! objects and raw JSON to `serde_json::Value` and back), [`errors`] (core
//! errors to the façade's exceptions), [`options`] (`Limits`, protocol names)
//! and [`tables`] (the catalogues the façade builds its enums from).

use pyo3::prelude::*;

pub mod check;
pub mod classify;
pub mod client;
pub mod convert;
pub mod errors;
pub mod options;
pub mod server;
pub mod state;
pub mod tables;

/// Panics on purpose: the test suite shows that a Rust panic reaches Python as
/// `PanicException`, never an abort. Not part of the public API.
#[pyfunction]
fn _panic_for_tests() {
    panic!("a panic raised on purpose by _panic_for_tests");
}

/// The module `mrtr._mrtr`.
#[pymodule]
fn _mrtr(m: &Bound<'_, PyModule>) -> PyResult<()> {
    tables::register(m)?;
    options::register(m)?;
    classify::register(m)?;
    check::register(m)?;
    client::register(m)?;
    server::register(m)?;
    state::register(m)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add("PanicException", m.py().get_type::<pyo3::panic::PanicException>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
