"""Await-style tools without server state (``name = await ctx.elicit(...)``) over the core's replay
(``mrtr::round::replay``) and the native ``ToolRun``, which owns the round sequence and the refusal policy:
each request re-runs the tool from the top; an ask already answered returns at once, the first without an
answer suspends the tool and ``run_tool`` answers ``input_required`` (``run_tool_bytes``: the same, the
response as JSON bytes). The core decides the keys (the order of asking), the pins (a
digest of each exact question), the round cap, every JSON shape, and that a refusal at an ask ends the run
even when the tool caught it.

The suspension is a private ``BaseException`` raised at the await, so that a tool's ``except Exception`` cannot
swallow it. **Code before an ask runs again on every round** (the stack is rebuilt by replay, not kept), so it
must be free of side effects: do them after the last ask, under a replay guard (the final round runs once).

``BridgedCall`` serves the same tool to a ``2025-11-25`` client over the core's legacy bridge (``ToolBridge``):
each round's questions go on the call's event stream as server requests, the answers come back as POSTs, and
the tool is replayed from them in this instance's memory.
"""

from __future__ import annotations

import asyncio
from json import dumps, loads
from secrets import token_hex
from time import monotonic
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, Literal, Optional, Tuple, Union

from . import _mrtr
from ._enums import Rule
from ._errors import MrtrError
from ._mrtr import DEFAULT_PROTOCOL, KeyRing, ToolBridge, ToolReplay, ToolRun
from ._types import Limits, Round

#: A replay guard: records ``state_id`` atomically and returns ``True`` on its first use, ``False`` after.
Guard = Callable[[str, int], bool]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _value(data: Any) -> Any:
    """``data`` as the native module reads a JSON value: a dict or list as it is (walked, strictly), any other
    value as its JSON text (a ``str`` is a JSON string here, never JSON text)."""
    return data if data is None or isinstance(data, (dict, list)) else dumps(data)


def binding_for(
    request: Any, subject: Optional[str] = None, *, anonymous: bool = False, protocol: Optional[str] = None
) -> Dict[str, Any]:
    """The binding a sealed state of ``request`` (a dict, or its JSON text, digested as given) is bound to, for
    the principal ``subject`` or, by explicit choice, ``anonymous=True`` (exactly one): ``{"subject" |
    "anonymous", "protocol", "method", "target", "paramsDigest"}``, for ``KeyRing.seal`` and ``open``."""
    return _mrtr.binding_for(request, subject, anonymous, protocol)


class SealedRounds:
    """A server's rounds whose answers travel in sealed ``requestState``, over ``ring``: a deployment's
    settings, built once (``ttl`` default 300 s, ``protocol``, ``limits``, ``pin_answers`` default on,
    ``max_rounds`` an await-style tool may take, default 10; ``None``: the core's default, and the core reads
    them at each call); the principal and the clock come with each call. With a ``guard``, a state used
    before is ``state-replayed``."""

    def __init__(
        self,
        ring: KeyRing,
        *,
        ttl: Optional[int] = None,
        protocol: Optional[str] = None,
        limits: Optional[Limits] = None,
        pin_answers: Optional[bool] = None,
        max_rounds: Optional[int] = None,
    ) -> None:
        wire = None if limits is None else {_camel(k): v for k, v in vars(limits).items()}
        given = {"ttl": ttl, "protocol": protocol, "limits": wire, "pinAnswers": pin_answers, "maxRounds": max_rounds}
        self.ring, self.protocol = ring, str(DEFAULT_PROTOCOL if protocol is None else protocol)
        self._settings = dumps({k: v for k, v in given.items() if v is not None})

    def resume(
        self, request: Any, needs: Any, *, subject: Optional[str] = None, anonymous: bool = False, now: int,
        guard: Optional[Guard] = None,
    ) -> Round:
        """This request's answers plus the sealed earlier ones (each re-validated, pinned to its question)."""
        call = {"subject": subject, "anonymous": anonymous, "now": now}
        return Round(*self.ring.resume_round(request, needs, self._settings, call, guard).values())

    def respond(
        self, request: Any, round: Round, needs: Any, data: Any = None, *, subject: Optional[str] = None,
        anonymous: bool = False, now: int,
    ) -> Dict[str, Any]:
        """The ``input_required`` response asking what ``round`` misses, sealing its answers and ``data``."""
        wire = {_camel(k): v for k, v in vars(round).items()} if isinstance(round, Round) else round
        call = {"subject": subject, "anonymous": anonymous, "now": now}
        return self.ring.respond_round(request, wire, needs, _value(data), self._settings, call)

    def tool_replay(
        self, request: Any, *, subject: Optional[str] = None, anonymous: bool = False, now: int,
        guard: Optional[Guard] = None,
    ) -> ToolReplay:
        """The replay of an await-style tool on ``request`` (``run_tool`` drives its ``run()``)."""
        call = {"subject": subject, "anonymous": anonymous, "now": now}
        return self.ring.start_tool_replay(request, self._settings, call, guard)

    def tool_run(
        self, request: Any, *, subject: Optional[str] = None, anonymous: bool = False, now: int,
        guard: Optional[Guard] = None,
    ) -> ToolRun:
        """The run of an await-style tool on ``request``: ``tool_replay(…).run()``."""
        return self.tool_replay(request, subject=subject, anonymous=anonymous, now=now, guard=guard).run()


