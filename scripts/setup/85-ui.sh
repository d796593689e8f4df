#!/usr/bin/env bash
# The pages (`mrtr check --html`, `mrtr proxy --ui`): Debian's Chromium, which
# e2e/ui/run drives headless. Idempotent.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bash "$root/scripts/need-chromium.sh"
echo "ui setup ready: $(/usr/bin/chromium --version 2>/dev/null || echo 'chromium ?')"
