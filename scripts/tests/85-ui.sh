#!/usr/bin/env bash
# The pages in a real browser (e2e/ui/run): `mrtr check --html` of a
# recording, `mrtr proxy --ui` and `mrtr bridge --ui` live, each rendered by headless Chromium
# and read back (a row per operation, a bar per round, a marker per
# violation), a screenshot of each kept in target/ui-artifacts.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
echo "== ui: the mrtr command (cargo build -p mrtr-cli)"
cargo build --quiet -p mrtr-cli
echo "== ui: the pages in headless Chromium (e2e/ui/run)"
python3 e2e/ui/run
