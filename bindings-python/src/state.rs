//! Sealed `requestState` (`mrtr::state`) and server rounds over it
//! (`mrtr::round`). The façade checks what the host hands in: a key's id,
//! algorithm and secret (`facade::key`), a binding's parts (`BindingSpec`).
//! Key material stays in Rust, zeroized on drop, never in a `repr`.

use crate::{
    convert::{from_python, json_arg, make, to_python, Raw},
    errors::{guard, usage, OrRaise},
    options::{Lim, Proto},
};
use mrtr::{
    facade::{self, BindingSpec},
    round::{Round, SealedRounds as CoreRounds},
    state::{self, Key as CoreKey, KeyRing as CoreRing, SeedRng},
    Limits, Protocol,
};
use pyo3::{prelude::*, types::PyBytes};
use serde_json::{Map, Value};
use zeroize::Zeroizing;

/// One sealing key: an id (0–255), an algorithm, and secret material that never leaves Rust.
#[pyclass(module = "mrtr._mrtr", name = "Key", frozen)]
pub struct Key {
    /// The key id written in tokens.
    #[pyo3(get)]
    id: i64,
    /// The algorithm's name.
    #[pyo3(get)]
    algorithm: String,
    material: Zeroizing<Vec<u8>>,
    derived: bool,
}

impl Key {
    /// A fresh core key (each ring owns its own), as the core checks it (`facade::key`).
    fn core(&self) -> PyResult<CoreKey> {
        let material = Some(&self.material[..]);
        let (secret, master) = if self.derived { (None, material) } else { (material, None) };
        facade::key(self.id, &self.algorithm, secret, master).or_raise()
    }

    fn checked(id: i64, algorithm: String, material: &[u8], derived: bool) -> PyResult<Key> {
        let key = Key { id, algorithm, material: Zeroizing::new(material.to_vec()), derived };
        key.core().map(|_| key)
    }
}

#[pymethods]
impl Key {
    /// A key from 32 secret bytes.
    #[new]
    fn new(id: i64, algorithm: String, secret: &[u8]) -> PyResult<Key> {
        guard(|| Key::checked(id, algorithm, secret, false))
    }

    /// A key derived from one master secret and the key id (HKDF-SHA-256).
    #[staticmethod]
    fn derive(id: i64, algorithm: String, master: &[u8]) -> PyResult<Key> {
        guard(|| Key::checked(id, algorithm, master, true))
    }

    fn __repr__(&self) -> String {
        format!("Key(id={}, algorithm={:?}, secret=…)", self.id, self.algorithm)
    }
}

/// What a token is bound to: principal, protocol, method, target and a digest
/// of the salient params.
#[pyclass(module = "mrtr._mrtr", name = "Binding", frozen)]
pub struct Binding(BindingSpec);

#[pymethods]
impl Binding {
    /// A binding from its parts; `arguments` (the salient params, default `{}`) is digested.
    #[new]
    #[pyo3(signature = (subject, method, target, arguments=None, protocol=None))]
    fn new(
        subject: &Bound<'_, PyAny>,
        method: &Bound<'_, PyAny>,
        target: &Bound<'_, PyAny>,
        arguments: Option<&Bound<'_, PyAny>>,
        protocol: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Binding> {
        guard(|| {
            let l = &Limits::DEFAULT;
            let mut spec = Map::new();
            for (k, v) in [("subject", subject), ("method", method), ("target", target)] {
                spec.insert(k.into(), from_python(v, l)?);
            }
            if let Some(a) = arguments {
                spec.insert("arguments".into(), json_arg(a, l)?);
            }
            spec.insert("protocol".into(), protocol.map(|p| from_python(p, l)).transpose()?.unwrap_or_default());
            BindingSpec::from_json(Value::Object(spec).to_string().as_bytes()).map(Binding).or_raise()
        })
    }

    /// The binding of `request` for `subject`: its method, its `name` or `uri`, its `arguments`.
    #[staticmethod]
    #[pyo3(signature = (request, subject="", protocol=None))]
    fn for_request(request: &Bound<'_, PyAny>, subject: &str, protocol: Option<&str>) -> PyResult<Binding> {
        guard(|| {
            let request = json_arg(request, &Limits::DEFAULT)?.to_string();
            let spec = facade::binding_for(request.as_bytes(), subject, protocol).or_raise()?;
            BindingSpec::from_json(spec.as_bytes()).map(Binding).or_raise()
        })
    }

    /// The authenticated principal.
    #[getter]
    fn subject(&self) -> &str {
        self.0.binding().subject
    }

    /// The protocol's name.
    #[getter]
    fn protocol(&self) -> &'static str {
        self.0.binding().protocol.name()
    }

