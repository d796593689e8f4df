#!/usr/bin/env bash
# Rust: the core under each feature set, the corpus, the lint.
set -euo pipefail
echo "== Rust: unit, property, corpus, schema and machine tests (default features: alloc)"
cargo nextest run --workspace --no-fail-fast
echo "== Rust: the core with std"
cargo nextest run -p mrtr --features std --no-fail-fast
echo "== Rust: the core without an allocator"
cargo nextest run -p mrtr --no-default-features --lib --no-fail-fast
echo "== Rust: doc tests (README included)"
cargo test --doc -p mrtr --quiet
echo "== Corpus lint"
cargo run --quiet -p mrtr-conformance --bin mrtr-corpus-lint
