//! Every row of the core's export table is in every binding, under the name
//! `docs/exports.md` gives it, or listed there as left out with its reason.
//! Each binding is read in the artifact its users get: the napi addon's
//! types (`bindings-node/native.d.ts`), the C header, the Kotlin UniFFI
//! generates, the Python stubs (`_mrtr.pyi`). The wasm backend is generated
//! from the table whole (and held to the napi one by `scripts/export-gaps`).

use mrtr_conformance::gen::exports::names::{left_out, name_in};
use mrtr_facade::exports::{Binding, Export, Receiver, EXPORTS};
use std::path::Path;

fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text of the block that opens at the line starting with `opening`
/// (a class's body), up to its closing line `closing`; empty when absent.
fn block<'t>(text: &'t str, opening: &str, closing: &str) -> &'t str {
    let Some(start) = text.find(opening) else { return "" };
    let rest = &text[start..];
    &rest[..rest.find(closing).unwrap_or(rest.len())]
}

/// Whether `text` holds an identifier `word` followed by `after`.
fn has_call(text: &str, word: &str, after: &str) -> bool {
    text.match_indices(&format!("{word}{after}")).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Whether the artifact of `binding` exports the row under `name`.
fn exported(binding: Binding, e: &Export, name: &str, artifact: &str) -> bool {
    let machine = e.machine.unwrap_or_default();
    let member = name.split_once('.').map_or(name, |(_, member)| member);
    match binding {
        Binding::Napi => match e.receiver {
            Receiver::Free => has_call(artifact, &format!("export declare function {member}"), "("),
            _ => has_call(block(artifact, &format!("export declare class {machine} "), "\n}"), member, "("),
        },
        Binding::C => has_call(artifact, name, "("),
        Binding::Uniffi => match e.receiver {
            Receiver::Free => artifact.contains(&format!("fun `{member}`(")),
            Receiver::New => artifact.contains(&format!("open class {machine}:")),
            // Generated Kotlin closes inner blocks at column 0: a class runs to the next one.
            _ => block(artifact, &format!("open class {machine}:"), "\nopen class ")
                .contains(&format!("fun `{member}`(")),
        },
        Binding::Python => match (e.receiver, machine) {
            (Receiver::Free, "") => has_call(artifact, &format!("def {member}"), "("),
            _ => {
                has_call(block(artifact, &format!("\nclass {machine}"), "\n\n\nclass "), &format!("def {member}"), "(")
            }
        },
        Binding::Wasm => true,
    }
}

#[test]
fn every_row_is_in_every_binding_or_says_why_not() {
    let artifacts = [
        (Binding::Napi, read("bindings-node/native.d.ts")),
        (Binding::C, read("bindings-ffi/include/mrtr.h")),
        (Binding::Uniffi, read("bindings-ffi/uniffi/generated/kotlin/mrtr/mrtr_uniffi.kt")),
        (Binding::Python, read("bindings-python/python/mrtr/_mrtr.pyi")),
    ];
    let mut missing = Vec::new();
    for e in EXPORTS {
        for (binding, artifact) in &artifacts {
            if left_out(*binding, e).is_none() {
                let name = name_in(*binding, e);
                if !exported(*binding, e, &name, artifact) {
                    missing.push(format!("{binding:?}: {name} ({}.{})", e.machine.unwrap_or("-"), e.name));
                }
            }
        }
    }
    assert!(missing.is_empty(), "rows not exported, and not listed as left out:\n{}", missing.join("\n"));
}

/// The check itself fails on a name that is not there (so that a green run means something).
#[test]
fn a_missing_name_is_found_missing() {
    let header = read("bindings-ffi/include/mrtr.h");
    let row = EXPORTS.iter().find(|e| e.name == "complete" && e.machine.is_none()).expect("a complete row");
    assert!(exported(Binding::C, row, "mrtr_complete", &header));
    assert!(!exported(Binding::C, row, "mrtr_complete_nowhere", &header));
    let types = read("bindings-node/native.d.ts");
    let method = EXPORTS.iter().find(|e| e.machine == Some("Operation") && e.name == "answer").expect("a row");
    assert!(exported(Binding::Napi, method, "Operation.answer", &types));
    assert!(!exported(Binding::Napi, method, "Operation.answerNowhere", &types));
}

#[test]
fn every_shape_names_a_json_parameter_of_its_row_or_its_answer() {
    use mrtr_facade::exports::{Arg, Ret};
    let mut faults = Vec::new();
    for e in EXPORTS {
        for (i, (name, _)) in e.shapes.iter().enumerate() {
            let row = format!("{}.{}", e.machine.unwrap_or("-"), e.name);
            if e.shapes[..i].iter().any(|(n, _)| n == name) {
                faults.push(format!("{row}: {name} shaped twice"));
            }
            let fits = match *name {
                "return" => !matches!(e.ret, Ret::Unit | Ret::Refusal | Ret::Bool | Ret::Count | Ret::OptMillis),
                _ => e.params.iter().any(|(n, a)| n == name && !matches!(a, Arg::Bool | Arg::Bytes | Arg::Random)),
            };
            if !fits {
                faults.push(format!("{row}: no JSON parameter or answer named {name}"));
            }
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

/// A value of what a settings field holds, that its reader accepts.
fn sample(holds: mrtr_facade::records::Holds) -> serde_json::Value {
    use mrtr_facade::records::Holds;
    use serde_json::json;
    match holds {
        Holds::Mode | Holds::Protocol => json!("2026-07-28"),
        Holds::Transport => json!("sep-1858"),
        Holds::ErrorCodes => json!("draft"),
        Holds::Text => json!("http://127.0.0.1:9/mcp"),
        Holds::Headers => json!({"x-trace": "1"}),
        Holds::Limits => json!({"maxDepth": 64}),
        Holds::Whole | Holds::Count | Holds::Handle => json!(3),
        Holds::Flag => json!(true),
        Holds::Names => json!(["2026-07-28"]),
        Holds::Object | Holds::Message | Holds::Questions => json!({"name": "t", "version": "1"}),
        Holds::Rule => json!("jsonrpc-invalid"),
        Holds::Method => json!("POST"),
        Holds::Messages | Holds::Json => json!([]),
        Holds::Digest => json!("ab".repeat(32)),
    }
}

/// Reads `config` (JSON text) as the façade reads the settings of `shape`.
fn read_settings(shape: mrtr_facade::exports::Shape, config: &[u8]) -> mrtr::Result<()> {
    use mrtr_facade::{self as facade, exports::Shape};
    const REQUEST: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#;
    match shape {
        Shape::CallConfig => facade::HttpCall::new(config, REQUEST, 0).map(drop),
        Shape::OperationConfig => facade::Operation::new(config, REQUEST, 0).map(drop),
        Shape::SessionConfig => facade::Session::new(config).map(drop),
        Shape::BridgeConfig => facade::ToolBridge::new(REQUEST, "0123456789abcdef", config).map(drop),
        Shape::Options | Shape::ClientConfig | Shape::CheckConfig => facade::Options::from_json(config).map(drop),
        Shape::Limits => facade::Options::from_json(&[br#"{"limits":"#, config, b"}"].concat()).map(drop),
        other => panic!("no reader for the settings of {other:?}"),
    }
}

#[test]
fn every_settings_reader_takes_exactly_the_fields_of_its_row() {
    use mrtr_facade::settings::SETTINGS;
    for s in SETTINGS {
        let mut all = serde_json::Map::new();
        for f in s.all_fields() {
            all.insert(f.name.into(), sample(f.holds));
        }
        let text = serde_json::Value::Object(all.clone()).to_string();
        read_settings(s.shape, text.as_bytes()).unwrap_or_else(|e| panic!("{}: every field: {e}", s.name));
        all.insert("noSuchField".into(), 1.into());
        let text = serde_json::Value::Object(all).to_string();
        let refused = read_settings(s.shape, text.as_bytes()).expect_err(s.name);
        assert_eq!(refused.rule(), mrtr::RuleId::UsageInvalidArgument, "{}: {refused}", s.name);
    }
}
