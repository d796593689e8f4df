"""The examples end to end over 127.0.0.1: the stdlib tool server, driven by
the mrtr.Client loop and by the official `mcp` client; every message recorded
and checked."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

import mrtr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import weather_client  # noqa: E402
import weather_server  # noqa: E402


def post(url: str, message: Dict[str, Any]) -> bytes:
    """One POST by hand: what a client that breaks the rules on purpose sends."""
    import urllib.request

    request = urllib.request.Request(url, data=json.dumps(message).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        body: bytes = response.read()
        return body


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Tuple[str, List[Dict[str, Any]]]]:
    """The example server on a free port, recording every exchange as transcript entries."""
    transcript: List[Dict[str, Any]] = []
    handle = weather_server.handle

    def recording(body: bytes) -> Optional[Dict[str, Any]]:
        reply = handle(body)
        transcript.append({"from": "client", "message": json.loads(body)})
        if reply is not None:
            transcript.append({"from": "server", "message": reply})
        return reply

    monkeypatch.setattr(weather_server, "handle", recording)
    srv, thread = weather_server.serve(0)
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/mcp", transcript
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=5)
        assert not thread.is_alive()


def test_the_mrtr_client_operation_completes_on_the_retry(server: Tuple[str, List[Dict[str, Any]]]) -> None:
    url, transcript = server
    result = weather_client.call_tool(url, "get_weather", {"location": "Paris"})
    assert result["resultType"] == "complete"
    assert result["content"][0]["text"] == "Paris: 22 degrees celsius, clear skies."
    assert [e["from"] for e in transcript] == ["client", "server", "client", "server"]
    assert transcript[1]["message"]["result"]["resultType"] == "input_required"
    assert mrtr.check(transcript) == []


def test_a_declined_elicitation_still_completes(server: Tuple[str, List[Dict[str, Any]]]) -> None:
    url, transcript = server
    result = weather_client.call_tool(url, "get_weather", {"location": "Oslo"}, answer=lambda k, r: {"action": "decline"})
    assert result["isError"] is True and "declined" in result["content"][0]["text"]
    assert mrtr.check(transcript) == []


def test_the_server_refuses_a_forged_state(server: Tuple[str, List[Dict[str, Any]]]) -> None:
    url, transcript = server
    call = mrtr.Session(capabilities=weather_client.CAPABILITIES).call_tool("get_weather", {"location": "Rome"})
    answer = json.loads(post(url, call))
    retry = mrtr.retry(call, answer, {"units": {"action": "accept", "content": {"units": "celsius"}}}, 2)
    retry["params"]["arguments"]["location"] = "Elsewhere"  # the state was bound to Rome
    retry["params"]["requestState"] = answer["result"]["requestState"]
    refused = json.loads(post(url, retry))
    assert refused["error"]["code"] == -32602 and "state-wrong-request" in refused["error"]["message"]
    # The checker sees the changed params too.
    assert [v.rule for v in mrtr.check(transcript[:2] + [{"from": "client", "message": retry}])] == [
        mrtr.Rule.RETRY_REQUEST_CHANGED
    ]


def test_bad_input_over_http_is_a_json_rpc_error(server: Tuple[str, List[Dict[str, Any]]]) -> None:
    url, _ = server
    import urllib.request

    request = urllib.request.Request(url, data=b'{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}')
    with urllib.request.urlopen(request, timeout=5) as response:
        reply = json.loads(response.read())
    assert reply["error"]["code"] == -32600 and reply["error"]["message"].startswith("jsonrpc-invalid")


def test_the_official_mcp_client_drives_the_example_server(server: Tuple[str, List[Dict[str, Any]]]) -> None:
    mcp = pytest.importorskip("mcp")
    import mcp.types as T

    url, transcript = server
    asked: List[str] = []

    async def elicit(context: Any, params: Any) -> Any:
        asked.append(params.message)
        return T.ElicitResult(action="accept", content={"units": "fahrenheit"})

    async def run() -> Any:
        async with mcp.Client(url, mode="2026-07-28", elicitation_callback=elicit) as client:
            return await client.call_tool("get_weather", {"location": "NYC"})

    result = asyncio.run(asyncio.wait_for(run(), timeout=30))
    assert result.content[0].text == "NYC: 72 degrees fahrenheit, clear skies."
    assert asked == ["Which units should the forecast use?"]
    # What the official client sent (its retry included) is compliant.
    calls = [e for e in transcript if e["message"].get("method") == "tools/call"]
    assert len(calls) == 2 and "inputResponses" in calls[1]["message"]["params"]
    for entry in transcript:
        mrtr.classify(json.dumps(entry["message"]))
    assert mrtr.check(transcript) == []
