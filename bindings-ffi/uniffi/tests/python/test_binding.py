"""Unit tests of the UniFFI-generated Python module (``mrtr_uniffi``): the
exception hierarchy (one class per area, every rule of the core's table in
its area's class, ``.rule``, ``.code``, ``.message``),
panics, the client machine, the key ring and the checker. Standard library
``unittest`` only; run with the generated module and its ``.so`` on
``PYTHONPATH`` (``scripts/tests/60-uniffi.sh`` does).
"""

from __future__ import annotations

import json
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
        ring = m.KeyRing(1, "aes-256-gcm", bytes([7]) * 32)
        b = m.binding_for_request(CALL, "alice", P)
        with self.assertRaises(m.MrtrError.State) as cm:
            ring.open("!!", b, 1000)
        self.assertEqual((cm.exception.rule, cm.exception.code), ("state-malformed", -32602))
        token = ring.seal(b, 1000, 60, b"hello")
        self.assertEqual(ring.open(token, b, 1059), b"hello")
        with self.assertRaises(m.MrtrError.State) as cm:
            ring.open(token, b, 1060)
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
            (lambda: m.KeyRing(300, "aes-256-gcm", bytes(32)), ValueError),
            (lambda: m.check("[]", P, -1), ValueError),
            (lambda: m.classify("\ud800", P), UnicodeEncodeError),
        ):
            with self.assertRaises(error):
                call()

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


def main() -> int:
    """Runs every test; closes with "uniffi-python: N passed, M failed"."""
    suite = unittest.defaultTestLoader.loadTestsFromModule(__import__(__name__))
    result = unittest.TextTestRunner(verbosity=1).run(suite)
    bad = len(result.failures) + len(result.errors)
    print(f"uniffi-python: {result.testsRun - bad} passed, {bad} failed")
    return 1 if bad or not result.testsRun else 0


if __name__ == "__main__":
    raise SystemExit(main())
