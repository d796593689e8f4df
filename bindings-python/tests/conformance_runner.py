"""The Python runner of the mrtr conformance corpus: it produces, the judge compares.

Loads every case below ``MRTR_CONFORMANCE_DIR`` (default: the project's
``conformance/cases``), drives the ``mrtr`` package's public API with it, and
prints one line per case, nothing else: ``{"id", "outcome"}`` (what the API
returned, in the corpus' expectation shape; an ``MrtrError`` is ``{"error":
<rule id>}``) or ``{"id", "crash"}`` when the runner could not run the case.
``scripts/conformance python`` pipes the lines to ``mrtr-conformance judge``,
which decides what passes (conformance/src/judge.rs).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional

import mrtr

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "conformance" / "cases"


def corpus_dir() -> Path:
    """``MRTR_CONFORMANCE_DIR``, or the project's corpus."""
    return Path(os.environ.get("MRTR_CONFORMANCE_DIR") or DEFAULT_CORPUS)


def load(directory: Optional[Path] = None) -> List[Dict[str, Any]]:
    """Every ``*.json`` case below ``directory``, sorted by path."""
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((directory or corpus_dir()).rglob("*.json"))]


# --- the ops, through the public API ------------------------------------------------


def _classify(i: Dict[str, Any]) -> Dict[str, Any]:
    # ``hex``: raw bytes a JSON string cannot hold (invalid UTF-8), passed as ``bytes``.
    message = bytes.fromhex(i["hex"]) if "hex" in i else i.get("text") or ""
    c = mrtr.classify(message, protocol=i.get("protocol"))
    return {"kind": c.kind.value, "id": c.id, "method": c.method}


def _check(i: Dict[str, Any]) -> Dict[str, Any]:
    config = i.get("config") or {}
    found = mrtr.check(
        i["transcript"],
        protocol=config.get("protocol"),
        max_rounds=config.get("maxRounds"),
        transport=config.get("transport"),
    )
    return {"violations": [{"rule": v.rule.value, "index": v.index, "message": v.message} for v in found]}


def _retry(i: Dict[str, Any]) -> Dict[str, Any]:
    responses = i.get("inputResponses", {})
    return {"request": mrtr.retry(i.get("request"), i.get("result"), responses, i.get("id"), protocol=i.get("protocol"))}


def _resume(i: Dict[str, Any]) -> Dict[str, Any]:
    r = mrtr.resume(i.get("request"), i.get("needs", {}), protocol=i.get("protocol"))
    return {"responses": r.responses, "missing": r.missing, "ignored": r.ignored, "requestState": r.request_state}


def _respond(i: Dict[str, Any]) -> Dict[str, Any]:
    asked, state = i.get("inputRequests"), i.get("requestState")
    return {"response": mrtr.respond(i.get("request"), asked, state, protocol=i.get("protocol"))}


def _binding(i: Dict[str, Any]) -> Any:
    """The case's binding through the public API: ``bindingText`` verbatim (JSON text: its numbers stay
    exact), else the ``binding`` object as a dict, so that the core refuses it as it refuses it in every
    binding."""
    return i["bindingText"] if "bindingText" in i else i.get("binding") or {}


def _state(i: Dict[str, Any]) -> Dict[str, Any]:
    first, *others = i["keys"]
    ring = mrtr.KeyRing(first["id"], first["alg"], secret=bytes.fromhex(first["secret"]))
    for k in others:
        ring.add(k["id"], k["alg"], secret=bytes.fromhex(k["secret"]))
    ring.set_current(first["id"])
    if "current" in i:
        ring.set_current(i["current"])
    if "maxTokenBytes" in i:
        ring.set_max_token_bytes(i["maxTokenBytes"])
    if "context" in i:
        ring.set_context(i["context"])
    binding = _binding(i)
    if "seal" in i:
        s = i["seal"]
        # Only builds with the cargo feature `test-vectors` seal with a given nonce (never a released wheel).
        seal = getattr(ring, "_seal_with_nonce_for_test_vectors", None)
        if seal is None:
            raise RuntimeError("this build of mrtr lacks the feature test-vectors (maturin develop --features test-vectors)")
        token: str = seal(binding, s["now"], s["ttl"], s.get("payload", "").encode(), bytes.fromhex(s["nonce"]))
        return {"token": token}
    o = i["open"]
    guard: Optional[Callable[[str, int], bool]] = None
    if "used" in o:  # a replay guard that has seen these ids (hex, in either case)
        used = {u.lower() for u in o["used"]}

        def seen(state_id: str, expiry: int) -> bool:
            return state_id not in used

        guard = seen

    opened = ring.open(o.get("token", ""), binding, o.get("now", 0), guard=guard)
    payload = opened.payload.decode("utf-8", errors="replace")
    return {"payload": payload, "stateId": opened.state_id, "expiry": opened.expiry}


