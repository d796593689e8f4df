"""An MCP client on FastMCP (PyPI `fastmcp` 4.x): runs every scenario against a server.

    python peers/fastmcp_client.py URL PROTOCOL            # 2026-07-28 or 2025-11-25

FastMCP's `Client(url, mode=...)` with its own handlers: `elicitation_handler` (returns the form's
data, or an `ElicitResult` for a URL-mode ask), `sampling_handler` (returns the text), `roots` (a
list). On `2026-07-28` (`mode="2026-07-28"`) FastMCP drives each `input_required` round through the
SDK's driver with those handlers and retries; on `2025-11-25` (`mode="legacy"`) they answer the
server requests. FastMCP declares elicitation as the SDK does, always `{form, url}`, so it runs no
form-only scenario. On 2026-07-28 a second client that declares nothing calls get_weather and must
be refused with -32021. The scenarios after the first ones run as peers/run lists them in
PEER_SCENARIOS (all by default). Exit status 0 when every scenario got its expected answer.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import mcp_types as T
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult

MRTR = "2026-07-28"
ANSWERS = {"units": "celsius", "date": "2026-12-01", "seat": "12A", "focus": "tests", "topic": "mrtr"}
SIGN_IN = "https://example.com/sign-in"
EXTRA = ["reserve", "sign_in", "no_capability", "form_only"]
SCENARIOS = set(os.environ["PEER_SCENARIOS"].split(",") if "PEER_SCENARIOS" in os.environ else EXTRA)


async def elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
    if isinstance(params, T.ElicitRequestURLParams):
        assert (params.message, params.url) == ("Sign in", SIGN_IN), params
        return ElicitResult(action="accept")
    return {k: ANSWERS[k] for k in params.requested_schema.get("properties", {})}


async def sample(messages: Any, params: Any, context: Any) -> str:
    return "short"


def text(result: Any) -> str:
    return result.content[0].text


async def scenarios(url: str, protocol: str) -> None:
    mode = protocol if protocol == MRTR else "legacy"
    async with Client(url, mode=mode, elicitation_handler=elicit, sampling_handler=sample,
                      roots=["file:///work"]) as client:
        assert text(await client.call_tool("get_weather", {"location": "Paris"})) == "Paris: 22 degrees celsius"
        trip = await client.call_tool("book_trip", {"destination": "Rome"})
        assert text(trip) == "Rome on 2026-12-01, seat 12A", text(trip)
        assert text(await client.call_tool("summarize", {"text": "a long text"})) == "summary: short"
        assert text(await client.call_tool("list_roots", {})) == "file:///work"
        # Two calls to one tool in flight at once, each retried with its own state.
        oslo, lima = await asyncio.gather(
            client.call_tool("get_weather", {"location": "Oslo"}), client.call_tool("get_weather", {"location": "Lima"})
        )
        assert (text(oslo), text(lima)) == ("Oslo: 22 degrees celsius", "Lima: 22 degrees celsius")
        if protocol == MRTR:
            prompt = await client.get_prompt("review", {"pr": "12"})
            assert "tests" in prompt.messages[0].content.text, prompt
            notes = await client.read_resource("notes://today")
            assert notes[0].text == "notes on mrtr", notes
        if "reserve" in SCENARIOS:  # 2026-07-28: a round with a requestState only, retried at once
            reserved = await client.call_tool("reserve", {"table": "7"})
            assert text(reserved) == "table 7 reserved", reserved
        if "sign_in" in SCENARIOS:
            signed = await client.call_tool("sign_in", {})
            assert text(signed) == "signed in", signed
    if "no_capability" in SCENARIOS:
        # Declares nothing (no handlers): the server must refuse what it cannot serve without elicitation.
        async with Client(url, mode=mode) as bare:
            try:
                got: Any = await bare.call_tool("get_weather", {"location": "Paris"})
            except Exception as e:  # noqa: BLE001 - whatever FastMCP raises must carry the code
                got = e
            error = getattr(got, "error", None)
            assert getattr(error, "code", None) == -32021, repr(got)
            assert "elicitation" in (error.data or {}).get("requiredCapabilities", {}), error.data


def main() -> None:
    url, protocol = sys.argv[1], sys.argv[2]
    asyncio.run(asyncio.wait_for(scenarios(url, protocol), timeout=60))


if __name__ == "__main__":
    main()
