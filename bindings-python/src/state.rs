//! The kernel of the key ring's generated rows (`exports.rs`: `KeyRing`,
//! `ToolReplay`, `ToolRun`): a replay guard as a callable, an opened token
//! as the package's `Opened`; and what the table does not carry (a token's
//! public part as a `TokenInfo`, unsealed state, a refusal's response).
//! Key material stays in Rust (the façade's ring, zeroized on drop, never in
//! a `repr`).
//!
//! What is Python's own: a replay guard is a callable `(state_id: str,
//! expiry: int) -> bool`, wrapped (`HostGuard`) so that it fails closed when
//! it raises (or returns anything but a `bool`) and its own exception is
//! re-raised once the core has returned.

use crate::convert::{class, from_python, make, output, output_value, Raw};
use crate::errors::{guard as boundary, usage, OrRaise};
use mrtr::state::{Opened, ReplayGuard, StateId};
use mrtr::Limits;
use mrtr_facade as facade;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes};

/// A host's replay guard: a callable `(state_id: str, expiry: int) -> bool`
/// (`True`: first use), called with the GIL taken again. When it raises, or
/// returns anything but a `bool` (an `async def` guard's coroutine is truthy,
/// and would let every replay pass), the state is refused (fail closed) and
/// the error is kept for the host.
struct HostGuard {
    guard: Py<PyAny>,
    raised: Option<PyErr>,
}

impl ReplayGuard for HostGuard {
    fn first_use(&mut self, id: &StateId, expiry: u64) -> bool {
        Python::attach(|py| {
            let verdict = self.guard.bind(py).call1((id.to_string(), expiry)).and_then(|r| match r.cast::<PyBool>() {
                Ok(b) => Ok(b.is_true()),
                Err(_) => Err(usage(format!(
                    "a replay guard returns True (first use) or False, not {} (an async guard must be awaited)",
                    r.get_type().name().map(|n| n.to_string()).unwrap_or_default()
                ))),
            });
            verdict.unwrap_or_else(|e| {
                self.raised = Some(e);
                false
            })
        })
    }
}

/// Runs `f` with the GIL released and the host's `guard` (if any, `None` being
/// none) as the core's replay guard: a call that holds the key ring while its
/// guard waits for the GIL never blocks a thread that holds the GIL. The
/// guard's own exception wins over the core's refusal it caused.
pub(crate) fn guarded<T: Send>(
    py: Python<'_>,
    guard: Option<&Bound<'_, PyAny>>,
    f: impl FnOnce(Option<&mut dyn ReplayGuard>) -> mrtr::Result<T> + Send,
) -> PyResult<T> {
    let guard = guard.filter(|g| !g.is_none());
    if let Some(g) = guard.filter(|g| !g.is_callable()) {
        let kind = g.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(usage(format!("a replay guard is a callable (state_id, expiry) -> bool, not {kind}")));
    }
    let mut host = guard.map(|guard| HostGuard { guard: guard.clone().unbind(), raised: None });
    let out = py.detach(|| f(host.as_mut().map(|h| h as &mut dyn ReplayGuard)));
    match host.and_then(|h| h.raised) {
        Some(e) => Err(e),
        None => out.or_raise(),
    }
}

/// A token that opened as the package's `Opened` (payload, state id, expiry).
pub(crate) fn opened<'py>(py: Python<'py>, opened: Opened) -> PyResult<Bound<'py, PyAny>> {
    class(py, "Opened")?.call1((PyBytes::new(py, &opened.payload), opened.id.to_string(), opened.expiry))
}

/// Seals with the caller's nonce: test vectors only, in builds with the cargo
/// feature `test-vectors` (never a released wheel). A reused nonce gives away
/// AES-GCM's plaintexts and lets anyone forge tokens.
#[cfg(feature = "test-vectors")]
#[pymethods]
impl crate::exports::KeyRing {
    fn _seal_with_nonce_for_test_vectors(
        &self,
        binding: &Bound<'_, PyAny>,
        now: u64,
        ttl: u32,
        payload: &[u8],
        nonce: &[u8],
    ) -> PyResult<String> {
        boundary(|| {
            let binding = crate::convert::json_text(binding, &Limits::DEFAULT)?;
            facade::seal_with_nonce(&self.core, binding.as_bytes(), now, ttl, payload, nonce).or_raise()
        })
    }
}

/// What anyone can read off `token` without a key: a `TokenInfo` (state id,
/// key id, algorithm, expiry), or `state-malformed`.
#[pyfunction]
fn inspect<'py>(py: Python<'py>, token: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    boundary(|| {
        let token = Raw::of(token)?.ok_or_else(|| usage("a token is str or bytes"))?;
        make(py, "TokenInfo", &output_value(&facade::inspect(token.as_bytes()).or_raise()?)?)
    })
}

/// Unsealed state: base64url of `payload`. Unsafe for anything user-specific.
#[pyfunction]
fn unsealed_encode(payload: &[u8]) -> PyResult<String> {
    boundary(|| Ok(mrtr::state::unsealed::encode(payload)))
}

/// Decodes unsealed state, refusing non-base64url (`state-malformed`) and
/// tokens over `max_bytes` (`state-too-large`).
#[pyfunction]
#[pyo3(signature = (token, max_bytes=65536))]
fn unsealed_decode<'py>(py: Python<'py>, token: &str, max_bytes: usize) -> PyResult<Bound<'py, PyBytes>> {
    boundary(|| Ok(PyBytes::new(py, &mrtr::state::unsealed::decode(token, max_bytes).or_raise()?)))
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
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add_function(wrap_pyfunction!(unsealed_encode, m)?)?;
    m.add_function(wrap_pyfunction!(unsealed_decode, m)?)?;
    m.add_function(wrap_pyfunction!(_error_response, m)?)
}
