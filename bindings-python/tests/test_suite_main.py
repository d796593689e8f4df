"""What the official conformance suite's `main` branch adds, held by mrtr's own server until a release
of the suite carries it (the newest published, 0.2.0-alpha.12, is what `scripts/tests/70-official.sh`
pins): batch rejection, the protocol-version header, and a server that needs no session (SEP-2567).

The server is `peers/mrtr_server.py` (await-style tools on this binding, Starlette under uvicorn) on
127.0.0.1; each request goes over a real socket, and each conversation is then checked by mrtr."""

from __future__ import annotations

import importlib.util
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, Tuple

import pytest

import mrtr

uvicorn = pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

V = "2026-07-28"
SERVER = Path(__file__).resolve().parents[2] / "peers" / "mrtr_server.py"
META = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}


def call(id: int, **params: Any) -> Dict[str, Any]:
    body = {"name": "get_weather", "arguments": {"location": "Oslo"}, "_meta": META, **params}
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": body}


def headers_of(message: Any, **extra: str) -> Dict[str, str]:
    """The header fields a 2026-07-28 client sends with `message` (mrtr's mirrored fields), plus `extra`."""
    fields = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if isinstance(message, dict):
        fields.update({k: v for k, v in mrtr.mirrored_fields(message).items() if v is not None})
    return {**fields, **extra}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    spec = importlib.util.spec_from_file_location("mrtr_peer_server", SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(module.app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "peers/mrtr_server.py did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


def post(url: str, body: Any, headers: Dict[str, str]) -> Tuple[int, Dict[str, str], Any]:
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, head, raw = response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as refused:
        status, head, raw = refused.code, dict(refused.headers), refused.read()
    return status, {k.lower(): v for k, v in head.items()}, json.loads(raw) if raw else None


def checked(request: Any, response: Any) -> list:
    transcript = [{"from": "client", "message": request}, {"from": "server", "message": response}]
    return [(v.rule, v.index) for v in mrtr.check(transcript, protocol=V)]


def test_a_batch_is_refused_as_one_invalid_request(url: str) -> None:
    """2026-07-28 has no batches: an array is one invalid request (-32600, id null), with a 4xx, never a 2xx."""
    batch = [call(1), call(2)]
    status, head, body = post(url, batch, headers_of(None, **{"mcp-protocol-version": V}))
    assert status == 400
    assert head["content-type"].startswith("application/json")
    assert (body["id"], body["error"]["code"], body["error"]["data"]["rule"]) == (None, -32600, "jsonrpc-invalid")


def test_a_protocol_version_header_that_differs_from_the_body_is_refused(url: str) -> None:
    """SEP-2243 as 2026-07-28 words it: MCP-Protocol-Version mirrors `_meta`'s version; a mismatch is -32020."""
    request = call(3)
    status, _, body = post(url, request, headers_of(request, **{"mcp-method": "prompts/get"}))
    assert (status, body["error"]["code"], body["error"]["data"]["rule"]) == (400, -32020, "request-header-mismatch")
    assert checked(request, body) == []  # a refusal of the right code: nothing to report of the server


def test_a_request_is_served_without_a_session_and_none_is_given(url: str) -> None:
    """Sessionless (SEP-2567): no `initialize`, no Mcp-Session-Id, and any instance finishes the call."""
    first = call(4)
    status, head, asked = post(url, first, headers_of(first))
    assert status == 200 and "mcp-session-id" not in head
    assert asked["result"]["resultType"] == "input_required"
    answers = {key: {"action": "accept", "content": {"units": "celsius"}} for key in asked["result"]["inputRequests"]}
    retry = mrtr.retry(first, asked, answers, 5)
    # A session id the server never gave changes nothing: it keeps none.
    status, head, done = post(url, retry, headers_of(retry, **{"mcp-session-id": "never-issued"}))
    assert status == 200 and "mcp-session-id" not in head
    assert done["result"]["content"][0]["text"] == "Oslo: 22 degrees celsius"
    transcript = [{"from": f, "message": m} for f, m in [("client", first), ("server", asked), ("client", retry), ("server", done)]]
    assert mrtr.check(transcript, protocol=V) == []


def test_a_refused_state_answers_400_with_the_json_rpc_error(url: str) -> None:
    """docs/status-policy.md: a refused requestState is a JSON-RPC error with 400, never a 2xx."""
    first = call(6)
    _, _, asked = post(url, first, headers_of(first))
    answers = {key: {"action": "accept", "content": {"units": "c"}} for key in asked["result"]["inputRequests"]}
    retry = mrtr.retry(first, asked, answers, 7)
    retry["params"]["requestState"] = "not-a-sealed-token"
    status, _, body = post(url, retry, headers_of(retry))
    assert (status, body["id"], body["error"]["code"]) == (400, 7, -32602)
    assert body["error"]["data"]["rule"].startswith("state-")
