"""An MCP server on mrtr's Python binding: the peers' scenario tools written once, await-style
(``units = await ctx.elicit(...)``), served to both generations of clients.

- ``2026-07-28``: every request stands alone. ``check_request`` checks it, ``run_tool`` replays the tool over
  sealed rounds (``input_required`` with a sealed ``requestState``), ``complete`` and ``error_response``
  build the answers. No call is held in memory.
- ``2025-11-25``: after ``initialize``, a call is a ``BridgedCall`` (the legacy bridge): the tool's questions
  go on the call's POST stream as server requests, the client POSTs each answer (``202``), and the tool is
  replayed from them. The call lives in this process, on its open stream.

``reserve`` sheds load on ``2026-07-28`` (``shed``: a sealed ``requestState`` and no ``inputRequests``, built with
``SealedRounds.resume`` / ``respond``); ``sign_in`` asks a URL-mode elicitation; an ask the request did not declare
is refused by the core with -32021 (``data.requiredCapabilities``).

The protocol of a request is its ``MCP-Protocol-Version`` header (``initialize`` starts a ``2025-11-25``
session). Everything is on 127.0.0.1; the process keeps nothing beyond the open legacy calls.

    python peers/mrtr_server.py PORT
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Dict, List

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

import mrtr

MRTR, LEGACY = "2026-07-28", "2025-11-25"
INFO = {"name": "mrtr-peer", "version": mrtr.__version__}
CAPABILITIES = {"tools": {}, "prompts": {}, "resources": {}}
ROUNDS = mrtr.SealedRounds(mrtr.KeyRing(1, mrtr.Algorithm.XAES_256_GCM, secret=os.urandom(32)), protocol=MRTR)
Json = Dict[str, Any]
SIGN_IN = "https://example.com/sign-in"


def form(key: str) -> Json:
    return {"type": "object", "properties": {key: {"type": "string"}}, "required": [key]}


async def field(ctx: mrtr.Context, message: str, key: str) -> str:
    """One string, asked by form elicitation."""
    answer = await ctx.elicit(message, form(key))
    return str((answer.get("content") or {}).get(key, ""))


def text(value: str) -> Json:
    return {"content": [{"type": "text", "text": value}]}


async def get_weather(args: Json, ctx: mrtr.Context) -> Json:
    return text(f"{args.get('location')}: 22 degrees {await field(ctx, 'Which units?', 'units')}")


async def book_trip(args: Json, ctx: mrtr.Context) -> Json:
    destination = args.get("destination")
    date = await field(ctx, f"When do you fly to {destination}?", "date")
    seat = await field(ctx, f"Which seat on {date}?", "seat")  # asked once the date is known: a second round
    return text(f"{destination} on {date}, seat {seat}")


async def summarize(args: Json, ctx: mrtr.Context) -> Json:
    prompt = {"role": "user", "content": {"type": "text", "text": f"Summarise: {args.get('text')}"}}
    said = await ctx.sample({"messages": [prompt], "maxTokens": 50})
    return text(f"summary: {(said.get('content') or {}).get('text', '')}")


async def list_roots(args: Json, ctx: mrtr.Context) -> Json:
    return text(", ".join(str(r.get("uri")) for r in (await ctx.roots()).get("roots", [])))


async def review(args: Json, ctx: mrtr.Context) -> Json:
    pr = args.get("pr")
    focus = await field(ctx, f"What should the review of {pr} focus on?", "focus")
    return {"messages": [{"role": "user", "content": {"type": "text", "text": f"Review {pr}: {focus}"}}]}


async def notes(args: Json, ctx: mrtr.Context) -> Json:
    uri = ctx.request["params"]["uri"]
    topic = await field(ctx, f"Notes of {uri.removeprefix('notes://')} on which topic?", "topic")
    return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": f"notes on {topic}"}]}


async def reserve(args: Json, ctx: mrtr.Context) -> Json:
    """2025-11-25 (the legacy bridge): nothing to shed, answered at once. On 2026-07-28 ``shed`` serves it."""
    return text(f"table {args.get('table')} reserved")


async def sign_in(args: Json, ctx: mrtr.Context) -> Json:
    """A URL-mode elicitation; the answer is an accept without content. 2026-07-28 has no elicitationId;
    2025-11-25 needs one (the same on every replay of the call: the question is pinned)."""
    ask: Json = {"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "url": SIGN_IN}}
    if "io.modelcontextprotocol/protocolVersion" not in ((ctx.request.get("params") or {}).get("_meta") or {}):
        ask["params"]["elicitationId"] = f"sign-in-{ctx.request.get('id')}"
    answer = await ctx.ask(ask)
    return text("signed in" if answer.get("action") == "accept" else f"not signed in: {answer.get('action')}")


def shed(request: Json) -> Json:
    """``reserve`` on 2026-07-28, load shedding (SEP-2322 Use Case 2): the first request answers ``input_required``
    with a sealed ``requestState`` and no ``inputRequests`` (what this instance did so far); the retry, which any
    instance may serve, picks up from that state and completes."""
    now = int(time.time())
    table = str((request["params"].get("arguments") or {}).get("table"))
    round = ROUNDS.resume(request, {}, anonymous=True, now=now)
    if round.round == 0:
        return ROUNDS.respond(request, round, {}, {"table": table, "held": True}, anonymous=True, now=now)
    return mrtr.complete(request, text(f"table {round.data['table']} reserved"), protocol=MRTR)


def strings(*names: str) -> Json:
    return {"type": "object", "properties": {n: {"type": "string"} for n in names}}


TOOLS = {
    "get_weather": get_weather,
    "book_trip": book_trip,
    "summarize": summarize,
    "list_roots": list_roots,
    "reserve": reserve,
    "sign_in": sign_in,
}
SCHEMAS = {
    "get_weather": strings("location"),
    "book_trip": strings("destination"),
    "summarize": strings("text"),
    "reserve": strings("table"),
}
LISTS: Dict[str, Json] = {
    "tools/list": {"tools": [{"name": n, "inputSchema": SCHEMAS.get(n, strings())} for n in TOOLS]},
    "prompts/list": {"prompts": [{"name": "review", "arguments": [{"name": "pr", "required": True}]}]},
    "resources/templates/list": {"resourceTemplates": [{"uriTemplate": "notes://{day}", "name": "notes"}]},
    "resources/list": {"resources": []},
}


class NotFound(Exception):
    pass


def handler(request: Json) -> mrtr.Tool:
    """The await-style handler a multi-round request runs."""
    method, params = request["method"], request.get("params") or {}
    found = {"tools/call": TOOLS.get(params.get("name")), "prompts/get": review if params.get("name") == "review" else None}
    tool = notes if method == "resources/read" and str(params.get("uri", "")).startswith("notes://") else found.get(method)
    if tool is None:
        raise NotFound(f"nothing serves {method} {params.get('name') or params.get('uri')}")
    return tool


def listing(request: Json, protocol: str) -> Json:
    """The answer to a request that is no multi-round call."""
    method = request["method"]
    if method == "server/discover":
        return mrtr.discover(request, {"capabilities": CAPABILITIES, "serverInfo": INFO}, protocol=protocol)
    result: Json
    if method == "ping":
        result = {}
    elif method in LISTS:
        result = LISTS[method]
    else:
        raise NotFound(f"Method not found: {method}")
    return mrtr.complete(request, result, protocol=protocol)


def error(id: Any, code: int, message: str, status: int) -> Response:
    return JSONResponse({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}, status_code=status)


async def stateless(request: Json, headers: Dict[str, str]) -> Response:
    """A ``2026-07-28`` request: checked, then answered at once; a retry carries every earlier answer."""
    try:
        mrtr.check_request(request, [MRTR], headers, protocol=MRTR)
        if request["method"] == "tools/call" and request["params"].get("name") == "reserve":
            return JSONResponse(shed(request))
        if request["method"] in ("tools/call", "prompts/get", "resources/read"):
            tool = handler(request)
            return JSONResponse(await mrtr.run_tool(tool, request, ROUNDS, anonymous=True, now=int(time.time())))
        return JSONResponse(listing(request, MRTR))
    except mrtr.MrtrError as e:
        response, status = mrtr.error_response(request.get("id"), e)
        return JSONResponse(response, status_code=status)
    except NotFound as e:
        return error(request.get("id"), -32601 if "Method" in str(e) else -32602, str(e), 404 if "Method" in str(e) else 400)


CALLS: List[mrtr.BridgedCall] = []  # the open 2025-11-25 calls of this process


async def legacy(message: Json) -> Response:
    """A ``2025-11-25`` message: the session's start, a call held on its stream, or an answer to one."""
    if "method" not in message:  # an answer to a server request of an open call
        call = next((c for c in CALLS if str(message.get("id")) in c.pending), None)
        if call is None:
            return Response(status_code=202)  # nothing waits for it (a call that ended)
        try:
            call.deliver(message)
        except mrtr.MrtrError as e:
            response, status = mrtr.error_response(message.get("id"), e)
            return JSONResponse(response, status_code=status)
        return Response(status_code=202)
    if "id" not in message:
        return Response(status_code=202)  # notifications
    if message["method"] == "initialize":
        result = {"protocolVersion": LEGACY, "capabilities": CAPABILITIES, "serverInfo": INFO}
        return JSONResponse({"jsonrpc": "2.0", "id": message["id"], "result": result})
    try:
        call = mrtr.BridgedCall(handler(message), message)
    except NotFound:
        try:
            return JSONResponse(listing(message, LEGACY))
        except NotFound as e:
            return error(message["id"], -32601, str(e), 404)
    CALLS.append(call)

    async def events() -> Any:
        try:
            async for chunk in call.stream():
                yield chunk
        finally:
            CALLS.remove(call)

    return StreamingResponse(events(), media_type="text/event-stream", headers={"Cache-Control": "no-store"})


async def endpoint(http: Request) -> Response:
    body = await http.body()
    try:
        mrtr.classify(body, protocol=LEGACY)
    except mrtr.MrtrError as e:
        response, status = mrtr.error_response(None, e)
        return JSONResponse(response, status_code=status)
    message = json.loads(body)
    if http.headers.get("mcp-protocol-version") == MRTR:
        if "method" not in message or "id" not in message:
            return Response(status_code=202)
        return await stateless(message, dict(http.headers))
    return await legacy(message)


async def no_stream(http: Request) -> Response:
    return Response(status_code=405, headers={"Allow": "POST"})


app = Starlette(routes=[Route("/mcp", endpoint, methods=["POST"]), Route("/mcp", no_stream, methods=["GET", "DELETE"])])

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
