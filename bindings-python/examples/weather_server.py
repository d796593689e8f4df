"""A small stateless MCP tool server (stdlib ``http.server``) built on mrtr.

``tools/call get_weather`` needs to know the units: the first call is
answered with ``input_required`` (``mrtr.respond``) asking for them by form
elicitation, with a sealed ``requestState`` (``mrtr.SealedRounds``: bound to
the caller and the request, expiring, single-use under a replay guard); the
retry carries the answer, which ``SealedRounds.resume`` reads and validates,
and the call completes. No session: any instance holding the same key (and
sharing the replay guard's store) could answer the retry.

This example has no authentication, so every caller is anonymous, chosen
explicitly (``anonymous=True``); a server with an auth layer passes
``subject=<the authenticated principal>`` instead, and its tokens open for
that principal only.

    python examples/weather_server.py --port 8000    # POST JSON-RPC to http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

import mrtr

PROTOCOL = mrtr.Protocol.V2026_07_28
NEEDS: Dict[str, Any] = {
    "units": {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": "Which units should the forecast use?",
            "requestedSchema": {
                "type": "object",
                "properties": {"units": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                "required": ["units"],
            },
        },
    }
}
TOOL = {
    "name": "get_weather",
    "description": "The weather at a place, in the units the user picks",
    "inputSchema": {"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]},
}
# In a deployment: 32 random bytes from the secrets manager, shared by every instance behind the load
# balancer (MRTR_STATE_SECRET, hex); alone, a fresh random secret. XAES-256-GCM: its 192-bit random
# nonces need no seal budget across a fleet. The context label keeps this deployment's tokens its own.
SECRET = bytes.fromhex(os.environ["MRTR_STATE_SECRET"]) if "MRTR_STATE_SECRET" in os.environ else secrets.token_bytes(32)
RING = mrtr.KeyRing(1, mrtr.Algorithm.XAES_256_GCM, secret=SECRET)
RING.set_context("weather example")
ROUNDS = mrtr.SealedRounds(RING, ttl=300, protocol=PROTOCOL)


class MemoryGuard:
    """A replay guard for one process: each sealed state is used once. Behind a load balancer, a shared store
    (Redis: ``bool(r.set(state_id, 1, nx=True, exat=expiry))``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._used: Dict[str, int] = {}
        self._by_expiry: List[Tuple[int, str]] = []  # a heap, the soonest expiry first

    def __call__(self, state_id: str, expiry: int) -> bool:
        with self._lock:
            now = int(time.time())
            while self._by_expiry and self._by_expiry[0][0] <= now:  # forget what no longer opens
                self._used.pop(heapq.heappop(self._by_expiry)[1], None)
            if state_id in self._used:
                return False
            self._used[state_id] = expiry
            heapq.heappush(self._by_expiry, (expiry, state_id))
            return True


GUARD = MemoryGuard()


def error(id: Any, code: int, message: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}


def complete(id: Any, result: Dict[str, Any]) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "result": dict(result, resultType="complete")}


def get_weather(request: Dict[str, Any]) -> Dict[str, Any]:
    """One round of the tool: ask for what is missing, or answer."""
    now = int(time.time())
    # Raises StateError unless we sealed the state for this caller and call, it has not expired, and it
    # was not used before.
    got = ROUNDS.resume(request, NEEDS, anonymous=True, now=now, guard=GUARD)
    if got.missing:
        return ROUNDS.respond(request, got, NEEDS, anonymous=True, now=now)
    answer = got.answers["units"]
    location = request["params"].get("arguments", {}).get("location", "?")
    if answer.get("action") != "accept":
        text = f"No forecast for {location}: the user declined to pick units."
        return complete(request["id"], {"content": [{"type": "text", "text": text}], "isError": True})
    units = answer["content"]["units"]
    degrees = 22 if units == "celsius" else 72
    text = f"{location}: {degrees} degrees {units}, clear skies."
    return complete(request["id"], {"content": [{"type": "text", "text": text}], "isError": False})


def handle(body: bytes) -> Optional[Dict[str, Any]]:
    """The response to one POSTed message (``None`` for a notification)."""
    try:
        kind = mrtr.classify(body, protocol=PROTOCOL)
    except mrtr.MrtrError as e:
        return error(None, e.code or -32600, str(e))
    if kind.kind is not mrtr.Kind.REQUEST:
        return None
    request = json.loads(body)
    try:
        if kind.method == "tools/call" and request.get("params", {}).get("name") == "get_weather":
            return get_weather(request)
        if kind.method == "tools/list":
            return complete(kind.id, {"tools": [TOOL], "cacheScope": "private", "ttlMs": 0})
        if kind.method == "tools/call":
            return error(kind.id, -32602, "unknown tool")
        return error(kind.id, -32601, f"method not found: {kind.method}")
    except mrtr.MrtrError as e:
        return error(kind.id, e.code or -32602, str(e))


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        if self.path != "/mcp":
            self.send_error(404)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        reply = handle(body)
        if reply is None:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802
        self.send_error(405)  # no standalone SSE stream: MRTR needs none

    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve(port: int = 0) -> Tuple[ThreadingHTTPServer, threading.Thread]:
    """Starts the server on 127.0.0.1 (``port`` 0: a free one) in a daemon thread."""
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    return server, thread


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    server, thread = serve(args.port)
    print(f"serving on http://127.0.0.1:{server.server_address[1]}/mcp")
    try:
        thread.join()
    except KeyboardInterrupt:
        server.shutdown()


if __name__ == "__main__":
    main()
