"""The Python runner of the mrtr conformance corpus, through the UniFFI binding.

Uses the module UniFFI generates (``mrtr_uniffi.py``, with
``libmrtr_uniffi.so`` beside it; ``scripts/runners/uniffi-python`` puts both
in ``target/uniffi/python`` and sets ``PYTHONPATH``). Loads every case below
``MRTR_CONFORMANCE_DIR``, drives the binding with it, compares as
``conformance/README.md`` says, prints one line per failing case and a closing
``N passed, M failed``, and exits non-zero on any failure or an empty corpus.
"""

from __future__ import annotations

import json
import os
import string
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import mrtr_uniffi as m

DEFAULT_PROTOCOL = "2026-07-28"
ROOT = Path(__file__).resolve().parents[4]


class BadInput(Exception):
    """A case input the runner itself cannot use: ``jsonrpc-invalid``, as the Rust runner says."""


def corpus_dir() -> Path:
    given = os.environ.get("MRTR_CONFORMANCE_DIR")
    return Path(given) if given else ROOT / "conformance" / "cases"


def load(directory: Path) -> List[Tuple[str, str, Any, Any]]:
    if not directory.is_dir():
        raise OSError(f"{directory} is not a folder")
    cases = []
    for path in sorted(directory.rglob("*.json"), key=str):
        raw = json.loads(path.read_text(encoding="utf-8"))
        cases.append((raw.get("id", ""), raw.get("op", ""), raw.get("input") or {}, raw.get("expect")))
    return cases


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def text(i: Dict[str, Any], key: str) -> Optional[str]:
    v = i.get(key)
    return v if isinstance(v, str) else None


def protocol(i: Dict[str, Any]) -> str:
    return text(i, "protocol") or DEFAULT_PROTOCOL


def number(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def hexbytes(v: Any) -> bytes:
    if not isinstance(v, str):
        raise BadInput("hex string expected")
    if len(v) % 2 or any(c not in string.hexdigits for c in v):
        raise BadInput("bad hex")
    return bytes.fromhex(v)


# --- the ops, through the binding ---------------------------------------------------------


def classify(i: Dict[str, Any]) -> Dict[str, Any]:
    c = m.classify(text(i, "text") or "", protocol(i))
    return {"kind": c.kind.name.lower(), "id": json.loads(c.id_json), "method": c.method}


def check(i: Dict[str, Any]) -> Dict[str, Any]:
    config = i.get("config") if isinstance(i.get("config"), dict) else {}
    max_rounds = number(config.get("maxRounds"))
    violations = m.check(dumps(i.get("transcript")), protocol(config), 10 if max_rounds is None else max_rounds)
    return {"violations": [{"rule": v.rule, "index": v.index} for v in violations]}


def retry(i: Dict[str, Any]) -> Dict[str, Any]:
    request = m.retry(
        dumps(i.get("request")), dumps(i.get("result")), dumps(i.get("inputResponses", {})), dumps(i.get("id")), protocol(i)
    )
    return {"request": json.loads(request)}


def resume(i: Dict[str, Any]) -> Dict[str, Any]:
    r = m.resume(dumps(i.get("request")), dumps(i.get("needs", {})), protocol(i))
    return {"responses": json.loads(r.responses_json), "missing": r.missing, "ignored": r.ignored, "requestState": r.request_state}


def respond(i: Dict[str, Any]) -> Dict[str, Any]:
    present = lambda k: None if i.get(k) is None else dumps(i[k])  # noqa: E731
    return {"response": json.loads(m.respond(dumps(i.get("request")), present("inputRequests"), present("requestState"), protocol(i)))}


def state(i: Dict[str, Any]) -> Dict[str, Any]:
    keys = i.get("keys")
    if not isinstance(keys, list) or not keys:
        raise BadInput("keys")
    ring = None
    for k in keys:
        key_id = number(k.get("id"))
        if key_id is None:
            raise BadInput("key id")
        secret = hexbytes(k.get("secret"))
        if len(secret) != 32:
            raise BadInput("a secret is 32 bytes")
        if ring is None:
            ring = m.KeyRing(key_id % 256, text(k, "alg") or "", secret)
        else:
            ring.add(key_id % 256, text(k, "alg") or "", secret)
    if number(i.get("current")) is not None:
        ring.set_current(i["current"] % 256)
    if number(i.get("maxTokenBytes")) is not None:
        ring.set_max_token_bytes(i["maxTokenBytes"])
    b = i.get("binding") if isinstance(i.get("binding"), dict) else {}
    binding = m.Binding(
        subject=text(b, "subject") or "",
        protocol=protocol(b),
        method=text(b, "method") or "",
        target=text(b, "target") or "",
        params_digest=m.params_digest(dumps(b.get("arguments", {}))),
    )
    if isinstance(i.get("seal"), dict):
        s = i["seal"]
        now, ttl = number(s.get("now")), number(s.get("ttl"))
        if now is None or ttl is None:
            raise BadInput("now/ttl")
        payload = (text(s, "payload") or "").encode()
        return {"token": ring.seal_with_nonce(binding, now, ttl % 2**32, payload, hexbytes(s.get("nonce")))}
    o = i.get("open") if isinstance(i.get("open"), dict) else {}
    payload = ring.open(text(o, "token") or "", binding, number(o.get("now")) or 0)
    return {"payload": payload.decode("utf-8", errors="replace")}


OPS: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]] = {
    "classify": classify,
    "check": check,
    "retry": retry,
    "resume": resume,
    "respond": respond,
    "state": state,
}


