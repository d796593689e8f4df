//! `bindings-python/src/exports.rs`: the pyo3 exports of the table's rows
//! that only convert, in the package's idiom: a JSON argument is a `dict`
//! (or any plain Python value) or its JSON text as `str`/`bytes`, read by the
//! kernel's `convert::json_text`; a JSON answer comes back as plain Python
//! (`convert::output`); the options are the keywords `protocol` and `limits`;
//! a refusal raises its `MrtrError` (with its `data`); every call runs under
//! the panic boundary `errors::guard`.
//!
//! Python's idiom follows from the rows' names, alike for every machine: an
//! `is_x` method is the property `x`, and a `poll_x` method that gives values
//! until none also gets `drain_xs()`, the list of them. A row that reads raw
//! bytes runs with the GIL released when they are large (`maybe_detached`).
//!
//! A machine's class is written by hand where Python's constructor differs
//! from the row's (the configuration as keywords, a typed record); the
//! generated methods join it in a second `#[pymethods]` block (pyo3's
//! `multiple-pymethods`). Every machine class holds the façade's machine as
//! `core` and, where a method reads JSON, the limits it walks Python values
//! under as `limits`, both `pub(crate)`.

use super::{doc_lines, rustfmt};
use mrtr::facade::exports::{Arg, Export, Receiver, Ret, EXPORTS, MACHINES};
use std::fmt::Write;
use std::path::PathBuf;

/// `(path, contents)` of the generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![(PathBuf::from("bindings-python/src/exports.rs"), file())]
}

/// The free functions the package writes by hand, each for its idiom.
const HAND_FREE: &[&str] = &[
    "catalogue",         // a str, read once by the package's tables
    "classify",          // a `Classified` record, without JSON
    "check",             // `Violation` records; a transcript as JSON Lines too
    "resume",            // a `Resumed` record
    "task_transition",   // named after the package's task tables
    "binding_for",       // `Binding.for_request`
    "params_digest",     // a `Binding`'s digest
    "inspect",           // a `TokenInfo` record, with a size bound
    "read_http_request", // the body as `None` for none
    "check_request",     // the header fields among the keywords
    "error_response",    // `_error_response`, under the package's `error_response`
];

/// The machines the package writes whole by hand (typed handles, records, the replay guard).
const HAND_MACHINES: &[&str] = &["Checker", "Client", "ToolReplay", "ToolBridge"];

/// The machines whose class and constructors the package writes (in the module named), and whose
/// other rows are generated.
const HAND_CONSTRUCTORS: &[(&str, &str)] =
    &[("Session", "client"), ("SseDecoder", "transport"), ("HttpCall", "transport"), ("Operation", "transport")];

/// Whether the package writes the row by hand.
pub fn hand_written(e: &Export) -> bool {
    match e.machine {
        None => HAND_FREE.contains(&e.name),
        Some(m) => {
            HAND_MACHINES.contains(&m)
                || HAND_CONSTRUCTORS.iter().any(|(h, _)| *h == m)
                    && matches!(e.receiver, Receiver::New | Receiver::Static)
        }
    }
}

/// The limits Python values are walked under in a row: the options', the machine's, or the default.
fn walk(e: &Export) -> &'static str {
    if e.params.iter().any(|(_, a)| *a == Arg::Options) {
        "&o.limits"
    } else if matches!(e.receiver, Receiver::Ref | Receiver::Mut) {
        "&self.limits"
    } else {
        "&Limits::DEFAULT"
    }
}

/// A parameter in the signature: its Rust type, and whether Python may leave it out (`None`).
fn param_type(arg: Arg) -> (&'static str, bool) {
    match arg {
        Arg::Text | Arg::Value | Arg::Bytes => ("&Bound<'py, PyAny>", false),
        Arg::OptText | Arg::OrEmpty | Arg::OptValue | Arg::Headers => ("Option<&Bound<'py, PyAny>>", true),
        Arg::Str => ("Text", false),
        Arg::OptStr => ("Option<Text>", true),
        Arg::Bool => ("bool", false),
        Arg::Whole | Arg::Status | Arg::Handle => ("Nat", false),
        Arg::Options | Arg::Random | Arg::Machine(_) => unreachable!("not one parameter"),
    }
}

