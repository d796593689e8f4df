"""Shared messages for the tests."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "sampling": {}, "roots": {}},
}


def in_threads(work: Callable[[int], None], n: int = 8, timeout: float = 120) -> None:
    """Runs ``work(i)`` for each ``i`` below ``n`` on threads of its own, started together; fails when one
    hangs, and raises the first failure of any."""
    barrier = threading.Barrier(n)
    failed: List[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait()
            work(i)
        except BaseException as e:  # noqa: BLE001 - raised below, on the test's thread
            failed.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if failed:
        raise failed[0]


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
