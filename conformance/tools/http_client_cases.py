#!/usr/bin/env python3
"""Writes conformance/cases/http-client/: cases of the `http-client` op.

The op (conformance/README.md, "`http-client`") drives the client machine of
one JSON-RPC call over HTTP: the runner creates the machine from `config`,
`request` and `now`, feeds it the `steps` (a response head, body chunks, the
end of a response, the host's answer to a server request, a timeout) and after
the creation and after each step lists what it drains, in this order: every
HTTP request to send (`{"send": REQUEST}`), every event (`{"event": EVENT}`),
then `{"timeout": ms}` when a timeout is pending. A step the API refuses gives
`[{"error": "<rule id>"}]` instead.

The expectations are written by hand below, independently of mrtr's code, from:
  - 000 SEP-1858 "Specification" (buffer_input / input_required, the buffered
    POST as a JSON array with Last-Event-ID) and its two sequence diagrams;
  - 003 SEP-1335 (the rel="stream" URL, same origin, `retry`, 204 No Content,
    the buffered POST to the stream URL, the client algorithm);
  - 004 SEP-2260 (server requests are associated with the client request on
    whose stream they come; unassociated ones are answered -32602);
  - the documented choices of mrtr (doc comments of core/src/machines/http/call.rs,
    core/src/machines/http/mod.rs `StreamLimits`, core/src/surface/wire.rs, docs/RULES.md rows
    `sse-stream-ended` and `http-status-unexpected`), cited as `mrtr call.rs`.

Readings this script takes where those texts leave a detail open (the lead
reconciles them with the implementation):
  - a response that is not an event stream (JSON, 202, 204, an error status)
    is judged when it ends (the `end` step), not at its head: the machine
    keeps "the bytes of any other response" (call.rs) and a JSON response
    "ended: it must be the call's response";
  - the -32602 answer to a server request under `2026-07-28` is
    {"code": -32602, "message": "Invalid params"} (the JSON-RPC 2.0 name);
  - a GET has no `body` key; the SEP-1335 buffered POST carries no
    Last-Event-ID (only SEP-1858's does);
  - answers in one buffered POST are in the order the server asked (the cases
    always answer in that order too, so either reading gives the same array);
  - `violation` and `failed` events are written without `message` (the judge
    ignores that prose);
  - under `2026-07-28` the machine sends the header fields that mirror the
    request's body (SEP-2243 as the `2026-07-28` transports word it):
    `mcp-protocol-version` on every request of the call, `mcp-method` and
    `mcp-name` on the request's own POST.

The script checks each case's outputs for internal consistency (exchanges
numbered 1, 2, … in send order; sends before events before the timeout; every
request carries the config's headers; a `timeout` step's value is the pending
timeout; nothing but usage errors after the call's last event) and writes
nothing when one fails.

Run from the repository root: python3 conformance/tools/http_client_cases.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "cases" / "http-client"

S1858 = '000 SEP-1858 "Specification"'
S1858_PROBLEM = '000 SEP-1858 "Motivation" (the problem diagram)'
S1335_URL = '003 SEP-1335 "rel=\\"stream\\" URL"'
S1335_RETRY = '003 SEP-1335 "Allow server to disconnect at will"'
S1335_MULTI = '003 SEP-1335 "Multi-turn requests for server-to-client requests"'
S2260 = '004 SEP-2260 "For Client Implementers"'
MRTR = "mrtr call.rs"

URL = "https://example.com/mcp"
STREAM_ABC = "https://example.com/mcp?stream=abc"
LINK_ABC = '</mcp?stream=abc>; rel="stream"'

ACCEPT_POST = "application/json, text/event-stream"
SSE = {"content-type": "text/event-stream"}
JSON_CT = {"content-type": "application/json"}

HEADERS_26 = {"authorization": "Bearer t0k"}
HEADERS_25 = {"mcp-protocol-version": "2025-11-25", "mcp-session-id": "s-1"}

# ---------------------------------------------------------------- messages


def j(value) -> str:
    """JSON text as a server writes it (one line)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


REQ26 = {
    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
    "params": {
        "name": "deploy", "arguments": {"env": "staging"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        },
    },
}
RESULT26 = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "content": [{"type": "text", "text": "deployed"}]}}
INPUT_REQUIRED26 = {
    "jsonrpc": "2.0", "id": 1,
    "result": {
        "resultType": "input_required",
        "inputRequests": {"env": {"method": "elicitation/create", "params": {
            "message": "Which environment?",
            "requestedSchema": {"type": "object", "properties": {"env": {"type": "string"}}, "required": ["env"]}}}},
        "requestState": "st-1",
    },
}
ERROR26 = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: deploy"}}
FOREIGN26 = {"jsonrpc": "2.0", "id": 99, "result": {"resultType": "complete"}}

REQ25 = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "deploy", "arguments": {"env": "staging"}}}
RESULT25 = {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "deployed to prod"}]}}

