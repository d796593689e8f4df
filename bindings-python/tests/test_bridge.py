"""The legacy bridge (``BridgedCall`` over the core's ``ToolBridge``): the await-style tool ``run_tool`` serves
to ``2026-07-28`` clients, served to a ``2025-11-25`` client. Each round's questions go on the call's event
stream as server requests; the answers come back (as POSTs would) through ``deliver``; the tool is replayed
from them. Also: an answer that does not fit, a round left unanswered, a refusal in the tool, and the
conversation checked by mrtr's checker."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

import pytest

import mrtr
from mrtr import Rule

SCHEMA = {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}
REQUEST = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "greet", "arguments": {"loud": True}}}


async def greet(args: Dict[str, Any], ctx: mrtr.Context) -> Dict[str, Any]:
    name = (await ctx.elicit("Name?", SCHEMA))["content"]["v"]
    style, roots = await ctx.ask_all(mrtr.Questions.elicit(f"Style for {name}?", SCHEMA), mrtr.Questions.roots())
    text = f"{style['content']['v']} {name} ({len(roots['roots'])} roots)"
    return {"content": [{"type": "text", "text": text.upper() if args.get("loud") else text}]}


def messages(text: str) -> List[Dict[str, Any]]:
    """The JSON-RPC messages of event-stream text."""
    decoder = mrtr.SseDecoder()
    decoder.feed(text.encode())
    return [json.loads(e["data"]) for e in decoder if e.get("data")]


def answer(request: Dict[str, Any]) -> Dict[str, Any]:
    if request["method"] == "roots/list":
        return {"jsonrpc": "2.0", "id": request["id"], "result": {"roots": [{"uri": "file:///a"}]}}
    value = "Ada" if request["params"]["message"] == "Name?" else "hello"
    return {"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"v": value}}}


async def converse(call: mrtr.BridgedCall) -> List[Dict[str, Any]]:
    """Plays the client: reads the stream, answers every server request, returns everything it saw."""
    seen: List[Dict[str, Any]] = []
    async for text in call.stream():
        for message in messages(text):
            seen.append({"from": "server", "message": message, "stream": "post:5"})
            if "method" in message:
                assert message["id"] in call.pending
                seen.append({"from": "client", "message": answer(message)})
                call.deliver(answer(message))
    return seen


def test_a_two_round_tool_over_the_post_stream() -> None:
    seen = asyncio.run(converse(mrtr.BridgedCall(greet, REQUEST)))
    asked = [m["message"]["method"] for m in seen if m["from"] == "server" and "method" in m["message"]]
    assert asked == ["elicitation/create", "elicitation/create", "roots/list"]
    final = seen[-1]["message"]
    assert final["id"] == 5 and final["result"]["content"][0]["text"] == "HELLO ADA (1 ROOTS)"
    assert "resultType" not in final["result"]  # 2025-11-25 has none
    conversation = [{"from": "client", "message": REQUEST, "stream": "post:5"}] + seen
    assert mrtr.check(conversation, protocol="2025-11-25") == []


def test_an_answer_that_does_not_fit_is_refused_and_the_round_waits() -> None:
    async def play() -> Dict[str, Any]:
        call = mrtr.BridgedCall(greet, REQUEST)
        stream = call.stream()
        (question,) = messages(await stream.__anext__())
        with pytest.raises(mrtr.RetryError) as e:
            call.deliver({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {}}})
        assert e.value.rule is Rule.RETRY_INPUT_RESPONSE_INVALID and call.pending == [question["id"]]
        with pytest.raises(mrtr.UsageError):
            call.deliver({"jsonrpc": "2.0", "id": "nobody", "result": {}})
        call.deliver(answer(question))
        return messages(await stream.__anext__())[0]

    assert asyncio.run(play())["params"]["message"] == "Style for Ada?"


def test_a_round_left_unanswered_ends_the_call_with_its_error() -> None:
    async def play() -> List[Dict[str, Any]]:
        call = mrtr.BridgedCall(greet, REQUEST, round_timeout_ms=50)
        return [m for text in [t async for t in call.stream()] for m in messages(text)]

    first, last = asyncio.run(play())
    assert first["method"] == "elicitation/create"
    assert last["id"] == 5 and last["error"]["data"]["rule"] == "limit-exceeded"


def test_a_refusal_in_the_tool_is_the_call_s_error_response() -> None:
    async def needs_sampling(args: Dict[str, Any], ctx: mrtr.Context) -> Dict[str, Any]:
        raise mrtr.ProtocolError(Rule.REQUEST_CAPABILITY_MISSING, -32021, "no", {"requiredCapabilities": {"sampling": {}}})

    async def play() -> List[str]:
        return [t async for t in mrtr.BridgedCall(needs_sampling, REQUEST).stream()]

    (only,) = [m for t in asyncio.run(play()) for m in messages(t)]
    assert only["error"]["code"] == -32021
    assert only["error"]["data"] == {"requiredCapabilities": {"sampling": {}}, "rule": "request-capability-missing"}


def test_the_round_cap_holds() -> None:
    async def asks_forever(args: Dict[str, Any], ctx: mrtr.Context) -> Dict[str, Any]:
        for i in range(100):
            await ctx.elicit(f"Question {i}?", SCHEMA)
        return {"content": []}

    async def play() -> List[Dict[str, Any]]:
        call = mrtr.BridgedCall(asks_forever, REQUEST, max_rounds=2)
        out = []
        async for text in call.stream():
            for m in messages(text):
                out.append(m)
                if "method" in m:
                    call.deliver({"jsonrpc": "2.0", "id": m["id"], "result": {"action": "accept", "content": {"v": "x"}}})
        return out

    out = asyncio.run(play())
    assert [m.get("method") for m in out[:2]] == ["elicitation/create"] * 2
    assert out[-1]["error"]["data"]["rule"] == "retry-rounds-exceeded"
