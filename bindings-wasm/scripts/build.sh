#!/usr/bin/env bash
# Builds the WebAssembly packages: the release build of mrtr-wasm, bound by
# wasm-bindgen (--target web: one ES module for browsers and Node), shrunk by
# wasm-opt (npm `binaryen`), beside the JavaScript API it shares with the
# Node package (copied from bindings-node: lib/api.mjs, lib/kernel.mjs,
# lib/exports.mjs, index.d.ts, lib/tables.d.ts, lib/exports.d.ts) and this
# package's backend (js/backend.mjs, .d.ts). Two packages, from one crate and
# one API (README.md, "Two packages"):
#
#   pkg/          the full package (cargo feature `full`, the default): every
#                 export; opt-level "z"
#   pkg-browser/  the browser package (`--no-default-features --features
#                 browser`): classify, SseDecoder, sseEncode, mirroredFields,
#                 inspect, unassociatedReply, taskTransition, the tables
#                 (build.rs lists them); the API's other functions throw a
#                 UsageError ("this backend has no X"); opt-level 3 and
#                 wasm-opt -O3, for speed (it fits its 150 KiB bound even so);
#                 its own target folder (target/wasm-browser/)
#
# Each has:
#   index.d.ts               the API's types
#   lib/api.mjs              the API (the package's entry point), over
#                            kernel.mjs and the generated exports.mjs
#   lib/backend.mjs          instantiates the module, in a page or in Node
#   lib/mrtr_wasm.js, mrtr_wasm_bg.wasm, mrtr_wasm.d.ts   wasm-bindgen's
#
# Prints the sizes: raw, after wasm-bindgen, after wasm-opt, gzipped. Fast
# when nothing changed: cargo is incremental, and the binding and optimisation
# steps are skipped when their inputs are the ones recorded in <pkg>/.stamp.
#
#   scripts/build.sh                  pkg/ and pkg-browser/: the packages, never
#                                     with test vectors
#   scripts/build.sh --test-vectors   pkg-test-vectors/: pkg/ with the cargo
#                                     feature `test-vectors` (sealWithNonceForTestVectors,
#                                     for the corpus's sealing vectors), which the
#                                     shared tests and the corpus runners use; built in
#                                     its own target folder (target/wasm-test-vectors/),
#                                     so that neither build is ever taken for the other;
#                                     and pkg-browser/, which the browser runner loads
#                                     too (skipped when up to date)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
shared="$root/bindings-node"
cd "$root"

# Size settings for this target only (the workspace's release profile is
# shared with the host crates; these apply to the wasm32 build alone, which
# no other crate builds). wasm32-unknown-unknown aborts on panic anyway.
# The source paths a panic location carries are remapped to short fixed
# ones, so that the module's bytes (and its size) do not depend on where the
# checkout or cargo's registry lie: a CI clone in /tmp/mrtr-ci.XXXXXX built
# a bigger module than a checkout in /work/main.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
remap="target.wasm32-unknown-unknown.rustflags=[\"--remap-path-prefix=$root=/mrtr\", \"--remap-path-prefix=$cargo_home=/cargo\"]"
shared_files=("$shared/lib/api.mjs" "$shared/lib/kernel.mjs" "$shared/lib/exports.mjs" "$shared/lib/exports.d.ts" "$shared/lib/tables.d.ts" "$shared/index.d.ts" "$here"/js/*)

want=$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' "$here/Cargo.toml")
wasm_opt="$here/node_modules/.bin/wasm-opt"

# build PKG TARGET OPT-LEVEL WASM-OPT-LEVEL CARGO-FEATURE-ARGS...: one package.
build() {
  local pkg=$1 target=$2 opt=$3 wasm_level=$4
  shift 4
  local name
  name=$(basename "$pkg")
  CARGO_TARGET_DIR="$target" cargo build --quiet -p mrtr-wasm --target wasm32-unknown-unknown --release "$@" \
    --config "profile.release.opt-level=$opt" \
    --config 'profile.release.lto=true' \
    --config 'profile.release.codegen-units=1' \
    --config "$remap"

  local raw="$target/wasm32-unknown-unknown/release/mrtr_wasm.wasm"
  local stamp_now
  # Contents only, never paths: the script is run by relative and by absolute path (the tests, the release).
  stamp_now=$( (sha256sum <"$raw"; sha256sum <"$0"; echo "$name"; cat "${shared_files[@]}"; wasm-bindgen --version) | sha256sum | cut -d' ' -f1)
  if [ -f "$pkg/.stamp" ] && [ "$(cat "$pkg/.stamp")" = "$stamp_now" ] && [ -f "$pkg/lib/mrtr_wasm_bg.wasm" ]; then
    echo "$name/ up to date"
    cat "$pkg/sizes.txt"
    return 0
  fi

  local have
  have=$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2 || true)
  if [ "$have" != "$want" ]; then
    echo "wasm-bindgen $want is needed (found: ${have:-none}); run scripts/setup/50-wasm.sh" >&2
    exit 1
  fi
  if [ ! -x "$wasm_opt" ]; then
    echo "wasm-opt (npm binaryen) is missing; run scripts/setup/50-wasm.sh" >&2
    exit 1
  fi

  rm -rf "$pkg"
  mkdir -p "$pkg/lib"
  # --experimental-reset-state-function: the API starts a fresh instance after
  # a panic or any other trap.
  wasm-bindgen --target web --experimental-reset-state-function --out-dir "$pkg/lib" "$raw"
  local wasm="$pkg/lib/mrtr_wasm_bg.wasm"
  local bound_size
  bound_size=$(stat -c %s "$wasm")
  # The features rustc enables on wasm32-unknown-unknown; wasm-opt must keep to them.
  local features=(--enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int
    --enable-sign-ext --enable-reference-types --enable-multivalue)
  "$wasm_opt" "$wasm_level" --converge --strip-debug --strip-producers "${features[@]}" "$wasm" -o "$wasm"
  cp "$shared/lib/api.mjs" "$shared/lib/kernel.mjs" "$shared/lib/exports.mjs" "$shared/lib/exports.d.ts" "$shared/lib/tables.d.ts" "$here/js/backend.mjs" "$here/js/backend.d.ts" "$pkg/lib/"
  cp "$shared/index.d.ts" "$pkg/index.d.ts"
  echo '{ "type": "module" }' > "$pkg/package.json"

  local gz
  gz=$(gzip -9 -c "$wasm" | wc -c)
  {
    echo "$name/ (opt-level $opt, wasm-opt $wasm_level)"
    echo "raw (cargo):        $(stat -c %s "$raw") bytes"
    echo "after wasm-bindgen: $bound_size bytes"
    echo "after wasm-opt $wasm_level: $(stat -c %s "$wasm") bytes"
    echo "gzipped (-9):       $gz bytes ($(( (gz + 1023) / 1024 )) KiB)"
  } > "$pkg/sizes.txt"
  cat "$pkg/sizes.txt"
  echo "$stamp_now" > "$pkg/.stamp"
}

target="${CARGO_TARGET_DIR:-$root/target}"
case "${1:-}" in
  "")
    build "$here/pkg" "$target" '"z"' -Oz ;;
  --test-vectors)
    build "$here/pkg-test-vectors" "$root/target/wasm-test-vectors" '"z"' -Oz --features test-vectors ;;
  *) echo "usage: scripts/build.sh [--test-vectors]" >&2; exit 2 ;;
esac
# The browser package, in its own target folder (its own opt-level and features).
build "$here/pkg-browser" "$root/target/wasm-browser" 3 -O3 --no-default-features --features browser
