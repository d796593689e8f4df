#!/usr/bin/env bash
# C: the Rust unit tests of the mrtr-ffi crate; the committed headers (mrtr.h,
# and mrtr_bare.h of the no-allocator library, whose other tests are
# scripts/tests/45-embedded.sh) are what the pinned cbindgen generates, and
# compile warning-free as C99 and as C++, alone and together;
# the unit tests (bindings-ffi/tests/test_api.c)
# and the conformance runner under valgrind and AddressSanitizer + UBSan; the
# shared library; the release build; pkg-config and the README's example.
#
# Two builds of the library: the debug one with the crate feature
# `test-vectors` (mrtr_keyring_seal_with_nonce, which the conformance runner
# needs to seal with a case's nonce; the C sources are compiled with
# -DMRTR_TEST_VECTORS), and the release one without it, which is what
# install.sh ships: the script shows with nm that its archive and shared
# library lack the symbol, and the unit tests check it again through dlsym
# against the release shared library.
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
  cargo nextest run --no-fail-fast -p mrtr-ffi --features test-vectors --lib
else
  cargo test --no-fail-fast -p mrtr-ffi --features test-vectors --lib
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

echo "== C: include/mrtr_bare.h (the no-allocator library, bindings-ffi/bare) is what $CBINDGEN generates"
cbindgen --quiet --config "$ffi/bare/cbindgen.toml" --crate mrtr-ffi-bare --output "$out/mrtr_bare.h" "$ffi/bare"
if ! cmp -s "$ffi/include/mrtr_bare.h" "$out/mrtr_bare.h"; then
  diff -u "$ffi/include/mrtr_bare.h" "$out/mrtr_bare.h" || true
  echo "bindings-ffi/include/mrtr_bare.h is stale: regenerate it with" >&2
  echo "  cbindgen --config bindings-ffi/bare/cbindgen.toml --crate mrtr-ffi-bare --output bindings-ffi/include/mrtr_bare.h bindings-ffi/bare" >&2
  exit 1
fi

echo "== C: the headers compile warning-free, alone and together (gcc -std=c99 -pedantic, g++ -pedantic)"
printf '#include "mrtr.h"\n#include "mrtr_bare.h"\nint main(void) {\n  mrtr_buf b = {0, 0};\n  return mrtr_buf_free(&b) + (int)sizeof(mrtr_bare_classified);\n}\n' >"$out/header.c"
cp "$out/header.c" "$out/header.cpp"
"$CC" "${warn[@]}" -I"$ffi/include" -c "$out/header.c" -o "$out/header.o"
"$CXX" -Wall -Wextra -pedantic -Werror -I"$ffi/include" -c "$out/header.cpp" -o "$out/header_cpp.o"

echo "== C: the library (debug build with test vectors: double frees are caught)"
cargo build --quiet -p mrtr-ffi --features test-vectors
# Copies, so that a concurrent cargo build cannot change the library under the links.
mkdir -p "$out/debug" "$out/release"
cp "$target/debug/libmrtr_ffi.a" "$target/debug/libmrtr_ffi.so" "$out/debug/"

# cbuild OUTPUT SOURCE LIBDIR [extra flags…]: a test program against LIBDIR's static library
# (-DMRTR_TEST_VECTORS: the library has the test-vector exports).
cbuild() {
  local output=$1 source=$2 libdir=$3
  shift 3
  "$CC" "${warn[@]}" -g "$@" -I"$ffi/include" "${cjson_cflags[@]}" \
    -DMRTR_DEFAULT_CORPUS="\"$root/conformance/cases\"" "$source" -o "$output" \
    "$libdir/libmrtr_ffi.a" "${cjson_libs[@]}" "${sys_libs[@]}"
}

