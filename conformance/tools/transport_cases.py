#!/usr/bin/env python3
"""Writes conformance/cases/transport/: `check` cases with HTTP entries.

The format is conformance/FORMAT.md, "`check` with HTTP entries (transports)".
Each case is one HTTP conversation of Streamable HTTP under protocol
2025-11-25: plain (no `transport`), SEP-1858 (`"transport": "sep-1858"`,
spec text 000) or SEP-1335 (`"transport": "sep-1335"`, spec text 003).
For each of the six `sse-*` rules there is a trigger (exactly that violation,
at the entry that commits it) and a near miss (its compliant neighbour);
`message-after-input-required` gets both on HTTP entries (SEP-1858); and the
texts' sequence diagrams are written out as whole compliant transcripts.

The expectations are written by hand, from the texts and from the semantics
the project decided where the texts are silent (the `sse-*` rules are
checked on client HTTP entries; a server's messages belong to the stream of
the client request that opened their exchange; see the README, "check with
HTTP entries"). As a guard against slips (a wrong index, a rule hit by a
transcript meant to be compliant) the script re-derives the transport
violations of every case with its own small checker, `Checker`, written
from that same description, plus the one message rule these conversations
can break (`server-request-unassociated`, 004); it stops with an error and
writes nothing when a case disagrees.

Run from the repository root: python3 conformance/tools/transport_cases.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import urljoin, urlsplit

OUT = Path(__file__).resolve().parents[1] / "cases" / "transport"

ORIGIN = "https://mcp.example.com"
ENDPOINT = ORIGIN + "/mcp"
PLAIN = {"protocol": "2025-11-25"}
SEP1858 = {"protocol": "2025-11-25", "transport": "sep-1858"}
SEP1335 = {"protocol": "2025-11-25", "transport": "sep-1335"}

# ---------------------------------------------------------------- messages


def call(progress: bool = False) -> dict:
    params: dict = {"name": "get_weather", "arguments": {"location": "New York"}}
    if progress:
        params["_meta"] = {"progressToken": "p1"}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def elicit(rid: str = "s-1", message: str = "Please provide your GitHub username", prop: str = "name") -> dict:
    return {"jsonrpc": "2.0", "id": rid, "method": "elicitation/create",
            "params": {"mode": "form", "message": message,
                       "requestedSchema": {"type": "object", "properties": {prop: {"type": "string"}}}}}


def accept(rid: str = "s-1", content: dict | None = None) -> dict:
    return {"jsonrpc": "2.0", "id": rid,
            "result": {"action": "accept", "content": content or {"name": "octocat"}}}


ROOTS = {"jsonrpc": "2.0", "id": "s-2", "method": "roots/list"}
ROOTS_ANSWER = {"jsonrpc": "2.0", "id": "s-2",
                "result": {"roots": [{"uri": "file:///home/octocat/weather", "name": "weather"}]}}


def result(text: str = "Current weather in New York: 72°F, partly cloudy") -> dict:
    return {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": text}]}}


def progress(n: int) -> dict:
    return {"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "p1", "progress": n, "total": 100}}


# ---------------------------------------------------------------- entries

POST_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2025-11-25"}
GET_HEADERS = {"accept": "text/event-stream", "mcp-protocol-version": "2025-11-25"}


def _at(entry: dict, at: int | None) -> dict:
    return {"from": entry["from"], "at": at, "http": entry["http"]} if at is not None else entry


def post(ex: str, body, url: str = ENDPOINT, lei: str | None = None, at: int | None = None) -> dict:
    headers = dict(POST_HEADERS)
    if lei is not None:
        headers["last-event-id"] = lei
    return _at({"from": "client", "http": {"exchange": ex, "method": "POST", "url": url, "headers": headers,
                                           "body": body}}, at)


def get(ex: str, url: str = ENDPOINT, lei: str | None = None, at: int | None = None) -> dict:
    headers = dict(GET_HEADERS)
    if lei is not None:
        headers["last-event-id"] = lei
    return _at({"from": "client", "http": {"exchange": ex, "method": "GET", "url": url, "headers": headers}}, at)


def sse(ex: str, *events: dict, link: str | None = None, end: bool = False, at: int | None = None) -> dict:
    """The first server entry of an exchange: 200 with an event stream."""
    headers = {"content-type": "text/event-stream"}
    if link is not None:
        headers["link"] = f'<{link}>; rel="stream"'
    http: dict = {"exchange": ex, "status": 200, "headers": headers, "events": list(events)}
    if end:
        http["end"] = True
    return _at({"from": "server", "http": http}, at)


def more(ex: str, *events: dict, end: bool = False, at: int | None = None) -> dict:
    """A later server entry of an exchange: more events, and/or its end."""
    http: dict = {"exchange": ex}
    if events:
        http["events"] = list(events)
    if end:
        http["end"] = True
    return _at({"from": "server", "http": http}, at)


def status(ex: str, code: int, at: int | None = None) -> dict:
    """A bodiless answer that ends the exchange (202, 204, 405)."""
    return _at({"from": "server", "http": {"exchange": ex, "status": code, "headers": {}, "end": True}}, at)


def json_body(ex: str, body) -> dict:
    return {"from": "server", "http": {"exchange": ex, "status": 200, "headers": {"content-type": "application/json"},
                                       "body": body, "end": True}}


def ev(eid: str, data) -> dict:
    return {"id": eid, "data": data}


def buffer_input(eid: str) -> dict:
    return {"event": "buffer_input", "id": eid}


def input_required(eid: str) -> dict:
    return {"event": "input_required", "id": eid}


def stream_url(path: str = "/mcp/streams/7f3a") -> str:
    return ORIGIN + path


# ---------------------------------------------------------------- the cases

S1858 = '000 SEP-1858 "Specification"'
M1858 = '000 SEP-1858 "Motivation"'
S1335_URL = '003 SEP-1335 "rel=\\"stream\\" URL"'
S1335_DISC = '003 SEP-1335 "Allow server to disconnect at will"'
S1335_MULTI = '003 SEP-1335 "Multi-turn requests for server-to-client requests"'
R1858 = ["sse-response-not-buffered", "sse-last-event-id-missing", "sse-reconnected-after-input-required",
         "message-after-input-required"]
R1335 = ["sse-stream-url-cross-origin", "sse-retry-ignored", "sse-buffered-post-target"]


def v(rule: str, index: int) -> dict:
    return {"rule": rule, "index": index}


def flow_1335(link_path: str = "/mcp/streams/7f3a") -> list[dict]:
    """003's algorithm up to the 204: POST, SSE with Link and retry and a server request, at-will disconnect,
    the GET to the rel="stream" URL after the retry wait, 204."""
    url = stream_url(link_path)
    return [
        post("e1", call(), at=0),
        sse("e1", {"id": "1", "retry": 1000}, ev("2", elicit()), link=url, at=20),
        more("e1", end=True, at=50),
        get("e2", url, lei="2", at=1100),
        status("e2", 204, at=1110),
    ]


CASES: list[tuple[str, list[str], str, dict, list[dict], list[dict]]] = []


def case(name: str, rules: list[str], description: str, config: dict, transcript: list[dict],
         violations: list[dict]) -> None:
    CASES.append((name, rules, description, config, transcript, violations))


# --- the texts' sequence diagrams, whole

case("problem-flow-2025", ["server-request-unassociated"],
     f"{M1858}, first sequence diagram (Streamable HTTP of 2025-11-25): POST tools/call, SSE stream with an "
     "elicitation request, the client POSTs its answer to the endpoint and gets 202 Accepted, the tool result comes "
     "on the first SSE stream. The elicitation is on the POST's own stream while the call is in flight, so it is "
     "associated (004 \"Specification Changes\"). Compliant.",
     PLAIN,
     [post("e1", call()),
      sse("e1", ev("1", elicit())),
      post("e2", accept()),
      status("e2", 202),
      more("e1", ev("2", result()), end=True)],
     [])

case("elicitation-on-get-stream-2025", ["server-request-unassociated"],
     "004 \"Specification Changes\" (transports.mdx, GET-initiated streams: elicitation/create \"MUST NOT be sent on "
     "standalone streams\"): an elicitation request on the stream of a GET to the endpoint is unassociated; the "
     "violation is at the server entry carrying it (mrtr: a GET that resumes nothing is the `get` stream).",
     PLAIN,
     [get("e1"),
      sse("e1", ev("1", elicit()))],
     [v("server-request-unassociated", 1)])

case("sep-1858-flow", R1858,
     f"{S1858}, second sequence diagram: POST tools/call; on its SSE stream `buffer_input` (id 2), the elicitation "
     "request (id 3), `input_required` (id 4) and the disconnect; the client POSTs its buffered answer as a JSON "
     "array with Last-Event-ID 4 and gets a new SSE stream with the tool result. Compliant.",
     SEP1858,
     [post("e1", call()),
      sse("e1", buffer_input("2")),
      more("e1", ev("3", elicit())),
      more("e1", input_required("4"), end=True),
      post("e2", [accept()], lei="4"),
      sse("e2", ev("5", result()), end=True)],
     [])

case("sep-1858-two-rounds", ["sse-response-not-buffered", "sse-last-event-id-missing",
                             "message-after-input-required"],
     f"{S1858} (\"This interaction pattern can repeat as many times as necessary\"; the server answers the POST "
     "\"with an SSE stream (or JSON object for a non-streaming response)\"): a second buffer_input/input_required "
     "round on the stream of the first POST of answers, then a plain JSON result. Compliant.",
     SEP1858,
     [post("e1", call()),
      sse("e1", buffer_input("2"), ev("3", elicit()), input_required("4"), end=True),
      post("e2", [accept()], lei="4"),
      sse("e2", buffer_input("5"), ev("6", elicit("s-2", "Which repository?", "repo")), input_required("7"),
          end=True),
      post("e3", [accept("s-2", {"repo": "hello-world"})], lei="7"),
      json_body("e3", result())],
     [])

# --- sse-response-not-buffered

case("sep-1858-answer-not-buffered", ["sse-response-not-buffered"],
     f"{S1858} (\"The `buffer_input` event tells the client to buffer its responses to server-sent requests "
     "instead of immediately POSTing them\"): after `buffer_input` the client POSTs its answer at once, as one "
     "object; violation at that POST.",
     SEP1858,
     [post("e1", call()),
      sse("e1", buffer_input("2"), ev("3", elicit())),
      post("e2", accept()),
      status("e2", 202),
      more("e1", ev("4", result()), end=True)],
     [v("sse-response-not-buffered", 2)])

case("sep-1858-array-before-input-required", ["sse-response-not-buffered"],
     f"{S1858}: the buffered answers are POSTed after `input_required`; a JSON array with Last-Event-ID sent while "
     "the stream is still open, before `input_required`, is not buffering (mrtr: \"sent before that exchange "
     "delivered input_required or ended\"); violation at that POST.",
     SEP1858,
     [post("e1", call()),
      sse("e1", buffer_input("2"), ev("3", elicit())),
      post("e2", [accept()], lei="3"),
      status("e2", 202),
      more("e1", ev("4", result()), end=True)],
     [v("sse-response-not-buffered", 2)])

case("sep-1858-single-answer-after-input-required", ["sse-response-not-buffered"],
     f"{S1858} (\"POST a JSON array of its buffered responses\"): after `input_required` the client POSTs its "
     "answer as a single object, not an array, even with Last-Event-ID; violation at that POST.",
     SEP1858,
     [post("e1", call()),
      sse("e1", buffer_input("2"), ev("3", elicit()), input_required("4"), end=True),
      post("e2", accept(), lei="4"),
      sse("e2", ev("5", result()), end=True)],
     [v("sse-response-not-buffered", 2)])

case("sep-1858-answer-without-buffer-input", ["sse-response-not-buffered"],
     f"{S1858} (buffering is what `buffer_input` asks for) and 000 \"Backward Compatibility\" (client behaviour "
     "changes only on the new events): an elicitation request with no `buffer_input` before it is answered the "
     "2025-11-25 way, one object POSTed at once, 202. Near miss, compliant.",
     SEP1858,
     [post("e1", call()),
      sse("e1", ev("2", elicit())),
      post("e2", accept()),
      status("e2", 202),
      more("e1", ev("3", result()), end=True)],
     [])

# --- sse-last-event-id-missing

case("sep-1858-last-event-id-missing", ["sse-last-event-id-missing"],
     f"{S1858} (\"POST a JSON array of its buffered responses, **including** a `Last-Event-ID` header\"): the "
     "array of buffered answers is POSTed without Last-Event-ID; violation at that POST.",
     SEP1858,
     [post("e1", call()),
      sse("e1", buffer_input("2"), ev("3", elicit()), input_required("4"), end=True),
      post("e2", [accept()]),
      status("e2", 202)],
     [v("sse-last-event-id-missing", 2)])

case("sep-1858-last-event-id-present", ["sse-last-event-id-missing", "sse-response-not-buffered"],
     f"{S1858}: two server requests (elicitation, roots/list) between `buffer_input` and `input_required`; both "
     "answers go in one JSON array with Last-Event-ID naming the `input_required` event. Near miss, compliant.",
     SEP1858,
     [post("e1", call()),
      sse("e1", buffer_input("2"), ev("3", elicit()), ev("4", ROOTS), input_required("5"), end=True),
      post("e2", [accept(), ROOTS_ANSWER], lei="5"),
      sse("e2", ev("6", result()), end=True)],
     [])

# --- sse-reconnected-after-input-required

case("sep-1858-reconnected-after-input-required", ["sse-reconnected-after-input-required"],
     f"{S1858} (\"exit the SSE event processing loop without attempting to reconnect\"): after `input_required` "
     "the client tries to resume the stream with a GET carrying Last-Event-ID of that event; violation at the GET. "
     "It then POSTs its buffered answers correctly.",
     SEP1858,
     [post("e1", call()),
      sse("e1", buffer_input("2"), ev("3", elicit()), input_required("4"), end=True),
      get("e2", lei="4"),
      status("e2", 405),
      post("e3", [accept()], lei="4"),
      sse("e3", ev("5", result()), end=True)],
     [v("sse-reconnected-after-input-required", 2)])

case("sep-1858-resume-without-input-required", ["sse-reconnected-after-input-required"],
     f"{S1858}: the no-reconnect rule is tied to `input_required`. A stream cut after a progress notification "
     "(no `input_required`) is resumed with GET and Last-Event-ID, as 2025-11-25 resumability allows, and the "
     "result comes on the resumed stream. Near miss, compliant.",
     SEP1858,
     [post("e1", call(progress=True)),
      sse("e1", ev("1", progress(50))),
      more("e1", end=True),
      get("e2", lei="1"),
      sse("e2", ev("2", progress(100)), ev("3", result()), end=True)],
     [])

# --- message-after-input-required on HTTP entries

case("sep-1858-event-after-input-required", ["message-after-input-required"],
     f"{S1858} (the server sends its requests \"followed by an `input_required` SSE event, and disconnects\"): a "
     "progress notification on the same exchange after `input_required`; violation at the entry carrying it.",
     SEP1858,
     [post("e1", call(progress=True)),
      sse("e1", buffer_input("2"), ev("3", elicit()), input_required("4")),
      more("e1", ev("5", progress(50)), end=True),
      post("e2", [accept()], lei="4"),
      sse("e2", ev("6", result()), end=True)],
     [v("message-after-input-required", 2)])

case("sep-1858-event-after-input-required-same-entry", ["message-after-input-required"],
     f"{S1858}: the block after `input_required` arrives in the same server entry; the violation is at that "
     "entry (mrtr: the index of the entry carrying the later block).",
     SEP1858,
     [post("e1", call(progress=True)),
      sse("e1", buffer_input("2"), ev("3", elicit()), input_required("4"), ev("5", progress(50)), end=True),
      post("e2", [accept()], lei="4"),
      sse("e2", ev("6", result()), end=True)],
     [v("message-after-input-required", 1)])

case("sep-1858-event-before-input-required", ["message-after-input-required"],
     f"{S1858}: a progress notification between the elicitation request and `input_required`, in its own entry; "
     "`input_required` is the last block of the exchange. Near miss, compliant.",
     SEP1858,
     [post("e1", call(progress=True)),
      sse("e1", buffer_input("2"), ev("3", elicit())),
      more("e1", ev("4", progress(50))),
      more("e1", input_required("5"), end=True),
      post("e2", [accept()], lei="5"),
      sse("e2", ev("6", result()), end=True)],
     [])

# --- SEP-1335: the algorithm, and a resumption

case("sep-1335-flow", R1335,
     f"{S1335_MULTI}, client and server algorithms: POST tools/call, 200 SSE with a same-origin rel=\"stream\" "
     "Link, `retry` 1000 and an elicitation request, the server disconnects at 50 ms; the client GETs the stream "
     "URL at 1100 ms (after the retry wait) and gets 204 No Content; it POSTs its buffered answer as a JSON array "
     "to the stream URL and gets a new SSE stream with a new rel=\"stream\" Link and the result. Compliant.",
     SEP1335,
     flow_1335() + [
         post("e3", [accept()], url=stream_url(), at=1200),
         sse("e3", ev("3", result()), link=stream_url("/mcp/streams/9b1c"), end=True, at=1250)],
     [])

case("sep-1335-resume-after-cut", ["sse-retry-ignored", "sse-stream-url-cross-origin"],
     f"{S1335_URL} (\"In the event of a disconnection, the client SHOULD resume the SSE stream\" with a GET to the "
     f"rel=\"stream\" URL and Last-Event-ID) and {S1335_DISC} (the client respects `retry`): the connection is cut "
     "at 500 ms after a progress notification; the client resumes at 2600 ms (retry 2000) and the server "
     "continues with 200, more progress and the result. Compliant.",
     SEP1335,
     [post("e1", call(progress=True), at=0),
      sse("e1", {"id": "1", "retry": 2000}, ev("2", progress(50)), link=stream_url("/mcp/streams/c4d2"), at=20),
      more("e1", end=True, at=500),
      get("e2", stream_url("/mcp/streams/c4d2"), lei="2", at=2600),
      sse("e2", ev("3", progress(100)), ev("4", result()), end=True, at=2650)],
     [])

# --- sse-stream-url-cross-origin


def cross_origin(name: str, link: str, what: str) -> None:
    case(name, ["sse-stream-url-cross-origin"],
         f"{S1335_URL} (\"the URL MUST be same-origin (same scheme, hostname, and port) as the server URL\"): the "
         f"rel=\"stream\" URL {link} has {what} than the endpoint {ENDPOINT}; the client follows it anyway, "
         "violation at that request.",
         SEP1335,
         [post("e1", call(), at=0),
          sse("e1", {"id": "1", "retry": 1000}, link=link, at=20),
          more("e1", end=True, at=50),
          get("e2", link, lei="1", at=1100),
          sse("e2", ev("2", result()), end=True, at=1150)],
         [v("sse-stream-url-cross-origin", 3)])


cross_origin("sep-1335-cross-origin-host", "https://streams.example.net/mcp/streams/7f3a", "another host")
cross_origin("sep-1335-cross-origin-scheme", "http://mcp.example.com/mcp/streams/7f3a", "another scheme (and port)")
cross_origin("sep-1335-cross-origin-port", "https://mcp.example.com:8443/mcp/streams/7f3a", "another port")

case("sep-1335-same-origin-relative", ["sse-stream-url-cross-origin"],
     f"{S1335_URL}: a relative rel=\"stream\" URL (/mcp/streams/7f3a) resolves against the request URL {ENDPOINT} "
     "to the same origin (mrtr: resolved against the URL of the request whose response carried the Link). "
     "Near miss, compliant.",
     SEP1335,
     [post("e1", call(), at=0),
      sse("e1", {"id": "1", "retry": 1000}, link="/mcp/streams/7f3a", at=20),
      more("e1", end=True, at=50),
      get("e2", stream_url(), lei="1", at=1100),
      sse("e2", ev("2", result()), end=True, at=1150)],
     [])

case("sep-1335-same-origin-host-case-default-port", ["sse-stream-url-cross-origin"],
     f"{S1335_URL} (same scheme, hostname and port): https://MCP.Example.COM:443/... is the origin of {ENDPOINT} "
     "(host names compare case-insensitively, 443 is https's default port). Near miss, compliant.",
     SEP1335,
     [post("e1", call(), at=0),
      sse("e1", {"id": "1", "retry": 1000}, link="https://MCP.Example.COM:443/mcp/streams/7f3a", at=20),
      more("e1", end=True, at=50),
      get("e2", "https://MCP.Example.COM:443/mcp/streams/7f3a", lei="1", at=1100),
      sse("e2", ev("2", result()), end=True, at=1150)],
     [])

# --- sse-retry-ignored


def retry_case(name: str, retries: list[int], get_at: int, violated: bool, description: str) -> None:
    blocks = [{"id": str(i + 1), "retry": r} for i, r in enumerate(retries)]
    case(name, ["sse-retry-ignored"], description, SEP1335,
         [post("e1", call(), at=0),
          sse("e1", *blocks, link=stream_url(), at=20),
          more("e1", end=True, at=100),
          get("e2", stream_url(), lei=str(len(retries)), at=get_at),
          sse("e2", ev(str(len(retries) + 1), result()), end=True, at=get_at + 50)],
         [v("sse-retry-ignored", 3)] if violated else [])


retry_case("sep-1335-retry-ignored", [5000], 1000, True,
           f"{S1335_DISC} (\"The client SHOULD respect the retry field when resuming the stream\"): the server sends "
           "retry 5000 and disconnects at 100 ms; the client GETs the stream URL at 1000 ms, before 5100; violation "
           "at the GET.")
retry_case("sep-1335-retry-waited-exactly", [5000], 5100, False,
           f"{S1335_DISC}: retry 5000, disconnect at 100 ms, the GET at exactly 5100 ms is not earlier than the "
           "wait (mrtr: a violation only when earlier than end + retry). Near miss, compliant.")
retry_case("sep-1335-retry-last-value", [5000, 1000], 1100, False,
           f"{S1335_DISC} and WHATWG HTML §9.2.6 (each retry field sets the reconnection time): retry 5000 then "
           "retry 1000; the last one counts, so a GET at 1100 ms after a disconnect at 100 ms waited enough. "
           "Near miss, compliant.")
retry_case("sep-1335-retry-last-value-ignored", [1000, 5000], 1100, True,
           f"{S1335_DISC} and WHATWG HTML §9.2.6: retry 1000 then retry 5000; the last one counts, so a GET at "
           "1100 ms after a disconnect at 100 ms is early; violation at the GET.")

case("sep-1335-no-retry-sent", ["sse-retry-ignored"],
     f"{S1335_DISC}: the server sent no `retry` (it SHOULD have), so the client has no wait to respect and "
     "reconnects at once (mrtr: not checked when no retry was sent). Near miss, compliant.",
     SEP1335,
     [post("e1", call(), at=0),
      sse("e1", {"id": "1"}, link=stream_url(), at=20),
      more("e1", end=True, at=100),
      get("e2", stream_url(), lei="1", at=110),
      sse("e2", ev("2", result()), end=True, at=160)],
     [])

# --- sse-buffered-post-target

case("sep-1335-buffered-post-to-endpoint", ["sse-buffered-post-target"],
     f"{S1335_MULTI} (\"the client MUST POST its buffered responses (as a JSON array) to the rel=\\\"stream\\\" "
     "URL\"): after the 204 the client POSTs the array to the endpoint instead; violation at that POST.",
     SEP1335,
     flow_1335() + [
         post("e3", [accept()], at=1200),
         status("e3", 202, at=1210)],
     [v("sse-buffered-post-target", 5)])

case("sep-1335-buffered-post-not-array", ["sse-buffered-post-target"],
     f"{S1335_MULTI} (\"POST its buffered responses (as a JSON array)\"): after the 204 the client POSTs its one "
     "answer to the stream URL as an object, not an array; violation at that POST.",
     SEP1335,
     flow_1335() + [
         post("e3", accept(), url=stream_url(), at=1200),
         sse("e3", ev("3", result()), link=stream_url("/mcp/streams/9b1c"), end=True, at=1250)],
     [v("sse-buffered-post-target", 5)])

case("sep-1335-answer-before-disconnect", ["sse-buffered-post-target"],
     f"{S1335_MULTI}: the server keeps the stream open (it never disconnects, no 204 comes), and the client "
     "answers the 2025-11-25 way, one object POSTed to the endpoint, 202; the result then comes on the open "
     "stream (mrtr: the target rule applies to answers sent after a 204 ended the stream). Near miss, compliant.",
     SEP1335,
     [post("e1", call(), at=0),
      sse("e1", {"id": "1", "retry": 1000}, ev("2", elicit()), link=stream_url(), at=20),
      post("e2", accept(), at=300),
      status("e2", 202, at=310),
      more("e1", ev("3", result()), end=True, at=400)],
     [])


# ---------------------------------------------------------------- the guard

SERVER_REQUESTS = {"elicitation/create", "sampling/createMessage", "roots/list"}


def origin(url: str) -> tuple:
    u = urlsplit(url)
    scheme = u.scheme.lower()
    return scheme, (u.hostname or "").lower(), u.port or {"http": 80, "https": 443}.get(scheme)


def link_stream(headers: dict) -> str | None:
    m = re.search(r'<([^>]*)>\s*;\s*rel="?stream"?', headers.get("link", ""))
    return m.group(1) if m else None


def messages(body) -> list:
    if isinstance(body, dict):
        return [body]
    if isinstance(body, list):
        return [m for m in body if isinstance(m, dict)]
    return []


def is_response(m: dict) -> bool:
    return "id" in m and "method" not in m and ("result" in m or "error" in m)


class Checker:
    """The transport rules as the README states them, and server-request-unassociated (2025-11-25)."""

    def __init__(self, transport: str | None) -> None:
        self.t = transport
        self.ex: dict[str, dict] = {}
        self.event_ex: dict[str, str] = {}  # event id -> exchange that sent it
        self.stream_urls: dict[str, tuple[str, str]] = {}  # resolved rel=stream URL -> (exchange, base URL)
        self.server_req: dict = {}  # server request id -> (exchange, after buffer_input)
        self.in_flight: set = set()
        self.found: list[dict] = []

    def flag(self, rule: str, i: int) -> None:
        if v(rule, i) not in self.found:
            self.found.append(v(rule, i))

    def stream_of(self, http: dict) -> str | None:
        for m in messages(http.get("body")):
            if "method" in m and "id" in m:
                return f"post:{m['id']}"
        if http["url"] in self.stream_urls:
            return self.ex[self.stream_urls[http["url"]][0]]["stream"]
        lei = http["headers"].get("last-event-id")
        if lei is not None and lei in self.event_ex:
            return self.ex[self.event_ex[lei]]["stream"]
        return "get" if http["method"] == "GET" else None

    def client(self, i: int, at, http: dict) -> None:
        name, url, headers, body = http["exchange"], http["url"], http["headers"], http.get("body")
        assert name not in self.ex, f"exchange {name} opened twice"
        lei = headers.get("last-event-id")
        x = {"url": url, "stream": self.stream_of(http), "buffer": False, "input_required": False,
             "ended": False, "retry": None, "end_at": None, "got204": False, "first": True,
             "method": http["method"], "resumes": self.stream_urls.get(url, (None,))[0]}
        for m in messages(body):
            if "method" in m and "id" in m:
                self.in_flight.add(m["id"])
        answers = [m for m in messages(body) if is_response(m) and m["id"] in self.server_req]
        if self.t == "sep-1858":
            for m in answers:
                sx, after_buffer = self.server_req[m["id"]]
                early = not (self.ex[sx]["input_required"] or self.ex[sx]["ended"])
                if after_buffer and (not isinstance(body, list) or early):
                    self.flag("sse-response-not-buffered", i)
            if isinstance(body, list) and any(self.server_req[m["id"]][1] for m in answers) and lei is None:
                self.flag("sse-last-event-id-missing", i)
            if http["method"] == "GET" and lei in self.event_ex and self.ex[self.event_ex[lei]]["input_required"]:
                self.flag("sse-reconnected-after-input-required", i)
        if self.t == "sep-1335":
            if url in self.stream_urls:
                owner, base = self.stream_urls[url]
                if origin(url) != origin(base):
                    self.flag("sse-stream-url-cross-origin", i)
                o = self.ex[owner]
                if http["method"] == "GET" and at is not None and o["end_at"] is not None and o["retry"] is not None:
                    if at < o["end_at"] + o["retry"]:
                        self.flag("sse-retry-ignored", i)
            for m in answers:
                sx = self.server_req[m["id"]][0]
                stream = self.ex[sx]["stream"]
                for surl, (owner, _) in self.stream_urls.items():
                    if self.ex[owner]["stream"] == stream and self.ex[owner]["got204"]:
                        if url != surl or not isinstance(body, list):
                            self.flag("sse-buffered-post-target", i)
        self.ex[name] = x

    def server(self, i: int, at, http: dict) -> None:
        name = http["exchange"]
        assert name in self.ex, f"server entry {i} answers an exchange no client opened"
        x = self.ex[name]
        assert ("status" in http) == x["first"], f"entry {i}: status on the first server entry only"
        if x["first"]:
            x["first"] = False
            link = link_stream(http.get("headers", {}))
            if link is not None:
                self.stream_urls[urljoin(x["url"], link)] = (name, x["url"])
            if http["status"] == 204 and x["resumes"] is not None:
                self.ex[x["resumes"]]["got204"] = True
        assert not x["ended"], f"entry {i}: exchange {name} already ended"
        for m in messages(http.get("body")):
            self.server_message(i, x, m, False)
        for block in http.get("events", []):
            if x["input_required"] and self.t == "sep-1858":
                self.flag("message-after-input-required", i)
            if "id" in block:
                self.event_ex[block["id"]] = name
            if "retry" in block:
                x["retry"] = block["retry"]
                if x["resumes"] is not None:
                    self.ex[x["resumes"]]["retry"] = block["retry"]
            if block.get("event") == "buffer_input":
                x["buffer"] = True
            if block.get("event") == "input_required":
                x["input_required"] = True
            for m in messages(block.get("data")):
                self.server_message(i, x, m, x["buffer"])
        if http.get("end"):
            x["ended"] = True
            x["end_at"] = at

    def server_message(self, i: int, x: dict, m: dict, after_buffer: bool) -> None:
        if "method" in m and "id" in m and m["method"] in SERVER_REQUESTS:
            s = x["stream"]
            if s is None or s == "get" or not (s.startswith("post:") and int(s[5:]) in self.in_flight):
                self.flag("server-request-unassociated", i)
            self.server_req[m["id"]] = (self.find_ex(x), after_buffer)
        if is_response(m):
            self.in_flight.discard(m["id"])

    def find_ex(self, x: dict) -> str:
        return next(k for k, y in self.ex.items() if y is x)


def guard(name: str, config: dict, transcript: list[dict], violations: list[dict]) -> None:
    c = Checker(config.get("transport"))
    last_at = None
    for i, e in enumerate(transcript):
        at = e.get("at")
        if at is not None:
            assert last_at is None or at >= last_at, f"{name}: entry {i} goes back in time"
            last_at = at
        (c.client if e["from"] == "client" else c.server)(i, at, e["http"])
    key = lambda x: (x["index"], x["rule"])  # noqa: E731
    if sorted(c.found, key=key) != sorted(violations, key=key):
        sys.exit(f"transport_cases: {name}: the guard finds {c.found}, the case says {violations}")


def main() -> None:
    seen = set()
    out = []
    for name, rules, description, config, transcript, violations in CASES:
        if name in seen:
            sys.exit(f"transport_cases: {name}: name used twice")
        seen.add(name)
        try:
            guard(name, config, transcript, violations)
        except AssertionError as e:
            sys.exit(f"transport_cases: {name}: {e}")
        for x in violations:
            if x["rule"] not in rules:
                sys.exit(f"transport_cases: {name}: {x['rule']} expected but not in rules")
        out.append({"id": f"transport/{name}", "rules": rules, "description": description, "op": "check",
                    "input": {"transcript": transcript, "config": config}, "expect": {"violations": violations}})
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    for case_ in out:
        path = OUT / (case_["id"].split("/", 1)[1] + ".json")
        path.write_text(json.dumps(case_, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"transport_cases: {len(out)} cases in {OUT}")


if __name__ == "__main__":
    main()