PROGRESS = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t1", "progress": 1, "total": 2}}
PING = {"jsonrpc": "2.0", "id": "p1", "method": "ping"}
PONG = {"jsonrpc": "2.0", "id": "p1", "result": {}}


def elicit(rid) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "method": "elicitation/create", "params": {
        "message": "Which environment?",
        "requestedSchema": {"type": "object", "properties": {"env": {"type": "string"}}, "required": ["env"]}}}


def elicit_answer(rid) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "result": {"action": "accept", "content": {"env": "prod"}}}


def sample(rid) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Summarise the diff"}}], "maxTokens": 200}}


def sample_answer(rid) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "result": {
        "role": "assistant", "content": {"type": "text", "text": "Two files changed."}, "model": "m-1"}}


def invalid_params(rid) -> dict:
    """The -32602 answer to a server request that may not come on a stream (open point: the message text)."""
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "Invalid params"}}


# ---------------------------------------------------------------- event streams


def sse(*blocks: dict) -> str:
    """Event-stream text of blocks {"event", "id", "retry", "data"} (data: a JSON value, written as one line)."""
    out = []
    for block in blocks:
        for field in ("event", "id", "retry"):
            if field in block:
                out.append(f"{field}: {block[field]}\n")
        if "data" in block:
            out.append(f"data: {j(block['data'])}\n")
        out.append("\n")
    return "".join(out)


def links(n: int, stream: str | None = None) -> str:
    """One Link field value with n link-values; the last is `stream` (rel="stream") when given."""
    values = [f'</doc/{i}>; rel="alternate"' for i in range(n - (1 if stream else 0))]
    if stream:
        values.append(f'<{stream}>; rel="stream"')
    return ", ".join(values)


def padded_link(total: int) -> str:
    """A Link field value of exactly `total` bytes: the rel="stream" link, then one padded link."""
    head = f'{LINK_ABC}, </pad?x='
    tail = '>; rel="alternate"'
    fill = total - len(head) - len(tail)
    assert fill > 0
    value = head + "a" * fill + tail
    assert len(value.encode()) == total
    return value


# ---------------------------------------------------------------- steps and outputs


def at(step: dict, time: int | None) -> dict:
    if time is not None:
        step["at"] = time
    return step


def head(ex: int, status: int, headers: dict, time: int | None = None) -> dict:
    return at({"head": {"exchange": ex, "status": status, "headers": headers}}, time)


def body(ex: int, text: str, time: int | None = None) -> dict:
    return at({"body": {"exchange": ex, "text": text}}, time)


def end(ex: int, time: int | None = None) -> dict:
    return at({"end": {"exchange": ex}}, time)


def answer(message: dict, time: int | None = None) -> dict:
    return at({"answer": message}, time)


def timeout(ms: int) -> dict:
    return {"timeout": ms}


def response(message: dict) -> dict:
    return {"event": {"type": "response", "message": message}}


def server_request(message: dict) -> dict:
    return {"event": {"type": "serverRequest", "message": message}}


def message(msg: dict) -> dict:
    return {"event": {"type": "message", "message": msg}}


def violation(rule: str) -> dict:
    return {"event": {"type": "violation", "rule": rule}}


def failed(rule: str) -> dict:
    return {"event": {"type": "failed", "rule": rule}}


def pending(ms: int) -> dict:
    return {"timeout": ms}


def error(rule: str) -> list:
    return [{"error": rule}]


