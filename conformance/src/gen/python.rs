//! The generated files of the python binding: the type stubs of the enums and
//! exception classes that `bindings-python/python/mrtr/_enums.py` and
//! `_errors.py` make at import from the same tables (`mrtr._mrtr.catalogue()`).
//! The stubs give type checkers the members the runtime builds; a test of the
//! binding checks that both agree with the native module it is built with.

use mrtr::rules::{Area, RULES};
use mrtr::{protocol::Protocol, state::Algorithm, tasks::TaskStatus, Kind};
use std::fmt::Write;
use std::path::PathBuf;

const DIR: &str = "bindings-python/python/mrtr";

/// `(path, contents)` of each generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![(PathBuf::from(DIR).join("_enums.pyi"), enums()), (PathBuf::from(DIR).join("_errors.pyi"), errors())]
}

/// A member's Python name, as `_enums._ident` makes it from the value.
fn ident(value: &str) -> String {
    let ident = value.to_uppercase().replace(['-', '/'], "_");
    if ident.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{ident}")
    } else {
        ident
    }
}

fn head(what: &str) -> String {
    format!("# {} Source: core/src/base/rules.rs and the core's other tables.\n\"\"\"{what}\"\"\"\n\n", super::MARK)
}

/// One `class Name(_StrEnum)` with its members (`value`, trailing comment) and extra stub lines.
fn enum_class(s: &mut String, name: &str, doc: &str, members: &[(&str, String)], extra: &[&str]) {
    let _ = write!(s, "\nclass {name}(_StrEnum):\n    \"\"\"{doc}\"\"\"\n\n");
    for (value, comment) in members {
        let comment = if comment.is_empty() { String::new() } else { format!("  # {comment}") };
        let _ = writeln!(s, "    {} = {value:?}{comment}", ident(value));
    }
    for line in extra {
        let _ = writeln!(s, "    {line}");
    }
}

fn plain<'a>(values: impl Iterator<Item = &'a str>) -> Vec<(&'a str, String)> {
    values.map(|v| (v, String::new())).collect()
}

fn enums() -> String {
    let mut s = head("Type stubs of the ``str`` enums ``_enums.py`` makes at import from the core's catalogue.");
    s.push_str("from enum import Enum\nfrom typing import Any\n\n");
    s.push_str("class _StrEnum(str, Enum):  # type: ignore[misc]  # a base without members\n");
    s.push_str("    def __str__(self) -> str: ...\n    def __format__(self, spec: str) -> str: ...\n");
    let areas = plain(Area::ALL.iter().map(|a| a.name()));
    enum_class(
        &mut s,
        "Area",
        "The area of a rule: its exception class (``<Title>Error``) in every language.",
        &areas,
        &[],
    );
    let rules: Vec<(&str, String)> =
        RULES.iter().map(|r| (r.name, format!("{}, {}", r.id as u16, r.area.name()))).collect();
    let rule_extra = [
        "@property",
        "def number(self) -> int: ...",
        "@property",
        "def code(self) -> int | None: ...",
        "@property",
        "def source(self) -> str: ...",
        "@property",
        "def area(self) -> Area: ...",
    ];
    enum_class(&mut s, "Rule", "A rule of the core's catalogue; the value is its kebab-case id.", &rules, &rule_extra);
    let protocols = plain(Protocol::ALL.iter().map(|p| p.name()));
    let protocol_extra = ["def allows_input_required(self, method: str) -> bool: ..."];
    enum_class(
        &mut s,
        "Protocol",
        "A protocol the core speaks; the value is the name callers use.",
        &protocols,
        &protocol_extra,
    );
    let statuses = plain(TaskStatus::ALL.iter().map(|t| t.name()));
    let status_extra = [
        "@property",
        "def is_terminal(self) -> bool: ...",
        "def may_become(self, next: str) -> bool: ...",
        "def transition(self, next: str) -> TaskStatus: ...",
    ];
    enum_class(&mut s, "TaskStatus", "A task's status (both Tasks workflows).", &statuses, &status_extra);
    enum_class(
        &mut s,
        "Kind",
        "What a message is, as ``classify`` tells.",
        &plain(Kind::ALL.iter().map(|k| k.name())),
        &[],
    );
    let algorithms = plain(Algorithm::ALL.iter().map(|a| a.name()));
    enum_class(&mut s, "Algorithm", "The AEAD a sealing key uses.", &algorithms, &[]);
    s.push_str(
        "\nDEFAULT_PROTOCOL: Protocol\n_CATALOGUE: dict[str, Any]\n\ndef catalogue() -> dict[str, Any]: ...\n\n",
    );
    s.push_str(&all(&["Rule", "Area", "Protocol", "TaskStatus", "Kind", "Algorithm", "DEFAULT_PROTOCOL", "catalogue"]));
    s
}

/// `__all__`, one name a line.
fn all(names: &[&str]) -> String {
    names.iter().fold("__all__ = [\n".to_string(), |s, n| s + &format!("    {n:?},\n")) + "]\n"
}

fn errors() -> String {
    let mut s = head(
        "Type stubs of the exceptions ``_errors.py`` makes at import: one class per area of the core's catalogue.",
    );
    s.push_str("from typing import Any\n\nfrom ._enums import Rule\n\nclass MrtrError(Exception):\n");
    s.push_str(
        "    \"\"\"A core failure: ``rule``, ``code``, ``message``, and ``data`` (what a refusal's JSON-RPC error\n",
    );
    s.push_str("    carries for the peer to act on, or ``None``).\"\"\"\n\n");
    s.push_str("    rule: Rule\n    code: int | None\n    message: str\n    data: dict[str, Any] | None\n");
    s.push_str("    def __init__(\n        self, rule: Rule | str, code: int | None, message: str, data: dict[str, Any] | None = None\n");
    s.push_str("    ) -> None: ...\n");
    let mut names = vec!["MrtrError".to_string()];
    for area in Area::ALL {
        let name = format!("{}Error", area.title());
        // Python's idiom: a call its callee cannot take is a TypeError (see _errors.py).
        let bases = if area == Area::Usage { "MrtrError, TypeError" } else { "MrtrError" };
        let _ = write!(s, "\nclass {name}({bases}):\n    \"\"\"{} (area ``{}``)\"\"\"\n", area.summary(), area.name());
        names.push(name);
    }
    s.push_str("\ndef error_class(rule: Rule | str) -> type[MrtrError]: ...\n");
    s.push_str(
        "def _from_native(rule: str, area: str, code: int | None, message: str, data: str | None = None) -> MrtrError: ...\n\n",
    );
    names.push("error_class".into());
    s.push_str(&all(&names.iter().map(String::as_str).collect::<Vec<_>>()));
    s
}
