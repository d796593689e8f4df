#!/usr/bin/env bash
# The cluster (deploy/cluster, scripts/cluster): Debian's nginx and
# redis-server (with redis-cli), the instances' and the figure's Python
# packages (deploy/cluster/requirements.txt: redis-py, matplotlib) into the
# project venv (made by setup/20-python.sh when missing), and the Node
# instance's packages (deploy/cluster/package-lock.json). Idempotent and quick
# when everything is present. The services are started by scripts/cluster
# itself, on free ports of 127.0.0.1, and stopped when it ends: nothing here
# starts one (Debian's packages do not start them without systemd either).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv="${MRTR_PYTHON_VENV:-$root/target/venv-python}"

"$(dirname "$0")/debian-packages" nginx redis-server redis-tools

[ -x "$venv/bin/python" ] || bash "$root/scripts/setup/20-python.sh"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$root/deploy/cluster/requirements.txt"

if [ -f "$root/deploy/cluster/package-lock.json" ]; then
  (cd "$root/deploy/cluster" && npm ci --no-audit --no-fund --loglevel=error)
fi
