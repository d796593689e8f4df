//! Sealed `requestState` (`mrtr::state`) and server rounds over it
//! (`mrtr::round`), through the façade (`mrtr_facade`), which decides: a
//! key's id, algorithm and secret (`facade::key`), a binding's subject and
//! params (`BindingSpec`), round settings and calls (`resume_round`,
//! `respond_round`), every default. Key material stays in Rust, zeroized on
//! drop, never in a `repr`.
//!
//! What is Python's own: a replay guard is a callable `(state_id: str,
//! expiry: int) -> bool`, wrapped in a closure (`HostGuard`) that fails
//! closed when it raises (or returns anything but a `bool`) and re-raises the
//! callable's own exception once the core has returned.

use crate::{
    convert::{class, from_python, json_text, make, to_python, Raw},
    errors::{guard as boundary, raise, usage, OrRaise},
    options::{title, Lim},
};
use mrtr::{
    state::{Key as CoreKey, KeyRing as CoreRing, ReplayGuard, SeedRng, StateId, Subject},
    Limits, RuleId,
};
use mrtr_facade::{self as facade, BindingSpec, Randomness, RoundsSettings};
use pyo3::{
    prelude::*,
    types::{PyBool, PyBytes, PyDict},
};
use serde_json::{json, Map, Value};
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
        boundary(|| Key::checked(id, algorithm, secret, false))
    }

    /// A key derived from one master secret and the key id (HKDF-SHA-256).
    #[staticmethod]
    fn derive(id: i64, algorithm: String, master: &[u8]) -> PyResult<Key> {
        boundary(|| Key::checked(id, algorithm, master, true))
    }

    fn __repr__(&self) -> String {
        format!("Key(id={}, algorithm={:?}, secret=…)", self.id, self.algorithm)
    }
}

