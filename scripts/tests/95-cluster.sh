#!/usr/bin/env bash
# The cluster: multi-round calls behind nginx (each request to an instance
# drawn at random) over instances on both bindings sharing Redis (with a
# password), with an instance killed and restarted with a rotated key, Redis
# restarted and another instance hung for 8 s mid-run (scripts/cluster: 1000
# operations, 200 at a time, in each of its two runs; about 40 s). Every
# stateless mode keeps its tail: mrtr and tasks hedge (hedgeAfterMs), the SEP
# modes copy or resume a stalled exchange (stallMs); the run fails if a mode's
# faulted p99 exceeds 2x max(its baseline p99, 1000 ms). At 200 in flight on
# a small shared machine the baselines' own p99s vary by a factor of two from
# run to run, hence the 1 s floor (scripts/cluster's default, for its lighter
# default load, is 600 ms). A p99 is the second-slowest of 200 operations, so
# one call whose copies drew the hung instance several times in a row (each 1
# in 3) moves it: when only p99 gates fail, the cluster runs once more, and
# fails the step if a gate fails again (deploy/cluster/README.md has the rate:
# docs/results/cluster-ci.json). A lost or duplicated operation, a violation
# in a recording, or a failed check fails at once.
# Its faulted run first checks that Redis refuses a
# client without the password and that a legacy answer POSTed from another
# session to a victim's pending question is refused (deploy/cluster/hijack.py,
# against a Python and the Node instance). Builds what it runs
# first (no-ops after the official and peers suites): the Python extension,
# the Node addon, and `mrtr` (for `mrtr check`).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"
echo "== cluster: the Python extension into $venv (maturin develop --release --features test-vectors: the python suite's build, made once)"
(cd "$root/bindings-python" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --release --features test-vectors --quiet)
echo "== cluster: the Node addon (bindings-node/tools/build.sh)"
bash "$root/bindings-node/tools/build.sh"
echo "== cluster: mrtr (cargo build)"
cargo build --quiet --manifest-path "$root/Cargo.toml" -p mrtr-cli
run_cluster() {
  echo "== cluster: scripts/cluster --operations 1000 --concurrency 200 --p99-floor-ms 1000"
  "$venv/bin/python" "$root/scripts/cluster" --operations 1000 --concurrency 200 --p99-floor-ms 1000 | tee "$log"
}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if run_cluster; then
  exit 0
fi
# Only p99 gates failed ("N passed, M failed: a, b"): once more.
failed=$(sed -n 's/^[0-9]* passed, [0-9]* failed: //p' "$log" | tail -n 1)
others=$(tr ',' '\n' <<<"$failed" | sed 's/^ *//' | grep -v -c 'faulted p99 within 2x$' || true)
if [ -z "$failed" ] || [ "$others" != 0 ]; then
  exit 1
fi
echo "== cluster: only p99 gates failed ($failed): once more"
run_cluster
