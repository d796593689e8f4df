#!/usr/bin/env bash
# UniFFI bindings (bindings-ffi/uniffi): a venv with tree-sitter's Swift
# grammar (the Swift parse check) under target/uniffi-tools/. Idempotent: does
# nothing when it is present. uniffi-bindgen itself is not installed: it is
# the workspace's own bin (bindings-ffi/uniffi, feature `cli`, ~3 min cold in
# the dev profile), built by the tests at exactly the crate's uniffi version
# (PyPI's prebuilt `uniffi-bindgen` is 0.31, the project uses uniffi 0.32.2).
# Kotlin is compiled by the JVM package's Maven build (scripts/setup/62-jvm.sh:
# a JDK and Maven; Maven fetches Kotlin, JNA and JUnit from Maven Central).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tree_sitter="tree-sitter==0.26.1 tree-sitter-swift==0.7.4"
tools="${MRTR_UNIFFI_TOOLS:-$root/target/uniffi-tools}"
python="${PYTHON:-python3}"

mkdir -p "$tools"
venv="$tools/venv"
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.mrtr-requirements" 2>/dev/null)" = "$tree_sitter" ]; then
  echo "tree-sitter venv present"
else
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  # shellcheck disable=SC2086 # the pins are words
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $tree_sitter
  echo "$tree_sitter" >"$venv/.mrtr-requirements"
  echo "tree-sitter venv ready: $venv"
fi
