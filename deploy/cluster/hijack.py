"""The legacy mode's answers stay in their session (security review M4), shown against a live instance.

    python deploy/cluster/hijack.py http://127.0.0.1:PORT [...]    (each an instance, not the balancer)

On each instance: a victim initializes (session A) and calls ``plan`` (legacy mode, 2025-11-25); the instance
asks its first question (an elicitation) on the call's stream under some id X. An attacker who learned or
guessed X POSTs an answer to it, ``Mallory``:
- from its own session B: refused (HTTP 400, a JSON-RPC error without id, ``usage-unknown-handle``);
- with no session: refused (400);
then the victim answers its own questions (``Ada``, in session A: 202 each) and its call ends with its own
answer (``planned hijack-… for Ada``), not the attacker's; and the victim's answer sent twice is refused.
Prints one line per instance; exits 1 when any step went otherwise.
"""

from __future__ import annotations

import http.client
import itertools
import json
import sys
from typing import Any, Dict, Iterator, Optional, Tuple
from urllib.parse import urlsplit

Json = Dict[str, Any]
LEGACY = "2025-11-25"
INIT = {"protocolVersion": LEGACY, "capabilities": {"elicitation": {"form": {}}, "sampling": {}, "roots": {}},
        "clientInfo": {"name": "hijack-check", "version": "1"}}


class Failed(Exception):
    pass


def post(base: str, message: Json, session: Optional[str]) -> Tuple[int, Dict[str, str], bytes]:
    """One POST of a message to /mcp/legacy, read whole."""
    url = urlsplit(base)
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)
    connection.request("POST", "/mcp/legacy", json.dumps(message), headers(session))
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def headers(session: Optional[str]) -> Dict[str, str]:
    h = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session is not None:
        h.update({"mcp-session-id": session, "mcp-protocol-version": LEGACY})
    return h


def events(response: http.client.HTTPResponse) -> Iterator[Json]:
    """The JSON messages of an event stream, as they come."""
    data: list = []
    while True:
        line = response.readline()
        if not line:
            return
        text = line.decode().rstrip("\r\n")
        if text.startswith("data:"):
            data.append(text[5:].lstrip(" "))
        elif text == "" and data:
            yield json.loads("\n".join(data))
            data = []


def session_of(base: str) -> str:
    status, fields, _ = post(base, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}, None)
    if status != 200 or not fields.get("mcp-session-id"):
        raise Failed(f"initialize: HTTP {status}, Mcp-Session-Id {fields.get('mcp-session-id')!r}")
    session = fields["mcp-session-id"]
    status, _, _ = post(base, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    if status != 202:
        raise Failed(f"notifications/initialized: HTTP {status}")
    return session


def answer(question: Json, name: str) -> Json:
    method = question["method"]
    if method == "elicitation/create":
        keys = list(question["params"]["requestedSchema"]["properties"])
        result: Json = {"action": "accept", "content": {k: (True if k == "ok" else name) for k in keys}}
    elif method == "sampling/createMessage":
        result = {"role": "assistant", "content": {"type": "text", "text": "sunny"}, "model": "m"}
    else:
        result = {"roots": [{"uri": "file:///trips"}]}
    return {"jsonrpc": "2.0", "id": question["id"], "result": result}


def refused(what: str, got: Tuple[int, Dict[str, str], bytes]) -> str:
    status, _, body = got
    rule = ""
    try:
        error = json.loads(body)
        rule = ((error.get("error") or {}).get("data") or {}).get("rule", "")
        if "id" in error and error["id"] is not None:
            raise Failed(f"{what}: the refusal names id {error['id']!r}")
    except ValueError:
        pass
    if status != 400:
        raise Failed(f"{what}: HTTP {status} {body[:200]!r}, expected 400")
    return rule


def check(base: str) -> str:
    victim, attacker = session_of(base), session_of(base)
    url = urlsplit(base)
    op = f"hijack-{url.port}"
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "plan", "arguments": {"op": op, "rounds": 2}}}
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=10)
    connection.request("POST", "/mcp/legacy", json.dumps(call), headers(victim))
    stream = connection.getresponse()
    if stream.status != 200:
        raise Failed(f"the victim's call: HTTP {stream.status}")
    served = stream.getheader("x-served-by", "?")
    messages = events(stream)
    first = next(messages)
    if first.get("method") != "elicitation/create":
        raise Failed(f"the victim's first event: {first}")
    stolen = answer(first, "Mallory")
    rules = [refused("another session's answer", post(base, stolen, attacker)),
             refused("an answer without a session", post(base, stolen, None))]
    final: Optional[Json] = None
    for message in itertools.chain([first], messages):  # each question answered as it comes, POSTed alone
        if "method" in message and "id" in message:
            status, _, body = post(base, answer(message, "Ada"), victim)
            if status != 202:
                raise Failed(f"the victim's answer to {message['method']}: HTTP {status} {body[:200]!r}")
        elif "result" in message or "error" in message:
            final = message
            break
    if final is None:
        raise Failed("the victim's stream ended without its response")
    connection.close()
    text = ((final.get("result") or {}).get("content") or [{}])[0].get("text", "")
    if text != f"planned {op} for Ada: sunny (1 roots)":
        raise Failed(f"the victim's result: {json.dumps(final)[:300]}")
    again = refused("the victim's first answer sent again", post(base, answer(first, "Ada"), victim))
    return (f"{served}: legacy answer to a victim's question from another session -> 400 {rules[0]}, from none "
            f"-> 400; the victim's call ended with its own answers; its answer sent again -> 400 {again}")


def main() -> int:
    failed = 0
    for base in sys.argv[1:]:
        try:
            print("  ok: " + check(base.rstrip("/")), flush=True)
        except (Failed, OSError, StopIteration, KeyError, ValueError) as e:
            failed += 1
            print(f"  FAILED at {base}: {type(e).__name__}: {e}", flush=True)
    return 1 if failed or not sys.argv[1:] else 0


if __name__ == "__main__":
    sys.exit(main())
