#!/usr/bin/env bash
# Node: build the addon, the node:test suite (API, errors, Client, bad input,
# sealed state, real SDK peers, the examples over loopback, the corpus), the
# generated/declared types, and `npm pack` installed into a fresh folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pkg="$root/bindings-node"

echo "== Node: build the addon (napi build --platform --release); generated native.cjs / native.d.ts match the committed ones"
bash "$pkg/tools/build.sh" --check

echo "== Node: node:test"
(cd "$pkg" && node --test test/*.test.mjs test/*.test.cjs)

echo "== Node: npm pack, installed into a fresh folder, used from CommonJS and ESM"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$pkg" && npm pack --pack-destination "$tmp" --loglevel=error >/dev/null)
tarball=$(ls "$tmp"/mrtr-*.tgz)
tar -tzf "$tarball" | sed 's/^/  packed: /'
mkdir "$tmp/app"
cd "$tmp/app"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$tarball"
node -e '
  const mrtr = require("mrtr")
  const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "t", _meta: {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } } }
  const answer = mrtr.respond(call, null, "s1")
  if (mrtr.classify(answer).kind !== "input_required") throw new Error("classify")
  if (mrtr.retry(call, answer, {}, 2).params.requestState !== "s1") throw new Error("retry")
  try { mrtr.classify("{") ; throw new Error("no throw") } catch (e) { if (e.rule !== "jsonrpc-parse-error") throw e }
  console.log("  installed tarball works from CommonJS")'
node --input-type=module -e '
  import { classify, Rule, ProtocolError } from "mrtr"
  try { classify("[]") } catch (e) { if (!(e instanceof ProtocolError) || e.rule !== Rule.JsonrpcInvalid) throw e }
  console.log("  installed tarball works from ESM")'