    /// The request's method.
    #[getter]
    fn method(&self) -> &str {
        self.0.binding().method
    }

    /// The tool or prompt name, or the resource URI.
    #[getter]
    fn target(&self) -> &str {
        self.0.binding().target
    }

    /// SHA-256 of the canonical JSON of the salient params.
    #[getter]
    fn params_digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.binding().params_digest)
    }

    fn __eq__(&self, other: &Binding) -> bool {
        self.0.binding() == other.0.binding()
    }

    fn __repr__(&self) -> String {
        let b = self.0.binding();
        let (subject, method, target, protocol) = (b.subject, b.method, b.target, b.protocol.name());
        format!("Binding(subject={subject:?}, method={method:?}, target={target:?}, protocol={protocol:?})")
    }
}

/// Keys by id: seals with the current one, opens with any.
#[pyclass(module = "mrtr._mrtr", name = "KeyRing", weakref)]
pub struct KeyRing(CoreRing);

#[pymethods]
impl KeyRing {
    /// A ring holding `current` (which seals) and `others` (which only open).
    #[new]
    #[pyo3(signature = (current, *others, max_token_bytes=None))]
    fn new(current: &Bound<'_, Key>, others: Vec<Bound<'_, Key>>, max_token_bytes: Option<usize>) -> PyResult<KeyRing> {
        guard(|| {
            let current = current.get().core()?;
            let id = current.id();
            let mut ring = CoreRing::new(current);
            for k in others {
                ring.add(k.get().core()?);
            }
            ring.set_current(id);
            if let Some(max) = max_token_bytes {
                ring.set_max_token_bytes(max);
            }
            Ok(KeyRing(ring))
        })
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    fn add(&mut self, key: &Bound<'_, Key>) -> PyResult<()> {
        guard(|| key.get().core().map(|k| self.0.add(k)))
    }

    /// Makes the key with `id` the sealing key; `False` if the ring lacks it.
    fn set_current(&mut self, id: u8) -> bool {
        self.0.set_current(id)
    }

    /// Drops the key with `id` (never the current one); `True` if it was held.
    fn remove(&mut self, id: u8) -> bool {
        self.0.remove(id)
    }

    /// Sets the bound on a token's length, checked before any decoding.
    fn set_max_token_bytes(&mut self, max: usize) {
        self.0.set_max_token_bytes(max);
    }

    /// Seals `payload` bound to `binding`, expiring `ttl` seconds after `now`
    /// (seconds since the Unix epoch), with a nonce from the OS.
    fn seal(&self, binding: &Bound<'_, Binding>, now: u64, ttl: u32, payload: &[u8]) -> PyResult<String> {
        guard(|| self.0.seal(&binding.get().0.binding(), now, ttl, payload, &mut SeedRng::Os).or_raise())
    }

    /// Seals with an explicit nonce: for test vectors only (a reused nonce breaks AES-GCM).
    fn seal_with_nonce(
        &self,
        binding: &Bound<'_, Binding>,
        now: u64,
        ttl: u32,
        payload: &[u8],
        nonce: &[u8],
    ) -> PyResult<String> {
        guard(|| self.0.seal_with_nonce(&binding.get().0.binding(), now, ttl, payload, nonce).or_raise())
    }

    /// Opens `token` (`str` or `bytes`) for `binding` at `now`: the payload, or exactly one `state-*` error.
    fn open<'py>(
        &self,
        py: Python<'py>,
        token: &Bound<'py, PyAny>,
        binding: &Bound<'py, Binding>,
        now: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        guard(|| {
            let token = Raw::of(token)?.ok_or_else(|| usage("a token is str or bytes"))?;
            Ok(PyBytes::new(py, &self.0.open(token.as_bytes(), &binding.get().0.binding(), now).or_raise()?))
        })
    }

    fn __repr__(&self) -> &'static str {
        "KeyRing(…)"
    }
}

