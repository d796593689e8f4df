//! The Rust conformance runner: every case of the corpus through the `mrtr`
//! crate's public API. Prints one line per failing case and a closing
//! `N passed, M failed`; exits non-zero on any failure or an empty corpus.

use mrtr_conformance::{corpus_dir, load, run};
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = corpus_dir();
    let cases = match load(&dir) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot load the corpus: {e}");
            return ExitCode::from(2);
        }
    };
    let mut failed = 0usize;
    for case in &cases {
        if let Err(why) = run(case) {
            failed += 1;
            println!("FAIL {}: {}", case.id, why.replace('\n', "\n     "));
        }
    }
    println!("{} passed, {} failed", cases.len() - failed, failed);
    if cases.is_empty() {
        eprintln!("no case found in {}", dir.display());
        return ExitCode::FAILURE;
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
