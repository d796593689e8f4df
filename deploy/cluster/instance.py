"""One instance of the cluster (issue #14) on mrtr's Python binding: Starlette + uvicorn + redis-py.

Serves the await-style tool ``plan`` (tools.md) at ``/mcp/{mode}``. No call is held in memory between
requests, except in ``legacy``, the contrast:

- ``mrtr`` (2026-07-28): ``check_request``, then ``run_tool`` over sealed rounds: the answers travel in the
  sealed ``requestState``. The final round commits (commit.lua) under the state id of its ``requestState``,
  so a final request sent twice gets the committed response, the effect counted once.
- ``tasks`` (2026-07-28 + the Tasks extension): ``tools/call`` makes a task record in Redis; the tool runs by
  replay at creation and at each ``tasks/update`` that completes a round (under a per-task Redis lock), the
  last round's sealed ``requestState`` kept in the record. Completion commits under the task id.
- ``sep-1858`` / ``sep-1335`` (2025-11-25 over those transports): the continuation lives in Redis (the original
  request, each round's answers, every event block written). A 2025-11-25 request carries no sealed state, so
  the call's ``BridgedCall`` is rebuilt from the stored answers (the tool replayed once per round) to ask the
  next round (``ServerStream.ask``) or give the final message (committed under the continuation key). New
  events go to Redis before they are streamed, so any instance resumes after any ``Last-Event-ID``.
- ``legacy`` (2025-11-25): a ``BridgedCall`` on this process's open stream. ``initialize`` gives a random
  ``Mcp-Session-Id``; every later POST must name one (400 otherwise). A POSTed answer goes only to an open call
  of this process that came in the same session and asked that id; any other answer is refused with 400 and a
  JSON-RPC error without id (``usage-unknown-handle``), as 2025-11-25 has a server refuse input it cannot accept
  (not 404, which tells a client its session is gone). Behind round robin most answers reach another instance.

Every protocol decision and shape is mrtr's; this file converts, stores and routes. Every response carries
``x-served-by``; every Redis key starts with ``<prefix>:``; Redis out of reach answers 503 (the client retries).
Redis asks for a password (``requirepass``): read from ``--redis-password-file``, never from the command line.

    python deploy/cluster/instance.py --port P --name NAME --redis redis://127.0.0.1:RP \\
        --redis-password-file PASSWORD --keys KEYS.json --current KID --prefix RUN
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import json
import secrets
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, AsyncIterator, Dict, List, Optional, Tuple

import redis.asyncio as aioredis
import redis.exceptions
import uvicorn
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

import mrtr

Json = Dict[str, Any]
MRTR, LEGACY = "2026-07-28", "2025-11-25"
TASKS_DECLARED: Json = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
INFO = {"name": "mrtr-cluster-python", "version": mrtr.__version__}
RETRY_MS = 200  # the retry a SEP-1335 stream names before the client POSTs its answers
ROUND_TIMEOUT_MS = 5000  # legacy: a round unanswered this long ends the call
DONE_TTL = 900  # seconds a completion is kept: longer than a sealed state lives (300 s)
CALL_TTL_MS, TASK_TTL_MS, POLL_MS = 600_000, 300_000, 200
# The id of the request being answered, for the error response of a refusal raised anywhere below.
REQUEST_ID: contextvars.ContextVar[Any] = contextvars.ContextVar("request_id", default=None)

# ------------------------------------------------------------------ the tool (tools.md)


def form(field: str, kind: str) -> Json:
    return {"type": "object", "properties": {field: {"type": kind}}, "required": [field]}


async def plan(args: Json, ctx: mrtr.Context) -> Json:
    """Two or three rounds; each question depends only on earlier answers, so any instance replays it alike."""
    name = str(((await ctx.elicit("Who is travelling?", form("name", "string"))).get("content") or {}).get("name", ""))
    prompt = {"role": "user", "content": {"type": "text", "text": "Plan a trip for " + name}}
    summary, roots = await ctx.ask_all(ctx.q.sample({"messages": [prompt], "maxTokens": 50}), ctx.q.roots())
    if args.get("rounds") == 3:
        await ctx.elicit("Confirm the plan for " + name + "?", form("ok", "boolean"))
    said = (summary.get("content") or {}).get("text", "")
    text = f"planned {args.get('op')} for {name}: {said} ({len(roots.get('roots') or [])} roots)"
    return {"content": [{"type": "text", "text": text}]}


def op_of(request: Json) -> str:
    return str(((request.get("params") or {}).get("arguments") or {}).get("op", "?"))


def is_plan(request: Json) -> bool:
    return request.get("method") == "tools/call" and (request.get("params") or {}).get("name") == "plan"


# ------------------------------------------------------------------ the instance: keys, Redis, HTTP


class Instance:
    def __init__(self, args: argparse.Namespace) -> None:
        keys = {k["id"]: bytes.fromhex(k["secret"]) for k in json.loads(Path(args.keys).read_text())["keys"]}
        # Seals with --current; opens what any key of the ring sealed.
        ring = mrtr.KeyRing(args.current, mrtr.Algorithm.XAES_256_GCM, secret=keys.pop(args.current))
        for id, secret in keys.items():
            ring.add(id, mrtr.Algorithm.XAES_256_GCM, secret=secret)
        self.rounds = mrtr.SealedRounds(ring, protocol=MRTR)
        self.prefix = args.prefix
        # A connection a Redis restart broke is retried for about a second, then the request gets 503. Every
        # write here may be repeated: SET, and commit.lua's SET NX.
        errors = [redis.exceptions.ConnectionError, redis.exceptions.TimeoutError]
        # A bounded pool that makes a request wait for a connection rather than fail: one instance may
        # carry every operation of a run.
        password = Path(args.redis_password_file).read_text().strip() if args.redis_password_file else None
        pool = aioredis.BlockingConnectionPool.from_url(
            args.redis, password=password, decode_responses=True, retry_on_error=errors,
            retry=Retry(ExponentialBackoff(cap=0.25, base=0.02), 6), max_connections=64, timeout=5)
        self.redis = aioredis.Redis(connection_pool=pool)
        self.commit_script = self.redis.register_script((Path(__file__).parent / "commit.lua").read_text())
        # The open legacy calls of this process (mrtr.BridgedCall), by the Mcp-Session-Id their POST came in.
        self.legacy_calls: Dict[str, List[Any]] = {}

    def key(self, kind: str, name: str) -> str:
        return f"{self.prefix}:{kind}:{name}"

    async def commit(self, completion: str, response: Json, op: str) -> Json:
        """The operation's side effect, once per completion key: the response to send (the one committed
        before, when this completion came already)."""
        keys = [self.key("done", completion), f"{self.prefix}:effects"]
        before = await self.commit_script(keys=keys, args=[json.dumps(response), op, DONE_TTL])
        return response if before is None else json.loads(before)

    async def load(self, kind: str, name: str) -> Optional[Json]:
        text = await self.redis.get(self.key(kind, name))
        return None if text is None else json.loads(text)

    async def save(self, kind: str, name: str, record: Json, ttl_ms: int) -> None:
        await self.redis.set(self.key(kind, name), json.dumps(record), px=ttl_ms)

    def locked(self, kind: str, name: str) -> Any:
        """One instance at a time advances a task or a continuation."""
        # A short lease: what runs under it is one replay and a few writes (milliseconds), and a lock whose
        # holder was killed blocks the call's next request until the lease ends.
        return self.redis.lock(self.key("lock", f"{kind}:{name}"), timeout=2, blocking_timeout=4)

    async def run(self, request: Json) -> Json:
        return await mrtr.run_tool(plan, request, self.rounds, anonymous=True, now=int(time.time()))

    async def endpoint(self, http: Request) -> Response:
        """Dispatch by mode; a refusal mrtr raised becomes its error response, Redis away a 503."""
        mode = http.path_params["mode"]
        handler = {"mrtr": self.mrtr, "tasks": self.tasks, "sep-1858": self.sep, "sep-1335": self.sep,
                   "legacy": self.legacy}.get(mode)
        if handler is None:
            return Response(status_code=404)
        try:
            return await handler(http, await http.body())
        except mrtr.MrtrError as e:
            response, status = mrtr.error_response(REQUEST_ID.get(), e)
            return JSONResponse(response, status)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, redis.exceptions.LockError):
            return Response(status_code=503, headers={"retry-after": "1"})

    def checked(self, http: Request, body: bytes) -> Optional[Json]:
        """A 2026-07-28 request, checked (``_meta``, header fields, version); ``None`` for what is no request."""
        kind = mrtr.classify(body, protocol=MRTR)
        if kind.kind is not mrtr.Kind.REQUEST:
            return None
        REQUEST_ID.set(kind.id)
        request: Json = json.loads(body)
        mrtr.check_request(request, [MRTR], dict(http.headers), protocol=MRTR)
        return request

    # -------------------------------------------------------------- mrtr: sealed rounds, no store but commit

    async def mrtr(self, http: Request, body: bytes) -> Response:
        request = self.checked(http, body) if http.method == "POST" else None
        if request is None:
            return Response(status_code=202 if http.method == "POST" else 405)
        if request["method"] == "server/discover":
            return discovered(request, {"tools": {}})
        if not is_plan(request):
            return not_found(request)
        response = await self.run(request)
        if response["result"].get("resultType") == "input_required":
            return JSONResponse(response)
        # The final round: committed under its state id, the unit of single use. A final request sent again
        # gets the committed result, addressed to its own id by mrtr.
        state = request["params"].get("requestState")
        completion = mrtr.inspect(state).state_id if state else f"{request['id']}-{secrets.token_hex(8)}"
        committed = await self.commit(completion, response, op_of(request))
        return JSONResponse(mrtr.complete(request, committed["result"], protocol=MRTR))

    # -------------------------------------------------------------- tasks: records in Redis, rounds by replay

    async def tasks(self, http: Request, body: bytes) -> Response:
        request = self.checked(http, body) if http.method == "POST" else None
        if request is None:
            return Response(status_code=202 if http.method == "POST" else 405)
        method = request["method"]
        if method == "server/discover":
            return discovered(request, {"tools": {}, **TASKS_DECLARED})
        mrtr.require_declared(request, TASKS_DECLARED, protocol=MRTR)
        if is_plan(request):
            return JSONResponse(mrtr.task_created(request, view(await self.task_create(request)), protocol=MRTR))
        if method == "tasks/get":
            return JSONResponse(mrtr.task_get_response(request, view(await self.task(request)), protocol=MRTR))
        if method == "tasks/update":
            await self.task_update(request)
            return JSONResponse(mrtr.complete(request, {}, protocol=MRTR))
        return not_found(request)

    async def task(self, request: Json) -> Json:
        task_id = str(request["params"].get("taskId"))
        record = await self.load("task", task_id)
        if record is None:
            raise refusal("task-unknown", f"no task {task_id}")
        return record

    async def task_create(self, request: Json) -> Json:
        """The task, its first round run at once: ``input_required`` with the tool's first questions."""
        stamp = now_iso()
        record: Json = {"taskId": uuid.uuid4().hex, "status": mrtr.TaskStatus.WORKING.value, "createdAt": stamp,
                  "lastUpdatedAt": stamp, "ttlMs": TASK_TTL_MS, "pollIntervalMs": POLL_MS, "request": request,
                  "inputRequests": {}, "answers": {}, "requestState": None, "result": None, "error": None}
        await self.task_run(record, request)
        await self.save("task", record["taskId"], record, TASK_TTL_MS)
        return record

    async def task_update(self, request: Json) -> None:
        """``tasks/update``: the answers to the open round's keys (others ignored, so an update sent again is
        harmless); once the round is whole, the tool runs on the MRTR retry of the original request."""
        task_id = str(request["params"].get("taskId"))
        async with self.locked("task", task_id):
            record = await self.task(request)
            if record["status"] != mrtr.TaskStatus.INPUT_REQUIRED.value:
                return
            record["answers"].update(mrtr.resume(request, record["inputRequests"], protocol=MRTR).responses)
            record["lastUpdatedAt"] = now_iso()
            if all(k in record["answers"] for k in record["inputRequests"]):
                original = record["request"]
                asked = mrtr.respond(original, record["inputRequests"], record["requestState"], protocol=MRTR)
                retry_id = f"{task_id}-{secrets.token_hex(4)}"  # a retry takes an id of its own
                move(record, mrtr.TaskStatus.WORKING)
                await self.task_run(record, mrtr.retry(original, asked, record["answers"], retry_id, protocol=MRTR))
            await self.save("task", task_id, record, TASK_TTL_MS)

    async def task_run(self, record: Json, request: Json) -> None:
        """One replay of the tool: the next round's questions and sealed state, or the committed result."""
        try:
            response = await self.run(request)
        except mrtr.MrtrError as e:
            error, _ = mrtr.error_response(request["id"], e)
            return move(record, mrtr.TaskStatus.FAILED, error=error["error"], inputRequests={}, answers={})
        result = response["result"]
        if result.get("resultType") == "input_required":
            return move(record, mrtr.TaskStatus.INPUT_REQUIRED, inputRequests=result["inputRequests"],
                        requestState=result["requestState"], answers={})
        committed = await self.commit(record["taskId"], response, op_of(request))
        move(record, mrtr.TaskStatus.COMPLETED, result=committed["result"], inputRequests={}, answers={})

    # -------------------------------------------------------------- sep-1858 / sep-1335: continuations in Redis

    async def sep(self, http: Request, body: bytes) -> Response:
        mode = http.path_params["mode"]
        endpoint = str(http.url.replace(query=""))
        incoming = mrtr.read_http_request(mode, http.method, str(http.url), dict(http.headers), body or None,
                                          protocol=LEGACY)
        kind = incoming["type"]
        if kind == "call":
            REQUEST_ID.set(incoming["message"]["id"])
            return await self.sep_call(incoming["message"], mode, endpoint)
        if kind == "messages":
            return Response(status_code=202)
        if kind == "answers":
            return await self.sep_answers(incoming["key"], incoming["responses"], mode, endpoint)
        return await self.sep_resume(incoming.get("key"), incoming.get("lastEventId"), mode, endpoint)

    async def sep_call(self, request: Json, mode: str, endpoint: str) -> Response:
        """A new call: its continuation saved with the first round's questions, then streamed."""
        if request["method"] == "initialize":
            return initialized(request)
        if not is_plan(request):
            return not_found(request)
        # "bridge": the key the call's replays name their server requests under (random, the same every replay,
        # so that the stored answers fit the questions of the next replay).
        call: Json = {"key": secrets.token_hex(8), "bridge": secrets.token_hex(16), "request": request, "rounds": [],
                      "next": 1, "blocks": [], "done": False}
        await self.sep_write(call, mode, *await replay_bridge(request, [], call["bridge"]))
        await self.save("call", call["key"], call, CALL_TTL_MS)
        return sep_stream(call, 0, mode, endpoint)

    async def sep_answers(self, key: str, responses: List[Json], mode: str, endpoint: str) -> Response:
        """The buffered answers of the open round: the next round (or the result) saved, then streamed. The
        answers of a round already taken (a POST sent again after a cut) get the stream that followed them."""
        async with self.locked("call", key):
            call = await self.load("call", key)
            if call is None:
                return Response(status_code=404)
            ids = sorted(str(r.get("id")) for r in responses)
            for taken in call["rounds"]:
                if ids == sorted(str(r.get("id")) for r in taken["answers"]):
                    return sep_stream(call, taken["from"], mode, endpoint)
            if call["done"]:
                return Response(status_code=409)
            answers = [r["answers"] for r in call["rounds"]] + [responses]
            written = await replay_bridge(call["request"], answers, call["bridge"])
            call["rounds"].append({"answers": responses, "from": len(call["blocks"])})
            await self.sep_write(call, mode, *written)
            await self.save("call", key, call, CALL_TTL_MS)
        return sep_stream(call, call["rounds"][-1]["from"], mode, endpoint)

    async def sep_resume(self, key: Optional[str], last_event_id: Optional[str], mode: str, endpoint: str) -> Response:
        """A GET resuming the call's stream after ``Last-Event-ID`` (or, SEP-1335, at its stream URL)."""
        call = await self.load("call", key) if key else None
        if call is None:
            return Response(status_code=404 if key else 405)
        ids = [entry["block"].get("id") for entry in call["blocks"]]
        cursor = ids.index(last_event_id) + 1 if last_event_id in ids else 0
        if mode == "sep-1335" and cursor == len(ids):
            return Response(status_code=204)  # the server waits for the answers: this stream ends
        return sep_stream(call, cursor, mode, endpoint)

    async def sep_write(self, call: Json, mode: str, messages: List[Json], done: bool) -> None:
        """Writes the next turn through a ``ServerStream`` (``ask`` the round's server requests, or the final
        message, committed first) and logs its blocks in the call; the last one ends its response."""
        stream = mrtr.ServerStream(mode, call["key"], call["next"])
        if not done:
            stream.ask(messages, RETRY_MS)
        elif "result" in messages[-1]:
            stream.message(await self.commit(call["key"], messages[-1], op_of(call["request"])))
        else:
            stream.message(messages[-1])  # the tool's run was refused: no effect
        blocks = decode(stream.take())
        call["blocks"] += [{"block": b, "final": i == len(blocks) - 1} for i, b in enumerate(blocks)]
        call["next"] += len(blocks)
        call["done"] = done

    # -------------------------------------------------------------- legacy: the call lives on this stream

    async def legacy(self, http: Request, body: bytes) -> Response:
        if http.method != "POST":
            return Response(status_code=405, headers={"allow": "POST"})
        kind = mrtr.classify(body, protocol=LEGACY)
        message: Json = json.loads(body)
        if kind.kind is mrtr.Kind.REQUEST and message["method"] == "initialize":
            REQUEST_ID.set(kind.id)
            return initialized(message, session=secrets.token_hex(16))
        # Sessions are not stored (any instance may get any POST): a session id is a random name the client
        # was given, and it scopes the answers: an answer reaches only a call of the session that names it.
        session = http.headers.get("mcp-session-id")
        REQUEST_ID.set(kind.id if kind.kind is mrtr.Kind.REQUEST else None)
        if not session:
            raise refusal("usage-invalid-argument", "a POST after initialize names its Mcp-Session-Id")
        if kind.kind is mrtr.Kind.NOTIFICATION:
            return Response(status_code=202)
        if kind.kind is not mrtr.Kind.REQUEST:
            return self.legacy_answer(session, message)
        if not is_plan(message):
            return not_found(message)
        call = mrtr.BridgedCall(plan, message, round_timeout_ms=ROUND_TIMEOUT_MS)
        self.legacy_calls.setdefault(session, []).append(call)
        return StreamingResponse(self.legacy_stream(session, call, message), media_type="text/event-stream",
                                 headers={"cache-control": "no-store"})

    def legacy_answer(self, session: str, message: Json) -> Response:
        """An answer POSTed on its own: to the open call of this process and this session that asked it. An
        answer no call of the session awaits (another session's question, one answered already, or a call held
        by another instance) is refused: 400 and a JSON-RPC error without id (2025-11-25: the server "cannot
        accept the input")."""
        REQUEST_ID.set(None)
        asked = str(message.get("id"))
        call = next((c for c in self.legacy_calls.get(session, []) if asked in c.pending), None)
        if call is None:
            raise refusal("usage-unknown-handle", f"no call of this session awaits an answer to {asked!r} here")
        call.deliver(message)  # an answer that does not fit is refused; the round still waits
        return Response(status_code=202)

    async def legacy_stream(self, session: str, call: Any, request: Json) -> AsyncIterator[str]:
        """The call's stream; its completion commits under the request id and a nonce (no single use)."""
        try:
            async for text in call.stream():
                final = json.loads(decode(text)[-1]["data"]) if call.done else {}
                if "result" in final:
                    await self.commit(f"{request['id']}-{secrets.token_hex(8)}", final, op_of(request))
                yield text
        finally:
            calls = self.legacy_calls.get(session, [])
            calls.remove(call)
            if not calls:
                self.legacy_calls.pop(session, None)


