"""The server's builders a host would otherwise write itself: the request check (``_meta``, header fields,
the protocol version: -32022 with what the server serves), the capability filter (``sampling.tools``,
-32021 with ``requiredCapabilities``, also from an await-style tool's ``ctx.require``), the error response
that carries a refusal's ``data``, and the Tasks extension's task results."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any, Dict

import pytest

import mrtr
from mrtr import Rule

V = "2026-07-28"
HEADERS = {"MCP-Protocol-Version": V, "Mcp-Method": "tools/call", "Mcp-Name": "summarize"}
SAMPLE_TOOLS = mrtr.Questions.sample(
    {"messages": [], "maxTokens": 10, "tools": [{"name": "search", "inputSchema": {"type": "object"}}]}
)


def call(caps: Dict[str, Any], version: str = V, id: int = 1) -> Dict[str, Any]:
    meta = {"io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": caps}
    return {"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "summarize", "_meta": meta}}


def test_an_unserved_version_is_refused_with_the_versions_served() -> None:
    with pytest.raises(mrtr.ProtocolError) as e:
        mrtr.check_request(call({}, "2099-01-01"), [V], {**HEADERS, "MCP-Protocol-Version": "2099-01-01"})
    assert (e.value.rule, e.value.code) == (Rule.PROTOCOL_VERSION_UNSUPPORTED, -32022)
    assert e.value.data == {"supported": [V], "requested": "2099-01-01"}
    response, status = mrtr.error_response(1, e.value)
    assert status == 400
    assert response["error"]["code"] == -32022
    assert response["error"]["data"] == {"supported": [V], "requested": "2099-01-01", "rule": "protocol-version-unsupported"}
    mrtr.check_request(call({}), [V], HEADERS)
    mrtr.check_request(call({}), [V])  # not over HTTP: no header fields to check


def test_the_request_check_reads_meta_and_headers_first() -> None:
    bare = call({})
    del bare["params"]["_meta"]
    with pytest.raises(mrtr.ProtocolError) as e:
        mrtr.check_request(bare, [V], HEADERS)
    assert e.value.rule is Rule.REQUEST_META_MISSING and e.value.data is None
    with pytest.raises(mrtr.ProtocolError) as e:
        mrtr.check_request(call({}), [V], {**HEADERS, "Mcp-Name": "other"})
    assert e.value.rule is Rule.REQUEST_HEADER_MISMATCH
    with pytest.raises(mrtr.UsageError):
        mrtr.check_request(call({}), [1])  # type: ignore[list-item]


def test_sampling_with_tools_needs_sampling_tools() -> None:
    assert mrtr.missing_capabilities(call({"sampling": {}}), {"s": SAMPLE_TOOLS}) == {"sampling": {"tools": {}}}
    assert mrtr.missing_capabilities(call({"sampling": {"tools": {}}}), {"s": SAMPLE_TOOLS}) is None
    with pytest.raises(mrtr.ProtocolError) as e:
        mrtr.require_capabilities(call({}), {"s": SAMPLE_TOOLS, "r": mrtr.Questions.roots()})
    assert e.value.rule is Rule.REQUEST_CAPABILITY_MISSING and e.value.code == -32021
    assert e.value.data == {"requiredCapabilities": {"sampling": {"tools": {}}, "roots": {}}}
    tasks: Dict[str, Any] = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    with pytest.raises(mrtr.ProtocolError) as e:
        mrtr.require_declared(call({"sampling": {}}), tasks)
    assert e.value.data == {"requiredCapabilities": tasks}
    mrtr.require_declared(call(tasks), tasks)


RING = mrtr.KeyRing(1, mrtr.Algorithm.XCHACHA20_POLY1305, secret=secrets.token_bytes(32))
ROUNDS = mrtr.SealedRounds(RING, protocol=V)


async def summarize(args: Dict[str, Any], ctx: mrtr.Context) -> Dict[str, Any]:
    """Summarizes with the client's model, offering it a search tool when the client allows that."""
    if not ctx.allows(SAMPLE_TOOLS):
        ctx.require(mrtr.Questions.roots())  # without tools it reads the roots instead, and needs them
        roots = await ctx.roots()
        return {"content": [{"type": "text", "text": f"{len(roots['roots'])} roots"}]}
    said = await ctx.ask(SAMPLE_TOOLS)
    return {"content": [{"type": "text", "text": said["content"]["text"]}]}


def run(message: Dict[str, Any]) -> Dict[str, Any]:
    return asyncio.run(mrtr.run_tool(summarize, message, ROUNDS, anonymous=True, now=1000))


def test_a_tool_asks_only_what_the_client_allows_and_refuses_what_it_needs() -> None:
    assert ROUNDS.protocol == V
    with_tools = run(call({"sampling": {"tools": {}}}))
    (question,) = with_tools["result"]["inputRequests"].values()
    assert question["params"]["tools"][0]["name"] == "search"
    roots = run(call({"roots": {}}))
    assert [q["method"] for q in roots["result"]["inputRequests"].values()] == ["roots/list"]
    with pytest.raises(mrtr.ProtocolError) as e:
        run(call({"sampling": {}}))
    response, status = mrtr.error_response(1, e.value)
    assert (status, response["error"]["code"]) == (400, -32021)
    assert response["error"]["data"]["requiredCapabilities"] == {"roots": {}}
    # What mrtr's checker says of that refusal on the wire: nothing; of one without its data: a violation.
    conversation = [{"from": "client", "message": call({"sampling": {}})}, {"from": "server", "message": response}]
    assert mrtr.check(conversation, protocol=V) == []
    del response["error"]["data"]["requiredCapabilities"]
    assert [v.rule for v in mrtr.check(conversation, protocol=V)] == [Rule.REQUEST_CAPABILITY_MISSING]


RECORD = {
    "taskId": "t-1",
    "status": "input_required",
    "createdAt": "2026-11-25T09:00:00Z",
    "lastUpdatedAt": "2026-11-25T09:00:02Z",
    "ttlMs": 60_000,
    "pollIntervalMs": 200,
    "inputRequests": {"a": mrtr.Questions.roots(), "b": mrtr.Questions.roots()},
    "answered": ["a"],
}


def test_task_results_show_what_their_status_carries() -> None:
    started = mrtr.task_created(call({}), {**RECORD, "status": "working"})
    assert started["result"]["resultType"] == "task" and "inputRequests" not in started["result"]
    get = {"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": "t-1"}}
    shown = mrtr.task_get_response(get, RECORD, protocol=V)["result"]
    assert shown["resultType"] == "complete" and list(shown["inputRequests"]) == ["b"] and "answered" not in shown
    with pytest.raises(mrtr.TaskError) as e:
        mrtr.task_get_response(get, {**RECORD, "answered": ["a", "b"]}, protocol=V)
    assert e.value.rule is Rule.TASK_INPUT_REQUESTS_MISSING
    with pytest.raises(mrtr.UsageError):
        mrtr.task_get_response(get, {**RECORD, "status": "completed"}, protocol=V)  # no result
