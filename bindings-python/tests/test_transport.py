"""The transports over HTTP from Python: the event-stream decoder and encoder, ``HttpCall`` driven against a
server made of ``ServerStream`` and ``read_http_request`` (SEP-1858 and SEP-1335, no sockets: the two machines
hand each other what an HTTP stack would), the conversation they had checked as HTTP entries, and bad input."""

from __future__ import annotations

import copy
import json
from typing import Any, Callable, Dict, List, Tuple

import pytest

import mrtr
from mrtr import Rule

URL = "https://example.com/mcp"
CALL: Dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "deploy", "arguments": {"env": "staging"}}}
ASK: List[Dict[str, Any]] = [
    {
        "jsonrpc": "2.0",
        "id": "e1",
        "method": "elicitation/create",
        "params": {
            "message": "Which environment?",
            "requestedSchema": {"type": "object", "properties": {"env": {"type": "string"}}},
        },
    },
    {"jsonrpc": "2.0", "id": "r1", "method": "roots/list"},
]
DONE: Dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "deployed to prod"}]}}
RETRY_MS = 1500


def raised(f: Callable[[], Any]) -> mrtr.MrtrError:
    with pytest.raises(mrtr.MrtrError) as e:
        f()
    return e.value


def answer_to(request: Dict[str, Any]) -> Dict[str, Any]:
    """What the host's user answers to a server request."""
    if request["method"] == "roots/list":
        return {"jsonrpc": "2.0", "id": request["id"], "result": {"roots": [{"uri": "file:///srv"}]}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept", "content": {"env": "prod"}}}


# --- the event-stream decoder and encoder --------------------------------------------------------------------


def test_the_decoder_reads_blocks_split_anywhere() -> None:
    stream = b'\xef\xbb\xbfid: k.0\nretry: 1500\n\n: a comment\nevent: buffer_input\nid: k.1\n\ndata: {"a":\r\ndata: 1}\r\n\r\n'
    for cut in range(len(stream) + 1):
        decoder = mrtr.SseDecoder()
        decoder.feed(stream[:cut])
        decoder.feed(bytearray(stream[cut:]))
        decoder.feed(b"data: never ended\n")
        decoder.finish()
        assert list(decoder) == [
            {"id": "k.0", "retry": 1500},
            {"event": "buffer_input", "id": "k.1"},
            {"data": '{"a":\n1}'},
        ], cut
        assert decoder.poll_event() is None


def test_encoded_blocks_decode_to_themselves() -> None:
    blocks: List[Dict[str, Any]] = [
        {"event": "input_required", "id": "k.3"},
        {"data": 'line one\nline two {"x": "é"}', "id": "k.4"},
        {"retry": 0},
        {"data": ""},
    ]
    decoder = mrtr.SseDecoder()
    for block in blocks:
        text = mrtr.sse_encode(block)
        assert text.endswith("\n\n")
        decoder.feed(text.encode())
    assert mrtr.sse_encode(json.dumps(blocks[0])) == mrtr.sse_encode(blocks[0])  # JSON text, as given
    decoder.finish()
    assert list(decoder) == blocks


def test_a_non_utf8_line_is_raised_in_its_place_and_the_decoder_goes_on() -> None:
    decoder = mrtr.SseDecoder()
    decoder.feed(b"data: first\n\ndata: caf\xe9\n\n")
    decoder.feed("data: lone \ud800\n\n")  # a str with a lone surrogate: its ill-formed UTF-8, refused alike
    decoder.feed(b"data: last\n\n")
    decoder.finish()
    assert decoder.poll_event() == {"data": "first"}
    for _ in range(2):
        e = raised(decoder.poll_event)
        assert isinstance(e, mrtr.ProtocolError) and e.rule is Rule.JSONRPC_PARSE_ERROR
    assert decoder.poll_event() == {"data": "last"}
    assert decoder.poll_event() is None


def test_iteration_stops_with_the_error_of_an_unreadable_block() -> None:
    decoder = mrtr.SseDecoder(limits=mrtr.Limits(max_message_bytes=64))
    decoder.feed(b"data: short\n\ndata: " + b"x" * 1000 + b"\n\ndata: after\n\n")
    got = []
    with pytest.raises(mrtr.MrtrError) as e:
        for block in decoder:
            got.append(block)
    assert got == [{"data": "short"}] and e.value.rule is Rule.LIMIT_EXCEEDED
    assert list(decoder) == [{"data": "after"}]


def test_encoding_refuses_what_is_no_block() -> None:
    for event, match in [
        ({"retry": -1}, "retry"),
        ({"data": "x", "comment": "y"}, "comment"),
        ({"id": 3}, "id"),
        ([], "object"),
    ]:
        e = raised(lambda: mrtr.sse_encode(event))  # type: ignore[arg-type]
        assert isinstance(e, mrtr.UsageError) and e.rule is Rule.USAGE_INVALID_ARGUMENT, event
        assert match in e.message
    assert raised(lambda: mrtr.SseDecoder().feed(42)).rule is Rule.USAGE_INVALID_ARGUMENT  # type: ignore[arg-type]


# --- two machines: HttpCall against ServerStream and read_http_request ---------------------------------------


class Server:
    """A server of one tool over a transport mode, as a host would write it with mrtr: ``read_http_request``
    says what each request asks, ``ServerStream`` writes each response, and the continuation lives in a
    store under its key (here a dict; behind a load balancer, a shared one). It records every exchange as
    the HTTP entries of a transcript."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.store: Dict[str, Dict[str, Any]] = {}
        self.transcript: List[Dict[str, Any]] = []

    def record(self, at: int, request: Dict[str, Any]) -> None:
        http = {k: request[k] for k in ("method", "url", "headers", "body") if k in request}
        self.transcript.append({"from": "client", "at": at, "http": {"exchange": str(request["exchange"]), **http}})

    def respond(self, at: int, exchange: int, status: int, headers: Dict[str, str], stream: str) -> None:
        decoder = mrtr.SseDecoder()
        decoder.feed(stream.encode())
        decoder.finish()
        events = [{**b, "data": json.loads(b["data"])} if "data" in b else b for b in decoder]
        http = {"exchange": str(exchange), "status": status, "headers": headers, "events": events, "end": True}
        self.transcript.append({"from": "server", "at": at, "http": http})

    def handle(self, request: Dict[str, Any], at: int) -> Dict[str, Any]:
        """The response to one request: ``{"status", "headers", "body"}``."""
        self.record(at, request)
        body = json.dumps(request["body"]).encode() if "body" in request else None
        incoming = mrtr.read_http_request(
            self.mode, request["method"], request["url"], request["headers"], body, protocol="2025-11-25"
        )
        if incoming["type"] == "call":
            key = f"call-{len(self.store) + 1}"
            self.store[key] = {"asked": [r["id"] for r in ASK], "next": 0}
            return self.stream(key, at, exchange=request["exchange"], ask=True)
        if incoming["type"] == "resume":
            # SEP-1335: the server still waits for the answers.
            assert incoming["key"] in self.store and self.mode == "sep-1335"
            self.respond(at, request["exchange"], 204, {}, "")
            return {"status": 204, "headers": {}, "body": b""}
        assert incoming["type"] == "answers", incoming
        state = self.store[incoming["key"]]
        assert sorted(r["id"] for r in incoming["responses"]) == sorted(state["asked"])
        return self.stream(incoming["key"], at, exchange=request["exchange"], ask=False)

    def stream(self, key: str, at: int, *, exchange: int, ask: bool) -> Dict[str, Any]:
        state = self.store[key]
        stream = mrtr.ServerStream(self.mode, key, state["next"])
        head = stream.head(mrtr.stream_url(URL, key))
        if ask:
            last = stream.ask(ASK, RETRY_MS)
        else:
            last = stream.message(DONE)
        state["next"] = int(last.rsplit(".", 1)[1]) + 1
        text = stream.take()
        self.respond(at, exchange, 200, head, text)
        return {"status": 200, "headers": head, "body": text.encode()}


def converse(mode: str, chunk: int = 7) -> Tuple[Server, List[Dict[str, Any]]]:
    """Drives an ``HttpCall`` against a ``Server`` until the call is done; the server and every event."""
    server, now = Server(mode), 0
    call = mrtr.HttpCall(CALL, now, mode=mode, url=URL, headers={"Mcp-Session-Id": "s-1"})
    events: List[Dict[str, Any]] = []
    for _ in range(50):
        sent = call.drain_transmits()
        for request in sent:
            response = server.handle(request, now)
            exchange, body = request["exchange"], response["body"]
            call.handle_head(exchange, response["status"], response["headers"], now)
            for i in range(0, len(body), chunk):  # the body as it arrives, split anywhere
                call.handle_body(exchange, body[i : i + chunk], now)
            call.handle_end(exchange, now)
        new = call.drain_events()
        events += new
        for event in new:
            if event["type"] == "serverRequest":
                call.answer(answer_to(event["message"]), now)
        if call.done:
            return server, events
        if not sent and not new:
            wake = call.poll_timeout()
            assert wake is not None and wake >= now, "the call waits for nothing"
            now = wake
            call.handle_timeout(now)
    raise AssertionError("the call never ended")


@pytest.mark.parametrize("mode", ["sep-1858", "sep-1335"])
def test_a_call_completes_against_a_server_of_its_mode(mode: str) -> None:
    server, events = converse(mode)
    asked = [e["message"] for e in events if e["type"] == "serverRequest"]
    assert asked == ASK
    assert events[-1] == {"type": "response", "message": DONE}
    assert not [e for e in events if e["type"] in ("violation", "failed")]
    methods = [(e["http"]["method"], e["http"]["url"]) for e in server.transcript if e["from"] == "client"]
    if mode == "sep-1858":
        # The POST, then the answers in one POST with Last-Event-ID naming the input_required event.
        assert methods == [("POST", URL), ("POST", URL)]
        buffered = server.transcript[2]["http"]
        assert buffered["headers"]["last-event-id"] == "call-1.3"
        assert [r["id"] for r in buffered["body"]] == ["e1", "r1"]
    else:
        # The POST; after `retry`, a GET to the rel="stream" URL (204: answers owed); the answers POSTed there.
        stream = mrtr.stream_url(URL, "call-1")
        assert methods == [("POST", URL), ("GET", stream), ("POST", stream)]
        assert server.transcript[2]["at"] == RETRY_MS
        assert [r["id"] for r in server.transcript[4]["http"]["body"]] == ["e1", "r1"]


@pytest.mark.parametrize("mode", ["sep-1858", "sep-1335"])
def test_the_recorded_conversation_checks_clean_and_each_break_is_found(mode: str) -> None:
    server, _ = converse(mode)
    transcript = server.transcript
    assert mrtr.check(transcript, protocol="2025-11-25", transport=mode) == []
    # As JSON Lines too, and entry by entry.
    jsonl = "".join(json.dumps(e) + "\n" for e in transcript)
    assert mrtr.check(jsonl.encode(), protocol="2025-11-25", transport=mode) == []
    checker = mrtr.Checker(protocol="2025-11-25", transport=mode)
    for entry in transcript:
        checker.handle(entry)
    assert checker.violations() == []

    broken = copy.deepcopy(transcript)
    if mode == "sep-1858":
        del broken[2]["http"]["headers"]["last-event-id"]  # the buffered answers without Last-Event-ID
        rule = Rule.SSE_LAST_EVENT_ID_MISSING
    else:
        broken[2]["at"] = RETRY_MS - 1  # the reconnect before the retry the server asked for
        rule = Rule.SSE_RETRY_IGNORED
    found = mrtr.check(broken, protocol="2025-11-25", transport=mode)
    assert [(v.rule, v.index) for v in found] == [(rule, 2)]
    assert isinstance(found[0], mrtr.Violation) and found[0].message
    checker = mrtr.Checker(protocol="2025-11-25", transport=mode)
    for entry in broken:
        checker.handle(json.dumps(entry))  # entries as JSON text
    assert [(v["rule"], v["index"]) for v in checker.violations()] == [(rule.value, 2)]
    # The transport's rules are the transport's: plain Streamable HTTP does not have them.
    assert mrtr.check(broken, protocol="2025-11-25") == []


def test_a_sep_1858_answer_not_buffered_is_a_violation() -> None:
    server, _ = converse("sep-1858")
    t = copy.deepcopy(server.transcript[:2])
    # The client answers e1 on its own, as a single object, after buffer_input.
    single = {"exchange": "2", "method": "POST", "url": URL, "headers": {}, "body": answer_to(ASK[0])}
    t.append({"from": "client", "at": 0, "http": single})
    found = mrtr.check(t, protocol="2025-11-25", transport="sep-1858")
    assert [(v.rule, v.index) for v in found] == [(Rule.SSE_RESPONSE_NOT_BUFFERED, 2)]


def test_the_server_side_reads_each_request_as_its_mode_says() -> None:
    headers = {"Last-Event-ID": "k9.4", "Content-Type": "application/json"}
    answers = json.dumps([answer_to(ASK[0])]).encode()
    got = mrtr.read_http_request("sep-1858", "POST", URL, headers, answers)
    assert got == {"type": "answers", "key": "k9", "responses": [answer_to(ASK[0])]}
    got = mrtr.read_http_request("sep-1335", "POST", mrtr.stream_url(URL, "k9"), {}, answers)
    assert got["type"] == "answers" and got["key"] == "k9"
    got = mrtr.read_http_request("sep-1335", "GET", mrtr.stream_url(URL, "k9"), {"last-event-id": "k9.2"})
    assert got == {"type": "resume", "key": "k9", "lastEventId": "k9.2"}
    assert mrtr.read_http_request("2026-07-28", "POST", URL, None, CALL) == {"type": "call", "message": CALL}
    batch = json.dumps([CALL, CALL]).encode()
    assert raised(lambda: mrtr.read_http_request("2025-11-25", "POST", URL, {}, batch)).rule is Rule.JSONRPC_INVALID
    # The head: a SEP-1335 stream names its URL, other modes do not.
    link = mrtr.ServerStream("sep-1335", "k9", 0).head(mrtr.stream_url(URL, "k9"))
    assert link["link"] == f'<{URL}?stream=k9>; rel="stream"' and link["content-type"] == "text/event-stream"
    assert "link" not in mrtr.ServerStream("sep-1858", "k9", 0).head(mrtr.stream_url(URL, "k9"))


def test_the_header_fields_that_mirror_a_request() -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    call = {**CALL, "params": {**CALL["params"], "_meta": meta}}
    assert mrtr.mirrored_fields(call) == {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "deploy"}
    assert mrtr.mirrored_fields({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) == {"mcp-method": "tools/list"}
    assert raised(lambda: mrtr.mirrored_fields(b"{")).rule is Rule.JSONRPC_PARSE_ERROR


def test_a_server_request_outside_any_call_is_refused() -> None:
    reply = mrtr.unassociated_reply(ASK[0])
    assert reply is not None and reply["id"] == "e1" and reply["error"]["code"] == -32602
    assert mrtr.unassociated_reply({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}) is None


def test_a_2026_server_request_on_the_stream_is_a_violation_answered_for_the_host() -> None:
    call = mrtr.HttpCall(CALL, 0, {"mode": "2026-07-28", "url": URL})
    [post] = call.drain_transmits()
    assert post["headers"]["accept"] == "application/json, text/event-stream" and post["body"] == CALL
    call.handle_head(1, 200, {"Content-Type": "text/event-stream"}, 0)
    call.handle_body(1, mrtr.sse_encode({"data": json.dumps(ASK[0])}), 0)
    [refusal] = call.drain_transmits()
    assert refusal["body"]["id"] == "e1" and refusal["body"]["error"]["code"] == -32602
    assert [(e["type"], e["rule"]) for e in call.drain_events()] == [("violation", "server-request-on-stream")]
    call.handle_body(1, b"data: " + json.dumps(DONE).encode() + b"\n\n", 0)
    assert call.drain_events() == [{"type": "response", "message": DONE}] and call.done


# --- bad input ------------------------------------------------------------------------------------------------


def fresh(mode: str = "sep-1335", **config: Any) -> mrtr.HttpCall:
    call = mrtr.HttpCall(CALL, 0, mode=mode, url=URL, **config)
    call.drain_transmits()
    return call


def test_a_huge_link_header_fails_the_call_within_its_bound() -> None:
    link = f"<{URL}?stream={'a' * (1 << 20)}>; rel=\"stream\""
    call = fresh()
    call.handle_head(1, 200, {"content-type": "text/event-stream", "link": link}, 0)
    events = call.drain_events()
    assert [(e["type"], e["rule"]) for e in events] == [("failed", "limit-exceeded")] and call.done
    assert call.drain_transmits() == [] and call.poll_timeout() is None
    # The bound is the configuration's: a link within it is followed.
    small = f'<{URL}?stream=k>; rel="stream"'
    call = fresh(max_link_bytes=len(small))
    call.handle_head(1, 200, {"content-type": "text/event-stream", "link": small}, 0)
    assert call.drain_events() == [] and not call.done
    call = fresh(max_link_bytes=len(small) - 1)
    call.handle_head(1, 200, {"content-type": "text/event-stream", "link": small}, 0)
    assert [e["rule"] for e in call.drain_events()] == ["limit-exceeded"]


def test_a_non_utf8_body_chunk_fails_the_call_with_its_rule() -> None:
    call = fresh("sep-1858")
    call.handle_head(1, 200, {"content-type": "text/event-stream"}, 0)
    call.handle_body(1, b'data: {"jsonrpc":"2.0","method":"a\xff"}\n\n', 0)
    assert [(e["type"], e["rule"]) for e in call.drain_events()] == [("failed", "jsonrpc-parse-error")]
    assert call.done


def test_a_server_request_as_deep_as_the_limits_allow_reaches_python() -> None:
    deep = "[" * 125 + "]" * 125
    message = '{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"x":%s}}' % deep
    call = fresh("2025-11-25")
    call.handle_head(1, 200, {"content-type": "text/event-stream"}, 0)
    call.handle_body(1, f"data: {message}\n\n", 0)
    [event] = call.drain_events()
    assert event["type"] == "serverRequest" and event["message"] == json.loads(message)


def test_the_machine_refuses_inputs_out_of_turn_with_their_rules() -> None:
    call = fresh("sep-1858")
    cases: List[Tuple[Callable[[], Any], Rule]] = [
        (lambda: call.handle_body(1, b"data: x\n\n", 0), Rule.USAGE_OUT_OF_TURN),  # a body before its head
        (lambda: call.handle_head(9, 200, {}, 0), Rule.USAGE_UNKNOWN_HANDLE),
        (lambda: call.answer(answer_to(ASK[0]), 0), Rule.USAGE_OUT_OF_TURN),  # nothing asked
        (lambda: call.handle_head(1, 200, {"content-type": 1}, 0), Rule.USAGE_INVALID_ARGUMENT),  # type: ignore[dict-item]
        (lambda: call.handle_head(1, 70_000, {}, 0), Rule.USAGE_INVALID_ARGUMENT),
        (lambda: call.handle_head(1, 200, {}, -1), Rule.USAGE_INVALID_ARGUMENT),
        (lambda: call.handle_head("1", 200, {}, 0), Rule.USAGE_INVALID_ARGUMENT),  # type: ignore[arg-type]
        (lambda: call.handle_body(1, object(), 0), Rule.USAGE_INVALID_ARGUMENT),  # type: ignore[arg-type]
        (lambda: call.answer(b'{"jsonrpc":"2.0","id":"e1","result":"\xff"}', 0), Rule.USAGE_INVALID_ARGUMENT),
    ]
    for f, rule in cases:
        e = raised(f)
        assert e.rule is rule and isinstance(e, mrtr.UsageError), (rule, e)
    # The machine is still usable: the head of exchange 1 goes in.
    call.handle_head(1, 200, {"content-type": "application/json"}, 0)
    call.handle_body(1, json.dumps(DONE), 0)
    call.handle_end(1, 0)
    assert call.drain_events() == [{"type": "response", "message": DONE}] and call.done


def test_bad_configurations_and_arguments_are_usage_errors() -> None:
    misuses: List[Callable[[], Any]] = [
        lambda: mrtr.HttpCall(CALL, 0, mode="sep-1858"),  # no url
        lambda: mrtr.HttpCall(CALL, 0, url=URL),  # no mode
        lambda: mrtr.HttpCall(CALL, 0, mode="sep-9", url=URL),
        lambda: mrtr.HttpCall(CALL, 0, {"mode": "sep-1858", "url": URL, "maxLinkz": 1}),
        lambda: mrtr.HttpCall(CALL, 0, [], mode="sep-1858", url=URL),  # type: ignore[arg-type]
        lambda: mrtr.HttpCall(CALL, 0, mode="sep-1858", url="not a url"),
        lambda: mrtr.HttpCall(CALL, 0, mode="sep-1858", url="\ud800"),
        lambda: mrtr.HttpCall(CALL, 0, mode="sep-1858", url=URL, max_events=-1),
        lambda: mrtr.HttpCall(CALL, 0, mode="sep-1858", url=URL, headers={"x": b"bytes"}),  # type: ignore[dict-item]
        lambda: mrtr.HttpCall(b'{"jsonrpc":"2.0","id":1,"method":"\xff"}', 0, mode="sep-1858", url=URL),
        lambda: mrtr.ServerStream("sep-1858", "two\nlines", 0),
        lambda: mrtr.ServerStream("sep-1858", "\ud800", 0),
        lambda: mrtr.ServerStream("2026-07-28", "k", 0).ask(ASK, 0),
        lambda: mrtr.ServerStream("sep-1858", "k", 0).ask({"not": "a list"}, 0),  # type: ignore[arg-type]
        lambda: mrtr.stream_url("no url", "k"),
        lambda: mrtr.check([], transport="sep-9"),
        lambda: mrtr.Checker(transport=1858),  # type: ignore[arg-type]
    ]
    for i, f in enumerate(misuses):
        e = raised(f)
        assert isinstance(e, mrtr.UsageError) and e.rule is Rule.USAGE_INVALID_ARGUMENT, (i, e)
    # Keywords are set over a configuration dict; the dict alone is enough.
    call = mrtr.HttpCall(CALL, 5, {"mode": "sep-1858", "url": "https://old.example/mcp"}, url=URL)
    assert call.poll_transmit()["url"] == URL  # type: ignore[index]
    # Nothing follows input_required on a SEP-1858 stream.
    stream = mrtr.ServerStream("sep-1858", "k", 0)
    stream.ask(ASK, 0)
    assert raised(lambda: stream.message(DONE)).rule is Rule.USAGE_OUT_OF_TURN


def test_non_utf8_request_bodies_are_parse_errors() -> None:
    e = raised(lambda: mrtr.read_http_request("sep-1858", "POST", URL, {}, b'[{"jsonrpc":"2.0","id":"\xff"}]'))
    assert isinstance(e, mrtr.ProtocolError) and e.rule is Rule.JSONRPC_PARSE_ERROR
    over = mrtr.Limits(max_message_bytes=16)
    assert raised(lambda: mrtr.read_http_request("sep-1858", "POST", URL, {}, json.dumps(CALL), limits=over)).rule is (
        Rule.LIMIT_EXCEEDED
    )
    assert raised(lambda: mrtr.unassociated_reply(b"{\xff}")).rule is Rule.JSONRPC_PARSE_ERROR


def test_the_machines_stay_in_python_memory_management() -> None:
    import gc
    import weakref

    objects: List[Any] = [mrtr.SseDecoder(), fresh(), mrtr.ServerStream("sep-1335", "k", 0)]
    refs = [weakref.ref(o) for o in objects]
    del objects
    gc.collect()
    assert [r() for r in refs] == [None, None, None]
