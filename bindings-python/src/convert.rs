//! Python objects and raw JSON to `serde_json::Value`, and back.
//!
//! Two ways in, one `Value` out:
//! - plain Python (`dict`, `list`, `tuple`, `str`, `int`, `float`, `bool`,
//!   `None`), walked with a budget so that a 10 000-deep dict or a 100 MB
//!   string is `limit-exceeded` before it is copied; anything that is no JSON
//!   value (a `set`, a non-`str` key, NaN) is `usage-invalid-argument`, and so
//!   is an `int` outside [-2^63, 2^64), which would otherwise be rounded (raw
//!   JSON text keeps it exact);
//! - raw JSON `str` / `bytes`, read by the core from the bytes
//!   ([`mrtr::parse`]: its bad-input rules, its limits).
//!
//! Out: a `Value` as plain Python, and the core's output types in their one
//! wire shape (`mrtr::wire`) as the façade's classes ([`make`]).

use crate::errors::{raise, usage, OrRaise};
use mrtr::{Error, Limits, RuleId};
use pyo3::{
    prelude::*,
    pybacked::{PyBackedBytes, PyBackedStr},
    sync::PyOnceLock,
    types::{PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple},
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// Inputs at least this long are parsed with the GIL released.
pub const DETACH_BYTES: usize = 16 << 10;

/// Raw JSON text held without copying (`bytes`) or as UTF-8 (`str`).
pub enum Raw {
    /// A `bytes` object (or a copy of a `bytearray`, or a `str` that is no UTF-8).
    Bytes(PyBackedBytes),
    /// A `str` object's UTF-8.
    Str(PyBackedStr),
}

impl Raw {
    /// The JSON text.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Raw::Bytes(b) => b,
            Raw::Str(s) => s.as_bytes(),
        }
    }

    /// `obj` as raw JSON, if it is `str`, `bytes` or `bytearray`. A `str`
    /// with lone surrogates goes on as its (ill-formed) bytes: the core says
    /// what UTF-8 that is not.
    pub fn of(obj: &Bound<'_, PyAny>) -> PyResult<Option<Raw>> {
        if obj.is_instance_of::<PyBytes>() || obj.is_instance_of::<PyByteArray>() {
            return Ok(Some(Raw::Bytes(obj.extract()?)));
        }
        if obj.is_instance_of::<PyString>() {
            return Ok(Some(match obj.extract() {
                Ok(s) => Raw::Str(s),
                Err(_) => Raw::Bytes(obj.call_method1("encode", ("utf-8", "surrogatepass"))?.extract()?),
            }));
        }
        Ok(None)
    }
}

/// A JSON object or message argument: raw JSON (`str`/`bytes`) is parsed,
/// anything else converted as plain Python.
pub fn json_arg(obj: &Bound<'_, PyAny>, limits: &Limits) -> PyResult<Value> {
    match Raw::of(obj)? {
        Some(raw) => parse_detached(obj.py(), &raw, limits),
        None => from_python(obj, limits),
    }
}

/// JSON text for the façade: raw JSON (`str`/`bytes`) as given, byte for
/// byte (so that every number stays as written), anything else converted as
/// plain Python and written out.
pub fn json_text(obj: &Bound<'_, PyAny>, limits: &Limits) -> PyResult<Text> {
    match Raw::of(obj)? {
        Some(raw) => Ok(Text::Raw(raw)),
        None => Ok(Text::Written(from_python(obj, limits)?.to_string())),
    }
}

/// JSON text: the caller's own, or written from a Python value.
pub enum Text {
    /// Raw JSON the caller passed.
    Raw(Raw),
    /// JSON written from a Python value.
    Written(String),
}

impl Text {
    /// The JSON text.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Text::Raw(raw) => raw.as_bytes(),
            Text::Written(text) => text.as_bytes(),
        }
    }
}

/// Runs `f` with the GIL released when its input (`len` bytes) is large.
pub fn maybe_detached<T: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> T + Send) -> T {
    if len >= DETACH_BYTES {
        py.detach(f)
    } else {
        f()
    }
}

/// [`mrtr::parse`], with the GIL released for large inputs.
pub fn parse_detached(py: Python<'_>, raw: &Raw, limits: &Limits) -> PyResult<Value> {
    let bytes = raw.as_bytes();
    if bytes.len() >= DETACH_BYTES { py.detach(|| mrtr::parse(bytes, limits)) } else { mrtr::parse(bytes, limits) }
        .or_raise()
}

/// Converts plain Python to a `Value`, within `limits` (depth, and message
/// bytes counted as the UTF-8 of every string and key plus one per value).
/// A `str` is a JSON string here, never raw JSON.
pub fn from_python(obj: &Bound<'_, PyAny>, limits: &Limits) -> PyResult<Value> {
    Budget { left: limits.max_message_bytes, max_depth: limits.max_depth }.value(obj, 0)
}

