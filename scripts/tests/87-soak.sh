#!/usr/bin/env bash
# The soak, short: `mrtr bridge` and `mrtr proxy --ui` (debug builds) for 45 s
# under honest two-round calls mixed with every abuse of the security review of
# 2026-12-07 (slow readers, a flood of initialize, bodies over the message
# bound, trickled bodies, half-open connections, foreign Origin/Host and
# text/plain POSTs, large requests while the live page is polled). It fails,
# naming the expectation, when an honest call is lost, when a gateway's peak
# RSS passes its memory formula (docs/cli.md, "Memory"), or when a
# foreign-origin or text/plain request is not refused. The results are in
# target/soak.json. The 30-minute run: scripts/soak --seconds 1800 --release.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
echo "== soak: the bridge and the proxy under honest traffic and every abuse, 45 s (scripts/soak)"
scripts/soak --seconds 45 --out target/soak.json
