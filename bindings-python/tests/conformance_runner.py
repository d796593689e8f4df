"""The Python runner of the mrtr conformance corpus.

Loads every case below ``MRTR_CONFORMANCE_DIR`` (default: the project's
``conformance/cases``), drives the ``mrtr`` package's public API with it, and
compares as ``conformance/README.md`` says. As a script it prints one line per
failing case and a closing ``N passed, M failed``, and exits non-zero on any
failure or an empty corpus. ``tests/test_conformance.py`` runs the same cases
under pytest.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import mrtr

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent.parent / "conformance" / "cases"


def corpus_dir() -> Path:
    """``MRTR_CONFORMANCE_DIR``, or the project's corpus."""
    given = os.environ.get("MRTR_CONFORMANCE_DIR")
    return Path(given) if given else DEFAULT_CORPUS


@dataclass
class Case:
    id: str
    op: str
    input: Any
    expect: Any
    path: Path


def load(directory: Optional[Path] = None) -> List[Case]:
    """Every ``*.json`` case below ``directory``, sorted by path."""
    directory = directory or corpus_dir()
    cases = []
    for path in sorted(directory.rglob("*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        cases.append(Case(raw.get("id", ""), raw.get("op", ""), raw.get("input"), raw.get("expect"), path))
    return cases


# --- the ops, through the public API ------------------------------------------------


def _classify(i: Dict[str, Any]) -> Dict[str, Any]:
    c = mrtr.classify(i.get("text") or "", protocol=i.get("protocol"))
    return {"kind": c.kind.value, "id": c.id, "method": c.method}


def _check(i: Dict[str, Any]) -> Dict[str, Any]:
    config = i.get("config") or {}
    violations = mrtr.check(
        i["transcript"], protocol=config.get("protocol"), max_rounds=config.get("maxRounds", 10)
    )
    return {"violations": [{"rule": v.rule.value, "index": v.index} for v in violations]}


def _retry(i: Dict[str, Any]) -> Dict[str, Any]:
    request = mrtr.retry(
        i.get("request"),
        i.get("result"),
        i.get("inputResponses", {}),
        i.get("id"),
        protocol=i.get("protocol"),
    )
    return {"request": request}


def _resume(i: Dict[str, Any]) -> Dict[str, Any]:
    r = mrtr.resume(i.get("request"), i.get("needs", {}), protocol=i.get("protocol"))
    return {"responses": r.responses, "missing": r.missing, "ignored": r.ignored, "requestState": r.request_state}


def _respond(i: Dict[str, Any]) -> Dict[str, Any]:
    response = mrtr.respond(
        i.get("request"), i.get("inputRequests"), i.get("requestState"), protocol=i.get("protocol")
    )
    return {"response": response}


def _state(i: Dict[str, Any]) -> Dict[str, Any]:
    keys = [mrtr.Key(k["id"], k["alg"], bytes.fromhex(k["secret"])) for k in i["keys"]]
    ring = mrtr.KeyRing(keys[0], *keys[1:])
    if "current" in i:
        ring.set_current(i["current"])
    if "maxTokenBytes" in i:
        ring.set_max_token_bytes(i["maxTokenBytes"])
    b = i.get("binding") or {}
    binding = mrtr.Binding(
        b.get("subject", ""),
        b.get("method", ""),
        b.get("target", ""),
        b.get("arguments", {}),
        protocol=b.get("protocol"),
    )
    if "seal" in i:
        s = i["seal"]
        token = ring.seal_with_nonce(binding, s["now"], s["ttl"], s.get("payload", "").encode(), bytes.fromhex(s["nonce"]))
        return {"token": token}
    o = i["open"]
    payload = ring.open(o.get("token", ""), binding, o.get("now", 0))
    return {"payload": payload.decode("utf-8", errors="replace")}


OPS: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]] = {
    "classify": _classify,
    "check": _check,
    "retry": _retry,
    "resume": _resume,
    "respond": _respond,
    "state": _state,
}


def outcome(op: str, input: Dict[str, Any]) -> Dict[str, Any]:
    """The outcome of ``op`` on ``input``, as the corpus writes expectations."""
    if op not in OPS:
        raise ValueError(f"unknown op {op!r}")
    try:
        return OPS[op](input)
    except mrtr.MrtrError as e:
        return {"error": e.rule.value}


# --- comparison ----------------------------------------------------------------------


def json_eq(a: Any, b: Any) -> bool:
    """JSON equality: key order ignored, numbers by value, booleans never numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_eq(v, b[k]) for k, v in a.items())
    return type(a) is type(b) and a == b


def set_eq(a: Any, b: Any) -> bool:
    """Arrays compared as sets (each element matched once)."""
    if not (isinstance(a, list) and isinstance(b, list)):
        return json_eq(a, b)
    left = list(b)
    for x in a:
        for j, y in enumerate(left):
            if json_eq(x, y):
                del left[j]
                break
        else:
            return False
    return not left


SETS = {("check", "violations"), ("resume", "missing"), ("resume", "ignored")}


def compare(op: str, expect: Any, actual: Dict[str, Any]) -> Optional[str]:
    """``None`` when ``actual`` meets ``expect``, else why not."""
    if "error" in expect or "error" in actual:
        return None if json_eq(expect.get("error"), actual.get("error")) else "outcome differs"
    for key, want in expect.items():
        got = actual.get(key)
        same = set_eq(want, got) if (op, key) in SETS else json_eq(want, got)
        if not same:
            return f"{key!r} differs"
    return None


def run(case: Case) -> Optional[str]:
    """``None`` when ``case`` passes, else a one-line reason."""
    try:
        actual = outcome(case.op, case.input)
    except Exception as e:  # a crash of the binding is a failure, not a skip
        return f"raised {type(e).__name__}: {e}"
    why = compare(case.op, case.expect, actual)
    if why is None:
        return None
    return f"{why}; expected {json.dumps(case.expect)}, actual {json.dumps(actual)}"


def main(argv: Optional[List[str]] = None) -> int:
    directory = corpus_dir()
    cases = load(directory)
    if not cases:
        print(f"no case found in {directory}")
        print("0 passed, 0 failed")
        return 1
    failures: List[Tuple[Case, str]] = []
    for case in cases:
        why = run(case)
        if why is not None:
            failures.append((case, why))
            print(f"FAIL {case.id} ({case.path.relative_to(directory)}): {why}")
    print(f"{len(cases) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