# ------------------------------------------------------------------ helpers of the modes


async def replay_bridge(request: Json, rounds: List[List[Json]], key: str) -> Tuple[List[Json], bool]:
    """The call's ``BridgedCall`` rebuilt from the answers of its rounds (the tool replayed once per round):
    what it writes next as messages (the next round's server requests, or the final response), and whether
    that is the final one. Answers that are not those the round awaits raise their ``MrtrError``."""
    call = mrtr.BridgedCall(plan, request, key=key, round_timeout_ms=ROUND_TIMEOUT_MS)
    stream: Any = call.stream()
    try:
        text = await stream.__anext__()
        for answers in rounds:
            for answer in answers:
                call.deliver(answer)
            if call.pending:
                raise refusal("usage-out-of-turn", f"these are not all the answers awaited: {call.pending} left")
            text = await stream.__anext__()
    finally:
        await stream.aclose()
    return [json.loads(b["data"]) for b in decode(text) if "data" in b], call.done


def sep_stream(call: Json, cursor: int, mode: str, endpoint: str) -> Response:
    """The call's blocks from ``cursor`` through the next final one (all in Redis already), as the response."""
    link = mrtr.stream_url(endpoint, call["key"]) if mode == "sep-1335" else None
    headers = mrtr.ServerStream(mode, call["key"], call["next"]).head(link)
    text = []
    for entry in call["blocks"][cursor:]:
        text.append(mrtr.sse_encode(entry["block"]))
        if entry["final"]:
            break
    return Response("".join(text), headers=headers)


