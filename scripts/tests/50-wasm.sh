#!/usr/bin/env bash
# WebAssembly: the lint on the wasm target, the release build (wasm-bindgen
# for --target web and nodejs, wasm-opt -Oz), the artifact checks (gzipped
# size bound, no "env" imports), and the node:test suite. The corpus runs in
# Node and in headless Chromium through scripts/conformance wasm-node and
# wasm-browser, which scripts/test runs after every suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
echo "== wasm: clippy on wasm32-unknown-unknown"
cargo clippy --quiet -p mrtr-wasm --target wasm32-unknown-unknown -- -D warnings
echo "== wasm: release build (wasm-bindgen, wasm-opt -Oz)"
bash bindings-wasm/scripts/build.sh
echo "== wasm: artifact (size bound, imports)"
node bindings-wasm/scripts/check-artifact.mjs
echo "== wasm: node:test"
cd bindings-wasm
node --test test/*.test.mjs