/// The statement that converts parameter `name` into `name` as the façade takes it (none: as it is).
fn convert(name: &str, arg: Arg, walk: &str) -> Option<String> {
    Some(match arg {
        Arg::Text => format!("let {name} = json_text({name}, {walk})?;"),
        Arg::OptText | Arg::OrEmpty => format!("let {name} = {name}.map(|v| json_text(v, {walk})).transpose()?;"),
        Arg::Value => format!("let {name} = from_python({name}, {walk})?.to_string();"),
        Arg::OptValue => {
            format!("let {name} = {name}.map(|v| from_python(v, {walk}).map(|v| v.to_string())).transpose()?;")
        }
        Arg::Headers => format!("let {name} = headers_text({name})?;"),
        Arg::Bytes => format!("let {name} = bytes_of({name}, \"{name}\")?;"),
        Arg::Status => {
            format!("let {name} = u16::try_from({name}.0).map_err(|_| usage(\"an HTTP status is below 65536\"))?;")
        }
        _ => return None,
    })
}

/// A parameter as the façade call reads it.
fn pass(name: &str, arg: Arg) -> String {
    match arg {
        Arg::Text | Arg::Bytes => format!("{name}.as_bytes()"),
        Arg::OptText => format!("{name}.as_ref().map(|t| t.as_bytes())"),
        Arg::OrEmpty => format!("{name}.as_ref().map_or(&[][..], |t| t.as_bytes())"),
        Arg::Value | Arg::Headers => format!("{name}.as_bytes()"),
        Arg::OptValue => format!("{name}.as_deref().map(str::as_bytes)"),
        Arg::Str => format!("&{name}.0"),
        Arg::OptStr => format!("{name}.as_ref().map(|t| t.0.as_str())"),
        Arg::Whole | Arg::Handle => format!("{name}.0"),
        Arg::Bool | Arg::Status => name.into(),
        Arg::Options => "&o".into(),
        Arg::Random => "Randomness::Os".into(),
        Arg::Machine(m) => panic!("{name}: a Python row reading a {m} is written by hand"),
    }
}

/// What a row gives Python: its return type, and the expression that makes it of the façade's value `v`.
fn ret(r: Ret) -> (&'static str, &'static str) {
    match r {
        Ret::Unit | Ret::Refusal => ("()", ""),
        Ret::Text => ("String", "Ok(v)"),
        Ret::Name => ("String", "Ok(v.into())"),
        Ret::OptText => ("Option<String>", "Ok(v)"),
        Ret::Json => ("Bound<'py, PyAny>", "output(py, &v)"),
        Ret::OptJson | Ret::NextOrError => ("Option<Bound<'py, PyAny>>", "v.map(|t| output(py, &t)).transpose()"),
        Ret::Texts => ("Vec<String>", "Ok(v)"),
        Ret::Bool => ("bool", "Ok(v)"),
        Ret::Count => ("u32", "Ok(v)"),
        Ret::Handle => ("u64", "Ok(v)"),
        Ret::OptMillis => ("Option<u64>", "Ok(v)"),
        Ret::Bytes => ("Bound<'py, PyBytes>", "Ok(PyBytes::new(py, &v))"),
        Ret::Machine(m) => panic!("a Python row making a {m} is written by hand"),
    }
}

/// The façade call of a row, as a `Result` or a value.
fn call(e: &Export, inner: &str, args: &str) -> String {
    match e.receiver {
        Receiver::Free => format!("facade::{}({args})", e.callee()),
        Receiver::New => format!("facade::{inner}::new({args})"),
        Receiver::Static => format!("facade::{inner}::{}({args})", e.callee()),
        Receiver::Ref | Receiver::Mut => format!("self.core.{}({args})", e.callee()),
    }
}

