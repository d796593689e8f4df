"""An MCP server on the official Python SDK (PyPI `mcp`), written the way its users write one.

Tools ask for input through the SDK's resolvers (`Annotated[T, Resolve(fn)]` returning `Elicit`,
`Sample` or `ListRoots`), which the SDK turns into `input_required` rounds on `2026-07-28` and into
server requests on the POST's stream on `2025-11-25`; the SDK refuses a request that did not declare
what a resolver asks for with -32021. The prompt and the resource build their `InputRequiredResult`
by hand, as the SDK documents for them (`2026-07-28` only), and so do `reserve` (a round with a
`requestState` and no `inputRequests`: load shedding) and `sign_in` (a URL-mode elicitation, which
the resolvers do not offer; on `2025-11-25` it is `ctx.elicit_url`, with its elicitationId).

    python peers/py_server.py PORT
"""

from __future__ import annotations

import sys
from typing import Annotated

import uvicorn
from mcp.server.mcpserver import Context, Elicit, ListRoots, MCPServer, Resolve, Sample
from mcp_types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    InputRequiredResult,
    ListRootsResult,
    SamplingMessage,
    TextContent,
)
from mcp_types.version import is_version_at_least
from pydantic import BaseModel

MRTR = "2026-07-28"
SIGN_IN = "https://example.com/sign-in"


class Units(BaseModel):
    units: str


class Dates(BaseModel):
    date: str


class Seat(BaseModel):
    seat: str


def ask_units() -> Elicit[Units]:
    return Elicit("Which units?", Units)


def ask_date(destination: str) -> Elicit[Dates]:
    return Elicit(f"When do you fly to {destination}?", Dates)


def ask_seat(date: Annotated[Dates, Resolve(ask_date)]) -> Elicit[Seat]:
    # Asked only once the date is known: a second round.
    return Elicit(f"Which seat on {date.date}?", Seat)


def ask_summary(text: str) -> Sample:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=f"Summarise: {text}"))
    return Sample([message], max_tokens=50)


def ask_roots() -> ListRoots:
    return ListRoots()


def form(key: str, message: str) -> InputRequiredResult:
    schema = {"type": "object", "properties": {key: {"type": "string"}}, "required": [key]}
    request = ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))
    return InputRequiredResult(input_requests={key: request}, request_state=f"{key}-round-1")


def answered(ctx: Context, key: str) -> str | None:
    response = (ctx.input_responses or {}).get(key)
    content = getattr(response, "content", None) or {}
    return content.get(key)


def multi_round(ctx: Context) -> bool:
    return ctx.protocol_version is not None and is_version_at_least(ctx.protocol_version, MRTR)


def server() -> MCPServer:
    app = MCPServer("py-peer")

    @app.tool()
    async def get_weather(location: str, units: Annotated[Units, Resolve(ask_units)]) -> str:
        return f"{location}: 22 degrees {units.units}"

    @app.tool()
    async def book_trip(
        destination: str, date: Annotated[Dates, Resolve(ask_date)], seat: Annotated[Seat, Resolve(ask_seat)]
    ) -> str:
        return f"{destination} on {date.date}, seat {seat.seat}"

    @app.tool()
    async def summarize(text: str, summary: Annotated[CreateMessageResult, Resolve(ask_summary)]) -> str:
        return f"summary: {getattr(summary.content, 'text', '')}"

    @app.tool()
    async def list_roots(roots: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
        return ", ".join(str(r.uri) for r in roots.roots)

    @app.tool()
    async def reserve(table: str, ctx: Context) -> str | InputRequiredResult:
        if not multi_round(ctx):
            return f"table {table} reserved"
        held = f"table {table} held"
        if ctx.request_state is None:
            # Load shedding: what this instance did so far, and no questions; any instance picks it up.
            return InputRequiredResult(request_state=held)
        if ctx.request_state != held:  # the state comes back through the client: checked
            raise ValueError("not the state of this reservation")
        return f"table {table} reserved"

    @app.tool()
    async def sign_in(ctx: Context) -> str | InputRequiredResult:
        if not multi_round(ctx):
            outcome = await ctx.elicit_url("Sign in", SIGN_IN, elicitation_id=f"sign-in-{ctx.request_id}")
            return "signed in" if outcome.action == "accept" else f"not signed in: {outcome.action}"
        answer = (ctx.input_responses or {}).get("sign_in")
        if answer is None:
            request = ElicitRequest(params=ElicitRequestURLParams(message="Sign in", url=SIGN_IN))
            return InputRequiredResult(input_requests={"sign_in": request})
        action = getattr(answer, "action", None)
        return "signed in" if action == "accept" else f"not signed in: {action}"

    @app.prompt()
    def review(pr: str, ctx: Context) -> str | InputRequiredResult:
        focus = answered(ctx, "focus")
        return form("focus", f"What should the review of {pr} focus on?") if focus is None else f"Review {pr}: {focus}"

    @app.resource("notes://{day}")
    def notes(day: str, ctx: Context) -> str | InputRequiredResult:
        topic = answered(ctx, "topic")
        return form("topic", f"Notes of {day} on which topic?") if topic is None else f"notes on {topic}"

    return app


if __name__ == "__main__":
    port = int(sys.argv[1])
    uvicorn.run(server().streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")
