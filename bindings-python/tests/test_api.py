"""Ergonomics: the whole public API with plain dicts, raw JSON and enums."""

from __future__ import annotations

import json
import pickle

import pytest
from conftest import ANSWER, ASK, META, call

import mrtr
from mrtr import Kind, Protocol, Rule, TaskStatus


def test_classify_takes_bytes_str_and_dict_alike() -> None:
    msg = {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "input_required", "requestState": "s1"}}
    text = json.dumps(msg)
    for form in (text, text.encode(), bytearray(text.encode()), msg):
        c = mrtr.classify(form)
        assert c.kind is Kind.INPUT_REQUIRED
        assert c.kind == "input_required"
        assert (c.id, c.method, c.result_type, c.result_type_present) == (2, None, "input_required", True)
    assert "input_required" in repr(mrtr.classify(text))
    assert mrtr.classify(text) == mrtr.classify(text.encode())


def test_classify_requests_notifications_and_string_ids() -> None:
    c = mrtr.classify('{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}')
    assert (c.kind, c.id, c.method) == (Kind.REQUEST, "a", "tools/call")
    n = mrtr.classify({"jsonrpc": "2.0", "method": "notifications/progress"})
    assert (n.kind, n.id) == (Kind.NOTIFICATION, None)
    big = mrtr.classify('{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}')
    assert big.id == 2**64 - 1


def test_protocol_is_a_str_enum_and_the_callers_choice() -> None:
    assert Protocol.V2026_07_28 == "2026-07-28" and str(Protocol.SEP_2322) == "sep-2322"
    assert f"{Protocol.SEP_2322_DRAFT}" == "sep-2322-draft"
    assert mrtr.DEFAULT_PROTOCOL is Protocol.V2026_07_28
    msg = '{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}'
    assert mrtr.classify(msg, protocol=Protocol.V2025_11_25).kind is Kind.RESULT
    assert mrtr.classify(msg, protocol="2025-11-25").kind is Kind.RESULT
    assert Protocol.SEP_2322.allows_input_required("tasks/result")
    assert not Protocol.V2026_07_28.allows_input_required("tasks/result")
    with pytest.raises(mrtr.ProtocolError) as e:
        mrtr.classify(msg, protocol="2024-11-05")
    assert e.value.rule is Rule.JSONRPC_INVALID and e.value.message == (
        'unknown protocol "2024-11-05": the known ones are 2026-07-28, sep-2322, sep-2322-draft, 2025-11-25'
    )
    with pytest.raises(mrtr.UsageError):
        mrtr.classify(msg, protocol=2026)  # type: ignore[arg-type]


def test_respond_retry_resume_round_trip() -> None:
    request = call()
    answer = mrtr.respond(request, ASK, "s1")
    assert answer == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"resultType": "input_required", "inputRequests": ASK, "requestState": "s1"},
    }
    retry = mrtr.retry(request, answer, ANSWER, 2)
    assert retry["id"] == 2 and retry["params"]["inputResponses"] == ANSWER
    assert retry["params"]["requestState"] == "s1" and retry["params"]["_meta"] == META
    got = mrtr.resume(retry, ASK)
    assert got.responses == ANSWER and got.missing == [] and got.ignored == [] and got.complete
    assert got.request_state == "s1"
    assert "Resumed(" in repr(got)
    first = mrtr.resume(request, ASK)
    assert first.missing == ["login"] and not first.complete and first.request_state is None


def test_complete_marks_the_result_and_a_retrys_ttl() -> None:
    request = call()
    done = mrtr.complete(request, {"content": []})
    assert done == {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "resultType": "complete"}}
    retry = mrtr.retry(request, mrtr.respond(request, ASK, "s1"), ANSWER, 2)
    again = mrtr.complete(json.dumps(retry), '{"content": [], "ttlMs": 60000}')
    assert again["id"] == 2 and again["result"]["ttlMs"] == 0 and again["result"]["resultType"] == "complete"
    with pytest.raises(mrtr.UsageError):
        mrtr.complete(request, [1])


def test_check_headers_against_the_body() -> None:
    request = call()
    good = {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "mcp-name": "get_weather"}
    mrtr.check_headers(request, good)
    mrtr.check_headers(json.dumps(request), {k.lower(): v for k, v in good.items()})
    for bad in ({**good, "mcp-name": "other"}, {k: v for k, v in good.items() if k != "Mcp-Method"}):
        with pytest.raises(mrtr.ProtocolError) as e:
            mrtr.check_headers(request, bad)
        assert e.value.rule is Rule.REQUEST_HEADER_MISMATCH and e.value.code == -32020
    mrtr.check_headers(request, {}, protocol=Protocol.V2025_11_25)  # no such headers before 2026-07-28


