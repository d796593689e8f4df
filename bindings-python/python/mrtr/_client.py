"""The client driver: one ``Operation`` carried over HTTP with an asyncio HTTP client.

``run_operation`` is the host's loop of the core's ``Operation``, in the order the core documents: send
every request it asks for, feed back each response as it arrives (head, body chunks, end; a cut connection
is an end too), hand every question to ``on_input`` and its answer back, wake it when ``poll_timeout`` says,
until the final response and the last exchange. ``McpClient`` is what a user writes against:
``result = await client.call_tool("weather", {"city": "Paris"}, on_input=ask_user)``, each request written
by the client's ``Session`` (a fresh id, the ``_meta`` of what the client declares once); ``call`` carries
one request the host wrote itself. The protocol decisions are the core's; this module only moves bytes and
awaits.

The HTTP client is ``httpx2`` (what the official ``mcp`` package uses) or ``httpx``, whichever is
installed (``pip install mrtr[client]``), or any object with their ``AsyncClient.stream`` method.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any, Awaitable, Callable, Dict, Optional, Set, Union

from ._enums import Rule
from ._errors import MrtrError, error_class
from ._mrtr import Operation, Session

Json = Dict[str, Any]
Answer = Union[Json, Awaitable[Json]]
#: Answers one question (``{"method", "params"}``) asked under ``key``; sync or async.
OnInput = Callable[[Json, str], Answer]


def _http_module() -> Any:
    try:
        import httpx2 as http  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        try:
            import httpx as http  # type: ignore[import-not-found, no-redef, unused-ignore]
        except ImportError as e:
            raise ImportError("mrtr's client driver needs httpx2 or httpx: pip install 'mrtr[client]'") from e
    return http


def _now() -> int:
    return int(asyncio.get_running_loop().time() * 1000)


async def run_operation(
    operation: Operation,
    *,
    on_input: OnInput,
    on_event: Optional[Callable[[Json], None]] = None,
    client: Any = None,
) -> Json:
    """Drives ``operation`` to its final JSON-RPC response (a result, or an error the server answered).

    ``on_input(question, key)`` answers each question; ``on_event(event)`` hears every event but the last
    (``inputRequired`` before its questions are asked, violations, messages); ``client`` is an
    ``AsyncClient`` (one is made and closed here when ``None``). Raises the failure's ``MrtrError`` (the
    class of its rule's area), or what ``on_input`` raised; the operation's exchanges are closed first.
    """
    own = client is None
    if own:
        client = _http_module().AsyncClient(timeout=None)
    wake = asyncio.Event()
    tasks: Set["asyncio.Task[None]"] = set()
    running: Dict[int, "asyncio.Task[None]"] = {}  # each open exchange's task, to cut it once abandoned
    errors: list[BaseException] = []
    outcome: Optional[Json] = None

    def spawn(work: Awaitable[None]) -> "asyncio.Task[None]":
        task = asyncio.ensure_future(work)
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        return task

    def cut_abandoned() -> None:
        # A hedged round's losing copies (or an earlier round's exchanges): their answer no longer matters.
        for number in operation.abandoned():
            task = running.pop(number, None)
            if task is not None and not task.done():
                task.cancel()
                operation.handle_end(number, _now())

    async def exchange(request: Json) -> None:
        number = request["exchange"]
        body = None if "body" not in request else json.dumps(request["body"]).encode()
        try:
            async with client.stream(request["method"], request["url"], headers=request["headers"], content=body) as r:
                operation.handle_head(number, r.status_code, dict(r.headers), _now())
                wake.set()
                async for chunk in r.aiter_raw():
                    operation.handle_body(number, chunk, _now())
                    wake.set()
        except MrtrError as e:  # the operation refused an input: a bug here or in mrtr
            errors.append(e)
            wake.set()
            return
        except Exception:  # noqa: BLE001 - the connection failed or was cut: the response ended
            pass
        running.pop(number, None)
        try:
            operation.handle_end(number, _now())
        except MrtrError as e:
            errors.append(e)
        wake.set()

    async def ask(question: Json, key: str) -> None:
        try:
            answer = on_input(question, key)
            if inspect.isawaitable(answer):
                answer = await answer
            operation.answer(key, answer, _now())
        except BaseException as e:  # noqa: BLE001 - handed to the caller as it was raised
            errors.append(e)
        wake.set()

    try:
        while True:
            while (request := operation.poll_transmit()) is not None:
                running[request["exchange"]] = spawn(exchange(request))
            while (event := operation.poll_event()) is not None:
                if event["type"] in ("done", "failed"):
                    outcome = event
                    continue
                if on_event is not None:
                    on_event(event)
                if event["type"] == "inputRequired":
                    for key, question in event["requests"].items():
                        spawn(ask(question, key))
            if errors:
                raise errors[0]
            cut_abandoned()
            if outcome is not None and operation.drained:
                break
            # Only the tasks above give the operation new input, and they run only while this waits.
            due = operation.poll_timeout()
            wake.clear()
            try:
                timeout = None if due is None else max(0, due - _now()) / 1000
                await asyncio.wait_for(wake.wait(), timeout)
            except asyncio.TimeoutError:
                operation.handle_timeout(_now())
    finally:
        for task in tasks:
            task.cancel()
        if own:
            await client.aclose()
    if outcome["type"] == "failed":
        rule = Rule(outcome["rule"])
        raise error_class(rule)(rule, rule.code, outcome["message"])
    response: Json = outcome["response"]
    return response


async def call(
    url: str,
    request: Json,
    *,
    on_input: OnInput,
    mode: str = "2026-07-28",
    client: Any = None,
    **config: Any,
) -> Json:
    """Carries ``request`` (a JSON-RPC request with an id) to ``url`` in transport ``mode`` and returns its
    final response: ``result = await mrtr.call(url, request, on_input=ask_user)``. ``config``: the
    ``Operation``'s other keywords (``headers``, ``max_rounds``, ``max_resends``, …)."""
    operation = Operation(request, _now(), mode=mode, url=url, **config)
    return await run_operation(operation, on_input=on_input, client=client)


