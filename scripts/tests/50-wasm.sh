#!/usr/bin/env bash
# WebAssembly: the lint on the wasm target (the full package, the browser
# package, the test vectors), the release builds of both packages (pkg/, the
# full one, and pkg-browser/, the browser one: wasm-bindgen --target web,
# wasm-opt) and the tests' build (pkg-test-vectors/: pkg/ with the cargo
# feature test-vectors, for the corpus's sealing vectors), the artifact checks
# (each package's gzipped size bound, no "env" imports, no test-only export,
# nothing the browser package leaves out), the corpus's classify and sse
# cases through the browser package (judged; the judge reports the other
# ops' cases as left out), and the node:test suite. The whole corpus runs in
# Node (pkg-test-vectors/) and in headless Chromium (pkg-browser/ for the
# classify and sse cases, pkg-test-vectors/ for the others) through
# scripts/conformance wasm-node and wasm-browser, which scripts/test runs
# after every suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
echo "== wasm: clippy on wasm32-unknown-unknown"
cargo clippy --quiet -p mrtr-wasm --target wasm32-unknown-unknown -- -D warnings
cargo clippy --quiet -p mrtr-wasm --target wasm32-unknown-unknown --features test-vectors -- -D warnings
cargo clippy --quiet -p mrtr-wasm --target wasm32-unknown-unknown --no-default-features --features browser -- -D warnings
echo "== wasm: release builds of the packages, pkg/ and pkg-browser/ (wasm-bindgen, wasm-opt)"
bash bindings-wasm/scripts/build.sh
echo "== wasm: the tests' build, pkg-test-vectors/ (cargo feature test-vectors)"
bash bindings-wasm/scripts/build.sh --test-vectors
echo "== wasm: artifacts (size bounds, imports, no test-only export, the browser package's split)"
node bindings-wasm/scripts/check-artifact.mjs
echo "== wasm: the corpus's classify and sse cases through the browser package, pkg-browser/"
cargo build --quiet -p mrtr-conformance --bin mrtr-conformance
node bindings-wasm/test/browser-corpus.mjs | "${CARGO_TARGET_DIR:-$root/target}/debug/mrtr-conformance" judge --name wasm-browser-package
echo "== wasm: the quickstart's page quotes its files (docs/quickstart/browser.md; test/quickstart.test.mjs runs them in Chromium)"
python3 scripts/quickstart-docs browser
echo "== wasm: node:test"
cd bindings-wasm
node --test test/*.test.mjs
