"""Errors: every area's class raised for real, every rule of the core's table mapped to its area's class,
enums and generated stubs matching the core, panics and misuse."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Callable, Dict, List, Set, Tuple

import pytest
from conftest import ANSWER, ASK, META, call

import mrtr
from mrtr import Rule, _errors, _mrtr

HERE = Path(mrtr.__file__).parent


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

    ring = mrtr.KeyRing(1, "aes-256-gcm", secret=bytes(32))
    binding = {"subject": "alice", "method": "tools/call", "target": "get_weather", "params": {"name": "get_weather"}}
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

    stray = {"jsonrpc": "2.0", "id": 5, "result": {"resultType": "complete"}}
    u = raised(lambda: mrtr.Client().handle_response(stray))
    assert type(u) is mrtr.UsageError and u.rule is Rule.USAGE_OUT_OF_TURN and u.code is None

    for e in (p, r, s, t, a, u):
        assert isinstance(e, Exception) and isinstance(e.message, str) and e.message
        assert str(e) == f"{e.rule.value}: {e.message}"


def test_every_rule_of_the_cores_table_raises_its_areas_class() -> None:
    table = mrtr.catalogue()
    titles = {a["name"]: a["title"] for a in table["areas"]}
    assert [a.value for a in mrtr.Area] == list(titles)
    assert [r.value for r in Rule] == [row["id"] for row in table["rules"]]
    for row in table["rules"]:
        cls = getattr(mrtr, titles[row["area"]] + "Error")
        assert issubclass(cls, mrtr.MrtrError) and cls is not mrtr.MrtrError
        rule = Rule(row["id"])
        assert mrtr.error_class(rule) is cls, rule
        assert (rule.area, rule.number, rule.code, rule.source) == (row["area"], row["number"], row["code"], row["source"])
        # The native module's path: the class of the area the core names.
        e = _errors._from_native(row["id"], row["area"], row["code"], "m")
        assert type(e) is cls and e.rule is rule and e.code == row["code"]
    # The areas the bindings disagreed on before the core's table carried them.
    assert mrtr.error_class("input-responses-malformed") is mrtr.RetryError
    assert mrtr.error_class("input-responses-unsolicited") is mrtr.RetryError
    assert mrtr.error_class("sse-retry-ignored") is mrtr.TransportError
    assert mrtr.error_class("usage-unknown-handle") is mrtr.UsageError
    assert mrtr.error_class("internal-panic") is mrtr.PanicError


def test_usage_errors_are_type_errors_and_the_rest_are_not() -> None:
    assert issubclass(mrtr.UsageError, TypeError) and issubclass(mrtr.UsageError, mrtr.MrtrError)
    others = set(mrtr.Area) - {mrtr.Area.USAGE}
    assert not any(issubclass(mrtr.error_class(next(r for r in Rule if r.area is a)), TypeError) for a in others)


def test_enums_are_the_cores_tables() -> None:
    table = mrtr.catalogue()
    assert [p.value for p in mrtr.Protocol] == [p["value"] for p in table["protocols"]]
    assert [s.value for s in mrtr.TaskStatus] == [s["value"] for s in table["taskStatuses"]]
    assert [k.value for k in mrtr.Kind] == [k["value"] for k in table["kinds"]]
    assert [a.value for a in mrtr.Algorithm] == [a["value"] for a in table["algorithms"]]
    assert mrtr.Limits() == mrtr.Limits(**{f: table["defaultLimits"][k] for f, k in LIMIT_FIELDS.items()})
    assert len(Rule) == len(table["rules"]) >= 46


LIMIT_FIELDS = {
    "max_message_bytes": "maxMessageBytes",
    "max_depth": "maxDepth",
    "max_input_requests": "maxInputRequests",
    "max_request_state_bytes": "maxRequestStateBytes",
}


def stubbed(stub: Path) -> Dict[str, Set[Tuple[str, str]]]:
    """The members (name, value) of each public class of a type stub."""
    tree = ast.parse(stub.read_text())
    return {
        node.name: {
            (t.targets[0].id, t.value.value)  # type: ignore[attr-defined]
            for t in node.body
            if isinstance(t, ast.Assign) and isinstance(t.value, ast.Constant)
        }
        for node in tree.body
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
    }


def test_the_generated_stubs_list_exactly_the_runtime_members() -> None:
    # mrtr-gen --check keeps the stubs in step with the core's source; this, with the module built from it.
    enums = stubbed(HERE / "_enums.pyi")
    for enum in (Rule, mrtr.Area, mrtr.Protocol, mrtr.TaskStatus, mrtr.Kind, mrtr.Algorithm):
        runtime = {(m.name, m.value) for m in enum}  # type: ignore[attr-defined]
        assert enums[enum.__name__] == runtime, f"_enums.pyi is stale for {enum.__name__}: run mrtr-gen"
    errors = set(stubbed(HERE / "_errors.pyi"))
    assert errors == {c for c in _errors.__all__ if c[0].isupper()}, "_errors.pyi is stale: run mrtr-gen"


def test_a_rust_panic_is_a_panic_error_not_an_abort() -> None:
    with pytest.raises(mrtr.PanicError, match="on purpose") as e:
        _mrtr._panic_for_tests()
    assert e.value.rule is Rule.INTERNAL_PANIC and e.value.code == -32603
    # An MrtrError (an Exception), not pyo3's PanicException (a BaseException).
    assert isinstance(e.value, mrtr.MrtrError) and not hasattr(_mrtr, "PanicException")
    # The interpreter goes on, and so does the module.
    assert mrtr.classify('{"jsonrpc":"2.0","id":1,"method":"x"}').kind is mrtr.Kind.REQUEST


RING = mrtr.KeyRing(1, "aes-256-gcm", secret=bytes(32))


def test_values_the_core_cannot_take_are_usage_errors() -> None:
    misuses: List[Tuple[Callable[[], Any], str]] = [
        (lambda: mrtr.respond(call(), {"k": {1, 2}}, "s"), "set"),
        (lambda: mrtr.respond(call(), {1: {}}, "s"), "keys are str"),
        (lambda: mrtr.respond(call(), {"k": float("nan")}, "s"), "NaN"),
        (lambda: mrtr.respond(call(), {"k": "\ud800"}, "s"), "surrogate"),
        (lambda: mrtr.KeyRing(1, "aes-256-gcm", secret=b"short"), "32 bytes"),
        (lambda: mrtr.KeyRing(1, "rot13", secret=bytes(32)), "algorithm"),
        (lambda: mrtr.KeyRing(256, "aes-256-gcm", secret=bytes(32)), "0 to 255"),
        (lambda: mrtr.KeyRing(1, "aes-256-gcm"), "secret"),
        (lambda: RING.seal({"subject": "alice", "method": "tools/call", "target": 7, "params": {}}, 0, 1, b""), "target"),
        (lambda: RING.seal({"subject": "alice", "method": "tools/call", "target": "t", "params": None}, 0, 1, b""), "params"),
        (lambda: mrtr.binding_for(call()), "subject"),
        (lambda: mrtr.classify({"jsonrpc": "2.0", "id": 10**20, "method": "x"}), "exact"),
        (lambda: mrtr.check(42), "transcript"),  # type: ignore[arg-type]
        (lambda: mrtr.classify("{}", protocol=7), "protocol"),  # type: ignore[arg-type]
    ]
    for f, match in misuses:
        with pytest.raises(mrtr.UsageError, match=match) as e:
            f()
        assert e.value.rule is Rule.USAGE_INVALID_ARGUMENT and e.value.code is None
        assert isinstance(e.value, TypeError)
    # Raw JSON that is not UTF-8 (a str with a lone surrogate) is the core's parse error, as bytes are.
    assert raised(lambda: mrtr.classify('{"jsonrpc":"2.0","id":1,"method":"\ud800"}')).rule is Rule.JSONRPC_PARSE_ERROR


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
