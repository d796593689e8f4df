//! Await-style tools without server state through the façade
//! (`facade::ToolReplay`, the question and response builders), which decides
//! the keys, the pins, the round cap, every JSON shape. The coroutines over it
//! (`Context`, `run_tool`, the suspension) are in `mrtr/_tools.py`.

use crate::{
    convert::{from_python, json_text, output, output_value, to_python, Raw},
    errors::{guard as boundary, usage, OrRaise},
    options::Text,
    state::{guarded, SealedRounds},
};
use mrtr::{round::replay::elicit, Limits};
use mrtr_facade::{self as facade, Randomness};
use pyo3::{prelude::*, types::PyBytes};
use serde_json::Value;

/// One replay of a tool on one request: `ask` until one is missing, then
/// `input_required`, or `complete` with the tool's result.
#[pyclass(module = "mrtr._mrtr", name = "ToolReplay")]
pub struct ToolReplay {
    pub(crate) core: facade::ToolReplay,
    /// The sealed rounds it answers through; `None` for a bridge's replay,
    /// which answers through its bridge (`ToolBridge`).
    rounds: Option<Py<SealedRounds>>,
}

impl From<facade::ToolReplay> for ToolReplay {
    /// A bridge's replay (no sealed rounds).
    fn from(core: facade::ToolReplay) -> ToolReplay {
        ToolReplay { core, rounds: None }
    }
}

impl ToolReplay {
    fn limits(&self) -> Limits {
        self.rounds.as_ref().map_or(Limits::DEFAULT, |r| r.get().limits)
    }

    /// The `input_required` response's JSON text, sealing `data` (or, with
    /// `keep`, the last round's data as it came).
    fn sealed_response(&self, py: Python<'_>, data: Option<&Bound<'_, PyAny>>, keep: bool) -> PyResult<String> {
        let Some(rounds) = &self.rounds else {
            return Err(usage("a bridge's replay asks through its bridge, not with input_required"));
        };
        let r = rounds.get();
        let data = match keep {
            true => self.core.data_value().cloned(),
            false => data.filter(|d| !d.is_none()).map(|d| from_python(d, &r.limits)).transpose()?,
        };
        let ring = &r.ring.bind(py).try_borrow()?.0;
        self.core.input_required_value(ring, data, Randomness::Os).or_raise()
    }

    /// The final response's JSON text: raw JSON as given, a Python value
    /// converted within the limits.
    fn completed(&self, result: &Bound<'_, PyAny>) -> PyResult<String> {
        match Raw::of(result)? {
            Some(raw) => self.core.complete(raw.as_bytes()),
            None => self.core.complete_value(&from_python(result, &self.limits())?),
        }
        .or_raise()
    }
}

#[pymethods]
impl ToolReplay {
    /// The replay of `request` under `rounds` for `subject` (or `anonymous`)
    /// at `now`; with a `guard`, a state used before is `state-replayed`.
    #[new]
    #[pyo3(signature = (rounds, request, *, subject=None, anonymous=false, now, guard=None))]
    fn new(
        py: Python<'_>,
        rounds: Py<SealedRounds>,
        request: &Bound<'_, PyAny>,
        subject: Option<&str>,
        anonymous: bool,
        now: u64,
        guard: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<ToolReplay> {
        boundary(|| {
            let r = rounds.get();
            let request = json_text(request, &r.limits)?;
            let ring = &r.ring.bind(py).try_borrow()?.0;
            let inner = guarded(guard, |g| {
                facade::ToolReplay::start_with(ring, request.as_bytes(), &r.parsed, subject, anonymous, now, g)
            })?;
            Ok(ToolReplay { core: inner, rounds: Some(rounds) })
        })
    }

    /// The answer to `question` under the key of its order (or `key`), or
    /// `None`: the tool stops here.
    #[pyo3(signature = (question, key=None))]
    fn ask<'py>(
        &mut self,
        py: Python<'py>,
        question: &Bound<'py, PyAny>,
        key: Option<&str>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        boundary(|| match Raw::of(question)? {
            Some(raw) => self.core.ask_keyed(raw.as_bytes(), key).or_raise()?.map(|a| output(py, &a)).transpose(),
            None => {
                let question = from_python(question, &Limits::DEFAULT)?;
                self.core.ask_value(&question, key).or_raise()?.map(|a| to_python(py, &a)).transpose()
            }
        })
    }

