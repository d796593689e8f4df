#!/usr/bin/env bash
# Real peers: the official SDKs the peers tests run through `mrtr proxy` — the
# Python SDK (PyPI `mcp`, in the Python venv) and the TypeScript SDK
# (`@modelcontextprotocol/client` and `/server`, in bindings-node/node_modules),
# both pinned by the Python and Node setups, which this runs (idempotent,
# quick when present); FastMCP (PyPI `fastmcp`, pinned by peers/requirements.txt)
# into the same venv; and a JDK with Maven for the JVM peers (the official
# Java SDK in peers/java, mrtr's Java server in bindings-jvm/examples/server).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bash "$root/scripts/setup/20-python.sh"
venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"
reqs="$root/peers/requirements.txt"
stamp="$venv/.mrtr-peers-requirements"
if [ -f "$stamp" ] && cmp -s "$reqs" "$stamp"; then
  echo "peers python requirements (fastmcp) present"
else
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$reqs"
  cp "$reqs" "$stamp"
  echo "peers python requirements ready: fastmcp $("$venv/bin/python" -c 'import fastmcp; print(fastmcp.__version__)')"
fi
bash "$root/scripts/setup/30-node.sh"
bash "$root/scripts/setup/62-jvm.sh"
