//! `bindings-ffi/uniffi/src/exports.rs`: the UniFFI exports (Kotlin, Swift,
//! Python) of the table's rows the binding does not write by hand, in its
//! conventions: JSON crosses as `String` (parameters named `…_json`), the
//! options as a protocol name, times as `now_ms`; a machine is an object
//! (`Arc`) over a `Mutex` of the façade's machine; every export runs under
//! the panic boundary `crate::error::guard` and raises `MrtrError`.
//!
//! The functions and machines written by hand (typed records where the
//! language has them: `Classified`, `Violation`, `SseEvent`, `HttpRequest`,
//! the operation's events) are listed here with their names.
//!
//! Integers are signed (`i64`, `i32`): the JVM has none unsigned, and Kotlin's
//! unsigned types make a function uncallable from Java. `crate::ints`
//! converts them to the core's unsigned types (out of range:
//! `usage-invalid-argument`) and back.

use super::{doc_lines, left_out_lines, machine_in, rustfmt, snake};
use mrtr_facade::exports::{Arg, Binding, Export, Receiver, Ret, Shape, EXPORTS, MACHINES};
use mrtr_facade::records::{self, Body, RECORDS, TYPED_RECORDS};
use std::fmt::Write;
use std::path::PathBuf;

/// `(path, contents)` of the generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![(PathBuf::from("bindings-ffi/uniffi/src/exports.rs"), file())]
}

/// The machines the binding writes whole by hand.
const HAND_MACHINES: &[&str] = &[];

/// The machines whose constructor the binding writes (a decoder bounded by a byte count alone; the
/// client and the checker with their round bound and transport as arguments); their other rows are
/// generated, in a second exported `impl` block.
const HAND_CONSTRUCTORS: &[&str] = &["SseDecoder", "Client", "Checker", "KeyRing"];

/// Methods the binding writes by hand: the key ring's keys come as a secret or a master, each its
/// own method (`add`, `add_derived`, as the constructors `new` and `derived`), and a token opens as
/// text into the `Opened` record.
const HAND_METHODS: &[(&str, &str)] = &[("KeyRing", "add"), ("KeyRing", "open")];

/// The machine read and changed under a read-write lock, whose calls run the host's replay guard
/// (`crate::state`: `ring()`, `writing()`, `guarded()`), not a `Mutex`.
const RING: &str = "KeyRing";

/// The free functions the binding writes by hand, with their names.
const HAND_FREE: &[(&str, &str)] = &[
    ("classify", "classify"),
    ("check", "check"),
    ("task_update", "task_update"),
    ("binding_for", "binding_for_request"),
    ("inspect", "inspect"),
];

/// Answers the façade writes as a flat JSON object that no record of `mrtr_facade::records`
/// declares, each crossing as a record of its own: the row, the record's name, its doc, its members.
const ANSWERS: &[(&str, &str, &str, &[records::Member])] = &[(
    "error_response",
    "ErrorResponse",
    "A JSON-RPC error response and the HTTP status a transport sends it with.",
    &[
        records::Member {
            name: "response",
            holds: records::Holds::Message,
            presence: records::Presence::Required,
            doc: "The JSON-RPC error response, JSON text: `{\"jsonrpc\":\"2.0\",\"id\":…,\"error\":{code, message, data}}`, `data.rule` naming the rule.",
        },
        records::Member {
            name: "status",
            holds: records::Holds::Count,
            presence: records::Presence::Required,
            doc: "The HTTP status a transport sends it with: 400, 404 for -32601, 500 for -32603.",
        },
    ],
)];

/// The record of [`ANSWERS`] a free function answers, if any.
fn answer(e: &Export) -> Option<String> {
    let found = ANSWERS.iter().find(|(row, ..)| e.machine.is_none() && *row == e.name);
    found.map(|(_, name, ..)| (*name).into())
}

/// Methods of hand-written machines named apart.
const RENAMED: &[(&str, &str, &str)] = &[("Checker", "handle", "handle_entry")];

/// The Rust name of a row in the binding (UniFFI spells it in each language's case).
pub fn name(e: &Export) -> String {
    if let Some((_, _, n)) = RENAMED.iter().find(|(m, n, _)| Some(*m) == e.machine && *n == e.name) {
        return (*n).into();
    }
    match e.machine {
        None => HAND_FREE.iter().find(|(n, _)| *n == e.name).map_or(e.name, |(_, u)| *u).into(),
        Some(_) => e.name.into(),
    }
}

