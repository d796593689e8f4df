#!/usr/bin/env python3
"""Turns the recordings `peers/run --keep DIR` kept into `check` cases of the corpus.

    target/venv-python/bin/python peers/to_cases.py DIR     # writes conformance/cases/peers/*.json

The expectation of each case comes from the run, not from mrtr: the SDKs completed every scenario
with the expected answers (correct traffic: no violation), or a client broke one retry on purpose
(exactly that fault's rule, at that retry).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "conformance" / "cases" / "peers"
SDK = {
    "py": "Python SDK (PyPI mcp 2.3.0)",
    "ts": "TypeScript SDK (@modelcontextprotocol/client and /server 2.4.0)",
    "mrtr": "mrtr (server: peers/mrtr_server.py, await-style tools on the Python binding, 2025-11-25 through the "
    "legacy bridge; client: peers/mrtr_client.mjs, the Node binding's Client and HttpCall machines)",
}
SCENARIOS = {
    "2026-07-28": "get_weather (one round), book_trip (two rounds), summarize (sampling), list_roots (roots), two "
    "parallel get_weather calls, a prompt and a resource that ask first",
    "2025-11-25": "the same tools with their asks as server requests on each call's POST stream (client and server "
    "numbering their requests independently), two parallel get_weather calls",
}
# What each broken run's fault is, and the rule it breaks (see peers/run).
BROKEN = {"py": "retry-request-state-mismatch", "ts": "retry-request-state-unexpected", "mrtr": "retry-request-state-mismatch"}


def sent(entry: dict) -> list:
    """The client messages of a recorded entry: a message entry's message, or
    the JSON body of a client HTTP entry (the proxy records HTTP entries)."""
    if entry.get("from") != "client":
        return []
    if "message" in entry:
        return [entry["message"]]
    body = entry.get("http", {}).get("body")
    return body if isinstance(body, list) else [body] if isinstance(body, dict) else []


def case(path: Path) -> dict:
    name = path.stem
    client, _, server, _, protocol = name.split("-", 4)
    protocol, broken = protocol.removesuffix("-broken"), name.endswith("-broken")
    transcript = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    origin = f"Recorded through mrtr proxy: the {SDK[client]} client and the {SDK[server]} server, {protocol}"
    if broken:
        rule = BROKEN[server]
        retry = next(i for i, e in enumerate(transcript) if any("inputResponses" in m.get("params", {}) for m in sent(e)))
        description = f"{origin}; a client built by hand retries get_weather with a requestState it was not given: exactly {rule}."
        expect = [{"rule": rule, "index": retry}]
        rules = [rule]
    else:
        description = f"{origin}: {SCENARIOS[protocol]}. Every call got its expected answer: no violation."
        expect = []
        rules = ["retry-request-changed", "retry-request-state-mismatch"]
        if protocol == "2025-11-25":
            rules = ["server-request-unassociated", "message-after-input-required"]
    return {
        "id": f"peers/{name}",
        "rules": rules,
        "description": description,
        "op": "check",
        "input": {"transcript": transcript, "config": {"protocol": protocol}},
        "expect": {"violations": expect},
    }


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for path in sorted(Path(sys.argv[1]).glob("*.jsonl")):
        out = OUT / f"{path.stem}.json"
        out.write_text(json.dumps(case(path), indent=1, ensure_ascii=False) + "\n")
        print(out.relative_to(ROOT))


if __name__ == "__main__":
    main()