def test_a_mirrored_header_sent_twice_is_refused_not_read_last_wins() -> None:
    # Security review I5: pairs (or Starlette's Headers) used to become a dict, where the last field won.
    request = call()
    pairs = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "get_weather")]
    mrtr.check_headers(request, pairs)
    for extra in ("get_weather", "delete_everything"):
        with pytest.raises(mrtr.ProtocolError) as e:
            mrtr.check_headers(request, [*pairs, ("Mcp-Name", extra)])
        assert e.value.rule is Rule.REQUEST_HEADER_MISMATCH


def test_a_name_outside_visible_ascii_is_mirrored_encoded_and_checked_decoded() -> None:
    # Security review L2 (SEP-2243): `=?base64?<base64 of the UTF-8>?=`, never raw CR LF or non-ASCII text.
    for name in ("café", "lookup\r\nX-Injected: 1"):
        request = call()
        request["params"]["name"] = name
        fields = mrtr.mirrored_fields(request)
        assert fields["mcp-name"].startswith("=?base64?") and fields["mcp-name"].isascii()
        mrtr.check_headers(request, fields)


def test_raw_json_arguments_skip_conversion() -> None:
    request = json.dumps(call())
    answer = mrtr.respond(request, json.dumps(ASK), "s1")
    retry = mrtr.retry(request, json.dumps(answer).encode(), json.dumps(ANSWER), "r2")
    assert retry["id"] == "r2"
    assert mrtr.resume(json.dumps(retry).encode(), ASK).responses == ANSWER


def test_match_statements_work_on_results() -> None:
    r = mrtr.resume(call(), ASK)
    match r:
        case mrtr.Resumed(responses, missing, ignored, state):
            assert (responses, missing, ignored, state) == ({}, ["login"], [], None)


def test_task_update_and_task_statuses() -> None:
    get_request = {"jsonrpc": "2.0", "id": 5, "method": "tasks/get", "params": {"taskId": "t1", "_meta": META}}
    get_response = {
        "jsonrpc": "2.0",
        "id": 5,
        "result": {"taskId": "t1", "status": "input_required", "inputRequests": ASK, "resultType": "complete"},
    }
    update = mrtr.task_update(get_request, get_response, ANSWER, 6)
    assert update["method"] == "tasks/update" and update["params"]["taskId"] == "t1"
    assert update["params"]["inputResponses"] == ANSWER
    assert TaskStatus.COMPLETED.is_terminal and not TaskStatus.WORKING.is_terminal
    assert TaskStatus.WORKING.may_become("input_required")
    assert TaskStatus.INPUT_REQUIRED.transition(TaskStatus.WORKING) is TaskStatus.WORKING
    with pytest.raises(mrtr.TaskError) as e:
        TaskStatus.COMPLETED.transition("working")
    assert e.value.rule is Rule.TASK_TRANSITION_INVALID


