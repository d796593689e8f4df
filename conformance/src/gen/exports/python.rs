//! `bindings-python/src/exports.rs`: the pyo3 exports of the table's rows
//! that only convert, in the package's idiom: a JSON argument is a `dict`
//! (or any plain Python value) or its JSON text as `str`/`bytes`, read by the
//! kernel's `convert::json_text`; a JSON answer comes back as plain Python
//! (`convert::output`); the options are the keywords `protocol` and `limits`;
//! a refusal raises its `MrtrError` (with its `data`); every call runs under
//! the panic boundary `errors::guard`; a replay guard is a callable
//! (`state::guarded`: it fails closed, and its exception is re-raised).
//!
//! Python's idiom follows from the rows' names, alike for every machine: an
//! `is_x` method is the property `x`, and a `poll_x` method that gives values
//! until none also gets `drain_xs()`, the list of them. A row that reads raw
//! bytes runs with the GIL released when they are large (`maybe_detached`).
//!
//! Every machine's class is generated, its constructor from its `new` row (a
//! configuration's fields, and the options' by their shape, as keywords); the
//! kernel adds what Python says its own way in another `#[pymethods]` block
//! (pyo3's `multiple-pymethods`: an iterator's `__next__`). Every machine
//! class holds the façade's machine as `core` and, where a method reads JSON,
//! the limits it walks Python values under as `limits`, both `pub(crate)`. A
//! machine shared between threads (the key ring: every method `&self`, a
//! lock inside) is called with the GIL released, as is every row that reads
//! one or calls a replay guard (`detaches`).

use super::{doc_lines, machine_in, rustfmt, snake};
use mrtr_facade::exports::{Arg, Binding, Export, Receiver, Ret, Shape, EXPORTS, MACHINES};
use mrtr_facade::records::Holds;
use mrtr_facade::settings::{settings, Settings};
use std::fmt::Write;
use std::path::PathBuf;

/// `(path, contents)` of the generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![
        (PathBuf::from("bindings-python/src/exports.rs"), file()),
        (PathBuf::from("bindings-python/python/mrtr/_mrtr.pyi"), stubs()),
    ]
}

/// The free functions the package writes by hand, each for its idiom.
const HAND_FREE: &[&str] = &[
    "catalogue",         // a str, read once by the package's tables
    "classify",          // a `Classified` record, without JSON
    "check",             // `Violation` records; a transcript as JSON Lines too
    "resume",            // a `Resumed` record
    "task_transition",   // named after the package's task tables
    "inspect",           // a `TokenInfo` record, with a size bound
    "read_http_request", // the body as `None` for none
    "check_request",     // the header fields among the keywords
    "error_response",    // `_error_response`, under the package's `error_response`
];

/// Whether the package writes the row by hand (a free function of `HAND_FREE`) or leaves it out.
pub fn hand_written(e: &Export) -> bool {
    !e.in_binding(Binding::Python) || e.machine.is_none() && HAND_FREE.contains(&e.name)
}

/// Whether a machine keeps the limits its methods walk Python values under (some method reads JSON).
fn keeps_limits(machine: &str) -> bool {
    let reads_json = |a: &Arg| matches!(a, Arg::Text | Arg::OptText | Arg::OrEmpty | Arg::Value | Arg::OptValue);
    EXPORTS.iter().any(|e| {
        e.machine == Some(machine)
            && matches!(e.receiver, Receiver::Ref | Receiver::Mut)
            && e.params.iter().any(|(_, a)| reads_json(a))
    })
}

/// Whether a machine is shared between threads: every method reads it (`&self`), so that it locks
/// inside (the key ring), and a call of it may wait for another thread's.
fn shared(machine: &str) -> bool {
    let methods =
        || EXPORTS.iter().filter(|e| e.machine == Some(machine) && matches!(e.receiver, Receiver::Ref | Receiver::Mut));
    methods().next().is_some() && methods().all(|e| e.receiver == Receiver::Ref)
}

/// Whether a row runs with the GIL released: it may wait for a lock (it reads a shared machine, its own or
/// an argument) that another thread holds while its replay guard waits for the GIL, or it calls a guard
/// (which takes the GIL again, `state::guarded`).
fn detaches(e: &Export) -> bool {
    let own = matches!(e.receiver, Receiver::Ref | Receiver::Mut) && e.machine.is_some_and(shared);
    own || e.params.iter().any(|(_, a)| *a == Arg::Guard || matches!(a, Arg::Machine(m) if shared(m)))
}

