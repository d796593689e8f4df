#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned
# in conformance/official/) against a server on the Python binding and a
# client on the Node binding, both built by the earlier suites.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
exec "$root/scripts/official-conformance"
