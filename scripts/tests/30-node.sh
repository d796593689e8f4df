#!/usr/bin/env bash
# Node: build the addon of the package (release, never with test vectors) and
# the tests' addon (cargo feature test-vectors, for the corpus's sealing
# vectors; it stays in target/napi-node-test-vectors/), the node:test suite
# (API, errors, Client, bad input, sealed state, real SDK peers, the examples
# over loopback, the corpus, the packed addon's lack of test vectors), the
# generated/declared types, and `npm pack` installed into a fresh folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pkg="$root/bindings-node"

echo "== Node: build the addon (napi build --platform --release); generated native.cjs / native.d.ts match the committed ones"
bash "$pkg/tools/build.sh" --check
echo "== Node: build the tests' addon (--features test-vectors); it generates the same native.cjs / native.d.ts"
bash "$pkg/tools/build.sh" --test-vectors --check

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
  // The packed addon is the release build: it never seals with a nonce of the caller.
  const dir = require("node:path").dirname(require.resolve("mrtr"))
  if (require(dir + "/native.cjs").sealWithNonceForTestVectors !== undefined) throw new Error("test vectors packed")
  const ring = new mrtr.KeyRing({ id: 1, algorithm: "xchacha20-poly1305", secret: crypto.getRandomValues(new Uint8Array(32)) })
  const b = { subject: "alice", method: "tools/call", target: "t", params: { name: "t" } }
  try { mrtr.__sealWithNonceForTestVectors(ring, b, 1, 60, "x", "00".repeat(24)); throw new Error("sealed with a nonce") } catch (e) { if (e.rule !== "usage-invalid-argument") throw e }
  if (ring.open(ring.seal(b, 1, 60, "x"), b, 2).payload.toString() !== "x") throw new Error("seal/open")
  console.log("  installed tarball works from CommonJS, and never seals with a nonce of the caller")'
node --input-type=module -e '
  import { classify, Rule, ProtocolError } from "mrtr"
  try { classify("[]") } catch (e) { if (!(e instanceof ProtocolError) || e.rule !== Rule.JsonrpcInvalid) throw e }
  console.log("  installed tarball works from ESM")'
