# The build of what a release ships (sourced, with $root set to the project
# root): bindings-ffi/install.sh (the C tarball), bindings-jvm/scripts/native
# (the jar's library); scripts/release builds the wheel with the same flags.
#
#   dist_cargo build -p CRATE --profile dist ...
#
# runs cargo with the cargo profile `dist` (Cargo.toml: the release profile,
# its shared libraries stripped) and every source path a panic location
# carries remapped to a fixed one, so that no artifact holds the build host's
# checkout, target folder, $CARGO_HOME or rustup paths (security review
# 2026-12-07, I8): the checkout -> /mrtr, the target folder -> /target,
# $CARGO_HOME -> /cargo, $RUSTUP_HOME -> /rustup (the wasm build remaps the
# first and third the same way). The flags apply to that one command only
# (CARGO_ENCODED_RUSTFLAGS): the profile's own folder (target/dist) keeps them
# from rebuilding any other build.

# The flags, separated by 0x1f as CARGO_ENCODED_RUSTFLAGS wants them (a path
# may hold spaces). The target folder comes after the checkout: it may lie
# inside it, and the last matching prefix wins.
dist_rustflags() {
  local cargo_home=${CARGO_HOME:-$HOME/.cargo}
  local rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
  local target=${CARGO_TARGET_DIR:-$root/target}
  local sep=$'\x1f'
  printf '%s' "--remap-path-prefix=$root=/mrtr$sep--remap-path-prefix=$target=/target$sep--remap-path-prefix=$cargo_home=/cargo$sep--remap-path-prefix=$rustup_home=/rustup"
}

dist_cargo() {
  CARGO_ENCODED_RUSTFLAGS=$(dist_rustflags) cargo "$@"
}