class Case:
    """One case: the config, then (step, outputs) pairs in order."""

    def __init__(self, name: str, rules: list[str], description: str, mode: str, request: dict,
                 headers: dict, protocol: str | None = None, now: int | None = None, **config):
        self.name = name
        self.rules = rules
        self.description = description
        self.request = request
        self.headers = headers
        self.config = {"mode": mode, "url": URL, "headers": headers}
        if protocol:
            self.config["protocol"] = protocol
        self.config.update(config)
        self.now = now
        self.steps: list[dict] = []
        self.outputs: list[list] = [[self.post(1, request)]]

    # requests the machine sends
    def mirrored(self, carrier: bool) -> dict:
        """2026-07-28 (SEP-2243, as the 2026-07-28 transports word it): every request of the call carries
        MCP-Protocol-Version, the request's own POST also Mcp-Method and Mcp-Name (its target), the values
        of the body; they take the place of any field of that name the host configured."""
        if self.config["mode"] != "2026-07-28":
            return {}
        params = self.request["params"]
        fields = {"mcp-protocol-version": params["_meta"]["io.modelcontextprotocol/protocolVersion"]}
        if carrier:
            fields["mcp-method"] = self.request["method"]
            fields["mcp-name"] = params["name"]
        return fields

    def post(self, ex: int, body_value, url: str = URL, last_event_id: str | None = None) -> dict:
        carrier = isinstance(body_value, dict) and body_value.get("id") == self.request["id"] and "method" in body_value
        headers = {**dict(self.headers), **self.mirrored(carrier)}
        headers["accept"] = ACCEPT_POST
        headers["content-type"] = "application/json"
        if last_event_id is not None:
            headers["last-event-id"] = last_event_id
        return {"send": {"exchange": ex, "method": "POST", "url": url, "headers": headers, "body": body_value}}

    def get(self, ex: int, url: str = URL, last_event_id: str | None = None) -> dict:
        headers = {**dict(self.headers), **self.mirrored(False)}
        headers["accept"] = "text/event-stream"
        if last_event_id is not None:
            headers["last-event-id"] = last_event_id
        return {"send": {"exchange": ex, "method": "GET", "url": url, "headers": headers}}

    def step(self, step: dict, *outputs) -> "Case":
        self.steps.append(step)
        if len(outputs) == 1 and isinstance(outputs[0], list):
            self.outputs.append(outputs[0])
        else:
            self.outputs.append(list(outputs))
        return self

    def json(self) -> dict:
        inp = {"config": self.config, "request": self.request}
        if self.now is not None:
            inp["now"] = self.now
        inp["steps"] = self.steps
        return {
            "id": f"http-client/{self.name}",
            "rules": self.rules,
            "description": self.description,
            "op": "http-client",
            "input": inp,
            "expect": {"outputs": self.outputs},
        }

    def check(self) -> None:
        """Internal consistency of the hand-written outputs."""
        def fail(msg):
            sys.exit(f"http_client_cases: {self.name}: {msg}")

        next_ex = 1
        issued: set[int] = set()
        timer = None
        over = False
        for i, outs in enumerate(self.outputs):
            step = self.steps[i - 1] if i else None
            usage = len(outs) == 1 and "error" in outs[0]
            if step is not None:
                kind = next(k for k in step if k != "at")
                if kind == "timeout" and not usage and step["timeout"] != timer:
                    fail(f"step {i}: timeout {step['timeout']} but the pending one is {timer}")
                if kind in ("head", "body", "end") and step[kind]["exchange"] not in issued:
                    if outs != error("usage-unknown-handle"):
                        fail(f"step {i}: exchange {step[kind]['exchange']} was never sent")
            if usage:
                continue
            if over and outs:
                fail(f"step {i}: outputs after the call is over")
            order = {"send": 0, "event": 1, "timeout": 2}
            ranks = [order[next(iter(o))] for o in outs]
            if ranks != sorted(ranks) or ranks.count(2) > 1:
                fail(f"step {i}: outputs out of drain order")
            timer = None
            for o in outs:
                if "send" in o:
                    s = o["send"]
                    if s["exchange"] != next_ex:
                        fail(f"step {i}: exchange {s['exchange']}, expected {next_ex}")
                    issued.add(next_ex)
                    next_ex += 1
                    for k, v in self.headers.items():
                        if s["headers"].get(k) != v:
                            fail(f"step {i}: config header {k} missing")
                    if (s["method"] == "GET") == ("body" in s):
                        fail(f"step {i}: GET with a body or POST without one")
                elif "event" in o:
                    if o["event"]["type"] in ("response", "failed"):
                        over = True
                else:
                    timer = o["timeout"]
            if over and timer is not None:
                fail(f"step {i}: a timeout after the call is over")


# ---------------------------------------------------------------- the cases

CASES: list[Case] = []


def case(*args, **kwargs) -> Case:
    c = Case(*args, **kwargs)
    CASES.append(c)
    return c


def mode26(name, rules, description, **kw) -> Case:
    return case(name, rules, description, "2026-07-28", REQ26, HEADERS_26, **kw)


def mode25(name, rules, description, mode="2025-11-25", **kw) -> Case:
    return case(name, rules, description, mode, REQ25, HEADERS_25, protocol="2025-11-25", **kw)


# ---- 2026-07-28

c = mode26("json-response", ["http-status-unexpected"],
           f"{MRTR}: every mode POSTs the request with Accept: application/json, text/event-stream (the config's headers "
           "first); a 200 application/json answer is the call's response once it ends.")
c.step(head(1, 200, JSON_CT))
c.step(body(1, j(RESULT26)))
c.step(end(1), response(RESULT26))

c = mode26("sse-notification-then-response", ["server-request-on-stream"],
           f"{MRTR}: on an event stream a notification and a response that is not the call's are passed on as messages; "
           "the call's response (its block split over two chunks) ends the call.")
text = sse({"data": PROGRESS}, {"data": FOREIGN26}, {"data": RESULT26})
cut = text.index('"deployed"')
c.step(head(1, 200, SSE))
c.step(body(1, text[:cut]), message(PROGRESS), message(FOREIGN26))
c.step(body(1, text[cut:]), response(RESULT26))

c = mode26("input-required-result-is-response", ["server-request-on-stream"],
           f"{MRTR}: under 2026-07-28 the server asks for input inside a result: an input_required result on the stream "
           "is the call's response (no violation, nothing sent).")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"id": "1", "data": INPUT_REQUIRED26})), response(INPUT_REQUIRED26))

