#!/usr/bin/env bash
# Regenerates the committed Kotlin and Swift sources (generated/) from the
# built library; run after changing the exported API or its doc comments.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
# shellcheck source=lib.sh
. "$root/bindings-ffi/uniffi/scripts/lib.sh"
uniffi_build
rm -rf "$uniffi_dir/generated/kotlin" "$uniffi_dir/generated/swift"
uniffi_generate kotlin "$uniffi_dir/generated/kotlin"
uniffi_generate swift "$uniffi_dir/generated/swift"
echo "regenerated $uniffi_dir/generated/{kotlin,swift}"
