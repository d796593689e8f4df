#!/usr/bin/env bash
# Builds the native addon (release, with fat LTO and one codegen unit: the
# hot path is the core's, and whole-program optimisation makes it ~6% faster)
# with the napi CLI in its own target folder, target/napi-node/ (so that these
# profile settings do not rebuild the other crates' release artifacts), then
# installs mrtr.<platform>.node beside index.js.
#   tools/build.sh            build (cargo makes it a no-op when nothing changed)
#   tools/build.sh --check    also fail when the generated native.cjs / native.d.ts
#                             differ from the committed ones
set -euo pipefail
pkg=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$pkg/.." && pwd)
out="$root/target/napi-node"
cd "$pkg"
[ -x node_modules/.bin/napi ] || bash "$root/scripts/setup/30-node.sh"
mkdir -p "$out"
CARGO_TARGET_DIR="$out" CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
  node_modules/.bin/napi build --platform --release --js native.cjs --dts native.d.ts -o "$out" >"$out/build.log" 2>&1 \
  || { cat "$out/build.log" >&2; exit 1; }
cp "$out"/mrtr.*.node "$pkg/"
if [ "${1:-}" = "--check" ]; then
  status=0
  for f in native.cjs native.d.ts; do
    if ! cmp -s "$out/$f" "$pkg/$f"; then
      echo "bindings-node/$f differs from what the build generates (commit the generated one):" >&2
      diff -u "$pkg/$f" "$out/$f" >&2 || true
      status=1
    fi
  done
  exit $status
fi
