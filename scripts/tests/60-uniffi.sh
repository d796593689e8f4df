#!/usr/bin/env bash
# UniFFI (bindings-ffi/uniffi): build the cdylib and uniffi-bindgen, check that
# the committed Kotlin and Swift sources are what the generator makes now,
# check that the Swift parses and its C header compiles, and run the Kotlin
# and Python unit tests (exceptions per area, `.rule`, panics, the objects),
# and the crate's own Rust unit tests.
# The corpus runs separately: scripts/conformance uniffi-kotlin | uniffi-python.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../bindings-ffi/uniffi/scripts/lib.sh
. "$root/bindings-ffi/uniffi/scripts/lib.sh"
export RUST_BACKTRACE=0 # the panic tests print one line each, not a backtrace

uniffi_tools_ready
echo "== UniFFI: build libmrtr_uniffi.so and uniffi-bindgen (dev profile)"
uniffi_build

echo "== UniFFI: the committed Kotlin and Swift sources are up to date"
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
uniffi_generate kotlin "$fresh/kotlin"
uniffi_generate swift "$fresh/swift"
if ! diff -ru "$uniffi_dir/generated/kotlin" "$fresh/kotlin" >"$fresh/kotlin.diff" ||
  ! diff -ru "$uniffi_dir/generated/swift" "$fresh/swift" >"$fresh/swift.diff"; then
  head -n 60 "$fresh"/*.diff
  echo "generated bindings drifted: regenerate them (see bindings-ffi/uniffi/README.md) and commit" >&2
  exit 1
fi
echo "generated/kotlin and generated/swift match"

echo "== UniFFI: Swift parses (tree-sitter-swift), its C header compiles (gcc)"
"$uniffi_tools/venv/bin/python" "$uniffi_dir/tests/swift/parse_check.py" --self-test "$uniffi_dir/generated/swift/Mrtr.swift"
# The header Swift imports through MrtrFFI.modulemap; _Nullable/_Nonnull are Clang-only qualifiers.
echo '#include "MrtrFFI.h"' | gcc -fsyntax-only -std=c99 -Wall -Wextra -pedantic -Werror \
  -D_Nullable= -D_Nonnull= -I "$uniffi_dir/generated/swift" -x c -
echo "MrtrFFI.h compiles as C99"

echo "== UniFFI: Python unit tests (generated module)"
uniffi_python
PYTHONPATH="$uniffi_out/python" python3 "$uniffi_dir/tests/python/test_binding.py"

echo "== UniFFI: Kotlin unit tests"
uniffi_java mrtr.tests.BindingTestsKt

echo "== UniFFI: the mrtr-uniffi crate's Rust unit tests"
# With --features cli, as uniffi_build: one feature set, no rebuild between the two.
cd "$root"
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --no-fail-fast -p mrtr-uniffi --features cli --lib
else
  cargo test --no-fail-fast -p mrtr-uniffi --features cli --lib
fi