/// The digest of a request's params, as the façade computes it from their JSON
/// text: a `dict` written out, `str`/`bytes` JSON text as given (every number
/// exact). `None` (or anything else) is refused: no binding defaults its params.
fn digest_of(params: &Bound<'_, PyAny>) -> PyResult<[u8; 32]> {
    if Raw::of(params)?.is_none() && !params.is_instance_of::<PyDict>() {
        return Err(usage(
            "a binding names its request's params: a dict, or their JSON text (str or bytes); there is no default",
        ));
    }
    facade::params_digest(json_text(params, &Limits::DEFAULT)?.as_bytes()).or_raise()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What a token is bound to: the subject (a principal, or anonymous by
/// explicit choice), the protocol, the method, the target and a digest of the
/// request's params.
#[pyclass(module = "mrtr._mrtr", name = "Binding", frozen)]
pub struct Binding(BindingSpec);

impl Binding {
    /// The binding the façade reads from its parts (`subject` JSON `null` when
    /// absent, so that the façade says what is missing).
    fn of_parts(
        subject: Option<&Bound<'_, PyAny>>,
        method: &Bound<'_, PyAny>,
        target: &Bound<'_, PyAny>,
        params: &Bound<'_, PyAny>,
        protocol: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Binding> {
        let l = &Limits::DEFAULT;
        let mut spec = Map::new();
        match subject {
            Some(s) => spec.insert("subject".into(), from_python(s, l)?),
            None => spec.insert("anonymous".into(), true.into()),
        };
        spec.insert("method".into(), from_python(method, l)?);
        spec.insert("target".into(), from_python(target, l)?);
        spec.insert("protocol".into(), protocol.map(|p| from_python(p, l)).transpose()?.unwrap_or_default());
        spec.insert("paramsDigest".into(), hex(&digest_of(params)?).into());
        BindingSpec::from_json(Value::Object(spec).to_string().as_bytes()).map(Binding).or_raise()
    }
}

#[pymethods]
impl Binding {
    /// A binding from its parts, for the authenticated principal `subject`
    /// (non-empty). `params` is the request's params object (a `dict`, or its
    /// JSON text, read as given so that every number stays exact); every param
    /// but `inputResponses`, `requestState` and `_meta` is digested.
    #[new]
    #[pyo3(signature = (subject, method, target, params, protocol=None))]
    fn new(
        subject: &Bound<'_, PyAny>,
        method: &Bound<'_, PyAny>,
        target: &Bound<'_, PyAny>,
        params: &Bound<'_, PyAny>,
        protocol: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Binding> {
        boundary(|| Binding::of_parts(Some(subject), method, target, params, protocol))
    }

    /// A binding for no principal, by explicit choice: its token opens for any
    /// anonymous caller, so it must carry nothing user-specific.
    #[staticmethod]
    #[pyo3(signature = (method, target, params, protocol=None))]
    fn anonymous(
        method: &Bound<'_, PyAny>,
        target: &Bound<'_, PyAny>,
        params: &Bound<'_, PyAny>,
        protocol: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Binding> {
        boundary(|| Binding::of_parts(None, method, target, params, protocol))
    }

    /// The binding of `request` (a `dict`, or its JSON text, digested as given)
    /// for the principal `subject`, or for no principal with `anonymous=True`:
    /// exactly one of them.
    #[staticmethod]
    #[pyo3(signature = (request, subject=None, *, anonymous=false, protocol=None))]
    fn for_request(
        request: &Bound<'_, PyAny>,
        subject: Option<&str>,
        anonymous: bool,
        protocol: Option<&str>,
    ) -> PyResult<Binding> {
        boundary(|| {
            let request = json_text(request, &Limits::DEFAULT)?;
            let spec = facade::binding_for(request.as_bytes(), subject, anonymous, protocol).or_raise()?;
            BindingSpec::from_json(spec.as_bytes()).map(Binding).or_raise()
        })
    }

    /// A binding in the core's JSON form, `{"subject" | "anonymous": true,
    /// "protocol", "method", "target", "params" | "paramsDigest"}`: a `dict`,
    /// or its JSON text, read as given.
    #[staticmethod]
    fn from_json(binding: &Bound<'_, PyAny>) -> PyResult<Binding> {
        boundary(|| {
            let text = json_text(binding, &Limits::DEFAULT)?;
            BindingSpec::from_json(text.as_bytes()).map(Binding).or_raise()
        })
    }

    /// The authenticated principal; `None` for an anonymous binding (a
    /// principal is never empty).
    #[getter]
    fn subject(&self) -> Option<&str> {
        match self.0.binding().subject {
            Subject::Principal(id) => Some(id),
            Subject::Anonymous => None,
        }
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

    /// The tool or prompt name, the resource URI, the task id.
    #[getter]
    fn target(&self) -> &str {
        self.0.binding().target
    }

    /// SHA-256 of the canonical JSON of the bound params.
    #[getter]
    fn params_digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.binding().params_digest)
    }

    fn __eq__(&self, other: &Binding) -> bool {
        self.0.binding() == other.0.binding()
    }

    fn __repr__(&self) -> String {
        let b = self.0.binding();
        let (method, target, protocol) = (b.method, b.target, b.protocol.name());
        let subject = match b.subject {
            Subject::Principal(id) => format!("subject={id:?}"),
            Subject::Anonymous => "anonymous=True".into(),
        };
        format!("Binding({subject}, method={method:?}, target={target:?}, protocol={protocol:?})")
    }
}

/// A host's replay guard: a callable `(state_id: str, expiry: int) -> bool`
/// (`True`: first use). When it raises, or returns anything but a `bool` (an
/// `async def` guard's coroutine is truthy, and would let every replay pass),
/// the state is refused (fail closed) and the error is kept for the host.
struct HostGuard<'a, 'py> {
    guard: &'a Bound<'py, PyAny>,
    raised: Option<PyErr>,
}

impl ReplayGuard for HostGuard<'_, '_> {
    fn first_use(&mut self, id: &StateId, expiry: u64) -> bool {
        let verdict = self.guard.call1((id.to_string(), expiry)).and_then(|r| match r.cast::<PyBool>() {
            Ok(b) => Ok(b.is_true()),
            Err(_) => Err(usage(format!(
                "a replay guard returns True (first use) or False, not {} (an async guard must be awaited by the host)",
                r.get_type().name().map(|n| n.to_string()).unwrap_or_default()
            ))),
        });
        verdict.unwrap_or_else(|e| {
            self.raised = Some(e);
            false
        })
    }
}

/// Runs `f` with the host's `guard` (if any) as the core's replay guard; the
/// guard's own exception wins over the core's refusal it caused.
pub(crate) fn guarded<T>(
    guard: Option<&Bound<'_, PyAny>>,
    f: impl FnOnce(Option<&mut dyn ReplayGuard>) -> mrtr::Result<T>,
) -> PyResult<T> {
    if let Some(g) = guard.filter(|g| !g.is_callable()) {
        let kind = g.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        return Err(usage(format!("a replay guard is a callable (state_id, expiry) -> bool, not {kind}")));
    }
    let mut host = guard.map(|guard| HostGuard { guard, raised: None });
    let out = f(host.as_mut().map(|h| h as &mut dyn ReplayGuard));
    match host.and_then(|h| h.raised) {
        Some(e) => Err(e),
        None => out.or_raise(),
    }
}

/// A deployment label: `str` (its UTF-8) or `bytes`.
fn label(obj: &Bound<'_, PyAny>) -> PyResult<Raw> {
    Raw::of(obj)?.ok_or_else(|| usage("a deployment label is str or bytes"))
}

/// Keys by id: seals with the current one, opens with any.
#[pyclass(module = "mrtr._mrtr", name = "KeyRing", weakref)]
pub struct KeyRing(pub(crate) CoreRing);

#[pymethods]
impl KeyRing {
    /// A ring holding `current` (which seals) and `others` (which only open);
    /// `context` labels the deployment, `seal_budget` is this instance's share
    /// of each key's seals.
    #[new]
    #[pyo3(signature = (current, *others, max_token_bytes=None, context=None, seal_budget=None))]
    fn new(
        current: &Bound<'_, Key>,
        others: Vec<Bound<'_, Key>>,
        max_token_bytes: Option<usize>,
        context: Option<&Bound<'_, PyAny>>,
        seal_budget: Option<u64>,
    ) -> PyResult<KeyRing> {
        boundary(|| {
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
            if let Some(context) = context {
                ring.set_context(label(context)?.as_bytes()).or_raise()?;
            }
            if let Some(budget) = seal_budget {
                ring.set_seal_budget(budget);
            }
            Ok(KeyRing(ring))
        })
    }

    /// Adds a key that opens tokens (replacing one with the same id).
    fn add(&mut self, key: &Bound<'_, Key>) -> PyResult<()> {
        boundary(|| key.get().core().map(|k| self.0.add(k)))
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

    /// Labels the deployment (at most 64 bytes): every token is sealed and
    /// opened under it, so deployments sharing a master never open each
    /// other's tokens.
    fn set_context(&mut self, context: &Bound<'_, PyAny>) -> PyResult<()> {
        boundary(|| self.0.set_context(label(context)?.as_bytes()).or_raise())
    }

    /// How many seals each key may make in this process (this instance's share
    /// of the fleet's budget); past it, `usage-seal-budget-spent`.
    fn set_seal_budget(&mut self, seals: u64) {
        self.0.set_seal_budget(seals);
    }

    /// How many seals the key `key_id` has made in this process; `None` if the ring lacks it.
    fn seals(&self, key_id: i64) -> Option<u64> {
        u8::try_from(key_id).ok().and_then(|id| self.0.seals(id))
    }

    /// Seals `payload` bound to `binding`, expiring `ttl` seconds after `now`
    /// (seconds since the Unix epoch), with a nonce from the OS.
    fn seal(&self, binding: &Bound<'_, Binding>, now: u64, ttl: u32, payload: &[u8]) -> PyResult<String> {
        let now = mrtr::Millis::from_secs(now);
        boundary(|| self.0.seal(&binding.get().0.binding(), now, ttl, payload, &mut SeedRng::Os).or_raise())
    }

    /// Seals with the caller's nonce: test vectors only, in builds with the
    /// cargo feature `test-vectors` (never a released wheel). A reused nonce
    /// gives away AES-GCM's plaintexts and lets anyone forge tokens.
    #[cfg(feature = "test-vectors")]
    fn _seal_with_nonce_for_test_vectors(
        &self,
        binding: &Bound<'_, Binding>,
        now: u64,
        ttl: u32,
        payload: &[u8],
        nonce: &[u8],
    ) -> PyResult<String> {
        boundary(|| {
            let now = mrtr::Millis::from_secs(now);
            self.0.seal_with_nonce(&binding.get().0.binding(), now, ttl, payload, nonce).or_raise()
        })
    }

    /// Opens `token` (`str` or `bytes`) for `binding` at `now`: an `Opened`
    /// (payload, state id, expiry), or exactly one `state-*` error. With a
    /// `guard`, a state it has seen before is `state-replayed`.
    #[pyo3(signature = (token, binding, now, guard=None))]
    fn open<'py>(
        &self,
        py: Python<'py>,
        token: &Bound<'py, PyAny>,
        binding: &Bound<'py, Binding>,
        now: u64,
        guard: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        boundary(|| {
            let token = Raw::of(token)?.ok_or_else(|| usage("a token is str or bytes"))?;
            let b = binding.get().0.binding();
            let opened = guarded(guard, |g| match g {
                Some(g) => self.0.open_once(token.as_bytes(), &b, mrtr::Millis::from_secs(now), g),
                None => self.0.open(token.as_bytes(), &b, mrtr::Millis::from_secs(now)),
            })?;
            let payload = PyBytes::new(py, &opened.payload);
            class(py, "Opened")?.call1((payload, opened.id.to_string(), opened.expiry))
        })
    }

    fn __repr__(&self) -> &'static str {
        "KeyRing(…)"
    }
}

/// What anyone can read off `token` without a key: a `TokenInfo` (state id,
/// key id, algorithm, expiry), or `state-malformed`.
#[pyfunction]
fn inspect<'py>(py: Python<'py>, token: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    boundary(|| {
        let token = Raw::of(token)?.ok_or_else(|| usage("a token is str or bytes"))?;
        make(py, "TokenInfo", &output(&facade::inspect(token.as_bytes()).or_raise()?)?)
    })
}

/// The façade's output text as a `Value`.
fn output(text: &str) -> PyResult<Value> {
    serde_json::from_str(text)
        .map_err(|e| raise(mrtr::Error::with(RuleId::InternalPanic, format!("the façade wrote no JSON: {e}"))))
}

/// SHA-256 of the canonical JSON of a request's `params` (every param but
/// `inputResponses`, `requestState`, `_meta`): a `dict`, or JSON text read as given.
#[pyfunction]
fn params_digest<'py>(py: Python<'py>, params: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    boundary(|| Ok(PyBytes::new(py, &digest_of(params)?)))
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

/// A server's rounds with sealed state: a deployment's settings, built once;
/// the principal and the clock come with each call. The answers of earlier
/// rounds travel in `requestState`, so that a tool never handles a token.
#[pyclass(module = "mrtr._mrtr", name = "SealedRounds", frozen, weakref)]
pub struct SealedRounds {
    pub(crate) ring: Py<KeyRing>,
    /// The façade's settings JSON (`{ttl, protocol, limits, pinAnswers, maxRounds}`), checked once.
    pub(crate) settings: String,
    /// The limits again, for converting Python values.
    pub(crate) limits: Limits,
    /// The protocol of the settings, for the builders a tool's context calls.
    protocol: mrtr::Protocol,
    /// The settings as the façade read them, once: a replay reads no settings text per request.
    pub(crate) parsed: RoundsSettings,
}

/// The façade's per-call JSON: `{"subject" | "anonymous": true, "now"}`, as the
/// caller gave them (neither, or both, is the façade's usage error).
pub(crate) fn call_json(subject: Option<&str>, anonymous: bool, now: u64) -> String {
    json!({"subject": subject, "anonymous": anonymous, "now": now}).to_string()
}

#[pymethods]
impl SealedRounds {
    /// Settings for every request: the ring, the round's lifetime in seconds
    /// (`ttl`, the core's default 300), the protocol, the limits, and whether an
    /// answer counts only for the exact question it answered (`pin_answers`,
    /// default on), and how many rounds an await-style tool may take
    /// (`max_rounds`, the core's default 10; see `ToolReplay`). Absent
    /// (`None`) means the core's default.
    #[new]
    #[pyo3(signature = (ring, ttl=None, protocol=None, limits=None, pin_answers=None, max_rounds=None))]
    fn new(
        ring: Py<KeyRing>,
        ttl: Option<&Bound<'_, PyAny>>,
        protocol: Option<&Bound<'_, PyAny>>,
        limits: Option<Lim>,
        pin_answers: Option<&Bound<'_, PyAny>>,
        max_rounds: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        boundary(|| {
            let l = &Limits::DEFAULT;
            let mut settings = Map::new();
            let given = [("ttl", ttl), ("protocol", protocol), ("pinAnswers", pin_answers), ("maxRounds", max_rounds)];
            for (k, v) in given {
                if let Some(v) = v {
                    settings.insert(k.into(), from_python(v, l)?);
                }
            }
            if let Some(Lim(limits)) = limits {
                settings.insert("limits".into(), serde_json::to_value(limits).map_err(|e| usage(e.to_string()))?);
            }
            let limits = limits.unwrap_or_default().0;
            let settings = Value::Object(settings).to_string();
            let parsed = RoundsSettings::from_json(settings.as_bytes()).or_raise()?;
            Ok(SealedRounds { ring, settings, limits, protocol: parsed.protocol(), parsed })
        })
    }

    /// The protocol these rounds are sealed for (a `Protocol` value).
    #[getter]
    fn protocol(&self) -> &'static str {
        self.protocol.name()
    }

    /// Reads `request` against `needs` for the principal `subject` (or
    /// `anonymous=True`) at `now`: a `Round`, this request's answers plus the
    /// sealed earlier ones (each re-validated, and pinned to its question).
    /// With a `guard`, a state used before is `state-replayed`.
    #[pyo3(signature = (request, needs, *, subject=None, anonymous=false, now, guard=None))]
    #[allow(clippy::too_many_arguments)]
    fn resume<'py>(
        &self,
        py: Python<'py>,
        request: &Bound<'py, PyAny>,
        needs: &Bound<'py, PyAny>,
        subject: Option<&str>,
        anonymous: bool,
        now: u64,
        guard: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        boundary(|| {
            let (request, needs) = (json_text(request, &self.limits)?, json_text(needs, &self.limits)?);
            let call = call_json(subject, anonymous, now);
            let ring = &self.ring.bind(py).try_borrow()?.0;
            let round = guarded(guard, |g| {
                facade::resume_round(
                    ring,
                    request.as_bytes(),
                    needs.as_bytes(),
                    self.settings.as_bytes(),
                    call.as_bytes(),
                    g,
                )
            })?;
            make(py, "Round", &output(&round)?)
        })
    }

    /// Answers `request` with `input_required`: what `round` still misses, and
    /// sealed state carrying its answers, its number and `data`, bound to the
    /// principal `subject` (or `anonymous=True`), expiring `ttl` after `now`.
    #[pyo3(signature = (request, round, needs, data=None, *, subject=None, anonymous=false, now))]
    #[allow(clippy::too_many_arguments)]
    fn respond<'py>(
        &self,
        py: Python<'py>,
        request: &Bound<'py, PyAny>,
        round: &Bound<'py, PyAny>,
        needs: &Bound<'py, PyAny>,
        data: Option<&Bound<'py, PyAny>>,
        subject: Option<&str>,
        anonymous: bool,
        now: u64,
    ) -> PyResult<Bound<'py, PyAny>> {
        boundary(|| {
            let (request, needs) = (json_text(request, &self.limits)?, json_text(needs, &self.limits)?);
            let round = round_json(round, &self.limits)?;
            let data = data.map(|d| from_python(d, &self.limits).map(|d| d.to_string())).transpose()?;
            let call = call_json(subject, anonymous, now);
            let ring = &self.ring.bind(py).try_borrow()?.0;
            let response = facade::respond_round(
                ring,
                request.as_bytes(),
                round.as_bytes(),
                needs.as_bytes(),
                data.as_deref().map(str::as_bytes),
                self.settings.as_bytes(),
                call.as_bytes(),
                Randomness::Os,
            )
            .or_raise()?;
            to_python(py, &output(&response)?)
        })
    }
}

/// A `Round` (the dataclass `resume` returns, or one the server built) in the
/// façade's wire shape: its fields, snake_case to camelCase.
fn round_json(round: &Bound<'_, PyAny>, limits: &Limits) -> PyResult<String> {
    let fields = round.getattr("__dict__").map_err(|_| usage("a round is the mrtr.Round resume() returned"))?;
    let fields = fields.cast::<PyDict>().map_err(|_| usage("a round is the mrtr.Round resume() returned"))?;
    let mut wire = Map::new();
    for (k, v) in fields.iter() {
        let key: String = k.extract()?;
        wire.insert(key.split('_').enumerate().map(title).collect(), from_python(&v, limits)?);
    }
    Ok(Value::Object(wire).to_string())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Key>()?;
    m.add_class::<Binding>()?;
    m.add_class::<KeyRing>()?;
    m.add_class::<SealedRounds>()?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    m.add_function(wrap_pyfunction!(params_digest, m)?)?;
    m.add_function(wrap_pyfunction!(unsealed_encode, m)?)?;
    m.add_function(wrap_pyfunction!(unsealed_decode, m)?)
}
