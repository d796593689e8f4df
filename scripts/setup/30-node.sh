#!/usr/bin/env bash
# Node binding: the npm dev dependencies of bindings-node (napi CLI, the
# official MCP TypeScript SDKs as real peers, ajv, zod, tinybench, typescript),
# pinned in package.json and package-lock.json. `npm install`, not `npm ci`
# (the registry lacks some of the napi CLI's optional platform packages at
# their newest versions, so `npm ci` finds the lockfile out of sync).
# Idempotent: a node_modules installed from the same lockfile is left alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pkg="$root/bindings-node"
stamp="$pkg/node_modules/.mrtr-package-lock.json"
node -e 'const [major] = process.versions.node.split("."); if (+major < 20) { console.error("Node >= 20 needed, found " + process.version); process.exit(1) }'
if [ -f "$stamp" ] && cmp -s "$pkg/package-lock.json" "$stamp"; then
  echo "node_modules up to date: $pkg/node_modules"
  exit 0
fi
(cd "$pkg" && npm install --no-audit --no-fund --loglevel=error)
cp "$pkg/package-lock.json" "$stamp"
echo "node_modules ready: $pkg/node_modules (node $(node --version))"
