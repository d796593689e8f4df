"""A client of an MRTR tool server: one ``mrtr.Operation`` carries the call over HTTP.

``mrtr.call`` sends the request, answers each question the server asks through
``on_input`` (here a canned answer; a real host asks its user), and sends every
retry (a new id, the answers, the exact ``requestState``) with the MCP header
fields that mirror its body, until the final response.

    python examples/weather_client.py http://127.0.0.1:8000/mcp Paris
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Callable, Dict

import mrtr

Answerer = Callable[[str, Dict[str, Any]], Dict[str, Any]]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}


def pick_celsius(key: str, question: Dict[str, Any]) -> Dict[str, Any]:
    """Answers every form elicitation with celsius (a real host would ask its user)."""
    if question.get("method") == "elicitation/create":
        return {"action": "accept", "content": {"units": "celsius"}}
    return {"action": "decline"}


async def call_tool_async(url: str, name: str, arguments: Dict[str, Any], answer: Answerer = pick_celsius) -> Dict[str, Any]:
    """Calls tool ``name`` at ``url``; its final response."""
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments, "_meta": META}}
    return await mrtr.call(url, request, on_input=lambda question, key: answer(key, question))


def call_tool(url: str, name: str, arguments: Dict[str, Any], answer: Answerer = pick_celsius) -> Dict[str, Any]:
    """``call_tool_async`` from synchronous code."""
    return asyncio.run(call_tool_async(url, name, arguments, answer))


def main() -> None:
    url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/mcp"
    location = sys.argv[2] if len(sys.argv) > 2 else "Paris"
    response = call_tool(url, "get_weather", {"location": location})
    print(json.dumps(response, indent=2))


if __name__ == "__main__":
    main()
