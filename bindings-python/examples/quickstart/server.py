"""Quickstart: an MCP server with one await-style tool, over HTTP (Starlette + uvicorn).

``greet`` asks the user's name with ``await ctx.elicit(...)``. The first request is answered
``input_required``; the client's retry carries the answer, ``run_tool`` replays the tool from the top,
the ask returns it, and the tool completes. The server keeps nothing between the two requests: the
round is sealed into ``requestState``, so any instance holding the same key could answer the retry.

    python server.py 8000          # POST JSON-RPC to http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Dict

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

import mrtr

PROTOCOL = "2026-07-28"
# The sealing key: 32 random bytes, the same on every instance (from your secrets store).
RING = mrtr.KeyRing(1, mrtr.Algorithm.XAES_256_GCM, secret=os.urandom(32))
ROUNDS = mrtr.SealedRounds(RING, ttl=300)
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
TOOLS = [{"name": "greet", "description": "Greets you by name", "inputSchema": {"type": "object"}}]


async def greet(args: Dict[str, Any], ctx: mrtr.Context) -> Dict[str, Any]:
    answer = await ctx.elicit("What is your name?", NAME)  # the first round ends here: input_required
    name = answer["content"]["name"] if answer["action"] == "accept" else "stranger"
    return {"content": [{"type": "text", "text": f"Hello, {name}!"}]}


async def mcp(http: Request) -> Response:
    request = await http.json()
    if "id" not in request or "method" not in request:
        return Response(status_code=202)  # a notification: nothing to answer
    try:
        mrtr.check_request(request, [PROTOCOL], dict(http.headers))  # _meta, header fields, version
        method, params = request["method"], request.get("params") or {}
        if method == "tools/call" and params.get("name") == "greet":
            # No authentication here, so the sealed rounds belong to nobody, by explicit choice.
            return JSONResponse(await mrtr.run_tool(greet, request, ROUNDS, anonymous=True, now=int(time.time())))
        if method == "tools/list":
            return JSONResponse(mrtr.complete(request, {"tools": TOOLS}))
        if method == "server/discover":  # what `mrtr bridge` asks first
            info = {"name": "quickstart", "version": "1.0.0"}
            return JSONResponse(mrtr.discover(request, {"capabilities": {"tools": {}}, "serverInfo": info}))
        error = {"code": -32601, "message": f"no {method} {params.get('name', '')} here"}
        return JSONResponse({"jsonrpc": "2.0", "id": request["id"], "error": error}, status_code=404)
    except mrtr.MrtrError as e:  # a refusal: the error response and its HTTP status
        response, status = mrtr.error_response(request["id"], e)
        return JSONResponse(response, status_code=status)


app = Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]) if len(sys.argv) > 1 else 8000, log_level="warning")
