//! The export code of the two JavaScript backends, written from the one
//! table of what the bindings export (`mrtr_facade::exports`):
//! `bindings-node/src/exports.rs` (napi) and `bindings-wasm/src/exports.rs`
//! (wasm-bindgen). Each backend keeps by hand only its kernel (how text,
//! options and errors cross; the panic boundary) and the idiom of its own
//! (the key ring with its replay guard called back, test hooks).
//!
//! Both files call the same façade with the same conversions, named alike in
//! each kernel: `crate::bytes`, `crate::options`, `crate::run`,
//! `crate::refusal`, and `crate::optional` (wasm) or `crate::or_empty` (napi).

use super::{camel, doc_lines, left_out_lines, machine_in, rustfmt};
use mrtr_facade::exports::{Arg, Binding, Export, Receiver, Ret, EXPORTS, MACHINES};
use std::fmt::Write;
use std::path::PathBuf;

/// `(path, contents)` of each generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![
        (PathBuf::from("bindings-node/src/exports.rs"), file(&Napi)),
        (PathBuf::from("bindings-wasm/src/exports.rs"), file(&Wasm)),
    ]
}

/// How a value the façade returned becomes what the binding returns.
enum Convert {
    /// As it is.
    Same,
    /// Through a function or tuple constructor.
    Func(String),
    /// Through an expression, `{}` standing for the value.
    Expr(&'static str),
}

/// What differs between the two backends.
trait Backend {
    fn binding(&self) -> Binding;
    fn head(&self) -> &'static str;
    fn attribute(&self, e: Option<&Export>) -> String;
    fn param_type(&self, arg: Arg) -> String;
    fn arg(&self, name: &str, arg: Arg) -> String;
    fn ret_type(&self, ret: Ret) -> String;
    fn convert(&self, ret: Ret) -> Convert;
    /// Whether an infallible row still returns `Result` (napi: every export
    /// runs under its panic boundary).
    fn always_result(&self) -> bool;
    /// The kernel call that runs a row reading a replay guard, `{}` standing for
    /// the call (which names the guard `g`), and the extra parameter it needs.
    fn guarded(&self) -> (&'static str, Option<&'static str>);
}

struct Napi;
struct Wasm;

fn common_arg(name: &str, arg: Arg) -> Option<String> {
    Some(match arg {
        Arg::Options => format!("&crate::options({name})?"),
        Arg::OptStr => format!("{name}.as_deref()"),
        Arg::Bool => name.to_string(),
        Arg::Whole | Arg::KeyId => format!("facade::whole({name}, \"{}\")?", camel(name)),
        Arg::Status => format!("facade::status({name})?"),
        Arg::Handle => format!("facade::handle({name})?"),
        Arg::Random => format!("Randomness::Bytes({name})"),
        Arg::Machine(_) => format!("&{name}.0"),
        // Called back inside the kernel's `guarded`, which hands the call the guard as `g`.
        Arg::Guard => "g".into(),
        Arg::Text
        | Arg::Value
        | Arg::Bytes
        | Arg::OptBytes
        | Arg::OptText
        | Arg::OptValue
        | Arg::OrEmpty
        | Arg::Headers
        | Arg::Str => return None,
    })
}

fn common_type(arg: Arg) -> Option<String> {
    Some(match arg {
        Arg::Options | Arg::OptStr => "Option<String>".into(),
        Arg::Bool => "bool".into(),
        Arg::Whole | Arg::KeyId | Arg::Status | Arg::Handle => "f64".into(),
        Arg::Random => "&[u8]".into(),
        Arg::Machine(m) => format!("&{m}"),
        Arg::Text
        | Arg::Value
        | Arg::Bytes
        | Arg::OptBytes
        | Arg::OptText
        | Arg::OptValue
        | Arg::OrEmpty
        | Arg::Headers
        | Arg::Str
        | Arg::Guard => return None,
    })
}

fn common_ret(ret: Ret) -> String {
    match ret {
        Ret::Unit => "()".into(),
        Ret::Text | Ret::Json => "String".into(),
        Ret::OptText | Ret::OptJson | Ret::NextOrError | Ret::Refusal => "Option<String>".into(),
        Ret::Texts => "Vec<String>".into(),
        Ret::Bool => "bool".into(),
        Ret::Count => "u32".into(),
        Ret::Handle => "f64".into(),
        Ret::OptMillis | Ret::OptWhole => "Option<f64>".into(),
        Ret::Machine(m) => m.into(),
        Ret::Name | Ret::Bytes | Ret::Opened => unreachable!("per backend"),
    }
}

fn common_convert(ret: Ret) -> Convert {
    match ret {
        Ret::Handle => Convert::Expr("{} as f64"),
        Ret::OptMillis | Ret::OptWhole => Convert::Expr("{}.map(|t| t as f64)"),
        Ret::Opened => Convert::Func("crate::opened".into()),
        Ret::Machine(m) => Convert::Func(m.into()),
        _ => Convert::Same,
    }
}

impl Backend for Napi {
    fn binding(&self) -> Binding {
        Binding::Napi
    }
    fn head(&self) -> &'static str {
        "//! The napi exports of the façade's table (`mrtr_facade::exports`), each a\n\
         //! line over `mrtr_facade` under the panic boundary of `crate::run`.\n\n\
         use mrtr_facade::{self as facade, Randomness};\n\
         use napi::bindgen_prelude::Buffer;\n\
         use napi_derive::napi;\n\
         use crate::{Result, Text};\n"
    }
    fn attribute(&self, e: Option<&Export>) -> String {
        match e.map(|e| e.receiver) {
            Some(Receiver::New) => "#[napi(constructor)]".into(),
            Some(Receiver::Static) => "#[napi(factory)]".into(),
            _ => "#[napi]".into(),
        }
    }
    fn param_type(&self, arg: Arg) -> String {
        common_type(arg).unwrap_or_else(|| {
            match arg {
                Arg::Text | Arg::Value | Arg::Bytes => "Text",
                Arg::OptText | Arg::OptValue | Arg::OrEmpty | Arg::Headers => "Option<Text>",
                Arg::OptBytes => "Option<&[u8]>",
                Arg::Guard => "Option<crate::JsGuard>",
                _ => "String",
            }
            .into()
        })
    }
    fn arg(&self, name: &str, arg: Arg) -> String {
        common_arg(name, arg).unwrap_or_else(|| match arg {
            Arg::Text | Arg::Value | Arg::Bytes => format!("crate::bytes(&{name})"),
            Arg::OptText | Arg::OptValue => format!("{name}.as_ref().map(crate::bytes)"),
            Arg::OrEmpty | Arg::Headers => format!("crate::or_empty(&{name})"),
            Arg::OptBytes => name.to_string(),
            _ => format!("&{name}"),
        })
    }
    fn ret_type(&self, ret: Ret) -> String {
        match ret {
            Ret::Name => "&'static str".into(),
            Ret::Bytes => "Buffer".into(),
            Ret::Opened => "crate::Opened".into(),
            _ => common_ret(ret),
        }
    }
    fn convert(&self, ret: Ret) -> Convert {
        match ret {
            Ret::Bytes => Convert::Expr("{}.to_vec().into()"),
            _ => common_convert(ret),
        }
    }
    fn always_result(&self) -> bool {
        true
    }
    fn guarded(&self) -> (&'static str, Option<&'static str>) {
        ("crate::guarded(&env, guard, |g| {})", Some("env: napi::Env"))
    }
}

