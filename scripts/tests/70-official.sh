#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned
# in conformance/official/) against a server on the Python binding and a
# client on the Node binding. Both are built here first (a no-op for cargo when
# scripts/tests/20-python.sh and 30-node.sh built them already), so that
# `scripts/test official` works on its own.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"
[ -x "$venv/bin/maturin" ] || bash "$root/scripts/setup/20-python.sh"

echo "== official: the Python extension into $venv (maturin develop --release --features test-vectors: the python suite's build, made once)"
(cd "$root/bindings-python" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --release --features test-vectors --quiet)
echo "== official: the Node addon (bindings-node/tools/build.sh)"
bash "$root/bindings-node/tools/build.sh"

exec "$root/scripts/official-conformance"
