//! The client side: `retry` and `task_update` build the answer to an
//! `input_required` result; `Client` wraps the core's retry machine, its
//! events in their wire shape made into the façade's classes.

use crate::options::Text;
use crate::{
    convert::{class, from_python, json_arg, make, to_python, Raw},
    errors::{guard, usage, OrRaise},
    options::{Lim, Proto},
};
use mrtr::client::{self, ClientConfig, Handle, SessionConfig};
use mrtr::Limits;
use pyo3::prelude::*;

/// Builds the retry of `request` answering `result` with `input_responses`, under the new `id`.
#[pyfunction]
#[pyo3(signature = (request, result, input_responses, id, protocol=None, limits=None))]
pub fn retry<'py>(
    request: &Bound<'py, PyAny>,
    result: &Bound<'py, PyAny>,
    input_responses: &Bound<'py, PyAny>,
    id: &Bound<'py, PyAny>,
    protocol: Option<Proto>,
    limits: Option<Lim>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let (py, l) = (request.py(), &limits.unwrap_or_default().0);
        let (request, result) = (json_arg(request, l)?, json_arg(result, l)?);
        let (responses, id) = (json_arg(input_responses, l)?, from_python(id, l)?);
        to_python(py, &client::retry(&request, &result, &responses, &id, protocol.unwrap_or_default().0, l).or_raise()?)
    })
}

/// Builds the `tasks/update` request answering an `input_required` task
/// (the Tasks extension of `2026-07-28`).
#[pyfunction]
#[pyo3(signature = (get_request, get_response, input_responses, id, limits=None))]
pub fn task_update<'py>(
    get_request: &Bound<'py, PyAny>,
    get_response: &Bound<'py, PyAny>,
    input_responses: &Bound<'py, PyAny>,
    id: &Bound<'py, PyAny>,
    limits: Option<Lim>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let l = &limits.unwrap_or_default().0;
        let (request, response) = (json_arg(get_request, l)?, json_arg(get_response, l)?);
        let (responses, id) = (json_arg(input_responses, l)?, from_python(id, l)?);
        to_python(get_request.py(), &client::task_update(&request, &response, &responses, &id, l).or_raise()?)
    })
}

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
            let (d, limits) = (ClientConfig::default(), limits.unwrap_or_default().0);
            let max_rounds = max_rounds.unwrap_or(d.max_rounds);
            let config = ClientConfig { protocol: protocol.unwrap_or_default().0, max_rounds, limits };
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

/// A client's session: what it declares once (the protocol it asks for first,
/// its capabilities, its name), and the requests it makes from that, each under
/// a fresh id with the `_meta` its protocol wants on every request (in
/// `2026-07-28`: the protocol version, the capabilities, the client's name).
#[pyclass(module = "mrtr._mrtr", name = "Session")]
pub struct Session(client::Session);

/// An optional JSON argument (a `dict`, or JSON text) as a value.
fn optional_json(value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<serde_json::Value>> {
    value.filter(|v| !v.is_none()).map(|v| json_arg(v, &Limits::DEFAULT)).transpose()
}

#[pymethods]
impl Session {
    #[new]
    #[pyo3(signature = (*, protocol=None, capabilities=None, client_info=None, first_id=1))]
    fn new(
        protocol: Option<Proto>,
        capabilities: Option<&Bound<'_, PyAny>>,
        client_info: Option<&Bound<'_, PyAny>>,
        first_id: u64,
    ) -> PyResult<Session> {
        guard(|| {
            let capabilities = optional_json(capabilities)?.unwrap_or_else(|| serde_json::json!({}));
            let client_info = optional_json(client_info)?;
            let config =
                SessionConfig { protocol: protocol.unwrap_or_default().0, capabilities, client_info, first_id };
            Ok(Session(client::Session::new(config).or_raise()?))
        })
    }

    /// The protocol version the session asks for.
    #[getter]
    fn protocol(&self) -> &'static str {
        self.0.config().protocol.name()
    }

    /// The request of `method` with `params` (a `dict`, or `None`) under the next id.
    #[pyo3(signature = (method, params=None))]
    fn request<'py>(
        &mut self,
        py: Python<'py>,
        method: Text,
        params: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| to_python(py, &self.0.request(&method.0, optional_json(params)?).or_raise()?))
    }

    /// The `tools/call` request of the tool `name` with `arguments`.
    #[pyo3(signature = (name, arguments=None))]
    fn call_tool<'py>(
        &mut self,
        py: Python<'py>,
        name: Text,
        arguments: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| to_python(py, &self.0.call_tool(&name.0, optional_json(arguments)?).or_raise()?))
    }

    /// The `prompts/get` request of the prompt `name` with `arguments`.
    #[pyo3(signature = (name, arguments=None))]
    fn get_prompt<'py>(
        &mut self,
        py: Python<'py>,
        name: Text,
        arguments: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| to_python(py, &self.0.get_prompt(&name.0, optional_json(arguments)?).or_raise()?))
    }

    /// The `initialize` request under the next id where the protocol has that
    /// handshake (`2025-11-25`), or `None` where every request declares the
    /// client (`2026-07-28`).
    fn initialize<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        guard(|| self.0.initialize().or_raise()?.map(|r| to_python(py, &r)).transpose())
    }

    /// The `notifications/initialized` notification, sent once the server answered `initialize`.
    fn initialized<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard(|| to_python(py, &self.0.initialized()))
    }

    /// The `resources/read` request of `uri`.
    fn read_resource<'py>(&mut self, py: Python<'py>, uri: Text) -> PyResult<Bound<'py, PyAny>> {
        guard(|| to_python(py, &self.0.read_resource(&uri.0).or_raise()?))
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Client>()?;
    m.add_class::<Session>()?;
    m.add_function(wrap_pyfunction!(retry, m)?)?;
    m.add_function(wrap_pyfunction!(task_update, m)?)
}
