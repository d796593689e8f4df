"""The Python runner of the mrtr conformance corpus, through the UniFFI binding.

Uses the module UniFFI generates (``mrtr_uniffi.py``, with
``libmrtr_uniffi.so`` beside it; ``scripts/runners/uniffi-python`` puts both
in ``target/uniffi/python`` and sets ``PYTHONPATH``). It produces, one judge
compares (``conformance/src/judge.rs``; ``scripts/conformance uniffi-python``
pipes this to it): for every case below ``MRTR_CONFORMANCE_DIR`` one line on
stdout, ``{"id", "outcome"}`` with what the binding returned in the corpus's
expectation shape (``{"error": rule}`` for an ``MrtrError``), or ``{"id",
"crash"}`` when the runner cannot run the case; nothing else. Exits 2 when the
corpus cannot be read.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Dict, Optional

import mrtr_uniffi as m

ROOT = Path(__file__).resolve().parents[4]


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def text(i: Dict[str, Any], key: str) -> str:
    v = i.get(key)
    return v if isinstance(v, str) else ""


def protocol(i: Dict[str, Any]) -> str:
    return text(i, "protocol") or "2026-07-28"


def number(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def classify(i: Dict[str, Any]) -> Dict[str, Any]:
    c = m.classify_bytes(bytes.fromhex(i["hex"]), protocol(i)) if "hex" in i else m.classify(text(i, "text"), protocol(i))
    return {"kind": c.kind.name.lower(), "id": json.loads(c.id_json), "method": c.method}


def check(i: Dict[str, Any]) -> Dict[str, Any]:
    config = i.get("config") or {}
    max_rounds = config.get("maxRounds", 10)
    violations = m.check(dumps(i.get("transcript")), protocol(config), max_rounds, config.get("transport"))
    return {"violations": [{"rule": v.rule, "index": v.index, "message": v.message} for v in violations]}


def sse(i: Dict[str, Any]) -> Dict[str, Any]:
    """Each chunk's UTF-8 bytes fed to a decoder, the stream ended, every block listed (an unreadable one as its rule)."""
    decoder = m.SseDecoder()
    for chunk in i["chunks"]:
        decoder.feed(chunk.encode("utf-8"))
    decoder.finish()
    events = []
    while True:
        try:
            block = decoder.poll_event()
        except m.MrtrError as e:
            events.append({"error": e.rule})
            continue
        if block is None:
            return {"events": events}
        events.append({k: v for k, v in (("event", block.event), ("data", block.data), ("id", block.id), ("retry", block.retry)) if v is not None})


def http_event(e: Any) -> Dict[str, Any]:
    """An ``HttpCallEvent`` in the core's JSON shape."""
    kinds = {m.HttpCallEvent.SERVER_REQUEST: "serverRequest", m.HttpCallEvent.MESSAGE: "message", m.HttpCallEvent.RESPONSE: "response"}
    for cls, name in kinds.items():
        if isinstance(e, cls):
            return {"type": name, "message": json.loads(e.message_json)}
    name = "violation" if isinstance(e, m.HttpCallEvent.VIOLATION) else "failed"
    return {"type": name, "rule": e.rule, "message": e.message}


def drain(call: Any) -> list:
    """What the call has to say after an input, in the drain order."""
    out: list = []
    while (r := call.poll_transmit()) is not None:
        sent = {"exchange": r.exchange, "method": r.method, "url": r.url, "headers": dict(r.headers)}
        if r.body_json is not None:
            sent["body"] = json.loads(r.body_json)
        out.append({"send": sent})
    while (e := call.poll_event()) is not None:
        out.append({"event": http_event(e)})
    if (t := call.poll_timeout()) is not None:
        out.append({"timeout": t})
    return out


