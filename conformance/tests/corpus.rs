//! `cargo test` runs the corpus too: one test per case, named by its id, and
//! each `classify` case a second time through the no-allocator path
//! (`mrtr::bare::classify`), named `bare/<id>`.

use libtest_mimic::{Arguments, Failed, Trial};
use mrtr_conformance::{corpus_dir, load, ops, run, Case};

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
    let bare: Vec<Trial> = cases
        .iter()
        .filter(|case| case.op == "classify")
        .cloned()
        .map(|case| {
            Trial::test(format!("bare/{}", case.id), move || {
                let actual = ops::bare_classify(&case.input);
                ops::compare("classify", &case.expect, &actual)
                    .map_err(|why| Failed::from(format!("{why}\n  expected: {}\n  actual:   {actual}", case.expect)))
            })
        })
        .collect();
    let trials = cases.into_iter().map(|case| Trial::test(case.id.clone(), move || run(&case).map_err(Failed::from)));
    libtest_mimic::run(&args, trials.chain(bare).collect()).exit();
}
