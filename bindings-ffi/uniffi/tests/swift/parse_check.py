"""Checks that generated Swift sources parse (tree-sitter's Swift grammar).

Swift cannot be compiled or run on this machine; this is the check that can
run: every file given must parse with no ERROR or MISSING node, and must
declare what the binding exports (a parse that silently skipped the file would
find nothing). Exits non-zero otherwise. With --self-test, also shows that a
broken file is caught.

One construct is rewritten before parsing: the grammar (0.7.4) cannot parse
an attribute alone inside a conditional-compilation block, which UniFFI puts
before each of its internal helpers:

    #if swift(>=5.8)
    @_documentation(visibility: private)
    #endif
    public func FfiConverter…

The `#if`/`#endif` lines become blank lines (what Swift >= 5.8 reads; the line
numbers stay). Nothing else is touched.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import List

import tree_sitter_swift
from tree_sitter import Language, Node, Parser

SWIFT = Language(tree_sitter_swift.language())

# Declarations the generated module must contain (UniFFI's Swift names).
EXPECTED = [
    r"public\s+enum\s+MrtrError\b",
    r"public\s+func\s+classify\(",
    r"public\s+func\s+check\(",
    r"public\s+func\s+retry\(",
    r"public\s+func\s+respond\(",
    r"public\s+func\s+resume\(",
    r"public\s+func\s+taskUpdate\(",
    r"open\s+class\s+Client\b",
    r"open\s+class\s+KeyRing\b",
    r"open\s+class\s+Checker\b",
]

UNPARSED = re.compile(rb"#if swift\(>=5\.8\)\n([ \t]*@_documentation\(visibility: private\))\n#endif\n")
REWRITTEN = rb"\n\1\n\n"


def problems(source: bytes) -> List[str]:
    source = UNPARSED.sub(REWRITTEN, source)
    tree = Parser(SWIFT).parse(source)
    found: List[str] = []
    stack: List[Node] = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            kind = "missing " + node.type if node.is_missing else "error"
            line = node.start_point[0] + 1
            text = source.splitlines()[line - 1].decode(errors="replace").strip() if source else ""
            found.append(f"line {line}: {kind}: {text[:100]}")
        elif node.has_error:
            stack.extend(node.children)
    return found


def main(argv: List[str]) -> int:
    self_test = "--self-test" in argv
    paths = [Path(a) for a in argv if a != "--self-test"]
    failed = False
    for path in paths:
        source = path.read_bytes()
        found = problems(source)
        for p in found[:20]:
            print(f"{path}: {p}")
        text = source.decode()
        absent = [e for e in EXPECTED if not re.search(e, text)]
        for e in absent:
            print(f"{path}: no {e!r}")
        failed |= bool(found or absent)
        lines = source.count(b"\n")
        rewritten = len(UNPARSED.findall(source))
        verdict = "FAILED" if found or absent else "parses, no ERROR/MISSING node"
        print(f"{path}: {lines} lines, {verdict} ({rewritten} #if-wrapped attributes unwrapped)")
        if self_test:
            broken = source.replace(b"Foundation.LocalizedError {", b"Foundation.LocalizedError {{", 1)
            caught = bool(problems(broken))
            print(f"self-test: a stray brace is {'caught' if caught else 'NOT caught'}")
            failed |= not caught
    return 1 if failed or not paths else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