/// Whether the binding writes the row by hand.
pub fn hand_written(e: &Export) -> bool {
    match e.machine {
        None => HAND_FREE.iter().any(|(n, _)| *n == e.name),
        Some(m) => {
            HAND_MACHINES.contains(&m)
                || HAND_METHODS.contains(&(m, e.name))
                || HAND_CONSTRUCTORS.contains(&m) && matches!(e.receiver, Receiver::New | Receiver::Static)
        }
    }
}

/// The record a JSON argument or answer of shape `s` crosses as (none: JSON text, `String`).
fn record(s: Shape) -> Option<String> {
    match (s, records::record(s)) {
        (Shape::Violations, Some(r)) => Some(format!("Vec<{}>", r.name)),
        (_, Some(r)) => Some(r.name.into()),
        (Shape::HeaderFields, None) => Some("HashMap<String, String>".into()),
        (Shape::Exchanges, None) => Some("Vec<i64>".into()),
        _ => None,
    }
}

/// A parameter's name in the binding: JSON text is `…_json`, a record or a map its own name.
pub(super) fn param_name(e: &Export, name: &str, arg: Arg) -> String {
    let typed = arg == Arg::Headers || record(e.shape(name)).is_some();
    match arg {
        Arg::Text | Arg::Value | Arg::OptText | Arg::OptValue | Arg::OrEmpty if !typed => format!("{name}_json"),
        // The ring counts seconds; every other machine, milliseconds.
        Arg::Whole if name == "now" && e.machine != Some(RING) => "now_ms".into(),
        Arg::Options => "protocol".into(),
        _ => name.into(),
    }
}

pub(super) fn param_type(e: &Export, name: &str, arg: Arg) -> String {
    if let Some(r) = record(e.shape(name)).filter(|_| arg == Arg::Text) {
        return r;
    }
    match arg {
        Arg::OptBytes => unreachable!("a key's secret or master: this binding writes its own"),
        Arg::Guard => "Option<Box<dyn ReplayGuard>>".into(),
        Arg::KeyId => "i32".into(),
        Arg::Headers => "HashMap<String, String>".into(),
        Arg::Text | Arg::Value | Arg::Str | Arg::Options => "String".into(),
        Arg::OptText | Arg::OptValue | Arg::OrEmpty | Arg::OptStr => "Option<String>".into(),
        Arg::Bool => "bool".into(),
        Arg::Whole | Arg::Handle => "i64".into(),
        Arg::Status => "i32".into(),
        Arg::Bytes => "Vec<u8>".into(),
        Arg::Random => unreachable!("no parameter: the operating system's randomness"),
        Arg::Machine(m) => format!("Arc<{m}>"),
    }
}

/// A guard a machine argument is read through (bound before the call), and
/// how the call uses the argument.
fn read(e: &Export, param: &str, name: &str, arg: Arg) -> (Option<String>, String) {
    if arg == Arg::Text && record(e.shape(param)).is_some() {
        return (None, format!("&crate::transport::json_of(&{name})"));
    }
    match arg {
        Arg::OptBytes => unreachable!("a key's secret or master: this binding writes its own"),
        Arg::Guard => (None, name.into()),
        Arg::KeyId => (None, format!("u64::from(crate::ints::unsigned::<u8>({name}, {name:?})?)")),
        Arg::Headers => (None, format!("&crate::transport::headers_json({name})")),
        Arg::Text | Arg::Value => (None, format!("{name}.as_bytes()")),
        Arg::OptText | Arg::OptValue => (None, format!("{name}.as_deref().map(str::as_bytes)")),
        Arg::OrEmpty => (None, format!("{name}.as_deref().map_or(&[][..], str::as_bytes)")),
        Arg::Str | Arg::Bytes => (None, format!("&{name}")),
        Arg::OptStr => (None, format!("{name}.as_deref()")),
        Arg::Options => (None, "&crate::ops::options(&protocol, None)?".into()),
        Arg::Random => (None, "Randomness::Os".into()),
        Arg::Machine("KeyRing") => (Some(format!("let {name} = {name}.ring()?;")), format!("&{name}")),
        Arg::Machine(_) => (Some(format!("let {name} = lock(&{name}.inner)?;")), format!("&{name}")),
        Arg::Whole | Arg::Handle | Arg::Status => (None, format!("crate::ints::unsigned({name}, {name:?})?")),
        Arg::Bool => (None, name.into()),
    }
}

