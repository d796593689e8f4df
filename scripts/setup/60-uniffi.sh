#!/usr/bin/env bash
# UniFFI bindings (bindings-ffi/uniffi): JNA and Gson from Debian (Kotlin's
# native access and the Kotlin runner's JSON), a pinned Kotlin compiler from
# the npm package `kotlin-compiler` (Debian's kotlin 1.3 is too old for
# UniFFI's output), and a venv with tree-sitter's Swift grammar (the Swift
# parse check), all under target/uniffi-tools/. Idempotent: does nothing when
# every piece is present. uniffi-bindgen itself is not installed: it is the
# workspace's own bin (bindings-ffi/uniffi, feature `cli`, ~3 min cold in the
# dev profile), built by the tests at exactly the crate's uniffi version (PyPI's
# prebuilt `uniffi-bindgen` is 0.31, the project uses uniffi 0.32.2).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
kotlin_version=2.4.20
tree_sitter="tree-sitter==0.26.1 tree-sitter-swift==0.7.4"
tools="${MRTR_UNIFFI_TOOLS:-$root/target/uniffi-tools}"
python="${PYTHON:-python3}"

missing=()
[ -f /usr/share/java/jna.jar ] || missing+=(libjna-java)
[ -f /usr/share/java/gson.jar ] || missing+=(libgoogle-gson-java)
command -v java >/dev/null || missing+=(openjdk-17-jdk-headless)
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  apt=($sudo env DEBIAN_FRONTEND=noninteractive apt-get -q)
  echo "apt-get install ${missing[*]}"
  if ! "${apt[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
    "${apt[@]}" update >/dev/null
    "${apt[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

mkdir -p "$tools"
kotlinc="$tools/node_modules/kotlin-compiler/bin/kotlinc"
if [ -x "$kotlinc" ] && [ "$(cat "$tools/.kotlin-version" 2>/dev/null)" = "$kotlin_version" ]; then
  echo "kotlin-compiler $kotlin_version present"
else
  [ -f "$tools/package.json" ] || echo '{"private": true}' >"$tools/package.json"
  npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "kotlin-compiler@$kotlin_version"
  chmod +x "$tools"/node_modules/kotlin-compiler/bin/* 2>/dev/null || true
  echo "$kotlin_version" >"$tools/.kotlin-version"
  echo "kotlin-compiler $kotlin_version ready: $kotlinc"
fi

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