#: An input request (``{"method", "params"}``), as ``ctx.q`` builds it.
Question = Dict[str, Any]
#: A client's answer to a question, as it sent it (``{"action", "content"}`` for an elicitation).
Answer = Dict[str, Any]


class _Suspend(BaseException):
    """A question has no answer yet: the tool stops here (no ``Exception``: ``except Exception`` lets it by)."""


class Questions:
    """The questions a tool may ask, as the core builds them (``ask`` and ``ask_all`` take any input request)."""

    @staticmethod
    def elicit(message: str, requested_schema: Dict[str, Any]) -> Question:
        """A form elicitation asking ``message``, its answer shaped by ``requested_schema``."""
        return _mrtr.question_elicit(message, requested_schema)

    @staticmethod
    def sample(params: Dict[str, Any]) -> Question:
        """A sampling request with ``params`` as the protocol names them (``messages``, ``maxTokens``, …)."""
        return _mrtr.question_sample(params)

    @staticmethod
    def roots() -> Question:
        """A request for the client's roots."""
        return _mrtr.question_roots()


class _Elicit:
    """A form elicitation not built yet: ``Context.elicit`` asks it in one call to the core."""

    __slots__ = ("message", "schema")

    def __init__(self, message: str, schema: Dict[str, Any]) -> None:
        self.message, self.schema = message, schema

    def build(self) -> Question:
        return Questions.elicit(self.message, self.schema)


_UNSET: Any = object()


class Context:
    """A tool's view of its request: ``request``, ``round`` (rounds before this one), ``state_id`` and
    ``expiry`` of the sealed state it carried (``None`` on a first request), ``data`` (what the last round
    kept; what this one keeps if it asks), ``q`` (the question builders), and the asks."""

    q = Questions

    def __init__(
        self, run: ToolRun, request: Union[Dict[str, Any], str, bytes], protocol: Optional[str] = None
    ) -> None:
        # `request` may be the request's JSON text (run_tool_bytes): read only if the tool reads ctx.request.
        self._run, self._suspended, self._request, self._protocol = run, False, request, protocol
        self._data: Any = _UNSET
        self._state: Any = _UNSET

    @property
    def request(self) -> Dict[str, Any]:
        """The request (a dict)."""
        if isinstance(self._request, dict):
            return self._request
        request: Dict[str, Any] = loads(self._request)
        self._request = request
        return request

    @request.setter
    def request(self, request: Dict[str, Any]) -> None:
        self._request = request

    @property
    def data(self) -> Any:
        """What the last round kept (``None`` without); assign it to keep something for the next round."""
        if self._data is _UNSET:
            self._data = self._run.data()
        return self._data

    @data.setter
    def data(self, data: Any) -> None:
        self._data = data

    def _state_field(self, name: str) -> Any:
        if self._state is _UNSET:
            self._state = self._run.state() or {}
        return self._state.get(name)

    @property
    def state_id(self) -> Optional[str]:
        """The id of the sealed state the request carried (``None`` on a first request)."""
        return self._state_field("stateId")  # type: ignore[no-any-return]

    @state_id.setter
    def state_id(self, state_id: Optional[str]) -> None:
        self._state_field("stateId")
        self._state = dict(self._state, stateId=state_id)

    @property
    def expiry(self) -> Optional[int]:
        """When the sealed state the request carried expires (``None`` on a first request)."""
        return self._state_field("expiry")  # type: ignore[no-any-return]

    @expiry.setter
    def expiry(self, expiry: Optional[int]) -> None:
        self._state_field("expiry")
        self._state = dict(self._state, expiry=expiry)

    @property
    def round(self) -> int:
        """How many ``input_required`` rounds came before this request (0 on a first request)."""
        return self._run.round()

    def _answers(self, questions: List[Tuple[Union[Question, _Elicit], Optional[str]]]) -> List[Answer]:
        # The run asks nothing once the tool was stopped or refused (its asks give None): the tool stops again.
        answers = []
        for question, key in questions:
            if isinstance(question, _Elicit):
                answer = self._run.ask_elicit(question.message, question.schema, key)
            else:
                answer = self._run.ask(question, key)
            self._suspended |= answer is None
            answers += [answer] if answer is not None else []
        if self._suspended:
            self._run.stop()
            raise _Suspend
        return answers

    def allows(self, *questions: Question) -> bool:
        """Whether the request declared every client capability ``questions`` need (mode-aware:
        ``elicitation.url``, ``sampling.tools``): ask only what it allows."""
        asked = {str(i): q for i, q in enumerate(questions)}
        return _mrtr.missing_capabilities(self._request, asked, protocol=self._protocol) is None

    def require(self, *questions: Question) -> None:
        """Raises ``request-capability-missing`` (-32021, ``.data["requiredCapabilities"]`` naming them) unless
        the request declared every capability ``questions`` need: for a tool that cannot work without them."""
        asked = {str(i): q for i, q in enumerate(questions)}
        _mrtr.require_capabilities(self._request, asked, protocol=self._protocol)

    async def ask(self, question: Question, *, key: Optional[str] = None) -> Answer:
        """The answer to ``question`` (any input request), under the key of its order or ``key``."""
        return self._answers([(question, key)])[0]

    async def ask_all(self, *questions: Question) -> List[Answer]:
        """The answers to every question, in order; all those without one are asked together, in one round."""
        return self._answers([(question, None) for question in questions])

    async def elicit(self, message: str, requested_schema: Dict[str, Any]) -> Answer:
        """A form elicitation's answer (``{"action": "accept" | "decline" | "cancel", "content"}``)."""
        return self._answers([(_Elicit(message, requested_schema), None)])[0]

    async def sample(self, params: Dict[str, Any]) -> Answer:
        """A sampling request's answer (the client's ``CreateMessageResult``)."""
        return await self.ask(Questions.sample(params))

    async def roots(self) -> Answer:
        """The client's roots (``{"roots": […]}``)."""
        return await self.ask(Questions.roots())


