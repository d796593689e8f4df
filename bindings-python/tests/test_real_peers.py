"""Real peers: the official `mcp` package (PyPI) against mrtr, both ways.

- What mrtr builds (``respond``, ``retry``) is accepted by the package's own
  parse path for the ``2026-07-28`` wire (``jsonrpc_message_adapter`` then
  ``methods.parse_server_result`` / ``methods.parse_client_request``) and by
  the official JSON schema. The package has no Tasks-extension types
  (``tasks/update`` is not in its ``2026-07-28`` surface), so ``task_update``
  is checked against ``ext-tasks-draft.schema.json`` alone.
- What the package's server and client put on the wire for MRTR (recorded over
  127.0.0.1), mrtr classifies, and checks as a compliant conversation.
- mrtr's ``Client`` machine completes a call against the package's server.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Tuple

import pytest
from conftest import META

import mrtr

mcp = pytest.importorskip("mcp")
jsonschema = pytest.importorskip("jsonschema")
uvicorn = pytest.importorskip("uvicorn")
import mcp.types as T  # noqa: E402
from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp_types import InputRequiredResult, jsonrpc_message_adapter, methods  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import weather_client  # noqa: E402

V = "2026-07-28"
SCHEMAS = Path(__file__).resolve().parents[2] / "spec" / "schema"

FORM = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Resolve the bug?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "resolution": {"type": "string", "enum": ["fixed", "wontfix"]},
                "hours": {"type": "number", "minimum": 0},
                "notify": {"type": "boolean"},
            },
            "required": ["resolution"],
        },
    },
}
URL = {"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "url": "https://auth.example.com/x"}}
SAMPLING = {
    "method": "sampling/createMessage",
    "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Summarise"}}], "maxTokens": 50},
}
ROOTS = {"method": "roots/list", "params": {}}
ASK = {"resolution": FORM, "login": URL, "summary": SAMPLING, "workspace": ROOTS}
ANSWERS = {
    "resolution": {"action": "accept", "content": {"resolution": "fixed", "hours": 2, "notify": True}},
    "login": {"action": "accept"},
    "summary": {"role": "assistant", "content": {"type": "text", "text": "Done."}, "model": "m-1"},
    "workspace": {"roots": [{"uri": "file:///work", "name": "work"}]},
}
CAPS = {"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}
FULL_META = dict(META, **{"io.modelcontextprotocol/clientCapabilities": CAPS})
REQUESTS = {
    "tools/call": {"name": "triage", "arguments": {"bug": 4711}},
    "prompts/get": {"name": "review", "arguments": {"pr": "12"}},
    "resources/read": {"uri": "file:///work/notes.md"},
}


def request_for(method: str, id: int = 1) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id, "method": method, "params": dict(REQUESTS[method], _meta=FULL_META)}


def schema_validator(file: str, name: str) -> Callable[[Any], None]:
    full = json.loads((SCHEMAS / file).read_text())
    schema = {"$schema": full["$schema"], "$defs": full["$defs"], "$ref": f"#/$defs/{name}"}
    validator = jsonschema.Draft202012Validator(schema)
    return validator.validate


@pytest.mark.parametrize("method", sorted(REQUESTS))
def test_what_mrtr_builds_the_mcp_package_parses(method: str) -> None:
    request = request_for(method)
    answer = mrtr.respond(request, ASK, "opaque-1")
    assert type(jsonrpc_message_adapter.validate_python(answer, by_name=False)).__name__ == "JSONRPCResponse"
    parsed = methods.parse_server_result(method, V, answer["result"])
    assert isinstance(parsed, InputRequiredResult)
    assert parsed.request_state == "opaque-1"
    kinds = {k: type(v).__name__ for k, v in (parsed.input_requests or {}).items()}
    assert kinds == {
        "resolution": "ElicitRequest",
        "login": "ElicitRequest",
        "summary": "CreateMessageRequest",
        "workspace": "ListRootsRequest",
    }

    retry = mrtr.retry(request, answer, ANSWERS, 2)
    assert type(jsonrpc_message_adapter.validate_python(retry, by_name=False)).__name__ == "JSONRPCRequest"
    req = methods.parse_client_request(method, V, retry["params"])
    assert req.params.request_state == "opaque-1"
    responses = {k: type(v).__name__ for k, v in (req.params.input_responses or {}).items()}
    assert responses == {
        "resolution": "ElicitResult",
        "login": "ElicitResult",
        "summary": "CreateMessageResult",
        "workspace": "ListRootsResult",
    }
    # The package's dump of what it parsed is the same wire, and mrtr reads it back.
    assert mrtr.resume(retry, ASK).responses == ANSWERS


def test_what_mrtr_builds_fits_the_official_schema() -> None:
    request = request_for("tools/call")
    answer = mrtr.respond(request, ASK, "opaque-1")
    schema_validator("mcp-2026-07-28.schema.json", "JSONRPCResultResponse")(answer)
    schema_validator("mcp-2026-07-28.schema.json", "InputRequiredResult")(answer["result"])
    schema_validator("mcp-2026-07-28.schema.json", "CallToolResultResponse")(answer)
    retry = mrtr.retry(request, answer, ANSWERS, 2)
    schema_validator("mcp-2026-07-28.schema.json", "CallToolRequest")(retry)
    state_only = mrtr.respond(request, None, "busy")
    schema_validator("mcp-2026-07-28.schema.json", "InputRequiredResult")(state_only["result"])


def test_task_update_fits_the_tasks_extension_schema() -> None:
    assert ("tasks/update", V) not in methods.CLIENT_REQUESTS  # the package has no type for it
    get_request = {"jsonrpc": "2.0", "id": 5, "method": "tasks/get", "params": {"taskId": "t1", "_meta": FULL_META}}
    get_response = {
        "jsonrpc": "2.0",
        "id": 5,
        "result": {"taskId": "t1", "status": "input_required", "inputRequests": {"resolution": FORM}},
    }
    update = mrtr.task_update(get_request, get_response, {"resolution": ANSWERS["resolution"]}, 6)
    schema_validator("ext-tasks-draft.schema.json", "UpdateTaskRequest")(update)


def test_what_the_mcp_models_emit_mrtr_reads() -> None:
    result = T.InputRequiredResult(
        input_requests={
            "resolution": T.ElicitRequest(params=T.ElicitRequestFormParams.model_validate(FORM["params"])),
            "workspace": T.ListRootsRequest(),
        },
        request_state="s-9",
    )
    wire = {"jsonrpc": "2.0", "id": 3, "result": result.model_dump(by_alias=True, mode="json", exclude_none=True)}
    c = mrtr.classify(json.dumps(wire))
    assert c.kind is mrtr.Kind.INPUT_REQUIRED and c.id == 3
    request = request_for("tools/call", id=3)
    retry = mrtr.retry(request, wire, {"resolution": ANSWERS["resolution"], "workspace": ANSWERS["workspace"]}, 4)
    assert retry["params"]["requestState"] == "s-9"


# --- the package's own server and client on the wire -------------------------------------


def weather_server() -> MCPServer:
    server = MCPServer("weather")

    @server.tool()
    async def get_weather(location: str, ctx: Context) -> str | T.InputRequiredResult:
        answers = ctx.input_responses or {}
        if "units" not in answers:
            return T.InputRequiredResult(
                input_requests={
                    "units": T.ElicitRequest(
                        params=T.ElicitRequestFormParams(
                            message="Which units?",
                            requested_schema={
                                "type": "object",
                                "properties": {"units": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                                "required": ["units"],
                            },
                        )
                    )
                },
                request_state="round-1",
            )
        units = answers["units"].content["units"]  # type: ignore[union-attr,index]
        return f"{location}: 22 degrees {units}"

    return server


def recorder(app: Any, log: List[Tuple[str, bytes]]) -> Any:
    """ASGI middleware keeping every POST body and every response body."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await app(scope, receive, send)
        body, out = [b""], [b""]

        async def rcv() -> Any:
            m = await receive()
            if m["type"] == "http.request":
                body[0] += m.get("body", b"")
                if not m.get("more_body") and body[0]:
                    log.append(("client", body[0]))
            return m

        async def snd(m: Any) -> None:
            if m["type"] == "http.response.body":
                out[0] += m.get("body", b"")
                if not m.get("more_body") and out[0]:
                    log.append(("server", out[0]))
            await send(m)

        await app(scope, rcv, snd)

    return wrapped


