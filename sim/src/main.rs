//! `mrtr-sim`: runs seeded simulations of the whole MRTR system and judges
//! each run; a failing seed prints how to replay it (and, with `--shrink`, a
//! short schedule that still fails).

use mrtr_sim::instance::Flavor;
use mrtr_sim::schedule::FaultKind;
use mrtr_sim::shrink::shrink;
use mrtr_sim::world::Setup;
use mrtr_sim::{run_judged, Judged};
use std::collections::{BTreeMap, BTreeSet};
use std::process::ExitCode;
use std::time::Instant;

const HELP: &str = "\
mrtr-sim: a deterministic, seeded simulation of MCP Multi Round-Trip Requests

USAGE:
  mrtr-sim --seeds N [--from S] [--shrink]   run seeds S..S+N (S defaults to 0), judge each
  mrtr-sim --seed S [--trace] [--shrink]     run one seed; --trace prints every event

WHAT RUNS (with --seeds or --seed):
  --hedge             a third of the MRTR operations hedge their rounds (client Config::hedge)
  --sep               a third of the operations call over SEP-1858 or SEP-1335 (2025-11-25 continuations)
  --legacy            a sixth of the operations call in the legacy 2025-11-25 design (the contrast)
  --flavor F          correct (default), memo, unguarded, wrong-id: the server the instances run

