//! `cargo test` runs the corpus too: one test per case, named by its id.

use libtest_mimic::{Arguments, Failed, Trial};
use mrtr_conformance::{corpus_dir, load, run, Case};

/// nextest runs each test as `--exact <id>`: then only that case's file is read.
fn cases(args: &Arguments) -> Vec<Case> {
    let dir = corpus_dir();
    if let (true, Some(id)) = (args.exact, args.filter.as_deref()) {
        let file = dir.join(format!("{id}.json"));
        if file.is_file() {
            return vec![mrtr_conformance::corpus::load_one(&file).expect("the case loads")];
        }
    }
    load(&dir).expect("the corpus loads")
}

fn main() {
    let args = Arguments::from_args();
    let cases = cases(&args);
    assert!(!cases.is_empty(), "the corpus has cases");
    let trials =
        cases.into_iter().map(|case| Trial::test(case.id.clone(), move || run(&case).map_err(Failed::from))).collect();
    libtest_mimic::run(&args, trials).exit();
}
