#!/usr/bin/env bash
# Regenerates the committed Kotlin and Swift sources (generated/) from the
# built library; run after changing the exported API or its doc comments.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=lib.sh
. "$root/bindings-ffi/uniffi/scripts/lib.sh"
# From the shipped library: the committed bindings have no test-vector exports.
uniffi_build_shipped
rm -rf "$uniffi_dir/generated/kotlin" "$uniffi_dir/generated/swift"
uniffi_generate kotlin "$uniffi_dir/generated/kotlin" "$uniffi_shipped_lib"
uniffi_generate swift "$uniffi_dir/generated/swift" "$uniffi_shipped_lib"
echo "regenerated $uniffi_dir/generated/{kotlin,swift}"
