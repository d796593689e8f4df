#!/usr/bin/env bash
# Builds the Go SDK peers (peers/go/cmd/go-server, go-client) into $CARGO_TARGET_DIR/peers-go
# (target/peers-go by default), where peers/run finds them. Modules come from the Go module proxy
# (go.mod / go.sum pin github.com/modelcontextprotocol/go-sdk v1.8.0).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${CARGO_TARGET_DIR:-$root/target}/peers-go"
start=$(date +%s%N)
mkdir -p "$out"
cd "$here"
go build -o "$out/" ./cmd/go-server ./cmd/go-client
ms=$(( ($(date +%s%N) - start) / 1000000 ))
printf 'peers/go/build.sh: go-server, go-client in %s, %d.%03d s (%s)\n' "$out" $((ms / 1000)) $((ms % 1000)) "$(go version | cut -d' ' -f3)"
