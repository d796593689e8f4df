#!/usr/bin/env bash
# Builds the WebAssembly package: pkg/web (--target web, an ES module) and
# pkg/node (--target nodejs), each the release build of mrtr-wasm, bound by
# wasm-bindgen, shrunk by wasm-opt -Oz (npm `binaryen`), with the wrapper
# (js/) and its types beside it. Prints the sizes: raw, after wasm-bindgen,
# after wasm-opt, gzipped.
#
# Fast when nothing changed: cargo is incremental, and the binding and
# optimisation steps are skipped when the cargo output and js/ are the ones
# recorded in pkg/.stamp.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
cd "$root"

# Size settings for this target only (the workspace's release profile is
# shared with the host crates; these apply to the wasm32 build alone, which
# no other crate builds). No `panic = "abort"` override and no `strip`: the
# panic hook needs the default, and wasm-bindgen warns on stripped input.
cargo build --quiet -p mrtr-wasm --target wasm32-unknown-unknown --release \
  --config 'profile.release.opt-level="z"' \
  --config 'profile.release.lto=true' \
  --config 'profile.release.codegen-units=1'

raw="${CARGO_TARGET_DIR:-$root/target}/wasm32-unknown-unknown/release/mrtr_wasm.wasm"
pkg="$here/pkg"
stamp_now=$( (sha256sum "$raw"; cat "$here"/js/*; wasm-bindgen --version) | sha256sum | cut -d' ' -f1)
if [ -f "$pkg/.stamp" ] && [ "$(cat "$pkg/.stamp")" = "$stamp_now" ] \
  && [ -f "$pkg/web/mrtr_wasm_bg.wasm" ] && [ -f "$pkg/node/mrtr_wasm_bg.wasm" ]; then
  echo "pkg/ up to date"
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
mkdir -p "$pkg"
# The features rustc enables on wasm32-unknown-unknown; wasm-opt must keep to them.
features=(--enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int
  --enable-sign-ext --enable-reference-types --enable-multivalue)
for target in web nodejs; do
  out="$pkg/${target/nodejs/node}"
  # --experimental-reset-state-function: the wrapper can start a fresh
  # instance after a trap that is no panic (the panic hook schedules one itself).
  wasm-bindgen --target "$target" --experimental-reset-state-function --out-dir "$out" "$raw"
  bound_size=$(stat -c %s "$out/mrtr_wasm_bg.wasm")
  "$wasm_opt" -Oz "${features[@]}" "$out/mrtr_wasm_bg.wasm" -o "$out/mrtr_wasm_bg.wasm"
  cp "$here/js/api.mjs" "$out/api.mjs"
  # Types under both names: `.d.ts` for the package's "types", `.d.mts` for
  # TypeScript resolving the `.mjs` files themselves.
  for ext in d.ts d.mts; do
    cp "$here/js/api.d.ts" "$out/api.$ext"
    cp "$here/js/index.d.ts" "$out/index.$ext"
  done
done
cp "$here/js/web.mjs" "$pkg/web/index.mjs"
cp "$here/js/node.mjs" "$pkg/node/index.mjs"
echo '{ "type": "module" }' > "$pkg/web/package.json"
echo '{ "type": "commonjs" }' > "$pkg/node/package.json"

opt="$pkg/web/mrtr_wasm_bg.wasm"
gz=$(gzip -9 -c "$opt" | wc -c)
{
  echo "raw (cargo):        $(stat -c %s "$raw") bytes"
  echo "after wasm-bindgen: $bound_size bytes"
  echo "after wasm-opt -Oz: $(stat -c %s "$opt") bytes"
  echo "gzipped (-9):       $gz bytes ($(( (gz + 1023) / 1024 )) KiB)"
} > "$pkg/sizes.txt"
cat "$pkg/sizes.txt"
echo "$stamp_now" > "$pkg/.stamp"