pub(super) fn ret_type(e: &Export) -> String {
    if let Some(r) = record(e.shape("return")).or_else(|| answer(e)) {
        return match e.ret {
            Ret::OptJson | Ret::NextOrError => format!("Option<{r}>"),
            _ => r,
        };
    }
    match e.ret {
        Ret::Opened => unreachable!("a token that opened: this binding writes its own"),
        Ret::OptWhole => "Option<i64>".into(),
        // A check passes, or raises its refusal as any other failure.
        Ret::Unit | Ret::Refusal => "()".into(),
        Ret::Text | Ret::Json | Ret::Name => "String".into(),
        Ret::OptText | Ret::OptJson | Ret::NextOrError => "Option<String>".into(),
        Ret::Texts => "Vec<String>".into(),
        Ret::Bool => "bool".into(),
        Ret::Count => "i32".into(),
        Ret::Handle => "i64".into(),
        Ret::OptMillis => "Option<i64>".into(),
        Ret::Bytes => "Vec<u8>".into(),
        Ret::Machine(m) => format!("Arc<{m}>"),
    }
}

/// The façade call and its result as the binding returns it (inside `guard`).
fn value(e: &Export, inner: &str, uses: &[String]) -> String {
    let args = uses.join(", ");
    let call = match e.receiver {
        Receiver::Free => format!("facade::{}({args})", e.callee()),
        Receiver::New => format!("facade::{inner}::new({args})"),
        Receiver::Static => format!("facade::{inner}::{}({args})", e.callee()),
        // The host's replay guard, called back under the ring's read lock (`KeyRing::guarded`).
        Receiver::Ref | Receiver::Mut if guarded(e) => {
            format!("self.guarded(guard, |this, guard| this.{}({args}))", e.callee())
        }
        Receiver::Ref | Receiver::Mut => format!("this.{}({args})", e.callee()),
    };
    if record(e.shape("return")).is_some() || answer(e).is_some() {
        // A record: the façade's JSON read into it (`crate::error::wire`).
        return match e.ret {
            Ret::OptJson => format!("{call}.map(|t| wire(&t)).transpose()"),
            Ret::NextOrError => format!("{call}.map(|t| wire(&t?)).transpose()"),
            _ if e.fallible => format!("wire(&{call}?)"),
            _ => format!("wire(&{call})"),
        };
    }
    let wrap = |v: String| match e.ret {
        Ret::Machine(m) => format!("Arc::new({m} {{ inner: Mutex::new({v}) }})"),
        Ret::Name => format!("{v}.into()"),
        Ret::Bytes => format!("{v}.to_vec()"),
        Ret::Count => format!("crate::ints::int({v})"),
        Ret::Handle => format!("crate::ints::long({v})"),
        Ret::OptMillis | Ret::OptWhole => format!("{v}.map(crate::ints::long)"),
        _ => v,
    };
    match e.ret {
        // `guarded` answers the binding's `Result` already.
        _ if guarded(e) && !matches!(e.ret, Ret::Machine(_)) => call,
        Ret::Refusal => format!("Ok({call}?)"),
        Ret::NextOrError => format!("Ok({call}.transpose()?)"),
        _ if e.fallible => format!("Ok({})", wrap(format!("{call}?"))),
        Ret::Unit => format!("{call};\nOk(())"),
        _ => format!("Ok({})", wrap(call)),
    }
}

/// Whether a row runs the host's replay guard.
fn guarded(e: &Export) -> bool {
    e.params.iter().any(|(_, a)| *a == Arg::Guard)
}

