//! `cargo test` runs the corpus too: one test per case, named by its id.

use libtest_mimic::{Arguments, Failed, Trial};
use mrtr_conformance::{corpus_dir, load, run};

fn main() {
    let args = Arguments::from_args();
    let cases = load(&corpus_dir()).expect("the corpus loads");
    assert!(!cases.is_empty(), "the corpus has cases");
    let trials = cases
        .into_iter()
        .map(|case| Trial::test(case.id.clone(), move || run(&case).map_err(Failed::from)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