impl Backend for Wasm {
    fn binding(&self) -> Binding {
        Binding::Wasm
    }
    fn head(&self) -> &'static str {
        "//! The wasm-bindgen exports of the façade's table (`mrtr_facade::exports`),\n\
         //! each a line over `mrtr_facade`; a failure crosses as `crate::Failure`.\n\n\
         use mrtr_facade::{self as facade, Randomness};\n\
         use wasm_bindgen::prelude::*;\n\
         use crate::Result;\n"
    }
    fn attribute(&self, e: Option<&Export>) -> String {
        let Some(e) = e else { return "#[wasm_bindgen]".into() };
        if e.receiver == Receiver::New {
            return "#[wasm_bindgen(constructor)]".into();
        }
        let js = camel(e.name);
        match (js != e.name, e.receiver) {
            (true, _) => format!("#[wasm_bindgen(js_name = {js})]"),
            (false, Receiver::Free) => "#[wasm_bindgen]".into(),
            (false, _) => String::new(),
        }
    }
    fn param_type(&self, arg: Arg) -> String {
        common_type(arg).unwrap_or_else(|| {
            match arg {
                Arg::Str => "&str",
                Arg::OptBytes => "Option<Vec<u8>>",
                Arg::Guard => "Option<js_sys::Function>",
                _ => "&JsValue",
            }
            .into()
        })
    }
    fn arg(&self, name: &str, arg: Arg) -> String {
        common_arg(name, arg).unwrap_or_else(|| match arg {
            Arg::Text | Arg::Value | Arg::Bytes => format!("&crate::bytes({name})"),
            Arg::OptText | Arg::OptValue => format!("crate::optional({name}).as_deref()"),
            Arg::OrEmpty | Arg::Headers => format!("&crate::optional({name}).unwrap_or_default()"),
            Arg::OptBytes => format!("{name}.as_deref()"),
            _ => name.to_string(),
        })
    }
    fn ret_type(&self, ret: Ret) -> String {
        match ret {
            Ret::Name => "String".into(),
            Ret::Bytes => "Vec<u8>".into(),
            Ret::Opened => "js_sys::Object".into(),
            _ => common_ret(ret),
        }
    }
    fn convert(&self, ret: Ret) -> Convert {
        match ret {
            Ret::Name => Convert::Func("String::from".into()),
            Ret::Bytes => Convert::Expr("{}.to_vec()"),
            _ => common_convert(ret),
        }
    }
    fn always_result(&self) -> bool {
        false
    }
    fn guarded(&self) -> (&'static str, Option<&'static str>) {
        ("crate::guarded(guard, |g| {})", None)
    }
}

