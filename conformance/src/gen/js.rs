//! `bindings-node/lib/tables.d.ts`: the declarations of the tables and the
//! error classes of the JavaScript API (the Node package and the wasm package
//! share it), made from the core's tables. `bindings-node/index.d.ts` (written
//! by hand) re-exports it; at run time `lib/api.mjs` builds the same tables
//! and classes from `facade::catalogue()`.

use mrtr::rules::{Area, RULES};
use mrtr::{state::Algorithm, tasks::TaskStatus, Kind, Protocol, ResultType};
use std::fmt::{Debug, Write};
use std::path::PathBuf;

/// `(path, contents)` of each generated file.
pub fn outputs() -> Vec<(PathBuf, String)> {
    vec![(PathBuf::from("bindings-node/lib/tables.d.ts"), tables_d_ts())]
}

/// `text` as a one-line JSDoc comment.
fn doc(text: &str) -> String {
    format!("/** {} */", text.replace("*/", "*\\/"))
}

/// `export declare const NAME: { readonly Key: 'value' … }`.
fn table<T: Debug + Copy>(out: &mut String, comment: &str, name: &str, all: &[T], value: impl Fn(T) -> &'static str) {
    let _ = writeln!(out, "\n{}\nexport declare const {name}: {{", doc(comment));
    for v in all {
        let _ = writeln!(out, "  readonly {v:?}: '{}'", value(*v));
    }
    out.push_str("}\n");
}

fn tables_d_ts() -> String {
    let mut s = format!("// {} Source: core/src/base/rules.rs, protocol.rs, tasks.rs, envelope.rs.\n", super::MARK);
    s.push_str("import { MrtrError } from '../index.js'\n\n");
    s.push_str("/** Every rule id of the core's catalogue, by the core's variant name. */\n");
    s.push_str("export declare const Rule: {\n");
    for r in RULES {
        let _ = writeln!(s, "  {}\n  readonly {:?}: '{}'", doc(r.id.text()), r.id, r.name);
    }
    s.push_str("}\n/** A rule id (`'retry-id-reused'`). */\nexport type RuleId = (typeof Rule)[keyof typeof Rule]\n");
    union(&mut s, "The area of a rule: the error class it raises.", "AreaName", Area::ALL.iter().map(|a| a.name()));
    for a in Area::ALL {
        let rules: Vec<&str> = a.rules().map(|r| r.name).collect();
        let _ = writeln!(s, "\n{}", doc(&format!("{} Rules: {}.", a.summary(), rules.join(", "))));
        let _ = writeln!(s, "export declare class {}Error extends MrtrError {{}}", a.title());
    }
    table(&mut s, "The protocols mrtr speaks. The default is the first.", "Protocol", &Protocol::ALL, Protocol::name);
    table(&mut s, "A task's status.", "TaskStatus", &TaskStatus::ALL, TaskStatus::name);
    table(&mut s, "What a message is.", "Kind", &Kind::ALL, Kind::name);
    union(&mut s, "The `resultType` of a result.", "ResultTypeName", ResultType::ALL.iter().map(|t| t.name()));
    union(&mut s, "A sealing key's algorithm.", "AlgorithmName", Algorithm::ALL.iter().map(|a| a.name()));
    s
}

/// `export type NAME = 'a' | 'b' …`.
fn union<'a>(out: &mut String, comment: &str, name: &str, values: impl Iterator<Item = &'a str>) {
    let values: Vec<String> = values.map(|v| format!("'{v}'")).collect();
    let _ = writeln!(out, "\n{}\nexport type {name} = {}", doc(comment), values.join(" | "));
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_rule_and_area_is_declared() {
        let d = super::tables_d_ts();
        for r in mrtr::rules::RULES {
            assert!(d.contains(&format!("readonly {:?}: '{}'", r.id, r.name)), "{}", r.name);
        }
        assert!(d.contains("export declare class PanicError extends MrtrError {}"));
        assert!(d.starts_with(&format!("// {}", super::super::MARK)));
    }
}
