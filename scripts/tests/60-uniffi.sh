#!/usr/bin/env bash
# UniFFI (bindings-ffi/uniffi): build the cdylib and uniffi-bindgen, check that
# the committed Kotlin and Swift sources are what the generator makes now,
# check that the Swift parses and its C header compiles, and run the Python
# unit tests (exceptions per area, `.rule`, panics, the objects) and the
# crate's own Rust tests. The Kotlin unit tests and the corpus through Kotlin
# run in the JVM package's Maven build (scripts/tests/62-jvm.sh).
# The committed sources come from the shipped library (no test vectors): the
# script shows that it and they lack KeyRing.test_only_seal_with_nonce; the
# unit tests use the test build (feature test-vectors) and bindings generated
# from it into target/uniffi/.
# The corpus runs separately: scripts/conformance uniffi-python.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../bindings-ffi/uniffi/scripts/lib.sh
. "$root/bindings-ffi/uniffi/scripts/lib.sh"
export RUST_BACKTRACE=0 # the panic tests print one line each, not a backtrace

uniffi_tools_ready
echo "== UniFFI: build the shipped libmrtr_uniffi.so and uniffi-bindgen (dev profile, no test vectors)"
uniffi_build_shipped

echo "== UniFFI: the committed Kotlin and Swift sources are up to date"
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
uniffi_generate kotlin "$fresh/kotlin" "$uniffi_shipped_lib"
uniffi_generate swift "$fresh/swift" "$uniffi_shipped_lib"
if ! diff -ru "$uniffi_dir/generated/kotlin" "$fresh/kotlin" >"$fresh/kotlin.diff" ||
  ! diff -ru "$uniffi_dir/generated/swift" "$fresh/swift" >"$fresh/swift.diff"; then
  head -n 60 "$fresh"/*.diff
  echo "generated bindings drifted: regenerate them (see bindings-ffi/uniffi/README.md) and commit" >&2
  exit 1
fi
echo "generated/kotlin and generated/swift match"

echo "== UniFFI: the shipped library and bindings have no nonce seal; the test build has"
uniffi_build
# Each list is read whole before grep looks at it (with pipefail, grep -q closing the pipe would fail nm).
shipped=$(nm -D --defined-only "$uniffi_shipped_lib")
tested=$(nm -D --defined-only "$uniffi_lib")
grep -q 'keyring_seal$' <<<"$shipped" || { echo "no KeyRing.seal in the shipped library (is nm reading it?)" >&2; exit 1; }
if grep -q 'seal_with_nonce' <<<"$shipped"; then
  echo "the shipped libmrtr_uniffi.so exports a nonce seal" >&2
  exit 1
fi
if grep -rqi 'seal_\?with_\?nonce' "$uniffi_dir/generated"; then
  echo "the committed bindings declare a nonce seal: regenerate them from the shipped library" >&2
  exit 1
fi
grep -q 'keyring_test_only_seal_with_nonce$' <<<"$tested" ||
  { echo "the test build lacks KeyRing.test_only_seal_with_nonce: its feature is off" >&2; exit 1; }
echo "shipped: KeyRing.seal only; test build: test_only_seal_with_nonce too"

echo "== UniFFI: Swift parses (tree-sitter-swift), its C header compiles (gcc)"
"$uniffi_tools/venv/bin/python" "$uniffi_dir/tests/swift/parse_check.py" --self-test "$uniffi_dir/generated/swift/Mrtr.swift"
# The header Swift imports through MrtrFFI.modulemap; _Nullable/_Nonnull are Clang-only qualifiers.
echo '#include "MrtrFFI.h"' | gcc -fsyntax-only -std=c99 -Wall -Wextra -pedantic -Werror \
  -D_Nullable= -D_Nonnull= -I "$uniffi_dir/generated/swift" -x c -
echo "MrtrFFI.h compiles as C99"

echo "== UniFFI: Python unit tests (generated module)"
uniffi_python
PYTHONPATH="$uniffi_out/python" python3 "$uniffi_dir/tests/python/test_binding.py"

echo "== UniFFI: the mrtr-uniffi crate's Rust unit tests"
# With --features cli,test-vectors, as uniffi_build: one feature set, no rebuild between the two.
cd "$root"
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --no-fail-fast -p mrtr-uniffi --features cli,test-vectors --lib --tests
else
  cargo test --no-fail-fast -p mrtr-uniffi --features cli,test-vectors --lib --tests
fi
