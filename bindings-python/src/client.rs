//! The client side: `retry` and `task_update` build the answer to an
//! `input_required` result; `Client` wraps the core's retry machine.

use crate::{
    convert::{self, json_arg, to_py_obj, value_arg, Raw},
    errors::OrRaise,
    options::{self, Limits},
};
use mrtr::client::{self, ClientConfig, Event, Handle as CoreHandle};
use pyo3::prelude::*;

/// Builds the retry of `request` answering `result` with `input_responses`, under the new `id`.
#[pyfunction]
#[pyo3(signature = (request, result, input_responses, id, protocol=None, limits=None))]
pub fn retry<'py>(
    py: Python<'py>,
    request: &Bound<'py, PyAny>,
    result: &Bound<'py, PyAny>,
    input_responses: &Bound<'py, PyAny>,
    id: &Bound<'py, PyAny>,
    protocol: Option<&str>,
    limits: Option<&Bound<'py, Limits>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (protocol, limits) = (options::protocol(protocol)?, options::limits(limits));
    let (request, result) = (json_arg(request, &limits)?, json_arg(result, &limits)?);
    let (responses, id) = (json_arg(input_responses, &limits)?, value_arg(id, &limits)?);
    let built = client::retry(&request, &result, &responses, &id, protocol, &limits).or_raise()?;
    convert::to_python(py, &built)
}

/// Builds the `tasks/update` request answering an `input_required` task
/// (the Tasks extension of `2026-07-28`).
#[pyfunction]
#[pyo3(signature = (get_request, get_response, input_responses, id, limits=None))]
pub fn task_update<'py>(
    py: Python<'py>,
    get_request: &Bound<'py, PyAny>,
    get_response: &Bound<'py, PyAny>,
    input_responses: &Bound<'py, PyAny>,
    id: &Bound<'py, PyAny>,
    limits: Option<&Bound<'py, Limits>>,
) -> PyResult<Bound<'py, PyAny>> {
    let limits = options::limits(limits);
    let (request, response) = (json_arg(get_request, &limits)?, json_arg(get_response, &limits)?);
    let (responses, id) = (json_arg(input_responses, &limits)?, value_arg(id, &limits)?);
    let built = client::task_update(&request, &response, &responses, &id, &limits).or_raise()?;
    convert::to_python(py, &built)
}

/// A request the host started, named by the `Client`.
#[pyclass(module = "mrtr._mrtr", name = "Handle", frozen, eq, hash, ord)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle(CoreHandle);

#[pymethods]
impl Handle {
    /// The machine's number for the request.
    #[getter]
    fn value(&self) -> u64 {
        self.0 .0
    }

    fn __repr__(&self) -> String {
        format!("Handle({})", self.0 .0)
    }
}

/// The server needs input: fulfil `input_requests`, then call `Client.answer`.
#[pyclass(module = "mrtr._mrtr", name = "InputRequired", frozen, get_all)]
pub struct InputRequired {
    /// The request.
    handle: Handle,
    /// What the server asks, by key (an `inputRequests` dict).
    input_requests: Py<PyAny>,
    /// Retries made so far for this request.
    round: u32,
}

#[pymethods]
impl InputRequired {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str, &'static str) {
        ("handle", "input_requests", "round")
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let keys = self.input_requests.bind(py).call_method0("keys")?.repr()?;
        Ok(format!("InputRequired(handle={}, input_requests=<{keys}>, round={})", self.handle.0 .0, self.round))
    }
}

/// The server shed load (`input_required` with state only): call
/// `Client.answer` at once with no responses.
#[pyclass(module = "mrtr._mrtr", name = "RetryNow", frozen, get_all)]
pub struct RetryNow {
    /// The request.
    handle: Handle,
}

#[pymethods]
impl RetryNow {
    #[classattr]
    fn __match_args__() -> (&'static str,) {
        ("handle",)
    }

    fn __repr__(&self) -> String {
        format!("RetryNow(handle={})", self.handle.0 .0)
    }
}

