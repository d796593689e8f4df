#!/usr/bin/env bash
# WebAssembly: the lint on the wasm target (with and without the test
# vectors), the release build of the package (pkg/: wasm-bindgen --target web,
# wasm-opt -Oz) and the tests' build (pkg-test-vectors/: the same with the
# cargo feature test-vectors, for the corpus's sealing vectors), the artifact
# checks (gzipped size bound, no "env" imports, no test-only export in pkg/),
# and the node:test suite. The corpus runs in Node and in headless Chromium
# through scripts/conformance wasm-node and wasm-browser, which scripts/test
# runs after every suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
echo "== wasm: clippy on wasm32-unknown-unknown"
cargo clippy --quiet -p mrtr-wasm --target wasm32-unknown-unknown -- -D warnings
cargo clippy --quiet -p mrtr-wasm --target wasm32-unknown-unknown --features test-vectors -- -D warnings
echo "== wasm: release build of the package, pkg/ (wasm-bindgen, wasm-opt -Oz)"
bash bindings-wasm/scripts/build.sh
echo "== wasm: the tests' build, pkg-test-vectors/ (cargo feature test-vectors)"
bash bindings-wasm/scripts/build.sh --test-vectors
echo "== wasm: artifact (size bound, imports, no test-only export)"
node bindings-wasm/scripts/check-artifact.mjs
echo "== wasm: node:test"
cd bindings-wasm
node --test test/*.test.mjs
