"""An MCP server on FastMCP (PyPI `fastmcp` 4.x, on the official Python SDK), written the way its
users write one.

FastMCP 4 has two ways for a tool to ask, one per protocol era, and a tool that serves both picks
by `ctx` (FastMCP's `Context._is_modern_protocol`):
- `2026-07-28`: the guard pattern (SEP-2322). A tool, prompt or resource returns an
  `InputRequiredResult` to ask and reads `ctx.input_responses` / `ctx.request_state` when it runs
  again; FastMCP seals `requestState` on the wire and unseals it before the tool runs. FastMCP does
  not check capabilities for an ask: the tool refuses a request that did not declare what it asks
  for with -32021 itself (`McpError` of that code passes FastMCP's masking), as its docs say.
  `ctx.elicit` raises there ("unavailable on 2026-07-28 connections").
- `2025-11-25`: await-style `ctx.elicit(message, type)` (form mode), and the SDK's session for what
  FastMCP's Context does not wrap: sampling (`ctx.session.create_message`), roots
  (`ctx.session.send_request`: `list_roots()` cannot name the call) and URL mode
  (`ctx.session.elicit_url`), each a server request on the call's POST stream.

    python peers/fastmcp_server.py PORT
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import mcp_types as T
import uvicorn
from fastmcp import Context, FastMCP
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata

MRTR = "2026-07-28"
SIGN_IN = "https://example.com/sign-in"


@dataclass
class Units:
    units: str


@dataclass
class Dates:
    date: str


@dataclass
class Seat:
    seat: str


@dataclass
class Focus:
    focus: str


@dataclass
class Topic:
    topic: str


def modern(ctx: Context) -> bool:
    return ctx._is_modern_protocol()


def require(ctx: Context, **needed: dict) -> None:
    """-32021 unless the request declared every capability named (2026-07-28)."""
    caps = ctx.session.client_capabilities
    declared = caps.model_dump(exclude_none=True) if caps else {}
    missing = {name: value for name, value in needed.items() if name not in declared}
    if missing:
        data = T.MissingRequiredClientCapabilityErrorData(required_capabilities=T.ClientCapabilities(**missing))
        raise MCPError(T.MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability",
                       data.model_dump(by_alias=True, exclude_none=True))


def form(key: str, message: str, state: str | None = None) -> T.InputRequiredResult:
    schema = {"type": "object", "properties": {key: {"type": "string"}}, "required": [key]}
    request = T.ElicitRequest(params=T.ElicitRequestFormParams(message=message, requested_schema=schema))
    return T.InputRequiredResult(input_requests={key: request}, request_state=state)


def answer(ctx: Context, key: str) -> Any:
    return (ctx.input_responses or {}).get(key)


def answered(ctx: Context, key: str) -> str | None:
    content = getattr(answer(ctx, key), "content", None) or {}
    return content.get(key)


async def elicited(ctx: Context, message: str, kind: type) -> Any:
    outcome = await ctx.elicit(message, kind)
    if outcome.action != "accept":
        raise ValueError(f"not answered: {outcome.action}")
    return outcome.data


def server() -> FastMCP:
    app = FastMCP("fastmcp-peer")

    @app.tool
    async def get_weather(location: str, ctx: Context) -> str | T.InputRequiredResult:
        if not modern(ctx):
            units = await elicited(ctx, "Which units?", Units)
            return f"{location}: 22 degrees {units.units}"
        require(ctx, elicitation={})
        units = answered(ctx, "units")
        if units is None:
            return form("units", "Which units?", state=f"weather in {location}")
        return f"{location}: 22 degrees {units}"

    @app.tool
    async def book_trip(destination: str, ctx: Context) -> str | T.InputRequiredResult:
        if not modern(ctx):
            date = await elicited(ctx, f"When do you fly to {destination}?", Dates)
            seat = await elicited(ctx, f"Which seat on {date.date}?", Seat)
            return f"{destination} on {date.date}, seat {seat.seat}"
        require(ctx, elicitation={})
        # Each retry carries the latest round's answers only: the date rides in the state.
        date = answered(ctx, "date")
        if date is not None:
            return form("seat", f"Which seat on {date}?", state=f"date {date}")
        seat = answered(ctx, "seat")
        if seat is not None and (ctx.request_state or "").startswith("date "):
            return f"{destination} on {ctx.request_state[5:]}, seat {seat}"
        return form("date", f"When do you fly to {destination}?", state="date?")

    @app.tool
    async def summarize(text: str, ctx: Context) -> str | T.InputRequiredResult:
        message = T.SamplingMessage(role="user", content=T.TextContent(type="text", text=f"Summarise: {text}"))
        if not modern(ctx):
            sampled = await ctx.session.create_message([message], max_tokens=50, related_request_id=ctx.request_id)
            return f"summary: {getattr(sampled.content, 'text', '')}"
        require(ctx, sampling={})
        sampled = answer(ctx, "summary")
        if sampled is None:
            request = T.CreateMessageRequest(params=T.CreateMessageRequestParams(messages=[message], max_tokens=50))
            return T.InputRequiredResult(input_requests={"summary": request}, request_state="summary?")
        return f"summary: {getattr(sampled.content, 'text', '')}"

    @app.tool
    async def list_roots(ctx: Context) -> str | T.InputRequiredResult:
        if not modern(ctx):
            # FastMCP's Context has no roots helper, and the SDK's ctx.session.list_roots() takes no
            # related request: it sends roots/list on the standalone GET stream, which SEP-2260
            # forbids ("Servers MUST send server-to-client requests (such as roots/list, ...) only in
            # association with an originating client request"; mrtr: server-request-unassociated).
            # Sent on the call's stream, as create_message and elicit_url are:
            related = ServerMessageMetadata(related_request_id=ctx.request_id)
            roots = await ctx.session.send_request(T.ListRootsRequest(), T.ListRootsResult, metadata=related)
            return ", ".join(str(r.uri) for r in roots.roots)
        require(ctx, roots={})
        roots = answer(ctx, "roots")
        if roots is None:
            return T.InputRequiredResult(input_requests={"roots": T.ListRootsRequest()}, request_state="roots?")
        return ", ".join(str(r.uri) for r in roots.roots)

    @app.tool
    async def reserve(table: str, ctx: Context) -> str | T.InputRequiredResult:
        if not modern(ctx):
            return f"table {table} reserved"
        held = f"table {table} held"
        if ctx.request_state is None:
            # Load shedding: what this instance did so far, and no questions; any instance picks it up.
            return T.InputRequiredResult(request_state=held)
        if ctx.request_state != held:
            raise ValueError("not the state of this reservation")
        return f"table {table} reserved"

    @app.tool
    async def sign_in(ctx: Context) -> str | T.InputRequiredResult:
        if not modern(ctx):
            outcome = await ctx.session.elicit_url("Sign in", SIGN_IN, f"sign-in-{ctx.request_id}",
                                                   related_request_id=ctx.request_id)
            return "signed in" if outcome.action == "accept" else f"not signed in: {outcome.action}"
        require(ctx, elicitation={"url": {}})
        signed = answer(ctx, "sign_in")
        if signed is None:
            request = T.ElicitRequest(params=T.ElicitRequestURLParams(message="Sign in", url=SIGN_IN))
            return T.InputRequiredResult(input_requests={"sign_in": request})
        return "signed in" if signed.action == "accept" else f"not signed in: {signed.action}"

    @app.prompt
    async def review(pr: str, ctx: Context) -> str | T.InputRequiredResult:
        if not modern(ctx):
            focus = await elicited(ctx, f"What should the review of {pr} focus on?", Focus)
            return f"Review {pr}: {focus.focus}"
        focus = answered(ctx, "focus")
        return form("focus", f"What should the review of {pr} focus on?") if focus is None else f"Review {pr}: {focus}"

    @app.resource("notes://{day}")
    async def notes(day: str, ctx: Context) -> str | T.InputRequiredResult:
        if not modern(ctx):
            topic = await elicited(ctx, f"Notes of {day} on which topic?", Topic)
            return f"notes on {topic.topic}"
        topic = answered(ctx, "topic")
        return form("topic", f"Notes of {day} on which topic?") if topic is None else f"notes on {topic}"

    return app


if __name__ == "__main__":
    port = int(sys.argv[1])
    uvicorn.run(server().http_app(path="/mcp"), host="127.0.0.1", port=port, log_level="warning")
