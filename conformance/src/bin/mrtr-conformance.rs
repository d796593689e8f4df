//! The Rust conformance runner and the judge of every runner.
//!
//! - `mrtr-conformance run`: every case of the corpus through the `mrtr`
//!   crate's public API; prints one outcome line per case (see
//!   `mrtr_conformance::judge` for the format).
//! - `mrtr-conformance cases-c`: the corpus's `classify` cases as C source
//!   (for the `embedded` runner's firmware: `mrtr_conformance::embed`).
//! - `mrtr-conformance judge [--name LANG]`: reads a runner's outcome lines on
//!   stdin, compares them with the corpus's expectations, prints one line per
//!   failing case, the cases left out when the runner declared the ops it
//!   covers, and a closing `N passed, M failed`; exits non-zero on any failure
//!   or an empty corpus.
//!
//! The corpus is `MRTR_CONFORMANCE_DIR`, or this crate's `cases/`.

use mrtr_conformance::{corpus_dir, judge::judge, load, outcome};
use serde_json::json;
use std::io::{Read, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    if let Some(code) = mrtr_conformance::version_asked("mrtr-conformance") {
        return code;
    }
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
        Some("cases-c") => match mrtr_conformance::embed::classify_cases_c(&cases) {
            Ok(c) => {
                print!("{c}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("cannot embed the corpus: {e}");
                ExitCode::from(2)
            }
        },
        Some("judge") => {
            let name = args.iter().position(|a| a == "--name").and_then(|i| args.get(i + 1));
            judge_stdin(&cases, name.map_or("runner", String::as_str), &dir)
        }
        _ => {
            eprintln!("usage: mrtr-conformance run | cases-c | judge [--name LANG]");
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
    if verdict.left_out_count() > 0 {
        let by_op: Vec<String> = verdict.left_out.iter().map(|(op, n)| format!("{op} {n}")).collect();
        let why = verdict.why.as_deref().map_or(String::new(), |w| format!(" ({w})"));
        println!("{name}: left out {} cases of other ops{why}: {}", verdict.left_out_count(), by_op.join(", "));
    }
    println!("{} passed, {} failed", verdict.passed, verdict.failures.len());
    if cases.len() == verdict.left_out_count() {
        eprintln!("no case found in {} (of the ops the runner covers)", dir.display());
        return ExitCode::FAILURE;
    }
    if verdict.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
