#!/usr/bin/env bash
# Builds the native addon with the napi CLI, then installs it.
#
#   tools/build.sh                  the addon of the package: release, fat LTO and
#                                   one codegen unit (the hot path is the core's, and
#                                   whole-program optimisation makes it ~6% faster),
#                                   in target/napi-node/, installed as
#                                   mrtr.<platform>.node beside index.js: what
#                                   `npm pack` packs. Never with test vectors.
#   tools/build.sh --test-vectors   the addon of the tests: the same, plus the cargo
#                                   feature `test-vectors` (KeyRing.sealWithNonceForTestVectors,
#                                   for the corpus's sealing vectors), without LTO, in
#                                   target/napi-node-test-vectors/, and left there:
#                                   test/backend.mjs loads it from there, so it never
#                                   sits where `npm pack` would pick it up.
#   --check                         also fail when the generated native.cjs / native.d.ts
#                                   differ from the committed ones (both builds generate
#                                   the same: the test-only method is left out of the types)
#
# Each build has its own target folder (so that neither rebuilds the other, and
# no cdylib built with one feature set is ever taken for the other's).
# cargo makes a build a no-op when nothing changed.
set -euo pipefail
pkg=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$pkg/.." && pwd)
check=
vectors=
for arg in "$@"; do
  case "$arg" in
    --check) check=1 ;;
    --test-vectors) vectors=1 ;;
    *) echo "usage: tools/build.sh [--check] [--test-vectors]" >&2; exit 2 ;;
  esac
done
cd "$pkg"
[ -x node_modules/.bin/napi ] || bash "$root/scripts/setup/30-node.sh"
if [ -n "$vectors" ]; then
  out="$root/target/napi-node-test-vectors"
  mkdir -p "$out"
  CARGO_TARGET_DIR="$out" \
    node_modules/.bin/napi build --platform --release --features test-vectors \
    --js native.cjs --dts native.d.ts -o "$out" >"$out/build.log" 2>&1 \
    || { cat "$out/build.log" >&2; exit 1; }
else
  out="$root/target/napi-node"
  mkdir -p "$out"
  CARGO_TARGET_DIR="$out" CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
    node_modules/.bin/napi build --platform --release --js native.cjs --dts native.d.ts -o "$out" >"$out/build.log" 2>&1 \
    || { cat "$out/build.log" >&2; exit 1; }
  cp "$out"/mrtr.*.node "$pkg/"
fi
if [ -n "$check" ]; then
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
