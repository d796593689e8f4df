#!/usr/bin/env bash
# Node: build the addon of the package (release, never with test vectors) and
# the tests' addon (cargo feature test-vectors, for the corpus's sealing
# vectors; it stays in target/napi-node-test-vectors/), the node:test suite
# (API, errors, Client, bad input, sealed state, real SDK peers, the examples
# over loopback, the corpus, the packed addon's lack of test vectors) and the
# generated/declared types. The packages as users install them (the main
# package and its platform package, packed and installed into an empty
# project, CommonJS and ESM, the README's examples) are scripts/release's
# npm kind, which CI runs after the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pkg="$root/bindings-node"

echo "== Node: build the addon (napi build --platform --release); generated native.cjs / native.d.ts match the committed ones"
bash "$pkg/tools/build.sh" --check
echo "== Node: build the tests' addon (--features test-vectors); it generates the same native.cjs / native.d.ts"
bash "$pkg/tools/build.sh" --test-vectors --check

echo "== Node: the quickstart's page quotes its files (docs/quickstart/node.md; test/quickstart.test.mjs runs them)"
python3 "$root/scripts/quickstart-docs" node
echo "== Node: node:test"
(cd "$pkg" && node --test test/*.test.mjs test/*.test.cjs)