/// The limits Python values are walked under in a row: the options', the machine's, or the default.
fn walk(e: &Export) -> &'static str {
    if config_of(e).is_some() {
        "&walk"
    } else if e.params.iter().any(|(_, a)| *a == Arg::Options) {
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
        Arg::OptText | Arg::OrEmpty | Arg::OptValue | Arg::Headers | Arg::OptBytes | Arg::Guard => {
            ("Option<&Bound<'py, PyAny>>", true)
        }
        Arg::Str => ("Text", false),
        Arg::OptStr => ("Option<Text>", true),
        Arg::Bool => ("bool", false),
        Arg::Whole | Arg::KeyId | Arg::Status | Arg::Handle => ("Nat", false),
        Arg::Machine("KeyRing") => ("PyRef<'py, KeyRing>", false),
        Arg::Machine("ToolReplay") => ("PyRef<'py, ToolReplay>", false),
        Arg::Machine("ToolRun") => ("PyRef<'py, ToolRun>", false),
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
        Arg::OptBytes => format!("let {name} = {name}.map(|v| bytes_of(v, \"{name}\")).transpose()?;"),
        // The façade's machine, apart from its Python object (which stays with the GIL).
        Arg::Machine(_) => format!("let {name} = &{name}.core;"),
        Arg::Status => {
            format!("let {name} = u16::try_from({name}.0).map_err(|_| usage(\"an HTTP status is below 65536\"))?;")
        }
        _ => return None,
    })
}

/// A parameter as the façade call reads it.
fn pass(name: &str, arg: Arg) -> String {
    match arg {
        // The kernel's `guarded` hands the call the host's callable as the core's guard, under this name.
        Arg::Guard => name.into(),
        Arg::OptBytes => format!("{name}.as_ref().map(|b| b.as_bytes())"),
        Arg::Text | Arg::Bytes => format!("{name}.as_bytes()"),
        Arg::OptText => format!("{name}.as_ref().map(|t| t.as_bytes())"),
        Arg::OrEmpty => format!("{name}.as_ref().map_or(&[][..], |t| t.as_bytes())"),
        Arg::Value | Arg::Headers => format!("{name}.as_bytes()"),
        Arg::OptValue => format!("{name}.as_deref().map(str::as_bytes)"),
        Arg::Str => format!("&{name}.0"),
        Arg::OptStr => format!("{name}.as_ref().map(|t| t.0.as_str())"),
        Arg::Whole | Arg::KeyId | Arg::Handle => format!("{name}.0"),
        Arg::Bool | Arg::Status => name.into(),
        Arg::Options => "&o".into(),
        Arg::Random => "facade::Randomness::Os".into(),
        Arg::Machine(_) => name.into(),
    }
}

/// What a row gives Python: its return type, and the expression that makes it of the façade's value `v`.
fn ret(r: Ret) -> (&'static str, &'static str) {
    match r {
        Ret::Unit | Ret::Refusal => ("()", ""),
        Ret::OptWhole => ("Option<u64>", "Ok(v)"),
        Ret::Opened => ("Bound<'py, PyAny>", "opened(py, v)"),
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
        Ret::Machine("ToolReplay") => ("ToolReplay", "Ok(ToolReplay { core: v, limits: Limits::DEFAULT })"),
        Ret::Machine("ToolRun") => ("ToolRun", "Ok(ToolRun { core: v, limits: Limits::DEFAULT })"),
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

/// The settings a row's `config` parameter holds, when it is one: in Python, that parameter comes
/// last and optional, and each of its fields is a keyword of its own, set over it.
fn config_of(e: &Export) -> Option<&'static Settings> {
    let (name, _) = e.params.iter().find(|(n, a)| *n == "config" && matches!(a, Arg::Text | Arg::OrEmpty))?;
    settings(e.shape(name))
}

/// The keywords a row's options take beyond `protocol` and `limits`, by the options' shape:
/// `(python, rust type, the façade's field set from it)`.
fn option_extras(e: &Export) -> &'static [(&'static str, &'static str, &'static str)] {
    let Some((name, _)) = e.params.iter().find(|(_, a)| *a == Arg::Options) else { return &[] };
    match e.shape(name) {
        Shape::ClientConfig => &[("max_rounds", "Option<u32>", "max_rounds")],
        Shape::CheckConfig => &[
            ("max_rounds", "Option<u32>", "max_rounds"),
            ("transport", "Option<Transport>", "transport: transport.map(|t| t.0)"),
        ],
        _ => &[],
    }
}

