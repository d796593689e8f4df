//! Await-style tools without server state through the façade
//! (`facade::ToolReplay`, `facade::ToolRun`, the question and response
//! builders), which decides the keys, the pins, the round cap, the refusal
//! policy, every JSON shape. The coroutines over it (`Context`, `run_tool`,
//! the suspension) are in `mrtr/_tools.py`.

use crate::{
    convert::{from_python, json_text, output, output_value, to_python, Raw},
    errors::{guard as boundary, raise, usage, OrRaise},
    options::Text,
    state::{guarded, SealedRounds},
};
use mrtr::{round::replay::elicit, Error, Limits, RuleId};
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

/// The limits Python values are read under: the sealed rounds', or the defaults for a bridge's replay.
fn limits_of(rounds: &Option<Py<SealedRounds>>) -> Limits {
    rounds.as_ref().map_or(Limits::DEFAULT, |r| r.get().limits)
}

impl ToolReplay {
    /// The `input_required` response's JSON text, sealing `data` (or, with
    /// `keep`, the last round's data as it came).
    fn sealed_response(&self, py: Python<'_>, data: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let Some(rounds) = &self.rounds else {
            return Err(usage("a bridge's replay asks through its bridge, not with input_required"));
        };
        let r = rounds.get();
        let data = data.filter(|d| !d.is_none()).map(|d| from_python(d, &r.limits)).transpose()?;
        let ring = &r.ring.bind(py).try_borrow()?.0;
        self.core.input_required_value(ring, data, Randomness::Os).or_raise()
    }

    /// The final response's JSON text: raw JSON as given, a Python value
    /// converted within the limits.
    fn completed(&self, result: &Bound<'_, PyAny>) -> PyResult<String> {
        match Raw::of(result)? {
            Some(raw) => self.core.complete(raw.as_bytes()),
            None => self.core.complete_value(&from_python(result, &limits_of(&self.rounds))?),
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
        boundary(|| output(py, &self.sealed_response(py, data)?))
    }

    /// The final response with the tool's `result`.
    fn complete<'py>(&self, py: Python<'py>, result: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        boundary(|| output(py, &self.completed(result)?))
    }

    /// The run of the tool over this replay (`ToolRun`), which takes what the
    /// replay holds: this one is released.
    fn run(&mut self) -> ToolRun {
        ToolRun { core: self.core.run(), rounds: self.rounds.take() }
    }

    fn __repr__(&self) -> String {
        format!("ToolReplay(round={}, missing={:?})", self.core.round(), self.core.missing())
    }
}

/// One run of an await-style tool (`facade::ToolRun`): `Context` forwards the
/// tool's asks, `run_tool` ends it with `respond` or `refused`. The round
/// sequence and the refusal policy are the façade's; this class converts.
#[pyclass(module = "mrtr._mrtr", name = "ToolRun")]
pub struct ToolRun {
    pub(crate) core: facade::ToolRun,
    /// As [`ToolReplay`]'s: `None` for a bridge's run.
    rounds: Option<Py<SealedRounds>>,
}

impl ToolRun {
    /// A question or a schema the run could not read from Python is the tool's
    /// bad question: recorded as the run's refusal, as the façade's own are.
    fn unreadable(&mut self, py: Python<'_>, e: PyErr) -> PyErr {
        let message = e.value(py).getattr("message").and_then(|m| m.extract::<String>());
        let error = Error::with(RuleId::UsageInvalidArgument, message.unwrap_or_else(|_| e.to_string()));
        raise(self.core.refuse(error))
    }

    /// The response's JSON text; `stopped`: the tool stopped at an unanswered ask.
    fn response(&mut self, py: Python<'_>, result: Option<&Bound<'_, PyAny>>, stopped: bool) -> PyResult<String> {
        let Some(rounds) = self.rounds.as_ref().map(|r| r.clone_ref(py)) else {
            return Err(usage("a bridge's run ends through its bridge: ToolBridge.finish"));
        };
        let r = rounds.get();
        let ring = &r.ring.bind(py).try_borrow()?.0;
        let result = result.filter(|_| !stopped);
        if let Some(raw) = result.map(Raw::of).transpose()?.flatten() {
            return self.core.respond(ring, Some(raw.as_bytes()), Randomness::Os).or_raise();
        }
        // A tool that returned `None` returned JSON's null: no result, refused as such.
        let result = match (stopped, result) {
            (true, _) => None,
            (false, Some(result)) => Some(from_python(result, &r.limits)?),
            (false, None) => Some(Value::Null),
        };
        self.core.respond_value(ring, result, Randomness::Os).or_raise()
    }
}

