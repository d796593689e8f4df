#!/usr/bin/env bash
# The transports end to end: the Python venv (Starlette and uvicorn, pinned in
# bindings-python/requirements-dev.txt, for the server) and bindings-node's npm
# packages (the napi CLI that builds the client's addon), by the Python and Node
# setups, which this runs (idempotent, quick when present).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bash "$root/scripts/setup/20-python.sh"
bash "$root/scripts/setup/30-node.sh"