class ResponseError(Exception):
    """A JSON-RPC error the server answered a request with: ``code``, ``message``, ``data`` and the whole
    ``response``. (An ``MrtrError`` is a rule broken; this is the server's own answer.)"""

    def __init__(self, response: Json) -> None:
        error = response.get("error") or {}
        super().__init__(error.get("message", "the server answered with an error"))
        self.code: Optional[int] = error.get("code")
        self.message: str = error.get("message", "")
        self.data: Any = error.get("data")
        self.response = response


def _refuse_input(question: Json, key: str) -> Json:
    rule = Rule.USAGE_INVALID_ARGUMENT
    raise error_class(rule)(rule, rule.code, f"the server asked {question.get('method')}, and the call has no on_input")


class McpClient:
    """An MCP client over HTTP: ``await client.call_tool(name, arguments, on_input=…)``.

    ``capabilities``, ``client_info`` and ``protocol`` are declared once, for the client's ``Session`` to write
    on every request; ``mode`` (default ``2026-07-28``) and the other keywords (``headers``, ``max_rounds``,
    ``max_resends``, ``versions``, …) configure each ``Operation``; ``client`` is an ``AsyncClient`` to reuse
    (one per call is made and closed when ``None``).
    """

    def __init__(
        self,
        url: str,
        *,
        capabilities: Optional[Json] = None,
        client_info: Optional[Json] = None,
        protocol: Optional[str] = None,
        first_id: int = 1,
        mode: str = "2026-07-28",
        client: Any = None,
        **config: Any,
    ) -> None:
        if protocol is None and mode != "2026-07-28":
            protocol = "2025-11-25"
        self.session = Session(protocol=protocol, capabilities=capabilities, client_info=client_info, first_id=first_id)
        self._url, self._mode, self._client = url, mode, client
        self._config = dict(config)
        self._config["headers"] = dict(config.get("headers") or {})
        self._ready = False

    async def request(
        self,
        method: str,
        params: Optional[Json] = None,
        *,
        on_input: Optional[OnInput] = None,
        on_event: Optional[Callable[[Json], None]] = None,
    ) -> Json:
        """The final JSON-RPC response to ``method`` with ``params`` (a result, or an error the server answered)."""
        return await self._send(lambda session: session.request(method, params), on_input, on_event)

    async def _send(
        self, build: Callable[[Session], Json], on_input: Optional[OnInput], on_event: Optional[Callable[[Json], None]] = None
    ) -> Json:
        """The final response to the request ``build(session)`` writes, once the handshake (if any) is done."""
        if not self._ready:
            await self._handshake()
            self._ready = True
        return await self._carry(build(self.session), on_input, on_event, self._client)

    async def _carry(self, request: Json, on_input: Optional[OnInput], on_event: Optional[Callable[[Json], None]], client: Any) -> Json:
        config = self._config
        if "idempotent" not in config and self.session.is_idempotent(request):
            # The server's tools/list called this tool read-only or idempotent: its first request may be
            # hedged, or sent again once a server may have taken it.
            config = {**config, "idempotent": True}
        operation = Operation(request, _now(), mode=self._mode, url=self._url, **config)
        return await run_operation(operation, on_input=on_input or _refuse_input, on_event=on_event, client=client)

    async def _handshake(self) -> None:
        """Where the protocol settles the client at the start (``2025-11-25``): ``initialize``, then
        ``notifications/initialized``; every later request carries the version agreed and the server's
        ``Mcp-Session-Id``, if it gave one."""
        init = self.session.initialize()
        if init is None:
            return
        seen: Dict[str, str] = {}

        async def watch(response: Any) -> None:
            seen.setdefault("id", response.headers.get("mcp-session-id"))

        async with _http_module().AsyncClient(timeout=None, event_hooks={"response": [watch]}) as client:
            response = await self._carry(init, None, None, client)
            if "error" in response:
                raise ResponseError(response)
            headers = self._config["headers"]
            headers["mcp-protocol-version"] = response["result"].get("protocolVersion", init["params"]["protocolVersion"])
            if seen.get("id"):
                headers["mcp-session-id"] = seen["id"]
            notify = {**headers, "content-type": "application/json", "accept": "application/json, text/event-stream"}
            await client.post(self._url, headers=notify, content=json.dumps(self.session.initialized()).encode())

    async def _result(self, build: Callable[[Session], Json], on_input: Optional[OnInput]) -> Json:
        response = await self._send(build, on_input)
        if "error" in response:
            raise ResponseError(response)
        result: Json = response["result"]
        return result

    async def call_tool(self, name: str, arguments: Optional[Json] = None, *, on_input: Optional[OnInput] = None) -> Json:
        """The result of the tool ``name`` on ``arguments``; raises ``ResponseError`` on an error response."""
        return await self._result(lambda session: session.call_tool(name, arguments), on_input)

    async def get_prompt(self, name: str, arguments: Optional[Json] = None, *, on_input: Optional[OnInput] = None) -> Json:
        """The prompt ``name`` with ``arguments``."""
        return await self._result(lambda session: session.get_prompt(name, arguments), on_input)

    async def read_resource(self, uri: str, *, on_input: Optional[OnInput] = None) -> Json:
        """The contents of the resource ``uri``."""
        return await self._result(lambda session: session.read_resource(uri), on_input)

    async def list_tools(self) -> list[Json]:
        """Every tool the server lists, following ``nextCursor`` page by page. The session remembers which
        the server annotates ``readOnlyHint`` or ``idempotentHint``: a later ``call_tool`` of one may be hedged
        (``hedge_after_ms``) or sent again once a server may have taken it; any other tool's call is not,
        unless ``idempotent=True`` was given."""
        return await self._list("tools/list", "tools")

    async def list_prompts(self) -> list[Json]:
        """Every prompt the server lists."""
        return await self._list("prompts/list", "prompts")

    async def list_resources(self) -> list[Json]:
        """Every resource the server lists."""
        return await self._list("resources/list", "resources")

    async def _list(self, method: str, field: str) -> list[Json]:
        found: list[Json] = []
        cursor: Optional[str] = None
        while True:
            params = None if cursor is None else {"cursor": cursor}
            page = await self._result(lambda session: session.request(method, params), None)
            if method == "tools/list":
                self.session.handle_tools_list(page)
            found.extend(page.get(field) or [])
            cursor = page.get("nextCursor") if isinstance(page.get("nextCursor"), str) else None
            if cursor is None:
                return found


__all__ = ["McpClient", "OnInput", "ResponseError", "call", "run_operation"]
