#!/usr/bin/env bash
# C: the Rust unit tests of the mrtr-ffi crate; the committed header is what
# the pinned cbindgen generates, and compiles warning-free as C99 and as C++;
# the unit tests (bindings-ffi/tests/test_api.c)
# and the conformance runner under valgrind and AddressSanitizer + UBSan; the
# shared library; the release build; pkg-config and the README's example.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
ffi="$root/bindings-ffi"
target=${CARGO_TARGET_DIR:-$root/target}
out="$target/mrtr-ffi-c/tests"
rm -rf "$out"
mkdir -p "$out"
CC=${CC:-gcc}
CXX=${CXX:-g++}
CBINDGEN="cbindgen 0.29.4"
warn=(-std=c99 -Wall -Wextra -pedantic -Werror)
read -r -a cjson_cflags <<<"$(pkg-config --cflags libcjson)"
read -r -a cjson_libs <<<"$(pkg-config --libs libcjson)"
sys_libs=(-lpthread -ldl -lm)
valgrind=(valgrind -q --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite --error-exitcode=1)
asan=(-O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all)

echo "== C: the mrtr-ffi crate's Rust unit tests"
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --no-fail-fast -p mrtr-ffi --lib
else
  cargo test --no-fail-fast -p mrtr-ffi --lib
fi

echo "== C: include/mrtr.h is what $CBINDGEN generates"
if [ "$(cbindgen --version 2>/dev/null)" != "$CBINDGEN" ]; then
  echo "need $CBINDGEN (scripts/setup/40-c.sh installs it)" >&2
  exit 1
fi
cbindgen --quiet --config "$ffi/cbindgen.toml" --crate mrtr-ffi --output "$out/mrtr.h" "$ffi"
if ! cmp -s "$ffi/include/mrtr.h" "$out/mrtr.h"; then
  diff -u "$ffi/include/mrtr.h" "$out/mrtr.h" || true
  echo "bindings-ffi/include/mrtr.h is stale: regenerate it with" >&2
  echo "  cbindgen --config bindings-ffi/cbindgen.toml --crate mrtr-ffi --output bindings-ffi/include/mrtr.h bindings-ffi" >&2
  exit 1
fi

echo "== C: the header compiles warning-free (gcc -std=c99 -pedantic, g++ -pedantic)"
printf '#include "mrtr.h"\nint main(void) {\n  mrtr_buf b = {0, 0};\n  return mrtr_buf_free(&b);\n}\n' >"$out/header.c"
cp "$out/header.c" "$out/header.cpp"
"$CC" "${warn[@]}" -I"$ffi/include" -c "$out/header.c" -o "$out/header.o"
"$CXX" -Wall -Wextra -pedantic -Werror -I"$ffi/include" -c "$out/header.cpp" -o "$out/header_cpp.o"

echo "== C: the library (debug build: double frees are caught)"
cargo build --quiet -p mrtr-ffi
# Copies, so that a concurrent cargo build cannot change the library under the links.
mkdir -p "$out/debug" "$out/release"
cp "$target/debug/libmrtr_ffi.a" "$target/debug/libmrtr_ffi.so" "$out/debug/"

# cbuild OUTPUT SOURCE LIBDIR [extra flags…]: a test program against LIBDIR's static library.
cbuild() {
  local output=$1 source=$2 libdir=$3
  shift 3
  "$CC" "${warn[@]}" -g "$@" -I"$ffi/include" "${cjson_cflags[@]}" \
    -DMRTR_DEFAULT_CORPUS="\"$root/conformance/cases\"" "$source" -o "$output" \
    "$libdir/libmrtr_ffi.a" "${cjson_libs[@]}" "${sys_libs[@]}"
}

cbuild "$out/test_api" "$ffi/tests/test_api.c" "$out/debug"
cbuild "$out/runner" "$ffi/tests/conformance_runner.c" "$out/debug"
cbuild "$out/test_api_asan" "$ffi/tests/test_api.c" "$out/debug" "${asan[@]}"
cbuild "$out/runner_asan" "$ffi/tests/conformance_runner.c" "$out/debug" "${asan[@]}"

echo "== C: unit tests"
"$out/test_api"
echo "== C: unit tests under valgrind"
"${valgrind[@]}" "$out/test_api"
# The runner only produces outcomes; the judge compares them with the corpus.
cargo build --quiet -p mrtr-conformance --bin mrtr-conformance
judge=("$target/debug/mrtr-conformance" judge --name c)
echo "== C: conformance runner under valgrind"
"${valgrind[@]}" "$out/runner" >"$out/runner.out"
"${judge[@]}" <"$out/runner.out"
echo "== C: unit tests under AddressSanitizer + UBSan"
"$out/test_api_asan"
echo "== C: conformance runner under AddressSanitizer + UBSan"
"$out/runner_asan" >"$out/runner_asan.out"
"${judge[@]}" <"$out/runner_asan.out"

echo "== C: unit tests against the shared library"
"$CC" "${warn[@]}" -g -I"$ffi/include" "${cjson_cflags[@]}" "$ffi/tests/test_api.c" -o "$out/test_api_shared" \
  -L"$out/debug" -Wl,-rpath,"$out/debug" -lmrtr_ffi "${cjson_libs[@]}" "${sys_libs[@]}"
"$out/test_api_shared"

echo "== C: unit tests against the release build"
cargo build --quiet --release -p mrtr-ffi
cp "$target/release/libmrtr_ffi.a" "$out/release/"
cbuild "$out/test_api_release" "$ffi/tests/test_api.c" "$out/release" -O2
"$out/test_api_release"

echo "== C: pkg-config and the README's example"
"$ffi/install.sh" "$out/prefix" release >/dev/null
export PKG_CONFIG_PATH="$out/prefix/lib/pkgconfig"
awk '/^```c$/ { inside = 1; next } /^```$/ { if (inside) exit } inside' "$ffi/README.md" >"$out/example.c"
[ -s "$out/example.c" ] || { echo "no C example in bindings-ffi/README.md" >&2; exit 1; }
read -r -a pc_cflags <<<"$(pkg-config --cflags mrtr)"
read -r -a pc_libs <<<"$(pkg-config --libs mrtr)"
# Static: the archive itself, then the system libraries of Libs.private (without
# -lmrtr_ffi, which would pick the shared library beside the archive).
read -r -a pc_static <<<"$(pkg-config --static --libs-only-l mrtr | sed 's/-lmrtr_ffi//')"
"$CC" "${warn[@]}" "${pc_cflags[@]}" "$out/example.c" -o "$out/example_shared" "${pc_libs[@]}" \
  -Wl,-rpath,"$out/prefix/lib"
"$CC" "${warn[@]}" "${pc_cflags[@]}" "$out/example.c" -o "$out/example_static" \
  "$(pkg-config --variable=libdir mrtr)/libmrtr_ffi.a" "${pc_static[@]}"
if readelf -d "$out/example_static" | grep -q 'libmrtr_ffi'; then
  echo "the static example needs libmrtr_ffi.so" >&2
  exit 1
fi
for example in "$out/example_shared" "$out/example_static"; do
  "$example" >"$out/example.out"
  grep -q '"requestState":"s1"' "$out/example.out"
  grep -q '^jsonrpc-parse-error' "$out/example.out"
done
"${valgrind[@]}" "$out/example_static" >/dev/null
echo "C: all checks passed"