fn function(out: &mut String, e: &Export, inner: &str, indent: &str) {
    let mut sig = Vec::new();
    let mut binds = Vec::new();
    let mut uses = Vec::new();
    match e.receiver {
        Receiver::Ref | Receiver::Mut if guarded(e) => sig.push("&self".to_string()),
        Receiver::Ref | Receiver::Mut if e.machine == Some(RING) => {
            sig.push("&self".to_string());
            binds.push(
                if e.receiver == Receiver::Mut {
                    "let mut this = self.writing()?;"
                } else {
                    "let this = self.ring()?;"
                }
                .into(),
            );
        }
        Receiver::Ref | Receiver::Mut => {
            sig.push("&self".to_string());
            binds.push(format!(
                "let {}this = lock(&self.inner)?;",
                if e.receiver == Receiver::Mut { "mut " } else { "" }
            ));
        }
        Receiver::Free | Receiver::New | Receiver::Static => {}
    }
    for (p, a) in e.params {
        let n = param_name(e, p, *a);
        if *a != Arg::Random {
            sig.push(format!("{n}: {}", param_type(e, p, *a)));
        }
        let (bind, used) = read(e, p, &n, *a);
        binds.extend(bind);
        uses.push(used);
    }
    let ret = if e.receiver == Receiver::New { format!("Arc<{}>", e.machine.unwrap_or_default()) } else { ret_type(e) };
    let ret = if e.receiver == Receiver::Static { format!("Arc<{}>", e.machine.unwrap_or_default()) } else { ret };
    out.push('\n');
    out.push_str(&doc_lines(indent, e.doc));
    if matches!(e.receiver, Receiver::New | Receiver::Static) {
        let _ = writeln!(out, "{indent}#[uniffi::constructor]");
    } else if e.receiver == Receiver::Free {
        let _ = writeln!(out, "{indent}#[uniffi::export]");
    }
    let _ = writeln!(out, "{indent}pub fn {}({}) -> Result<{ret}> {{", name(e), sig.join(", "));
    // A parameter named `guard` (the host's replay guard) hides the panic boundary's name.
    let boundary = if guarded(e) { "crate::error::guard" } else { "guard" };
    let _ = writeln!(out, "{indent}{boundary}(|| {{");
    for b in binds {
        let _ = writeln!(out, "{indent}{b}");
    }
    let _ = writeln!(out, "{indent}{}\n{indent}}})\n{indent}}}", value(e, inner, &uses));
}

fn file() -> String {
    let mut out = format!("// {}\n", crate::gen::MARK);
    out.push_str(
        "//! The UniFFI exports of the façade's table (`mrtr_facade::exports`) that\n\
         //! the binding does not write by hand: each a line over `mrtr_facade`\n\
         //! under the panic boundary of `crate::error::guard`; and the records and\n\
         //! enums of the façade's records (`mrtr_facade::records`) they return.\n\n\
         #![allow(clippy::too_many_arguments)]\n\n\
         use crate::error::{guard, lock, wire, Result};\n\
         use crate::state::KeyRing;\n\
         use crate::state::ReplayGuard;\n\
         use crate::client::{Checker, Client};\n\
         use crate::transport::SseDecoder;\n\
         use mrtr_facade::{self as facade, Randomness};\n\
         use serde::{Deserialize, Serialize};\n\
         use std::collections::HashMap;\n\
         use std::sync::{Arc, Mutex};\n",
    );
    let mut body = records();
    for e in
        EXPORTS.iter().filter(|e| e.receiver == Receiver::Free && e.in_binding(Binding::Uniffi) && !hand_written(e))
    {
        function(&mut body, e, "", "");
    }
    for m in MACHINES.iter().filter(|m| machine_in(m, Binding::Uniffi) && !HAND_MACHINES.contains(&m.name)) {
        if !HAND_CONSTRUCTORS.contains(&m.name) {
            let _ = write!(
                body,
                "\n{}#[derive(uniffi::Object)]\npub struct {name} {{\npub(crate) inner: Mutex<facade::{}>,\n}}\n",
                doc_lines("", m.doc),
                m.inner,
                name = m.name
            );
        }
        let _ = write!(body, "\n#[uniffi::export]\nimpl {} {{", m.name);
        for e in
            EXPORTS.iter().filter(|e| e.machine == Some(m.name) && e.in_binding(Binding::Uniffi) && !hand_written(e))
        {
            function(&mut body, e, m.inner, "    ");
        }
        body.push_str("}\n");
    }
    if !body.contains("Randomness::") {
        out = out.replace("use mrtr_facade::{self as facade, Randomness};", "use mrtr_facade as facade;");
    }
    // Import what the body names.
    for (name, import) in [
        ("KeyRing", "use crate::state::KeyRing;\n"),
        ("dyn ReplayGuard", "use crate::state::ReplayGuard;\n"),
        ("HashMap", "use std::collections::HashMap;\n"),
        ("wire(", "use crate::error::{guard, lock, wire, Result};\n"),
    ] {
        if !body.contains(name) {
            let without = if name == "wire(" { "use crate::error::{guard, lock, Result};\n" } else { "" };
            out = out.replace(import, without);
        }
    }
    out.push_str(&body);
    out.push_str(&left_out_lines(Binding::Uniffi));
    rustfmt(&out)
}

