#!/usr/bin/env bash
# Embedded: the no-allocator C library (bindings-ffi/bare) on an emulated
# Cortex-M4. From Debian (apt, as root): qemu-system-arm (the board:
# mps2-an386, output and exit through semihosting), gcc-arm-none-eabi and
# picolibc-arm-none-eabi (the C firmware: its start-up code, linker script and
# semihosting stdio; binutils-arm-none-eabi comes with them, for
# arm-none-eabi-size), valgrind (the host run of the same runner, and the
# figures' callgrind counts). rustup's thumbv7em-none-eabihf target. About 20 s
# of apt on a fresh machine; idempotent and quick when everything is present.
set -euo pipefail
grep -qx thumbv7em-none-eabihf <<<"$(rustup target list --installed)" || rustup target add thumbv7em-none-eabihf

"$(dirname "$0")/debian-packages" qemu-system-arm gcc-arm-none-eabi picolibc-arm-none-eabi valgrind