c = mode26("elicitation-on-stream", ["server-request-on-stream"],
           f"{MRTR}: an elicitation/create request on the POST's stream under 2026-07-28 breaks server-request-on-stream: "
           "reported as a violation and answered -32602 at once (POST, exchange 2); the call goes on (004 \"For Client "
           "Implementers\": -32602).")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"data": elicit("e1")})), c.post(2, invalid_params("e1")), violation("server-request-on-stream"))
c.step(head(2, 202, {}))
c.step(end(2))
c.step(body(1, sse({"data": RESULT26})), response(RESULT26))

c = mode26("ping-on-stream", ["server-request-on-stream"],
           f"{MRTR}: ping is no input request: on the stream it is a server request for the host to answer (no violation); "
           "the host's answer is POSTed on its own (exchange 2, 202 back).")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"data": PING})), server_request(PING))
c.step(answer(PONG), c.post(2, PONG))
c.step(head(2, 202, {}))
c.step(end(2))
c.step(body(1, sse({"data": RESULT26})), response(RESULT26))

c = mode26("stream-cut-without-id", ["sse-stream-ended"],
           f"{MRTR}: a stream that ends before the call's response, with no event id to resume from (and no rel=stream "
           "URL), fails the call with sse-stream-ended.")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"data": PROGRESS})), message(PROGRESS))
c.step(end(1), failed("sse-stream-ended"))

c = mode26("stream-cut-resumed", ["sse-stream-ended"],
           f"{MRTR}: a stream cut after an event with an id is resumed after defaultRetryMs (1000, no retry sent) by a GET "
           "to the endpoint with Accept: text/event-stream and Last-Event-ID; the response comes on the resumed stream.")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"id": "7", "data": PROGRESS})), message(PROGRESS))
c.step(end(1, 2000), pending(3000))
c.step(timeout(3000), c.get(2, URL, "7"))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"id": "8", "data": RESULT26})), response(RESULT26))

c = mode26("status-500-text", ["http-status-unexpected"],
           f"{MRTR} (RULES.md http-status-unexpected): a POST answered 500 text/plain, neither an event stream nor a "
           "JSON-RPC response with the call's id, fails the call when that response ends.")
c.step(head(1, 500, {"content-type": "text/plain"}))
c.step(body(1, "Internal Server Error"))
c.step(end(1), failed("http-status-unexpected"))

c = mode26("status-400-jsonrpc-error", ["http-status-unexpected"],
           f"{MRTR}: a 400 whose JSON body is a JSON-RPC error response with the call's id is the call's response.")
c.step(head(1, 400, JSON_CT))
c.step(body(1, j(ERROR26)))
c.step(end(1), response(ERROR26))

c = mode26("reconnect-refused", ["http-status-unexpected"],
           f"{MRTR} (RULES.md http-status-unexpected): a reconnect GET answered 405 (not an event stream) fails the call.")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"id": "7", "data": PROGRESS})), message(PROGRESS))
c.step(end(1), pending(1000))
c.step(timeout(1000), c.get(2, URL, "7"))
c.step(head(2, 405, {"content-type": "text/plain"}))
c.step(end(2), failed("http-status-unexpected"))

# ---- 2025-11-25

c = mode25("problem-diagram", ["server-request-unassociated", "server-request-on-stream", "http-status-unexpected"],
           f"{S1858_PROBLEM}, client side, and {S2260}: an elicitation request on the POST's stream is associated with the "
           "call and reported; the host's answer is POSTed on its own (exchange 2, 202 Accepted); the tool result comes on "
           "the first stream.")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"id": "1", "data": elicit("e1")})), server_request(elicit("e1")))
c.step(answer(elicit_answer("e1")), c.post(2, elicit_answer("e1")))
c.step(head(2, 202, {}))
c.step(end(2))
c.step(body(1, sse({"id": "2", "data": RESULT25})), response(RESULT25))

c = mode25("answer-post-refused", ["http-status-unexpected"],
           f"{MRTR} (RULES.md http-status-unexpected): the POST of an answer refused with 400 (not 202) fails the call.")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"id": "1", "data": elicit("e1")})), server_request(elicit("e1")))
c.step(answer(elicit_answer("e1")), c.post(2, elicit_answer("e1")))
c.step(head(2, 400, {"content-type": "text/plain"}))
c.step(body(2, "Bad Request"))
c.step(end(2), failed("http-status-unexpected"))

c = mode25("answer-twice", ["usage-out-of-turn"],
           f"{MRTR}: a second answer to a server request already answered is usage-out-of-turn (nothing sent); the call "
           "goes on.")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"data": elicit("e1")})), server_request(elicit("e1")))