def decode(text: str) -> List[Json]:
    """Event-stream text as mrtr's decoder reads it: the blocks."""
    decoder = mrtr.SseDecoder()
    decoder.feed(text)
    decoder.finish()
    return list(decoder)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def move(record: Json, to: mrtr.TaskStatus, **fields: Any) -> None:
    """A task status change, as mrtr's transition table allows it (``TaskError`` otherwise)."""
    record["status"] = mrtr.TaskStatus(record["status"]).transition(to).value
    record.update(fields, lastUpdatedAt=now_iso())


def view(record: Json) -> Json:
    """The task record mrtr's task builders read (they pick the fields each status shows)."""
    shown = ("taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs", "result", "error",
             "inputRequests")
    return {**{k: record[k] for k in shown}, "answered": list(record["answers"])}


def refusal(rule: str, message: str) -> mrtr.MrtrError:
    """The error of one of mrtr's rules (``error_response`` answers it as mrtr builds it)."""
    return mrtr.error_class(rule)(rule, mrtr.Rule(rule).code, message)


def discovered(request: Json, capabilities: Json) -> Response:
    return JSONResponse(mrtr.discover(request, {"capabilities": capabilities, "serverInfo": INFO}, protocol=MRTR))


def initialized(request: Json, session: Optional[str] = None) -> Response:
    result = {"protocolVersion": LEGACY, "capabilities": {"tools": {}}, "serverInfo": INFO}
    headers = {"mcp-session-id": session} if session else None
    return JSONResponse({"jsonrpc": "2.0", "id": request["id"], "result": result}, headers=headers)


