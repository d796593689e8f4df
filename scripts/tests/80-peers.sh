#!/usr/bin/env bash
# Real peers: the official Python, TypeScript, Go and Rust (rmcp) MCP SDKs, and the
# third-party turbomcp, tower-mcp and FastMCP, talk through
# `mrtr proxy` on 127.0.0.1, in every pairing and protocol they can speak,
# with each other and with an await-style server on mrtr's Python binding
# (peers/run): correct traffic has no violation, live and in the recording;
# a client broken on purpose gives exactly its violation. Ends with
# `N passed, M failed`. Then `mrtr bridge` between each SDK's client in
# `2025-11-25` mode and each MRTR server (peers/run --bridge, and the bridge
# crate's tests), and the other way, each MRTR client through the reverse
# bridge to each `2025-11-25` server (peers/run --bridge-reverse).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"
[ -x "$venv/bin/maturin" ] || bash "$root/scripts/setup/20-python.sh"
# FastMCP (peers/requirements.txt) beside mcp, for peers/fastmcp_*.py.
cmp -s "$root/peers/requirements.txt" "$venv/.mrtr-peers-requirements" 2>/dev/null || bash "$root/scripts/setup/80-peers.sh"
echo "== peers: the Python extension into $venv (maturin develop --release --features test-vectors: the python suite's build, made once), for peers/mrtr_server.py"
(cd "$root/bindings-python" && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --release --features test-vectors --quiet)
echo "== peers: the mrtr command (cargo build -p mrtr-cli)"
cargo build --quiet -p mrtr-cli
command -v go >/dev/null || { echo "80-peers.sh: the Go toolchain (go) is missing: this machine kind ships it" >&2; exit 1; }
echo "== peers: the Go SDK's and mcp-go's servers and clients (peers/go/build.sh)"
bash "$root/peers/go/build.sh"
echo "== peers: the Rust SDKs' servers and clients: rmcp, turbomcp, tower-mcp (peers/rust/build.sh)"
bash "$root/peers/rust/build.sh"
echo "== peers: the official SDKs through mrtr proxy (peers/run)"
"$venv/bin/python" peers/run
echo "== peers: two instances of mrtr's Java server behind a round-robin, every retry on the other (bindings-jvm/examples/server/two-instances)"
"$venv/bin/python" bindings-jvm/examples/server/two-instances
echo "== peers: the bridge's tests against the SDKs and mrtr's server (cargo test -p mrtr-bridge)"
cargo test --quiet -p mrtr-bridge --test bridge --test fleet --test peers --test reverse
echo "== peers: every 2025-11-25 client through mrtr bridge to every 2026-07-28 server (peers/run --bridge)"
"$venv/bin/python" peers/run --bridge
echo "== peers: every 2026-07-28 client through mrtr bridge --upstream-protocol 2025-11-25 to every 2025-11-25 server (peers/run --bridge-reverse)"
"$venv/bin/python" peers/run --bridge-reverse