struct Budget {
    left: usize,
    max_depth: usize,
}

impl Budget {
    fn spend(&mut self, n: usize) -> PyResult<()> {
        self.left = self
            .left
            .checked_sub(n)
            .ok_or_else(|| raise(Error::new(RuleId::LimitExceeded, "message over the bound of max_message_bytes")))?;
        Ok(())
    }

    fn string(&mut self, s: &Bound<'_, PyString>) -> PyResult<String> {
        // A code point is at least one UTF-8 byte: refuse before copying.
        let chars = s.len()?;
        self.spend(chars)?;
        let text = s.to_cow().map_err(|_| usage("a str with lone surrogates is not JSON text"))?;
        self.spend(text.len().saturating_sub(chars))?;
        Ok(text.into_owned())
    }

    fn value(&mut self, obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
        self.spend(1)?;
        if obj.is_none() {
            return Ok(Value::Null);
        }
        if let Ok(s) = obj.cast::<PyString>() {
            return Ok(Value::String(self.string(s)?));
        }
        if let Ok(b) = obj.cast::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if let Ok(i) = obj.cast::<PyInt>() {
            return int(i);
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            return Number::from_f64(f.value())
                .map(Value::Number)
                .ok_or_else(|| usage("NaN and infinities are not JSON"));
        }
        if depth >= self.max_depth {
            return Err(raise(Error::with(
                RuleId::LimitExceeded,
                format!("message nested deeper than {}", self.max_depth),
            )));
        }
        if let Ok(d) = obj.cast::<PyDict>() {
            let mut out = Map::with_capacity(d.len());
            for (k, v) in d.iter() {
                let key =
                    k.cast::<PyString>().map_err(|_| usage(format!("JSON object keys are str, not {}", name(&k))))?;
                let key = self.string(key)?;
                out.insert(key, self.value(&v, depth + 1)?);
            }
            return Ok(Value::Object(out));
        }
        if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
            return obj.try_iter()?.map(|v| self.value(&v?, depth + 1)).collect::<PyResult<_>>().map(Value::Array);
        }
        Err(usage(format!("{} is not a JSON value", name(obj))))
    }
}

/// An `int` as a JSON number, exactly: one outside [-2^63, 2^64) has no exact
/// `Value`, and rounding it to a float would make `10**20` and `10**20 + 1` one
/// number (in a digest, a binding: security review L1), so it is refused.
fn int(i: &Bound<'_, PyInt>) -> PyResult<Value> {
    if let Ok(v) = i.extract::<i64>() {
        return Ok(Value::Number(v.into()));
    }
    if let Ok(v) = i.extract::<u64>() {
        return Ok(Value::Number(v.into()));
    }
    Err(usage("an int outside [-2**63, 2**64) would be rounded: pass the JSON as text (str or bytes) to keep it exact"))
}

fn name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into())
}

/// Converts a `Value` to plain Python.
pub fn to_python<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            PyList::new(py, items.iter().map(|i| to_python(py, i)).collect::<PyResult<Vec<_>>>()?)?.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(PyString::new(py, k), to_python(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

static TYPES: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// The façade's class (or factory) `name` in `mrtr._types`.
pub fn class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    TYPES.get_or_try_init(py, || py.import("mrtr._types").map(Bound::unbind))?.bind(py).getattr(name)
}

/// A value of the core as the façade's class `name`, made from the fields of
/// its wire shape in order (`Resumed`, `Round`, `Violation`, `_event`).
pub fn make<'py>(py: Python<'py>, name: &str, v: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
    let fields = match serde_json::to_value(v).unwrap_or_default() {
        Value::Object(fields) => fields,
        _ => Map::new(),
    };
    let args = fields.values().map(|f| to_python(py, f)).collect::<PyResult<Vec<_>>>()?;
    class(py, name)?.call1(PyTuple::new(py, args)?)
}

/// The façade's output (JSON text it wrote) as a `Value`. It wraps values it
/// read (a message nested as deep as the limits allow) in its own objects,
/// so serde_json's recursion limit, which those limits already bound, is
/// lifted here. Text the façade wrote that is not JSON is a bug in mrtr.
pub fn output_value(text: &str) -> PyResult<Value> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value = Value::deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    value.map_err(|e| raise(Error::with(RuleId::InternalPanic, format!("mrtr wrote no JSON (a bug in mrtr): {e}"))))
}

/// The façade's output JSON text as plain Python ([`output_value`], [`to_python`]).
pub fn output<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    to_python(py, &output_value(text)?)
}
