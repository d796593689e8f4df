//! Sealed `requestState` (`mrtr::state`) and server rounds over it
//! (`mrtr::round`): keys, key rings, bindings, seal and open.
//!
//! Key material stays in Rust: a `Key` keeps the 32 secret bytes (or the
//! master secret it derives from) in zeroized memory, never shows them in
//! `repr`, and gives the ring a fresh core key whenever it is added.

use crate::{
    convert::{self, json_arg, to_py_obj},
    errors::OrRaise,
    options::{self, Limits},
};
use mrtr::{
    round::{Round as CoreRound, SealedRounds as CoreRounds},
    state::{self, Algorithm, Binding as CoreBinding, Key as CoreKey, KeyRing as CoreRing},
    Protocol,
};
use pyo3::{
    exceptions::PyValueError,
    prelude::*,
    types::{PyBytes, PyDict},
};
use serde_json::{Map, Value};
use zeroize::Zeroizing;

fn algorithm(name: &str) -> PyResult<Algorithm> {
    Algorithm::from_name(name)
        .ok_or_else(|| PyValueError::new_err(format!("unknown algorithm {name:?} (aes-256-gcm, xchacha20-poly1305)")))
}

enum Material {
    Secret(Zeroizing<[u8; 32]>),
    Master(Zeroizing<Vec<u8>>),
}

/// One sealing key: an id (0–255), an algorithm, and secret material that never leaves Rust.
#[pyclass(module = "mrtr._mrtr", name = "Key", frozen)]
pub struct Key {
    id: u8,
    alg: Algorithm,
    material: Material,
}

impl Key {
    fn core(&self) -> CoreKey {
        match &self.material {
            Material::Secret(s) => CoreKey::new(self.id, self.alg, s),
            Material::Master(m) => CoreKey::derive(self.id, self.alg, m),
        }
    }
}

#[pymethods]
impl Key {
    /// A key from 32 secret bytes.
    #[new]
    fn new(id: u8, algorithm: &str, secret: &[u8]) -> PyResult<Key> {
        let secret: [u8; 32] = secret.try_into().map_err(|_| PyValueError::new_err("a secret is 32 bytes"))?;
        Ok(Key { id, alg: self::algorithm(algorithm)?, material: Material::Secret(Zeroizing::new(secret)) })
    }

    /// A key derived from one master secret and the key id (HKDF-SHA-256).
    #[staticmethod]
    fn derive(id: u8, algorithm: &str, master: &[u8]) -> PyResult<Key> {
        Ok(Key { id, alg: self::algorithm(algorithm)?, material: Material::Master(Zeroizing::new(master.to_vec())) })
    }

    /// The key id written in tokens.
    #[getter]
    fn id(&self) -> u8 {
        self.id
    }

    /// The algorithm's name.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.alg.name()
    }

    fn __repr__(&self) -> String {
        format!("Key(id={}, algorithm={:?}, secret=…)", self.id, self.alg.name())
    }
}

/// What a token is bound to: principal, protocol, method, target and a digest
/// of the salient params.
#[pyclass(module = "mrtr._mrtr", name = "Binding", frozen, eq)]
#[derive(Clone, PartialEq, Eq)]
pub struct Binding {
    subject: String,
    protocol: Protocol,
    method: String,
    target: String,
    digest: [u8; 32],
}

impl Binding {
    fn core(&self) -> CoreBinding<'_> {
        CoreBinding {
            subject: &self.subject,
            protocol: self.protocol,
            method: &self.method,
            target: &self.target,
            params_digest: self.digest,
        }
    }
}

#[pymethods]
impl Binding {
    /// A binding from its parts; `arguments` (the salient params, default `{}`) is digested.
    #[new]
    #[pyo3(signature = (subject, method, target, arguments=None, protocol=None))]
    fn new(
        subject: String,
        method: String,
        target: String,
        arguments: Option<&Bound<'_, PyAny>>,
        protocol: Option<&str>,
    ) -> PyResult<Binding> {
        let arguments = match arguments {
            Some(a) => json_arg(a, &mrtr::Limits::DEFAULT)?,
            None => Value::Object(Map::new()),
        };
        let protocol = options::protocol(protocol)?;
        Ok(Binding { subject, protocol, method, target, digest: state::params_digest(&arguments) })
    }

