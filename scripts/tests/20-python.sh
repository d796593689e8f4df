#!/usr/bin/env bash
# Python: the binding built into the project's venv, its pytest suite (API,
# errors, bad input, ownership and threads, sealed state, the official `mcp`
# package as a real peer, the HTTP examples over loopback, the corpus), mypy
# --strict on the examples and the package, and a wheel installed into a
# fresh venv. The venv comes from scripts/setup/20-python.sh.
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

echo "== Python: wheel smoke (maturin build without test-vectors, fresh venv, pip install, import, classify, seal)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
maturin build --release --quiet --out "$tmp/dist"
wheel=$(ls "$tmp"/dist/mrtr-*.whl)
echo "built $(basename "$wheel")"
smoke() { # PYTHON: a fresh venv with that interpreter, the wheel, one classify
  "$1" -m venv "$tmp/venv-$2"
  "$tmp/venv-$2/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel"
  (cd "$tmp" && "$tmp/venv-$2/bin/python" - <<'PY'
import importlib.resources, sys
import mrtr
c = mrtr.classify(b'{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s1"}}')
assert c.kind is mrtr.Kind.INPUT_REQUIRED and c.id == 2, c
try:
    mrtr.classify(b"{")
except mrtr.ProtocolError as e:
    assert e.rule is mrtr.Rule.JSONRPC_PARSE_ERROR
files = {f.name for f in importlib.resources.files("mrtr").iterdir()}
assert {"py.typed", "_mrtr.pyi", "_enums.pyi", "_errors.pyi", "_types.py"} <= files, files
assert issubclass(mrtr.UsageError, TypeError) and issubclass(mrtr.UsageError, mrtr.MrtrError)
# A released wheel seals with the OS's nonces only: no test-vector seal, no nonce argument anywhere.
import secrets
nonce_names = [n for n in dir(mrtr.KeyRing) + dir(mrtr) + dir(mrtr._mrtr) if "nonce" in n.lower()]
assert not nonce_names, f"the released wheel can seal with a chosen nonce: {nonce_names}"
ring = mrtr.KeyRing(mrtr.Key(1, mrtr.Algorithm.XCHACHA20_POLY1305, secrets.token_bytes(32)))
binding = mrtr.Binding.for_request(
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}, "alice")
try:
    ring.seal(binding, 1000, 60, b"x", bytes(24))
    raise AssertionError("KeyRing.seal took a nonce")
except TypeError:
    pass
token = ring.seal(binding, 1000, 60, b"x")
assert ring.open(token, binding, 1001).payload == b"x" and mrtr.inspect(token).state_id != "00" * 24
print(f"wheel OK on Python {sys.version.split()[0]}: {c!r} from {mrtr.__file__}")
PY
  )
}
smoke "$venv/bin/python" venv
# The wheel is abi3 for Python >= 3.9: try the oldest interpreter too, where there is one.
candidates=$( (command -v pyenv >/dev/null && ls -d "$(pyenv root)"/versions/3.9*/bin/python3.9) 2>/dev/null || true)
for py39 in $candidates python3.9; do
  if "$py39" -c 'import sys, venv, ensurepip; assert sys.version_info[:2] == (3, 9)' 2>/dev/null; then
    smoke "$py39" py39
    break
  fi
done
