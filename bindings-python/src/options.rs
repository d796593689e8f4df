//! What every call takes besides its messages, read by the core: the protocol
//! (`Protocol::parse`) and the `Limits` (their serde Deserialize, which fills
//! in every field the caller left out and refuses unknown ones).

use crate::{
    convert::from_python,
    errors::{usage, OrRaise},
};
use mrtr::{http::Mode, Protocol};
use pyo3::{
    prelude::*,
    types::{PyDict, PyInt, PyString},
};
use serde_json::{Map, Value};

/// A `protocol` argument: a `Protocol` member or its name. Absent (`None`),
/// the core's default.
#[derive(Clone, Copy, Default)]
pub struct Proto(pub Protocol);

impl<'a, 'py> FromPyObject<'a, 'py> for Proto {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Proto> {
        let name = obj.cast::<PyString>().map_err(|_| usage("a protocol is a str (a Protocol member)"))?;
        Protocol::parse(&name.to_cow()?).map(Proto).or_raise()
    }
}

/// A `transport` argument: a mode's name (`"2026-07-28"`, `"2025-11-25"`,
/// `"sep-1858"`, `"sep-1335"`), read by the core (`Mode::from_name`).
#[derive(Clone, Copy)]
pub struct Transport(pub Mode);

impl<'a, 'py> FromPyObject<'a, 'py> for Transport {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Transport> {
        let name: Text = obj.extract()?;
        Mode::from_name(&name.0).map(Transport).or_raise()
    }
}

/// A `str` argument (a URL, a key, a method, a mode): anything else, or a
/// `str` with lone surrogates (no UTF-8), is a `UsageError`.
pub struct Text(pub String);

impl<'a, 'py> FromPyObject<'a, 'py> for Text {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Text> {
        let s = obj.cast::<PyString>().map_err(|_| usage("expected a str"))?;
        let text = s.to_cow().map_err(|_| usage("a str with lone surrogates is no UTF-8 text"))?;
        Ok(Text(text.into_owned()))
    }
}

/// A non-negative integer argument (a time in milliseconds, an exchange
/// number): anything else is a `UsageError`, not an `OverflowError`.
#[derive(Clone, Copy)]
pub struct Nat(pub u64);

impl<'a, 'py> FromPyObject<'a, 'py> for Nat {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Nat> {
        let int = obj.cast::<PyInt>().map_err(|_| usage("expected an int"))?;
        int.extract::<u64>().map(Nat).map_err(|_| usage("expected an int in [0, 2**64)"))
    }
}

/// A `limits` argument (a `mrtr.Limits`). Absent (`None`), the core's defaults.
#[derive(Clone, Copy, Default)]
pub struct Lim(pub mrtr::Limits);

impl<'a, 'py> FromPyObject<'a, 'py> for Lim {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Lim> {
        let fields = obj.getattr("__dict__").map_err(|_| usage("limits are a mrtr.Limits"))?;
        let mut wire = Map::new();
        for (k, v) in fields.cast::<PyDict>()?.iter() {
            let camel: String = k.cast::<PyString>()?.to_cow()?.split('_').enumerate().map(title).collect();
            wire.insert(camel, from_python(&v, &mrtr::Limits::DEFAULT)?);
        }
        serde_json::from_value(Value::Object(wire)).map(Lim).map_err(|e| usage(format!("limits: {e}")))
    }
}

/// A part of a snake_case name in camelCase (Python's `max_depth` is the wire's `maxDepth`).
pub(crate) fn title((i, part): (usize, &str)) -> String {
    let mut chars = part.chars();
    match chars.next() {
        Some(first) if i > 0 => first.to_uppercase().chain(chars).collect(),
        _ => part.to_string(),
    }
}
