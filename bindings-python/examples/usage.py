"""A typed tour of the mrtr package (checked with ``mypy --strict`` by scripts/tests/20-python.sh).

    python examples/usage.py
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Dict, List, Set

import mrtr
from mrtr import Kind, Protocol, Rule

META: Dict[str, Any] = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
}
CALL: Dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "get_weather", "arguments": {"location": "NYC"}, "_meta": META},
}
ASK: Dict[str, Any] = {
    "units": {
        "method": "elicitation/create",
        "params": {
            "message": "Which units?",
            "requestedSchema": {"type": "object", "properties": {"units": {"type": "string"}}},
        },
    }
}


def server_and_client() -> str:
    answer = mrtr.respond(CALL, ASK, "s1")  # server: input_required
    retry = mrtr.retry(CALL, answer, {"units": {"action": "accept", "content": {"units": "F"}}}, 2)
    got: mrtr.Resumed = mrtr.resume(retry, ASK)  # server: what came back
    assert got.complete and got.request_state == "s1"
    units: str = got.responses["units"]["content"]["units"]
    return units


def classify_raw(wire: bytes) -> Kind:
    c: mrtr.Classified = mrtr.classify(wire, protocol=Protocol.V2026_07_28)
    return c.kind


def machine() -> Dict[str, Any]:
    client = mrtr.Client(max_rounds=5)
    handle: int = client.send(CALL)
    outbox: List[Dict[str, Any]] = client.drain_transmits()
    assert outbox == [CALL]
    client.handle_response(json.dumps(mrtr.respond(CALL, ASK, "s1")))
    while True:
        event = client.poll_event()
        if event is None:
            raise RuntimeError("the machine is waiting for a response")
        if event["type"] == "inputRequired":
            responses = {key: {"action": "accept", "content": {"units": "C"}} for key in event["inputRequests"]}
            client.answer(event["handle"], responses, 2)
            sent = client.poll_transmit()
            assert sent is not None
            client.handle_response({"jsonrpc": "2.0", "id": sent["id"], "result": {"resultType": "complete"}})
        elif event["type"] == "retryNow":
            client.answer(event["handle"], {}, 3)
        else:
            assert event["handle"] == handle
            response: Dict[str, Any] = event["response"]
            return response


def errors() -> Rule:
    try:
        mrtr.classify(b'{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}')
    except mrtr.ProtocolError as e:
        code: int | None = e.code
        assert code == -32600
        return e.rule
    raise AssertionError("duplicate keys are refused")


def conversation() -> List[mrtr.Violation]:
    answer = mrtr.respond(CALL, ASK, "s1")
    retry = mrtr.retry(CALL, answer, {"units": {"action": "decline"}}, 2)
    retry["params"]["requestState"] = "forged"
    entries = [{"from": "client", "message": CALL}, {"from": "server", "message": answer}]
    return mrtr.check(entries + [{"from": "client", "message": retry}], protocol="2026-07-28")


# In a deployment: 32 random bytes from the secrets manager, shared by every instance.
RING = mrtr.KeyRing(1, mrtr.Algorithm.XAES_256_GCM, secret=secrets.token_bytes(32))
RING.set_context("usage example")


def sealed() -> mrtr.Opened:
    binding = mrtr.binding_for(CALL, "alice")  # or anonymous=True, by explicit choice
    token: str = RING.seal(binding, now=1_000, ttl=300, payload=b"step 1")
    info: mrtr.TokenInfo = mrtr.inspect(token)  # public: no key needed
    opened = RING.open(token, binding, now=1_001)
    assert (opened.state_id, opened.expiry) == (info.state_id, 1_300)
    return opened


def rounds() -> mrtr.Round:
    used: Set[str] = set()

    def first_use(state_id: str, expiry: int) -> bool:  # a shared store behind a load balancer
        if state_id in used:
            return False
        used.add(state_id)
        return True

    server = mrtr.SealedRounds(RING, ttl=300)  # settings once; the principal and the clock per call
    first = server.resume(CALL, ASK, subject="alice", now=1_000, guard=first_use)
    answer = server.respond(CALL, first, ASK, data={"step": 1}, subject="alice", now=1_000)
    retry = mrtr.retry(CALL, answer, {"units": {"action": "accept", "content": {"units": "C"}}}, 2)
    done = server.resume(retry, ASK, subject="alice", now=1_010, guard=first_use)
    assert done.complete and done.round == 1 and done.data == {"step": 1}
    try:
        server.resume(retry, ASK, subject="alice", now=1_011, guard=first_use)
        raise AssertionError("a state is single-use under a guard")
    except mrtr.StateError as e:
        assert e.rule is Rule.STATE_REPLAYED
    return done


def main() -> None:
    print("units:", server_and_client())
    print("kind:", classify_raw(b'{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"s"}}'))
    print("done:", machine()["result"])
    print("refused:", errors())
    print("violations:", [(v.rule.value, v.index) for v in conversation()])
    print("opened:", sealed())
    print("round:", rounds())
    print("terminal:", [s.value for s in mrtr.TaskStatus if s.is_terminal])


if __name__ == "__main__":
    main()
