"""A client of an MRTR tool server: ``McpClient.call_tool`` is the whole call.

The client declares its capabilities once; its session writes each request (a
fresh id, the ``_meta`` a ``2026-07-28`` server reads), and one ``mrtr.Operation``
carries it over HTTP: it answers each question the server asks through
``on_input`` (here a canned answer; a real host asks its user), and sends every
retry (a new id, the answers, the exact ``requestState``) with the MCP header
fields that mirror its body, until the final result.

    python examples/weather_client.py http://127.0.0.1:8000/mcp Paris
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Callable, Dict

import mrtr

Answerer = Callable[[str, Dict[str, Any]], Dict[str, Any]]
CAPABILITIES: Dict[str, Any] = {"elicitation": {"form": {}}}
CLIENT_INFO: Dict[str, Any] = {"name": "weather-example", "version": "1.0.0"}


def pick_celsius(key: str, question: Dict[str, Any]) -> Dict[str, Any]:
    """Answers every form elicitation with celsius (a real host would ask its user)."""
    if question.get("method") == "elicitation/create":
        return {"action": "accept", "content": {"units": "celsius"}}
    return {"action": "decline"}


async def call_tool_async(url: str, name: str, arguments: Dict[str, Any], answer: Answerer = pick_celsius) -> Dict[str, Any]:
    """Calls tool ``name`` at ``url``; its result (``mrtr.ResponseError`` if the server answers an error)."""
    client = mrtr.McpClient(url, capabilities=CAPABILITIES, client_info=CLIENT_INFO)
    return await client.call_tool(name, arguments, on_input=lambda question, key: answer(key, question))


def call_tool(url: str, name: str, arguments: Dict[str, Any], answer: Answerer = pick_celsius) -> Dict[str, Any]:
    """``call_tool_async`` from synchronous code."""
    return asyncio.run(call_tool_async(url, name, arguments, answer))


def main() -> None:
    url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/mcp"
    location = sys.argv[2] if len(sys.argv) > 2 else "Paris"
    result = call_tool(url, "get_weather", {"location": location})
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
