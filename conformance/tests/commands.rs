//! Every command of the crate answers `--version` and `-V` with its name and
//! version, and does nothing else (`mrtr-gen` writes no file for it).

use std::process::Command;

#[test]
fn every_command_answers_version() {
    let commands = [
        ("mrtr-conformance", env!("CARGO_BIN_EXE_mrtr-conformance")),
        ("mrtr-gen", env!("CARGO_BIN_EXE_mrtr-gen")),
        ("mrtr-corpus-lint", env!("CARGO_BIN_EXE_mrtr-corpus-lint")),
    ];
    for (name, path) in commands {
        for flag in ["--version", "-V"] {
            let out = Command::new(path).arg(flag).output().expect("runs");
            assert_eq!(out.status.code(), Some(0), "{name} {flag}");
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(text.trim(), format!("{name} {}", env!("CARGO_PKG_VERSION")), "{name} {flag}");
        }
    }
}