@pytest.fixture
def mcp_server() -> Iterator[Tuple[str, List[Tuple[str, bytes]]]]:
    log: List[Tuple[str, bytes]] = []
    app = weather_server().streamable_http_app(stateless_http=True, json_response=True)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(recorder(app, log), log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the mcp server did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}/mcp", log
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        assert not thread.is_alive()


def transcript_of(log: List[Tuple[str, bytes]]) -> List[Dict[str, Any]]:
    return [{"from": side, "message": json.loads(body)} for side, body in log]


def test_what_the_mcp_server_and_client_put_on_the_wire_is_compliant(
    mcp_server: Tuple[str, List[Tuple[str, bytes]]],
) -> None:
    url, log = mcp_server

    async def elicit(context: Any, params: Any) -> Any:
        return T.ElicitResult(action="accept", content={"units": "celsius"})

    async def run() -> Any:
        async with mcp.Client(url, mode=V, elicitation_callback=elicit) as client:
            return await client.call_tool("get_weather", {"location": "Paris"})

    result = asyncio.run(asyncio.wait_for(run(), timeout=30))
    assert result.content[0].text == "Paris: 22 degrees celsius"
    kinds = [mrtr.classify(body).kind for _, body in log]
    assert kinds[:4] == [mrtr.Kind.REQUEST, mrtr.Kind.INPUT_REQUIRED, mrtr.Kind.REQUEST, mrtr.Kind.RESULT]
    transcript = transcript_of(log)
    retry = transcript[2]["message"]
    assert retry["params"]["inputResponses"] == {"units": {"action": "accept", "content": {"units": "celsius"}}}
    # The package seals requestState; its client echoes it byte for byte.
    assert retry["params"]["requestState"] == transcript[1]["message"]["result"]["requestState"]
    assert mrtr.check(transcript) == []
    # And mrtr's server side reads the package client's retry.
    needs = transcript[1]["message"]["result"]["inputRequests"]
    assert mrtr.resume(retry, needs).complete


