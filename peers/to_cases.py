#!/usr/bin/env python3
"""Turns the recordings `peers/run --keep DIR` kept into `check` cases of the corpus.

    target/venv-python/bin/python peers/to_cases.py DIR     # writes conformance/cases/peers/*.json

The expectation of each case comes from the run and the spec, not from mrtr: the SDKs completed
every scenario with the expected answers (correct traffic: no violation), or a client broke one
retry on purpose (exactly that fault's rule, at that retry), or a server SDK breaks a rule the run
lists in FINDINGS (`peers/run`), found here by reading the messages as the spec words the rule
(2026-07-28 server/utilities/caching: an input_required result carries no caching hints).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "conformance" / "cases" / "peers"


def harness():
    """peers/run, as a module: its tables of broken clients, findings and client bugs."""
    loader = importlib.machinery.SourceFileLoader("peers_run", str(ROOT / "peers" / "run"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


RUN = harness()
SDK = {
    "py": "Python SDK (PyPI mcp 2.3.0)",
    "ts": "TypeScript SDK (@modelcontextprotocol/client and /server 2.4.0)",
    "mrtr": "mrtr (server: peers/mrtr_server.py, await-style tools on the Python binding, 2025-11-25 through the "
    "legacy bridge; client: peers/mrtr_client.mjs, the Node binding's Client and HttpCall machines)",
    "go": "Go SDK (github.com/modelcontextprotocol/go-sdk v1.8.0, peers/go)",
    "rmcp": "Rust SDK rmcp 3.11.0 (peers/rust)",
    "turbomcp": "turbomcp 4.0.0-alpha.5 (peers/rust)",
    "tower-mcp": "tower-mcp 0.25.0 (peers/rust)",
    "mcpgo": "mcp-go (github.com/mark3labs/mcp-go v1.2.1, peers/mcpgo)",
    "fastmcp": "FastMCP (PyPI fastmcp 4.1.6 on the Python SDK mcp 2.3.0, peers/fastmcp_server.py and "
    "peers/fastmcp_client.py: its guard pattern on 2026-07-28, ctx.elicit on 2025-11-25)",
    "mrtr-java": "mrtr's Java server (bindings-jvm/examples/server: await-style tools on the JVM package, 2025-11-25 "
    "through ToolBridge)",
    "java-sdk-mrtr": "the Java SDK 2.2.0's server answering 2026-07-28 through mrtr's adapter (integrations/java-sdk)",
    "java": "Java SDK (Maven io.modelcontextprotocol.sdk:mcp 2.2.0, its legacy stack, peers/java; 2025-11-25 only)",
    "java-modern": "Java SDK (Maven io.modelcontextprotocol.sdk:mcp 2.2.0, its modern MRTR stack, peers/java; "
    "2026-07-28 only)",
}
SCENARIOS = {
    "2026-07-28": "get_weather (one round), book_trip (two rounds), summarize (sampling), list_roots (roots), two "
    "parallel get_weather calls, a prompt and a resource that ask first, then where both ends can: reserve (a "
    "round with a requestState and no inputRequests, retried at once: load shedding), sign_in (a URL-mode "
    "elicitation answered with an accept), get_weather from a client declaring no capability (refused with "
    "-32021), and from one declaring form elicitation only: summarize (refused with -32021) and get_weather",
    "2025-11-25": "the same tools with their asks as server requests on each call's POST stream (client and server "
    "numbering their requests independently), two parallel get_weather calls, then where both ends can: reserve "
    "(answered at once) and sign_in (a URL-mode elicitation with its elicitationId)",
}
NAME = re.compile(r"^(?P<client>.+)-client-(?P<server>.+)-server-(?P<protocol>\d{4}-\d\d-\d\d)(?P<broken>-broken)?$")


def sent(entry: dict) -> list:
    """The client messages of a recorded entry: a message entry's message, or
    the JSON body of a client HTTP entry (the proxy records HTTP entries)."""
    if entry.get("from") != "client":
        return []
    if "message" in entry:
        return [entry["message"]]
    body = entry.get("http", {}).get("body")
    return body if isinstance(body, list) else [body] if isinstance(body, dict) else []


def received(entry: dict) -> list:
    """The server messages of a recorded entry: a message entry's, or those of an HTTP entry's body and events."""
    if entry.get("from") != "server":
        return []
    if "message" in entry:
        return [entry["message"]]
    http = entry.get("http", {})
    values = [http.get("body")] + [block.get("data") for block in http.get("events", [])]
    return [m for v in values for m in (v if isinstance(v, list) else [v]) if isinstance(m, dict)]


def cache_hinted(transcript: list) -> list:
    """The entries whose server message is an input_required result with ttlMs or cacheScope."""
    def hinted(m: dict) -> bool:
        result = m.get("result")
        return isinstance(result, dict) and result.get("resultType") == "input_required" and (
            "ttlMs" in result or "cacheScope" in result)
    return [i for i, e in enumerate(transcript) if any(hinted(m) for m in received(e))]


def url_asks(transcript: list) -> list:
    """The entries whose server message is a 2026-07-28 input_required result asking a URL-mode elicitation
    that carries an elicitationId."""
    def faulty(m: dict) -> bool:
        result = m.get("result")
        asks = result.get("inputRequests") if isinstance(result, dict) and result.get("resultType") == "input_required" else None
        return any(isinstance(a, dict) and a.get("method") == "elicitation/create" and (a.get("params") or {}).get("mode") == "url"
                   and "elicitationId" in (a.get("params") or {}) for a in (asks or {}).values())
    return [i for i, e in enumerate(transcript) if any(faulty(m) for m in received(e))]


def url_answers_with_content(transcript: list) -> list:
    """The entries whose client message answers a URL-mode ask with content: a retry answering the ask of its
    call (by tool and key), or (2025-11-25) the result answering a URL-mode server request (by id)."""
    names, asked, requested, found = {}, set(), set(), []
    for i, e in enumerate(transcript):
        for m in sent(e):
            params = m.get("params") or {}
            names[json.dumps(m.get("id"))] = params.get("name")
            answers = params.get("inputResponses") or {}
            if any((params.get("name"), k) in asked and isinstance(v, dict) and "content" in v for k, v in answers.items()):
                found.append(i)
            result = m.get("result") if "method" not in m else None
            if json.dumps(m.get("id")) in requested and isinstance(result, dict) and "content" in result:
                found.append(i)
        for m in received(e):
            if m.get("method") == "elicitation/create" and (m.get("params") or {}).get("mode") == "url":
                requested.add(json.dumps(m.get("id")))
            result = m.get("result")
            if isinstance(result, dict) and result.get("resultType") == "input_required":
                for key, a in (result.get("inputRequests") or {}).items():
                    if isinstance(a, dict) and (a.get("params") or {}).get("mode") == "url":
                        asked.add((names.get(json.dumps(m.get("id"))), key))
    return found


def asked_on_get_stream(transcript: list) -> list:
    """The entries whose server message is a sampling/createMessage, roots/list or elicitation/create request
    sent on the standalone GET stream (an HTTP exchange the client opened with GET), outside the call that asks."""
    gets = {e["http"]["exchange"] for e in transcript
            if e.get("from") == "client" and e.get("http", {}).get("method") == "GET"}
    asks = {"sampling/createMessage", "roots/list", "elicitation/create"}
    return [i for i, e in enumerate(transcript) if e.get("from") == "server" and e.get("http", {}).get("exchange") in gets
            and any(m.get("method") in asks and "id" in m for m in received(e))]


READERS = {
    "server-request-unassociated": asked_on_get_stream,
    "input-required-cache-hint": cache_hinted,
    "input-request-invalid": url_asks,
    "retry-input-response-invalid": url_answers_with_content,
}
SPEC = {
    "input-required-cache-hint": "2026-07-28 server/utilities/caching: an input_required result carries no caching hints",
    "input-request-invalid": "2026-07-28 schema: a URL-mode elicitation has no elicitationId",
    "retry-input-response-invalid": "the schema's ElicitResult.content: omitted for out-of-band (URL) mode responses",
    "server-request-unassociated": "2025-11-25 basic/transports: a server's requests on the GET stream SHOULD be unrelated "
    "to any concurrently-running request (SEP-2260: sampling, roots and elicitation only in association with one)",
}


def case(path: Path) -> dict:
    name = path.stem
    parts = NAME.match(name)
    client, server, protocol, broken = parts["client"], parts["server"], parts["protocol"], bool(parts["broken"])
    transcript = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    origin = f"Recorded through mrtr proxy: the {SDK[client]} client and the {SDK[server]} server, {protocol}"
    if broken:
        rule = RUN.BROKEN[server]
        retry = next(i for i, e in enumerate(transcript) if any("inputResponses" in m.get("params", {}) for m in sent(e)))
        description = f"{origin}; a client built by hand retries get_weather with a requestState it was not given: exactly {rule}."
        expect = [{"rule": rule, "index": retry}]
        rules = [rule]
    else:
        scenarios = RUN.extra(server, client, protocol)
        bugs, _ = RUN.client_bugs(server, client, protocol, scenarios)
        answers = (f"Every call got its expected answer but where the client fails exactly so: {'; '.join(bugs)}"
                   if bugs else "Every call got its expected answer")
        findings = RUN.findings(server, client, protocol, scenarios)
        found = sorted({(i, r) for r in set(findings) for i in READERS[r](transcript)})
        expect = [{"rule": r, "index": i} for i, r in found]
        assert [v["rule"] for v in expect] == findings, f"{name}: each finding once, read from the messages: {found}"
        gated = RUN.gated(server, client, protocol)
        left_out = f" Left out: {'; '.join(gated)}." if gated else ""
        verdict = (f"; the SDKs break {', '.join(findings)} ({'; '.join(SPEC[r] for r in dict.fromkeys(findings))})"
                   if findings else ": no violation")
        description = f"{origin}: {SCENARIOS[protocol]}.{left_out} {answers}{verdict}."
        rules = ["retry-request-changed", "retry-request-state-mismatch", *dict.fromkeys(findings)]
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
