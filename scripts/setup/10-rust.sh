#!/usr/bin/env bash
# Rust: the two no_std targets the core is built for (rustup; seconds).
# Nothing else: no apt, no sudo, no `cargo install`. cargo-nextest is optional:
# scripts/tests/10-rust.sh uses it when it is installed and `cargo test`
# otherwise. (rustfmt and clippy are for .ci/run's static checks, which add
# them.) Idempotent: an installed target is left alone.
set -euo pipefail
installed=$(rustup target list --installed)
for target in thumbv7em-none-eabihf thumbv6m-none-eabi; do
  grep -qx "$target" <<<"$installed" || rustup target add "$target"
done