def test_the_mrtr_client_machine_completes_a_call_on_the_mcp_server(
    mcp_server: Tuple[str, List[Tuple[str, bytes]]],
) -> None:
    url, log = mcp_server
    result = weather_client.call_tool(url, "get_weather", {"location": "Oslo"})
    assert result["resultType"] == "complete"
    assert result["content"][0]["text"] == "Oslo: 22 degrees celsius"
    assert mrtr.check(transcript_of(log)) == []


def test_the_mcp_server_asks_a_client_for_input_it_did_not_declare(
    mcp_server: Tuple[str, List[Tuple[str, bytes]]],
) -> None:
    """A finding in real traffic: a tool that builds its InputRequiredResult by hand asks for
    elicitation whatever the client declared (the TypeScript SDK refuses that case with -32021);
    mrtr reports exactly `input-request-capability-missing`, on that result."""
    url, log = mcp_server

    async def run() -> Any:
        # No elicitation callback: the client declares no elicitation capability.
        async with mcp.Client(url, mode=V) as client:
            return await client.call_tool("get_weather", {"location": "Paris"})

    with pytest.raises(Exception) as refused:
        asyncio.run(asyncio.wait_for(run(), timeout=30))
    # The package's client refuses the ask itself (-32600 "Elicitation not supported").
    assert "Elicitation not supported" in repr(getattr(refused.value, "exceptions", refused.value))
    transcript = transcript_of(log)
    call = next(e["message"] for e in transcript if e["message"].get("method") == "tools/call")
    declared = call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert "elicitation" not in declared
    asked = next(i for i, e in enumerate(transcript) if e["message"].get("result", {}).get("resultType") == "input_required")
    violations = [(v.rule, v.index) for v in mrtr.check(transcript)]
    assert violations == [(mrtr.Rule.INPUT_REQUEST_CAPABILITY_MISSING, asked)]
