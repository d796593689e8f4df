//! What every call takes besides its messages: the protocol and the `Limits`.

use crate::errors::raise;
use mrtr::{Error, Protocol, RuleId};
use pyo3::prelude::*;

/// Bounds on what the core reads (`mrtr::Limits`); inputs over a bound fail
/// with `limit-exceeded` (or `state-too-large`) before anything is built.
#[pyclass(module = "mrtr._mrtr", name = "Limits", frozen, eq)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Limits(pub mrtr::Limits);

#[pymethods]
impl Limits {
    #[new]
    #[pyo3(signature = (*, max_message_bytes=None, max_depth=None, max_input_requests=None, max_request_state_bytes=None))]
    fn new(
        max_message_bytes: Option<usize>,
        max_depth: Option<usize>,
        max_input_requests: Option<usize>,
        max_request_state_bytes: Option<usize>,
    ) -> Limits {
        let d = mrtr::Limits::DEFAULT;
        Limits(mrtr::Limits {
            max_message_bytes: max_message_bytes.unwrap_or(d.max_message_bytes),
            max_depth: max_depth.unwrap_or(d.max_depth),
            max_input_requests: max_input_requests.unwrap_or(d.max_input_requests),
            max_request_state_bytes: max_request_state_bytes.unwrap_or(d.max_request_state_bytes),
        })
    }

    /// Bytes of one message.
    #[getter]
    fn max_message_bytes(&self) -> usize {
        self.0.max_message_bytes
    }

    /// Nesting depth of arrays and objects.
    #[getter]
    fn max_depth(&self) -> usize {
        self.0.max_depth
    }

    /// Entries of one `inputRequests` or `inputResponses` map.
    #[getter]
    fn max_input_requests(&self) -> usize {
        self.0.max_input_requests
    }

    /// Bytes of one `requestState`.
    #[getter]
    fn max_request_state_bytes(&self) -> usize {
        self.0.max_request_state_bytes
    }

    fn __repr__(&self) -> String {
        let l = self.0;
        format!(
            "Limits(max_message_bytes={}, max_depth={}, max_input_requests={}, max_request_state_bytes={})",
            l.max_message_bytes, l.max_depth, l.max_input_requests, l.max_request_state_bytes
        )
    }
}

/// The caller's limits, or the core's defaults.
pub fn limits(given: Option<&Bound<'_, Limits>>) -> mrtr::Limits {
    given.map_or(mrtr::Limits::DEFAULT, |l| l.get().0)
}

/// The protocol named `name` (a `Protocol` member or its `str` value), or the
/// core's default for `None`. An unknown name is `jsonrpc-invalid`, as the
/// conformance corpus says.
pub fn protocol(name: Option<&str>) -> PyResult<Protocol> {
    match name {
        None => Ok(Protocol::default()),
        Some(name) => {
            Protocol::from_name(name).ok_or_else(|| raise(Error::new(RuleId::JsonrpcInvalid, "unknown protocol")))
        }
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Limits>()
}
