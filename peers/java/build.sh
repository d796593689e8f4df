#!/usr/bin/env bash
# Builds the Java SDK peers (peers/java: peers.JavaServer, peers.JavaClient on the SDK's legacy
# 2025-11-25 stack; peers.JavaModernServer, peers.JavaModernClient on its modern 2026-07-28 MRTR stack,
# io.modelcontextprotocol.modern) into one runnable jar,
# $CARGO_TARGET_DIR/peers-java/java-peers.jar (target/ by default), where peers/run finds it (and
# builds it by this script when it is missing or its sources changed: java-peers.sources holds their
# digest). Dependencies come from Maven Central into ~/.m2 (pom.xml pins
# io.modelcontextprotocol.sdk:mcp 2.2.0 and Jetty 12.1); Maven's build folder is under the target
# dir too, so the checkout stays clean. JDK 17 or newer, Maven 3.8 or newer.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${CARGO_TARGET_DIR:-$root/target}/peers-java"
start=$(date +%s%N)
mkdir -p "$out"
rm -f "$out/java-peers.sources"
mvn -q -B -Dstyle.color=never -f "$here/pom.xml" -DbuildDirectory="$out/build" package 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
cp "$out/build/java-peers.jar" "$out/java-peers.jar"
# The sources' digest, as peers/run computes it: each path under peers/, a NUL, its bytes.
(
  cd "$here/.."
  { printf '%s\n' java/pom.xml java/build.sh; find java/src -name '*.java'; } | LC_ALL=C sort | while read -r f; do
    printf '%s\0' "$f"
    cat "$f"
  done
) | sha256sum | cut -d' ' -f1 >"$out/java-peers.sources"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
printf 'peers/java/build.sh: java-peers.jar in %s, %d.%03d s (%s)\n' "$out" $((ms / 1000)) $((ms % 1000)) \
  "$(java -version 2>&1 | head -1)"
