"""The server the official MCP conformance suite tests: a stateless `2026-07-28` MCP server on mrtr.

A small Starlette app (run by uvicorn) over mrtr's Python binding. Every MRTR
decision is mrtr's: ``classify`` reads each incoming message, ``respond`` /
``resume`` build and read ``input_required`` rounds, ``SealedRounds`` (over a
``KeyRing``) carries the answers of earlier rounds in a sealed
``requestState``, so any instance holding the key could serve any round, and
``TaskStatus.transition`` guards every task status change. What is here is the
HTTP transport of the stateless lifecycle (``server/discover``, the per-request
``_meta`` and the ``MCP-Protocol-Version`` / ``Mcp-Method`` / ``Mcp-Name``
headers), the fixtures the suite's scenarios name, and the Tasks extension's
task records behind a small ``TaskStore`` interface (in memory here).

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
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO = {"name": "mrtr-official-conformance-server", "version": "0.1.0"}
# A deployment shares this secret among its instances; here it comes from the
# environment or is made fresh per process.
SECRET = os.environ.get("MRTR_CONFORMANCE_SECRET", "").encode() or os.urandom(32)
RING = mrtr.KeyRing(mrtr.Key(1, mrtr.Algorithm.XCHACHA20_POLY1305, hashlib.sha256(SECRET).digest()))
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


def elicit(message: str, prop: str, kind: str = "string") -> Json:
    return {
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {"type": "object", "properties": {prop: {"type": kind}}, "required": [prop]},
        },
    }


def sample(prompt: str, max_tokens: int) -> Json:
    return {
        "method": "sampling/createMessage",
        "params": {"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": max_tokens},
    }


ROOTS: Json = {"method": "roots/list", "params": {}}


# The deployment's round settings, built once; who and when come with each call.
SEALED = mrtr.SealedRounds(RING, TTL_SECONDS, protocol=PROTOCOL)


def resume(request: Json, needs: Json) -> mrtr.Round:
    # The suite's clients do not authenticate: anonymous, chosen explicitly.
    return SEALED.resume(request, needs, anonymous=True, now=int(time.time()))


def ask(request: Json, round_: mrtr.Round, needs: Json) -> Json:
    return SEALED.respond(request, round_, needs, anonymous=True, now=int(time.time()))


def answer_of(response: Any, key: str, default: Any = None) -> Any:
    """A field of an accepted elicitation's content (the tools' own business)."""
    if isinstance(response, dict) and isinstance(response.get("content"), dict):
        return response["content"].get(key, default)
    return default


# ---------------------------------------------------------------- MRTR tools


def mrtr_tool(needs: Json, finish: Callable[[Json, Json], Json]) -> Callable[[Json], Json]:
    """A tool that gathers ``needs`` over sealed rounds, then ``finish(request, answers)``."""

    def run(request: Json) -> Json:
        round_ = resume(request, needs)
        if not round_.complete:
            return ask(request, round_, needs)
        return complete(request["id"], finish(request, round_.answers))

    return run


def staged_tool(stages: List[Json], finish: Callable[[Json, Json], Json]) -> Callable[[Json], Json]:
    """Like ``mrtr_tool``, but asks one stage per round: a multi-round conversation."""

    def run(request: Json) -> Json:
        needs: Json = {}
        for stage in stages:
            needs = {**needs, **stage}
            round_ = resume(request, needs)
            if not round_.complete:
                return ask(request, round_, needs)
        return complete(request["id"], finish(request, round_.answers))

    return run


def within_capabilities(request: Json, wanted: Json) -> Json:
    """The entries of ``wanted`` the client declared a capability for (mrtr decides which)."""
    kept = {}
    for key, entry in wanted.items():
        try:
            mrtr.respond(request, {key: entry}, protocol=PROTOCOL)
        except mrtr.ProtocolError as e:
            if e.rule is mrtr.Rule.INPUT_REQUEST_CAPABILITY_MISSING:
                continue
            raise
        kept[key] = entry
    return kept


def capabilities_tool(request: Json) -> Json:
    needs = within_capabilities(
        request, {"user_name": elicit("What is your name?", "name"), "capital_question": sample("What is the capital of France?", 100)}
    )
    return mrtr_tool(needs, lambda r, a: {"content": text(f"answers: {sorted(a)}")})(request)


MRTR_TOOLS: Dict[str, Callable[[Json], Json]] = {
    "test_input_required_result_elicitation": mrtr_tool(
        {"user_name": elicit("What is your name?", "name")},
        lambda r, a: {"content": text(f"Hello, {answer_of(a['user_name'], 'name', 'stranger')}!")},
    ),
    "test_input_required_result_sampling": mrtr_tool(
        {"capital_question": sample("What is the capital of France?", 100)},
        lambda r, a: {"content": text(f"The model said: {(a['capital_question'].get('content') or {}).get('text', '')}")},
    ),
    "test_input_required_result_list_roots": mrtr_tool(
        {"client_roots": ROOTS},
        lambda r, a: {"content": text("Roots: " + ", ".join(x.get("uri", "?") for x in a["client_roots"].get("roots", [])))},
    ),
    "test_input_required_result_request_state": mrtr_tool(
        {"confirm": elicit("Please confirm", "ok", "boolean")},
        lambda r, a: {"content": text(f"state-ok: confirmed={answer_of(a['confirm'], 'ok')}")},
    ),
    "test_input_required_result_multiple_inputs": mrtr_tool(
        {
            "user_name": elicit("What is your name?", "name"),
            "greeting": sample("Generate a greeting", 50),
            "client_roots": ROOTS,
        },
        lambda r, a: {"content": text(f"Got {', '.join(sorted(a))}")},
    ),
    "test_input_required_result_multi_round": staged_tool(
        [{"step1": elicit("Step 1: What is your name?", "name")}, {"step2": elicit("Step 2: What is your favorite color?", "color")}],
        lambda r, a: {"content": text(f"{answer_of(a['step1'], 'name')} likes {answer_of(a['step2'], 'color')}")},
    ),
    "test_input_required_result_tampered_state": mrtr_tool(
        {"confirm": elicit("Please confirm", "ok", "boolean")},
        lambda r, a: {"content": text("state-ok")},
    ),
    "test_input_required_result_capabilities": capabilities_tool,
}
PROMPTS: Dict[str, Callable[[Json], Json]] = {
    "test_input_required_result_prompt": mrtr_tool(
        {"user_context": elicit("What context should the prompt use?", "context")},
        lambda r, a: {
            "messages": [{"role": "user", "content": {"type": "text", "text": f"Context: {answer_of(a['user_context'], 'context')}"}}]
        },
    ),
}

NO_ARGS = {"type": "object", "properties": {}}
TOOLS: List[Json] = [
    {"name": name, "description": f"SEP-2322 fixture {name}", "inputSchema": NO_ARGS} for name in MRTR_TOOLS
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

    def wire(self) -> Json:
        """The DetailedTask of ``tasks/get`` (without ``resultType``)."""
        out: Json = {
            "taskId": self.id,
            "status": self.status.value,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.updated_at,
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": POLL_INTERVAL_MS,
        }
        if self.status is mrtr.TaskStatus.COMPLETED and self.result is not None:
            out["result"] = self.result
        if self.status is mrtr.TaskStatus.FAILED and self.error is not None:
            out["error"] = self.error
        if self.status is mrtr.TaskStatus.INPUT_REQUIRED:
            out["inputRequests"] = {k: v for k, v in self.input_requests.items() if k not in self.responses}
        return out


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
        if got.responses:
            self.store.update(task.id, lambda t: t.responses.update(got.responses))
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
        answers = ctx.ask({"confirm_" + uuid.uuid4().hex[:8]: elicit(f"Delete {filename}?", "confirm", "boolean")})
        (reply,) = answers.values()
        if reply.get("action") == "accept" and answer_of(reply, "confirm", True):
            ctx.complete({"content": text(f"Deleted {filename}")})
        else:
            ctx.complete({"content": text(f"Kept {filename}")})

    return body


def multi_input(args: Json) -> Callable[[TaskContext], None]:
    def body(ctx: TaskContext) -> None:
        form = {
            "method": "elicitation/create",
            "params": {
                "message": "Who is it, and do you confirm?",
                "requestedSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}},
                    "required": ["name"],
                },
            },
        }
        answers = ctx.ask({"first_" + uuid.uuid4().hex[:8]: form, "second_" + uuid.uuid4().hex[:8]: form})
        ctx.complete({"content": text(f"Got {len(answers)} answers")})

    return body


TASK_TOOLS: Dict[str, Callable[[Json], Callable[[TaskContext], None]]] = {
    "slow_compute": slow_compute,
    "failing_job": failing_job,
    "protocol_error_job": protocol_error_job,
    "confirm_delete": confirm_delete,
    "multi_input": multi_input,
}


def create_task_result(id: Any, task: Task) -> Json:
    return {"jsonrpc": "2.0", "id": id, "result": dict(task.wire(), resultType="task")}


def tool_with_task(request: Json) -> Json:
    """MRTR first (sealed rounds), then the rest of the work as a task."""
    needs = {"user_name": elicit("What is your name?", "name")}
    round_ = resume(request, needs)
    if not round_.complete:
        return ask(request, round_, needs)
    name = answer_of(round_.answers["user_name"], "name", "stranger")

    def body(ctx: TaskContext) -> None:
        ctx.sleep(0.2)
        ctx.complete({"content": text(f"Hello, {name}! (finished in a task)")})

    return create_task_result(request["id"], RUNNER.start(body))


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


def complete(id: Any, result: Json) -> Json:
    return {"jsonrpc": "2.0", "id": id, "result": dict(result, resultType="complete")}


def tasks_negotiated(request: Json) -> bool:
    caps = request["params"]["_meta"].get(META_CAPS) or {}
    return isinstance(caps.get("extensions"), dict) and TASKS_EXT in caps["extensions"]


def need_tasks() -> RpcError:
    return RpcError(
        -32021,
        f"Missing required client capability: {TASKS_EXT}",
        400,
        {"requiredCapabilities": {"extensions": {TASKS_EXT: {}}}},
    )


def call_tool(request: Json) -> Json:
    params = request["params"]
    name = params.get("name")
    args = params.get("arguments") or {}
    if name in MRTR_TOOLS:
        return MRTR_TOOLS[name](request)
    if name == "greet":
        return complete(request["id"], {"content": text(f"Hello, {args.get('name', 'World')}!")})
    if name in TASK_TOOLS or name == "test_tool_with_task":
        if not tasks_negotiated(request):
            if TASK_SUPPORT[name] == "required":
                raise need_tasks()
            return complete(request["id"], run_sync(TASK_TOOLS[name](args)))
        if name == "test_tool_with_task":
            return tool_with_task(request)
        return create_task_result(request["id"], RUNNER.start(TASK_TOOLS[name](args)))
    raise RpcError(-32602, f"Unknown tool: {name}")


def task_of(request: Json) -> Task:
    if not tasks_negotiated(request):
        raise need_tasks()
    task_id = request["params"].get("taskId")
    task = STORE.get(task_id) if isinstance(task_id, str) else None
    if task is None:
        raise RpcError(-32602, f"Unknown taskId: {task_id}")
    return task


def handle_request(request: Json) -> Json:
    method, id, params = request["method"], request["id"], request["params"]
    if method == "server/discover":
        return complete(
            id,
            {
                "supportedVersions": SUPPORTED_VERSIONS,
                "capabilities": {"tools": {}, "prompts": {}, "extensions": {TASKS_EXT: {}}},
                "serverInfo": SERVER_INFO,
                "ttlMs": 0,
                "cacheScope": "public",
            },
        )
    if method == "tools/list":
        return complete(id, {"tools": TOOLS, "ttlMs": 0, "cacheScope": "public"})
    if method == "prompts/list":
        prompts = [{"name": n, "description": "SEP-2322 fixture (asks for context)"} for n in PROMPTS]
        return complete(id, {"prompts": prompts, "ttlMs": 0, "cacheScope": "public"})
    if method == "tools/call":
        return call_tool(request)
    if method == "prompts/get":
        if params.get("name") not in PROMPTS:
            raise RpcError(-32602, f"Unknown prompt: {params.get('name')}")
        return PROMPTS[params["name"]](request)
    if method == "tasks/get":
        return complete(id, task_of(request).wire())
    if method == "tasks/update":
        RUNNER.deliver(request, task_of(request))
        return complete(id, {})
    if method == "tasks/cancel":
        task = task_of(request)
        if not task.status.is_terminal:
            RUNNER.cancel(task.id)
        return complete(id, {})
    raise RpcError(-32601, f"Method not found: {method}", 404)


def header_name(method: str, params: Json) -> Optional[str]:
    """The body field the ``Mcp-Name`` header mirrors (SEP-2243, and SEP-2663 for tasks)."""
    key = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri", "tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}.get(method)
    value = params.get(key) if key else None
    return value if isinstance(value, str) else None


def check_transport(headers: Any, request: Json) -> None:
    """The stateless lifecycle's HTTP obligations, before anything runs."""
    params = request.get("params")
    if not isinstance(params, dict):
        raise RpcError(-32602, "Invalid params: params must be an object", 400)
    meta = params.get("_meta")
    if not isinstance(meta, dict):
        meta = {}
    missing = [k for k in (META_VERSION, META_CAPS) if k not in meta]
    if missing:
        raise RpcError(-32602, f"Invalid params: missing _meta keys: {', '.join(missing)}", 400)
    version = headers.get("mcp-protocol-version")
    if version is None:
        raise RpcError(-32020, "Missing MCP-Protocol-Version header", 400)
    if version != meta[META_VERSION]:
        raise RpcError(-32020, "MCP-Protocol-Version header does not match _meta", 400)
    if version not in SUPPORTED_VERSIONS:
        raise RpcError(-32022, "Unsupported protocol version", 400, {"supported": SUPPORTED_VERSIONS, "requested": version})
    if headers.get("mcp-method") != request["method"]:
        raise RpcError(-32020, "Mcp-Method header does not match the body's method", 400)
    name = header_name(request["method"], params)
    if name is not None and headers.get("mcp-name") != name:
        raise RpcError(-32020, "Mcp-Name header does not match the body", 400)


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
        status = 400
        return JSONResponse(error_body(None, RpcError(e.code or -32600, str(e))), status_code=status)
    if kind.kind is not mrtr.Kind.REQUEST:
        return Response(status_code=202)  # notifications and stray responses: nothing to answer
    request = json.loads(body)
    request.setdefault("params", {})
    try:
        check_transport(http.headers, request)
        reply = await run_in_thread(handle_request, request)
        return JSONResponse(reply)
    except RpcError as e:
        return JSONResponse(error_body(kind.id, e), status_code=e.status)
    except mrtr.MrtrError as e:  # a round mrtr refuses: bad inputResponses, tampered or stale state, …
        return JSONResponse(error_body(kind.id, RpcError(e.code or -32602, str(e))))


async def run_in_thread(fn: Callable[[Json], Json], request: Json) -> Json:
    return await anyio.to_thread.run_sync(fn, request)


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