/// The request is finished: a complete result, a task, or an error.
#[pyclass(module = "mrtr._mrtr", name = "Done", frozen, get_all)]
pub struct Done {
    /// The request.
    handle: Handle,
    /// The final response message.
    response: Py<PyAny>,
}

#[pymethods]
impl Done {
    #[classattr]
    fn __match_args__() -> (&'static str, &'static str) {
        ("handle", "response")
    }

    fn __repr__(&self) -> String {
        format!("Done(handle={}, response=…)", self.handle.0 .0)
    }
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
    #[pyo3(signature = (protocol=None, max_rounds=10, limits=None))]
    fn new(protocol: Option<&str>, max_rounds: u32, limits: Option<&Bound<'_, Limits>>) -> PyResult<Client> {
        let limits = options::limits(limits);
        let config = ClientConfig { protocol: options::protocol(protocol)?, max_rounds, limits };
        Ok(Client { core: client::Client::new(config), limits })
    }

    /// Starts `request`; returns its handle. The request is queued for `poll_transmit`.
    fn send(&mut self, request: &Bound<'_, PyAny>) -> PyResult<Handle> {
        let request = json_arg(request, &self.limits)?;
        self.core.send(request).map(Handle).or_raise()
    }

    /// Takes a response message from the server (raw JSON is classified from its bytes).
    fn handle_response(&mut self, response: &Bound<'_, PyAny>) -> PyResult<()> {
        match Raw::of(response)? {
            Some(raw) => self.core.handle_response(raw.as_bytes()),
            None => self.core.handle_response_value(convert::from_python(response, &self.limits)?),
        }
        .or_raise()
    }

    /// Answers the input requests of `handle` and queues the retry under the new `id`.
    #[pyo3(signature = (handle, input_responses, id))]
    fn answer(
        &mut self,
        handle: &Bound<'_, Handle>,
        input_responses: &Bound<'_, PyAny>,
        id: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let responses = json_arg(input_responses, &self.limits)?;
        let id = value_arg(id, &self.limits)?;
        self.core.answer(handle.get().0, &responses, id).or_raise()
    }

    /// Gives up on `handle`.
    fn abandon(&mut self, handle: &Bound<'_, Handle>) {
        self.core.abandon(handle.get().0);
    }

    /// The next message to send, or `None`.
    fn poll_transmit(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.core.poll_transmit().map(|m| to_py_obj(py, &m)).transpose()
    }

    /// The next event (`InputRequired`, `RetryNow` or `Done`), or `None`.
    fn poll_event(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let Some(event) = self.core.poll_event() else { return Ok(None) };
        let made = match event {
            Event::InputRequired { handle, input_requests, round } => {
                let input_requests = to_py_obj(py, &input_requests)?;
                Py::new(py, InputRequired { handle: Handle(handle), input_requests, round })?.into_any()
            }
            Event::RetryNow { handle } => Py::new(py, RetryNow { handle: Handle(handle) })?.into_any(),
            Event::Done { handle, response } => {
                let response = to_py_obj(py, &response)?;
                Py::new(py, Done { handle: Handle(handle), response })?.into_any()
            }
        };
        Ok(Some(made))
    }

    /// Every queued message to send, in order (drains `poll_transmit`).
    fn drain_transmits(&mut self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        std::iter::from_fn(|| self.core.poll_transmit()).map(|m| to_py_obj(py, &m)).collect()
    }

    /// Every pending event, in order (drains `poll_event`).
    fn drain_events(&mut self, py: Python<'_>) -> PyResult<Vec<Py<PyAny>>> {
        std::iter::from_fn(|| self.poll_event(py).transpose()).collect()
    }

    fn __repr__(&self) -> &'static str {
        "Client(…)"
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Handle>()?;
    m.add_class::<InputRequired>()?;
    m.add_class::<RetryNow>()?;
    m.add_class::<Done>()?;
    m.add_class::<Client>()?;
    m.add_function(wrap_pyfunction!(retry, m)?)?;
    m.add_function(wrap_pyfunction!(task_update, m)?)
}
