#!/usr/bin/env bash
# The transports end to end (issue #11) over real HTTP on 127.0.0.1: an MCP
# server on the Python binding (Starlette + uvicorn, e2e/transports/server.py)
# and a client on the Node binding (node:http, e2e/transports/client.mjs), in
# each mode (2026-07-28, 2025-11-25, sep-1858, sep-1335): a plain two-round
# call; a stream cut after its first event and resumed (the call's first
# stream, and in sep-1858 / sep-1335 a continuation's); and (sep-1858,
# sep-1335, 2026-07-28) the continuations served by a second server process
# that shares only the store, behind a round-robin proxy. Every recording must
# pass `mrtr check`. Ends with `N passed, M failed` (e2e/transports/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"
[ -x "$venv/bin/maturin" ] || bash "$root/scripts/setup/20-python.sh"
cd "$root"

# The python suite's build (release, with the test-only seal of the corpus' vectors, which nothing
# here calls), as the official and peers suites before it and the cluster after it use: one build
# of the extension serves them all (a feature set that changed between suites would rebuild the
# core with it). What ships is built and checked by scripts/release.
echo "== transports: the Python binding into $venv (maturin develop --release --features test-vectors: the python suite's build, made once)"
(
  cd bindings-python
  export VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH"
  maturin develop --release --features test-vectors --quiet
)
echo "== transports: the Node addon of the package (bindings-node/tools/build.sh)"
bash bindings-node/tools/build.sh
echo "== transports: the server, the client and the checks (e2e/transports/run; it builds mrtr check first)"
"$venv/bin/python" e2e/transports/run
