#!/usr/bin/env bash
# Builds the Rust SDK peers (peers/rust: rmcp, turbomcp, tower-mcp servers and clients) once, into
# the shared target dir ($CARGO_TARGET_DIR, default target/ at the repository root), with the
# committed Cargo.lock, and prints how long it took. peers/rust is its own workspace.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
start=$(date +%s)
cargo build --locked -j "${PEERS_RUST_JOBS:-2}" --manifest-path "$root/peers/rust/Cargo.toml" --bins
echo "== peers/rust: rmcp, turbomcp, tower-mcp servers and clients built in $(( $(date +%s) - start )) s (into $CARGO_TARGET_DIR/debug)"