#: An await-style tool: ``async def tool(args, ctx) -> result``, the ``CallToolResult`` as a dict.
Tool = Callable[[Dict[str, Any], Context], Awaitable[Dict[str, Any]]]


async def run_tool(
    tool: Tool,
    request: Union[Dict[str, Any], str, bytes],
    rounds: SealedRounds,
    *,
    subject: Optional[str] = None,
    anonymous: bool = False,
    now: int,
    guard: Optional[Callable[[str, int], bool]] = None,
) -> Dict[str, Any]:
    """Runs ``tool`` on ``request`` (a dict, or its JSON text) under the deployment's ``rounds`` for the
    principal ``subject`` (or ``anonymous=True``) at ``now``: the JSON-RPC response, ``input_required`` asking
    what the tool still misses, or its result completed. With a ``guard``, a state used before is
    ``state-replayed``. Refusals raise their ``MrtrError`` (``error_response`` makes the response to send), even
    when the tool caught them at an ask; the tool's own exceptions propagate."""
    run = rounds.tool_run(request, subject=subject, anonymous=anonymous, now=now, guard=guard)
    result, stopped = await _play(tool, run, request, rounds.protocol)
    # A tool that returned None returned JSON's null: no result, refused as such.
    return run.respond(rounds.ring, None if stopped else "null" if result is None else result)


async def run_tool_bytes(
    tool: Tool,
    request: Union[Dict[str, Any], str, bytes],
    rounds: SealedRounds,
    *,
    subject: Optional[str] = None,
    anonymous: bool = False,
    now: int,
    guard: Optional[Callable[[str, int], bool]] = None,
) -> bytes:
    """``run_tool`` with the response as the UTF-8 bytes of its JSON text: the body to send. Pass the request
    as the body's bytes (or ``str``): it is read once, by the core (``ctx.request`` parses it only if the tool
    reads it). Same refusals, same exceptions."""
    response = await run_tool(tool, request, rounds, subject=subject, anonymous=anonymous, now=now, guard=guard)
    return dumps(response, ensure_ascii=False, separators=(",", ":")).encode()


async def _play(
    tool: Tool, run: ToolRun, message: Union[Dict[str, Any], str, bytes], protocol: str
) -> Tuple[Any, bool]:
    """Plays ``tool`` once over ``run``: its result, and whether it stopped at an ask without an answer (the
    data it set handed to the run). The run's refusal policy decides the rest: a refusal recorded at an ask
    is raised in place of the tool's own exception, and ``respond`` raises it in place of the result."""
    arguments: Optional[Dict[str, Any]]
    if isinstance(message, dict):
        arguments = (message.get("params") or {}).get("arguments")
    else:
        arguments = run.arguments()  # the request as the core read it: no second parse here
    ctx = Context(run, message, protocol)
    result: Any = None
    stopped = False
    try:
        result = await tool(arguments if isinstance(arguments, dict) else {}, ctx)
    except _Suspend:
        stopped = True
    except Exception:
        run.refused()
        raise
    if ctx._data is not _UNSET:
        run.set_data(_value(ctx._data))
    return result, stopped


