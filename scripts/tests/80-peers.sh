#!/usr/bin/env bash
# Real peers: the official Python and TypeScript MCP SDKs talk through
# `mrtr proxy` on 127.0.0.1, in every pairing and protocol they can speak
# (peers/run): correct traffic has no violation, live and in the recording;
# a client broken on purpose gives exactly its violation. Ends with
# `N passed, M failed`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"
echo "== peers: mrtr and mrtr-proxy (cargo build)"
cargo build --quiet -p mrtr-conformance -p mrtr-proxy
echo "== peers: the official SDKs through mrtr proxy (peers/run)"
"$venv/bin/python" peers/run