    /// The binding of `request` for `subject`: its method, its `name` or `uri`, its `arguments`.
    #[staticmethod]
    #[pyo3(signature = (request, subject="", protocol=None))]
    fn for_request(request: &Bound<'_, PyAny>, subject: &str, protocol: Option<&str>) -> PyResult<Binding> {
        let request = json_arg(request, &mrtr::Limits::DEFAULT)?;
        let b = CoreBinding::for_request(&request, subject, options::protocol(protocol)?);
        Ok(Binding {
            subject: b.subject.into(),
            protocol: b.protocol,
            method: b.method.into(),
            target: b.target.into(),
            digest: b.params_digest,
        })
    }

    /// The authenticated principal.
    #[getter]
    fn subject(&self) -> &str {
        &self.subject
    }

    /// The protocol's name.
    #[getter]
    fn protocol(&self) -> &'static str {
        self.protocol.name()
    }

    /// The request's method.
    #[getter]
    fn method(&self) -> &str {
        &self.method
    }

    /// The tool or prompt name, or the resource URI.
    #[getter]
    fn target(&self) -> &str {
        &self.target
    }

    /// SHA-256 of the canonical JSON of the salient params.
    #[getter]
    fn params_digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.digest)
    }

    fn __repr__(&self) -> String {
        format!(
            "Binding(subject={:?}, method={:?}, target={:?}, protocol={:?})",
            self.subject,
            self.method,
            self.target,
            self.protocol.name()
        )
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
    fn new(current: &Bound<'_, Key>, others: Vec<Bound<'_, Key>>, max_token_bytes: Option<usize>) -> KeyRing {
        let mut ring = CoreRing::new(current.get().core());
        for k in others {
            ring.add(k.get().core());
        }
        ring.set_current(current.get().id);
        if let Some(max) = max_token_bytes {
            ring.set_max_token_bytes(max);
        }
        KeyRing(ring)
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    fn add(&mut self, key: &Bound<'_, Key>) {
        self.0.add(key.get().core());
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
        self.0.seal_os(&binding.get().core(), now, ttl, payload).or_raise()
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
        self.0.seal_with_nonce(&binding.get().core(), now, ttl, payload, nonce).or_raise()
    }

    /// Opens `token` for `binding` at `now`: the payload, or exactly one `state-*` error.
    fn open<'py>(
        &self,
        py: Python<'py>,
        token: &str,
        binding: &Bound<'py, Binding>,
        now: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let payload = self.0.open(token, &binding.get().core(), now).or_raise()?;
        Ok(PyBytes::new(py, &payload))
    }

    fn __repr__(&self) -> &'static str {
        "KeyRing(…)"
    }
}

/// SHA-256 of the canonical JSON of `salient` (keys sorted, no spaces).
#[pyfunction]
fn params_digest<'py>(py: Python<'py>, salient: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let salient = json_arg(salient, &mrtr::Limits::DEFAULT)?;
    Ok(PyBytes::new(py, &state::params_digest(&salient)))
}

/// Unsealed state: base64url of `payload`. Unsafe for anything user-specific.
#[pyfunction]
fn unsealed_encode(payload: &[u8]) -> String {
    state::unsealed::encode(payload)
}

/// Decodes unsealed state, refusing non-base64url (`state-malformed`) and
/// tokens over `max_bytes` (`state-too-large`).
#[pyfunction]
#[pyo3(signature = (token, max_bytes=65536))]
fn unsealed_decode<'py>(py: Python<'py>, token: &str, max_bytes: usize) -> PyResult<Bound<'py, PyBytes>> {
    Ok(PyBytes::new(py, &state::unsealed::decode(token, max_bytes).or_raise()?))
}