def _sse(i: Dict[str, Any]) -> Dict[str, Any]:
    """Every chunk's UTF-8 bytes fed to an ``SseDecoder``, the stream ended, every block listed (one the decoder
    raises for in its place, as ``{"error": rule}``)."""
    decoder = mrtr.SseDecoder()
    for chunk in i["chunks"]:
        decoder.feed(chunk.encode("utf-8", "surrogatepass"))
    decoder.finish()
    events: List[Dict[str, Any]] = []
    while True:
        try:
            block = decoder.poll_event()
        except mrtr.MrtrError as e:
            events.append({"error": e.rule.value})
            continue
        if block is None:
            return {"events": events}
        events.append(block)


def _drain(call: mrtr.HttpCall) -> List[Dict[str, Any]]:
    """What the machine has to say after an input, in the drain order: requests to send, events, the timeout."""
    out: List[Dict[str, Any]] = [{"send": r} for r in call.drain_transmits()]
    out += [{"event": e} for e in call.drain_events()]
    at = call.poll_timeout()
    return out + ([{"timeout": at}] if at is not None else [])


def _http_client(i: Dict[str, Any]) -> Dict[str, Any]:
    """An ``HttpCall`` driven by the script's steps (conformance/README.md, "http-client"); after its creation
    and after each step, its outputs, or ``[{"error": rule}]`` for an input the API refused."""
    now: int = i.get("now", 0)
    try:
        call = mrtr.HttpCall(i["request"], now, i["config"])
    except mrtr.MrtrError as e:
        return {"outputs": [[{"error": e.rule.value}]]}
    outputs = [_drain(call)]
    for step in i["steps"]:
        now = step.get("at", now)
        try:
            if "head" in step:
                h = step["head"]
                call.handle_head(h["exchange"], h["status"], h.get("headers"), now)
            elif "body" in step:
                b = step["body"]
                chunk = bytes.fromhex(b["hex"]) if "hex" in b else b["text"].encode("utf-8", "surrogatepass")
                call.handle_body(b["exchange"], chunk, now)
            elif "end" in step:
                call.handle_end(step["end"]["exchange"], now)
            elif "answer" in step:
                call.answer(step["answer"], now)
            elif "timeout" in step:
                now = step["timeout"]
                call.handle_timeout(now)
            else:
                raise ValueError(f"unknown step {step!r}")
        except mrtr.MrtrError as e:
            outputs.append([{"error": e.rule.value}])
            continue
        outputs.append(_drain(call))
    return {"outputs": outputs}


OPS: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]] = {
    "classify": _classify,
    "check": _check,
    "retry": _retry,
    "resume": _resume,
    "respond": _respond,
    "state": _state,
    "sse": _sse,
    "http-client": _http_client,
}


def produce(case: Dict[str, Any]) -> Dict[str, Any]:
    """The line for ``case``: its outcome through the public API, or why the runner could not run it."""
    op = OPS.get(case.get("op", ""))
    if op is None:
        return {"id": case.get("id"), "crash": f"unknown op {case.get('op')!r}"}
    try:
        return {"id": case.get("id"), "outcome": op(case.get("input") or {})}
    except mrtr.MrtrError as e:
        return {"id": case.get("id"), "outcome": {"error": e.rule.value}}
    except Exception as e:  # a crash of the binding is a failure, never a skip
        return {"id": case.get("id"), "crash": f"{type(e).__name__}: {e}"}


def lines(cases: List[Dict[str, Any]]) -> Iterator[str]:
    """One JSON line per case."""
    return (json.dumps(produce(case)) for case in cases)


if __name__ == "__main__":
    for line in lines(load()):
        print(line)
    sys.exit(0)
