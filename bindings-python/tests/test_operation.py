"""``mrtr.Operation`` driven by ``mrtr.run_operation`` over httpx2 against a stdlib HTTP server on
127.0.0.1: the rounds, the retries' ids and header fields, and each way an operation ends (a response,
a failure with its rule, an answer the host could not give)."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, Iterator, List, Tuple

import pytest

import mrtr

Json = Dict[str, Any]
Reply = Callable[[Json], Tuple[int, Any]]
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
ASK = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Units?",
        "requestedSchema": {"type": "object", "properties": {"units": {"type": "string", "enum": ["C", "F"]}}, "required": ["units"]},
    },
}


def weather(message: Json) -> Tuple[int, Any]:
    """Asks for the units twice (two rounds), then answers with them."""
    rid, params = message["id"], message["params"]
    state = params.get("requestState")
    if state is None:
        return 200, {"jsonrpc": "2.0", "id": rid, "result": {"resultType": "input_required", "inputRequests": {"units": ASK}, "requestState": "r1"}}
    if state == "r1":
        return 200, {"jsonrpc": "2.0", "id": rid, "result": {"resultType": "input_required", "inputRequests": {"again": ASK}, "requestState": "r2"}}
    units = params["inputResponses"]["again"]["content"]["units"]
    text = {"type": "text", "text": f"21 {units}"}
    return 200, {"jsonrpc": "2.0", "id": rid, "result": {"resultType": "complete", "content": [text], "isError": False}}


class Server:
    """A server on a free port answering each POST with ``reply``; ``seen`` keeps each body and MCP header."""

    def __init__(self, reply: Reply) -> None:
        self.seen: List[Json] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.seen.append({"message": message, "method": self.headers["Mcp-Method"], "name": self.headers["Mcp-Name"]})
                status, body = reply(message)
                data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/plain" if isinstance(body, str) else "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/mcp"

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def serve() -> Iterator[Callable[[Reply], Server]]:
    servers: List[Server] = []

    def start(reply: Reply) -> Server:
        servers.append(Server(reply))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def call(rid: int = 7) -> Json:
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": "weather", "_meta": META}}


def test_two_rounds_each_retry_under_a_new_id_with_the_header_fields(serve: Callable[[Reply], Server]) -> None:
    server = serve(weather)
    asked: List[Tuple[str, str]] = []
    events: List[str] = []

    async def on_input(question: Json, key: str) -> Json:
        asked.append((key, question["method"]))
        await asyncio.sleep(0)
        return {"action": "accept", "content": {"units": "C"}}

    operation = mrtr.Operation(call(), 0, mode="2026-07-28", url=server.url)
    response = asyncio.run(mrtr.run_operation(operation, on_input=on_input, on_event=lambda e: events.append(e["type"])))
    assert response["result"]["content"][0]["text"] == "21 C"
    assert asked == [("units", "elicitation/create"), ("again", "elicitation/create")]
    assert events == ["inputRequired", "inputRequired"]
    assert [s["message"]["id"] for s in server.seen] == [7, "7.1", "7.2"]
    assert [s["message"]["params"].get("requestState") for s in server.seen] == [None, "r1", "r2"]
    assert all((s["method"], s["name"]) == ("tools/call", "weather") for s in server.seen)
    assert operation.drained


def test_a_round_a_hung_server_holds_is_hedged_and_the_hung_copy_is_cut(serve: Callable[[Reply], Server]) -> None:
    # Issue 26: the first copy of the second round reaches a server that hangs; a copy goes after 100 ms,
    # and the call returns with the copy's answers without waiting for the hung one.
    release, replied = threading.Event(), []

    def hangs_once(message: Json) -> Tuple[int, Any]:
        if message["id"] == "7.1":
            release.wait(10)
        replied.append(message["id"])
        return weather(message)

    server = serve(hangs_once)
    answer = {"action": "accept", "content": {"units": "C"}}
    try:
        response = asyncio.run(mrtr.call(server.url, call(), on_input=lambda q, k: answer, hedge_after_ms=100))
        assert "7.1" not in replied, "the call waited for the hung copy"
    finally:
        release.set()
    assert response["result"]["content"][0]["text"] == "21 C"
    assert [s["message"]["id"] for s in server.seen] == [7, "7.1", "7.2", "7.3"]


def test_a_round_no_server_took_is_sent_again_then_fails_with_its_rule(serve: Callable[[Reply], Server]) -> None:
    server = serve(lambda message: (503, "unavailable"))
    with pytest.raises(mrtr.TransportError) as failed:
        asyncio.run(mrtr.call(server.url, call(), on_input=lambda q, k: pytest.fail("nothing is asked"), max_resends=1))
    assert (failed.value.rule, failed.value.code) == (mrtr.Rule.HTTP_STATUS_UNEXPECTED, None)
    assert [s["message"]["id"] for s in server.seen] == [7, "7.1"]


def test_a_hedged_one_round_payment_runs_once(serve: Callable[[Reply], Server]) -> None:
    # Issue 43 (security review N1): a one-round tool behind a slow server (300 ms), called with
    # hedge_after_ms=100, ran the payment twice while the client saw one result. A first request
    # carries nothing a server could tell a copy by: it is not hedged unless the host says it is
    # harmless twice.
    payments = []

    def pay(message: Json) -> Tuple[int, Any]:
        time.sleep(0.3)
        payments.append(message["id"])
        result = {"resultType": "complete", "content": [{"type": "text", "text": f"paid #{len(payments)}"}]}
        return 200, {"jsonrpc": "2.0", "id": message["id"], "result": result}

    server = serve(pay)
    request = call()
    request["params"]["name"], request["params"]["arguments"] = "pay", {"to": "bob", "amount": 5000}
    response = asyncio.run(mrtr.call(server.url, request, on_input=lambda q, k: pytest.fail("nothing is asked"),
                                     hedge_after_ms=100))
    assert response["result"]["content"][0]["text"] == "paid #1"
    assert payments == [7], "the payment ran once"
    assert [s["message"]["id"] for s in server.seen] == [7]


def test_an_answer_that_does_not_fit_raises_its_rule_and_nothing_is_sent(serve: Callable[[Reply], Server]) -> None:
    server = serve(weather)
    with pytest.raises(mrtr.RetryError):
        asyncio.run(mrtr.call(server.url, call(), on_input=lambda q, k: {"action": "accept", "content": {"units": "K"}}))
    assert len(server.seen) == 1


def test_what_on_input_raises_is_what_the_call_raises(serve: Callable[[Reply], Server]) -> None:
    server = serve(weather)

    class Closed(Exception):
        pass

    def on_input(question: Json, key: str) -> Json:
        raise Closed("the user closed the dialog")

    with pytest.raises(Closed):
        asyncio.run(mrtr.call(server.url, call(), on_input=on_input))


def test_misuse_is_a_usage_error() -> None:
    with pytest.raises(mrtr.UsageError):
        mrtr.Operation(call(), 0, mode="2026-07-28", url="not a url")
    operation = mrtr.Operation(call(), 0, mode="2026-07-28", url="http://127.0.0.1:9/mcp")
    with pytest.raises(mrtr.UsageError):
        operation.answer("units", {"action": "accept"}, 1)  # nothing asked yet


def test_mcp_client_one_line_a_call_with_the_declared_meta(serve: Callable[[Reply], Server]) -> None:
    server = serve(weather)
    client = mrtr.McpClient(server.url, capabilities={"elicitation": {}}, client_info={"name": "weather-app", "version": "2.0.0"}, first_id=40)

    async def main() -> List[Json]:
        first = await client.call_tool("weather", {"city": "Paris"}, on_input=lambda q, k: {"action": "accept", "content": {"units": "F"}})
        second = await client.call_tool("weather", on_input=lambda q, k: {"action": "accept", "content": {"units": "C"}})
        return [first, second]

    first, second = asyncio.run(main())
    assert (first["content"][0]["text"], second["content"][0]["text"]) == ("21 F", "21 C")
    assert [s["message"]["id"] for s in server.seen] == [40, "40.1", "40.2", 41, "41.1", "41.2"]
    for s in server.seen:
        meta = s["message"]["params"]["_meta"]
        assert (s["method"], s["name"]) == ("tools/call", "weather")
        assert meta["io.modelcontextprotocol/clientCapabilities"] == {"elicitation": {}}
        assert meta["io.modelcontextprotocol/clientInfo"]["name"] == "weather-app"
    assert server.seen[0]["message"]["params"]["arguments"] == {"city": "Paris"}


def test_a_refused_connection_says_the_connection_failed() -> None:
    with socket.socket() as free:  # a port nothing listens on once closed
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    client = mrtr.McpClient(f"http://127.0.0.1:{port}/mcp", capabilities={})
    with pytest.raises(mrtr.TransportError) as failed:
        asyncio.run(client.call_tool("weather"))
    assert failed.value.rule is mrtr.Rule.HTTP_STATUS_UNEXPECTED
    assert "the connection failed or was closed" in failed.value.message, failed.value.message


def test_mcp_client_error_response_and_unanswerable_question(serve: Callable[[Reply], Server]) -> None:
    def reply(message: Json) -> Tuple[int, Any]:
        if message["params"]["name"] == "broken":
            error = {"code": -32602, "message": "no such tool", "data": {"name": "broken"}}
            return 200, {"jsonrpc": "2.0", "id": message["id"], "error": error}
        return weather(message)

    server = serve(reply)
    client = mrtr.McpClient(server.url, capabilities={"elicitation": {}})
    with pytest.raises(mrtr.ResponseError) as refused:
        asyncio.run(client.call_tool("broken"))
    assert (refused.value.code, refused.value.data) == (-32602, {"name": "broken"})
    with pytest.raises(mrtr.UsageError, match="no on_input"):
        asyncio.run(client.call_tool("weather"))
    assert [s["message"]["id"] for s in server.seen] == [1, 2]


def test_session_without_a_transport_and_its_misuse() -> None:
    legacy = mrtr.Session(protocol="2025-11-25", capabilities={"elicitation": {}})
    assert legacy.read_resource("notes://today") == {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "notes://today"}}
    s = mrtr.Session()
    assert s.protocol == "2026-07-28"
    assert s.get_prompt("p", {"a": "b"})["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == "2026-07-28"
    with pytest.raises(mrtr.UsageError):
        mrtr.Session(capabilities=[])
    with pytest.raises(mrtr.UsageError):
        s.request("tools/call", {"_meta": {"io.modelcontextprotocol/protocolVersion": "x"}})


def test_an_operation_is_carried_across_a_restart(serve: Callable[[Reply], Server]) -> None:
    server = serve(weather)
    first = mrtr.Operation(call(), 0, mode="2026-07-28", url=server.url)
    carried: List[str] = []

    class Stop(Exception):
        pass

    def stop_here(question: Json, key: str) -> Json:
        carried.append(json.dumps(first.snapshot(0)))
        raise Stop

    with pytest.raises(Stop):
        asyncio.run(mrtr.run_operation(first, on_input=stop_here))
    again = mrtr.Operation.restore(carried[0], 1000, mode="2026-07-28", url=server.url)
    response = asyncio.run(mrtr.run_operation(again, on_input=lambda q, k: {"action": "accept", "content": {"units": "F"}}))
    assert response["result"]["content"][0]["text"] == "21 F"
    assert [s["message"]["id"] for s in server.seen] == [7, "7.1", "7.2"]
    with pytest.raises(mrtr.UsageError):
        again.snapshot(2000)
    with pytest.raises(mrtr.UsageError):
        mrtr.Operation.restore(carried[0], 0, mode="sep-1858", url=server.url)


def test_mcp_client_in_2025_initializes_then_sends_the_session_id() -> None:
    seen: List[Json] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            message = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append({"method": message.get("method"), "version": self.headers.get("Mcp-Protocol-Version"), "session": self.headers.get("Mcp-Session-Id")})
            if message.get("method") == "notifications/initialized":
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if message["method"] == "initialize":
                result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "legacy", "version": "1"}}
            else:
                result = {"content": [{"type": "text", "text": f"hello {message['params']['arguments']['who']}"}], "isError": False}
            data = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if message["method"] == "initialize":
                self.send_header("Mcp-Session-Id", "s-42")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    try:
        client = mrtr.McpClient(f"http://127.0.0.1:{http.server_address[1]}/mcp", mode="2025-11-25", capabilities={"elicitation": {}})

        async def main() -> Tuple[Json, Json]:
            return await client.call_tool("greet", {"who": "Ada"}), await client.call_tool("greet", {"who": "Bob"})

        ada, bob = asyncio.run(main())
    finally:
        http.shutdown()
        http.server_close()
        thread.join(timeout=5)
    assert (ada["content"][0]["text"], bob["content"][0]["text"]) == ("hello Ada", "hello Bob")
    assert [s["method"] for s in seen] == ["initialize", "notifications/initialized", "tools/call", "tools/call"]
    assert seen[0]["session"] is None
    assert all((s["version"], s["session"]) == ("2025-11-25", "s-42") for s in seen[1:])


def test_mcp_client_lists_every_page(serve: Callable[[Reply], Server]) -> None:
    def pages(message: Json) -> Tuple[int, Any]:
        page: Json = {"tools": [{"name": "c"}]} if message["params"].get("cursor") == "p2" else {"tools": [{"name": "a"}, {"name": "b"}], "nextCursor": "p2"}
        return 200, {"jsonrpc": "2.0", "id": message["id"], "result": {**page, "resultType": "complete"}}

    server = serve(pages)
    tools = asyncio.run(mrtr.McpClient(server.url, capabilities={}).list_tools())
    assert [tool["name"] for tool in tools] == ["a", "b", "c"]
    assert [(s["message"]["id"], s["message"]["params"].get("cursor")) for s in server.seen] == [(1, None), (2, "p2")]


def test_mcp_client_hedges_a_first_call_only_of_a_tool_the_server_calls_read_only(
    serve: Callable[[Reply], Server],
) -> None:
    # Issue 43: a tool's first request is hedged only when it is harmless twice; the server's
    # tools/list annotations say so of its own tools, and the client's session remembers them.
    ran: List[str] = []

    def server(message: Json) -> Tuple[int, Any]:
        if message["method"] == "tools/list":
            tools = [{"name": "weather", "annotations": {"readOnlyHint": True}}, {"name": "pay"}]
            return 200, {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": tools, "resultType": "complete"}}
        name = message["params"]["name"]
        ran.append(name)
        time.sleep(0.3)  # slow: a copy goes after hedge_after_ms where the request may run twice
        result = {"resultType": "complete", "content": [{"type": "text", "text": name}]}
        return 200, {"jsonrpc": "2.0", "id": message["id"], "result": result}

    served = serve(server)
    client = mrtr.McpClient(served.url, capabilities={}, hedge_after_ms=100)

    async def main() -> None:
        await client.list_tools()
        await client.call_tool("pay", {"to": "bob"})
        await client.call_tool("weather", {"city": "Oslo"})

    asyncio.run(main())
    assert ran.count("pay") == 1, ran
    assert ran.count("weather") >= 2, f"the read-only tool's first request was hedged: {ran}"