#[pymethods]
impl ToolRun {
    /// The run of a tool on `request` under `rounds` for `subject` (or
    /// `anonymous`) at `now`; with a `guard`, a state used before is `state-replayed`.
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
    ) -> PyResult<ToolRun> {
        let mut replay = ToolReplay::new(py, rounds, request, subject, anonymous, now, guard)?;
        Ok(replay.run())
    }

    /// The answer to `question` under the key of its order (or `key`), or
    /// `None`: the tool stops here. A refusal raises, and the run ends with it.
    #[pyo3(signature = (question, key=None))]
    fn ask<'py>(
        &mut self,
        py: Python<'py>,
        question: &Bound<'py, PyAny>,
        key: Option<&str>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        boundary(|| match Raw::of(question)? {
            Some(raw) => self.core.ask(raw.as_bytes(), key).or_raise()?.map(|a| output(py, &a)).transpose(),
            None => {
                let question = from_python(question, &Limits::DEFAULT).map_err(|e| self.unreadable(py, e))?;
                self.core.ask_value(&question, key).or_raise()?.map(|a| to_python(py, &a)).transpose()
            }
        })
    }

    /// The answer to the form elicitation `message`, `requested_schema`, in one
    /// call; a schema that is no JSON raises, and is the tool's to handle.
    #[pyo3(signature = (message, requested_schema, key=None))]
    fn ask_elicit<'py>(
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
    /// dict; `None` for a bridge's run (its host holds the request).
    fn arguments<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        boundary(|| {
            let Some(request) = self.core.replay().request_value() else { return Ok(None) };
            match request.get("params").and_then(|p| p.get("arguments")) {
                Some(args @ Value::Object(_)) => to_python(py, args).map(Some),
                _ => Ok(Some(pyo3::types::PyDict::new(py).into_any())),
            }
        })
    }

    /// How many `input_required` rounds came before this request.
    #[getter]
    fn round(&self) -> u32 {
        self.core.round()
    }

    /// The state the request carried, `{"stateId", "expiry"}`, or `None`.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        boundary(|| self.core.state().map(|s| output(py, &s)).transpose())
    }

    /// The data the next round gets: what the tool set, else the last round's (`None` without).
    #[getter]
    fn data<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        boundary(|| self.core.data().map(|d| output(py, &d)).transpose())
    }

    /// The tool keeps `data` (`None`: nothing) for the next round, in place of the last round's.
    fn set_data(&mut self, data: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        boundary(|| {
            let data = data.filter(|d| !d.is_none()).map(|d| from_python(d, &limits_of(&self.rounds))).transpose()?;
            self.core.set_data_value(data);
            Ok(())
        })
    }

    /// The tool was stopped at an unanswered ask: every later ask asks nothing and gives `None`.
    fn stop(&mut self) {
        self.core.stop();
    }

    /// Ends the run: the tool returned `result` (or, `stopped`, stopped at an
    /// unanswered ask). The response: `input_required` when an ask went
    /// unanswered, else the `complete` one; raises the run's refusal.
    #[pyo3(signature = (result=None, *, stopped=false))]
    fn respond<'py>(
        &mut self,
        py: Python<'py>,
        result: Option<&Bound<'py, PyAny>>,
        stopped: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        boundary(|| output(py, &self.response(py, result, stopped)?))
    }

    /// [`respond`](ToolRun::respond) as the JSON text's UTF-8 bytes.
    #[pyo3(signature = (result=None, *, stopped=false))]
    fn _respond_bytes<'py>(
        &mut self,
        py: Python<'py>,
        result: Option<&Bound<'py, PyAny>>,
        stopped: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        boundary(|| self.response(py, result, stopped).map(|text| PyBytes::new(py, text.as_bytes())))
    }

    /// Ends the run when the tool raised its own exception: raises the refusal
    /// recorded at an ask, which wins over it; returns when there is none.
    fn refused(&self) -> PyResult<()> {
        boundary(|| self.core.refused().or_raise())
    }

    /// The refusal the run ended with, as the JSON-RPC error response and its
    /// HTTP status (as `error_response` builds them), or `None`.
    #[pyo3(signature = (*, error_codes=None))]
    fn refusal_response<'py>(
        &self,
        py: Python<'py>,
        error_codes: Option<&str>,
    ) -> PyResult<Option<(Bound<'py, PyAny>, u16)>> {
        boundary(|| {
            let o = facade::Options::from_value(&serde_json::json!({ "errorCodes": error_codes })).or_raise()?;
            let Some(built) = self.core.refusal_response(&o) else { return Ok(None) };
            let built = output_value(&built)?;
            let status = built["status"].as_u64().and_then(|s| u16::try_from(s).ok()).unwrap_or(500);
            Ok(Some((to_python(py, &built["response"])?, status)))
        })
    }

    fn __repr__(&self) -> String {
        format!("ToolRun(round={}, missing={:?})", self.core.round(), self.core.missing())
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
    m.add_class::<ToolRun>()?;
    m.add_function(wrap_pyfunction!(_error_response, m)?)
}