/// The signature's parameters, `(rust, python)`: Python's optional ones default to `None` when
/// every later one may too; the options are the keywords `protocol` and `limits`; a configuration
/// comes last, its fields as keywords.
fn signature(e: &Export) -> (Vec<String>, Vec<String>) {
    let (mut rust, mut python) = (Vec::new(), Vec::new());
    let config = config_of(e);
    let last_required =
        e.params.iter().rposition(|(_, a)| !matches!(a, Arg::Options | Arg::Random) && !param_type(*a).1);
    for (i, (name, arg)) in e.params.iter().enumerate() {
        match arg {
            Arg::Random => {}
            _ if config.is_some() && *name == "config" => {}
            Arg::Options => {
                rust.extend(["protocol: Option<Proto>".to_string(), "limits: Option<Lim>".to_string()]);
                python.extend(["protocol=None".to_string(), "limits=None".to_string()]);
                for (name, ty, _) in option_extras(e) {
                    rust.push(format!("{name}: {ty}"));
                    python.push(format!("{name}=None"));
                }
            }
            _ => {
                let (ty, optional) = param_type(*arg);
                rust.push(format!("{name}: {ty}"));
                let defaults = optional && last_required.is_none_or(|l| i > l);
                python.push(if defaults { format!("{name}=None") } else { (*name).to_string() });
            }
        }
    }
    if let Some(settings) = config {
        rust.push("config: Option<&Bound<'py, PyAny>>".into());
        python.extend(["config=None".to_string(), "*".to_string()]);
        for f in settings.all_fields() {
            let ty = if f.holds == Holds::Limits { "Option<Lim>" } else { "Option<&Bound<'py, PyAny>>" };
            rust.push(format!("{}: {ty}", snake(f.name)));
            python.push(format!("{}=None", snake(f.name)));
        }
    }
    (rust, python)
}

/// The statements that make a configuration's JSON of `config` and the keywords (each given one set
/// over it), and the limits Python values are walked under (`walk`).
fn config_json(settings: &Settings) -> String {
    let fields: Vec<String> = settings
        .all_fields()
        .map(|f| {
            let v = snake(f.name);
            let value = match f.holds {
                Holds::Limits => format!("limits_value({v})"),
                Holds::Headers => format!("headers_value({v})?"),
                _ => format!("opt_value({v})?"),
            };
            format!("(\"{}\", {value})", f.name)
        })
        .collect();
    let walk = match settings.all_fields().any(|f| f.holds == Holds::Limits) {
        true => "let walk = limits.map_or(Limits::DEFAULT, |l| l.0);\n",
        false => "let walk = Limits::DEFAULT;\n",
    };
    format!("{walk}let config = call_config(config, &[{}])?;\n", fields.join(", "))
}

/// One row as a pyo3 function or method, at `indent`.
fn function(out: &mut String, e: &Export, inner: &str, indent: &str) {
    let (mut params, python) = signature(e);
    let method = matches!(e.receiver, Receiver::Ref | Receiver::Mut);
    let constructs = matches!(e.receiver, Receiver::New | Receiver::Static);
    let (ty, make) = if constructs { ("Self", "") } else { ret(e.ret) };
    let reads_bytes = e.params.iter().any(|(_, a)| *a == Arg::Bytes);
    let needs_py = ty.contains("'py") || make.contains("py") || reads_bytes || detaches(e);
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
    let _ = writeln!(out, "{indent}    boundary(|| {{");
    for line in body.lines() {
        let _ = writeln!(out, "{indent}        {line}");
    }
    let _ = writeln!(out, "{indent}    }})\n{indent}}}");
}

