//! `bindings-jvm/src/main/java/dev/mrtr/MrtrFunctions.java`: the static
//! functions of the Java façade `dev.mrtr.Mrtr`, one per free function the
//! UniFFI binding generates from the table ([`super::uniffi`]), each a call of
//! the Kotlin top-level function (class `mrtr.Mrtr_uniffiKt`) with the same
//! arguments. Java sees the UniFFI types as they are (signed integers since
//! issue #28); the free functions UniFFI's binding writes by hand
//! (`classify`, `check`, …) are written by hand in `Mrtr.java` too.
//!
//! A check ([`Ret::Refusal`]: `checkRequest`, `requireCapabilities`, …)
//! returns nothing and throws its refusal, the `MrtrException` subclass of the
//! rule's area with its rule, code, detail and data, as every other failure
//! (UniFFI raises it so: issue #46). The rows listed in [`BY_HAND`] are
//! written in `Mrtr.java`.
//!
//! The README's block of signatures ends with one line per row here, after its
//! line [`README_MARK`] (the functions written by hand stand before it); the
//! JVM package's `DocsTest` holds the whole block to the compiled class.

use super::{camel, uniffi};
use crate::gen::wrap;
use mrtr_facade::exports::{Arg, Binding, Export, Receiver, Ret, EXPORTS};
use std::fmt::Write;
use std::path::PathBuf;

/// `(path, contents)` of the generated files.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![
        (PathBuf::from("bindings-jvm/src/main/java/dev/mrtr/MrtrFunctions.java"), file()),
        (PathBuf::from(README), readme()),
    ]
}

/// The JVM package's README, whose block of signatures ends with those of these rows.
const README: &str = "bindings-jvm/README.md";

/// The line after which the README's block of signatures holds this file's rows, to the block's end.
const README_MARK: &str = "// mrtr-gen: the rows of the core's export table, in its order (MrtrFunctions.java)";

/// The README with the signatures of [`rows`] after [`README_MARK`], one line each (those written
/// in `Mrtr.java` stand before it; `DocsTest` holds the whole block to the compiled class).
fn readme() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root");
    let text = std::fs::read_to_string(root.join(README)).unwrap_or_else(|e| panic!("{README}: {e}"));
    let start = text.find(README_MARK).unwrap_or_else(|| panic!("{README} has no line {README_MARK:?}"));
    let from = start + README_MARK.len() + 1;
    let end = from + text[from..].find("```").unwrap_or_else(|| panic!("{README}: the block never ends"));
    let lines: String = rows().map(|e| format!("{};\n", Signature::of(e).declaration())).collect();
    format!("{}{lines}{}", &text[..from], &text[end..])
}

/// The rows of the UniFFI binding that `Mrtr.java` writes by hand, and why.
const BY_HAND: &[(&str, &str)] =
    &[("error_response", "an `ErrorResponse` (`response()`, `status()`), not the JSON of `{response, status}`")];

/// Whether `Mrtr.java` writes the row by hand.
fn by_hand(e: &Export) -> bool {
    BY_HAND.iter().any(|(n, _)| *n == e.name)
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

/// The `/** … */` of a row at two spaces' indent, wrapped before 100 columns,
/// with its `@throws` clause when it has one (a tag starts its own line).
fn doc_comment(text: &str, throws: Option<&str>) -> String {
    let mut lines: String = wrap(&javadoc(text), 92).iter().map(|l| format!("   * {l}\n")).collect();
    if let Some(why) = throws {
        lines.push_str("   *\n");
        let tag = wrap(&format!("@throws MrtrException {}", javadoc(why)), 88);
        for (i, l) in tag.iter().enumerate() {
            let _ = writeln!(lines, "   * {}{l}", if i == 0 { "" } else { "    " });
        }
    }
    format!("  /**\n{lines}   */\n")
}

/// A row as Java declares it: its return type, name and parameters (type, name).
struct Signature {
    ret: String,
    name: String,
    params: Vec<(String, String)>,
}

impl Signature {
    fn of(e: &Export) -> Signature {
        let params = e
            .params
            .iter()
            .filter(|(_, a)| *a != Arg::Random)
            .map(|(p, a)| (java_type(&uniffi::param_type(e, p, *a)), camel(&uniffi::param_name(e, p, *a))))
            .collect();
        Signature { ret: java_type(&uniffi::ret_type(e)), name: camel(&uniffi::name(e)), params }
    }

    /// `Ret name(Type param, …) throws MrtrException`.
    fn declaration(&self) -> String {
        let params = self.params.iter().map(|(t, n)| format!("{t} {n}")).collect::<Vec<_>>().join(", ");
        format!("{} {}({params}) throws MrtrException", self.ret, self.name)
    }
}

fn function(out: &mut String, e: &Export) {
    let sig = Signature::of(e);
    let args = sig.params.iter().map(|(_, n)| n.as_str()).collect::<Vec<_>>().join(", ");
    let call = format!("Mrtr_uniffiKt.{}({args})", sig.name);
    out.push('\n');
    if e.ret == Ret::Refusal {
        let throws = "the refusal (the subclass of its rule's area, with its rule, code, detail and data)";
        out.push_str(&doc_comment(&format!("{} Returns normally when it passes.", e.doc), Some(throws)));
    } else {
        out.push_str(&doc_comment(e.doc, None));
    }
    let _ = writeln!(out, "  public static {} {{", sig.declaration());
    let _ = writeln!(out, "    {}{call};\n  }}", if sig.ret == "void" { "" } else { "return " });
}

/// The rows `MrtrFunctions.java` declares, in the table's order.
fn rows() -> impl Iterator<Item = &'static Export> {
    EXPORTS
        .iter()
        .filter(|e| e.receiver == Receiver::Free && e.in_binding(Binding::Uniffi) && !uniffi::hand_written(e))
        .filter(|e| !by_hand(e))
}

fn file() -> String {
    let mut body = String::new();
    for e in rows() {
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
