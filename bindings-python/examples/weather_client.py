"""A client loop on ``mrtr.Client`` driving an MRTR tool server over HTTP.

The machine is sans-IO: this loop POSTs what ``drain_transmits`` gives, feeds
each answer to ``handle_response``, and reacts to the events: ``InputRequired``
(ask the user, then ``answer``), ``RetryNow`` (retry at once), ``Done``.

    python examples/weather_client.py http://127.0.0.1:8000/mcp Paris
"""

from __future__ import annotations

import itertools
import json
import sys
import urllib.request
from typing import Any, Callable, Dict

import mrtr

Answerer = Callable[[str, Dict[str, Any]], Dict[str, Any]]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}


def headers_for(message: Dict[str, Any]) -> Dict[str, str]:
    """Streamable HTTP headers for a 2026-07-28 message: version, method, name (the transport's job, not mrtr's)."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    params = message.get("params") or {}
    version = (params.get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
    if isinstance(version, str):
        headers["MCP-Protocol-Version"] = version
    if isinstance(message.get("method"), str):
        headers["Mcp-Method"] = message["method"]
    name = params.get("name", params.get("uri"))
    if isinstance(name, str) and name.isascii():
        headers["Mcp-Name"] = name
    return headers


def post(url: str, message: Dict[str, Any], timeout: float = 10.0) -> bytes:
    request = urllib.request.Request(url, data=json.dumps(message).encode(), headers=headers_for(message))
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body: bytes = response.read()
        return body


def pick_celsius(key: str, input_request: Dict[str, Any]) -> Dict[str, Any]:
    """Answers every form elicitation with celsius (a real host would ask its user)."""
    if input_request.get("method") == "elicitation/create":
        return {"action": "accept", "content": {"units": "celsius"}}
    return {"action": "decline"}


def call_tool(
    url: str, name: str, arguments: Dict[str, Any], answer: Answerer = pick_celsius, max_messages: int = 50
) -> Dict[str, Any]:
    """Calls tool ``name`` and drives its rounds to the final response message."""
    client = mrtr.Client(protocol=mrtr.Protocol.V2026_07_28)
    ids = itertools.count(1)
    client.send(
        {
            "jsonrpc": "2.0",
            "id": next(ids),
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": META},
        }
    )
    for _ in range(max_messages):
        for message in client.drain_transmits():
            client.handle_response(post(url, message))
        for event in client.drain_events():
            if isinstance(event, mrtr.InputRequired):
                responses = {key: answer(key, req) for key, req in event.input_requests.items()}
                client.answer(event.handle, responses, next(ids))
            elif isinstance(event, mrtr.RetryNow):
                client.answer(event.handle, {}, next(ids))
            elif isinstance(event, mrtr.Done):
                return event.response
    raise RuntimeError(f"no final response after {max_messages} messages")


def main() -> None:
    url = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/mcp"
    location = sys.argv[2] if len(sys.argv) > 2 else "Paris"
    response = call_tool(url, "get_weather", {"location": location})
    print(json.dumps(response, indent=2))


if __name__ == "__main__":
    main()
