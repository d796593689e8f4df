//! `Session.protocol`: what a session declared, read back (its constructor
//! and requests are generated, `exports.rs`, as is the `Client` machine).

use crate::exports::Session;
use pyo3::prelude::*;

/// The session's reading of what it declared.
#[pymethods]
impl Session {
    /// The protocol version the session asks for.
    #[getter]
    fn protocol(&self) -> &'static str {
        self.core.protocol().name()
    }
}