/// What a server knows after reading a request (`mrtr::round::Round`).
#[pyclass(module = "mrtr._mrtr", name = "Round", frozen)]
pub struct Round {
    core: CoreRound,
}

#[pymethods]
impl Round {
    /// Every needed answer collected so far, in the order of `needs`.
    #[getter]
    fn answers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        Ok(convert::to_python(py, &Value::Object(self.core.answers.clone()))?.cast_into::<PyDict>()?)
    }

    /// Needed keys still without an answer.
    #[getter]
    fn missing(&self) -> Vec<String> {
        self.core.missing.clone()
    }

    /// Keys this request answered that are not needed.
    #[getter]
    fn ignored(&self) -> Vec<String> {
        self.core.ignored.clone()
    }

    /// The tool's own data from the previous round, if it kept any.
    #[getter]
    fn data(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        self.core.data.as_ref().map(|d| to_py_obj(py, d)).transpose()
    }

    /// Whether every needed answer is there.
    #[getter]
    fn complete(&self) -> bool {
        self.core.is_complete()
    }

    fn __repr__(&self) -> String {
        format!(
            "Round(answers=<{} keys>, missing={:?}, ignored={:?})",
            self.core.answers.len(),
            self.core.missing,
            self.core.ignored
        )
    }
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
    limits: mrtr::Limits,
}

impl SealedRounds {
    fn with<T>(&self, py: Python<'_>, f: impl FnOnce(&CoreRounds<'_>) -> PyResult<T>) -> PyResult<T> {
        let ring = self.ring.bind(py).try_borrow()?;
        let rounds = CoreRounds {
            ring: &ring.0,
            subject: &self.subject,
            now: self.now,
            ttl: self.ttl,
            protocol: self.protocol,
            limits: self.limits,
        };
        f(&rounds)
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
        protocol: Option<&str>,
        limits: Option<&Bound<'_, Limits>>,
    ) -> PyResult<SealedRounds> {
        Ok(SealedRounds {
            ring,
            subject,
            now,
            ttl,
            protocol: options::protocol(protocol)?,
            limits: options::limits(limits),
        })
    }

    /// Reads `request` against `needs`: this request's answers plus the sealed earlier ones.
    fn resume(&self, py: Python<'_>, request: &Bound<'_, PyAny>, needs: &Bound<'_, PyAny>) -> PyResult<Round> {
        let (request, needs) = (json_arg(request, &self.limits)?, json_arg(needs, &self.limits)?);
        self.with(py, |r| r.resume(&request, &needs).map(|core| Round { core }).or_raise())
    }

    /// Answers `request` with `input_required`: what `round` still misses, and
    /// sealed state carrying its answers and `data`.
    #[pyo3(signature = (request, round, needs, data=None))]
    fn respond<'py>(
        &self,
        py: Python<'py>,
        request: &Bound<'py, PyAny>,
        round: &Bound<'py, Round>,
        needs: &Bound<'py, PyAny>,
        data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (request, needs) = (json_arg(request, &self.limits)?, json_arg(needs, &self.limits)?);
        let data = data.map(|d| convert::value_arg(d, &self.limits)).transpose()?;
        let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
        let built = self.with(py, |r| r.respond(&request, &round.get().core, &needs, data, &mut rng).or_raise())?;
        convert::to_python(py, &built)
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Key>()?;
    m.add_class::<Binding>()?;
    m.add_class::<KeyRing>()?;
    m.add_class::<Round>()?;
    m.add_class::<SealedRounds>()?;
    m.add("ALGORITHMS", vec![Algorithm::Aes256Gcm.name(), Algorithm::XChaCha20Poly1305.name()])?;
    m.add_function(wrap_pyfunction!(params_digest, m)?)?;
    m.add_function(wrap_pyfunction!(unsealed_encode, m)?)?;
    m.add_function(wrap_pyfunction!(unsealed_decode, m)?)
}
