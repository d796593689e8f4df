"""Await-style tools without server state (``run_tool``, ``Context``, ``ToolReplay``): a tool that asks twice,
driven across three requests by the retry builder and by the ``Client`` machine; a changed or reordered
question asked again; an answer to a question never asked ignored; the round cap; a final round that runs once
under a replay guard (the host answering a replay from its store, or refusing); a tool that catches
``Exception`` (or everything) still suspends; several questions in one round; the tool's data across rounds."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

import pytest
from conftest import META

import mrtr
from mrtr import Context, Rule

SCHEMA = {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}
RING = mrtr.KeyRing(1, mrtr.Algorithm.XCHACHA20_POLY1305, secret=secrets.token_bytes(32))
ROUNDS = mrtr.SealedRounds(RING, ttl=300)


def request(id: Any = 1, name: str = "greet", **arguments: Any) -> Dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": META},
    }


#: Which runner ``run`` uses: every test of this module runs once through ``run_tool`` (a dict back) and once
#: through ``run_tool_bytes`` (the response's JSON bytes, read back here), which must behave alike.
RUNNER = ["run_tool"]


@pytest.fixture(autouse=True, params=["run_tool", "run_tool_bytes"])
def runner(request: Any) -> Any:
    RUNNER[0] = request.param
    yield request.param
    RUNNER[0] = "run_tool"


def run(
    tool: mrtr.Tool,
    message: Any,
    now: int,
    rounds: mrtr.SealedRounds = ROUNDS,
    guard: Optional[Callable[[str, int], bool]] = None,
) -> Dict[str, Any]:
    if RUNNER[0] == "run_tool_bytes":
        body = message if isinstance(message, (str, bytes)) else json.dumps(message).encode()
        out = asyncio.run(mrtr.run_tool_bytes(tool, body, rounds, subject="alice", now=now, guard=guard))
        assert isinstance(out, bytes)
        response: Dict[str, Any] = json.loads(out)
        return response
    return asyncio.run(mrtr.run_tool(tool, message, rounds, subject="alice", now=now, guard=guard))


def asked(response: Dict[str, Any]) -> Dict[str, Any]:
    """The input requests of an ``input_required`` response."""
    assert response["result"]["resultType"] == "input_required", response
    requests: Dict[str, Any] = response["result"]["inputRequests"]
    return requests


def accept(value: str) -> Dict[str, Any]:
    return {"action": "accept", "content": {"v": value}}


def retry(message: Dict[str, Any], response: Dict[str, Any], value: str, id: int) -> Dict[str, Any]:
    """The client's retry answering every ask of ``response`` with ``value`` (mrtr's retry builder)."""
    return mrtr.retry(message, response, {key: accept(value) for key in asked(response)}, id)


def text(response: Dict[str, Any]) -> str:
    assert response["result"]["resultType"] == "complete", response
    out: str = response["result"]["content"][0]["text"]
    return out


class Greeter:
    """Asks a name, then a greeting (whose wording may change between versions), and greets; ``effects``
    counts how often the line after the last ask ran."""

    def __init__(self, second: str = "Greeting?", first: str = "Your name?") -> None:
        self.first, self.second, self.effects = first, second, 0

    async def __call__(self, args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        name = (await ctx.elicit(self.first, SCHEMA))["content"]["v"]
        await asyncio.sleep(0)  # real awaits between asks are fine
        word = (await ctx.elicit(self.second, SCHEMA))["content"]["v"]
        self.effects += 1
        return {"content": [{"type": "text", "text": f"{word}, {name}"}]}


def two_rounds(tool: mrtr.Tool) -> Tuple[Dict[str, Any], Dict[str, Any], Dict[str, Any]]:
    """The first request, the second (answering q1) and the third (answering q2), as the client sends them."""
    first = request()
    second = retry(first, run(tool, first, 100), "Ada", 2)
    third = retry(second, run(tool, second, 101), "Good day", 3)
    return first, second, third


# --- the conversation --------------------------------------------------------------------------


def test_a_tool_that_asks_twice_finishes_in_three_requests() -> None:
    tool = Greeter()
    transcript: List[Dict[str, Any]] = []
    message = request()
    for id, answer in ((2, "Ada"), (3, "Good day"), (0, "")):
        response = run(tool, message, 100 + len(transcript))
        transcript += [{"from": "client", "message": message}, {"from": "server", "message": response}]
        if not answer:
            break
        assert list(asked(response)) == ["q1" if id == 2 else "q2"]
        message = retry(message, response, answer, id)
    assert text(response) == "Good day, Ada" and tool.effects == 1
    assert response["result"]["ttlMs"] == 0  # the result of a retry is never cached
    assert mrtr.check(transcript) == []


def test_the_client_machine_drives_a_tool_to_its_result() -> None:
    tool, client, now = Greeter(), mrtr.Client(), 100
    handle = client.send(request())
    done: List[Dict[str, Any]] = []
    while not done:
        for message in client.drain_transmits():
            client.handle_response(run(tool, message, now))
            now += 1
        for event in client.drain_events():
            if event["type"] == "inputRequired":
                responses = {k: accept("Ada" if event["round"] == 0 else "Hello") for k in event["inputRequests"]}
                client.answer(event["handle"], responses, 10 + event["round"])
            elif event["type"] == "done":
                assert event["handle"] == handle
                done.append(event["response"])
    assert text(done[0]) == "Hello, Ada" and tool.effects == 1


def test_the_context_tells_the_round_the_state_and_the_arguments() -> None:
    seen: List[Tuple[Dict[str, Any], int, Optional[str], Optional[int]]] = []

    async def tool(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        seen.append((args, ctx.round, ctx.state_id, ctx.expiry))
        await ctx.elicit("Name?", SCHEMA)
        return {"content": [], "name": ctx.request["params"]["name"]}

    first = request(city="Paris")
    second = retry(first, run(tool, first, 100), "Ada", 2)
    assert run(tool, second, 101)["result"]["name"] == "greet"
    token = second["params"]["requestState"]
    assert seen == [({"city": "Paris"}, 0, None, None), ({"city": "Paris"}, 1, mrtr.inspect(token).state_id, 400)]


def test_a_request_as_json_text_is_read_as_given() -> None:
    tool = Greeter()
    first = json.dumps(request(n=10**20))  # a number Python's dicts would refuse: text keeps it exact
    response = run(tool, first.encode(), 100)
    assert list(asked(response)) == ["q1"]
    answered = json.loads(first)
    answered.update(id=2)
    answered["params"].update(requestState=response["result"]["requestState"], inputResponses={"q1": accept("A")})
    assert list(asked(run(tool, json.dumps(answered), 101))) == ["q2"]


def test_the_tool_keeps_data_across_rounds() -> None:
    kept: List[Any] = []

    async def tool(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        kept.append(ctx.data)
        ctx.data = {"step": ctx.round + 1, "was": ctx.data}
        await ctx.elicit("One?", SCHEMA)
        await ctx.elicit("Two?", SCHEMA)
        return {"content": []}

    _, _, third = two_rounds(tool)
    run(tool, third, 102)
    assert kept == [None, {"step": 1, "was": None}, {"step": 2, "was": {"step": 1, "was": None}}]


def test_the_data_a_tool_keeps_is_any_json_value() -> None:
    for data in ("a note, not JSON text", 7, [1, "two"]):
        kept: List[Any] = []

        async def tool(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
            kept.append(ctx.data)
            ctx.data = data  # noqa: B023
            await ctx.elicit("One?", SCHEMA)
            return {"content": []}

        first = request()
        run(tool, retry(first, run(tool, first, 100), "Ada", 2), 101)
        assert kept == [None, data]


# --- pins and keys -----------------------------------------------------------------------------


def test_a_changed_question_is_asked_again_never_answered_by_another() -> None:
    _, _, third = two_rounds(Greeter())
    newer = Greeter(second="Salutation?")  # a newer version behind the balancer words it otherwise
    response = run(newer, third, 102)
    assert asked(response)["q2"]["params"]["message"] == "Salutation?" and newer.effects == 0
    assert text(run(newer, retry(third, response, "Hi", 4), 103)) == "Hi, Ada"


def test_a_reordered_question_is_asked_again() -> None:
    _, second, _ = two_rounds(Greeter())
    swapped = Greeter(first="Greeting?", second="Your name?")
    response = run(swapped, second, 101)  # q1 was answered for "Your name?", not "Greeting?"
    assert list(asked(response)) == ["q1"] and asked(response)["q1"]["params"]["message"] == "Greeting?"


def test_an_answer_to_a_question_never_asked_counts_for_nothing() -> None:
    tool = Greeter()
    first = request()
    sly = retry(first, run(tool, first, 100), "Ada", 2)
    sly["params"]["inputResponses"]["q2"] = accept("Bye")  # slipped in before q2 was asked
    assert list(asked(run(tool, sly, 101))) == ["q2"] and tool.effects == 0


def test_a_key_of_the_tools_choosing() -> None:
    async def tool(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        ok = await ctx.ask(ctx.q.elicit("Deploy?", SCHEMA), key="confirm")
        return {"content": [{"type": "text", "text": ok["content"]["v"]}]}

    first = request()
    response = run(tool, first, 100)
    assert list(asked(response)) == ["confirm"]
    assert text(run(tool, retry(first, response, "yes", 2), 101)) == "yes"


# --- several in one round ----------------------------------------------------------------------


def test_ask_all_asks_several_things_in_one_round() -> None:
    sample = {"messages": [{"role": "user", "content": {"type": "text", "text": "Haiku?"}}], "maxTokens": 50}

    async def tool(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        name, poem, roots = await ctx.ask_all(ctx.q.elicit("Name?", SCHEMA), ctx.q.sample(sample), ctx.q.roots())
        return {"content": [{"type": "text", "text": f"{name['content']['v']} {poem['model']} {len(roots['roots'])}"}]}

    first = request()
    response = run(tool, first, 100)
    asks = asked(response)
    assert [(k, q["method"]) for k, q in asks.items()] == [
        ("q1", "elicitation/create"),
        ("q2", "sampling/createMessage"),
        ("q3", "roots/list"),
    ]
    assert asks["q2"]["params"] == sample
    answers = {
        "q1": accept("Ada"),
        "q2": {"role": "assistant", "content": {"type": "text", "text": "…"}, "model": "m1"},
        "q3": {"roots": [{"uri": "file:///src"}]},
    }
    assert text(run(tool, mrtr.retry(first, response, answers, 2), 101)) == "Ada m1 1"


def test_ask_all_answered_in_part_asks_only_what_is_missing() -> None:
    async def tool(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        a, b = await ctx.ask_all(ctx.q.elicit("A?", SCHEMA), ctx.q.elicit("B?", SCHEMA))
        return {"content": [{"type": "text", "text": a["content"]["v"] + b["content"]["v"]}]}

    first = request()
    response = run(tool, first, 100)
    partial = request(2)  # a client answering in part (mrtr's retry builder refuses to): by hand
    partial["params"].update(requestState=response["result"]["requestState"], inputResponses={"q1": accept("x")})
    again = run(tool, partial, 101)
    assert list(asked(again)) == ["q2"]
    assert text(run(tool, retry(partial, again, "y", 3), 102)) == "xy"


def test_the_sample_and_roots_shortcuts() -> None:
    async def tool(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        await ctx.roots()
        await ctx.sample({"messages": [], "maxTokens": 1})
        return {"content": []}

    first = request()
    response = run(tool, first, 100)
    assert asked(response) == {"q1": mrtr.Questions.roots()} == {"q1": {"method": "roots/list", "params": {}}}


# --- the round cap and single use --------------------------------------------------------------


def test_the_round_cap_holds() -> None:
    capped = mrtr.SealedRounds(RING, max_rounds=1)
    tool = Greeter()
    first = request()
    second = retry(first, run(tool, first, 100, capped), "Ada", 2)
    with pytest.raises(mrtr.RetryError) as e:
        run(tool, second, 101, capped)  # a second input_required is one round too many
    assert e.value.rule is Rule.RETRY_ROUNDS_EXCEEDED
    response, status = mrtr.error_response(second["id"], e.value)
    assert response["error"]["data"]["rule"] == "retry-rounds-exceeded" and response["id"] == 2 and status == 400
    with pytest.raises(mrtr.UsageError):
        run(tool, first, 100, mrtr.SealedRounds(RING, max_rounds=-1))


def memory_guard() -> Callable[[str, int], bool]:
    used: Set[str] = set()

    def first_use(state_id: str, expiry: int) -> bool:
        first = state_id not in used
        used.add(state_id)
        return first

    return first_use


def test_a_final_round_runs_once_under_a_guard_and_a_replay_is_answered_from_the_store() -> None:
    tool, guard = Greeter(), memory_guard()
    store: Dict[str, Dict[str, Any]] = {}

    def serve(message: Dict[str, Any], now: int) -> Tuple[Dict[str, Any], int]:
        """A host: single use, the final response kept under the state id to answer a replay."""
        token = message["params"].get("requestState")
        try:
            response = run(tool, message, now, guard=guard)
        except mrtr.StateError as e:
            if e.rule is Rule.STATE_REPLAYED and token and mrtr.inspect(token).state_id in store:
                return store[mrtr.inspect(token).state_id], 200
            return mrtr.error_response(message["id"], e)
        if token and response["result"]["resultType"] == "complete":
            store[mrtr.inspect(token).state_id] = response
        return response, 200

    first = request()
    second = retry(first, serve(first, 100)[0], "Ada", 2)
    third = retry(second, serve(second, 101)[0], "Good day", 3)
    done, status = serve(third, 102)
    assert (text(done), status, tool.effects) == ("Good day, Ada", 200, 1)
    assert serve(third, 103) == (done, 200) and tool.effects == 1  # the same final round: from the store
    refused, status = serve(second, 104)  # an earlier round again: refused, never run twice
    assert (refused["error"]["data"]["rule"], refused["id"], status) == ("state-replayed", 2, 400)
    assert tool.effects == 1


def test_answers_without_their_state_are_asked_again_so_the_final_round_runs_once() -> None:
    # Security review M3: the same answers without requestState ran the tool's effect again under a guard.
    tool, guard = Greeter(), memory_guard()
    _, second, third = two_rounds(tool)
    assert text(run(tool, third, 102, guard=guard)) == "Good day, Ada" and tool.effects == 1
    for message in (second, third):
        stateless = json.loads(json.dumps(message))
        del stateless["params"]["requestState"]
        response = run(tool, stateless, 103, guard=guard)
        assert list(asked(response)) == ["q1"] and response["result"]["requestState"]
    assert tool.effects == 1


def test_a_refused_answer_leaves_the_state_for_the_corrected_retry() -> None:
    # Security review L1: the state was spent before the answer was checked, so the correction was refused.
    tool, guard = Greeter(), memory_guard()
    first = request()
    response = run(tool, first, 100, guard=guard)
    wrong = retry(first, response, "Ada", 2)  # the retry builder checks answers: the wrong one by hand
    wrong["params"]["inputResponses"] = {"q1": {"action": "accept", "content": {"v": 5}}}
    with pytest.raises(mrtr.RetryError) as e:
        run(tool, wrong, 101, guard=guard)
    assert e.value.rule is Rule.RETRY_INPUT_RESPONSE_INVALID
    assert list(asked(run(tool, retry(first, response, "Ada", 3), 102, guard=guard))) == ["q2"]


def test_a_guard_that_raises_refuses_and_its_error_reaches_the_host() -> None:
    tool = Greeter()
    first = request()
    second = retry(first, run(tool, first, 100), "Ada", 2)

    def broken(state_id: str, expiry: int) -> bool:
        raise ConnectionError("the store is down")

    with pytest.raises(ConnectionError):
        run(tool, second, 101, guard=broken)


# --- suspension that a tool cannot swallow -----------------------------------------------------


def test_a_tool_that_catches_exception_still_suspends() -> None:
    async def careless(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        try:
            name = await ctx.elicit("Name?", SCHEMA)
        except Exception:
            return {"content": [], "isError": True}
        return {"content": [{"type": "text", "text": name["content"]["v"]}]}

    first = request()
    response = run(careless, first, 100)
    assert list(asked(response)) == ["q1"]
    assert text(run(careless, retry(first, response, "Ada", 2), 101)) == "Ada"


def test_a_tool_that_swallows_everything_still_asks_and_learns_nothing_more() -> None:
    async def reckless(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        try:
            await ctx.elicit("Name?", SCHEMA)
        except BaseException:  # noqa: B036 - on purpose: the suspension too
            pass
        try:
            await ctx.elicit("Then?", SCHEMA)  # suspended already: not asked in this round
        except BaseException:  # noqa: B036
            pass
        return {"content": [{"type": "text", "text": "done?"}]}

    assert list(asked(run(reckless, request(), 100))) == ["q1"]


def test_a_refusal_inside_an_ask_reaches_the_host_whatever_the_tool_catches() -> None:
    async def bad_question(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        try:
            await ctx.ask({"method": "elicitation/create"})  # no params: no input request
        except Exception:
            pass
        return {"content": []}

    with pytest.raises(mrtr.ProtocolError) as e:
        run(bad_question, request(), 100)
    assert e.value.rule is Rule.INPUT_REQUEST_INVALID

    async def twice(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        await ctx.ask(ctx.q.roots(), key="k")
        await ctx.ask(ctx.q.roots(), key="k")
        return {"content": []}

    first = request()
    answered = mrtr.retry(first, run(twice, first, 100), {"k": {"roots": []}}, 2)
    with pytest.raises(mrtr.UsageError):
        run(twice, answered, 101)


def test_an_answer_that_does_not_fit_is_refused_even_when_the_tool_catches_it() -> None:
    async def tolerant(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        try:
            answer = await ctx.elicit("Name?", SCHEMA)
        except Exception:
            return {"content": [{"type": "text", "text": "fallback"}]}
        return {"content": [{"type": "text", "text": answer["action"]}]}

    first = request()
    state = run(tolerant, first, 100)["result"]["requestState"]

    def answered(answer: Dict[str, Any]) -> Dict[str, Any]:
        message = request(2)
        message["params"].update(requestState=state, inputResponses={"q1": answer})
        return message

    with pytest.raises(mrtr.RetryError) as e:
        run(tolerant, answered({"action": "accept", "content": {"v": 5}}), 101)
    assert e.value.rule is Rule.RETRY_INPUT_RESPONSE_INVALID
    assert text(run(tolerant, answered({"action": "decline"}), 101)) == "decline"  # the tool's to handle


def test_a_refusal_the_tool_caught_wins_over_the_exception_it_raised_instead() -> None:
    async def rethrowing(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        try:
            await ctx.ask({"method": "elicitation/create"})  # no params: no input request
        except mrtr.MrtrError:
            raise ValueError("the tool's own") from None
        return {"content": []}

    with pytest.raises(mrtr.ProtocolError) as e:
        run(rethrowing, request(), 100)
    assert e.value.rule is Rule.INPUT_REQUEST_INVALID
    # The run gives the refusal's response itself, the bytes error_response builds for it.
    tool_run = ROUNDS.tool_run(request(id=5), subject="alice", now=100)
    with pytest.raises(mrtr.ProtocolError):
        tool_run.ask({"method": "elicitation/create"})
    assert tool_run.ask(mrtr.Questions.roots()) is None  # refused: nothing more is asked
    with pytest.raises(mrtr.ProtocolError):
        tool_run.refused()
    built = tool_run.refusal_response()
    assert built is not None and (built["response"], built["status"]) == mrtr.error_response(5, e.value)
    with pytest.raises(mrtr.ProtocolError):  # and respond raises it in place of a response
        tool_run.respond(RING, {"content": []})
    assert ROUNDS.tool_run(request(), subject="alice", now=100).refusal_response() is None


def test_the_tools_own_exceptions_propagate() -> None:
    async def failing(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        raise ValueError("no such city")

    with pytest.raises(ValueError, match="no such city"):
        run(failing, request(), 100)


def test_a_result_is_an_object() -> None:
    async def wrong(args: Dict[str, Any], ctx: Context) -> Any:
        return "hello"

    with pytest.raises(mrtr.UsageError):
        run(wrong, request(), 100)


# --- subjects, the lower level, errors ---------------------------------------------------------


def test_the_subject_is_named_and_bound() -> None:
    tool = Greeter()
    first = request()
    with pytest.raises(mrtr.UsageError):
        asyncio.run(mrtr.run_tool(tool, first, ROUNDS, now=100))
    response = run(tool, first, 100)
    second = retry(first, response, "Ada", 2)
    with pytest.raises(mrtr.StateError):  # alice's state does not open for bob
        asyncio.run(mrtr.run_tool(tool, second, ROUNDS, subject="bob", now=101))
    anonymous = asyncio.run(mrtr.run_tool(tool, first, ROUNDS, anonymous=True, now=100))
    assert list(asked(anonymous)) == ["q1"]


def raised_rule(f: Callable[[], Any]) -> Rule:
    with pytest.raises(mrtr.MrtrError) as e:
        f()
    return e.value.rule


def test_tool_replay_serves_a_plain_function() -> None:
    first = request()
    replay = ROUNDS.tool_replay(first, subject="alice", now=100)
    question = mrtr.Questions.elicit("Name?", SCHEMA)
    assert replay.ask(question) is None and replay.round() == 0
    assert replay.state() is None and replay.data() is None
    response = replay.input_required(RING, {"k": 1})
    assert list(asked(response)) == ["q1"]
    second = ROUNDS.tool_replay(retry(first, response, "Ada", 2), subject="alice", now=101)
    assert second.ask(question) == accept("Ada") and second.data() == {"k": 1} and second.round() == 1
    with pytest.raises(mrtr.UsageError) as e:
        second.input_required(RING)
    assert e.value.rule is Rule.USAGE_OUT_OF_TURN
    assert second.complete({"content": []})["result"] == {"content": [], "resultType": "complete", "ttlMs": 0}
    # The run takes what the replay holds: the replay is released.
    third = ROUNDS.tool_replay(retry(first, response, "Ada", 2), subject="alice", now=101)
    run = third.run()
    assert run.round() == 1 and run.ask(question) == accept("Ada")
    assert raised_rule(lambda: third.ask(question)) is Rule.USAGE_OUT_OF_TURN


def test_error_response_takes_an_error_or_a_rule() -> None:
    err = mrtr.StateError(Rule.STATE_EXPIRED, -32602, "late")
    assert mrtr.error_response("a", err) == mrtr.error_response("a", Rule.STATE_EXPIRED, "late")
    response, status = mrtr.error_response(None, "state-tampered", "no")
    assert response == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32602, "message": "no", "data": {"rule": "state-tampered"}},
    }
    assert status == 400
    with pytest.raises(ValueError):
        mrtr.error_response(1, "no-such-rule", "x")


def test_a_tool_that_asks_what_the_client_did_not_declare_is_refused_with_minus_32021() -> None:
    """A tool whose author forgot ``ctx.require``: its ask for sampling, from a client that declared only
    elicitation, is refused as ``ctx.require`` refuses it (-32021 naming what it needs), and the checker finds
    nothing wrong with the refusal."""

    async def tool(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        await ctx.sample({"messages": [], "maxTokens": 1})
        return {"content": []}

    call = request()
    call["params"]["_meta"] = {**META, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}
    with pytest.raises(mrtr.ProtocolError) as refused:
        run(tool, call, 100)
    assert (refused.value.rule, refused.value.code) == (Rule.REQUEST_CAPABILITY_MISSING, -32021)
    assert refused.value.data == {"requiredCapabilities": {"sampling": {}}}
    response, status = mrtr.error_response(call["id"], refused.value)
    assert status == 400
    assert response["error"]["data"]["requiredCapabilities"] == {"sampling": {}}
    transcript = [{"from": "client", "message": call}, {"from": "server", "message": response}]
    assert mrtr.check(transcript) == []


def test_error_response_under_the_draft_registry() -> None:
    """The next revision's draft registry: a refused state is -32026 StaleState (``data.kind``, ``data.reason``),
    every other refusal keeps its code, and none goes with a 2xx status."""
    late = mrtr.StateError(Rule.STATE_EXPIRED, -32602, "late")
    assert mrtr.error_response(7, late)[0]["error"]["code"] == -32602
    response, status = mrtr.error_response(7, late, error_codes="draft")
    assert (response["error"]["code"], status) == (-32026, 400)
    assert response["error"]["data"] == {"kind": "request_state", "reason": "expired", "rule": "state-expired"}
    assert mrtr.error_response(7, "request-meta-missing", "m", error_codes="draft")[0]["error"]["code"] == -32602
    with pytest.raises(mrtr.UsageError):
        mrtr.error_response(7, late, error_codes="next")  # type: ignore[arg-type]


# --- run_tool_bytes: the same tool, bytes in and bytes out ----------------------------------------------


def test_run_tool_bytes_answers_as_run_tool_does() -> None:
    tool = Greeter()
    first = request(city="Oslo")
    body = json.dumps(first).encode()
    as_dict = asyncio.run(mrtr.run_tool(tool, body, ROUNDS, subject="alice", now=100))
    as_bytes = asyncio.run(mrtr.run_tool_bytes(tool, body, ROUNDS, subject="alice", now=100))
    assert isinstance(as_bytes, bytes)
    read = json.loads(as_bytes)
    # The same response but for the sealed state, whose nonce is fresh each time.
    assert read["result"].pop("requestState") != as_dict["result"].pop("requestState")
    assert read == as_dict
    # A dict goes in as well, and the request parses only when the tool reads ctx.request.
    second = retry(first, asyncio.run(mrtr.run_tool(tool, first, ROUNDS, subject="alice", now=100)), "Ada", 2)
    second_bytes = asyncio.run(mrtr.run_tool_bytes(tool, second, ROUNDS, subject="alice", now=101))
    assert list(asked(json.loads(second_bytes))) == ["q2"]


def test_a_question_that_cannot_be_built_is_the_tools_to_handle_not_a_refusal() -> None:
    async def careful(args: Dict[str, Any], ctx: Context) -> Dict[str, Any]:
        try:
            await ctx.elicit("Name?", {"type": "object", "properties": {1, 2}})  # type: ignore[dict-item]
        except mrtr.UsageError:
            pass  # a set is no JSON value: the tool's own mistake, which it may handle
        await ctx.elicit("Name?", SCHEMA)
        return {"content": []}

    assert list(asked(run(careful, request(), 100))) == ["q1"]  # what was never asked takes no key
