//! Each row of the export table by its name in every binding, and
//! `docs/exports.md`, the table a reader checks a language against. The
//! conformance test `tests/exports.rs` finds every name in its binding's
//! artifact (the napi types, the C header, the generated Kotlin, the Python
//! stubs): a row missing from a binding that does not list it as left out
//! fails CI.

use super::{c, camel, uniffi};
use mrtr_facade::exports::{Binding, Export, Receiver, EXPORTS, MACHINES};
use std::fmt::Write;
use std::path::PathBuf;

/// Every binding, in the order of the document's columns.
pub const BINDINGS: &[(Binding, &str)] = &[
    (Binding::Napi, "Node (napi)"),
    (Binding::Wasm, "browsers (wasm)"),
    (Binding::C, "C"),
    (Binding::Uniffi, "Kotlin / Swift (UniFFI)"),
    (Binding::Python, "Python"),
];

/// Python's methods named apart (a property where Python reads one).
const PYTHON_RENAMED: &[(&str, &str, &str)] =
    &[("HttpCall", "is_done", "done"), ("Operation", "is_drained", "drained"), ("ToolBridge", "is_done", "done")];

/// Python's free functions named apart.
const PYTHON_FREE: &[(&str, &str)] = &[("error_response", "_error_response")];

/// Why a row is not in `binding`, if it is not.
pub fn left_out(binding: Binding, e: &Export) -> Option<&'static str> {
    let machine = e.machine.and_then(mrtr_facade::exports::machine);
    let rows = e.left_out.iter().chain(machine.map_or(&[][..], |m| m.left_out));
    rows.into_iter().find(|(b, _)| *b == binding).map(|(_, why)| *why)
}

/// The row's name in `binding`: a function, or `Machine.method`
/// (`Machine.constructor` / `Machine.__new__` / `Machine(…)` for a constructor).
pub fn name_in(binding: Binding, e: &Export) -> String {
    let machine = e.machine.unwrap_or_default();
    match binding {
        Binding::Napi | Binding::Wasm => match e.receiver {
            Receiver::Free => camel(e.name),
            Receiver::New => format!("{machine}.constructor"),
            Receiver::Static => format!("{machine}.{}", camel(e.name)),
            _ => format!("{machine}.{}", camel(e.name)),
        },
        Binding::C => c::c_name(e),
        Binding::Uniffi => match e.receiver {
            Receiver::Free => camel(&uniffi::name(e)),
            Receiver::New => format!("{machine}(…)"),
            Receiver::Static => format!("{machine}.{}", camel(&uniffi::name(e))),
            _ => format!("{machine}.{}", camel(&uniffi::name(e))),
        },
        Binding::Python => match e.receiver {
            Receiver::Free => PYTHON_FREE.iter().find(|(n, _)| *n == e.name).map_or(e.name, |(_, p)| p).into(),
            Receiver::New => format!("{machine}.__new__"),
            Receiver::Static => format!("{machine}.{}", e.name),
            _ => {
                let renamed = PYTHON_RENAMED.iter().find(|(m, n, _)| *m == machine && *n == e.name);
                format!("{machine}.{}", renamed.map_or(e.name, |(_, _, p)| p))
            }
        },
    }
}

/// `(path, contents)` of the generated document.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![(PathBuf::from("docs/exports.md"), document())]
}

fn document() -> String {
    let mut out = format!("<!-- {} -->\n", crate::gen::MARK);
    out.push_str(
        "# Exports\n\nEvery function and machine the bindings export, declared once in the core's\n\
         table (`facade/src/exports.rs`), by its name in each binding. A binding\n\
         that leaves a row out says why here. The export code of each row is generated\n\
         from the table by `mrtr-gen` (napi, wasm, C, UniFFI, pyo3, and the JavaScript\n\
         API's converting layer), but where a binding writes it in its own idiom (typed\n\
         records, C structs, Python's keyword constructors). `conformance/tests/exports.rs` finds every\n\
         name below in its binding's artifact (`bindings-node/native.d.ts`,\n\
         `bindings-ffi/include/mrtr.h`, the generated Kotlin, `_mrtr.pyi`).\n\n\
         Not in the table, each binding's own idiom: the drivers (`runOperation`, `mrtr.call`),\n\
         the await-style tool runners and the error classes.\n",
    );
    let head: Vec<&str> = BINDINGS.iter().map(|(_, title)| *title).collect();
    let _ = write!(out, "\n| row | {} |\n|---|{}\n", head.join(" | "), "---|".repeat(head.len()));
    let machines = std::iter::once(None).chain(MACHINES.iter().map(|m| Some(m.name)));
    for machine in machines {
        for e in EXPORTS.iter().filter(|e| e.machine == machine) {
            let row = machine.map_or(e.name.to_string(), |m| format!("{m}.{}", e.name));
            let cells: Vec<String> = BINDINGS
                .iter()
                .map(|(b, _)| match left_out(*b, e) {
                    Some(why) => format!("— ({why})"),
                    None => format!("`{}`", name_in(*b, e)),
                })
                .collect();
            let _ = writeln!(out, "| `{row}` | {} |", cells.join(" | "));
        }
    }
    out
}
