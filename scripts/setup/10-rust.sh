#!/usr/bin/env bash
# Rust toolchain pieces: components, no_std targets, nextest.
set -euo pipefail
rustup component add rustfmt clippy
rustup target add thumbv7em-none-eabihf thumbv6m-none-eabi
cargo nextest --version >/dev/null 2>&1 || cargo install --locked cargo-nextest
