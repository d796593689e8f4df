#!/usr/bin/env bash
# Builds the Go peers into $CARGO_TARGET_DIR/peers-go (target/peers-go by default), where peers/run
# finds them: the Go SDK's (peers/go/cmd/go-server, go-client; go.mod / go.sum pin
# github.com/modelcontextprotocol/go-sdk v1.8.0) and mcp-go's (peers/mcpgo/cmd/mcpgo-server,
# mcpgo-client, a module of its own pinning github.com/mark3labs/mcp-go v1.2.1). Modules come from
# the Go module proxy.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${CARGO_TARGET_DIR:-$root/target}/peers-go"
start=$(date +%s%N)
mkdir -p "$out"
cd "$here"
go build -o "$out/" ./cmd/go-server ./cmd/go-client
(cd "$here/../mcpgo" && go build -o "$out/" ./cmd/mcpgo-server ./cmd/mcpgo-client)
ms=$(( ($(date +%s%N) - start) / 1000000 ))
printf 'peers/go/build.sh: go-server, go-client, mcpgo-server, mcpgo-client in %s, %d.%03d s (%s)\n' "$out" $((ms / 1000)) $((ms % 1000)) "$(go version | cut -d' ' -f3)"
