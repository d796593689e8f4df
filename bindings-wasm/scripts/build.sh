#!/usr/bin/env bash
# Builds the WebAssembly package into pkg/: the release build of mrtr-wasm,
# bound by wasm-bindgen (--target web: one ES module for browsers and Node),
# shrunk by wasm-opt (npm `binaryen`), beside the JavaScript API it shares with
# the Node package (copied from bindings-node: lib/api.mjs, lib/kernel.mjs,
# lib/exports.mjs, index.d.ts, lib/tables.d.ts, lib/exports.d.ts) and this package's backend
# (js/backend.mjs, .d.ts):
#
#   pkg/index.d.ts               the API's types
#   pkg/lib/api.mjs              the API (the package's entry point), over
#                                kernel.mjs and the generated exports.mjs
#   pkg/lib/backend.mjs          instantiates the module, in a page or in Node
#   pkg/lib/mrtr_wasm.js, mrtr_wasm_bg.wasm, mrtr_wasm.d.ts   wasm-bindgen's
#
# Prints the sizes: raw, after wasm-bindgen, after wasm-opt, gzipped. Fast
# when nothing changed: cargo is incremental, and the binding and optimisation
# steps are skipped when their inputs are the ones recorded in pkg/.stamp.
#
#   scripts/build.sh                  pkg/: the package, never with test vectors
#   scripts/build.sh --test-vectors   pkg-test-vectors/: the same with the cargo
#                                     feature `test-vectors` (sealWithNonceForTestVectors,
#                                     for the corpus's sealing vectors), which the
#                                     shared tests and the corpus runners use; built in
#                                     its own target folder (target/wasm-test-vectors/),
#                                     so that neither build is ever taken for the other
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
shared="$root/bindings-node"
cd "$root"

target="${CARGO_TARGET_DIR:-$root/target}"
pkg="$here/pkg"
features=()
case "${1:-}" in
  "") ;;
  --test-vectors)
    target="$root/target/wasm-test-vectors"
    pkg="$here/pkg-test-vectors"
    features=(--features test-vectors) ;;
  *) echo "usage: scripts/build.sh [--test-vectors]" >&2; exit 2 ;;
esac
name=$(basename "$pkg")

# Size settings for this target only (the workspace's release profile is
# shared with the host crates; these apply to the wasm32 build alone, which
# no other crate builds). wasm32-unknown-unknown aborts on panic anyway.
# The source paths a panic location carries are remapped to short fixed
# ones, so that the module's bytes (and its size) do not depend on where the
# checkout or cargo's registry lie: a CI clone in /tmp/mrtr-ci.XXXXXX built
# a bigger module than a checkout in /work/main.
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
remap="target.wasm32-unknown-unknown.rustflags=[\"--remap-path-prefix=$root=/mrtr\", \"--remap-path-prefix=$cargo_home=/cargo\"]"
CARGO_TARGET_DIR="$target" cargo build --quiet -p mrtr-wasm --target wasm32-unknown-unknown --release "${features[@]}" \
  --config 'profile.release.opt-level="z"' \
  --config 'profile.release.lto=true' \
  --config 'profile.release.codegen-units=1' \
  --config "$remap"

raw="$target/wasm32-unknown-unknown/release/mrtr_wasm.wasm"
shared_files=("$shared/lib/api.mjs" "$shared/lib/kernel.mjs" "$shared/lib/exports.mjs" "$shared/lib/exports.d.ts" "$shared/lib/tables.d.ts" "$shared/index.d.ts" "$here"/js/*)
stamp_now=$( (sha256sum "$raw" "$0"; echo "$name"; cat "${shared_files[@]}"; wasm-bindgen --version) | sha256sum | cut -d' ' -f1)
if [ -f "$pkg/.stamp" ] && [ "$(cat "$pkg/.stamp")" = "$stamp_now" ] && [ -f "$pkg/lib/mrtr_wasm_bg.wasm" ]; then
  echo "$name/ up to date"
  cat "$pkg/sizes.txt"
  exit 0
fi

want=$(sed -n 's/^wasm-bindgen = "=\(.*\)"$/\1/p' "$here/Cargo.toml")
have=$(wasm-bindgen --version 2>/dev/null | cut -d' ' -f2 || true)
if [ "$have" != "$want" ]; then
  echo "wasm-bindgen $want is needed (found: ${have:-none}); run scripts/setup/50-wasm.sh" >&2
  exit 1
fi
wasm_opt="$here/node_modules/.bin/wasm-opt"
if [ ! -x "$wasm_opt" ]; then
  echo "wasm-opt (npm binaryen) is missing; run scripts/setup/50-wasm.sh" >&2
  exit 1
fi

rm -rf "$pkg"
mkdir -p "$pkg/lib"
# --experimental-reset-state-function: the API starts a fresh instance after
# a panic or any other trap.
wasm-bindgen --target web --experimental-reset-state-function --out-dir "$pkg/lib" "$raw"
wasm="$pkg/lib/mrtr_wasm_bg.wasm"
bound_size=$(stat -c %s "$wasm")
# The features rustc enables on wasm32-unknown-unknown; wasm-opt must keep to them.
features=(--enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int
  --enable-sign-ext --enable-reference-types --enable-multivalue)
"$wasm_opt" -Oz --converge --strip-debug --strip-producers "${features[@]}" "$wasm" -o "$wasm"
cp "$shared/lib/api.mjs" "$shared/lib/kernel.mjs" "$shared/lib/exports.mjs" "$shared/lib/exports.d.ts" "$shared/lib/tables.d.ts" "$here/js/backend.mjs" "$here/js/backend.d.ts" "$pkg/lib/"
cp "$shared/index.d.ts" "$pkg/index.d.ts"
echo '{ "type": "module" }' > "$pkg/package.json"

gz=$(gzip -9 -c "$wasm" | wc -c)
{
  echo "raw (cargo):        $(stat -c %s "$raw") bytes"
  echo "after wasm-bindgen: $bound_size bytes"
  echo "after wasm-opt -Oz: $(stat -c %s "$wasm") bytes"
  echo "gzipped (-9):       $gz bytes ($(( (gz + 1023) / 1024 )) KiB)"
} > "$pkg/sizes.txt"
cat "$pkg/sizes.txt"
echo "$stamp_now" > "$pkg/.stamp"