/// The statements of a row: options, conversions, the call (detached when it reads raw bytes), the answer.
fn body(e: &Export, inner: &str, make: &str) -> String {
    let mut out = String::new();
    if e.params.iter().any(|(_, a)| *a == Arg::Options) {
        let extras: Vec<&str> = option_extras(e).iter().map(|(_, _, field)| *field).collect();
        out.push_str(&match extras.is_empty() {
            true => "let o = options(protocol, limits);\n".to_string(),
            false => format!("let o = facade::Options {{ {}, ..options(protocol, limits) }};\n", extras.join(", ")),
        });
    }
    if let Some(settings) = config_of(e) {
        out.push_str(&config_json(settings));
    }
    let walk = walk(e);
    for (name, arg) in e.params.iter().filter(|(n, _)| config_of(e).is_none() || *n != "config") {
        if let Some(line) = convert(name, *arg, walk) {
            let _ = writeln!(out, "{line}");
        }
    }
    let args: Vec<String> = e
        .params
        .iter()
        .map(|(n, a)| if config_of(e).is_some() && *n == "config" { "&config".into() } else { pass(n, *a) })
        .collect();
    let mut call = call(e, inner, &args.join(", "));
    let guarded = e.params.iter().find(|(_, a)| *a == Arg::Guard).map(|(g, _)| *g);
    let raw = e.params.iter().find(|(_, a)| *a == Arg::Bytes).filter(|_| !detaches(e));
    if raw.is_some() || detaches(e) {
        let target = match e.receiver {
            Receiver::Mut => "let core = &mut self.core;\n",
            Receiver::Ref => "let core = &self.core;\n",
            _ => "",
        };
        out.push_str(target);
        call = call.replace("self.core.", "core.");
    }
    if let Some((raw, _)) = raw {
        // Raw bytes may be large: the core reads them with the GIL released.
        let _ = writeln!(out, "let n = {raw}.as_bytes().len();");
        call = format!("maybe_detached(py, n, || {call})");
    }
    call = match guarded {
        // The host's callable as the core's guard: refused (fail closed) when it raises, its exception re-raised.
        Some(g) => format!("guarded(py, {g}, |{g}| {call})"),
        None if detaches(e) => format!("py.detach(|| {call})"),
        None => call,
    };
    let or_raise = if guarded.is_some() { "" } else { ".or_raise()" };
    let fallible = e.fallible || e.ret == Ret::NextOrError;
    if matches!(e.ret, Ret::Unit | Ret::Refusal) {
        // Nothing to make: the call's error raised, or its unit.
        out.push_str(&if fallible { format!("{call}{or_raise}") } else { format!("{call};\nOk(())") });
        return out;
    }
    let call = match (e.ret, fallible) {
        (Ret::NextOrError, _) => format!("{call}.transpose().or_raise()?"),
        (_, true) => format!("{call}{or_raise}?"),
        (_, false) => call,
    };
    if matches!(e.receiver, Receiver::New | Receiver::Static) {
        let limits =
            e.machine.filter(|m| keeps_limits(m)).map(|_| format!(", limits: {}", walk.trim_start_matches('&')));
        let _ = write!(out, "let core = {call};\nOk(Self {{ core{} }})", limits.unwrap_or_default());
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
         //! The pyo3 exports of the façade's table (`mrtr_facade::exports`) that only\n\
         //! convert (conformance/src/gen/exports/python.rs); the package's idiom is in the\n\
         //! other modules.\n\n\
         use crate::convert::{{from_python, json_text, maybe_detached, output}};\n\
         use crate::errors::{{guard as boundary, usage, OrRaise}};\n\
         use crate::options::{{Lim, Nat, Proto, Text, Transport}};\n\
         use crate::transport::{{bytes_of, call_config, headers_text, headers_value, limits_value, opt_value, options}};\n\
         use mrtr::Limits;\n\
         use mrtr_facade as facade;\n\
         use pyo3::prelude::*;\n",
        crate::gen::MARK
    );
    let generated = || EXPORTS.iter().filter(|e| !hand_written(e));
    if generated().any(|e| e.params.iter().any(|(_, a)| *a == Arg::Guard)) {
        out.push_str("use crate::state::guarded;\n");
    }
    if generated().any(|e| e.ret == Ret::Opened) {
        out.push_str("use crate::state::opened;\n");
    }
    if EXPORTS.iter().any(|e| e.ret == Ret::Bytes && !hand_written(e)) {
        out.push_str("use pyo3::types::PyBytes;\n");
    }
    let free: Vec<&Export> = EXPORTS.iter().filter(|e| e.machine.is_none() && !hand_written(e)).collect();
    for e in &free {
        function(&mut out, e, "", "");
    }
    let mut classes = Vec::new();
    for m in MACHINES.iter().filter(|m| machine_in(m, Binding::Python)) {
        {
            let _ = write!(
                out,
                "\n{}#[pyclass(module = \"mrtr._mrtr\", name = \"{1}\", weakref)]\n\
                 pub struct {1} {{\n    pub(crate) core: facade::{2},\n{3}}}\n",
                doc_lines("", m.doc),
                m.name,
                m.inner,
                if keeps_limits(m.name) { "    pub(crate) limits: Limits,\n" } else { "" }
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

/// The hand-written part of the stubs: the package's own classes and functions, with a marker line
/// where the generated ones go (`# mrtr-gen: functions`, `# mrtr-gen: classes`) and one in each
/// class whose other members are generated (`    # mrtr-gen: members NAME`).
const STUB_HAND: &str = "bindings-python/stubs/_mrtr.hand.pyi";

/// A parameter's stub type, and whether it may be left out.
fn stub_param(e: &Export, name: &str, arg: Arg) -> (&'static str, bool) {
    let shape = e.shape(name);
    match arg {
        Arg::OptBytes => ("bytes | None", true),
        Arg::Guard => ("_Guard | None", true),
        Arg::Text if shape == Shape::Transcript => ("_TranscriptIn", false),
        Arg::Text => ("_JsonIn", false),
        Arg::OptText | Arg::OrEmpty => ("_JsonIn | None", true),
        Arg::Value if shape == Shape::Id => ("int | str", false),
        Arg::Value => ("Any", false),
        Arg::OptValue if shape == Shape::RequestState => ("str | None", true),
        Arg::OptValue => ("Any", true),
        Arg::Headers => ("_Headers", true),
        Arg::Bytes => ("_Chunk", false),
        Arg::Str => ("str", false),
        Arg::OptStr => ("str | None", true),
        Arg::Bool => ("bool", false),
        Arg::Whole | Arg::KeyId | Arg::Status | Arg::Handle => ("int", false),
        Arg::Machine("KeyRing") => ("KeyRing", false),
        Arg::Machine("ToolReplay") => ("ToolReplay", false),
        Arg::Machine("ToolRun") => ("ToolRun", false),
        Arg::Options | Arg::Random | Arg::Machine(_) => unreachable!("not one parameter"),
    }
}

/// A row's stub return type.
fn stub_return(e: &Export) -> &'static str {
    let map = e.shape("return") == Shape::HeaderFields;
    match e.ret {
        Ret::Unit | Ret::Refusal => "None",
        Ret::OptWhole => "int | None",
        Ret::Opened => "Opened",
        Ret::Text | Ret::Name => "str",
        Ret::OptText => "str | None",
        Ret::Json if map => "dict[str, str]",
        Ret::Json if e.shape("return") == Shape::Exchanges => "list[int]",
        Ret::Json if e.shape("return") == Shape::Violations => "list[dict[str, Any]]",
        Ret::Json => "dict[str, Any]",
        Ret::OptJson | Ret::NextOrError => "dict[str, Any] | None",
        Ret::Texts => "list[str]",
        Ret::Bool => "bool",
        Ret::Count | Ret::Handle => "int",
        Ret::OptMillis => "int | None",
        Ret::Bytes => "bytes",
        Ret::Machine("ToolReplay") => "ToolReplay",
        Ret::Machine("ToolRun") => "ToolRun",
        Ret::Machine(m) => panic!("a Python row making a {m} is written by hand"),
    }
}

/// A row's stub parameters, as its pyo3 signature has them.
fn stub_params(e: &Export) -> Vec<String> {
    let (_, python) = signature(e);
    let config = config_of(e);
    let mut out = Vec::new();
    for p in python {
        let (name, default) = p.split_once('=').map_or((p.as_str(), ""), |(n, d)| (n, d));
        let field = config.and_then(|c| c.all_fields().find(|f| snake(f.name) == name));
        let options = e.params.iter().any(|(_, a)| *a == Arg::Options);
        let ty = match (name, field) {
            ("*", _) => {
                out.push("*".into());
                continue;
            }
            (_, Some(f)) => stub_field(f.holds),
            ("config", None) if config.is_some() => "_JsonIn | None",
            ("protocol", None) if options => "str | None",
            ("limits", None) if options => "Limits | None",
            ("max_rounds", None) if options => "int | None",
            ("transport", None) if options => "str | None",
            _ => {
                let (_, arg) = e.params.iter().find(|(n, _)| *n == name).expect("a parameter of the row");
                stub_param(e, name, *arg).0
            }
        };
        out.push(if default.is_empty() { format!("{name}: {ty}") } else { format!("{name}: {ty} = {default}") });
    }
    out
}

/// The stub type of a configuration's keyword.
fn stub_field(holds: Holds) -> &'static str {
    match holds {
        Holds::Mode | Holds::Transport | Holds::Protocol | Holds::Text | Holds::Rule | Holds::Method => "str | None",
        Holds::ErrorCodes => "Literal['released', 'draft'] | None",
        Holds::Headers => "_Headers",
        Holds::Limits => "Limits | None",
        Holds::Whole | Holds::Count | Holds::Handle => "int | None",
        Holds::Flag => "bool | None",
        Holds::Names => "list[str] | None",
        Holds::Object | Holds::Message | Holds::Questions => "_JsonIn | None",
        Holds::Messages | Holds::Json => "Any",
        Holds::Digest => "bytes | None",
    }
}

/// A docstring at `indent`, wrapped before 110 columns.
fn stub_doc(indent: &str, text: &str) -> String {
    let body = doc_lines(indent, text).lines().map(|l| l.replacen("/// ", "", 1)).collect::<Vec<_>>().join("\n");
    let body = body.replace('`', "``").replace("````", "``");
    format!("{indent}\"\"\"{}\"\"\"\n", body.trim_start())
}

/// The stub of one row (a function, or a member at `indent`), with the idioms its name implies.
fn stub(out: &mut String, e: &Export, indent: &str) {
    let member = e.machine.is_some();
    let mut params = stub_params(e);
    if member {
        params.insert(0, "self".into());
    }
    let getter = e.name.strip_prefix("is_").filter(|_| member && e.ret == Ret::Bool && e.params.is_empty());
    if getter.is_some() {
        let _ = writeln!(out, "{indent}@property");
    }
    let machine = e.machine.unwrap_or_default();
    let (name, returns) = match e.receiver {
        Receiver::New => {
            params[0] = "cls".into();
            ("__new__", machine)
        }
        Receiver::Static => {
            params.remove(0);
            let _ = writeln!(out, "{indent}@staticmethod");
            (e.name, machine)
        }
        _ => (getter.unwrap_or(e.name), stub_return(e)),
    };
    let line = format!("{indent}def {name}({}) -> {returns}:", params.join(", "));
    if line.len() <= 110 {
        let _ = writeln!(out, "{line}");
    } else {
        // One parameter a line, as a formatter writes a long signature.
        let _ = writeln!(out, "{indent}def {name}(");
        for p in &params {
            let _ = writeln!(out, "{indent}    {p},");
        }
        let _ = writeln!(out, "{indent}) -> {returns}:");
    }
    out.push_str(&stub_doc(&format!("{indent}    "), e.doc));
    let polls = matches!(e.ret, Ret::OptJson | Ret::NextOrError);
    if let Some(what) = e.name.strip_prefix("poll_").filter(|_| member && polls && e.params.is_empty()) {
        let _ = writeln!(out, "{indent}def drain_{what}s(self) -> list[dict[str, Any]]: ...");
    }
}

/// `_mrtr.pyi`: the hand-written stubs with the generated rows' stubs in their places.
fn stubs() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let hand = std::fs::read_to_string(root.join(STUB_HAND)).unwrap_or_else(|e| panic!("{STUB_HAND}: {e}"));
    let mut out = format!(
        "# {}\n# The stubs of the native module (conformance/src/gen/exports/python.rs): {STUB_HAND}, with the\n\
         # generated rows' stubs in their places. mypy.stubtest holds them to the built module in CI.\n",
        crate::gen::MARK
    );
    for line in hand.lines() {
        match line.trim() {
            "# mrtr-gen: functions" => {
                for e in EXPORTS.iter().filter(|e| e.machine.is_none() && !hand_written(e)) {
                    out.push('\n');
                    stub(&mut out, e, "");
                }
                out.push('\n');
            }
            "# mrtr-gen: classes" => {
                // The generated classes the hand-written stubs do not open themselves.
                let whole = MACHINES.iter().filter(|m| {
                    machine_in(m, Binding::Python) && !hand.contains(&format!("# mrtr-gen: members {}", m.name))
                });
                for m in whole {
                    let _ = writeln!(out, "\n@final\nclass {}:", m.name);
                    out.push_str(&stub_doc("    ", m.doc));
                    out.push('\n');
                    for e in EXPORTS.iter().filter(|e| e.machine == Some(m.name) && !hand_written(e)) {
                        stub(&mut out, e, "    ");
                    }
                }
                out.push('\n');
            }
            marker if marker.starts_with("# mrtr-gen: members ") => {
                let class = marker.trim_start_matches("# mrtr-gen: members ");
                for e in EXPORTS.iter().filter(|e| e.machine == Some(class) && !hand_written(e)) {
                    stub(&mut out, e, "    ");
                }
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}
