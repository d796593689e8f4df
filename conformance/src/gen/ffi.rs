//! The generated files of the C and UniFFI bindings (`bindings-ffi/`):
//!
//! - `bindings-ffi/src/tables.rs`: every rule as its status code, the areas,
//!   protocols, message kinds, result types and algorithms as the C header's
//!   constants (cbindgen reads them), and their names as static C strings;
//! - `bindings-ffi/bare/src/tables.rs`: the same numbers as `include/mrtr_bare.h`'s
//!   constants (`MRTR_BARE_*`), for the no-allocator library, and the rule ids as
//!   static C strings;
//! - `bindings-ffi/uniffi/src/areas.rs`: the UniFFI error type, one variant per
//!   area, and the areas as an enum;
//! - `bindings-ffi/uniffi/uniffi.toml`: the generators' settings, with Kotlin's
//!   rename of each variant's `message`.

use mrtr::rules::{Area, RULES};
use mrtr::state::Algorithm;
use mrtr::{Kind, Protocol, ResultType};
use std::fmt::Write;
use std::path::PathBuf;

/// `(path, contents)` of each generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![
        (PathBuf::from("bindings-ffi/src/tables.rs"), tables()),
        (PathBuf::from("bindings-ffi/bare/src/tables.rs"), bare_tables()),
        (PathBuf::from("bindings-ffi/uniffi/src/areas.rs"), areas()),
        (PathBuf::from("bindings-ffi/uniffi/uniffi.toml"), uniffi_toml()),
    ]
}

/// `"sep-2322-draft"` as a constant's suffix: `SEP_2322_DRAFT`.
fn screaming(name: &str) -> String {
    name.replace('-', "_").to_uppercase()
}

/// `text` as `///` lines of at most 116 characters after `indent`.
fn doc(out: &mut String, indent: &str, text: &str) {
    // The header is C: a `*/` inside a doc comment would end it.
    assert!(!text.contains("*/"), "a doc text holds */: {text}");
    for line in super::wrap(text, 116 - indent.len()) {
        let _ = writeln!(out, "{indent}/// {line}");
    }
}

/// A typedef and its constants, `(suffix, number, doc)` each.
fn constants(out: &mut String, ty: &str, ty_doc: &str, prefix: &str, rows: &[(String, i32, String)]) {
    out.push('\n');
    doc(out, "", ty_doc);
    let _ = writeln!(out, "pub type {ty} = i32;");
    for (suffix, number, text) in rows {
        doc(out, "", text);
        let _ = writeln!(out, "pub const {prefix}{suffix}: {ty} = {number};");
    }
}

/// `static NAME: [&CStr; n] = [c"a", …];` as rustfmt lays it out: on one
/// line, the list on a line of its own, or one name a line.
fn names(out: &mut String, what: &str, name: &str, items: &[&str]) {
    out.push('\n');
    doc(out, "", what);
    let list: Vec<String> = items.iter().map(|s| format!("c{s:?}")).collect();
    let (head, list_line) = (format!("pub(crate) static {name}: [&CStr; {}] =", items.len()), list.join(", "));
    if head.len() + list_line.len() + 4 <= 120 {
        let _ = writeln!(out, "{head} [{list_line}];");
    } else if list_line.len() + 7 <= 120 {
        let _ = writeln!(out, "{head}\n    [{list_line}];");
    } else {
        let _ = writeln!(out, "pub(crate) static {name}: [&CStr; {}] = [", items.len());
        for item in list {
            let _ = writeln!(out, "    {item},");
        }
        out.push_str("];\n");
    }
}

fn number(i: usize) -> i32 {
    i32::try_from(i).expect("a small table")
}