c.step(answer(elicit_answer("e1")), c.post(2, elicit_answer("e1")))
c.step(answer(elicit_answer("e1")), error("usage-out-of-turn"))
c.step(head(2, 202, {}))
c.step(end(2))
c.step(body(1, sse({"data": RESULT25})), response(RESULT25))

c = mode25("retry-honoured", ["sse-stream-ended"],
           f"{MRTR}: a stream cut after an event with an id is resumed no sooner than the last retry the server sent "
           "(2500 ms after the cut), by a GET with Last-Event-ID.")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"id": "41", "retry": 2500, "data": PROGRESS})), message(PROGRESS))
c.step(end(1, 10000), pending(12500))
c.step(timeout(12500), c.get(2, URL, "41"))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"id": "42", "data": RESULT25})), response(RESULT25))

c = mode25("answer-never-asked", ["usage-out-of-turn"],
           f"{MRTR}: an answer to a server request id the machine never reported is usage-out-of-turn; the answer to the "
           "real one is POSTed after.")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"data": elicit("e1")})), server_request(elicit("e1")))
c.step(answer(elicit_answer("e2")), error("usage-out-of-turn"))
c.step(answer(elicit_answer("e1")), c.post(2, elicit_answer("e1")))
c.step(head(2, 202, {}))
c.step(end(2))
c.step(body(1, sse({"data": RESULT25})), response(RESULT25))

# ---- sep-1858

R1858 = ["sse-response-not-buffered", "sse-last-event-id-missing", "sse-reconnected-after-input-required"]
BUFFER_ELICIT_INPUT_REQUIRED = sse({"event": "buffer_input", "id": "k.1"}, {"id": "k.2", "data": elicit("e1")},
                                   {"event": "input_required", "id": "k.3"})

c = mode25("sep1858-diagram", R1858,
           f"{S1858} (the second diagram): after buffer_input the elicitation request is reported and its answer kept; on "
           "input_required the machine stops, does not reconnect, and POSTs the answers as a JSON array with "
           "Last-Event-ID: k.3; that POST's event stream carries the result.", mode="sep-1858")
c.step(head(1, 200, SSE))
c.step(body(1, BUFFER_ELICIT_INPUT_REQUIRED), server_request(elicit("e1")))
c.step(end(1))
c.step(answer(elicit_answer("e1")), c.post(2, [elicit_answer("e1")], URL, "k.3"))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"id": "m.1", "data": RESULT25})), response(RESULT25))

c = mode25("sep1858-answer-before-input-required", R1858,
           f"{S1858}: an answer given after buffer_input but before input_required is kept; the buffered POST goes when "
           "input_required arrives (before the stream ends).", mode="sep-1858")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"event": "buffer_input", "id": "k.1"}, {"id": "k.2", "data": elicit("e1")})),
       server_request(elicit("e1")))
c.step(answer(elicit_answer("e1")))
c.step(body(1, sse({"event": "input_required", "id": "k.3"})), c.post(2, [elicit_answer("e1")], URL, "k.3"))
c.step(end(1))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"id": "m.1", "data": RESULT25})), response(RESULT25))

c = mode25("sep1858-event-after-input-required", ["sse-reconnected-after-input-required", "sse-last-event-id-missing"],
           f"{S1858}: input_required tells the client to exit the event loop: later blocks on that response (a "
           "notification, another request) are not read, and Last-Event-ID stays k.3.", mode="sep-1858")
c.step(head(1, 200, SSE))
c.step(body(1, BUFFER_ELICIT_INPUT_REQUIRED), server_request(elicit("e1")))
c.step(body(1, sse({"id": "k.4", "data": PROGRESS}, {"id": "k.5", "data": elicit("e9")})))
c.step(end(1))
c.step(answer(elicit_answer("e1")), c.post(2, [elicit_answer("e1")], URL, "k.3"))
c.step(head(2, 200, JSON_CT))
c.step(body(2, j(RESULT25)))
c.step(end(2), response(RESULT25))

c = mode25("sep1858-without-buffer-input", ["sse-response-not-buffered"],
           f"{S1858}: without buffer_input the answer is not buffered: it is POSTed at once, one object (exchange 2, "
           "202 back), as in 2025-11-25.", mode="sep-1858")
c.step(head(1, 200, SSE))
c.step(body(1, sse({"id": "k.1", "data": elicit("e1")})), server_request(elicit("e1")))
c.step(answer(elicit_answer("e1")), c.post(2, elicit_answer("e1")))
c.step(head(2, 202, {}))
c.step(end(2))
c.step(body(1, sse({"id": "k.2", "data": RESULT25})), response(RESULT25))

c = mode25("sep1858-two-requests-one-post", R1858,
           f"{S1858}: two requests in one round (chunks split inside blocks) are answered into one buffer; the POST goes "
           "once both are answered, a JSON array with both, Last-Event-ID: k.4.", mode="sep-1858")
text = sse({"event": "buffer_input", "id": "k.1"}, {"id": "k.2", "data": elicit("e1")},
           {"id": "k.3", "data": sample("s1")}, {"event": "input_required", "id": "k.4"})
