#!/usr/bin/env bash
# Real peers: the official SDKs the peers tests run through `mrtr proxy` — the
# Python SDK (PyPI `mcp`, in the Python venv) and the TypeScript SDK
# (`@modelcontextprotocol/client` and `/server`, in bindings-node/node_modules),
# both pinned by the Python and Node setups, which this runs (idempotent,
# quick when present); and a JDK with Maven for the JVM peers (the official
# Java SDK in peers/java, mrtr's Java server in bindings-jvm/examples/server).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bash "$root/scripts/setup/20-python.sh"
bash "$root/scripts/setup/30-node.sh"
bash "$root/scripts/setup/62-jvm.sh"
