//! The Rust conformance runner and the judge of every runner.
//!
//! - `mrtr-conformance run`: every case of the corpus through the `mrtr`
//!   crate's public API; prints one outcome line per case (see
//!   `mrtr_conformance::judge` for the format).
//! - `mrtr-conformance judge [--name LANG]`: reads a runner's outcome lines on
//!   stdin, compares them with the corpus's expectations, prints one line per
//!   failing case and a closing `N passed, M failed`; exits non-zero on any
//!   failure or an empty corpus.
//!
//! The corpus is `MRTR_CONFORMANCE_DIR`, or this crate's `cases/`.

use mrtr_conformance::{corpus_dir, judge::judge, load, outcome};
use serde_json::json;
use std::io::{Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = corpus_dir();
    let cases = match load(&dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot load the corpus: {e}");
            return ExitCode::from(2);
        }
    };
    match args.first().map(String::as_str) {
        Some("run") => run(&cases),
        Some("judge") => {
            let name = args.iter().position(|a| a == "--name").and_then(|i| args.get(i + 1));
            judge_stdin(&cases, name.map_or("runner", String::as_str), &dir)
        }
        _ => {
            eprintln!("usage: mrtr-conformance run | judge [--name LANG]");
            ExitCode::from(2)
        }
    }
}

fn run(cases: &[mrtr_conformance::Case]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    for case in cases {
        let line = match outcome(&case.op, &case.input) {
            Ok(o) => json!({"id": case.id, "outcome": o}),
            Err(why) => json!({"id": case.id, "crash": why}),
        };
        if writeln!(out, "{line}").is_err() {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn judge_stdin(cases: &[mrtr_conformance::Case], name: &str, dir: &std::path::Path) -> ExitCode {
    let mut output = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut output) {
        eprintln!("{name}: cannot read the runner's output: {e}");
        return ExitCode::from(2);
    }
    let verdict = judge(cases, &output);
    for f in &verdict.failures {
        println!("FAIL {}", f.replace('\n', "\n     "));
    }
    println!("{} passed, {} failed", verdict.passed, verdict.failures.len());
    if cases.is_empty() {
        eprintln!("no case found in {}", dir.display());
        return ExitCode::FAILURE;
    }
    if verdict.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