/// A record member's Rust field: its name, its type, and its serde attribute (none: as it is).
fn record_field(m: &records::Member, written: bool) -> (String, String, Vec<String>) {
    use records::{Holds as H, Presence};
    // (A record's members; the settings' own kinds cross as JSON text or names.)
    let snake = snake(m.name);
    let json = matches!(m.holds, H::Message | H::Messages | H::Questions | H::Json | H::Object | H::Limits);
    let name = if json { format!("{snake}_json") } else { snake.clone() };
    let base = match m.holds {
        H::Text | H::Rule | H::Method | H::Mode | H::Transport | H::Protocol | H::ErrorCodes => "String",
        H::Whole | H::Handle => "i64",
        H::Count => "i32",
        H::Flag => "bool",
        H::Headers => "HashMap<String, String>",
        H::Message | H::Questions | H::Json | H::Object | H::Limits => "String",
        H::Messages | H::Names => "Vec<String>",
        H::Digest => "Vec<u8>",
    };
    let optional = m.presence != Presence::Required;
    let ty = if optional { format!("Option<{base}>") } else { base.to_string() };
    let mut serde = Vec::new();
    if optional {
        serde.push("default".to_string());
        if written && m.presence == Presence::Optional {
            serde.push("skip_serializing_if = \"Option::is_none\"".into());
        }
    }
    if name != m.name {
        serde.push(format!("rename = \"{}\"", m.name));
    }
    if m.holds == H::Digest {
        serde.push("with = \"crate::transport::hex\"".into());
    }
    if json {
        let with = match (m.holds, optional) {
            (H::Messages, _) => "crate::transport::json_texts",
            (_, true) => "crate::transport::json_text_opt",
            (_, false) => "crate::ops::json_text",
        };
        serde.push(format!("deserialize_with = \"{with}\""));
    }
    let mut attrs = Vec::new();
    if optional && written {
        attrs.push("#[uniffi(default = None)]".to_string());
    }
    if !serde.is_empty() {
        attrs.push(format!("#[serde({})]", serde.join(", ")));
    }
    (name, ty, attrs)
}

fn record_fields(out: &mut String, members: &[records::Member], written: bool, public: bool) {
    for m in members {
        let (name, ty, attrs) = record_field(m, written);
        out.push_str(&doc_lines("", m.doc));
        for a in attrs {
            let _ = writeln!(out, "{a}");
        }
        let _ = writeln!(out, "{}{name}: {ty},", if public { "pub " } else { "" });
    }
}

/// UniFFI's records and enums of the façade's records (`mrtr_facade::records`).
fn records() -> String {
    let mut out = String::new();
    for r in RECORDS.iter().chain(TYPED_RECORDS) {
        out.push('\n');
        out.push_str(&doc_lines("", r.doc));
        let serialize = if r.written { ", Serialize, Default" } else { "" };
        match r.body {
            Body::Object(members) => {
                let _ = writeln!(out, "#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record, Deserialize{serialize})]");
                let _ = writeln!(out, "pub struct {} {{", r.name);
                record_fields(&mut out, members, r.written, true);
            }
            Body::Union(variants) => {
                let _ = writeln!(out, "#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum, Deserialize)]");
                let _ = writeln!(out, "#[serde(tag = \"type\", rename_all = \"camelCase\")]\npub enum {} {{", r.name);
                for v in variants {
                    out.push_str(&doc_lines("", v.doc));
                    let mut name = String::new();
                    let mut up = true;
                    for c in v.tag.chars() {
                        if up {
                            name.extend(c.to_uppercase())
                        } else {
                            name.push(c)
                        }
                        up = false;
                    }
                    let _ = writeln!(out, "{name} {{");
                    record_fields(&mut out, v.members, false, false);
                    out.push_str("},\n");
                }
            }
        }
        out.push_str("}\n");
    }
    for (_, name, doc, members) in ANSWERS {
        let _ = writeln!(
            out,
            "\n{}#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record, Deserialize)]",
            doc_lines("", doc)
        );
        let _ = writeln!(out, "pub struct {name} {{");
        record_fields(&mut out, members, false, true);
        out.push_str("}\n");
    }
    out
}
