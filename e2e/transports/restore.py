"""Goes on with an operation another process began: reads the snapshot that
``client.mjs --snapshot`` wrote (the Node binding) and restores it here (the
Python binding), answers the open question with the same canned answers, and
carries the call to its end against the same server.

    python e2e/transports/restore.py --snapshot FILE --url URL [--name Ada] [--style formal]

Prints one JSON line ``{"text", "id"}`` (the final text, and the id of the
response: the ids go on from the ones the first process derived) and exits 0
when the call completed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Dict

import mrtr


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--snapshot", required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--name", default="Ada")
    parser.add_argument("--style", default="formal")
    args = parser.parse_args()
    answers = {"name": args.name, "style": args.style}

    def answer(question: Dict[str, Any], key: str) -> Dict[str, Any]:
        fields = question["params"]["requestedSchema"]["properties"]
        return {"action": "accept", "content": {k: answers.get(k, "yes") for k in fields}}

    def on_event(event: Dict[str, Any]) -> None:
        if event["type"] == "violation":
            raise RuntimeError(f"{event['rule']}: {event['message']}")

    async def go_on() -> Dict[str, Any]:
        loop = asyncio.get_running_loop()
        now = int(loop.time() * 1000)
        snapshot = Path(args.snapshot).read_text()
        headers = {"mcp-protocol-version": "2026-07-28"}
        operation = mrtr.Operation.restore(snapshot, now, mode="2026-07-28", url=args.url, headers=headers)
        return await mrtr.run_operation(operation, on_input=answer, on_event=on_event)

    try:
        response = asyncio.run(go_on())
    except Exception as e:  # noqa: BLE001 - reported as the outcome
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        return 1
    text = (response.get("result") or {}).get("content", [{}])[0].get("text")
    print(json.dumps({"text": text, "id": response.get("id")}))
    return 0 if text else 1


if __name__ == "__main__":
    sys.exit(main())