vectors=(-DMRTR_TEST_VECTORS)
cbuild "$out/test_api" "$ffi/tests/test_api.c" "$out/debug" "${vectors[@]}"
cbuild "$out/runner" "$ffi/tests/conformance_runner.c" "$out/debug" "${vectors[@]}"
cbuild "$out/test_api_asan" "$ffi/tests/test_api.c" "$out/debug" "${vectors[@]}" "${asan[@]}"
cbuild "$out/runner_asan" "$ffi/tests/conformance_runner.c" "$out/debug" "${vectors[@]}" "${asan[@]}"

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
"$CC" "${warn[@]}" -g "${vectors[@]}" -I"$ffi/include" "${cjson_cflags[@]}" "$ffi/tests/test_api.c" \
  -o "$out/test_api_shared" -L"$out/debug" -Wl,-rpath,"$out/debug" -lmrtr_ffi "${cjson_libs[@]}" "${sys_libs[@]}"
"$out/test_api_shared"

echo "== C: unit tests against the release build (no test vectors)"
cargo build --quiet --release -p mrtr-ffi
cp "$target/release/libmrtr_ffi.a" "$target/release/libmrtr_ffi.so" "$out/release/"
cbuild "$out/test_api_release" "$ffi/tests/test_api.c" "$out/release" -O2
"$out/test_api_release"
"$CC" "${warn[@]}" -O2 -I"$ffi/include" "${cjson_cflags[@]}" "$ffi/tests/test_api.c" -o "$out/test_api_release_shared" \
  -L"$out/release" -Wl,-rpath,"$out/release" -lmrtr_ffi "${cjson_libs[@]}" "${sys_libs[@]}"
"$out/test_api_release_shared"

echo "== C: the release library has no nonce seal; the test-vector one has (nm)"
# exports FILE: the names of the functions FILE defines (an archive, or a shared library's dynamic table).
exports() {
  case "$1" in
    *.so) nm -D --defined-only "$1" ;;
    *) nm -g --defined-only "$1" 2>/dev/null ;;
  esac | awk '$2 == "T" { print $3 }'
}
# (Each list is read whole before grep looks at it: with pipefail, grep -q closing the pipe early would fail nm.)
for lib in "$out/release/libmrtr_ffi.a" "$out/release/libmrtr_ffi.so"; do
  names=$(exports "$lib")
  grep -qx mrtr_keyring_seal <<<"$names" || { echo "$lib: no mrtr_keyring_seal (is nm reading it?)" >&2; exit 1; }
  if grep -qx mrtr_keyring_seal_with_nonce <<<"$names"; then
    echo "$lib exports mrtr_keyring_seal_with_nonce: the release build must not have test vectors" >&2
    exit 1
  fi
done
for lib in "$out/debug/libmrtr_ffi.a" "$out/debug/libmrtr_ffi.so"; do
  grep -qx mrtr_keyring_seal_with_nonce <<<"$(exports "$lib")" ||
    { echo "$lib lacks mrtr_keyring_seal_with_nonce: the test-vector build lost its feature" >&2; exit 1; }
done
echo "release: mrtr_keyring_seal only; debug (test-vectors): mrtr_keyring_seal_with_nonce too"

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

echo "== C: the quickstart (docs/quickstart/c.md): its server and client built through pkg-config, the client answering the ask"
python3 "$root/scripts/quickstart-docs" c
quick="$ffi/examples/quickstart"
for program in server client; do
  "$CC" "${warn[@]}" "${pc_cflags[@]}" "${cjson_cflags[@]}" "$quick/$program.c" -o "$out/quickstart_$program" "${pc_libs[@]}" \
    "${cjson_libs[@]}" -Wl,-rpath,"$out/prefix/lib"
done
"$out/quickstart_server" 0 >"$out/quickstart_server.out" &
quick_pid=$!
for _ in $(seq 100); do grep -q '^listening on ' "$out/quickstart_server.out" && break; sleep 0.05; done
quick_url=$(sed -n 's/^listening on //p' "$out/quickstart_server.out")
quick_said=$(echo Ada | timeout 30 "${valgrind[@]}" "$out/quickstart_client" "$quick_url") || { kill "$quick_pid"; exit 1; }
kill "$quick_pid"
[ "$quick_said" = "What is your name? Hello, Ada!" ] || { echo "the C quickstart's client said: $quick_said" >&2; exit 1; }
echo "C: all checks passed"
