#!/usr/bin/env bash
# The deterministic simulation (crate mrtr-sim, sim/): 10,000 seeds of the whole
# MRTR system (clients, a balancer, instances, a store, and faults between them)
# in a release build, every run judged by the invariants of docs/simulation.md,
# 2,000 more with the legacy design among the operations, then the crate's
# tests (the simulation catches a broken server, replays a seed exactly,
# shrinks a failure; and 10,000 seeds each of the default mix, hedged rounds
# and the SEP-1858/1335 streams).
# A failing seed prints itself and the command that replays it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

echo "== Simulation: 10,000 seeds (release)"
start=$(date +%s)
cargo run -q -p mrtr-sim --release -- --seeds 10000
echo "(10,000 seeds, build included: $(( $(date +%s) - start )) s)"
echo "== Simulation: 2,000 seeds with the legacy 2025-11-25 design among the operations (the contrast: it fails, safely)"
cargo run -q -p mrtr-sim --release -- --seeds 2000 --legacy
echo "== Simulation: the crate's tests (release: 10,000 seeds each of the default mix, hedged rounds and the SEP streams)"
cargo test -q -p mrtr-sim --release
