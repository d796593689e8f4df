//! `mrtr._mrtr`: the native half of the Python package `mrtr`.
//!
//! Thin by design: every export converts its arguments, calls the `mrtr` core
//! (or its façade, `mrtr_facade`) and converts back, under [`errors::guard`]
//! (a panic is `mrtr.PanicError`). The core decides: protocol names, partial
//! limits, every output's shape (`mrtr::wire`), every rule's area, whose
//! exception class the Python façade (`python/mrtr/`) makes from the core's
//! catalogue. [`convert`] turns Python objects and raw JSON into
//! `serde_json::Value` and back; the other modules follow the core's.

use pyo3::prelude::*;

pub mod check;
pub mod classify;
pub mod client;
pub mod convert;
pub mod errors;
pub mod exports;
pub mod options;
pub mod server;
pub mod state;
pub mod tables;
pub mod transport;

/// Panics on purpose: the test suite shows that a Rust panic reaches Python as
/// `mrtr.PanicError`, never an abort. Not part of the public API.
#[pyfunction]
fn _panic_for_tests() -> PyResult<()> {
    errors::guard(|| panic!("a panic raised on purpose by _panic_for_tests"))
}

/// The module `mrtr._mrtr`.
#[pymodule]
fn _mrtr(m: &Bound<'_, PyModule>) -> PyResult<()> {
    tables::register(m)?;
    classify::register(m)?;
    check::register(m)?;
    server::register(m)?;
    state::register(m)?;
    transport::register(m)?;
    exports::register(m)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
