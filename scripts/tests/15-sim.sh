#!/usr/bin/env bash
# The deterministic simulation (crate mrtr-sim, sim/): the crate's tests in a
# release build (the simulation catches a broken server, replays a seed exactly,
# shrinks a failure; and seeds 0..10,000 of the whole MRTR system — clients, a
# balancer, instances, a store, and faults between them — each of the default
# mix, hedged rounds and the SEP-1858/1335 streams, 1,000 with the legacy
# design, every run judged by the invariants of docs/simulation.md), then the
# command a reader replays a seed with, on seeds the tests do not run: 500 of
# the default mix from 10,000 and 400 with the legacy design from 1,000.
# A failing seed prints itself and the command that replays it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

echo "== Simulation: the crate's tests (release: seeds 0..10,000 each of the default mix, hedged rounds and the SEP streams)"
cargo test -q -p mrtr-sim --release
echo "== Simulation: the command, on seeds the tests do not run: 10,000..10,500 (release)"
cargo run -q -p mrtr-sim --release -- --seeds 500 --from 10000
echo "== Simulation: seeds 1,000..1,400 with the legacy 2025-11-25 design among the operations (the contrast: it fails, safely)"
cargo run -q -p mrtr-sim --release -- --seeds 400 --from 1000 --legacy