def http_client(i: Dict[str, Any]) -> Dict[str, Any]:
    """The call driven by the steps; after its creation and after each step, what it sends, its events, its timeout."""
    now = number(i.get("now")) or 0
    try:
        call = m.HttpCall(dumps(i.get("config")), dumps(i.get("request")), now)
    except m.MrtrError as e:
        return {"outputs": [[{"error": e.rule}]]}
    outputs = [drain(call)]
    for s in i["steps"]:
        if number(s.get("at")) is not None:
            now = s["at"]
        try:
            if "head" in s:
                h = s["head"]
                call.handle_head(h["exchange"], h["status"], h.get("headers") or {}, now)
            elif "body" in s:
                b = s["body"]
                call.handle_body(b["exchange"], bytes.fromhex(b["hex"]) if "hex" in b else b["text"].encode("utf-8"), now)
            elif "end" in s:
                call.handle_end(s["end"]["exchange"], now)
            elif "answer" in s:
                call.answer(dumps(s["answer"]), now)
            elif number(s.get("timeout")) is not None:
                now = s["timeout"]
                call.handle_timeout(now)
            else:
                raise ValueError(f"unknown step {s!r}")
        except m.MrtrError as e:
            outputs.append([{"error": e.rule}])
            continue
        outputs.append(drain(call))
    return {"outputs": outputs}


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


class UsedBefore:
    """The replay guard of ``open.used``: the ids listed were used before (hex compared as the core compares ids)."""

    def __init__(self, used: Any) -> None:
        self.used = {u.lower() for u in used if isinstance(u, str)}

    def first_use(self, state_id: str, expiry: int) -> bool:
        return state_id.lower() not in self.used


def state(i: Dict[str, Any]) -> Dict[str, Any]:
    keys = i["keys"]
    ring = m.KeyRing(keys[0]["id"], keys[0]["alg"], bytes.fromhex(keys[0]["secret"]))
    for k in keys[1:]:
        ring.add(k["id"], k["alg"], bytes.fromhex(k["secret"]))
    if number(i.get("current")) is not None:
        ring.set_current(i["current"])
    if number(i.get("maxTokenBytes")) is not None:
        ring.set_max_token_bytes(i["maxTokenBytes"])
    if isinstance(i.get("context"), str):
        ring.set_context(i["context"].encode())
    # bindingText verbatim: its numbers stay exact; a binding object as JSON text.
    text_ = i["bindingText"] if isinstance(i.get("bindingText"), str) else dumps(i.get("binding"))
    binding = m.binding_from_json(text_)
    if isinstance(i.get("seal"), dict):
        s = i["seal"]
        return {"token": ring.test_only_seal_with_nonce(binding, s["now"], s["ttl"], text(s, "payload").encode(), bytes.fromhex(s["nonce"]))}
    o = i.get("open") or {}
    guard = UsedBefore(o["used"]) if isinstance(o.get("used"), list) else None
    opened = ring.open(text(o, "token"), binding, number(o.get("now")) or 0, guard)
    return {"payload": opened.payload.decode("utf-8", errors="replace"), "stateId": opened.state_id, "expiry": opened.expiry}


OPS: Dict[str, Callable[[Dict[str, Any]], Dict[str, Any]]] = {
    "classify": classify,
    "check": check,
    "retry": retry,
    "resume": resume,
    "respond": respond,
    "state": state,
    "sse": sse,
    "http-client": http_client,
}


def line(case: Dict[str, Any]) -> Dict[str, Any]:
    """The runner's line for one case: its outcome, or why the runner could not run it."""
    op, i = OPS.get(case.get("op", "")), case.get("input") or {}
    try:
        if op is None:
            raise LookupError(f"unknown op {case.get('op')!r}")
        try:
            return {"id": case.get("id", ""), "outcome": op(i)}
        except m.MrtrError as e:
            return {"id": case.get("id", ""), "outcome": {"error": e.rule}}
    except Exception as e:  # noqa: BLE001 - any other failure is the runner's crash on this case
        return {"id": case.get("id", ""), "crash": f"{type(e).__name__}: {e}"}


def main() -> int:
    given = os.environ.get("MRTR_CONFORMANCE_DIR")
    directory = Path(given) if given else ROOT / "conformance" / "cases"
    try:
        if not directory.is_dir():
            raise OSError(f"{directory} is not a folder")
        cases = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.rglob("*.json"), key=str)]
    except (OSError, ValueError) as e:
        print(f"cannot load the corpus: {e}", file=sys.stderr)
        return 2
    for case in cases:
        print(dumps(line(case)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
