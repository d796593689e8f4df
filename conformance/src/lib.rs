//! The Rust runner of the mrtr conformance corpus (`conformance/cases`), and
//! the pieces the corpus lint and the `mrtr check` command share.
//!
//! The runner drives the public API of the `mrtr` crate only, as every other
//! language's runner drives its binding: a case says which op, with which
//! input, and what must come out (see `conformance/README.md`).

pub mod corpus;
pub mod embed;
pub mod gen;
pub mod judge;
pub mod ops;
pub mod transcript;

pub use corpus::{corpus_dir, load, Case};
pub use ops::{outcome, run};

/// `--version` (or `-V`) among the arguments of the crate's commands: prints
/// `NAME VERSION` and gives the exit status to end with; `None` otherwise.
pub fn version_asked(name: &str) -> Option<std::process::ExitCode> {
    let asked = std::env::args().skip(1).any(|a| a == "--version" || a == "-V");
    asked.then(|| {
        println!("{name} {}", env!("CARGO_PKG_VERSION"));
        std::process::ExitCode::SUCCESS
    })
}
