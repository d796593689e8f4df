#!/usr/bin/env bash
# Rust: what a Rust user of mrtr needs, and none of the bindings' crates (their
# Rust unit tests run with their language: scripts/tests/40-c.sh, 60-uniffi.sh).
# - the core `mrtr` under its default features, with every feature of
#   core/Cargo.toml at once (--all-features: whatever it defines, e.g. std,
#   os-rng, serde), and without an allocator (--no-default-features);
# - the conformance crate (the corpus, the official schema);
# - the checking proxy (crate mrtr-proxy), the bridge's unit tests and the edge
#   tests that need no peer (crate mrtr-bridge: tests/web.rs, tests/backpressure.rs)
#   and the `mrtr` command (crate mrtr-cli);
# - the doc tests (README included) and the corpus lint;
# - the no_std builds for two Cortex-M targets.
# cargo-nextest when it is installed, else `cargo test`. (scripts/test then
# runs the Rust conformance runner: scripts/conformance rust.)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

if cargo nextest --version >/dev/null 2>&1; then
  run_tests() { cargo nextest run --no-fail-fast "$@"; }
else
  echo "(cargo-nextest is not installed: cargo test)"
  run_tests() { cargo test --no-fail-fast "$@"; }
fi

echo "== Rust: the core, default features: unit, property, bad-input and machine tests"
run_tests -p mrtr --tests
echo "== Rust: the core with every feature ($(sed -n '/^\[features\]/,/^\[/s/^\([A-Za-z0-9_-]*\) *=.*/\1/p' core/Cargo.toml | grep -vx default | tr '\n' ' ' | sed 's/ $//'))"
run_tests -p mrtr --all-features --tests
echo "== Rust: the core without an allocator (--no-default-features)"
run_tests -p mrtr --no-default-features --lib
echo "== Rust: the bindings' facade (mrtr-facade: JSON text in and out, the export table)"
run_tests -p mrtr-facade --all-features --tests
echo "== Rust: the conformance crate (the corpus, the official schema)"
run_tests -p mrtr-conformance --tests
echo "== Rust: the checking proxy (mrtr-proxy: a small upstream on 127.0.0.1)"
run_tests -p mrtr-proxy --tests
echo "== Rust: the bridge's unit tests and its edge tests without peers (mrtr-bridge; its tests against real peers run with scripts/tests/80-peers.sh)"
run_tests -p mrtr-bridge --lib --test web --test backpressure
echo "== Rust: the mrtr command (mrtr-cli: check, proxy, bridge, --version, help)"
run_tests -p mrtr-cli --tests
echo "== Rust: doc tests (README included)"
cargo test --doc -p mrtr --quiet
echo "== The mrtr command installs as a user installs it (cargo install --path cli) and answers --version"
install_root=$(mktemp -d)
cargo install --quiet --path cli --root "$install_root" --debug --target-dir "${CARGO_TARGET_DIR:-$root/target}"
"$install_root/bin/mrtr" --version
rm -rf "$install_root"
echo "== Corpus lint"
cargo run --quiet -p mrtr-conformance --bin mrtr-corpus-lint
echo "== Generated files (docs/RULES.md, each binding's rule lists) are what the core's tables make now"
cargo run --quiet -p mrtr-conformance --bin mrtr-gen -- --check

echo "== Rust: no_std builds without an allocator (thumbv7em-none-eabihf, thumbv6m-none-eabi)"
targets=(thumbv7em-none-eabihf thumbv6m-none-eabi)
installed=$(rustup target list --installed)
for target in "${targets[@]}"; do
  grep -qx "$target" <<<"$installed" || bash "$root/scripts/setup/10-rust.sh"
done
cargo build --quiet -p mrtr --no-default-features --target "${targets[0]}" --target "${targets[1]}"
echo "no_std builds: OK"
