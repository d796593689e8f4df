#!/usr/bin/env bash
# WebAssembly binding: the wasm32 target, wasm-bindgen-cli at exactly the
# version of the crate's `wasm-bindgen` (a `cargo install --debug`, ~75 s cold: none
# of the registries this project reaches, crates.io, PyPI, npm, Debian, has a
# prebuilt wasm-bindgen-cli), Debian's Chromium for the browser runner,
# and the npm tools of bindings-wasm (binaryen's wasm-opt, playwright-core,
# the bench's peers) at the versions of its package-lock.json. Idempotent:
# each step is skipped when what it installs is already there.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
wasm="$root/bindings-wasm"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

want=$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' "$wasm/Cargo.toml")
have=$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2 || true)
if [ "$have" != "$want" ]; then
  echo "installing wasm-bindgen-cli $want (found: ${have:-none})"
  # Not --locked: the registry lacks one of its locked dependencies. --debug: it compiles in ~75 s
  # instead of 7–8 min on two cores, runs in ~1 s instead of 0.2 on this package's module, and
  # writes the same bytes (checked against a release build on 2026-12-07).
  cargo install wasm-bindgen-cli --version "=$want" --debug
fi

bash "$root/scripts/need-chromium.sh"

# `npm install`, not `npm ci` (see TOOLCHAIN.md); skipped when node_modules
# already matches the lock file.
lock="$wasm/package-lock.json"
stamp="$wasm/node_modules/.mrtr-lock"
if [ ! -f "$stamp" ] || ! cmp -s "$lock" "$stamp"; then
  (cd "$wasm" && npm install --no-audit --no-fund)
  cp "$lock" "$stamp"
fi
echo "wasm setup ready: wasm-bindgen $(wasm-bindgen --version | cut -d' ' -f2), $(/usr/bin/chromium --version 2>/dev/null || echo 'chromium ?'), wasm-opt $("$wasm/node_modules/.bin/wasm-opt" --version | cut -d' ' -f3)"