class BridgedCall:
    """The legacy bridge: one ``2025-11-25`` call of the same await-style ``tool``, whose questions reach the
    client as server requests on the call's event stream (each associated with the call, SEP-2260), over the
    core's ``ToolBridge``. Iterate ``stream()`` and write each text to the call's ``text/event-stream``
    response; route every JSON-RPC response the client POSTs to one of ``pending`` to ``deliver``. Each round
    re-runs the tool from the answers collected so far, as ``run_tool`` does; a round unanswered after
    ``round_timeout_ms`` (or a tool still asking after ``max_rounds``) ends the call with its error.

    The call lives in this instance's memory, on the open stream: the design the multi-round texts replace,
    here so that one handler serves both generations of clients."""

    def __init__(
        self,
        tool: Tool,
        request: Union[Dict[str, Any], str, bytes],
        *,
        key: Optional[str] = None,
        max_rounds: Optional[int] = None,
        round_timeout_ms: Optional[int] = None,
        clock: Callable[[], int] = lambda: int(monotonic() * 1000),
    ) -> None:
        self._tool, self._clock = tool, clock
        self._message: Dict[str, Any] = request if isinstance(request, dict) else loads(request)
        key = key if key is not None else token_hex(8)
        self._bridge = ToolBridge(self._message, key, max_rounds=max_rounds, round_timeout_ms=round_timeout_ms)
        self._answered = asyncio.Event()

    @property
    def pending(self) -> List[str]:
        """The ids (as text) of the server requests waiting for the client's answers."""
        return list(self._bridge.pending())

    @property
    def done(self) -> bool:
        """Whether the call's final response (or error) was written."""
        return bool(self._bridge.done)

    def deliver(self, response: Dict[str, Any]) -> None:
        """A JSON-RPC response the client POSTed to one of ``pending``. An answer that does not fit its
        question raises ``retry-input-response-invalid`` (answer that POST with its error; the round still
        waits); a response to no pending request ``usage-out-of-turn``."""
        if self._bridge.handle_answer(response, self._clock()):
            self._answered.set()

    async def stream(self) -> AsyncIterator[str]:
        """The event-stream text of the call, in order, until its final response."""
        while not self._bridge.done:
            if self._bridge.pending():
                await self._wait()
            else:
                await self._round()
            while (text := self._bridge.poll_write()) is not None:
                yield text

    async def _round(self) -> None:
        run = self._bridge.replay().run()
        try:
            result, stopped = await _play(self._tool, run, self._message, "2025-11-25")
        except MrtrError as e:
            return self._bridge.refuse(e.rule.value, e.message, e.data)
        self._bridge.finish(run, None if stopped else result, self._clock())

    async def _wait(self) -> None:
        deadline = self._bridge.poll_timeout()
        if deadline is None:
            return
        try:
            await asyncio.wait_for(self._answered.wait(), max(0, deadline - self._clock()) / 1000)
            self._answered.clear()
        except asyncio.TimeoutError:
            self._bridge.handle_timeout(self._clock())


def error_response(
    id: Union[int, str, None],
    error: Union[MrtrError, Rule, str],
    message: Optional[str] = None,
    *,
    error_codes: Optional[Literal["released", "draft"]] = None,
) -> Tuple[Dict[str, Any], int]:
    """The JSON-RPC error response to the request ``id`` for ``error`` (an ``MrtrError``, or a rule and a
    ``message``), and the HTTP status to send it with, as the core builds them. ``error_codes``:
    ``"released"`` (default) or ``"draft"``, the next revision's draft registry (a refused state is -32026
    ``StaleState``)."""
    rule = error.rule if isinstance(error, MrtrError) else Rule(error)
    text = error.message if isinstance(error, MrtrError) and message is None else message or ""
    data = error.data if isinstance(error, MrtrError) else None
    built = _mrtr._error_response(id, rule.value, text, data, error_codes)
    return built["response"], built["status"]


__all__ = [
    "Answer",
    "BridgedCall",
    "Context",
    "Question",
    "Questions",
    "SealedRounds",
    "binding_for",
    "Tool",
    "error_response",
    "run_tool",
    "run_tool_bytes",
]
