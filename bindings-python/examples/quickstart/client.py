"""Quickstart: a client calling the ``greet`` tool of ``server.py``.

``McpClient.call_tool`` is the whole call: it sends the request, and when the server answers
``input_required`` it asks ``on_input`` for each answer (here the user, on the terminal) and retries
with a new id, the answers and the exact ``requestState``, until the final result.

    python client.py http://127.0.0.1:8000/mcp                  # MRTR (2026-07-28)
    python client.py http://127.0.0.1:9000/mcp 2025-11-25       # an older client, through `mrtr bridge`
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Dict

import mrtr


def ask_the_user(question: Dict[str, Any], key: str) -> Dict[str, Any]:
    """The answer to one question of the server (an elicitation here), from the terminal."""
    name = input(question["params"]["message"] + " ")
    return {"action": "accept", "content": {"name": name}}


async def main(url: str, mode: str) -> None:
    client = mrtr.McpClient(url, capabilities={"elicitation": {}}, mode=mode)
    result = await client.call_tool("greet", {}, on_input=ask_the_user)
    print(result["content"][0]["text"])


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "2026-07-28"))