/// SHA-256 of the canonical JSON of `salient` (keys sorted, no spaces).
#[pyfunction]
fn params_digest<'py>(py: Python<'py>, salient: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    guard(|| Ok(PyBytes::new(py, &state::params_digest(&json_arg(salient, &Limits::DEFAULT)?))))
}

/// Unsealed state: base64url of `payload`. Unsafe for anything user-specific.
#[pyfunction]
fn unsealed_encode(payload: &[u8]) -> PyResult<String> {
    guard(|| Ok(state::unsealed::encode(payload)))
}

/// Decodes unsealed state, refusing non-base64url (`state-malformed`) and
/// tokens over `max_bytes` (`state-too-large`).
#[pyfunction]
#[pyo3(signature = (token, max_bytes=65536))]
fn unsealed_decode<'py>(py: Python<'py>, token: &str, max_bytes: usize) -> PyResult<Bound<'py, PyBytes>> {
    guard(|| Ok(PyBytes::new(py, &state::unsealed::decode(token, max_bytes).or_raise()?)))
}

/// A server's rounds with sealed state: the answers of earlier rounds travel
/// in `requestState`, so that a tool never handles a token.
#[pyclass(module = "mrtr._mrtr", name = "SealedRounds", frozen, weakref)]
pub struct SealedRounds {
    ring: Py<KeyRing>,
    subject: String,
    now: u64,
    ttl: u32,
    protocol: Protocol,
    limits: Limits,
}

impl SealedRounds {
    fn with<T>(&self, py: Python<'_>, f: impl FnOnce(&CoreRounds<'_>) -> mrtr::Result<T>) -> PyResult<T> {
        let (ring, subject, limits) = (&self.ring.bind(py).try_borrow()?.0, &self.subject, self.limits);
        f(&CoreRounds { ring, subject, now: self.now, ttl: self.ttl, protocol: self.protocol, limits }).or_raise()
    }
}

#[pymethods]
impl SealedRounds {
    /// Settings for one request: the ring, the authenticated principal, the
    /// caller's clock (seconds since the Unix epoch) and the round's lifetime.
    #[new]
    #[pyo3(signature = (ring, subject, now, ttl, protocol=None, limits=None))]
    fn new(
        ring: Py<KeyRing>,
        subject: String,
        now: u64,
        ttl: u32,
        protocol: Option<Proto>,
        limits: Option<Lim>,
    ) -> Self {
        let (protocol, limits) = (protocol.unwrap_or_default().0, limits.unwrap_or_default().0);
        SealedRounds { ring, subject, now, ttl, protocol, limits }
    }

    /// Reads `request` against `needs`: a `Round`, this request's answers plus the sealed earlier ones.
    fn resume<'py>(
        &self,
        py: Python<'py>,
        request: &Bound<'py, PyAny>,
        needs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| {
            let (request, needs) = (json_arg(request, &self.limits)?, json_arg(needs, &self.limits)?);
            make(py, "Round", &self.with(py, |r| r.resume(&request, &needs))?)
        })
    }

    /// Answers `request` with `input_required`: what `round` still misses, and
    /// sealed state carrying its answers and `data`.
    #[pyo3(signature = (request, round, needs, data=None))]
    fn respond<'py>(
        &self,
        py: Python<'py>,
        request: &Bound<'py, PyAny>,
        round: &Bound<'py, PyAny>,
        needs: &Bound<'py, PyAny>,
        data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| {
            let (request, needs) = (json_arg(request, &self.limits)?, json_arg(needs, &self.limits)?);
            let round = round.getattr("__dict__").map_err(|_| usage("a round is the mrtr.Round resume() returned"))?;
            let round: Round =
                serde_json::from_value(from_python(&round, &self.limits)?).map_err(|e| usage(e.to_string()))?;
            let data = data.map(|d| from_python(d, &self.limits)).transpose()?;
            to_python(py, &self.with(py, |r| r.respond(&request, &round, &needs, data, &mut SeedRng::Os))?)
        })
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Key>()?;
    m.add_class::<Binding>()?;
    m.add_class::<KeyRing>()?;
    m.add_class::<SealedRounds>()?;
    m.add_function(wrap_pyfunction!(params_digest, m)?)?;
    m.add_function(wrap_pyfunction!(unsealed_encode, m)?)?;
    m.add_function(wrap_pyfunction!(unsealed_decode, m)?)
}
