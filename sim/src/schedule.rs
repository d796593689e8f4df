//! The fault schedule: every fault of a run is one decision drawn from its
//! own random stream, numbered in the order it was asked.
//!
//! Faults are apart from every other random choice (latencies, which
//! instance the balancer picks, the user's think time) so that a run can be
//! replayed with some of its faults *withheld*: [`Faults::with_allowed`] lets
//! only the listed decisions fire. That is what shrinking searches over, and
//! what `--faults` replays. A withheld fault changes what happens after it, so
//! the decisions asked later may be other ones; the run stays deterministic
//! all the same (same seed, same allowed set, same trace), which is all that
//! replaying and shrinking need.

use std::collections::BTreeSet;
use std::fmt;

/// What can go wrong, one kind per decision point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultKind {
    /// A request is lost on its way to the balancer: the client's connection
    /// times out with no response.
    DropRequest,
    /// A request reaches the balancer twice (a retrying proxy): the second
    /// copy's response goes nowhere.
    DuplicateRequest,
    /// A request is held back long enough to be overtaken.
    DelayRequest,
    /// A response is lost after the instance sent it.
    DropResponse,
    /// A response is held back long enough to be overtaken.
    DelayResponse,
    /// A response stops mid-body: its head and part of its body arrive, then
    /// the connection closes.
    CutBody,
    /// The instance dies after the request spent its state, before any side
    /// effect.
    CrashBeforeEffect,
    /// The instance dies after the side effect was committed, before the
    /// answer is sent.
    CrashAfterEffect,
    /// The instance stops answering for a while (a long GC pause, a full
    /// disk), then goes on with what queued.
    Hang,
    /// The store goes away for a while and comes back with everything it had
    /// committed (an append-only file).
    StoreRestart,
    /// The client's host dies and comes back: its operation is restored from
    /// a snapshot, its open exchanges lost.
    ClientRestart,
    /// An instance (at its start or restart) keeps a clock up to 5 s off.
    ClockSkew,
}

impl FaultKind {
    /// Every kind, in the order counts are printed.
    pub const ALL: [FaultKind; 12] = [
        FaultKind::DropRequest,
        FaultKind::DuplicateRequest,
        FaultKind::DelayRequest,
        FaultKind::DropResponse,
        FaultKind::DelayResponse,
        FaultKind::CutBody,
        FaultKind::CrashBeforeEffect,
        FaultKind::CrashAfterEffect,
        FaultKind::Hang,
        FaultKind::StoreRestart,
        FaultKind::ClientRestart,
        FaultKind::ClockSkew,
    ];

    /// Its name in counts and schedules.
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::DropRequest => "drop-request",
            FaultKind::DuplicateRequest => "duplicate-request",
            FaultKind::DelayRequest => "delay-request",
            FaultKind::DropResponse => "drop-response",
            FaultKind::DelayResponse => "delay-response",
            FaultKind::CutBody => "cut-body",
            FaultKind::CrashBeforeEffect => "crash-before-effect",
            FaultKind::CrashAfterEffect => "crash-after-effect",
            FaultKind::Hang => "hang",
            FaultKind::StoreRestart => "store-restart",
            FaultKind::ClientRestart => "client-restart",
            FaultKind::ClockSkew => "clock-skew",
        }
    }

    fn index(self) -> usize {
        FaultKind::ALL.iter().position(|k| *k == self).unwrap_or(0)
    }
}

/// One fault that fired: its decision number, when, what, and on what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fired {
    /// The decision's number in the run (what `--faults` lists).
    pub decision: u64,
    /// Simulated milliseconds.
    pub at: u64,
    /// The kind.
    pub kind: FaultKind,
    /// What it hit (an operation, an instance), for the reader.
    pub target: String,
}

impl fmt::Display for Fired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{} t={}ms {} {}", self.decision, self.at, self.kind.name(), self.target)
    }
}

/// The fault decisions of one run.
#[derive(Debug)]
pub struct Faults {
    rng: fastrand::Rng,
    /// The chance of each kind at each of its decision points.
    rates: [f64; FaultKind::ALL.len()],
    /// Only these decisions may fire (`None`: any).
    allowed: Option<BTreeSet<u64>>,
    next: u64,
    fired: Vec<Fired>,
}

impl Faults {
    /// The faults of the run `seed`, at the rates the seed draws (some runs
    /// have none at all: they check that a fault-free run completes).
    pub fn new(seed: u64) -> Faults {
        let mut rng = fastrand::Rng::with_seed(seed ^ 0x0fa0_17fa_0175_eed5);
        let level = [0.0, 0.0, 0.01, 0.03, 0.06, 0.12][rng.usize(..6)];
        let mut rates = [0.0; FaultKind::ALL.len()];
        for (i, rate) in rates.iter_mut().enumerate() {
            // Each kind at the run's level, some kinds switched off, so that runs
            // differ in what they mix.
            let scale = if rng.u8(..4) == 0 { 0.0 } else { 0.5 + rng.f64() };
            // Crashes, hangs and restarts are rarer than packet faults; a client's
            // host is asked at every part it receives, so rarer still.
            let rare = match FaultKind::ALL[i] {
                FaultKind::ClientRestart => 0.1,
                FaultKind::ClockSkew => 5.0,
                k if k >= FaultKind::CrashBeforeEffect => 0.5,
                _ => 1.0,
            };
            *rate = level * scale * rare;
        }
        Faults { rng, rates, allowed: None, next: 0, fired: Vec::new() }
    }

    /// The run `seed` with only the decisions in `allowed` able to fire.
    pub fn with_allowed(seed: u64, allowed: BTreeSet<u64>) -> Faults {
        Faults { allowed: Some(allowed), ..Faults::new(seed) }
    }

    /// A run with no faults at all, whatever the seed.
    pub fn none(seed: u64) -> Faults {
        Faults::with_allowed(seed, BTreeSet::new())
    }

    /// Asks whether a fault of `kind` hits `target` at `at`: one draw, whatever
    /// the answer, so that decision numbers stay put when one is withheld.
    pub fn roll(&mut self, kind: FaultKind, at: u64, target: impl FnOnce() -> String) -> bool {
        self.roll_if(kind, at, target, || true)
    }

    /// [`roll`](Faults::roll), the fault firing only where `possible` says it
    /// can (asked only when it would fire: it may be costly).
    pub fn roll_if(
        &mut self,
        kind: FaultKind,
        at: u64,
        target: impl FnOnce() -> String,
        possible: impl FnOnce() -> bool,
    ) -> bool {
        let decision = self.next;
        self.next += 1;
        let hit = self.rng.f64() < self.rates[kind.index()];
        let fires = hit && self.allowed.as_ref().is_none_or(|a| a.contains(&decision)) && possible();
        if fires {
            self.fired.push(Fired { decision, at, kind, target: target() });
        }
        fires
    }

    /// The faults that fired, in order.
    pub fn fired(&self) -> &[Fired] {
        &self.fired
    }

    /// How many of each kind fired.
    pub fn counts(&self) -> [u64; FaultKind::ALL.len()] {
        let mut counts = [0; FaultKind::ALL.len()];
        for f in &self.fired {
            counts[f.kind.index()] += 1;
        }
        counts
    }
}
