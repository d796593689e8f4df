"""The server the official MCP conformance suite tests: a stateless `2026-07-28` MCP server on mrtr.

A small Starlette app (run by uvicorn) over mrtr's Python binding. Every MRTR
decision is mrtr's: ``classify`` reads each incoming message; the tools are await-style
(``name = await ctx.elicit(...)``), replayed by ``run_tool`` over
``SealedRounds`` (a ``KeyRing``), which carry the answers of earlier rounds in
a sealed ``requestState``, so any instance holding the key could serve any
round; ``check_request`` checks every request before anything runs (its ``_meta``, its ``MCP-Protocol-Version``
/ ``Mcp-Method`` / ``Mcp-Name`` headers, a protocol version this server serves: -32022), ``ctx.allows`` and
``ctx.require`` decide which questions the client's capabilities allow (-32021 with ``requiredCapabilities``;
``require_declared`` for the Tasks extension), ``complete`` builds each final answer (``ttlMs: 0`` on a retry),
``task_created`` and ``task_get_response`` the Tasks extension's results, and ``error_response`` each refusal
with its HTTP status; ``TaskStatus.transition`` guards every task status change. What is here is the server's
own: dispatch (-32601/404 for unknown methods, -32602 for unknown tools, prompts or tasks),
``server/discover``, the fixtures the suite's scenarios name, and the task records behind a small
``TaskStore`` interface (in memory here).

    python server.py --port 8000    # POST JSON-RPC to http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import threading
import time
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Dict, List, Optional

import anyio.to_thread
import mrtr
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

PROTOCOL = mrtr.Protocol.V2026_07_28
SUPPORTED_VERSIONS = [str(PROTOCOL.value)]
TASKS_EXT = "io.modelcontextprotocol/tasks"
SERVER_INFO = {"name": "mrtr-official-conformance-server", "version": "0.1.0"}
# A deployment shares this secret among its instances; here it comes from the
# environment or is made fresh per process.
SECRET = os.environ.get("MRTR_CONFORMANCE_SECRET", "").encode() or os.urandom(32)
RING = mrtr.KeyRing(1, mrtr.Algorithm.XAES_256_GCM, secret=hashlib.sha256(SECRET).digest())
TTL_SECONDS = 300
TASK_TTL_MS = 300_000
POLL_INTERVAL_MS = 200

Json = Dict[str, Any]


class RpcError(Exception):
    """A JSON-RPC error answer, with the HTTP status that carries it."""

    def __init__(self, code: int, message: str, status: int = 200, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.data = code, message, status, data


def text(value: str) -> List[Json]:
    return [{"type": "text", "text": value}]


# The deployment's round settings, built once; who and when come with each call. Under them an answer
# counts only with the sealed state that asked for it: answers on a first request are ignored and the
# question asked again (SEP-2322 "Guidance for Error Handling": a server ignores what it did not ask for).
SEALED = mrtr.SealedRounds(RING, ttl=TTL_SECONDS, protocol=PROTOCOL)
# The suite pre-answers `test_input_required_result_elicitation` on a first request and expects it to
# complete (`input-required-result-ignore-extra-params`). Its one question has no effect and no counter
# behind it, so that fixture alone takes a first request's answers by key (pins off).
BY_KEY = mrtr.SealedRounds(RING, ttl=TTL_SECONDS, protocol=PROTOCOL, pin_answers=False)


async def run(tool: mrtr.Tool, request: Json, rounds: mrtr.SealedRounds = SEALED) -> Json:
    """An await-style tool replayed over sealed rounds (mrtr decides every round and every answer's fit)."""
    # The suite's clients do not authenticate: anonymous, chosen explicitly.
    return await mrtr.run_tool(tool, request, rounds, anonymous=True, now=int(time.time()))


def answer_of(response: Any, key: str, default: Any = None) -> Any:
    """A field of an accepted elicitation's content (the tools' own business)."""
    if isinstance(response, dict) and isinstance(response.get("content"), dict):
        return response["content"].get(key, default)
    return default


# ---------------------------------------------------------------- MRTR tools (await-style)

Q = mrtr.Questions


def form(prop: str, kind: str = "string") -> Json:
    return {"type": "object", "properties": {prop: {"type": kind}}, "required": [prop]}


def sample(prompt: str, max_tokens: int) -> Json:
    messages = [{"role": "user", "content": {"type": "text", "text": prompt}}]
    return Q.sample({"messages": messages, "maxTokens": max_tokens})


NAME = Q.elicit("What is your name?", form("name"))
CAPITAL = sample("What is the capital of France?", 100)
CONFIRM = Q.elicit("Please confirm", form("ok", "boolean"))


async def elicitation(args: Json, ctx: mrtr.Context) -> Json:
    # The suite answers this one under the key `user_name`, sometimes with no round before.
    name = answer_of(await ctx.ask(NAME, key="user_name"), "name", "stranger")
    return {"content": text(f"Hello, {name}!")}


async def sampling(args: Json, ctx: mrtr.Context) -> Json:
    said = await ctx.ask(CAPITAL)
    return {"content": text(f"The model said: {(said.get('content') or {}).get('text', '')}")}


async def list_roots(args: Json, ctx: mrtr.Context) -> Json:
    roots = await ctx.roots()
    return {"content": text("Roots: " + ", ".join(x.get("uri", "?") for x in roots.get("roots", [])))}


async def request_state(args: Json, ctx: mrtr.Context) -> Json:
    return {"content": text(f"state-ok: confirmed={answer_of(await ctx.ask(CONFIRM), 'ok')}")}


async def multiple_inputs(args: Json, ctx: mrtr.Context) -> Json:
    answers = await ctx.ask_all(NAME, sample("Generate a greeting", 50), Q.roots())
    return {"content": text(f"Got {len(answers)} answers")}


async def multi_round(args: Json, ctx: mrtr.Context) -> Json:
    name = answer_of(await ctx.elicit("Step 1: What is your name?", form("name")), "name")
    color = answer_of(await ctx.elicit("Step 2: What is your favorite color?", form("color")), "color")
    return {"content": text(f"{name} likes {color}")}


async def tampered_state(args: Json, ctx: mrtr.Context) -> Json:
    await ctx.ask(CONFIRM)
    return {"content": text("state-ok")}


async def capabilities(args: Json, ctx: mrtr.Context) -> Json:
    """Asks only what the client declared a capability for."""
    answers = await ctx.ask_all(*(q for q in (NAME, CAPITAL) if ctx.allows(q)))
    return {"content": text(f"{len(answers)} answers")}


async def needs_sampling(args: Json, ctx: mrtr.Context) -> Json:
    """server-stateless: called without the sampling capability, it must be refused with -32021."""
    ctx.require(CAPITAL)
    said = await ctx.ask(CAPITAL)
    return {"content": text(f"The model said: {(said.get('content') or {}).get('text', '')}")}


async def streaming_elicitation(args: Json, ctx: mrtr.Context) -> Json:
    """server-stateless: its response stream carries the question as input_required, never a server request."""
    name = answer_of(await ctx.elicit("What is your name?", form("name")), "name", "stranger")
    return {"content": text(f"Hello, {name}!")}


async def logging_tool(args: Json, ctx: mrtr.Context) -> Json:
    """server-stateless: no notifications/message without the request's ``_meta`` logLevel (this server never logs)."""
    return {"content": text("done, nothing logged")}


async def prompt(args: Json, ctx: mrtr.Context) -> Json:
    context = answer_of(await ctx.elicit("What context should the prompt use?", form("context")), "context")
    return {"messages": [{"role": "user", "content": {"type": "text", "text": f"Context: {context}"}}]}


PRE_ANSWERED = "test_input_required_result_elicitation"
MRTR_TOOLS: Dict[str, mrtr.Tool] = {
    "test_input_required_result_elicitation": elicitation,
    "test_input_required_result_sampling": sampling,
    "test_input_required_result_list_roots": list_roots,
    "test_input_required_result_request_state": request_state,
    "test_input_required_result_multiple_inputs": multiple_inputs,
    "test_input_required_result_multi_round": multi_round,
    "test_input_required_result_tampered_state": tampered_state,
    "test_input_required_result_capabilities": capabilities,
    "test_missing_capability": needs_sampling,
    "test_streaming_elicitation": streaming_elicitation,
    "test_logging_tool": logging_tool,
}
PROMPTS: Dict[str, mrtr.Tool] = {"test_input_required_result_prompt": prompt}

NO_ARGS = {"type": "object", "properties": {}}
TOOLS: List[Json] = [
    {"name": name, "description": (tool.__doc__ or f"SEP-2322 fixture {name}").splitlines()[0], "inputSchema": NO_ARGS}
    for name, tool in MRTR_TOOLS.items()
] + [
    {
        "name": "greet",
        "description": "Greets someone (sync only)",
        "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
        "execution": {"taskSupport": "forbidden"},
    },
    {
        "name": "slow_compute",
        "description": "Sleeps `seconds`, then answers",
        "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}}},
        "execution": {"taskSupport": "optional"},
    },
    {"name": "failing_job", "description": "Fails as a tool", "inputSchema": NO_ARGS, "execution": {"taskSupport": "required"}},
    {"name": "protocol_error_job", "description": "Fails as a protocol error", "inputSchema": NO_ARGS, "execution": {"taskSupport": "required"}},
    {
        "name": "confirm_delete",
        "description": "Asks for confirmation in its task, then deletes",
        "inputSchema": {"type": "object", "properties": {"filename": {"type": "string"}}},
        "execution": {"taskSupport": "required"},
    },
    {"name": "multi_input", "description": "Asks two questions at once in its task", "inputSchema": NO_ARGS, "execution": {"taskSupport": "required"}},
    {
        "name": "test_tool_with_task",
        "description": "Asks for a name (MRTR), then continues as a task",
        "inputSchema": NO_ARGS,
        "execution": {"taskSupport": "required"},
    },
]
TASK_SUPPORT = {t["name"]: t.get("execution", {}).get("taskSupport", "forbidden") for t in TOOLS}

# ---------------------------------------------------------------- tasks


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class Task:
    id: str
    status: mrtr.TaskStatus
    created_at: str
    updated_at: str
    ttl_ms: int = TASK_TTL_MS
    result: Optional[Json] = None
    error: Optional[Json] = None
    input_requests: Json = field(default_factory=dict)
    responses: Json = field(default_factory=dict)

    def record(self) -> Json:
        """The task record mrtr's task builders read (they decide which fields each status shows)."""
        return {
            "taskId": self.id,
            "status": self.status.value,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.updated_at,
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": POLL_INTERVAL_MS,
            "result": self.result,
            "error": self.error,
            "inputRequests": self.input_requests,
            "answered": list(self.responses),
        }


class TaskStore(ABC):
    """Where task records live: one process's memory here, a shared store when scaled out."""

    @abstractmethod
    def create(self) -> Task: ...

    @abstractmethod
    def get(self, task_id: str) -> Optional[Task]: ...

    @abstractmethod
    def update(self, task_id: str, change: Callable[[Task], None]) -> Task:
        """Applies ``change`` to the task atomically; raises KeyError for an unknown id."""


class MemoryTaskStore(TaskStore):
    def __init__(self) -> None:
        self._tasks: Dict[str, Task] = {}
        self._lock = threading.Lock()

    def create(self) -> Task:
        stamp = now_iso()
        task = Task(uuid.uuid4().hex, mrtr.TaskStatus.WORKING, stamp, stamp)
        with self._lock:
            self._tasks[task.id] = task
        return task

    def get(self, task_id: str) -> Optional[Task]:
        with self._lock:
            task = self._tasks.get(task_id)
            if task is not None and self._expired(task):
                del self._tasks[task_id]
                return None
            return task

    def update(self, task_id: str, change: Callable[[Task], None]) -> Task:
        with self._lock:
            task = self._tasks[task_id]
            change(task)
            return task

    @staticmethod
    def _expired(task: Task) -> bool:
        created = datetime.fromisoformat(task.created_at.replace("Z", "+00:00"))
        return (datetime.now(timezone.utc) - created).total_seconds() * 1000 > task.ttl_ms


class TaskRunner:
    """Runs task bodies in threads; every status change goes through mrtr's transition table."""

    def __init__(self, store: TaskStore) -> None:
        self.store = store
        self._wake: Dict[str, threading.Event] = {}

    def start(self, body: Callable[["TaskContext"], None]) -> Task:
        task = self.store.create()
        self._wake[task.id] = threading.Event()
        threading.Thread(target=self._run, args=(task.id, body), daemon=True).start()
        return task

    def move(self, task_id: str, to: mrtr.TaskStatus, **fields: Any) -> bool:
        """Moves the task to ``to``; False when the table forbids it (e.g. already cancelled)."""

        def change(task: Task) -> None:
            task.status = mrtr.TaskStatus(task.status.transition(to))
            for k, v in fields.items():
                setattr(task, k, v)
            task.updated_at = now_iso()

        try:
            self.store.update(task_id, change)
            return True
        except mrtr.TaskError:
            return False

    def _run(self, task_id: str, body: Callable[["TaskContext"], None]) -> None:
        ctx = TaskContext(self, task_id, self._wake[task_id])
        try:
            body(ctx)
        except Cancelled:
            pass
        except Exception as e:  # a crash is a protocol-level failure of the task
            self.move(task_id, mrtr.TaskStatus.FAILED, error={"code": -32603, "message": f"Internal error: {e}"})

    def cancel(self, task_id: str) -> None:
        self.move(task_id, mrtr.TaskStatus.CANCELLED)
        self._wake[task_id].set()

    def deliver(self, request: Json, task: Task) -> None:
        """tasks/update: the answers mrtr reads from ``request`` against what the task asked."""
        got = mrtr.resume(request, task.input_requests, protocol=PROTOCOL)
        if not got.responses:
            return

        def answer(t: Task) -> None:
            t.responses.update(got.responses)
            # Every question answered: working again at once, in the same step, so that a tasks/get
            # between this update and the task's thread taking the answers never shows an
            # input_required task with nothing left to answer (task-input-requests-missing).
            if t.status is mrtr.TaskStatus.INPUT_REQUIRED and all(k in t.responses for k in t.input_requests):
                t.status = mrtr.TaskStatus(t.status.transition(mrtr.TaskStatus.WORKING))
                t.updated_at = now_iso()

        self.store.update(task.id, answer)
        self._wake[task.id].set()


class Cancelled(Exception):
    pass


class TaskContext:
    def __init__(self, runner: TaskRunner, task_id: str, wake: threading.Event) -> None:
        self.runner, self.id, self.wake = runner, task_id, wake

    def task(self) -> Task:
        task = self.runner.store.get(self.id)
        if task is None or task.status is mrtr.TaskStatus.CANCELLED:
            raise Cancelled()
        return task

    def sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.wake.wait(max(0.0, deadline - time.monotonic()))
            self.wake.clear()
            self.task()

    def ask(self, needs: Json) -> Json:
        """Parks the task in ``input_required`` until every entry of ``needs`` is answered."""
        self.runner.move(self.id, mrtr.TaskStatus.INPUT_REQUIRED, input_requests=needs, responses={})
        while True:
            task = self.task()
            if all(k in task.responses for k in needs):
                answers = {k: task.responses[k] for k in needs}
                self.runner.move(self.id, mrtr.TaskStatus.WORKING, input_requests={}, responses={})
                return answers
            self.wake.wait(0.5)
            self.wake.clear()

    def complete(self, result: Json) -> None:
        self.runner.move(self.id, mrtr.TaskStatus.COMPLETED, result=dict(result, resultType="complete"))

    def fail(self, code: int, message: str) -> None:
        self.runner.move(self.id, mrtr.TaskStatus.FAILED, error={"code": code, "message": message})


STORE: TaskStore = MemoryTaskStore()
RUNNER = TaskRunner(STORE)


def slow_compute(args: Json) -> Callable[[TaskContext], None]:
    seconds = float(args.get("seconds", 0) or 0)
    label = str(args.get("label", ""))

    def body(ctx: TaskContext) -> None:
        ctx.sleep(seconds)
        ctx.task()
        ctx.complete({"content": text(f"Computed {label} in {seconds:g}s")})

    return body


def failing_job(args: Json) -> Callable[[TaskContext], None]:
    def body(ctx: TaskContext) -> None:
        ctx.sleep(1)
        ctx.complete({"content": text("The job failed"), "isError": True})

    return body


def protocol_error_job(args: Json) -> Callable[[TaskContext], None]:
    def body(ctx: TaskContext) -> None:
        ctx.sleep(0.2)
        raise RuntimeError("protocol_error_job panicked")

    return body


def confirm_delete(args: Json) -> Callable[[TaskContext], None]:
    filename = str(args.get("filename", "file"))

    def body(ctx: TaskContext) -> None:
        question = Q.elicit(f"Delete {filename}?", form("confirm", "boolean"))
        answers = ctx.ask({"confirm_" + uuid.uuid4().hex[:8]: question})
        (reply,) = answers.values()
        if reply.get("action") == "accept" and answer_of(reply, "confirm", True):
            ctx.complete({"content": text(f"Deleted {filename}")})
        else:
            ctx.complete({"content": text(f"Kept {filename}")})

    return body


def multi_input(args: Json) -> Callable[[TaskContext], None]:
    def body(ctx: TaskContext) -> None:
        properties = {"name": {"type": "string"}, "confirm": {"type": "boolean"}}
        schema = {"type": "object", "properties": properties, "required": ["name"]}
        question = Q.elicit("Who is it, and do you confirm?", schema)
        answers = ctx.ask({"first_" + uuid.uuid4().hex[:8]: question, "second_" + uuid.uuid4().hex[:8]: question})
        ctx.complete({"content": text(f"Got {len(answers)} answers")})

    return body


TASK_TOOLS: Dict[str, Callable[[Json], Callable[[TaskContext], None]]] = {
    "slow_compute": slow_compute,
    "failing_job": failing_job,
    "protocol_error_job": protocol_error_job,
    "confirm_delete": confirm_delete,
    "multi_input": multi_input,
}


def create_task_result(request: Json, task: Task) -> Json:
    return mrtr.task_created(request, task.record(), protocol=PROTOCOL)


def tool_with_task(request: Json) -> Json:
    """MRTR first (a replay over sealed rounds), then the rest of the work as a task."""
    replay = SEALED.tool_replay(request, anonymous=True, now=int(time.time()))
    answer = replay.ask(NAME, "user_name")
    if answer is None:
        return replay.input_required(SEALED.ring)
    name = answer_of(answer, "name", "stranger")

    def body(ctx: TaskContext) -> None:
        ctx.sleep(0.2)
        ctx.complete({"content": text(f"Hello, {name}! (finished in a task)")})

    return create_task_result(request, RUNNER.start(body))


def run_sync(body: Callable[[TaskContext], None]) -> Json:
    """A task-supporting tool run in-line for a client that did not negotiate tasks."""
    task = RUNNER.start(body)
    while True:
        current = STORE.get(task.id)
        assert current is not None
        if current.status.is_terminal:
            break
        time.sleep(0.02)
    if current.status is mrtr.TaskStatus.FAILED:
        raise RpcError(current.error["code"], current.error["message"])  # type: ignore[index]
    return dict(current.result or {})


# ---------------------------------------------------------------- dispatch


def complete(request: Json, result: Json) -> Json:
    return mrtr.complete(request, result, protocol=PROTOCOL)


TASKS_DECLARED = {"extensions": {TASKS_EXT: {}}}


def tasks_negotiated(request: Json) -> bool:
    try:
        mrtr.require_declared(request, TASKS_DECLARED, protocol=PROTOCOL)
    except mrtr.ProtocolError:
        return False
    return True


async def call_tool(request: Json) -> Json:
    params = request["params"]
    name = params.get("name")
    args = params.get("arguments") or {}
    if name in MRTR_TOOLS:
        return await run(MRTR_TOOLS[name], request, BY_KEY if name == PRE_ANSWERED else SEALED)
    if name == "greet":
        return complete(request, {"content": text(f"Hello, {args.get('name', 'World')}!")})
    if name in TASK_TOOLS or name == "test_tool_with_task":
        if not tasks_negotiated(request):
            if TASK_SUPPORT[name] == "required":
                mrtr.require_declared(request, TASKS_DECLARED, protocol=PROTOCOL)  # -32021 naming the extension
            return complete(request, await anyio.to_thread.run_sync(run_sync, TASK_TOOLS[name](args)))
        if name == "test_tool_with_task":
            return tool_with_task(request)
        return create_task_result(request, RUNNER.start(TASK_TOOLS[name](args)))
    raise RpcError(-32602, f"Unknown tool: {name}", 400)


def task_of(request: Json) -> Task:
    mrtr.require_declared(request, TASKS_DECLARED, protocol=PROTOCOL)
    task_id = request["params"].get("taskId")
    task = STORE.get(task_id) if isinstance(task_id, str) else None
    if task is None:
        raise RpcError(-32602, f"Unknown taskId: {task_id}", 400)
    return task


async def handle_request(request: Json) -> Json:
    method, params = request["method"], request["params"]
    if method == "server/discover":
        return complete(
            request,
            {
                "supportedVersions": SUPPORTED_VERSIONS,
                "capabilities": {"tools": {}, "prompts": {}, "extensions": {TASKS_EXT: {}}},
                "ttlMs": 0,
                "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
            },
        )
    if method == "tools/list":
        return complete(request, {"tools": TOOLS, "ttlMs": 0, "cacheScope": "public"})
    if method == "prompts/list":
        prompts = [{"name": n, "description": "SEP-2322 fixture (asks for context)"} for n in PROMPTS]
        return complete(request, {"prompts": prompts, "ttlMs": 0, "cacheScope": "public"})
    if method == "tools/call":
        return await call_tool(request)
    if method == "prompts/get":
        if params.get("name") not in PROMPTS:
            raise RpcError(-32602, f"Unknown prompt: {params.get('name')}", 400)
        return await run(PROMPTS[params["name"]], request)
    if method == "tasks/get":
        return mrtr.task_get_response(request, task_of(request).record(), protocol=PROTOCOL)
    if method == "tasks/update":
        RUNNER.deliver(request, task_of(request))
        return complete(request, {})
    if method == "tasks/cancel":
        task = task_of(request)
        if not task.status.is_terminal:
            RUNNER.cancel(task.id)
        return complete(request, {})
    raise RpcError(-32601, f"Method not found: {method}", 404)


def error_body(id: Any, e: RpcError) -> Json:
    err: Json = {"code": e.code, "message": e.message}
    if e.data is not None:
        err["data"] = e.data
    return {"jsonrpc": "2.0", "id": id, "error": err}


async def mcp(http: Request) -> Response:
    body = await http.body()
    try:
        kind = mrtr.classify(body, protocol=PROTOCOL)
    except mrtr.MrtrError as e:
        response, status = mrtr.error_response(None, e)
        return JSONResponse(response, status_code=status)
    if kind.kind is not mrtr.Kind.REQUEST:
        return Response(status_code=202)  # notifications and stray responses: nothing to answer
    request = json.loads(body)
    request.setdefault("params", {})
    try:
        mrtr.check_request(request, SUPPORTED_VERSIONS, dict(http.headers), protocol=PROTOCOL)
        return JSONResponse(await handle_request(request))
    except RpcError as e:
        return JSONResponse(error_body(kind.id, e), status_code=e.status)
    except mrtr.MrtrError as e:  # what mrtr refuses: _meta, headers, bad inputResponses, tampered or stale state, …
        response, status = mrtr.error_response(kind.id, e)
        return JSONResponse(response, status_code=status)


async def not_allowed(http: Request) -> Response:
    return Response(status_code=405, headers={"Allow": "POST"})


app = Starlette(routes=[Route("/mcp", mcp, methods=["POST"]), Route("/mcp", not_allowed, methods=["GET", "DELETE"])])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
