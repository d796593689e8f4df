"""Shared messages for the tests."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "sampling": {}, "roots": {}},
}


def call(id: Any = 1, **arguments: Any) -> Dict[str, Any]:
    """A 2026-07-28 tools/call request."""
    return {
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": "get_weather", "arguments": arguments or {"location": "NYC"}, "_meta": META},
    }


ASK = {
    "login": {
        "method": "elicitation/create",
        "params": {
            "message": "GitHub user?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
        },
    }
}
ANSWER = {"login": {"action": "accept", "content": {"name": "octocat"}}}


@pytest.fixture
def request_() -> Dict[str, Any]:
    return call()
