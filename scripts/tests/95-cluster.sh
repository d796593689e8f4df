#!/usr/bin/env bash
# The cluster: multi-round calls behind round-robin nginx over instances on
# both bindings sharing Redis (with a password), with an instance killed and
# restarted with a rotated key, Redis restarted and another instance hung for
# 8 s mid-run (scripts/cluster: 1000 operations, 200 at a time, in each of its
# two runs; about a minute). The mrtr mode's rounds are hedged (the client
# Operation's hedgeAfterMs/maxHedges), and the run fails if mrtr's faulted p99
# exceeds 2x max(baseline p99, 1000 ms): at 200 in flight on a small shared
# machine the baseline's own p99 varies 0.7-1.9 s from run to run, hence the
# 1 s floor (scripts/cluster's default, for its lighter default load, is 600 ms).
# Its faulted run first checks that Redis refuses a
# client without the password and that a legacy answer POSTed from another
# session to a victim's pending question is refused (deploy/cluster/hijack.py,
# against a Python and the Node instance). Builds what it runs
# first (no-ops after the official and peers suites): the Python extension,
# the Node addon, and `mrtr` (for `mrtr check`).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"
echo "== cluster: the Python extension into $venv (maturin develop --release)"
(cd "$root/bindings-python" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --release --quiet)
echo "== cluster: the Node addon (bindings-node/tools/build.sh)"
bash "$root/bindings-node/tools/build.sh"
echo "== cluster: mrtr (cargo build)"
cargo build --quiet --manifest-path "$root/Cargo.toml" -p mrtr-cli
echo "== cluster: scripts/cluster --operations 1000 --concurrency 200 --p99-floor-ms 1000"
"$venv/bin/python" "$root/scripts/cluster" --operations 1000 --concurrency 200 --p99-floor-ms 1000
