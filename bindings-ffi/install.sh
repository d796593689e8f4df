#!/usr/bin/env bash
# Installs the mrtr C library under PREFIX: include/mrtr.h,
# lib/libmrtr_ffi.{so,a} and lib/pkgconfig/mrtr.pc.
#   bindings-ffi/install.sh PREFIX [release|debug|dist]    (default: release)
# Builds the library with cargo first. scripts/tests/40-c.sh uses it to test
# the pkg-config file; scripts/release builds the C tarball with `dist`: the
# release build with no build-host paths and a stripped shared library
# (scripts/dist-env.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
prefix=${1:?usage: bindings-ffi/install.sh PREFIX [release|debug|dist]}
profile=${2:-release}
# shellcheck source=../scripts/dist-env.sh
. "$root/scripts/dist-env.sh"
case "$profile" in
  release) cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p mrtr-ffi; dir=release ;;
  debug) cargo build --quiet --manifest-path "$root/Cargo.toml" -p mrtr-ffi; dir=debug ;;
  dist) dist_cargo build --quiet --profile dist --manifest-path "$root/Cargo.toml" -p mrtr-ffi; dir=dist ;;
  *) echo "install.sh: profile is release, debug or dist" >&2; exit 2 ;;
esac
target=${CARGO_TARGET_DIR:-$root/target}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
install -D -m 644 "$here/include/mrtr.h" "$prefix/include/mrtr.h"
install -D -m 755 "$target/$dir/libmrtr_ffi.so" "$prefix/lib/libmrtr_ffi.so"
install -D -m 644 "$target/$dir/libmrtr_ffi.a" "$prefix/lib/libmrtr_ffi.a"
mkdir -p "$prefix/lib/pkgconfig"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" "$here/mrtr.pc.in" > "$prefix/lib/pkgconfig/mrtr.pc"
echo "installed mrtr $version ($profile) under $prefix"
