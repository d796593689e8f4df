//! # mrtr-sim — the whole MRTR system, simulated deterministically
//!
//! One `u64` seed drives a run of N clients (each running
//! [`mrtr::client::Operation`]s of an await-style tool that asks one to three
//! rounds), a balancer, M instances (the tool replayed over sealed rounds,
//! single-use states, a completion store) and a shared store, on one
//! simulated clock, with faults: lost, doubled, delayed and cut messages,
//! instances that crash or hang and come back with a rotated key, a store
//! that restarts. After each run the [`invariants`] judge what happened.
//! A failing seed replays exactly, and [`shrink`] cuts its schedule down.
//!
//! See `docs/simulation.md`.

pub mod client;
pub mod instance;
pub mod invariants;
pub mod legacy;
pub mod net;
pub mod schedule;
pub mod sep;
pub mod shrink;
pub mod store;
pub mod tasks;
pub mod tool;
pub mod world;

use std::panic::{catch_unwind, AssertUnwindSafe};

/// The outcome of one judged run.
#[derive(Debug)]
pub struct Judged {
    /// The run (`None`: it panicked).
    pub report: Option<world::Report>,
    /// The verdict (a panic is one violation).
    pub verdict: invariants::Verdict,
}

impl Judged {
    /// Whether every invariant held.
    pub fn passed(&self) -> bool {
        self.verdict.violations.is_empty()
    }
}

/// Runs `setup` and judges it; a panic anywhere is a violation, not an abort.
pub fn run_judged(setup: world::Setup) -> Judged {
    match catch_unwind(AssertUnwindSafe(|| world::run(setup))) {
        Ok(report) => {
            let verdict = invariants::judge(&report);
            Judged { report: Some(report), verdict }
        }
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic".into());
            let verdict = invariants::Verdict { violations: vec![format!("panic: {text}")], ..Default::default() };
            Judged { report: None, verdict }
        }
    }
}
