//! Shrinking a failing run to a short schedule that still fails.
//!
//! A run is its [`Setup`]: the seed, the shape (clients, operations,
//! instances) and the fault decisions allowed to fire. Shrinking first pins
//! the allowed set to the faults that fired (the same run), then tries, in
//! turn, fewer clients, fewer operations per client, fewer instances, and
//! fewer faults (halves, quarters, … single ones, as delta debugging does),
//! keeping each change under which the run still fails the same way. Each
//! try is a whole deterministic run, so the result replays exactly with
//! `--seed S --faults LIST` and the shape flags.

use crate::world::Setup;
use crate::{run_judged, Judged};
use std::collections::BTreeSet;

/// What a failure is, for "still fails the same way": its first violation
/// with the operation's name and every number taken out.
pub fn signature(judged: &Judged) -> Option<String> {
    let first = judged.verdict.violations.first()?;
    let text = first.split_once(": ").filter(|(op, _)| op.starts_with('c')).map_or(first.as_str(), |(_, t)| t);
    Some(text.chars().filter(|c| !c.is_ascii_digit()).take(48).collect())
}

/// The shrunk setup, its run, and how many runs the search took.
#[derive(Debug)]
pub struct Shrunk {
    /// The smallest failing setup found.
    pub setup: Setup,
    /// Its run.
    pub judged: Judged,
    /// Runs made.
    pub tries: usize,
}

/// Shrinks `setup`, which must fail.
pub fn shrink(setup: Setup) -> Option<Shrunk> {
    let first = run_judged(setup.clone());
    let want = signature(&first)?;
    let mut best = pin(setup, &first);
    let mut judged = first;
    let mut tries = 1;
    let mut attempt = |candidate: Setup, best: &mut Setup, judged: &mut Judged| -> bool {
        tries += 1;
        let run = run_judged(candidate.clone());
        if signature(&run).as_deref() != Some(want.as_str()) {
            return false;
        }
        *best = pin(candidate, &run);
        *judged = run;
        true
    };
    loop {
        let mut progressed = false;
        for shape in smaller_shapes(&best) {
            if attempt(shape, &mut best, &mut judged) {
                progressed = true;
                break;
            }
        }
        progressed |= drop_faults(&mut best, &mut judged, &mut attempt);
        if !progressed {
            break;
        }
    }
    Some(Shrunk { setup: best, judged, tries })
}

/// `setup` with only the faults that fired in `run` allowed: the same run.
fn pin(mut setup: Setup, run: &Judged) -> Setup {
    if let Some(report) = &run.report {
        setup.allowed = Some(report.fired.iter().map(|f| f.decision).collect());
    }
    setup
}

/// One fewer client (the last, or any one left out), operation per
/// client, or instance.
fn smaller_shapes(setup: &Setup) -> Vec<Setup> {
    let mut out = Vec::new();
    let running: Vec<usize> = (0..setup.clients).filter(|c| !setup.without.contains(c)).collect();
    if running.len() > 1 {
        out.push(Setup { clients: setup.clients - 1, ..setup.clone() });
        for c in running {
            let mut without = setup.without.clone();
            without.insert(c);
            out.push(Setup { without, ..setup.clone() });
        }
    }
    if setup.ops_per_client > 1 {
        out.push(Setup { ops_per_client: setup.ops_per_client - 1, ..setup.clone() });
    }
    if setup.instances > 1 {
        out.push(Setup { instances: setup.instances - 1, ..setup.clone() });
    }
    out
}

/// Delta debugging over the allowed faults: removes chunks, from half of
/// them down to one at a time, while the run still fails. Whether any went.
fn drop_faults(
    best: &mut Setup,
    judged: &mut Judged,
    attempt: &mut impl FnMut(Setup, &mut Setup, &mut Judged) -> bool,
) -> bool {
    let mut progressed = false;
    let mut chunk = best.allowed.as_ref().map_or(0, BTreeSet::len).div_ceil(2);
    while chunk > 0 {
        let allowed: Vec<u64> = best.allowed.iter().flatten().copied().collect();
        let mut removed = false;
        for start in (0..allowed.len()).step_by(chunk) {
            let kept: BTreeSet<u64> = allowed
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < start || *i >= start + chunk)
                .map(|(_, d)| *d)
                .collect();
            if attempt(Setup { allowed: Some(kept), ..best.clone() }, best, judged) {
                removed = true;
                progressed = true;
                break;
            }
        }
        if !removed {
            chunk /= 2;
        }
    }
    progressed
}
