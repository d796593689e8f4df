"""The core issue's bad inputs, from Python: each an exception carrying `.rule`,
never a crash or a hang, whether given as raw JSON or as Python objects."""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Iterator

import pytest
from conftest import ASK, call

import mrtr
from mrtr import Rule

RESULT = b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}'


def rule_of(f: Callable[[], Any]) -> Rule:
    start = time.monotonic()
    with pytest.raises(mrtr.MrtrError) as e:
        f()
    assert time.monotonic() - start < 20, "bad input took too long"
    assert isinstance(e.value.rule, Rule)
    return e.value.rule


@pytest.fixture(scope="module")
def hundred_mb() -> Iterator[bytes]:
    # Built once for the module: a 100 MB string inside a request.
    head, tail = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"s":"', b'"}}'
    yield b"".join((head, b"a" * (100 << 20), tail))


def test_invalid_utf8_is_a_parse_error() -> None:
    bad = b'{"jsonrpc":"2.0","id":1,"method":"a\xff"}'
    assert rule_of(lambda: mrtr.classify(bad)) is Rule.JSONRPC_PARSE_ERROR
    assert rule_of(lambda: mrtr.classify(b"\xfe\xff")) is Rule.JSONRPC_PARSE_ERROR
    assert rule_of(lambda: mrtr.respond(bad, ASK)) is Rule.JSONRPC_PARSE_ERROR
    assert rule_of(lambda: mrtr.check(b'{"from":"client","message":"\xff"}')) is Rule.JSONRPC_PARSE_ERROR
    client = mrtr.Client()
    assert rule_of(lambda: client.handle_response(bad)) is Rule.JSONRPC_PARSE_ERROR


def test_every_truncation_is_a_parse_error() -> None:
    answer = json.dumps(mrtr.respond(call(), ASK, "s1")).encode()
    for cut in range(1, len(RESULT)):
        assert rule_of(lambda: mrtr.classify(RESULT[:cut])) is Rule.JSONRPC_PARSE_ERROR, cut
        assert rule_of(lambda: mrtr.classify(RESULT[:cut].decode())) is Rule.JSONRPC_PARSE_ERROR, cut
    for cut in range(1, len(answer), 7):
        assert rule_of(lambda: mrtr.retry(call(), answer[:cut], {}, 2)) is Rule.JSONRPC_PARSE_ERROR, cut


def test_ten_thousand_deep_nesting_is_over_the_depth_bound() -> None:
    deep = '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":' + "[" * 10_000 + "]" * 10_000 + "}}"
    assert rule_of(lambda: mrtr.classify(deep)) is Rule.LIMIT_EXCEEDED
    assert rule_of(lambda: mrtr.classify(deep.encode())) is Rule.LIMIT_EXCEEDED
    assert rule_of(lambda: mrtr.respond(deep, ASK)) is Rule.LIMIT_EXCEEDED
    nested: Any = []
    for _ in range(10_000):
        nested = [nested]
    request = call()
    request["params"]["arguments"] = {"a": nested}
    assert rule_of(lambda: mrtr.classify(request)) is Rule.LIMIT_EXCEEDED
    assert rule_of(lambda: mrtr.respond(request, ASK)) is Rule.LIMIT_EXCEEDED
    assert rule_of(lambda: mrtr.Client().send(request)) is Rule.LIMIT_EXCEEDED


def test_a_hundred_megabyte_string_is_over_the_message_bound(hundred_mb: bytes) -> None:
    assert rule_of(lambda: mrtr.classify(hundred_mb)) is Rule.LIMIT_EXCEEDED
    assert rule_of(lambda: mrtr.respond(hundred_mb, ASK)) is Rule.LIMIT_EXCEEDED
    assert rule_of(lambda: mrtr.Client().handle_response(hundred_mb)) is Rule.LIMIT_EXCEEDED
    text = hundred_mb.decode()
    assert rule_of(lambda: mrtr.classify(text)) is Rule.LIMIT_EXCEEDED
    as_dict = call()
    as_dict["params"]["arguments"] = {"s": text[60:-3]}
    assert rule_of(lambda: mrtr.classify(as_dict)) is Rule.LIMIT_EXCEEDED
    assert rule_of(lambda: mrtr.resume(as_dict, ASK)) is Rule.LIMIT_EXCEEDED


def test_duplicate_keys_are_invalid_wherever_they_are() -> None:
    dups = [
        b'{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}',
        b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"arguments":{"a":1,"a":2}}}',
        b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required",'
        b'"inputRequests":{"k":{"method":"roots/list"},"k":{"method":"roots/list"}}}}',
    ]
    for msg in dups:
        assert rule_of(lambda: mrtr.classify(msg)) is Rule.JSONRPC_INVALID
    assert rule_of(lambda: mrtr.respond(dups[1], ASK)) is Rule.JSONRPC_INVALID
    assert rule_of(lambda: mrtr.resume(call(), '{"k":{"method":"roots/list"},"k":{}}')) is Rule.JSONRPC_INVALID


def test_a_hundred_thousand_input_requests_are_over_the_bound() -> None:
    many = {f"k{i}": {"method": "roots/list"} for i in range(100_000)}
    msg = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": many}})
    assert rule_of(lambda: mrtr.classify(msg)) is Rule.LIMIT_EXCEEDED
    assert rule_of(lambda: mrtr.respond(call(), many)) is Rule.LIMIT_EXCEEDED
    client = mrtr.Client()
    client.send(call())
    assert rule_of(lambda: client.handle_response(msg.encode())) is Rule.LIMIT_EXCEEDED
    roomy = mrtr.Limits(max_input_requests=100_000)
    assert mrtr.classify(msg, limits=roomy).kind is mrtr.Kind.INPUT_REQUIRED


def test_an_oversized_request_state_is_refused() -> None:
    msg = '{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"' + "s" * 70_000 + '"}}'
    assert rule_of(lambda: mrtr.classify(msg)) is Rule.STATE_TOO_LARGE
    assert rule_of(lambda: mrtr.respond(call(), None, "s" * 70_000)) is Rule.STATE_TOO_LARGE


def test_garbage_of_every_shape_is_a_rule_not_a_crash() -> None:
    for junk in (b"", b" ", b"null", b"[]", b"[1]", b'"x"', b"{}", b"1e999", b'{"jsonrpc":"2.0"}', b"\x00"):
        assert isinstance(rule_of(lambda: mrtr.classify(junk)), Rule), junk
    for junk_obj in (None, [], "", 0, {"jsonrpc": "2.0"}):
        with pytest.raises((mrtr.MrtrError, TypeError)):
            mrtr.classify(junk_obj)  # type: ignore[arg-type]
