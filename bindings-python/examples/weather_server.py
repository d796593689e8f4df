"""A small stateless MCP tool server (stdlib ``http.server``) built on mrtr.

``tools/call get_weather`` needs to know the units: the first call is
answered with ``input_required`` (``mrtr.respond``) asking for them by form
elicitation, with a sealed ``requestState``; the retry carries the answer,
which ``mrtr.resume`` reads and validates, and the call completes. No session,
no memory between requests: any instance holding the same key could answer
the retry.

    python examples/weather_server.py --port 8000    # POST JSON-RPC to http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import argparse
import hashlib
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Optional, Tuple

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
# In a deployment: a secret shared by every instance behind the load balancer.
RING = mrtr.KeyRing(mrtr.Key(1, mrtr.Algorithm.AES_256_GCM, hashlib.sha256(b"example secret").digest()))
TTL_SECONDS = 300


def error(id: Any, code: int, message: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}


def complete(id: Any, result: Dict[str, Any]) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "result": dict(result, resultType="complete")}


def get_weather(request: Dict[str, Any]) -> Dict[str, Any]:
    """One round of the tool: ask for what is missing, or answer."""
    now = int(time.time())
    binding = mrtr.Binding.for_request(request, subject="", protocol=PROTOCOL)
    got = mrtr.resume(request, NEEDS, protocol=PROTOCOL)
    if got.request_state is not None:
        RING.open(got.request_state, binding, now)  # raises StateError unless we sealed it for this call
    if got.missing:
        state = RING.seal(binding, now, TTL_SECONDS, b"asked:units")
        missing = {key: NEEDS[key] for key in got.missing}
        return mrtr.respond(request, missing, state, protocol=PROTOCOL)
    answer = got.responses["units"]
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