def test_check_takes_entries_or_jsonl() -> None:
    request = call()
    answer = mrtr.respond(request, ASK, "s1")
    retry = mrtr.retry(request, answer, ANSWER, 2)
    done = {"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "content": []}}
    entries = [
        {"from": "client", "message": request},
        {"from": "server", "message": answer, "stream": "post:1"},
        {"from": "client", "message": retry},
        {"from": "server", "message": done},
    ]
    assert mrtr.check(entries) == []
    assert mrtr.check("\n".join(json.dumps(e) for e in entries) + "\n") == []
    bad = dict(retry, params=dict(retry["params"], requestState="forged"))
    found = mrtr.check(entries[:2] + [{"from": "client", "message": bad}])
    assert [(v.rule, v.index) for v in found] == [(Rule.RETRY_REQUEST_STATE_MISMATCH, 2)]
    assert found[0].rule is Rule.RETRY_REQUEST_STATE_MISMATCH and "requestState" in found[0].message
    match found[0]:
        case mrtr.Violation(rule, index, _):
            assert (rule, index) == ("retry-request-state-mismatch", 2)
    checker = mrtr.Checker(max_rounds=10)
    checker.handle(entries[0])
    checker.handle(entries[1])
    assert checker.violations() == []
    checker.handle({"from": "client", "message": bad})
    [found_one] = checker.violations()
    assert (found_one["rule"], found_one["index"]) == ("retry-request-state-mismatch", 2)


def test_check_reports_bad_jsonl_lines_and_entries() -> None:
    with pytest.raises(mrtr.ProtocolError, match="line 2") as e:
        mrtr.check('{"from":"client","message":{}}\n{oops\n')
    assert e.value.rule is Rule.JSONRPC_PARSE_ERROR
    # A malformed entry is the caller's transcript, not a peer's message: a usage error.
    with pytest.raises(mrtr.UsageError, match="from") as e2:
        mrtr.check([{"from": "proxy", "message": {}}])
    assert e2.value.rule is Rule.USAGE_INVALID_ARGUMENT
    with pytest.raises(TypeError):  # UsageError is a TypeError too
        mrtr.check([42])


def test_client_machine_drives_rounds() -> None:
    client = mrtr.Client(protocol=Protocol.V2026_07_28, max_rounds=3)
    request = call()
    handle = client.send(request)
    assert handle == 0
    assert client.poll_transmit() == request and client.poll_transmit() is None
    client.handle_response(json.dumps(mrtr.respond(request, ASK, "s1")))
    event = client.poll_event()
    assert event == {"type": "inputRequired", "handle": handle, "inputRequests": ASK, "round": 0}
    client.answer(event["handle"], ANSWER, 2)
    [retry] = client.drain_transmits()
    assert retry["params"]["inputResponses"] == ANSWER and retry["params"]["requestState"] == "s1"
    client.handle_response({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "content": []}})
    match client.poll_event():
        case {"type": "done", "handle": h, "response": response}:
            assert h == handle and response["id"] == 2
        case other:
            pytest.fail(f"unexpected {other!r}")
    assert client.poll_event() is None and client.drain_events() == []


def test_client_retry_now_and_refusals() -> None:
    client = mrtr.Client()
    request = call()
    h = client.send(request)
    client.drain_transmits()
    with pytest.raises(mrtr.RetryError) as e:
        client.send(call())  # id 1 is in flight
    assert e.value.rule is Rule.RETRY_ID_REUSED
    client.handle_response(mrtr.respond(request, None, "busy"))
    [event] = client.drain_events()
    assert event == {"type": "retryNow", "handle": h}
    with pytest.raises(mrtr.RetryError):
        client.answer(h, {}, 1)  # a retry takes a new id
    client.answer(h, {}, 7)
    assert client.poll_transmit()["params"]["requestState"] == "busy"
    client.abandon(h)
    # Misuse of the machine is the caller's bug, never a peer's protocol violation.
    with pytest.raises(mrtr.UsageError) as e2:
        client.handle_response({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "complete"}})
    assert e2.value.rule is Rule.USAGE_OUT_OF_TURN and e2.value.code is None
    with pytest.raises(mrtr.UsageError) as e3:
        client.answer(h + 41, {}, 8)  # a handle this machine never issued
    assert e3.value.rule is Rule.USAGE_UNKNOWN_HANDLE
    with pytest.raises(mrtr.UsageError) as e4:
        client.answer(-1, {}, 8)
    assert e4.value.rule is Rule.USAGE_INVALID_ARGUMENT


def test_limits_are_configurable() -> None:
    limits = mrtr.Limits(max_depth=4)
    assert limits.max_depth == 4 and limits.max_message_bytes == 16 << 20
    assert limits == mrtr.Limits(max_depth=4) and "max_depth=4" in repr(limits)
    with pytest.raises(mrtr.ProtocolError) as e:
        mrtr.classify('{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[[[1]]]}}', limits=limits)
    assert e.value.rule is Rule.LIMIT_EXCEEDED
    # The core reads the limits (its serde Deserialize): a field it cannot take is the caller's misuse.
    with pytest.raises(mrtr.UsageError) as e2:
        mrtr.classify("{}", limits=mrtr.Limits(max_depth=-1))
    assert e2.value.rule is Rule.USAGE_INVALID_ARGUMENT and "limits" in e2.value.message


def test_results_are_immutable_views() -> None:
    c = mrtr.classify('{"jsonrpc":"2.0","id":1,"method":"x"}')
    with pytest.raises(AttributeError):
        c.kind = Kind.ERROR  # type: ignore[misc]


def test_errors_pickle() -> None:
    with pytest.raises(mrtr.MrtrError) as e:
        mrtr.classify(b"{")
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is mrtr.ProtocolError and again.rule is Rule.JSONRPC_PARSE_ERROR
    assert again.code == -32700 and again.message == e.value.message
    assert str(again).startswith("jsonrpc-parse-error: ")
