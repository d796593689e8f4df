#!/usr/bin/env bash
# The project's own checking scripts, checked: each fault scripts/layers exists to find is planted in a
# scratch copy of the working tree, and the script must report it (exit 1, naming it); what it must
# let pass (comments, doc comments, strings, test modules) is planted too, and it must stay quiet.
# The docs/ARCHITECTURE.md it checks is rewritten by `scripts/layers --write` and then passes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mrtr-scripts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The files git would commit (tracked and new, none ignored), as they are now.
git ls-files -z -co --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$tmp"
copy="$tmp"
failures=0

# run: scripts/layers in the copy; sets rc and out (stdout and stderr).
run() {
  rc=0
  out=$(cd "$copy" && python3 scripts/layers "$@" 2>&1) || rc=$?
}
# planted FILE TEXT: appends TEXT to FILE of the copy, keeping the original to restore.
planted() {
  cp "$copy/$1" "$tmp/.saved"
  printf '\n%s\n' "$2" >>"$copy/$1"
  saved=$1
}
restore() { cp "$tmp/.saved" "$copy/$saved"; }
# expect_fault WHAT PATTERN: the script exits 1 and prints PATTERN.
expect_fault() {
  run
  if [ "$rc" = 1 ] && grep -qF -- "$2" <<<"$out"; then
    echo "ok: $1 is reported"
  else
    echo "FAIL: $1: expected exit 1 and '$2', got exit $rc:" >&2
    tail -n 8 <<<"$out" >&2
    failures=$((failures + 1))
  fi
}
expect_clean() {
  run
  if [ "$rc" = 0 ]; then
    echo "ok: $1"
  else
    echo "FAIL: $1: expected exit 0, got $rc:" >&2
    tail -n 8 <<<"$out" >&2
    failures=$((failures + 1))
  fi
}

echo "== scripts/layers: the tree as it is passes"
expect_clean "the tree as it is"
[ "$failures" = 0 ] || { echo "scripts/layers fails on the tree itself: fix that first" >&2; exit 1; }

echo "== scripts/layers: upward imports, however written"
planted core/src/base/limits.rs 'use crate::machines::http;'
expect_fault "an upward use item (base imports machines)" "upward import: crate::machines::http"
restore
planted core/src/request/form.rs 'use crate::{base::error::Error as E, rounds::{round::{self, replay}}};'
expect_fault "an upward import in a nested use group" "upward import: crate::rounds::round"
restore
planted core/src/read/json.rs 'fn planted() -> usize { crate::conversation::check::check as usize }'
expect_fault "an upward inline path" "upward import: crate::conversation::check"
restore
planted core/src/machines/http/call.rs 'use super::super::super::conversation::har;'
expect_fault "an upward import through super::" "upward import: crate::conversation::har"
restore

echo "== scripts/layers: flat root paths in code"
planted core/src/base/kind.rs 'use crate::Error;'
expect_fault "a flat path in a use item" "flat path crate::Error"
restore
planted core/src/machines/server/tasks.rs 'fn planted(b: &[u8]) { let _ = crate::parse(b, &Default::default()); }'
expect_fault "a flat inline path" "flat path crate::parse: name the layer (crate::one_message::envelope"
restore

echo "== scripts/layers: what is no import"
planted core/src/base/kind.rs '// crate::Error and crate::machines::http in a comment
/// [`crate::Error`], [`crate::conversation::check`] in a doc comment
/* crate::http in a block comment */
const PLANTED: &str = "crate::conversation::check and crate::Error in a string";
const PLANTED_RAW: &str = r#"use crate::rounds::round; "#;
#[cfg(test)]
mod planted_tests {
    use crate::conversation::check;
    use crate::Error;
}'
expect_clean "comments, doc comments, strings and a test module are no imports"
restore

echo "== scripts/layers: cycles, stray files, the tables of differences"
planted core/src/read/validate.rs 'use crate::read::view::Obj;'
expect_fault "a cycle within a layer (view -> validate -> view)" "import cycle: validate -> view -> validate"
restore
echo '//! planted' >"$copy/core/src/stray.rs"
expect_fault "a file outside the layers' folders" "core/src/stray.rs is in no layer's folder"
rm "$copy/core/src/stray.rs"
planted core/src/request/retry.rs 'fn planted(p: Protocol) -> bool { p == Protocol::V2025_11_25 }'
expect_fault "a protocol compared with a version" "compares a version"
restore
planted core/src/machines/client/mod.rs 'fn planted(m: Mode) -> bool { matches!(m, Mode::Sep1335 | Mode::Legacy) }'
expect_fault "a transport mode matched on" "compares a transport mode"
restore

echo "== scripts/layers: docs/ARCHITECTURE.md's generated parts"
cp "$copy/docs/ARCHITECTURE.md" "$tmp/.page"
sed -i 's/^\(0 base\/ *\)error    -> rules/\1error    -> rules kind/' "$copy/docs/ARCHITECTURE.md"
! cmp -s "$copy/docs/ARCHITECTURE.md" "$tmp/.page" || { echo "FAIL: the graph's line for error was not found to edit" >&2; exit 1; }
expect_fault "an edited graph" "its generated parts differ"
touch "$copy/fuzz/fuzz_targets/planted.rs"
expect_fault "a new fuzz target the page does not list" "its generated parts differ"
run --write
if [ "$rc" = 0 ] && grep -q "wrote docs/ARCHITECTURE.md" <<<"$out" && grep -q '`planted`' "$copy/docs/ARCHITECTURE.md"; then
  echo "ok: --write rewrites the page (with the new fuzz target)"
else
  echo "FAIL: --write: exit $rc" >&2
  failures=$((failures + 1))
fi
rm "$copy/fuzz/fuzz_targets/planted.rs"
run --write
if cmp -s "$copy/docs/ARCHITECTURE.md" "$tmp/.page"; then echo "ok: --write gives back the page as committed"; else
  echo "FAIL: --write does not give back the page" >&2
  diff "$tmp/.page" "$copy/docs/ARCHITECTURE.md" >&2 || true
  failures=$((failures + 1))
fi
mkdir "$copy/planted-folder"
expect_fault "a top-level folder of no kind" "top-level folder planted-folder/ has no kind"
rmdir "$copy/planted-folder"
expect_clean "the copy, every plant removed"

[ "$failures" = 0 ] || { echo "scripts/tests/05-scripts.sh: $failures failed" >&2; exit 1; }
echo "scripts/layers: every planted fault reported"
