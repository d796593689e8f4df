#!/usr/bin/env bash
# Embedded: the no-allocator C library (bindings-ffi/bare, crate mrtr-ffi-bare)
# and its firmware. (Its header, include/mrtr_bare.h, is diffed against the
# pinned cbindgen with mrtr.h: scripts/tests/40-c.sh. The corpus on the
# emulated board is `scripts/conformance embedded`, which scripts/test runs
# after this.)
# - the crate's Rust unit tests (on the host);
# - the library for thumbv7em-none-eabihf and for the host, and the firmware
#   images, compiled with -std=c99 -Wall -Wextra -pedantic -Werror
#   (bindings-ffi/bare/firmware/build);
# - no allocator anywhere: neither Rust's nor the C library's;
# - classify's linked .text on the board, at most 24 KiB;
# - the same runner on the host, under valgrind, judged.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out="${CARGO_TARGET_DIR:-$root/target}/mrtr-embedded"
TEXT_BOUND=24576

echo "== Embedded: the mrtr-ffi-bare crate's Rust unit tests"
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --no-fail-fast -p mrtr-ffi-bare
else
  cargo test --no-fail-fast -p mrtr-ffi-bare
fi

echo "== Embedded: the library (thumbv7em-none-eabihf, host) and the firmware (C99, -pedantic -Werror)"
bindings-ffi/bare/firmware/build

echo "== Embedded: no allocator is linked (Rust's or the C library's)"
# (Each list is read whole before grep looks at it: with pipefail, grep -q closing the pipe early would fail nm.)
names=$(arm-none-eabi-nm "$out/thumbv7em/libmrtr_ffi_bare.a" 2>/dev/null)
grep -q ' T mrtr_bare_classify$' <<<"$names" || { echo "no mrtr_bare_classify in the library (is nm reading it?)" >&2; exit 1; }
if grep -E '__rust_alloc|__rdl_alloc|__rg_alloc|__rust_no_alloc_shim' <<<"$names"; then
  echo "the no-allocator library links Rust's allocator" >&2
  exit 1
fi
for elf in runner.elf footprint.elf; do
  names=$(arm-none-eabi-nm "$out/$elf")
  if grep -E ' (malloc|calloc|realloc|free|_sbrk|sbrk)$' <<<"$names"; then
    echo "$elf links an allocator" >&2
    exit 1
  fi
done
echo "no allocator: the library, runner.elf and footprint.elf"

echo "== Embedded: classify's linked .text on thumbv7em at most $TEXT_BOUND bytes"
text() { arm-none-eabi-size "$1" | awk 'NR == 2 { print $1 }'; }
classify_text=$(($(text "$out/footprint.elf") - $(text "$out/baseline.elf")))
echo "classify + the one-message checks: $classify_text bytes of .text (footprint.elf - baseline.elf)"
if [ "$classify_text" -gt "$TEXT_BOUND" ]; then
  echo "over the bound of $TEXT_BOUND bytes (docs/performance.md, \"On a microcontroller\")" >&2
  exit 1
fi

echo "== Embedded: the same runner on the host, under valgrind"
cargo build --quiet -p mrtr-conformance --bin mrtr-conformance
valgrind -q --error-exitcode=1 "$out/runner-host" >"$out/runner-host.out"
grep '^#' "$out/runner-host.out"
grep -v '^#' "$out/runner-host.out" | "${CARGO_TARGET_DIR:-$root/target}/debug/mrtr-conformance" judge --name embedded-host
echo "Embedded: all checks passed"
