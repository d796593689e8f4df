#!/usr/bin/env bash
# C: cJSON, valgrind and pkg-config from Debian (a compiler is already there for
# Rust), and cbindgen at the version that generated bindings-ffi/include/mrtr.h.
# Idempotent and quick when everything is present; CI runs it as root.
set -euo pipefail
CBINDGEN_VERSION=0.29.4

"$(dirname "$0")/debian-packages" libcjson-dev valgrind pkg-config g++

# Compiled from source: none of the registries this project reaches
# has a prebuilt cbindgen at this version (Debian 12's `cbindgen` is 0.24.3; npm
# and PyPI have none), and the header must be exactly what this version makes.
if [ "$(cbindgen --version 2>/dev/null)" != "cbindgen $CBINDGEN_VERSION" ]; then
  # --debug: it compiles in ~25 s, runs in 0.4 s instead of 0.25, and writes the same header.
  cargo install --locked cbindgen --version "$CBINDGEN_VERSION" --debug
fi
