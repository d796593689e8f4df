//! The legacy bridge through the façade (`facade::ToolBridge`): one
//! `2025-11-25` call of an await-style tool, whose questions go to the client
//! as server requests on the call's event stream. The coroutine that drives it
//! (`BridgedCall`) is in `mrtr/_tools.py`.

use crate::{
    convert::json_text,
    errors::{guard as boundary, OrRaise},
    replay::ToolReplay,
};
use mrtr::{facade, Limits};
use pyo3::prelude::*;
use serde_json::json;

/// One `2025-11-25` call held by this instance: `replay` the tool, then `ask`
/// (the questions it misses go on the stream) or `complete`; route each
/// answer the client POSTs to `handle_answer`; write what `poll_write` gives.
#[pyclass(module = "mrtr._mrtr", name = "ToolBridge")]
pub struct ToolBridge(facade::ToolBridge);

#[pymethods]
impl ToolBridge {
    /// A bridge for `request`, its event ids under `key`; `max_rounds` and
    /// `round_timeout_ms` default to the core's (10 rounds, 300 000 ms).
    #[new]
    #[pyo3(signature = (request, key, *, max_rounds=None, round_timeout_ms=None))]
    fn new(
        request: &Bound<'_, PyAny>,
        key: &str,
        max_rounds: Option<u32>,
        round_timeout_ms: Option<u64>,
    ) -> PyResult<ToolBridge> {
        boundary(|| {
            let request = json_text(request, &Limits::DEFAULT)?;
            let options = json!({"maxRounds": max_rounds, "roundTimeoutMs": round_timeout_ms}).to_string();
            Ok(ToolBridge(facade::ToolBridge::new(request.as_bytes(), key, options.as_bytes()).or_raise()?))
        })
    }

    /// A replay of the tool from the answers collected so far.
    fn replay(&self) -> ToolReplay {
        ToolReplay::of_bridge(self.0.replay())
    }

    /// Sends what `replay` misses as server requests; the round waits until
    /// `now_ms` plus the round timeout.
    fn ask(&mut self, replay: PyRef<'_, ToolReplay>, now_ms: u64) -> PyResult<()> {
        boundary(|| self.0.ask(&replay.inner, now_ms).or_raise())
    }

    /// The tool completed with `result`: the final response goes on the stream.
    fn complete(&mut self, result: &Bound<'_, PyAny>) -> PyResult<()> {
        boundary(|| {
            let result = json_text(result, &Limits::DEFAULT)?;
            self.0.complete(result.as_bytes()).or_raise()
        })
    }

    /// The tool's run was refused (`rule`, `message`, `data` of its
    /// `MrtrError`): its error response goes on the stream, ending the call.
    #[pyo3(signature = (rule, message, data=None))]
    fn refuse(&mut self, rule: &str, message: &str, data: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        boundary(|| {
            let data = data.filter(|d| !d.is_none()).map(|d| json_text(d, &Limits::DEFAULT)).transpose()?;
            self.0.refuse(rule, message, data.as_ref().map(|d| d.as_bytes())).or_raise()
        })
    }

    /// A JSON-RPC response the client POSTed: `True` when it completed the
    /// round (replay now). One that does not fit its question raises
    /// `retry-input-response-invalid`; one to no pending request `usage-out-of-turn`.
    fn handle_answer(&mut self, response: &Bound<'_, PyAny>, now_ms: u64) -> PyResult<bool> {
        boundary(|| {
            let response = json_text(response, &Limits::DEFAULT)?;
            self.0.handle_answer(response.as_bytes(), now_ms).or_raise()
        })
    }

    /// The round's deadline may have passed: an unanswered round ends the call.
    fn handle_timeout(&mut self, now_ms: u64) {
        self.0.handle_timeout(now_ms);
    }

    /// The next event-stream text to write, or `None`.
    fn poll_write(&mut self) -> Option<String> {
        self.0.poll_write()
    }

    /// When (ms, the clock of `ask`) to call `handle_timeout`, or `None`.
    fn poll_timeout(&self) -> Option<u64> {
        self.0.poll_timeout()
    }

    /// Whether the final response (or error) was written.
    #[getter]
    fn done(&self) -> bool {
        self.0.is_done()
    }

    /// The ids (as text) of the server requests still waiting for an answer.
    #[getter]
    fn pending(&self) -> Vec<String> {
        self.0.pending()
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ToolBridge>()
}