A SCHEDULE (as a shrunk failure prints it, to replay it):
  --faults LIST       only these fault decisions may fire (comma-separated; \"\" for none)
  --clients N         clients (default: drawn from the seed)
  --without LIST      clients left out, by index (the others keep their operations)
  --ops N             operations per client (default: drawn from the seed)
  --instances N       instances (default: drawn from the seed)

  --version, --help

Exit status: 0 when every run passed every invariant, 1 when one failed, 2 on bad usage.
";

#[derive(Default)]
struct Args {
    seeds: Option<u64>,
    from: u64,
    seed: Option<u64>,
    trace: bool,
    shrink: bool,
    faults: Option<BTreeSet<u64>>,
    clients: Option<usize>,
    without: BTreeSet<u64>,
    ops: Option<usize>,
    instances: Option<usize>,
    flavor: Option<Flavor>,
    hedge: bool,
    sep: bool,
    legacy: bool,
}

fn parse() -> Result<Option<Args>, String> {
    let mut args = Args::default();
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{arg} needs a value"));
        let number = |v: String| v.parse::<u64>().map_err(|_| format!("{v:?} is no number"));
        match arg.as_str() {
            "--help" | "-h" => {
                print!("{HELP}");
                return Ok(None);
            }
            "--version" | "-V" => {
                println!("mrtr-sim {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            "--seeds" => args.seeds = Some(number(value()?)?),
            "--from" => args.from = number(value()?)?,
            "--seed" => args.seed = Some(number(value()?)?),
            "--trace" => args.trace = true,
            "--shrink" => args.shrink = true,
            "--hedge" => args.hedge = true,
            "--sep" => args.sep = true,
            "--legacy" => args.legacy = true,
            "--faults" => {
                let list = value()?;
                let parsed: Result<BTreeSet<u64>, _> =
                    list.split(',').filter(|s| !s.trim().is_empty()).map(|s| number(s.trim().to_string())).collect();
                args.faults = Some(parsed?);
            }
            "--clients" => args.clients = Some(number(value()?)? as usize),
            "--without" => {
                let list = value()?;
                for c in list.split(',').filter(|s| !s.trim().is_empty()) {
                    args.without.insert(number(c.trim().to_string())?);
                }
            }
            "--ops" => args.ops = Some(number(value()?)? as usize),
            "--instances" => args.instances = Some(number(value()?)? as usize),
            "--flavor" => {
                args.flavor = Some(match value()?.as_str() {
                    "correct" => Flavor::Correct,
                    "unguarded" => Flavor::Unguarded,
                    "wrong-id" => Flavor::WrongId,
                    "memo" => Flavor::Memo,
                    other => return Err(format!("no flavor {other:?}")),
                })
            }
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    if args.seeds.is_none() && args.seed.is_none() {
        return Err("give --seeds N or --seed S (see --help)".into());
    }
    Ok(Some(args))
}

fn setup(args: &Args, seed: u64) -> Setup {
    let mut setup = Setup::new(seed);
    setup.clients = args.clients.unwrap_or(setup.clients);
    setup.without = args.without.iter().map(|c| *c as usize).collect();
    setup.ops_per_client = args.ops.unwrap_or(setup.ops_per_client);
    setup.instances = args.instances.unwrap_or(setup.instances);
    setup.flavor = args.flavor.unwrap_or(setup.flavor);
    setup.allowed = args.faults.clone();
    setup.hedging = args.hedge;
    setup.sep = args.sep;
    setup.legacy = args.legacy;
    setup.trace = args.trace;
    setup
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(Some(args)) => args,
        Ok(None) => return ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mrtr-sim: {e}");
            return ExitCode::from(2);
        }
    };
    let passed = match args.seed {
        Some(seed) => one(&args, seed),
        None => many(&args),
    };
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Replays one seed, printing its trace when asked.
fn one(args: &Args, seed: u64) -> bool {
    let setup = setup(args, seed);
    let judged = run_judged(setup.clone());
    if let Some(report) = &judged.report {
        for line in &report.trace {
            println!("{line}");
        }
        println!(
            "seed {seed}: {} clients x {} ops, {} instances; {} faults fired; digest {:016x}; {} ms simulated",
            setup.clients,
            setup.ops_per_client,
            setup.instances,
            report.fired.len(),
            report.digest,
            report.end_ms
        );
        for fired in &report.fired {
            println!("  fault {fired}");
        }
        for f in &report.ops {
            println!("  {} {}: {:?}", f.client, f.run.spec.name, f.run.outcomes);
        }
    }
    if judged.passed() {
        println!("seed {seed}: every invariant held");
        return true;
    }
    failure(&setup, &judged);
    if args.shrink {
        shrunk(setup);
    }
    false
}

/// Runs a range of seeds and prints the totals.
fn many(args: &Args) -> bool {
    let count = args.seeds.unwrap_or(0);
    let started = Instant::now();
    let (mut failed, mut ops, mut complete, mut unseen) = (0u64, 0usize, 0usize, 0usize);
    let mut faults = [0u64; FaultKind::ALL.len()];
    let mut rules: BTreeMap<String, usize> = BTreeMap::new();
    let mut modes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for seed in args.from..args.from.saturating_add(count) {
        let setup = setup(args, seed);
        let judged = run_judged(setup.clone());
        if let Some(report) = &judged.report {
            ops += report.ops.len();
            for (total, n) in faults.iter_mut().zip(report.counts) {
                *total += n;
            }
        }
        complete += judged.verdict.complete;
        unseen += judged.verdict.unseen;
        for (rule, n) in &judged.verdict.rules {
            *rules.entry(rule.clone()).or_default() += n;
        }
        for (mode, (n, done)) in &judged.verdict.modes {
            let total = modes.entry(mode).or_default();
            (total.0, total.1) = (total.0 + n, total.1 + done);
        }
        if !judged.passed() {
            failed += 1;
            failure(&setup, &judged);
            if args.shrink && failed <= 3 {
                shrunk(setup);
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{count} seeds in {secs:.1} s ({:.0} seeds/s): {ops} operations, {complete} completed, {} ended with a rule, {unseen} committed but unseen",
        count as f64 / secs.max(1e-9),
        ops - complete,
    );
    let explored: Vec<String> = FaultKind::ALL.iter().zip(faults).map(|(k, n)| format!("{} {n}", k.name())).collect();
    println!("faults explored: {} ({} in all)", explored.join(", "), faults.iter().sum::<u64>());
    let per_mode: Vec<String> = modes.iter().map(|(m, (n, done))| format!("{m} {done}/{n} completed")).collect();
    println!("by mode: {}", per_mode.join(", "));
    let ended: Vec<String> = rules.iter().map(|(r, n)| format!("{r} {n}")).collect();
    println!("rules operations ended with: {}", if ended.is_empty() { "none".into() } else { ended.join(", ") });
    println!("{} passed, {failed} failed", count - failed);
    failed == 0
}

fn failure(setup: &Setup, judged: &Judged) {
    println!("FAILED seed {}:", setup.seed);
    for v in judged.verdict.violations.iter().take(12) {
        println!("  {v}");
    }
    println!("  replay: {}", replay_command(setup));
}

/// The command that replays `setup` exactly.
fn replay_command(setup: &Setup) -> String {
    let mut command = format!("cargo run -p mrtr-sim --release -- --seed {}", setup.seed);
    let drawn = Setup::new(setup.seed);
    if (setup.clients, setup.ops_per_client, setup.instances) != (drawn.clients, drawn.ops_per_client, drawn.instances)
    {
        command +=
            &format!(" --clients {} --ops {} --instances {}", setup.clients, setup.ops_per_client, setup.instances);
    }
    if !setup.without.is_empty() {
        let list: Vec<String> = setup.without.iter().map(usize::to_string).collect();
        command += &format!(" --without {}", list.join(","));
    }
    if let Some(allowed) = &setup.allowed {
        let list: Vec<String> = allowed.iter().map(u64::to_string).collect();
        command += &format!(" --faults \"{}\"", list.join(","));
    }
    if setup.hedging {
        command += " --hedge";
    }
    if setup.sep {
        command += " --sep";
    }
    if setup.legacy {
        command += " --legacy";
    }
    match setup.flavor {
        Flavor::Correct => {}
        Flavor::Unguarded => command += " --flavor unguarded",
        Flavor::WrongId => command += " --flavor wrong-id",
        Flavor::Memo => command += " --flavor memo",
    }
    command
}

fn shrunk(setup: Setup) {
    let Some(shrunk) = shrink(setup) else { return };
    println!("  shrunk in {} runs to:", shrunk.tries);
    if let Some(report) = &shrunk.judged.report {
        for fired in &report.fired {
            println!("    fault {fired}");
        }
    }
    for v in shrunk.judged.verdict.violations.iter().take(3) {
        println!("    {v}");
    }
    println!("  replay: {} --trace", replay_command(&shrunk.setup));
}
