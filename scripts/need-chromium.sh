#!/usr/bin/env bash
# Debian's Chromium at /usr/bin/chromium, installed when missing: the browser
# the wasm binding's runner and the pages' test (e2e/ui/run) drive headless.
set -euo pipefail
if [ ! -x /usr/bin/chromium ]; then
  sudo=
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends chromium
fi