cut1 = text.index("Which environment")
cut2 = text.index("input_required") + 5
c.step(head(1, 200, SSE))
c.step(body(1, text[:cut1]))
c.step(body(1, text[cut1:cut2]), server_request(elicit("e1")), server_request(sample("s1")))
c.step(body(1, text[cut2:]))
c.step(end(1))
c.step(answer(elicit_answer("e1")))
c.step(answer(sample_answer("s1")), c.post(2, [elicit_answer("e1"), sample_answer("s1")], URL, "k.4"))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"id": "m.1", "data": RESULT25})), response(RESULT25))

c = mode25("sep1858-continuation-json", R1858,
           f"{S1858}: the server answers the POST with Last-Event-ID with a JSON object (a non-streaming response) "
           "instead of a stream; it is the call's response.", mode="sep-1858")
c.step(head(1, 200, SSE))
c.step(body(1, BUFFER_ELICIT_INPUT_REQUIRED), server_request(elicit("e1")))
c.step(end(1))
c.step(answer(elicit_answer("e1")), c.post(2, [elicit_answer("e1")], URL, "k.3"))
c.step(head(2, 200, JSON_CT))
c.step(body(2, j(RESULT25)))
c.step(end(2), response(RESULT25))

c = mode25("sep1858-two-rounds", R1858,
           f"{S1858}: \"This interaction pattern can repeat\": the continuation's stream asks again (buffer_input, "
           "sampling, input_required m.3) and the second buffered POST quotes m.3.", mode="sep-1858")
c.step(head(1, 200, SSE))
c.step(body(1, BUFFER_ELICIT_INPUT_REQUIRED), server_request(elicit("e1")))
c.step(end(1))
c.step(answer(elicit_answer("e1")), c.post(2, [elicit_answer("e1")], URL, "k.3"))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"event": "buffer_input", "id": "m.1"}, {"id": "m.2", "data": sample("s1")},
                   {"event": "input_required", "id": "m.3"})), server_request(sample("s1")))
c.step(end(2))
c.step(answer(sample_answer("s1")), c.post(3, [sample_answer("s1")], URL, "m.3"))
c.step(head(3, 200, SSE))
c.step(body(3, sse({"id": "n.1", "data": RESULT25})), response(RESULT25))

# ---- sep-1335

R1335 = ["sse-retry-ignored", "sse-buffered-post-target", "sse-stream-url-cross-origin"]


def mode1335(name, rules, description, **kw) -> Case:
    return mode25(name, rules, description, mode="sep-1335", **kw)


c = mode1335("sep1335-algorithm", R1335,
             f"{S1335_MULTI} (client algorithm): the request on the stream is answered into the buffer; after the cut "
             "the machine waits retry (500) and GETs the resolved rel=stream URL with Last-Event-ID; on 204 it POSTs the "
             "answers as a JSON array to that URL, whose new stream carries the result.")
c.step(head(1, 200, dict(SSE, link=LINK_ABC)))
c.step(body(1, sse({"id": "a.1", "data": elicit("e1")}, {"retry": 500})), server_request(elicit("e1")))
c.step(end(1, 1000), pending(1500))
c.step(answer(elicit_answer("e1"), 1200), pending(1500))
c.step(timeout(1500), c.get(2, STREAM_ABC, "a.1"))
c.step(head(2, 204, {}))
c.step(end(2), c.post(3, [elicit_answer("e1")], STREAM_ABC))
c.step(head(3, 200, dict(SSE, link='</mcp?stream=def>; rel="stream"')))
c.step(body(3, sse({"id": "b.1", "data": RESULT25})), response(RESULT25))

c = mode1335("sep1335-answer-after-204", ["sse-buffered-post-target", "sse-stream-ended"],
             f"{S1335_MULTI}: with no event id and no retry the rel=stream URL still allows the reconnect (after "
             "defaultRetryMs 1000, no Last-Event-ID); the 204 comes before the host answers, and the buffered POST goes "
             "to the stream URL when the answer does; a JSON answer to it is the response.")
c.step(head(1, 200, dict(SSE, link=LINK_ABC)))
c.step(body(1, sse({"data": sample("s1")})), server_request(sample("s1")))
c.step(end(1), pending(1000))
c.step(timeout(1000), c.get(2, STREAM_ABC))
c.step(head(2, 204, {}))
c.step(end(2))
c.step(answer(sample_answer("s1")), c.post(3, [sample_answer("s1")], STREAM_ABC))
c.step(head(3, 200, JSON_CT))
c.step(body(3, j(RESULT25)))
c.step(end(3), response(RESULT25))

c = mode1335("sep1335-absolute-link", ["sse-stream-url-cross-origin"],
             f"{S1335_URL}: an absolute rel=stream URL of the same origin is followed: the reconnect GETs it.")