fn tables() -> String {
    let mut s = format!("//! {}\n", super::MARK);
    s.push_str(
        "//!
//! The core's tables as the C header's constants (made by conformance/src/gen/ffi.rs
//! from `mrtr::rules::RULES`, `Area::ALL`, `Protocol::ALL`, `Kind::ALL`,
//! `ResultType::ALL`, `Algorithm::ALL`), and their names as static C strings.

use crate::status::mrtr_status;
use std::ffi::CStr;

// The rules of the core's catalogue: a call that fails returns the number of
// the rule it enforces.
",
    );
    for r in RULES {
        let code = r.code.map_or("no JSON-RPC code".to_string(), |c| format!("JSON-RPC {c}"));
        s.push('\n');
        doc(&mut s, "", &format!("`{}` (area `{}`, {code}): {}", r.name, r.area.name(), r.id.text()));
        let _ = writeln!(s, "pub const MRTR_ERR_{}: mrtr_status = {};", screaming(r.name), r.id as u16);
    }
    let rounds = mrtr::DEFAULT_MAX_ROUNDS;
    s.push('\n');
    doc(&mut s, "", "Retries allowed per request by default (as the official SDKs).");
    let _ = writeln!(s, "pub const MRTR_DEFAULT_MAX_ROUNDS: u32 = {rounds};");
    let mut areas = vec![("NONE".to_string(), 0, "Not a rule: `MRTR_OK`, or a number of no rule.".to_string())];
    for a in Area::ALL {
        areas.push((screaming(a.name()), number(a as usize), format!("`{}`: {}", a.name(), a.summary())));
    }
    constants(
        &mut s,
        "mrtr_area",
        "The area of a rule (`mrtr_rule_area`): which part of the protocol, or of mrtr's API, it guards. Every \
         language raises one error class per area.",
        "MRTR_AREA_",
        &areas,
    );
    let protocols = protocol_rows();
    constants(
        &mut s,
        "mrtr_protocol",
        "A protocol, chosen by the caller (the negotiated version).",
        "MRTR_PROTOCOL_",
        &protocols,
    );
    let kinds = kind_rows();
    constants(&mut s, "mrtr_kind", "What a message is (`mrtr_classified.kind`).", "MRTR_KIND_", &kinds);
    let result_types = result_type_rows();
    constants(
        &mut s,
        "mrtr_result_type",
        "The `resultType` of a result as the protocol reads it (`mrtr_classified.result_type`).",
        "MRTR_RESULT_TYPE_",
        &result_types,
    );
    let algorithms: Vec<_> = Algorithm::ALL
        .iter()
        .map(|a| (screaming(a.name()), number(*a as usize), format!("`\"{}\"`.", a.name())))
        .collect();
    constants(
        &mut s,
        "mrtr_algorithm",
        "An AEAD for sealed state (the numbers are those of the token format).",
        "MRTR_ALG_",
        &algorithms,
    );
    s.push('\n');
    doc(&mut s, "", "Each rule's number, id and source, in catalogue order.");
    let _ = writeln!(s, "pub(crate) static RULES: [(mrtr_status, &CStr, &CStr); {}] = [", RULES.len());
    for r in RULES {
        let _ = writeln!(s, "    ({}, c{:?}, c{:?}),", r.id as u16, r.name, r.source);
    }
    s.push_str("];\n");
    let mut area_names = vec!["none"];
    area_names.extend(Area::ALL.iter().map(|a| a.name()));
    names(&mut s, "The names of the areas, by `mrtr_area`.", "AREAS", &area_names);
    let protocol_names: Vec<_> = Protocol::ALL.iter().map(|p| p.name()).collect();
    names(&mut s, "The names of the protocols, by `mrtr_protocol`.", "PROTOCOLS", &protocol_names);
    s
}

/// The tables of the no-allocator library (`mrtr-ffi-bare`, `no_std`): the
/// rules, protocols, kinds and result types with the numbers of `mrtr.h`, under
/// the prefix `MRTR_BARE_` (so that both headers can be included together).
fn bare_tables() -> String {
    let mut s = format!("//! {}\n", super::MARK);
    s.push_str(
        "//!
//! The core's tables as the constants of include/mrtr_bare.h (made by
//! conformance/src/gen/ffi.rs from `mrtr::rules::RULES`, `Protocol::ALL`,
//! `Kind::ALL`, `ResultType::ALL`), with the numbers of include/mrtr.h, and the
//! rule ids as static C strings.

use crate::mrtr_bare_status;
use core::ffi::CStr;

// The rules of the core's catalogue: a call that fails returns the number of
// the rule it enforces.
",
    );
    for r in RULES {
        let code = r.code.map_or("no JSON-RPC code".to_string(), |c| format!("JSON-RPC {c}"));
        s.push('\n');
        doc(&mut s, "", &format!("`{}` (area `{}`, {code}): {}", r.name, r.area.name(), r.id.text()));
        let _ = writeln!(s, "pub const MRTR_BARE_ERR_{}: mrtr_bare_status = {};", screaming(r.name), r.id as u16);
    }
    let protocols = protocol_rows();
    constants(
        &mut s,
        "mrtr_bare_protocol",
        "A protocol, chosen by the caller (the negotiated version): its place in `mrtr::Protocol::ALL`.",
        "MRTR_BARE_PROTOCOL_",
        &protocols,
    );
    let kinds = kind_rows();
    constants(&mut s, "mrtr_bare_kind", "What a message is (`mrtr_bare_classified.kind`).", "MRTR_BARE_KIND_", &kinds);
    let result_types = result_type_rows();
    constants(
        &mut s,
        "mrtr_bare_result_type",
        "The `resultType` of a result as the protocol reads it (`mrtr_bare_classified.result_type`).",
        "MRTR_BARE_RESULT_TYPE_",
        &result_types,
    );
    let mut kind_names = vec!["none"];
    kind_names.extend(Kind::ALL.iter().map(|k| k.name()));
    assert!(Kind::ALL.iter().enumerate().all(|(i, k)| *k as usize == i + 1), "kinds numbered from 1 in order");
    names(&mut s, "The names of the kinds, by `mrtr_bare_kind` (0: none).", "KINDS", &kind_names);
    s.push('\n');
    doc(&mut s, "", "Each rule's number and id, in catalogue order.");
    let _ = writeln!(s, "pub(crate) static RULES: [(mrtr_bare_status, &CStr); {}] = [", RULES.len());
    for r in RULES {
        let _ = writeln!(s, "    ({}, c{:?}),", r.id as u16, r.name);
    }
    s.push_str("];\n");
    s
}

