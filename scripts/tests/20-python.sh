#!/usr/bin/env bash
# Python: the binding built into the project's venv, its pytest suite (API,
# errors, bad input, ownership and threads, sealed state, the official `mcp`
# package as a real peer, the HTTP examples over loopback, the corpus), mypy
# --strict on the examples and the package, and stubtest. The venv comes
# from scripts/setup/20-python.sh. The wheel and the sdist as users install
# them (fresh venvs of 3.9 and the newest Python, the README's examples, no
# nonce seal in what ships) are scripts/release's python kind, which CI runs
# after the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"
[ -x "$venv/bin/maturin" ] || bash "$root/scripts/setup/20-python.sh"
export VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH"
cd "$root/bindings-python"

echo "== Python: build the extension into $venv (maturin develop --release --features test-vectors)"
# test-vectors: the test-only KeyRing._seal_with_nonce_for_test_vectors the corpus' seal vectors need; the
# wheel below is built without it, as a release is.
maturin develop --release --features test-vectors --quiet

echo "== Python: pytest (benches excluded)"
python -m pytest -q tests

echo "== Python: mypy --strict (the usage example, the HTTP examples, the package and its stubs)"
mypy --strict examples python/mrtr

echo "== Python: stubtest (_mrtr.pyi against the native module as built: every name, signature and default)"
python -m mypy.stubtest mrtr._mrtr --allowlist stubtest-allowlist.txt

echo "== scripts/release on a machine without the Python setup: it names what is missing and the setup that installs it"
# (issue #46: a fresh clone's `scripts/release --dry-run --only python` died with a traceback)
empty=$(mktemp -d)
said=$(cd "$root" && MRTR_SKIP_SETUP=1 MRTR_PYTHON_VENV="$empty" python3 scripts/release --dry-run --only python 2>&1) && {
  echo "scripts/release ran without maturin" >&2
  exit 1
}
rmdir "$empty"
grep -q "python: maturin in $empty/bin (bash scripts/setup/20-python.sh)" <<<"$said" || {
  echo "scripts/release said instead: $said" >&2
  exit 1
}
! grep -q Traceback <<<"$said" || { echo "scripts/release: a traceback: $said" >&2; exit 1; }