c.step(head(1, 200, dict(SSE, link='<https://example.com/streams/s-9>; rel="stream"')))
c.step(body(1, sse({"id": "a.1", "data": PROGRESS}, {"retry": 250})), message(PROGRESS))
c.step(end(1), pending(250))
c.step(timeout(250), c.get(2, "https://example.com/streams/s-9", "a.1"))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"id": "a.2", "data": RESULT25})), response(RESULT25))

c = mode1335("sep1335-absolute-link-default-port", ["sse-stream-url-cross-origin"],
             f"{S1335_URL}: same origin compares the host case-insensitively and a missing port as the scheme's default: "
             "https://EXAMPLE.com:443/… is the endpoint's origin (followed; the URL as the WHATWG parser writes it).")
c.step(head(1, 200, dict(SSE, link='<https://EXAMPLE.com:443/streams/s-9>; rel="stream"')))
c.step(body(1, sse({"id": "a.1", "data": PROGRESS}, {"retry": 250})), message(PROGRESS))
c.step(end(1), pending(250))
c.step(timeout(250), c.get(2, "https://example.com/streams/s-9", "a.1"))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"id": "a.2", "data": RESULT25})), response(RESULT25))

c = mode1335("sep1335-cross-origin-link", ["sse-stream-url-cross-origin"],
             f"{S1335_URL}: a rel=stream URL on another port is not same-origin: reported (violation) and not followed; "
             "the cut stream is resumed as Streamable HTTP does, by a GET to the endpoint with Last-Event-ID after retry.")
c.step(head(1, 200, dict(SSE, link='<https://example.com:8443/mcp?stream=abc>; rel="stream"')),
       violation("sse-stream-url-cross-origin"))
c.step(body(1, sse({"id": "a.1", "data": PROGRESS}, {"retry": 500})), message(PROGRESS))
c.step(end(1, 1000), pending(1500))
c.step(timeout(1500), c.get(2, URL, "a.1"))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"id": "a.2", "data": RESULT25})), response(RESULT25))

c = mode1335("sep1335-cross-origin-link-no-id", ["sse-stream-url-cross-origin", "sse-stream-ended"],
             f"{S1335_URL} and {MRTR}: a cross-origin rel=stream URL is not followed, so a stream cut without an event id "
             "has nothing to resume from: sse-stream-ended.")
c.step(head(1, 200, dict(SSE, link='<http://example.com/mcp?stream=abc>; rel="stream"')),
       violation("sse-stream-url-cross-origin"))
c.step(body(1, sse({"data": PROGRESS})), message(PROGRESS))
c.step(end(1), failed("sse-stream-ended"))

c = mode1335("sep1335-reconnect-more-events", ["sse-retry-ignored", "sse-stream-ended"],
             f"{S1335_RETRY}: a reconnect answered 200 brings more events; when it is cut too, the machine waits the last "
             "retry again and resumes from the newest event id at the same stream URL.")
c.step(head(1, 200, dict(SSE, link=LINK_ABC)))
c.step(body(1, sse({"id": "a.1", "retry": 500, "data": PROGRESS})), message(PROGRESS))
c.step(end(1, 100), pending(600))
c.step(timeout(600), c.get(2, STREAM_ABC, "a.1"))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"id": "a.2", "data": PROGRESS})), message(PROGRESS))
c.step(end(2, 2000), pending(2500))
c.step(timeout(2500), c.get(3, STREAM_ABC, "a.2"))
c.step(head(3, 200, SSE))
c.step(body(3, sse({"id": "a.3", "data": RESULT25})), response(RESULT25))

c = mode1335("sep1335-retry-over-max", ["limit-exceeded"],
             f"{MRTR} (StreamLimits maxRetryMs, default 300000): a retry of 300001 ms is past the bound: the call fails "
             "with limit-exceeded.")
c.step(head(1, 200, dict(SSE, link=LINK_ABC)))
c.step(body(1, sse({"id": "a.1", "data": PROGRESS}, {"retry": 300001})), message(PROGRESS), failed("limit-exceeded"))

c = mode1335("sep1335-retry-at-max", ["limit-exceeded", "sse-retry-ignored"],
             f"{MRTR} (StreamLimits maxRetryMs, default 300000): a retry of exactly 300000 ms is within the bound: the "
             "machine waits it.")
c.step(head(1, 200, dict(SSE, link=LINK_ABC)))
c.step(body(1, sse({"id": "a.1", "data": PROGRESS}, {"retry": 300000})), message(PROGRESS))
c.step(end(1), pending(300000))
c.step(timeout(300000), c.get(2, STREAM_ABC, "a.1"))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"id": "a.2", "data": RESULT25})), response(RESULT25))

c = mode1335("sep1335-links-over-max", ["limit-exceeded"],
             f"{MRTR} (StreamLimits maxLinks, default 64): a Link field with 65 link-values fails the call with "
             "limit-exceeded at the head.")
