//! The client side written in Python's idiom: `Client` wraps the core's
//! retry machine, its handles and events made into the package's classes;
//! `Session.protocol` reads what a session declared. The builders (`retry`,
//! `task_update`) and the `Session` (keywords and requests) are generated
//! (`exports.rs`).

use crate::exports::Session;
use crate::{
    convert::{class, from_python, json_arg, make, to_python, Raw},
    errors::{guard, usage, OrRaise},
    options::{Lim, Proto},
};
use mrtr::client::{self, ClientConfig, Handle};
use pyo3::prelude::*;

/// The core's handle inside a `mrtr.Handle`.
fn handle_of(handle: &Bound<'_, PyAny>) -> PyResult<Handle> {
    let value = handle.getattr("value").and_then(|v| v.extract());
    value.map(Handle).map_err(|_| usage("a handle is the mrtr.Handle that send() returned"))
}

/// The client's retry machine (sans-IO). Inputs: `send`, `handle_response`,
/// `answer`; after each, drain `poll_transmit` (messages to send, in order),
/// then `poll_event`.
#[pyclass(module = "mrtr._mrtr", name = "Client", weakref)]
pub struct Client {
    core: client::Client,
    limits: mrtr::Limits,
}

#[pymethods]
impl Client {
    #[new]
    #[pyo3(signature = (protocol=None, max_rounds=None, limits=None))]
    fn new(protocol: Option<Proto>, max_rounds: Option<u32>, limits: Option<Lim>) -> PyResult<Client> {
        guard(|| {
            let limits = limits.unwrap_or_default().0;
            let config = ClientConfig::DEFAULT
                .with_protocol(protocol.unwrap_or_default().0)
                .with_limits(limits)
                .with_max_rounds(max_rounds.unwrap_or(mrtr::DEFAULT_MAX_ROUNDS));
            Ok(Client { core: client::Client::new(config), limits })
        })
    }

    /// Starts `request`; returns its handle. The request is queued for `poll_transmit`.
    fn send<'py>(&mut self, py: Python<'py>, request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        guard(|| {
            let handle = self.core.send(json_arg(request, &self.limits)?).or_raise()?;
            class(py, "Handle")?.call1((handle.0,))
        })
    }

    /// Takes a response message from the server (raw JSON is classified from its bytes).
    fn handle_response(&mut self, response: &Bound<'_, PyAny>) -> PyResult<()> {
        guard(|| {
            match Raw::of(response)? {
                Some(raw) => self.core.handle_response(raw.as_bytes()),
                None => self.core.handle_response_value(from_python(response, &self.limits)?),
            }
            .or_raise()
        })
    }

    /// Answers the input requests of `handle` and queues the retry under the new `id`.
    fn answer(
        &mut self,
        handle: &Bound<'_, PyAny>,
        input_responses: &Bound<'_, PyAny>,
        id: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        guard(|| {
            let (responses, id) = (json_arg(input_responses, &self.limits)?, from_python(id, &self.limits)?);
            self.core.answer(handle_of(handle)?, &responses, id).or_raise()
        })
    }

    /// Gives up on `handle`.
    fn abandon(&mut self, handle: &Bound<'_, PyAny>) -> PyResult<()> {
        guard(|| handle_of(handle).map(|h| self.core.abandon(h)))
    }

    /// The next message to send, or `None`.
    fn poll_transmit<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        guard(|| self.core.poll_transmit().map(|m| to_python(py, &m)).transpose())
    }

    /// The next event (`InputRequired`, `RetryNow` or `Done`), or `None`.
    fn poll_event<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        guard(|| self.core.poll_event().map(|e| make(py, "_event", &e)).transpose())
    }

    /// Every queued message to send, in order (drains `poll_transmit`).
    fn drain_transmits<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        guard(|| std::iter::from_fn(|| self.core.poll_transmit()).map(|m| to_python(py, &m)).collect())
    }

    /// Every queued event, in order (drains `poll_event`).
    fn drain_events<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        guard(|| std::iter::from_fn(|| self.core.poll_event()).map(|e| make(py, "_event", &e)).collect())
    }
}

/// The session's reading of what it declared (its constructor and requests are generated).
#[pymethods]
impl Session {
    /// The protocol version the session asks for.
    #[getter]
    fn protocol(&self) -> &'static str {
        self.core.protocol().name()
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Client>()?;
    Ok(())
}