/// The façade call a row makes, its arguments converted.
fn call(b: &dyn Backend, e: &Export, inner: &str) -> String {
    let args: Vec<String> = e.params.iter().map(|(n, a)| b.arg(n, *a)).collect();
    let args = args.join(", ");
    match e.receiver {
        Receiver::Free => format!("facade::{}({args})", e.callee()),
        Receiver::New => format!("facade::{inner}::new({args})"),
        Receiver::Static => format!("facade::{inner}::{}({args})", e.callee()),
        Receiver::Ref | Receiver::Mut => format!("self.0.{}({args})", e.callee()),
    }
}

/// The body of a row: the call, its result converted, under the binding's run.
fn body(b: &dyn Backend, e: &Export, inner: &str) -> (String, bool) {
    let call = call(b, e, inner);
    if e.ret == Ret::Refusal {
        return (format!("crate::refusal(|| {call})"), b.always_result());
    }
    let fallible = e.fallible || e.ret == Ret::NextOrError;
    let call = if e.ret == Ret::NextOrError { format!("{call}.transpose()") } else { call };
    let value = match (b.convert(e.ret), fallible) {
        (Convert::Same, _) => call,
        (Convert::Func(f), true) => format!("{call}.map({f})"),
        (Convert::Func(f), false) => format!("{f}({call})"),
        (Convert::Expr(t), true) => format!("{call}.map(|v| {})", t.replace("{}", "v")),
        (Convert::Expr(t), false) => t.replace("{}", &call),
    };
    // A conversion of an argument may fail even where the façade cannot.
    let checked =
        e.params.iter().any(|(_, a)| matches!(a, Arg::Options | Arg::Whole | Arg::KeyId | Arg::Status | Arg::Handle));
    if e.params.iter().any(|(_, a)| *a == Arg::Guard) {
        // Run with the host's replay guard made a Rust one (`g`); the kernel's boundary is around it.
        return (b.guarded().0.replace("{}", &value), true);
    }
    match (fallible, b.always_result() || checked) {
        (true, _) => (format!("crate::run(|| {value})"), true),
        (false, true) if e.ret == Ret::Unit => (format!("crate::run(|| {{\n{value};\nOk(())\n}})"), true),
        (false, true) => (format!("crate::run(|| Ok({value}))"), true),
        (false, false) if e.ret == Ret::Unit => (format!("{value};"), false),
        (false, false) => (value, false),
    }
}

fn function(out: &mut String, b: &dyn Backend, e: &Export, inner: &str, indent: &str) {
    let (body, result) = body(b, e, inner);
    let receiver = match e.receiver {
        Receiver::Ref => "&self",
        Receiver::Mut => "&mut self",
        Receiver::Free | Receiver::New | Receiver::Static => "",
    };
    let mut params: Vec<String> = if receiver.is_empty() { vec![] } else { vec![receiver.into()] };
    if let (true, Some(extra)) = (e.params.iter().any(|(_, a)| *a == Arg::Guard), b.guarded().1) {
        params.push(extra.into());
    }
    params.extend(e.params.iter().map(|(n, a)| format!("{n}: {}", b.param_type(*a))));
    let ret = b.ret_type(e.ret);
    let ret = match (result, ret.as_str()) {
        (true, _) => format!(" -> Result<{ret}>"),
        (false, "()") => String::new(),
        (false, _) => format!(" -> {ret}"),
    };
    out.push('\n');
    out.push_str(&doc_lines(indent, e.doc));
    let attribute = b.attribute(Some(e));
    if !attribute.is_empty() {
        let _ = writeln!(out, "{indent}{attribute}");
    }
    if e.params.len() > 7 - usize::from(!receiver.is_empty()) {
        let _ = writeln!(out, "{indent}#[allow(clippy::too_many_arguments)]");
    }
    let _ = writeln!(out, "{indent}pub fn {}({}){ret} {{", e.name, params.join(", "));
    for line in body.lines() {
        let _ = writeln!(out, "{indent}    {line}");
    }
    let _ = writeln!(out, "{indent}}}");
}

fn file(b: &dyn Backend) -> String {
    let mut out = format!("// {}\n", crate::gen::MARK);
    out.push_str(b.head());
    for e in EXPORTS.iter().filter(|e| e.receiver == Receiver::Free && e.in_binding(b.binding())) {
        function(&mut out, b, e, "", "");
    }
    for m in MACHINES {
        if !machine_in(m, b.binding()) {
            continue;
        }
        let attribute = b.attribute(None);
        let _ = write!(
            out,
            "\n{}{attribute}\npub struct {}(pub(crate) facade::{});\n\n{attribute}\nimpl {} {{",
            doc_lines("", m.doc),
            m.name,
            m.inner,
            m.name
        );
        for e in EXPORTS.iter().filter(|e| e.machine == Some(m.name) && e.in_binding(b.binding())) {
            function(&mut out, b, e, m.inner, "    ");
        }
        out.push_str("}\n");
    }
    out.push_str(&left_out_lines(b.binding()));
    rustfmt(&out)
}
