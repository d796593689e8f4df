"""Errors: every area's class raised for real, every rule mapped, enums matching the core."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Callable

import pytest
from conftest import ANSWER, ASK, META, call

import mrtr
from mrtr import Rule, _mrtr
from mrtr._errors import _AREAS

STUB = Path(mrtr.__file__).with_name("_enums.pyi")


def raised(f: Callable[[], Any]) -> mrtr.MrtrError:
    with pytest.raises(mrtr.MrtrError) as e:
        f()
    return e.value


def test_each_area_raises_its_class_with_rule_code_and_message() -> None:
    p = raised(lambda: mrtr.classify(b'{"jsonrpc":"1.0","id":1,"method":"x"}'))
    assert type(p) is mrtr.ProtocolError and p.rule is Rule.JSONRPC_INVALID and p.code == -32600

    answer = mrtr.respond(call(), ASK, "s1")
    r = raised(lambda: mrtr.retry(call(), answer, {}, 2))
    assert type(r) is mrtr.RetryError and r.rule is Rule.RETRY_MISSING_INPUT_RESPONSE and r.code is None

    ring = mrtr.KeyRing(mrtr.Key(1, "aes-256-gcm", bytes(32)))
    binding = mrtr.Binding("alice", "tools/call", "get_weather")
    s = raised(lambda: ring.open("not a token!", binding, 0))
    assert type(s) is mrtr.StateError and s.rule is Rule.STATE_MALFORMED and s.code == -32602

    t = raised(lambda: mrtr.TaskStatus.FAILED.transition("working"))
    assert type(t) is mrtr.TaskError and t.rule is Rule.TASK_TRANSITION_INVALID

    # Association rules come from the checker (a 2025-11-25 server request on the GET stream):
    # the class is still there for them, and error_class picks it.
    found = mrtr.check(
        [{"from": "server", "message": {"jsonrpc": "2.0", "id": 9, "method": "roots/list"}, "stream": "get"}],
        protocol="2025-11-25",
    )
    assert [v.rule for v in found] == [Rule.SERVER_REQUEST_UNASSOCIATED]
    assert mrtr.error_class(found[0].rule) is mrtr.AssociationError
    a = mrtr.AssociationError(found[0].rule, found[0].rule.code, found[0].message)
    assert isinstance(a, mrtr.MrtrError) and a.code == -32602

    for e in (p, r, s, t, a):
        assert isinstance(e, Exception) and isinstance(e.message, str) and e.message
        assert str(e) == f"{e.rule.value}: {e.message}"


def test_every_rule_maps_to_exactly_one_area_subclass() -> None:
    areas = {mrtr.ProtocolError, mrtr.RetryError, mrtr.StateError, mrtr.TaskError, mrtr.AssociationError}
    for rule in Rule:
        cls = mrtr.error_class(rule)
        assert cls in areas, f"{rule.value} falls in no area: add its prefix to mrtr._errors._AREAS"
        matching = {c for prefix, c in _AREAS if rule.value.startswith(prefix)}
        assert matching == {cls}, f"{rule.value} matches several areas: {matching}"
    assert mrtr.error_class("state-tampered") is mrtr.StateError
    assert mrtr.error_class("input-responses-malformed") is mrtr.RetryError
    assert mrtr.error_class("input-request-invalid") is mrtr.ProtocolError
    assert mrtr.error_class("limit-exceeded") is mrtr.ProtocolError
    assert mrtr.error_class("server-request-on-stream") is mrtr.AssociationError


def test_error_codes_are_the_cores() -> None:
    for name, number, code, source in _mrtr.RULES:
        rule = Rule(name)
        assert (rule.number, rule.code, rule.source) == (number, code, source)
        e = mrtr.error_class(rule)(rule, rule.code, "m")
        assert e.rule is rule and e.code == code


def test_enums_are_the_cores_tables() -> None:
    assert [r.value for r in Rule] == [r[0] for r in _mrtr.RULES]
    assert [p.value for p in mrtr.Protocol] == _mrtr.PROTOCOLS
    assert [s.value for s in mrtr.TaskStatus] == [s[0] for s in _mrtr.TASK_STATUSES]
    assert [k.value for k in mrtr.Kind] == _mrtr.KINDS
    assert [a.value for a in mrtr.Algorithm] == _mrtr.ALGORITHMS
    assert len(Rule) == 42


def test_the_type_stub_lists_exactly_the_runtime_members() -> None:
    tree = ast.parse(STUB.read_text())
    stubbed = {
        node.name: {
            (t.targets[0].id, t.value.value)  # type: ignore[attr-defined]
            for t in node.body
            if isinstance(t, ast.Assign) and isinstance(t.value, ast.Constant)
        }
        for node in tree.body
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
    }
    for enum in (Rule, mrtr.Protocol, mrtr.TaskStatus, mrtr.Kind, mrtr.Algorithm):
        runtime = {(m.name, m.value) for m in enum}  # type: ignore[attr-defined]
        assert stubbed[enum.__name__] == runtime, f"_enums.pyi is stale for {enum.__name__}"


def test_a_rust_panic_is_an_exception_not_an_abort() -> None:
    with pytest.raises(_mrtr.PanicException, match="on purpose"):
        _mrtr._panic_for_tests()
    # The interpreter goes on, and so does the module.
    assert mrtr.classify('{"jsonrpc":"2.0","id":1,"method":"x"}').kind is mrtr.Kind.REQUEST
    # A panic is a BaseException: a bare `except Exception` does not swallow it.
    assert not issubclass(_mrtr.PanicException, Exception)


def test_wrong_python_types_are_type_errors() -> None:
    with pytest.raises(TypeError, match="set"):
        mrtr.respond(call(), {"k": {1, 2}}, "s")
    with pytest.raises(TypeError, match="keys are str"):
        mrtr.respond(call(), {1: {}}, "s")
    with pytest.raises(ValueError, match="NaN"):
        mrtr.respond(call(), {"k": float("nan")}, "s")
    with pytest.raises(ValueError, match="32 bytes"):
        mrtr.Key(1, "aes-256-gcm", b"short")
    with pytest.raises(ValueError, match="algorithm"):
        mrtr.Key(1, "rot13", bytes(32))


def test_respond_refusals_carry_their_rules() -> None:
    tools_list = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    assert raised(lambda: mrtr.respond(tools_list, ASK)).rule is Rule.INPUT_REQUIRED_METHOD_NOT_ALLOWED
    assert raised(lambda: mrtr.respond(call())).rule is Rule.INPUT_REQUIRED_EMPTY
    assert raised(lambda: mrtr.respond(call(), ASK, 42)).rule is Rule.REQUEST_STATE_INVALID  # type: ignore[arg-type]
    bare = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}
    assert raised(lambda: mrtr.respond(bare, ASK)).rule is Rule.REQUEST_META_MISSING
    bad = {"k": {"method": "elicitation/create", "params": {}}}
    assert raised(lambda: mrtr.respond(call(), bad)).rule is Rule.INPUT_REQUEST_INVALID
    assert raised(lambda: mrtr.resume(call(), ASK, protocol="nope")).rule is Rule.JSONRPC_INVALID
    answer = mrtr.respond(call(), ASK, "s1")
    wrong = {"login": {"action": "accept", "content": {"name": 7}}}
    assert raised(lambda: mrtr.retry(call(), answer, wrong, 2)).rule is Rule.RETRY_INPUT_RESPONSE_INVALID
    extra = dict(ANSWER, other={"action": "cancel"})
    assert raised(lambda: mrtr.retry(call(), answer, extra, 2)).rule is Rule.INPUT_RESPONSES_UNSOLICITED
