# Shared by scripts/runners/uniffi-python, scripts/tests/60-uniffi.sh and
# bindings-jvm/scripts/native (sourced, with $root set to the project root).
# Builds the cdylib and the generator, generates bindings. (Kotlin compiles in
# the JVM package's Maven build, bindings-jvm.)
#
# Two builds of the library: the shipped one (no test-vector exports), which
# the committed generated/ sources are made from, and the test one (feature
# `test-vectors`: KeyRing.test_only_seal_with_nonce), which the unit tests and
# the corpus runners use with bindings generated from it into target/uniffi/.

uniffi_dir="$root/bindings-ffi/uniffi"
uniffi_out="$root/target/uniffi"
uniffi_tools="${MRTR_UNIFFI_TOOLS:-$root/target/uniffi-tools}"
cargo_target="${CARGO_TARGET_DIR:-$root/target}"
uniffi_lib="$cargo_target/debug/libmrtr_uniffi.so"
uniffi_bindgen="$cargo_target/debug/uniffi-bindgen"

# The tools of scripts/setup/60-uniffi.sh, installed if a piece is missing.
uniffi_tools_ready() {
  if [ ! -x "$uniffi_tools/venv/bin/python" ]; then
    bash "$root/scripts/setup/60-uniffi.sh" >&2
  fi
}

# The test cdylib and uniffi-bindgen, dev profile, in one build (one feature
# set, so the two never rebuild each other).
uniffi_build() {
  cargo build --quiet --manifest-path "$root/Cargo.toml" -p mrtr-uniffi --features cli,test-vectors
}

# The shipped cdylib (no test vectors), copied to $uniffi_shipped_lib: the test
# build that follows overwrites target/debug/libmrtr_uniffi.so.
uniffi_shipped_lib="$uniffi_out/shipped/libmrtr_uniffi.so"
uniffi_build_shipped() {
  cargo build --quiet --manifest-path "$root/Cargo.toml" -p mrtr-uniffi --features cli
  mkdir -p "$(dirname "$uniffi_shipped_lib")"
  cp "$uniffi_lib" "$uniffi_shipped_lib"
}

# uniffi_generate LANGUAGE OUT_DIR [LIBRARY]: the bindings of a built library
# (default: the test build). The Kotlin is patched (scripts/patch-kotlin.py: a
# string that is not valid UTF-16 is MrtrException.Usage, not an undeclared
# CharacterCodingException).
uniffi_generate() {
  "$uniffi_bindgen" generate "${3:-$uniffi_lib}" --language "$1" --out-dir "$2" --no-format --metadata-no-deps >/dev/null
  if [ "$1" = kotlin ]; then
    python3 "$uniffi_dir/scripts/patch-kotlin.py" "$2/mrtr/mrtr_uniffi.kt"
  fi
}

# The Python module with the library beside it (a link: always the latest build).
uniffi_python() {
  uniffi_generate python "$uniffi_out/python"
  ln -sfn "$uniffi_lib" "$uniffi_out/python/libmrtr_uniffi.so"
}
