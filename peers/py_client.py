"""An MCP client on the official Python SDK (PyPI `mcp`): runs every scenario against a server.

    python peers/py_client.py URL PROTOCOL            # 2026-07-28 or 2025-11-25
    python peers/py_client.py URL 2026-07-28 --break request-state

It declares elicitation (the SDK declares form and url), sampling and roots, answers every ask
(a URL-mode elicitation with an accept), and checks each result; on 2026-07-28 a second client that
declares nothing calls get_weather and must be refused with -32021. The scenarios after the first
ones run as peers/run lists them in PEER_SCENARIOS (all by default). With
`--break request-state` it retries a call with a requestState other than the one it was given,
by hand (the SDK has no hook to break its own retry): the one fault mrtr must then report.
Exit status 0 when every scenario got its expected answer.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import json
import urllib.error
import urllib.request
import mcp
import mcp.types as T

MRTR = "2026-07-28"
ANSWERS = {"units": "celsius", "date": "2026-12-01", "seat": "12A", "focus": "tests", "topic": "mrtr"}
SIGN_IN = "https://example.com/sign-in"
EXTRA = ["reserve", "sign_in", "no_capability", "form_only"]
SCENARIOS = set(os.environ["PEER_SCENARIOS"].split(",") if "PEER_SCENARIOS" in os.environ else EXTRA)


async def elicit(context: Any, params: Any) -> T.ElicitResult:
    if isinstance(params, T.ElicitRequestURLParams):
        assert (params.message, params.url) == ("Sign in", SIGN_IN), params
        return T.ElicitResult(action="accept")
    keys = params.requested_schema.get("properties", {})
    return T.ElicitResult(action="accept", content={k: ANSWERS[k] for k in keys})


async def sample(context: Any, params: Any) -> T.CreateMessageResult:
    return T.CreateMessageResult(role="assistant", content=T.TextContent(type="text", text="short"), model="m-1")


async def roots(context: Any) -> T.ListRootsResult:
    return T.ListRootsResult(roots=[T.Root(uri="file:///work", name="work")])


def text(result: Any) -> str:
    return result.content[0].text


async def scenarios(url: str, protocol: str) -> None:
    mode = protocol if protocol == MRTR else "legacy"
    async with mcp.Client(
        url, mode=mode, elicitation_callback=elicit, sampling_callback=sample, list_roots_callback=roots
    ) as client:
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
            assert "tests" in prompt.messages[0].content.text
            notes = await client.read_resource("notes://today")
            assert notes.contents[0].text == "notes on mrtr"
        if "reserve" in SCENARIOS:  # 2026-07-28: a round with a requestState only, retried at once
            reserved = await client.call_tool("reserve", {"table": "7"})
            assert text(reserved) == "table 7 reserved", reserved
        if "sign_in" in SCENARIOS:
            signed = await client.call_tool("sign_in", {})
            assert text(signed) == "signed in", signed
    if "no_capability" in SCENARIOS:
        # Declares nothing (no callbacks): the server must refuse what it cannot serve without elicitation.
        async with mcp.Client(url, mode=mode) as bare:
            try:
                got: Any = await bare.call_tool("get_weather", {"location": "Paris"})
            except mcp.MCPError as e:
                got = e
            assert isinstance(got, mcp.MCPError) and got.code == -32021, got
            assert "elicitation" in (got.data or {}).get("requiredCapabilities", {}), got.data


def post(url: str, message: dict) -> dict:
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MRTR,
        "mcp-method": message["method"],
        "mcp-name": message["params"]["name"],
    }
    request = urllib.request.Request(url, json.dumps(message).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            kind, body = response.headers.get("content-type", ""), response.read().decode()
    except urllib.error.HTTPError as refused:  # the server refuses the broken retry
        kind, body = refused.headers.get("content-type", ""), refused.read().decode()
    if kind.startswith("text/event-stream"):
        body = next(line[5:] for line in body.splitlines() if line.startswith("data:") and line[5:].strip())
    return json.loads(body)


def broken_retry(url: str) -> None:
    meta = {
        "io.modelcontextprotocol/protocolVersion": MRTR,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "broken-client", "version": "1.0.0"},
    }
    call = {"name": "get_weather", "arguments": {"location": "Paris"}, "_meta": meta}
    first = post(url, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call})
    assert first["result"]["resultType"] == "input_required", first
    responses = {key: {"action": "accept", "content": {"units": "celsius"}} for key in first["result"]["inputRequests"]}
    retry = dict(call, inputResponses=responses, requestState="not-the-state-it-was-given")
    post(url, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": retry})


def main() -> None:
    url, protocol = sys.argv[1], sys.argv[2]
    if sys.argv[3:] == ["--break", "request-state"]:
        broken_retry(url)
    else:
        asyncio.run(asyncio.wait_for(scenarios(url, protocol), timeout=60))


if __name__ == "__main__":
    main()
