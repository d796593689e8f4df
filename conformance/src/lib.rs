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