def not_found(request: Json) -> Response:
    """-32601 (no rule of mrtr's covers a method a server does not serve)."""
    error = {"code": -32601, "message": f"not served here: {request['method']}"}
    return JSONResponse({"jsonrpc": "2.0", "id": request["id"], "error": error}, 404)


def served_by(app: Any, name: str) -> Any:
    """ASGI wrapper adding ``x-served-by: NAME`` to every response head."""

    async def wrapped(scope: Json, receive: Any, send: Any) -> None:
        async def sending(message: Json) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-served-by", name.encode())]
            await send(message)

        await app(scope, receive, sending if scope["type"] == "http" else send)

    return wrapped


class Server(uvicorn.Server):
    """SIGTERM (or Ctrl-C) ends the process at once: open streams (legacy calls) are cut, not waited for."""

    def handle_exit(self, sig: int, frame: Any) -> None:
        self.force_exit = True
        super().handle_exit(sig, frame)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--name", required=True, help="sent as x-served-by")
    parser.add_argument("--redis", required=True, help="redis://127.0.0.1:PORT")
    parser.add_argument("--redis-password-file", help="a file holding Redis's password (requirepass)")
    parser.add_argument("--keys", required=True, help='KEYS.json: {"keys": [{"id": 1, "secret": "<64 hex>"}, …]}')
    parser.add_argument("--current", type=int, required=True, help="the id of the key this instance seals with")
    parser.add_argument("--prefix", default="RUN", help="the prefix of every Redis key")
    args = parser.parse_args()
    instance = Instance(args)

    async def health(http: Request) -> Response:
        return Response("ok", media_type="text/plain")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await instance.redis.aclose()

    routes = [Route("/health", health), Route("/mcp/{mode}", instance.endpoint, methods=["GET", "POST", "DELETE"])]
    app = Starlette(routes=routes, lifespan=lifespan)
    Server(uvicorn.Config(served_by(app, args.name), host="127.0.0.1", port=args.port, log_level="warning")).run()


if __name__ == "__main__":
    main()