/// The signature's parameters, `(rust, python)`: Python's optional ones default to `None` when
/// every later one may too; the options are the keywords `protocol` and `limits`.
fn signature(e: &Export) -> (Vec<String>, Vec<String>) {
    let (mut rust, mut python) = (Vec::new(), Vec::new());
    let last_required =
        e.params.iter().rposition(|(_, a)| !matches!(a, Arg::Options | Arg::Random) && !param_type(*a).1);
    for (i, (name, arg)) in e.params.iter().enumerate() {
        match arg {
            Arg::Random => {}
            Arg::Options => {
                rust.extend(["protocol: Option<Proto>".to_string(), "limits: Option<Lim>".to_string()]);
                python.extend(["protocol=None".to_string(), "limits=None".to_string()]);
            }
            _ => {
                let (ty, optional) = param_type(*arg);
                rust.push(format!("{name}: {ty}"));
                let defaults = optional && last_required.is_none_or(|l| i > l);
                python.push(if defaults { format!("{name}=None") } else { (*name).to_string() });
            }
        }
    }
    (rust, python)
}

/// One row as a pyo3 function or method, at `indent`.
fn function(out: &mut String, e: &Export, inner: &str, indent: &str) {
    let (mut params, python) = signature(e);
    let method = matches!(e.receiver, Receiver::Ref | Receiver::Mut);
    let (ty, make) = if e.receiver == Receiver::New { ("Self", "") } else { ret(e.ret) };
    let reads_bytes = e.params.iter().any(|(_, a)| *a == Arg::Bytes);
    let needs_py = ty.contains("'py") || make.contains("py") || reads_bytes;
    if needs_py {
        params.insert(0, "py: Python<'py>".into());
    }
    if method {
        params.insert(0, if e.receiver == Receiver::Mut { "&mut self" } else { "&self" }.into());
    }
    let getter = e.name.strip_prefix("is_").filter(|_| method && e.ret == Ret::Bool && e.params.is_empty());
    let name = getter.unwrap_or(e.name);
    let lifetime = if params.iter().any(|p| p.contains("'py")) || ty.contains("'py") { "<'py>" } else { "" };

    out.push('\n');
    out.push_str(&doc_lines(indent, e.doc));
    if getter.is_some() {
        let _ = writeln!(out, "{indent}#[getter]");
    }
    match e.receiver {
        Receiver::Free => {
            let _ = writeln!(out, "{indent}#[pyfunction]");
        }
        Receiver::New => {
            let _ = writeln!(out, "{indent}#[new]");
        }
        Receiver::Static => {
            let _ = writeln!(out, "{indent}#[staticmethod]");
        }
        Receiver::Ref | Receiver::Mut => {}
    }
    if !python.is_empty() {
        let _ = writeln!(out, "{indent}#[pyo3(signature = ({}))]", python.join(", "));
    }
    if params.len() > 7 {
        let _ = writeln!(out, "{indent}#[allow(clippy::too_many_arguments)]");
    }
    // pub(crate): the class's hand-written half calls them (an iterator's `__next__`).
    let _ = writeln!(out, "{indent}pub(crate) fn {name}{lifetime}({}) -> PyResult<{ty}> {{", params.join(", "));
    let body = body(e, inner, make);
    let _ = writeln!(out, "{indent}    guard(|| {{");
    for line in body.lines() {
        let _ = writeln!(out, "{indent}        {line}");
    }
    let _ = writeln!(out, "{indent}    }})\n{indent}}}");
}

/// The statements of a row: options, conversions, the call (detached when it reads raw bytes), the answer.
fn body(e: &Export, inner: &str, make: &str) -> String {
    let mut out = String::new();
    if e.params.iter().any(|(_, a)| *a == Arg::Options) {
        out.push_str("let o = options(protocol, limits);\n");
    }
    let walk = walk(e);
    for (name, arg) in e.params {
        if let Some(line) = convert(name, *arg, walk) {
            let _ = writeln!(out, "{line}");
        }
    }
    let args: Vec<String> = e.params.iter().map(|(n, a)| pass(n, *a)).collect();
    let mut call = call(e, inner, &args.join(", "));
    if let Some((raw, _)) = e.params.iter().find(|(_, a)| *a == Arg::Bytes) {
        // Raw bytes may be large: the core reads them with the GIL released.
        let target = match e.receiver {
            Receiver::Mut => "let core = &mut self.core;\n",
            Receiver::Ref => "let core = &self.core;\n",
            _ => "",
        };
        let _ = writeln!(out, "{target}let n = {raw}.as_bytes().len();");
        call = format!("maybe_detached(py, n, || {})", call.replace("self.core.", "core."));
    }
    let fallible = e.fallible || e.ret == Ret::NextOrError;
    if matches!(e.ret, Ret::Unit | Ret::Refusal) {
        // Nothing to make: the call's error raised, or its unit.
        out.push_str(&if fallible { format!("{call}.or_raise()") } else { format!("{call};\nOk(())") });
        return out;
    }
    let call = match (e.ret, fallible) {
        (Ret::NextOrError, _) => format!("{call}.transpose().or_raise()?"),
        (_, true) => format!("{call}.or_raise()?"),
        (_, false) => call,
    };
    if e.receiver == Receiver::New {
        let _ = write!(out, "let core = {call};\nOk(Self {{ core, limits: {} }})", walk.trim_start_matches('&'));
        return out;
    }
    let _ = write!(out, "let v = {call};\n{make}");
    out
}