c.step(head(1, 200, dict(SSE, link=links(65, "/mcp?stream=abc"))), failed("limit-exceeded"))

c = mode1335("sep1335-links-at-max", ["limit-exceeded"],
             f"{MRTR} (StreamLimits maxLinks, default 64): 64 link-values are within the bound; the rel=stream one (the "
             "last) is where the machine reconnects.")
c.step(head(1, 200, dict(SSE, link=links(64, "/mcp?stream=abc"))))
c.step(body(1, sse({"data": PROGRESS}, {"retry": 100})), message(PROGRESS))
c.step(end(1), pending(100))
c.step(timeout(100), c.get(2, STREAM_ABC))
c.step(head(2, 200, SSE))
c.step(body(2, sse({"data": RESULT25})), response(RESULT25))

c = mode1335("sep1335-link-bytes-over-max", ["limit-exceeded"],
             f"{MRTR} (StreamLimits maxLinkBytes, default 16 KiB): a Link field of 16385 bytes fails the call with "
             "limit-exceeded at the head.")
c.step(head(1, 200, dict(SSE, link=padded_link(16385))), failed("limit-exceeded"))

c = mode1335("sep1335-max-reconnects", ["sse-stream-ended"],
             f"{MRTR} (StreamLimits maxReconnects, here 2; RULES.md sse-stream-ended): when maxReconnects reconnects in a "
             "row bring no event, the call fails with sse-stream-ended instead of reconnecting again.", maxReconnects=2)
c.step(head(1, 200, dict(SSE, link=LINK_ABC)))
c.step(body(1, sse({"id": "a.1", "retry": 500, "data": PROGRESS})), message(PROGRESS))
c.step(end(1, 1000), pending(1500))
c.step(timeout(1500), c.get(2, STREAM_ABC, "a.1"))
c.step(head(2, 200, SSE))
c.step(end(2, 1600), pending(2100))
c.step(timeout(2100), c.get(3, STREAM_ABC, "a.1"))
c.step(head(3, 200, SSE))
c.step(end(3, 2200), failed("sse-stream-ended"))

c = mode1335("sep1335-reconnects-reset-by-event", ["sse-stream-ended"],
             f"{MRTR} (StreamLimits maxReconnects, here 2): the bound counts reconnects in a row without an event; an "
             "event resets it, so empty, event, empty reconnects go on to the response.", maxReconnects=2)
c.step(head(1, 200, dict(SSE, link=LINK_ABC)))
c.step(body(1, sse({"id": "a.1", "retry": 100, "data": PROGRESS})), message(PROGRESS))
c.step(end(1, 0), pending(100))
c.step(timeout(100), c.get(2, STREAM_ABC, "a.1"))
c.step(head(2, 200, SSE))
c.step(end(2, 150), pending(250))
c.step(timeout(250), c.get(3, STREAM_ABC, "a.1"))
c.step(head(3, 200, SSE))
c.step(body(3, sse({"id": "a.2", "data": PROGRESS})), message(PROGRESS))
c.step(end(3, 300), pending(400))
c.step(timeout(400), c.get(4, STREAM_ABC, "a.2"))
c.step(head(4, 200, SSE))
c.step(end(4, 450), pending(550))
c.step(timeout(550), c.get(5, STREAM_ABC, "a.2"))
c.step(head(5, 200, SSE))
c.step(body(5, sse({"id": "a.3", "data": RESULT25})), response(RESULT25))

c = mode1335("sep1335-204-nothing-owed", ["sse-stream-ended"],
             f"{S1335_MULTI} and {MRTR} (RULES.md sse-stream-ended): 204 ends the stream; with no answers owed there is "
             "nothing to POST and the call's response never came: sse-stream-ended.")
c.step(head(1, 200, dict(SSE, link=LINK_ABC)))
c.step(body(1, sse({"id": "a.1", "data": PROGRESS}, {"retry": 100})), message(PROGRESS))
c.step(end(1), pending(100))
c.step(timeout(100), c.get(2, STREAM_ABC, "a.1"))
c.step(head(2, 204, {}))
c.step(end(2), failed("sse-stream-ended"))

# ---- usage

c = mode26("body-unknown-exchange", ["usage-unknown-handle"],
           f"{MRTR}: a body for an exchange the machine never sent is usage-unknown-handle; the call goes on.")
c.step(body(3, "{}"), error("usage-unknown-handle"))
c.step(head(1, 200, JSON_CT))
c.step(body(1, j(RESULT26)))
c.step(end(1), response(RESULT26))


def main() -> None:
    names = set()
    for c in CASES:
        if c.name in names:
            sys.exit(f"http_client_cases: {c.name}: name used twice")
        names.add(c.name)
        c.check()
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    for c in CASES:
        path = OUT / f"{c.name}.json"
        path.write_text(json.dumps(c.json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"http_client_cases: {len(CASES)} cases in {OUT}")


if __name__ == "__main__":
    main()
