"""Unit tests of the UniFFI-generated Python module (``mrtr_uniffi``): the
exception hierarchy (one class per area, every rule of the core's table in
its area's class, ``.rule``, ``.code``, ``.message``),
panics, the client machine, the key ring (each attack of security issue
#13: no default anonymous subject, no implicit ``{}`` params, a test-only
nonce seal, replay, deployment labels, the seal budget, rotation under
concurrent opens), the checker, and the transports (the event-stream decoder
and encoder, the call over HTTP, the server side, checking HTTP entries; bad
input: chunks that are not UTF-8, a 1000-link Link header, what the generated
code refuses in place of NULL). Standard library
``unittest`` only; run with the generated module and its ``.so`` on
``PYTHONPATH`` (``scripts/tests/60-uniffi.sh`` does).
"""

from __future__ import annotations

import json
import secrets
import threading
import unittest

import mrtr_uniffi as m

P = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": P,
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}
CALL = json.dumps(
    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather", "arguments": {"location": "NYC"}, "_meta": META}}
)
ASK = json.dumps(
    {"login": {"method": "elicitation/create", "params": {"message": "GitHub user?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}}
)
ANSWER = json.dumps({"login": {"action": "accept", "content": {"name": "octocat"}}})


class Exceptions(unittest.TestCase):
    def test_protocol(self) -> None:
        with self.assertRaises(m.MrtrError.Protocol) as cm:
            m.classify('{"jsonrpc":', P)
        self.assertEqual((cm.exception.rule, cm.exception.code), ("jsonrpc-parse-error", -32700))
        self.assertTrue(cm.exception.message)
        with self.assertRaises(m.MrtrError.Protocol) as cm:
            m.classify("{}", "1999-01-01")
        self.assertEqual(cm.exception.rule, "jsonrpc-invalid")
        with self.assertRaises(m.MrtrError.Protocol) as cm:
            m.retry('{"id":1,"id":2}', "{}", "{}", "2", P)
        self.assertEqual(cm.exception.rule, "jsonrpc-invalid")
        with self.assertRaises(m.MrtrError.Protocol) as cm:
            m.classify_bytes(b'{"jsonrpc":"2.0","method":"\xff"}', P)
        self.assertEqual(cm.exception.rule, "jsonrpc-parse-error")

    def test_retry(self) -> None:
        answer = m.respond(CALL, ASK, '"s1"', P)
        with self.assertRaises(m.MrtrError.Retry) as cm:
            m.retry(CALL, answer, ANSWER, "1", P)
        self.assertEqual(cm.exception.rule, "retry-id-reused")
        with self.assertRaises(m.MrtrError.Retry) as cm:
            m.retry(CALL, answer, '{"login":{"action":"maybe"}}', "2", P)
        self.assertEqual((cm.exception.rule, cm.exception.code), ("retry-input-response-invalid", -32602))

    def test_state(self) -> None:
        ring = m.KeyRing(1, "aes-256-gcm", secrets.token_bytes(32))
        b = m.binding_for_request(CALL, "alice", False, P)
        with self.assertRaises(m.MrtrError.State) as cm:
            ring.open("!!", b, 1000, None)
        self.assertEqual((cm.exception.rule, cm.exception.code), ("state-malformed", -32602))
        token = ring.seal(b, 1000, 60, b"hello")
        self.assertEqual(ring.open(token, b, 1059, None).payload, b"hello")
        with self.assertRaises(m.MrtrError.State) as cm:
            ring.open(token, b, 1060, None)
        self.assertEqual(cm.exception.rule, "state-expired")

    def test_task(self) -> None:
        self.assertEqual(m.task_transition("working", "completed"), "completed")
        with self.assertRaises(m.MrtrError.Task) as cm:
            m.task_transition("completed", "working")
        self.assertEqual(cm.exception.rule, "task-transition-invalid")

    def test_association_area(self) -> None:
        areas = {r.name: r.area for r in m.rules()}
        self.assertEqual(areas["server-request-on-stream"], m.ErrorArea.ASSOCIATION)
        self.assertEqual(areas["retry-id-reused"], m.ErrorArea.RETRY)

    def test_usage(self) -> None:
        with self.assertRaises(m.MrtrError.Usage) as cm:
            m.KeyRing(1, "aes-256-gcm", bytes(31))
        self.assertEqual((cm.exception.rule, cm.exception.code), ("usage-invalid-argument", None))
        with self.assertRaises(m.MrtrError.Usage) as cm:
            m.Client(P, 10).answer(99, "{}", "2")
        self.assertEqual(cm.exception.rule, "usage-unknown-handle")

    def test_every_rule_of_the_table_raises_the_class_of_its_area(self) -> None:
        rules = m.rules()
        self.assertGreaterEqual(len(rules), 46)
        for r in rules:
            with self.assertRaises(m.MrtrError) as cm:
                m.test_only_error(r.name)
            self.assertEqual(cm.exception.rule, r.name)
            self.assertEqual(type(cm.exception).__name__.upper(), r.area.name, r.name)
            self.assertIsInstance(cm.exception, getattr(m.MrtrError, r.area.name.title()))
        self.assertEqual({r.area for r in rules}, set(m.ErrorArea))
        areas = {r.name: r.area for r in rules}
        self.assertEqual(areas["input-responses-malformed"], m.ErrorArea.RETRY)
        self.assertEqual(areas["sse-retry-ignored"], m.ErrorArea.TRANSPORT)
        self.assertEqual(areas["internal-panic"], m.ErrorArea.PANIC)

    def test_bad_input_is_an_exception_never_a_crash(self) -> None:
        with self.assertRaises(m.MrtrError.Protocol) as cm:
            m.classify("[" * 500, P)
        self.assertEqual(cm.exception.rule, "limit-exceeded")
        # Wrong types and values are refused by the generated code before the call.
        for call, error in (
            (lambda: m.classify(None, P), TypeError),
            (lambda: m.classify_bytes("text", P), TypeError),
            (lambda: m.classify("\ud800", P), UnicodeEncodeError),
            (lambda: m.check("[]", P, 2**31), ValueError),
        ):
            with self.assertRaises(error):
                call()
        # Integers are signed (the JVM has no unsigned ones); one out of the core's range is the
        # caller's misuse, named, and refused by the binding before the core sees it.
        for call, named in (
            (lambda: m.KeyRing(300, "aes-256-gcm", bytes(32)), "id is out of range: 300"),
            (lambda: m.check("[]", P, -1), "max_rounds is out of range: -1"),
            (lambda: m.KeyRing(1, "aes-256-gcm", bytes(32)).set_seal_budget(-5), "seals is out of range: -5"),
        ):
            with self.assertRaises(m.MrtrError.Usage) as cm:
                call()
            self.assertEqual((cm.exception.rule, cm.exception.message), ("usage-invalid-argument", named))

    def test_every_failure_is_an_mrtr_error(self) -> None:
        for call in (lambda: m.classify("[]", P), lambda: m.task_transition("x", "y"), lambda: m.KeyRing(1, "rot13", bytes(32))):
            with self.assertRaises(m.MrtrError):
                call()

    def test_panics(self) -> None:
        with self.assertRaises(m.MrtrError.Panic) as cm:
            m.test_only_panic(True, "boom")
        self.assertEqual((cm.exception.rule, cm.exception.code), ("internal-panic", -32603))
        self.assertIn("boom", cm.exception.message)
        with self.assertRaises(m.InternalError) as raw:
            m.test_only_panic(False, "raw boom")
        self.assertIn("raw boom", str(raw.exception))
        self.assertEqual(m.classify(CALL, P).kind, m.MessageKind.REQUEST)


def digest(params: object) -> bytes:
    return m.params_digest(json.dumps(params))


def binding(subject: "str | None" = "alice", anonymous: bool = False, target: str = "t", arguments: object = None) -> m.Binding:
    params = {"name": target, "arguments": arguments if arguments is not None else {"a": 1}}
    return m.Binding(subject=subject, anonymous=anonymous, protocol=P, method="tools/call", target=target, params_digest=digest(params))


class MemoryGuard:
    """A replay guard in memory (the callback interface ``m.ReplayGuard``): first use wins."""

    def __init__(self) -> None:
        self.used: "dict[str, int]" = {}

    def first_use(self, state_id: str, expiry: int) -> bool:
        if state_id in self.used:
            return False
        self.used[state_id] = expiry
        return True


class SealedState(unittest.TestCase):
    """Each attack of security issue #13 the binding's surface carried."""

    def setUp(self) -> None:
        self.ring = m.KeyRing(1, "aes-256-gcm", secrets.token_bytes(32))

    def rule(self, call: "object") -> str:
        with self.assertRaises(m.MrtrError) as cm:
            call()  # type: ignore[operator]
        return cm.exception.rule

    def test_no_default_anonymous_subject(self) -> None:
        for b in (binding(subject=None), binding(subject=""), binding(subject="alice", anonymous=True)):
            with self.assertRaises(m.MrtrError.Usage):
                self.ring.seal(b, 1000, 60, b"x")
        anon = binding(subject=None, anonymous=True)
        token = self.ring.seal(anon, 1000, 60, b"x")
        self.assertEqual(self.ring.open(token, anon, 1001, None).payload, b"x")
        self.assertEqual(self.rule(lambda: self.ring.open(token, binding(subject="anonymous"), 1001, None)), "state-wrong-subject")
        self.assertEqual(self.rule(lambda: self.ring.open(token, binding(subject=None), 1001, None)), "usage-invalid-argument")
        with self.assertRaises(m.MrtrError.Usage):
            m.binding_for_request(CALL, None, False, P)
        with self.assertRaises(m.MrtrError.Usage):
            m.binding_from_json('{"method":"tools/call","target":"t","params":{}}')
        self.assertEqual(m.binding_for_request(CALL, None, True, P).subject, None)

    def test_no_implicit_empty_params(self) -> None:
        self.assertNotEqual(m.params_digest('{"name":"t","arguments":{"a":1}}'), m.params_digest("{}"))
        self.assertEqual(m.params_digest('{"arguments":{"a":1.0},"name":"t","_meta":{}}'), m.params_digest('{"name":"t","arguments":{"a":1}}'))
        self.assertNotEqual(m.params_digest('{"n":100000000000000000001}'), m.params_digest('{"n":1e20}'))
        unset = binding()
        unset.params_digest = bytes(32)
        self.assertEqual(self.rule(lambda: self.ring.seal(unset, 1000, 60, b"x")), "usage-invalid-argument")
        self.assertEqual(self.rule(lambda: m.binding_from_json('{"subject":"a","method":"tools/call","target":"t"}')), "usage-invalid-argument")
        # The request's own binding: its arguments are bound, exactly.
        b = m.binding_for_request(CALL, "alice", False, P)
        self.assertEqual(b.params_digest, m.params_digest(json.dumps(json.loads(CALL)["params"])))
        token = self.ring.seal(b, 1000, 60, b"x")
        other = json.loads(CALL)
        other["params"]["arguments"]["location"] = "LA"
        self.assertEqual(self.rule(lambda: self.ring.open(token, m.binding_for_request(json.dumps(other), "alice", False, P), 1001, None)), "state-wrong-request")
        from_json = m.binding_from_json(json.dumps({"subject": "alice", "protocol": P, "method": "tools/call", "target": "get_weather", "params": json.loads(CALL)["params"]}))
        self.assertEqual(from_json, b)

    def test_the_nonce_seal_is_test_only(self) -> None:
        b = binding()
        one = self.ring.test_only_seal_with_nonce(b, 1000, 60, b"x", bytes(12))
        self.assertEqual(one, self.ring.test_only_seal_with_nonce(b, 1000, 60, b"x", bytes(12)))
        self.assertEqual(self.ring.open(one, b, 1001, None).state_id, "00" * 12)
        # The shipped bindings lack it: scripts/tests/60-uniffi.sh checks the library and generated/.
        self.assertNotEqual(self.ring.seal(b, 1000, 60, b"x"), self.ring.seal(b, 1000, 60, b"x"))

    def test_a_replay_is_refused_by_the_guard(self) -> None:
        b, guard = binding(), MemoryGuard()
        token = self.ring.seal(b, 1000, 60, b"x")
        self.assertEqual(self.rule(lambda: self.ring.open(token, binding(subject="bob"), 1001, guard)), "state-wrong-subject")
        self.assertEqual(guard.used, {})  # refused first for another reason: not used up
        opened = self.ring.open(token, b, 1001, guard)
        self.assertEqual((opened.payload, opened.expiry, guard.used), (b"x", 1060, {opened.state_id: 1060}))
        info = m.inspect(token)
        self.assertEqual((info.state_id, info.key_id, info.algorithm, info.expiry), (opened.state_id, 1, "aes-256-gcm", 1060))
        with self.assertRaises(m.MrtrError.State) as cm:
            self.ring.open(token, b, 1002, guard)
        self.assertEqual((cm.exception.rule, cm.exception.code), ("state-replayed", -32602))
        self.assertEqual(self.ring.open(token, b, 1002, None).payload, b"x")  # no guard: the host's choice

    def test_a_guard_that_raises_fails_closed(self) -> None:
        b = binding()
        token = self.ring.seal(b, 1000, 60, b"x")

        class Raising:
            def __init__(self, error: Exception) -> None:
                self.error = error

            def first_use(self, state_id: str, expiry: int) -> bool:
                raise self.error

        own = m.MrtrError.Usage(rule="usage-invalid-argument", code=None, message="the store is down", data=None)
        with self.assertRaises(m.MrtrError.Usage) as cm:
            self.ring.open(token, b, 1001, Raising(own))
        self.assertEqual(cm.exception.message, "the store is down")
        with self.assertRaises(m.MrtrError.Usage) as cm:
            self.ring.open(token, b, 1001, Raising(RuntimeError("redis timeout")))
        self.assertIn("redis timeout", cm.exception.message)

    def test_context_separation(self) -> None:
        secret = secrets.token_bytes(32)
        staging, production = m.KeyRing(1, "xchacha20-poly1305", secret), m.KeyRing(1, "xchacha20-poly1305", secret)
        staging.set_context(b"staging")
        production.set_context(b"production")
        b = binding()
        token = staging.seal(b, 1000, 60, b"x")
        self.assertEqual(staging.open(token, b, 1001, None).payload, b"x")
        self.assertEqual(self.rule(lambda: production.open(token, b, 1001, None)), "state-tampered")
        with self.assertRaises(m.MrtrError.Usage):
            production.set_context(b"x" * 65)

    def test_seal_budget(self) -> None:
        b = binding()
        self.ring.set_seal_budget(2)
        self.ring.seal(b, 1000, 60, b"x")
        self.ring.seal(b, 1000, 60, b"x")
        with self.assertRaises(m.MrtrError.Usage) as cm:
            self.ring.seal(b, 1000, 60, b"x")
        self.assertEqual(cm.exception.rule, "usage-seal-budget-spent")
        self.assertEqual((self.ring.seals(1), self.ring.seals(9)), (2, None))
        self.ring.add(2, "xchacha20-poly1305", secrets.token_bytes(32))
        self.assertTrue(self.ring.set_current(2))
        self.ring.seal(b, 1000, 60, b"x")
        self.assertEqual(self.ring.seals(2), 1)

    def test_rotation_under_concurrent_open(self) -> None:
        b = binding()
        fixed = self.ring.seal(b, 1000, 60, b"fixed")
        failures: "list[str]" = []

        def opener() -> None:
            for _ in range(200):
                try:
                    if self.ring.open(fixed, b, 1001, None).payload != b"fixed":
                        failures.append("payload")
                except Exception as e:  # noqa: BLE001
                    failures.append(repr(e))

        def rotator() -> None:
            for i in range(200):
                key = 2 + i % 2
                self.ring.add(key, "xchacha20-poly1305", bytes([key]) * 32)
                self.ring.set_current(key)
                self.ring.remove(5 - key)

        threads = [threading.Thread(target=opener) for _ in range(3)] + [threading.Thread(target=rotator)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(failures, [])


class Api(unittest.TestCase):
    def test_client_machine(self) -> None:
        client = m.Client(P, 10)
        h = client.send(CALL)
        self.assertEqual(json.loads(client.poll_transmit())["id"], 1)
        client.handle_response(m.respond(CALL, ASK, '"s1"', P))
        event = client.poll_event()
        self.assertIsInstance(event, m.ClientEvent.INPUT_REQUIRED)
        self.assertEqual((event.handle, event.round), (h, 0))
        client.answer(h, ANSWER, "2")
        self.assertEqual(json.loads(client.poll_transmit())["params"]["requestState"], "s1")
        client.handle_response('{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}')
        self.assertIsInstance(client.poll_event(), m.ClientEvent.DONE)
        self.assertIsNone(client.poll_event())

    def test_checker(self) -> None:
        c = m.Checker(P, 10)
        c.handle(m.Side.CLIENT, CALL, None)
        c.handle(m.Side.SERVER, '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}', "post:1")
        self.assertEqual([v.rule for v in c.violations()], ["result-type-missing"])


TOOL_CALL = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "deploy", "arguments": {}}})
CONFIG_1335 = json.dumps({"mode": "sep-1335", "url": "https://example.com/mcp", "protocol": "2025-11-25"})
ELICIT = {"jsonrpc": "2.0", "id": "e1", "method": "elicitation/create", "params": {"message": "Env?", "requestedSchema": {"type": "object", "properties": {}}}}
HTTP_ENTRIES = [
    {"from": "client", "http": {"exchange": "e1", "method": "POST", "url": "https://mcp.example.com/mcp", "headers": {"content-type": "application/json"}, "body": json.loads(TOOL_CALL)}},
    {"from": "server", "http": {"exchange": "e1", "status": 200, "headers": {"content-type": "text/event-stream"}, "events": [{"event": "buffer_input", "id": "2"}, {"id": "3", "data": ELICIT}, {"event": "input_required", "id": "4"}], "end": True}},
    # The buffered answers without Last-Event-ID: sse-last-event-id-missing at index 2 under sep-1858.
    {"from": "client", "http": {"exchange": "e2", "method": "POST", "url": "https://mcp.example.com/mcp", "headers": {"content-type": "application/json"}, "body": [{"jsonrpc": "2.0", "id": "e1", "result": {"action": "accept"}}]}},
    {"from": "server", "http": {"exchange": "e2", "status": 202, "headers": {}, "end": True}},
]


def drain_events(call: "m.HttpCall") -> list:
    events = []
    while (e := call.poll_event()) is not None:
        events.append(e)
    return events


class Transports(unittest.TestCase):
    def test_sse_decoder(self) -> None:
        d = m.SseDecoder()
        for chunk in (b"data: caf\xc3", b"\xa9\r", b"\n: note\nid: 7\r\n\r\n"):
            d.feed(chunk)
        self.assertEqual(d.poll_event(), m.SseEvent(data="café", id="7"))
        self.assertIsNone(d.poll_event())
        # A chunk that is not UTF-8: its block raises the core's rule, and decoding goes on.
        d.feed(b"data: \xff\xfe\n\nevent: input_required\nid: 8\n\n")
        with self.assertRaises(m.MrtrError.Protocol) as cm:
            d.poll_event()
        self.assertEqual(cm.exception.rule, "jsonrpc-parse-error")
        self.assertEqual(d.poll_event(), m.SseEvent(event="input_required", id="8"))
        d.feed(b"data: lost")
        d.finish()
        self.assertIsNone(d.poll_event())
        # A block over the bound: limit-exceeded, never buffered whole.
        small = m.SseDecoder(16)
        small.feed(b"data: " + b"x" * 10_000 + b"\n\nretry: 250\n\n")
        with self.assertRaises(m.MrtrError.Protocol) as cm:
            small.poll_event()
        self.assertEqual(cm.exception.rule, "limit-exceeded")
        self.assertEqual(small.poll_event(), m.SseEvent(retry=250))

    def test_sse_encode(self) -> None:
        event = m.SseEvent(event="message", data="line 1\nline 2", id="k.1", retry=100)
        text = m.sse_encode(event)
        self.assertIn("data: line 1\ndata: line 2\n", text)
        d = m.SseDecoder()
        d.feed(text.encode())
        self.assertEqual(d.poll_event(), event)
        self.assertEqual(m.sse_encode(m.SseEvent()), "")
        for bad in (m.SseEvent(id="a\nb"), m.SseEvent(event="a\rb"), m.SseEvent(id="a\0b")):
            with self.assertRaises(m.MrtrError.Usage) as cm:
                m.sse_encode(bad)
            self.assertEqual(cm.exception.rule, "usage-invalid-argument")

    def test_operation_answers_each_question_by_key(self) -> None:
        op = m.Operation(json.dumps({"mode": "2026-07-28", "url": "https://example.com/mcp"}), CALL, 0)
        units = {"method": "elicitation/create", "params": {"mode": "form", "message": "Units?",
                 "requestedSchema": {"type": "object", "properties": {"units": {"type": "string"}}, "required": ["units"]}}}

        def respond(sent: "m.HttpRequest", body: dict, now: int) -> None:
            op.handle_head(sent.exchange, 200, {"content-type": "application/json"}, now)
            op.handle_body(sent.exchange, json.dumps(body).encode(), now)
            op.handle_end(sent.exchange, now)

        asked = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "r1", "inputRequests": {"units": units}}}
        respond(op.poll_transmit(), asked, 1)
        event = op.poll_event()
        self.assertIsInstance(event, m.OperationEvent.INPUT_REQUIRED)
        self.assertEqual(json.loads(event.requests_json), {"units": units})
        with self.assertRaises(m.MrtrError.Retry) as cm:
            op.answer("units", json.dumps({"action": "accept", "content": {"units": 7}}), 2)
        self.assertEqual(cm.exception.rule, "retry-input-response-invalid")
        # The host restarts at the question: another operation goes on from the snapshot, and asks again.
        config = json.dumps({"mode": "2026-07-28", "url": "https://example.com/mcp"})
        op = m.Operation.restore(config, op.snapshot(2), 500)
        self.assertIsInstance(op.poll_event(), m.OperationEvent.INPUT_REQUIRED)
        with self.assertRaises(m.MrtrError.Usage):
            m.Operation.restore(json.dumps({"mode": "sep-1858", "url": "https://example.com/mcp"}), op.snapshot(2), 500)
        op.answer("units", json.dumps({"action": "accept", "content": {"units": "C"}}), 2)
        retry = op.poll_transmit()
        body = json.loads(retry.body_json)
        self.assertEqual((body["id"], body["params"]["requestState"]), ("1.1", "r1"))
        respond(retry, {"jsonrpc": "2.0", "id": "1.1", "result": {"resultType": "complete", "content": [], "isError": False}}, 3)
        done = op.poll_event()
        self.assertIsInstance(done, m.OperationEvent.DONE)
        self.assertEqual(json.loads(done.response_json)["id"], "1.1")
        self.assertTrue(op.is_drained())

    def test_http_call_json_response(self) -> None:
        call = m.HttpCall(json.dumps({"mode": "2026-07-28", "url": "https://example.com/mcp", "headers": {"Authorization": "t"}}), CALL, 0)
        sent = call.poll_transmit()
        self.assertEqual((sent.exchange, sent.method, sent.headers["authorization"]), (1, "POST", "t"))
        self.assertEqual(json.loads(sent.body_json)["id"], 1)
        self.assertIsNone(call.poll_transmit())
        self.assertIsNone(call.poll_timeout())
        with self.assertRaises(m.MrtrError.Usage) as cm:
            call.handle_body(1, b"{", 0)
        self.assertEqual(cm.exception.rule, "usage-out-of-turn")
        with self.assertRaises(m.MrtrError.Usage) as cm:
            call.handle_head(9, 200, {}, 0)
        self.assertEqual(cm.exception.rule, "usage-unknown-handle")
        call.handle_head(1, 200, {"Content-Type": "application/json"}, 5)
        result = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}'
        call.handle_body(1, result[:10], 6)
        call.handle_body(1, result[10:], 6)
        self.assertFalse(call.is_done())
        call.handle_end(1, 7)
        [event] = drain_events(call)
        self.assertIsInstance(event, m.HttpCallEvent.RESPONSE)
        self.assertEqual(json.loads(event.message_json)["result"]["content"], [])
        self.assertTrue(call.is_done())

    def test_http_call_sep_1335(self) -> None:
        call = m.HttpCall(CONFIG_1335, TOOL_CALL, 1000)
        call.poll_transmit()
        call.handle_head(1, 200, {"content-type": "text/event-stream", "link": '</mcp?stream=abc>; rel="stream"'}, 1000)
        call.handle_body(1, b"id: a.1\ndata: " + json.dumps(ELICIT).encode() + b"\n\nid: a.2\nretry: 1500\n\n", 1000)
        [event] = drain_events(call)
        self.assertIsInstance(event, m.HttpCallEvent.SERVER_REQUEST)
        self.assertEqual(json.loads(event.message_json)["method"], "elicitation/create")
        call.handle_end(1, 1000)
        self.assertEqual(call.poll_timeout(), 2500)
        call.answer('{"jsonrpc":"2.0","id":"e1","result":{"action":"accept"}}', 1200)
        self.assertIsNone(call.poll_transmit())  # kept until the stream says 204
        call.handle_timeout(2500)
        get = call.poll_transmit()
        self.assertEqual((get.method, get.url, get.headers["last-event-id"]), ("GET", "https://example.com/mcp?stream=abc", "a.2"))
        call.handle_head(get.exchange, 204, {}, 2500)
        call.handle_end(get.exchange, 2500)
        post = call.poll_transmit()
        self.assertEqual((post.method, post.url), ("POST", "https://example.com/mcp?stream=abc"))
        self.assertEqual(len(json.loads(post.body_json)), 1)

    def test_http_call_bad_input(self) -> None:
        # A 1000-link Link header: past the call's bounds, the call fails with limit-exceeded.
        call = m.HttpCall(CONFIG_1335, TOOL_CALL, 0)
        call.poll_transmit()
        links = ", ".join(f'</l{i}>; rel="next"' for i in range(1000))
        call.handle_head(1, 200, {"content-type": "text/event-stream", "link": links}, 0)
        [event] = drain_events(call)
        self.assertIsInstance(event, m.HttpCallEvent.FAILED)
        self.assertEqual(event.rule, "limit-exceeded")
        self.assertTrue(call.is_done())
        # An event stream that is not UTF-8.
        call = m.HttpCall(CONFIG_1335, TOOL_CALL, 0)
        call.poll_transmit()
        call.handle_head(1, 200, {"content-type": "text/event-stream"}, 0)
        call.handle_body(1, b"data: \xc3\x28\n\n", 0)
        [event] = drain_events(call)
        self.assertEqual((type(event), event.rule), (m.HttpCallEvent.FAILED, "jsonrpc-parse-error"))
        # Bad configurations and requests; answers to nothing asked.
        for config, request in (
            ("{}", TOOL_CALL),
            ('{"mode":"sep-9999","url":"https://e.com"}', TOOL_CALL),
            ('{"mode":"sep-1858","url":"not a url"}', TOOL_CALL),
            ('{"mode":"sep-1858","url":"https://e.com","maxLinks":-1}', TOOL_CALL),
            (CONFIG_1335, '{"jsonrpc":"2.0","method":"ping"}'),
            (CONFIG_1335, '{"jsonrpc"'),
        ):
            with self.assertRaises(m.MrtrError.Usage):
                m.HttpCall(config, request, 0)
        with self.assertRaises(m.MrtrError.Usage) as cm:
            m.HttpCall(CONFIG_1335, TOOL_CALL, 0).answer('{"jsonrpc":"2.0","id":"e1","result":{}}', 0)
        self.assertEqual(cm.exception.rule, "usage-out-of-turn")
        # What UniFFI's generated code refuses before the call (Python has no NULL pointer).
        for bad, error in (
            (lambda: m.HttpCall(None, TOOL_CALL, 0), TypeError),
            (lambda: m.SseDecoder().feed("text"), TypeError),
            (lambda: call.handle_head(1, 200, {"a": None}, 0), TypeError),
        ):
            with self.assertRaises(error):
                bad()
        for bad, named in (
            (lambda: m.HttpCall(CONFIG_1335, TOOL_CALL, -1), "now_ms is out of range: -1"),
            (lambda: call.handle_head(1, 70000, {}, 0), "status is out of range: 70000"),
            (lambda: call.handle_head(-1, 200, {}, 0), "exchange is out of range: -1"),
        ):
            with self.assertRaises(m.MrtrError.Usage) as cm:
                bad()
            self.assertEqual(cm.exception.message, named)

    def test_server_side(self) -> None:
        stream = m.ServerStream("sep-1858", "k1", 1)
        self.assertEqual(stream.head(None)["content-type"], "text/event-stream")
        self.assertEqual(stream.ask(json.dumps([ELICIT]), 0), "k1.3")  # buffer_input, the request, input_required
        with self.assertRaises(m.MrtrError.Usage) as cm:
            stream.retry(10)
        self.assertEqual(cm.exception.rule, "usage-out-of-turn")
        d = m.SseDecoder()
        d.feed(stream.take().encode())
        blocks = [d.poll_event() for _ in range(3)]
        self.assertEqual([b.event for b in blocks], ["buffer_input", None, "input_required"])
        self.assertEqual(json.loads(blocks[1].data), ELICIT)
        self.assertEqual(stream.take(), "")
        url = m.stream_url("https://example.com/mcp", "k1")
        self.assertEqual(url, "https://example.com/mcp?stream=k1")
        s1335 = m.ServerStream("sep-1335", "k1", 1)
        self.assertEqual(s1335.head(url)["link"], f'<{url}>; rel="stream"')
        with self.assertRaises(m.MrtrError.Usage):
            m.ServerStream("2026-07-28", "k1", 1).ask(json.dumps([ELICIT]), 0)
        for mode, key in (("sep-1858", ""), ("sep-1858", "a\nb"), ("sep-9999", "k")):
            with self.assertRaises(m.MrtrError.Usage):
                m.ServerStream(mode, key, 1)
        # Incoming requests.
        answers = m.read_http_request("sep-1858", "POST", "https://example.com/mcp", {"Last-Event-ID": "k1.3"}, b'[{"jsonrpc":"2.0","id":"e1","result":{"action":"accept"}}]', "2025-11-25")
        self.assertIsInstance(answers, m.Incoming.ANSWERS)
        self.assertEqual((answers.key, [json.loads(r)["id"] for r in answers.responses_json]), ("k1", ["e1"]))
        resume = m.read_http_request("sep-1335", "GET", url, {}, b"", "2025-11-25")
        self.assertEqual((type(resume), resume.key, resume.last_event_id), (m.Incoming.RESUME, "k1", None))
        call = m.read_http_request("sep-1335", "POST", "https://example.com/mcp", {}, TOOL_CALL.encode(), "2025-11-25")
        self.assertEqual(json.loads(call.message_json)["id"], 7)
        for body in (b'["\xff"]', b""):
            with self.assertRaises(m.MrtrError.Protocol) as cm:
                m.read_http_request("sep-1335", "POST", "https://example.com/mcp", {}, body, "2025-11-25")
            self.assertEqual(cm.exception.rule, "jsonrpc-parse-error")
        # A server request outside any call.
        reply = json.loads(m.unassociated_reply('{"jsonrpc":"2.0","id":5,"method":"roots/list"}'))
        self.assertEqual((reply["id"], reply["error"]["code"]), (5, -32602))
        self.assertIsNone(m.unassociated_reply('{"jsonrpc":"2.0","id":5,"method":"ping"}'))

    def test_checker_with_transport(self) -> None:
        transcript = json.dumps(HTTP_ENTRIES)
        found = [(v.rule, v.index) for v in m.check(transcript, "2025-11-25", 10, "sep-1858")]
        self.assertIn(("sse-last-event-id-missing", 2), found)
        self.assertNotIn(("sse-last-event-id-missing", 2), [(v.rule, v.index) for v in m.check(transcript, "2025-11-25", 10)])
        c = m.Checker("2025-11-25", 10, "sep-1858")
        for entry in HTTP_ENTRIES:
            c.handle_entry(json.dumps(entry))
        with self.assertRaises(m.MrtrError.Usage):
            c.handle_entry('{"from":"client","http":[]}')
        self.assertEqual([(v.rule, v.index) for v in c.violations()], [(v.rule, v.index) for v in m.check(transcript, "2025-11-25", 10, "sep-1858")])
        with self.assertRaises(m.MrtrError.Usage):
            m.Checker("2025-11-25", 10, "sep-9999")
        with self.assertRaises(m.MrtrError.Protocol):
            m.check("[]", "1999-01-01", 10, "sep-1858")


    def test_await_style_tool_over_sealed_rounds(self) -> None:
        """The await-style tool the export table declares: round one misses the answer and asks with sealed
        state; the retry carries the answer, the replay gives it, the tool completes; the state is single-use
        under the guard, and bound to its principal."""
        ring = m.KeyRing(1, "aes-256-gcm", secrets.token_bytes(32))
        settings = json.dumps({"ttl": 300, "protocol": P})
        alice = json.dumps({"subject": "alice", "now": 1000})
        question = m.question_elicit("GitHub user?", json.dumps({"type": "object", "properties": {"name": {"type": "string"}}}))
        replay = ring.start_tool_replay(CALL, settings, alice, None)
        self.assertIsNone(replay.ask(question, "login"))
        self.assertEqual(replay.round(), 0)
        asked = json.loads(replay.input_required(ring, None))
        self.assertEqual(asked["result"]["resultType"], "input_required")
        self.assertIn("login", asked["result"]["inputRequests"])
        retry = m.retry(CALL, json.dumps(asked), ANSWER, "2", P)
        used: dict = {}

        class Once(m.ReplayGuard):
            def first_use(self, state_id: str, expiry: int) -> bool:
                if state_id in used:
                    return False
                used[state_id] = expiry
                return True

        again = ring.start_tool_replay(retry, settings, json.dumps({"subject": "alice", "now": 1010}), Once())
        self.assertEqual(json.loads(again.ask(question, "login"))["content"], {"name": "octocat"})
        self.assertEqual(again.round(), 1)
        done = json.loads(again.complete(json.dumps({"content": []})))
        self.assertEqual((done["id"], done["result"]["resultType"], done["result"]["content"]), (2, "complete", []))
        with self.assertRaises(m.MrtrError.State):
            ring.start_tool_replay(retry, settings, json.dumps({"subject": "mallory", "now": 1010}), None)
        # Sealed rounds without the replay: the same state, read by resume_round, is used up under the guard.
        with self.assertRaises(m.MrtrError.State) as replayed:
            ring.resume_round(retry, ASK, settings, json.dumps({"subject": "alice", "now": 1010}), Once())
        self.assertEqual(replayed.exception.rule, "state-replayed")

    def test_server_builders_and_bridge(self) -> None:
        """The server's builders and the 2025-11-25 bridge, as the table declares them."""
        done = json.loads(m.complete(CALL, json.dumps({"content": []}), P))
        self.assertEqual(done["id"], 1)
        sample = m.question_sample(json.dumps({"messages": [], "maxTokens": 5}))
        with self.assertRaises(m.MrtrError.Protocol) as missing:
            m.require_capabilities(CALL, json.dumps({"s": json.loads(sample)}), P)
        self.assertEqual((missing.exception.rule, missing.exception.code), ("request-capability-missing", -32021))
        self.assertIn("requiredCapabilities", json.loads(missing.exception.data))
        self.assertIsNone(m.require_capabilities(CALL, ASK, P))  # elicitation was declared: it passes
        e = missing.exception
        answer = m.error_response("1", e.rule, e.message, e.data, P)
        self.assertEqual(answer.status, 400)
        self.assertEqual(json.loads(answer.response_json)["error"]["code"], -32021)
        legacy = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "t", "arguments": {}}})
        bridge = m.ToolBridge(legacy, "k1k1k1k1k1k1k1k1", None)
        question = m.question_elicit("Name?", json.dumps({"type": "object", "properties": {"v": {"type": "string"}}}))
        replay = bridge.replay()
        self.assertIsNone(replay.ask(question, None))
        bridge.ask(replay, 0)
        written = bridge.poll_write()
        (asked,) = [json.loads(line[5:]) for line in written.splitlines() if line.startswith("data:") and "elicitation/create" in line]
        self.assertEqual(bridge.pending(), [str(asked["id"])])
        answer = {"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"v": "Ada"}}}
        self.assertTrue(bridge.handle_answer(json.dumps(answer), 5))
        again = bridge.replay()
        self.assertEqual(json.loads(again.ask(question, None))["content"], {"v": "Ada"})
        bridge.complete(json.dumps({"content": [{"type": "text", "text": "hi Ada"}]}))
        while (text := bridge.poll_write()) is not None:
            written = text
        self.assertIn("hi Ada", written)
        self.assertTrue(bridge.is_done())

    def test_session(self) -> None:
        """The client's session: requests under fresh ids with the _meta declared once."""
        session = m.Session(json.dumps({"capabilities": {"elicitation": {}}, "firstId": 5}))
        call = json.loads(session.call_tool("weather", json.dumps({"city": "Paris"})))
        self.assertEqual(call["id"], 5)
        self.assertEqual(call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"], {"elicitation": {}})
        self.assertEqual(json.loads(session.read_resource("notes://today"))["id"], 6)
        with self.assertRaises(m.MrtrError.Usage):
            m.Session(json.dumps({"capabilities": []}))

def main() -> int:
    """Runs every test; closes with "uniffi-python: N passed, M failed"."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(__import__(__name__))
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    bad = len(result.failures) + len(result.errors)
    print(f"uniffi-python: {result.testsRun - bad} passed, {bad} failed")
    return 1 if bad or not result.testsRun else 0


if __name__ == "__main__":
    raise SystemExit(main())