/// Python's drain of a `poll_x` row: `drain_xs()`, the list of what it gives until none.
fn drain(out: &mut String, e: &Export) {
    let polls = matches!(e.ret, Ret::OptJson | Ret::NextOrError);
    let Some(what) = e.name.strip_prefix("poll_").filter(|_| polls && e.params.is_empty()) else { return };
    let _ = write!(
        out,
        "\n    /// Every value `{0}` gives, until none.\n    \
         pub(crate) fn drain_{what}s<'py>(&mut self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {{\n        \
         std::iter::from_fn(|| self.{0}(py).transpose()).collect()\n    }}\n",
        e.name
    );
}

fn file() -> String {
    let mut out = format!(
        "// {}\n\
         //! The pyo3 exports of the façade's table (`mrtr::facade::exports`) that only\n\
         //! convert (conformance/src/gen/exports/python.rs); the package's idiom is in the\n\
         //! other modules.\n\n\
         use crate::convert::{{from_python, json_text, maybe_detached, output}};\n\
         use crate::errors::{{guard, usage, OrRaise}};\n\
         use crate::options::{{Lim, Nat, Proto, Text}};\n\
         use crate::transport::{{bytes_of, headers_text, options}};\n\
         use mrtr::{{facade, Limits}};\n\
         use pyo3::prelude::*;\n",
        crate::gen::MARK
    );
    if EXPORTS.iter().any(|e| e.ret == Ret::Bytes && !hand_written(e)) {
        out.push_str("use pyo3::types::PyBytes;\n");
    }
    for (m, module) in HAND_CONSTRUCTORS {
        let _ = writeln!(out, "use crate::{module}::{m};");
    }
    let free: Vec<&Export> = EXPORTS.iter().filter(|e| e.machine.is_none() && !hand_written(e)).collect();
    for e in &free {
        function(&mut out, e, "", "");
    }
    let mut classes = Vec::new();
    for m in MACHINES.iter().filter(|m| !HAND_MACHINES.contains(&m.name)) {
        if !HAND_CONSTRUCTORS.iter().any(|(h, _)| *h == m.name) {
            let _ = write!(
                out,
                "\n{}#[pyclass(module = \"mrtr._mrtr\", name = \"{1}\", weakref)]\n\
                 pub struct {1} {{\n    pub(crate) core: facade::{2},\n    pub(crate) limits: Limits,\n}}\n",
                doc_lines("", m.doc),
                m.name,
                m.inner
            );
            classes.push(m.name);
        }
        let _ = write!(out, "\n#[pymethods]\nimpl {} {{", m.name);
        for e in EXPORTS.iter().filter(|e| e.machine == Some(m.name) && !hand_written(e)) {
            function(&mut out, e, m.inner, "    ");
            drain(&mut out, e);
        }
        out.push_str("}\n");
    }
    out.push_str("\n/// Adds the generated functions and classes to the module.\n");
    out.push_str("pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {\n");
    for c in classes {
        let _ = writeln!(out, "    m.add_class::<{c}>()?;");
    }
    for e in free {
        let _ = writeln!(out, "    m.add_function(wrap_pyfunction!({}, m)?)?;", e.name);
    }
    out.push_str("    Ok(())\n}\n");
    rustfmt(&out)
}
