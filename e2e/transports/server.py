"""An MCP server on Starlette + uvicorn that speaks one transport mode with mrtr's server side.

One tool, ``greet``, needs two rounds of input: an elicitation for a name, then one for a greeting
style. The mode (``--mode``) decides how it asks, every protocol decision being mrtr's
(``mrtr.read_http_request`` reads each HTTP request, ``mrtr.ServerStream`` writes each event
sequence, ``mrtr.stream_url`` names a continuation; this file writes no SSE framing):

- ``2025-11-25``: the elicitations go on the POST's stream, which stays open; each answer is POSTed
  to the endpoint on its own (``202``) and the next event follows on the same stream.
- ``sep-1858``: ``ServerStream.ask`` writes ``buffer_input``, the request, ``input_required``; the
  response ends. The answers come as a JSON array with ``Last-Event-ID``, whose key names the call
  in the store; that POST's response is the next stream.
- ``sep-1335``: the response head carries the ``rel="stream"`` Link (``mrtr.stream_url``), ``ask``
  writes the request and a ``retry``; the response ends. A GET to the stream URL while answers are
  owed is ``204``; the answers POSTed (a JSON array) to that URL get the next stream.
- ``2026-07-28``: MRTR. Each round is a request of its own answered with ``input_required``
  (``mrtr.SealedRounds``: the name asked first, the style once the name is known), on an event
  stream that starts with a ``retry`` block so that a cut stream can be resumed.

Every call's state (its answers, the server requests it awaits, and every event block written, so
that a resume with ``Last-Event-ID`` gets what followed) is a JSON file in ``--store``, shared by
every server process pointed at it: a second process can take up a SEP-1858 or SEP-1335 call the
first one began. ``--fault-cut N`` drops the connection of the Nth event stream served from the
store (counted across processes, 0 the first) after its first event, to test resumption.

    python e2e/transports/server.py --mode sep-1858 --port 8000 --store /tmp/store [--name A] [--fault-cut N]

Every response carries ``x-served-by: <name>`` (what the test reads to see which process served it).
``MRTR_STATE_SECRET`` (64 hex digits) is the sealing secret of the ``2026-07-28`` rounds, the same
in every process that shares the calls (default: a random one).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import logging
import os
import secrets
import time
from pathlib import Path
from typing import Any, AsyncIterator, Dict, Iterator, List, Optional

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

import mrtr

MODES = ("2026-07-28", "2025-11-25", "sep-1858", "sep-1335")
GREETINGS = {"formal": "Good day, {}.", "casual": "Hey {}!"}
TOOL = {
    "name": "greet",
    "description": "Greets you by name, in the style you pick (two rounds of elicitation)",
    "inputSchema": {"type": "object", "properties": {}},
}


def question(field: str) -> Dict[str, Any]:
    """The elicitation asking for ``field`` (method and params)."""
    schema: Dict[str, Any] = {"type": "string"}
    if field == "name":
        message = "What is your name?"
    else:
        message, schema["enum"] = "How should I greet you?", sorted(GREETINGS)
    return {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {"type": "object", "properties": {field: schema}, "required": [field]},
        },
    }


def result(id: Any, text: str, protocol: str) -> Dict[str, Any]:
    body: Dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if protocol == "2026-07-28":
        body["resultType"] = "complete"
    return {"jsonrpc": "2.0", "id": id, "result": body}


def error(id: Any, code: int, message: str) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}


class Cut(Exception):
    """Raised inside a response stream to drop its connection (the fault)."""


class Store:
    """Calls by continuation key: one JSON file each, read and written under an exclusive file lock,
    so that any process pointed at the folder can continue any call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)

    def _file(self, key: str) -> Path:
        if not key.isalnum():  # our keys are hex; anything else names no call
            raise KeyError(key)
        return self.path / f"{key}.json"

    def load(self, key: str) -> Optional[Dict[str, Any]]:
        try:
            call: Dict[str, Any] = json.loads(self._file(key).read_text())
            return call
        except (KeyError, FileNotFoundError):
            return None

    def save(self, record: Dict[str, Any]) -> None:
        file = self._file(record["key"])
        tmp = file.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record))
        os.replace(tmp, file)

    @contextlib.contextmanager
    def locked(self, key: str) -> Iterator[Optional[Dict[str, Any]]]:
        """The call ``key`` (``None`` if unknown), under its lock: save it before leaving to keep changes."""
        with open(self.path / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield self.load(key)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def stream_number(self) -> int:
        """This event stream's number among those served from the store (0 the first), counted
        atomically across processes."""
        number = 0
        while True:
            try:
                os.close(os.open(self.path / f"stream.{number}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                return number
            except FileExistsError:
                number += 1


class Server:
    def __init__(self, mode: str, store: Store, name: str, fault: Optional[int], retry_ms: int) -> None:
        self.mode = mode
        self.protocol = "2026-07-28" if mode == "2026-07-28" else "2025-11-25"
        self.store = store
        self.name = name
        self.fault = fault
        self.retry_ms = retry_ms
        self.wakes: Dict[str, asyncio.Event] = {}
        secret = os.environ.get("MRTR_STATE_SECRET")
        ring = mrtr.KeyRing(1, mrtr.Algorithm.XAES_256_GCM, secret=bytes.fromhex(secret) if secret else secrets.token_bytes(32))
        ring.set_context("mrtr e2e transports")
        self.rounds = mrtr.SealedRounds(ring, protocol=self.protocol)

    # ------------------------------------------------------------------ the call's state

    def new_call(self, request: Dict[str, Any]) -> Dict[str, Any]:
        return {"key": secrets.token_hex(8), "request": request, "answers": {}, "pending": {}, "next": 1, "blocks": []}

    def write(self, call: Dict[str, Any], what: str, payload: Any) -> None:
        """Writes the next turn of the call through a ``ServerStream`` (``ask``: server requests,
        ``message``: the response, ``prime``: a ``retry`` block) and logs its blocks in the call.
        A block is ``final`` when a response stream ends after it."""
        stream = mrtr.ServerStream(self.mode, call["key"], call["next"])
        if what == "ask":
            stream.ask(payload, self.retry_ms)
        elif what == "message":
            stream.message(payload)
        else:
            stream.retry(self.retry_ms)
        # The blocks as written, read back with mrtr's decoder, to replay after a Last-Event-ID.
        decoder = mrtr.SseDecoder()
        decoder.feed(stream.take())
        decoder.finish()
        blocks = list(decoder)
        # The stream ends after the response, and after an ask in the multi-turn modes (their
        # server waits for the answers with no connection open).
        ends = what == "message" or (what == "ask" and self.mode in ("sep-1858", "sep-1335"))
        for i, block in enumerate(blocks):
            call["blocks"].append({"block": block, "final": ends and i == len(blocks) - 1})
        call["next"] += len(blocks)

    def advance(self, call: Dict[str, Any]) -> None:
        """The greet tool: asks for what it lacks, one field per round, then answers."""
        for field in ("name", "style"):
            if field not in call["answers"]:
                request_id = f"{call['key']}-{field}"
                call["pending"] = {request_id: field}
                return self.write(call, "ask", [{"jsonrpc": "2.0", "id": request_id, **question(field)}])
        call["pending"] = {}
        name, style = call["answers"]["name"], call["answers"]["style"]
        text = GREETINGS.get(style, GREETINGS["formal"]).format(name)
        call["done"] = True
        self.write(call, "message", result(call["request"]["id"], text, self.protocol))

    def take_answers(self, call: Dict[str, Any], responses: List[Dict[str, Any]]) -> int:
        """Records the answers to the requests the call awaits; how many it took."""
        taken = 0
        for response in responses:
            field = call["pending"].pop(str(response.get("id")), None)
            if field is None:
                continue
            taken += 1
            answer = response.get("result") or {}
            content = answer.get("content") or {}
            call["answers"][field] = content.get(field) if answer.get("action") == "accept" else "friend"
        return taken

    def mrtr_round(self, request: Dict[str, Any]) -> Dict[str, Any]:
        """A ``2026-07-28`` round: ``input_required`` for the name, then for the style, then the result."""
        now = int(time.time())
        asked: Dict[str, Any] = {}
        for field in ("name", "style"):
            asked[field] = question(field)
            got = self.rounds.resume(request, asked, anonymous=True, now=now)
            if got.missing:
                return self.rounds.respond(request, got, asked, anonymous=True, now=now)
        text = GREETINGS.get(got.answers["style"]["content"]["style"], GREETINGS["formal"])
        return result(request["id"], text.format(got.answers["name"]["content"]["name"]), self.protocol)

    # ------------------------------------------------------------------ HTTP

    def wake(self, key: str) -> asyncio.Event:
        return self.wakes.setdefault(key, asyncio.Event())

    async def tail(self, key: str, cursor: int, cut: bool) -> AsyncIterator[bytes]:
        """The call's blocks from ``cursor`` on, as they are written, until a final one."""
        idle_until = time.monotonic() + 120
        while time.monotonic() < idle_until:
            wake = self.wake(key)
            wake.clear()
            call = self.store.load(key) or {"blocks": []}
            while cursor < len(call["blocks"]):
                entry = call["blocks"][cursor]
                cursor += 1
                yield mrtr.sse_encode(entry["block"]).encode()
                if cut:
                    raise Cut("the fault: the connection drops after the first event")
                if entry["final"]:
                    return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(wake.wait(), 0.25)  # another process may write: look again anyway

    def stream(self, call: Dict[str, Any], cursor: int, endpoint: str) -> Response:
        """An event-stream response: the call's blocks from ``cursor`` on."""
        key = call["key"]
        link = mrtr.stream_url(endpoint, key) if self.mode == "sep-1335" else None
        headers = mrtr.ServerStream(self.mode, key, call["next"]).head(link)
        headers["x-served-by"] = self.name
        cut = self.fault is not None and self.store.stream_number() == self.fault
        return StreamingResponse(self.tail(key, cursor, cut), headers=headers)

    def plain(self, status: int, body: Any = None) -> Response:
        headers = {"x-served-by": self.name}
        if body is None:
            return Response(status_code=status, headers=headers)
        return JSONResponse(body, status_code=status, headers=headers)

    async def endpoint(self, request: Request) -> Response:
        url = str(request.url)
        endpoint = str(request.url.replace(query=""))
        if request.method not in ("GET", "POST"):
            return self.plain(405)
        body = await request.body()
        try:
            incoming = mrtr.read_http_request(
                self.mode, request.method, url, dict(request.headers), body or None, protocol=self.protocol
            )
        except mrtr.MrtrError as e:
            return self.plain(400, error(None, e.code or -32600, str(e)))
        kind = incoming["type"]
        if kind == "call":
            return self.call(incoming["message"], endpoint)
        if kind == "messages":
            return self.messages(incoming["messages"])
        if kind == "answers":
            return self.answers(incoming["key"], incoming["responses"], endpoint)
        return self.resume(incoming.get("key"), incoming.get("lastEventId"), endpoint)

    def call(self, message: Dict[str, Any], endpoint: str) -> Response:
        method, id = message["method"], message["id"]
        if method == "initialize" and self.protocol == "2025-11-25":
            info = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "mrtr-e2e", "version": "1.0.0"}}
            return self.plain(200, {"jsonrpc": "2.0", "id": id, "result": info})
        if method == "tools/list":
            listed: Dict[str, Any] = {"tools": [TOOL]}
            if self.protocol == "2026-07-28":
                listed.update(resultType="complete", cacheScope="private", ttlMs=0)
            return self.plain(200, {"jsonrpc": "2.0", "id": id, "result": listed})
        if method != "tools/call" or (message.get("params") or {}).get("name") != "greet":
            return self.plain(200, error(id, -32601, f"no such method or tool: {method}"))
        call = self.new_call(message)
        if self.mode == "2026-07-28":
            try:
                response = self.mrtr_round(message)
            except mrtr.MrtrError as e:
                response = error(id, e.code or -32602, str(e))
            self.write(call, "prime", None)
            self.write(call, "message", response)
        else:
            self.advance(call)
        with self.store.locked(call["key"]):
            self.store.save(call)
        return self.stream(call, 0, endpoint)

    def messages(self, messages: List[Dict[str, Any]]) -> Response:
        """``2025-11-25``: an answer POSTed on its own. The call it answers goes on on its open stream."""
        for message in messages:
            key = str(message.get("id", "")).rsplit("-", 1)[0]
            with self.store.locked(key) if key.isalnum() else contextlib.nullcontext() as call:
                if call is None or not self.take_answers(call, [message]):
                    continue
                if not call["pending"]:
                    self.advance(call)
                self.store.save(call)
            self.wake(key).set()
        return self.plain(202)

    def answers(self, key: str, responses: List[Dict[str, Any]], endpoint: str) -> Response:
        """SEP-1858 / SEP-1335: the buffered answers of a continuation; the response is its next stream."""
        with self.store.locked(key) if key.isalnum() else contextlib.nullcontext() as call:
            if call is None:
                return self.plain(404, error(None, -32602, f"no call {key}"))
            if not self.take_answers(call, responses) or call["pending"]:
                return self.plain(400, error(None, -32602, "these answers are not the ones awaited"))
            cursor = len(call["blocks"])
            self.advance(call)
            self.store.save(call)
        return self.stream(call, cursor, endpoint)

    def resume(self, key: Optional[str], last_event_id: Optional[str], endpoint: str) -> Response:
        """A GET resuming a call's stream after ``Last-Event-ID`` (or, SEP-1335, its stream URL)."""
        call = self.store.load(key) if key else None
        if call is None:
            return self.plain(404 if key else 405)  # no standalone GET stream: nothing here needs one
        ids = [entry["block"].get("id") for entry in call["blocks"]]
        cursor = ids.index(last_event_id) + 1 if last_event_id in ids else 0
        if self.mode == "sep-1335" and cursor == len(ids):
            return self.plain(204)  # waiting for the answers (or over): the end of this stream
        return self.stream(call, cursor, endpoint)


class QuietCut(logging.Filter):
    """Keeps the deliberate cut out of the log (uvicorn logs the exception that drops the connection)."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
            error = error.exceptions[0]
        return not isinstance(error, Cut)


def app(server: Server) -> Starlette:
    return Starlette(routes=[Route("/mcp", server.endpoint, methods=["GET", "POST", "DELETE"])])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=MODES, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--store", type=Path, required=True, help="the folder of the calls' state, shared by processes")
    parser.add_argument("--name", default="A", help="this process's name, sent as x-served-by")
    parser.add_argument(
        "--fault-cut", type=int, metavar="N",
        help="drop the connection of the Nth event stream served from the store (0 the first) after its first event",
    )
    parser.add_argument("--retry-ms", type=int, default=200, help="the retry sent on streams (SEP-1335, priming)")
    args = parser.parse_args()
    server = Server(args.mode, Store(args.store), args.name, args.fault_cut, args.retry_ms)
    logging.getLogger("uvicorn.error").addFilter(QuietCut())
    print(f"{args.name}: {args.mode} on http://127.0.0.1:{args.port}/mcp, store {args.store}", flush=True)
    uvicorn.run(app(server), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
