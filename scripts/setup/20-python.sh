#!/usr/bin/env bash
# Python binding: a project-local venv (target/venv-python) with maturin, the
# test tools and the official `mcp` package (the real peer). Idempotent: a venv
# whose pinned requirements are already installed is left alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"
python="${PYTHON:-python3}"
reqs="$root/bindings-python/requirements-dev.txt"
stamp="$venv/.mrtr-requirements"

if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && cmp -s "$reqs" "$stamp"; then
  echo "python venv up to date: $venv"
  exit 0
fi
"$python" -c 'import sys; assert sys.version_info >= (3, 10), "mcp needs Python >= 3.10"'
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$reqs"
cp "$reqs" "$stamp"
echo "python venv ready: $venv ($("$venv/bin/python" --version))"
