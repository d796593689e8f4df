//! `bindings-jvm/src/main/java/dev/mrtr/MrtrFunctions.java`: the static
//! functions of the Java façade `dev.mrtr.Mrtr`, one per free function the
//! UniFFI binding generates from the table ([`super::uniffi`]), each a call of
//! the Kotlin top-level function (class `mrtr.Mrtr_uniffiKt`) with the same
//! arguments. Java sees the UniFFI types as they are (signed integers since
//! issue #28); the free functions UniFFI's binding writes by hand
//! (`classify`, `check`, …) are written by hand in `Mrtr.java` too.

use super::{camel, uniffi};
use crate::gen::wrap;
use mrtr::facade::exports::{Arg, Binding, Export, Receiver, EXPORTS};
use std::fmt::Write;
use std::path::PathBuf;

/// `(path, contents)` of the generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![(PathBuf::from("bindings-jvm/src/main/java/dev/mrtr/MrtrFunctions.java"), file())]
}

/// The Java type of a UniFFI Rust type (as `uniffi::param_type`/`ret_type` spell it).
fn java_type(rust: &str) -> String {
    let inner = |prefix: &str| rust.strip_prefix(prefix).and_then(|r| r.strip_suffix('>'));
    if let Some(t) = inner("Option<") {
        return match t {
            "i64" => "Long".into(),
            "i32" => "Integer".into(),
            "bool" => "Boolean".into(),
            other => java_type(other),
        };
    }
    if let Some(t) = inner("Arc<") {
        return t.into();
    }
    match rust {
        "()" => "void".into(),
        "String" => "String".into(),
        "bool" => "boolean".into(),
        "i64" => "long".into(),
        "i32" => "int".into(),
        "Vec<u8>" => "byte[]".into(),
        "HashMap<String, String>" => "Map<String, String>".into(),
        _ => match inner("Vec<") {
            Some(t) => format!("List<{}>", java_type(t).replace("long", "Long")),
            None => rust.into(), // a record or an enum of package `mrtr`
        },
    }
}

/// A doc text as Javadoc: `code` spans as `{@code …}`, the rest HTML-escaped.
fn javadoc(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "{{@code {part}}}");
        } else {
            out.push_str(&part.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;"));
        }
    }
    out
}

/// The `/** … */` of a row at two spaces' indent, wrapped before 100 columns.
fn doc_comment(text: &str) -> String {
    let lines: String = wrap(&javadoc(text), 92).iter().map(|l| format!("   * {l}\n")).collect();
    format!("  /**\n{lines}   */\n")
}

fn function(out: &mut String, e: &Export) {
    let name = camel(&uniffi::name(e));
    let params: Vec<(String, String)> = e
        .params
        .iter()
        .filter(|(_, a)| *a != Arg::Random)
        .map(|(p, a)| (camel(&uniffi::param_name(e, p, *a)), java_type(&uniffi::param_type(e, p, *a))))
        .collect();
    let ret = java_type(&uniffi::ret_type(e));
    let sig = params.iter().map(|(n, t)| format!("{t} {n}")).collect::<Vec<_>>().join(", ");
    let args = params.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ");
    let call = format!("Mrtr_uniffiKt.{name}({args});");
    out.push('\n');
    out.push_str(&doc_comment(e.doc));
    let _ = writeln!(out, "  public static {ret} {name}({sig}) throws MrtrException {{");
    let _ = writeln!(out, "    {}{call}\n  }}", if ret == "void" { "" } else { "return " });
}

fn file() -> String {
    let mut body = String::new();
    let rows = EXPORTS
        .iter()
        .filter(|e| e.receiver == Receiver::Free && e.in_binding(Binding::Uniffi) && !uniffi::hand_written(e));
    for e in rows {
        function(&mut body, e);
    }
    let mut out = format!("// {}\n", crate::gen::MARK);
    out.push_str(
        "package dev.mrtr;\n\n\
         import java.util.List;\n\
         import java.util.Map;\n\
         import mrtr.*;\n\n\
         /**\n \
         * The functions of the core's export table that the UniFFI binding generates, for Java: each\n \
         * calls the Kotlin function of the same name. Called through {@link Mrtr}, which adds the ones\n \
         * written by hand.\n \
         */\n\
         abstract class MrtrFunctions {\n  \
         MrtrFunctions() {}\n",
    );
    for (name, import) in [("List<", "import java.util.List;\n"), ("Map<", "import java.util.Map;\n")] {
        if !body.contains(name) {
            out = out.replace(import, "");
        }
    }
    out.push_str(&body);
    out.push_str("}\n");
    out
}