def rule_of(e: m.MrtrError) -> str:
    return e.rule  # every variant carries .rule


def outcome(op: str, i: Dict[str, Any]) -> Any:
    if op not in OPS:
        raise LookupError(f"unknown op {op!r}")
    try:
        return OPS[op](i)
    except m.MrtrError as e:
        return {"error": rule_of(e)}
    except BadInput:
        return {"error": "jsonrpc-invalid"}


# --- comparison ---------------------------------------------------------------------------


def json_eq(a: Any, b: Any) -> bool:
    """JSON equality: key order ignored, numbers by value (never a bool for a number)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(k in b and json_eq(v, b[k]) for k, v in a.items())
    return type(a) is type(b) and a == b


def set_eq(a: Any, b: Any) -> bool:
    if not (isinstance(a, list) and isinstance(b, list)):
        return json_eq(a, b)
    left = list(b)
    for v in a:
        i = next((n for n, w in enumerate(left) if json_eq(v, w)), None)
        if i is None:
            return False
        left.pop(i)
    return not left


def compare(op: str, expect: Any, actual: Any) -> Optional[str]:
    if not isinstance(expect, dict):
        return "expect must be an object"
    if "error" in expect or "error" in actual:
        return None if json_eq(expect.get("error"), actual.get("error")) else "outcome differs"
    for key, want in expect.items():
        as_set = (op, key) in {("check", "violations"), ("resume", "missing"), ("resume", "ignored")}
        if not (set_eq if as_set else json_eq)(want, actual.get(key)):
            return f"{key!r} differs"
    return None


def main() -> int:
    directory = corpus_dir()
    try:
        cases = load(directory)
    except (OSError, ValueError) as e:
        print(f"cannot load the corpus: {e}", file=sys.stderr)
        return 2
    failed = 0
    for case_id, op, i, expect in cases:
        try:
            actual = outcome(op, i)
            why = compare(op, expect, actual)
            if why is not None:
                why = f"{why}\n  expected: {dumps(expect)}\n  actual:   {dumps(actual)}"
        except Exception as e:  # noqa: BLE001 - any failure of a case is a failing line
            why = f"{type(e).__name__}: {e}"
        if why is not None:
            failed += 1
            print(f"FAIL {case_id}: " + why.replace("\n", "\n     "))
    print(f"{len(cases) - failed} passed, {failed} failed")
    if not cases:
        print(f"no case found in {directory}", file=sys.stderr)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