const FIELDS: &str = "        /// The rule id.
        rule: String,
        /// The JSON-RPC error code a peer answers with, if the rule has one.
        code: Option<i32>,
        /// What was wrong, in one sentence.
        message: String,
        /// What the refusal carries for the peer, as JSON text (`error.data`:
        /// a -32021's `requiredCapabilities`, for one), if anything.
        data: Option<String>,
";

fn areas() -> String {
    let mut s = format!("//! {}\n", super::MARK);
    s.push_str(
        "//!
//! The binding's error type, one variant per area of the core's rule catalogue
//! (an exception class each in Kotlin, Swift and Python), and the areas (made by
//! conformance/src/gen/ffi.rs from `mrtr::rules::Area::ALL`).

pub use mrtr::Area as ErrorArea;

/// Why a call failed: the variant of the rule's area, with the rule id, the
/// JSON-RPC code a peer answers with (if the rule has one), one sentence and
/// the refusal's data (if any).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Error)]
pub enum MrtrError {
",
    );
    for a in Area::ALL {
        doc(&mut s, "    ", a.summary());
        let _ = write!(s, "    {} {{\n{FIELDS}    }},\n", a.title());
    }
    s.push_str(
        "}

impl MrtrError {
    /// The error of a rule in `area`.
    pub(crate) fn in_area(
        area: ErrorArea,
        rule: String,
        code: Option<i32>,
        message: String,
        data: Option<String>,
    ) -> MrtrError {
        match area {
",
    );
    for a in Area::ALL {
        let _ =
            writeln!(s, "            ErrorArea::{t} => MrtrError::{t} {{ rule, code, message, data }},", t = a.title());
    }
    s.push_str(
        "            // An area newer than this file, which `mrtr-gen --check` then reports stale.
            _ => MrtrError::Panic { rule, code, message, data },
        }
    }

    /// The rule id, the JSON-RPC code, the sentence and the data, whatever the area.
    pub fn parts(&self) -> (&str, Option<i32>, &str, Option<&str>) {
        match self {
",
    );
    for (i, a) in Area::ALL.iter().enumerate() {
        let bar = if i == 0 { "" } else { "| " };
        let end = if i + 1 == Area::ALL.len() { " => (rule, *code, message, data.as_deref())," } else { "" };
        let _ = writeln!(s, "            {bar}MrtrError::{} {{ rule, code, message, data }}{end}", a.title());
    }
    s.push_str(
        "        }
    }
}

/// The areas of the rule catalogue (`RuleInfo.area`): one exception class each.
#[uniffi::remote(Enum)]
#[non_exhaustive]
pub enum ErrorArea {
",
    );
    for a in Area::ALL {
        doc(&mut s, "    ", a.summary());
        let _ = writeln!(s, "    {},", a.title());
    }
    s.push_str("}\n");
    s
}

fn uniffi_toml() -> String {
    let mut s = format!("# {}\n", super::MARK);
    s.push_str(
        "# Settings of the generated bindings (read by uniffi-bindgen in library mode),
# made by conformance/src/gen/ffi.rs.

[bindings.kotlin]
package_name = \"mrtr\"
cdylib_name = \"mrtr_uniffi\"

# Kotlin's Throwable already has `message` (UniFFI overrides it with a summary
# of every field), so the sentence is `detail` there; `rule` and `code` keep
# their names. Swift and Python keep `message`.
[bindings.kotlin.rename]
",
    );
    for a in Area::ALL {
        let _ = writeln!(s, "\"MrtrError.{}.message\" = \"detail\"", a.title());
    }
    s.push_str(
        "
[bindings.swift]
module_name = \"Mrtr\"
ffi_module_name = \"MrtrFFI\"
ffi_module_filename = \"MrtrFFI\"
cdylib_name = \"mrtr_uniffi\"

[bindings.python]
cdylib_name = \"mrtr_uniffi\"
",
    );
    s
}

/// The constant rows of every protocol (both headers list them alike).
fn protocol_rows() -> Vec<(String, i32, String)> {
    Protocol::ALL
        .iter()
        .map(|p| {
            let default = if *p == Protocol::default() { " (the default)" } else { "" };
            (screaming(p.name()), number(*p as usize), format!("`\"{}\"`{default}.", p.name()))
        })
        .collect()
}

/// The constant rows of every message kind.
fn kind_rows() -> Vec<(String, i32, String)> {
    Kind::ALL.iter().map(|k| (screaming(k.name()), number(*k as usize), format!("`\"{}\"`.", k.name()))).collect()
}

/// The constant rows of every result type, after `NONE` (not a result).
fn result_type_rows() -> Vec<(String, i32, String)> {
    let mut rows = vec![("NONE".to_string(), 0, "Not a result.".to_string())];
    rows.extend(
        ResultType::ALL.iter().map(|t| (screaming(t.name()), number(*t as usize), format!("`\"{}\"`.", t.name()))),
    );
    rows
}