    /// `ask(question_elicit(message, requested_schema), key)` in one call:
    /// `Context.elicit`'s path.
    #[pyo3(signature = (message, requested_schema, key=None))]
    fn _ask_elicit<'py>(
        &mut self,
        py: Python<'py>,
        message: Text,
        requested_schema: &Bound<'py, PyAny>,
        key: Option<&str>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        boundary(|| {
            let question = match Raw::of(requested_schema)? {
                Some(raw) => output_value(&facade::question_elicit(&message.0, raw.as_bytes()).or_raise()?)?,
                None => elicit(&message.0, &from_python(requested_schema, &Limits::DEFAULT)?),
            };
            self.core.ask_value(&question, key).or_raise()?.map(|a| to_python(py, &a)).transpose()
        })
    }

    /// The request's `params.arguments` when it is an object, else an empty
    /// dict; `None` for a bridge's replay (its host holds the request).
    fn _arguments<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        boundary(|| {
            let Some(request) = self.core.request_value() else { return Ok(None) };
            match request.get("params").and_then(|p| p.get("arguments")) {
                Some(args @ Value::Object(_)) => to_python(py, args).map(Some),
                _ => Ok(Some(pyo3::types::PyDict::new(py).into_any())),
            }
        })
    }

    /// [`input_required`](ToolReplay::input_required) as the JSON text's
    /// UTF-8 bytes; with `keep`, the data of the last round is sealed again
    /// as it came (`data` unused).
    #[pyo3(signature = (data=None, keep=false))]
    fn _input_required_bytes<'py>(
        &self,
        py: Python<'py>,
        data: Option<&Bound<'py, PyAny>>,
        keep: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        boundary(|| self.sealed_response(py, data, keep).map(|text| PyBytes::new(py, text.as_bytes())))
    }

    /// [`complete`](ToolReplay::complete) as the JSON text's UTF-8 bytes.
    fn _complete_bytes<'py>(&self, py: Python<'py>, result: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
        boundary(|| self.completed(result).map(|text| PyBytes::new(py, text.as_bytes())))
    }

    /// How many `input_required` rounds came before this request.
    #[getter]
    fn round(&self) -> u32 {
        self.core.round()
    }

    /// The keys asked and not answered, in order.
    #[getter]
    fn missing(&self) -> Vec<String> {
        self.core.missing()
    }

    /// The data the tool kept at the last round (`None` without).
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        boundary(|| match self.core.data_value() {
            Some(data) => to_python(py, data),
            None => Ok(py.None().into_bound(py)),
        })
    }

    /// The state the request carried, `{"stateId", "expiry"}`, or `None`.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        boundary(|| self.core.state().map(|s| output(py, &s)).transpose())
    }

    /// The `input_required` response asking what is missing, sealing the
    /// answers so far and `data`.
    #[pyo3(signature = (data=None))]
    fn input_required<'py>(&self, py: Python<'py>, data: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        boundary(|| output(py, &self.sealed_response(py, data, false)?))
    }

    /// The final response with the tool's `result`.
    fn complete<'py>(&self, py: Python<'py>, result: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        boundary(|| output(py, &self.completed(result)?))
    }

    fn __repr__(&self) -> String {
        format!("ToolReplay(round={}, missing={:?})", self.core.round(), self.core.missing())
    }
}

/// `{"response", "status"}`: the error response to `id` for `rule` (with the
/// members of `data`, a dict), and its HTTP status, under `error_codes`
/// (`"released"`, the default, or `"draft"`).
#[pyfunction]
#[pyo3(signature = (id, rule, message, data=None, error_codes=None))]
fn _error_response<'py>(
    py: Python<'py>,
    id: &Bound<'py, PyAny>,
    rule: &str,
    message: &str,
    data: Option<&Bound<'py, PyAny>>,
    error_codes: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    boundary(|| {
        let id = from_python(id, &Limits::DEFAULT)?;
        let data = data.map(|d| from_python(d, &Limits::DEFAULT)).transpose()?.map(|d| d.to_string());
        let options = facade::Options::from_value(&serde_json::json!({ "errorCodes": error_codes }));
        let built = options.and_then(|o| {
            let data = data.as_deref().map(str::as_bytes);
            facade::error_response(id.to_string().as_bytes(), rule, message, data, &o)
        });
        output(py, &built.or_raise()?)
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ToolReplay>()?;
    m.add_function(wrap_pyfunction!(_error_response, m)?)
}
