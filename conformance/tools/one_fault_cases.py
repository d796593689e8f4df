#!/usr/bin/env python3
"""Writes conformance/cases/one-fault/: one fault, then an honest continuation.

Each case is a `check` transcript in which one message breaks one rule and the
conversation then goes on as the protocol says it should: the client answers
the round the faulty result opened, the server answers the faulty retry with
its next round, the client starts afresh. The expectation is exactly the one
violation of the faulty message (two where one message carries two
independent faults, and the case says so). A checker that drops the faulty
message's round, or never pairs the faulty retry, reports the honest messages
after it as well: that cascade is what these cases rule out.

The expectations are written by hand here, independently of mrtr's code, from:
  - RULES.md (the rule each faulty message breaks, and "Client retry": a
    request is the retry of the round of its method and target);
  - CONFORMANCE.md "check": every violation once, at the entry that broke it;
  - mrtr conformance/README.md "One fault, one report" (the reading of a
    faulty message: it still does what its valid parts do).

Readings this script takes where those texts leave a detail open:
  - an input request that is itself invalid needs no answer in the retry (its
    fault is the server's, reported with its result); an answer to it is not
    checked against it;
  - a `requestState` the retry echoes exactly from its round is the server's
    fault, not the client's again; a retry whose own `requestState` or
    `inputResponses` is malformed is reported for that, not compared with the
    round again;
  - a result whose `resultType` is unknown is read as final (the flow ends).

Run it from anywhere; it rewrites the folder.
"""

import copy
import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[1] / "cases" / "one-fault"
ALL_CAPS = {"elicitation": {}, "sampling": {}, "roots": {}}
FORM = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Please provide your GitHub username",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    },
}
CONFIRM = {
    "method": "elicitation/create",
    "params": {
        "mode": "form",
        "message": "Confirm the location",
        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
    },
}
SAMPLING = {
    "method": "sampling/createMessage",
    "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Summarize"}}], "maxTokens": 100},
}
ACCEPT = {"action": "accept", "content": {"name": "octocat"}}
CONFIRMED = {"action": "accept", "content": {"ok": True}}
SAMPLED = {"role": "assistant", "content": {"type": "text", "text": "Sunny."}, "model": "m"}
DONE = {"content": [{"type": "text", "text": "72°F, partly cloudy"}], "isError": False}
PROTOCOLS = {"2026-07-28": "2026", "sep-2322": "sep-2322", "sep-2322-draft": "draft"}
SUFFIX = {**PROTOCOLS, "2025-11-25": "2025"}


class Talk:
    """A transcript of one protocol, in the shape that protocol puts on the wire."""

    def __init__(self, protocol, caps=None):
        self.protocol = protocol
        self.caps = ALL_CAPS if caps is None else caps
        self.entries = []

    def client(self, message):
        self.entries.append({"from": "client", "message": message})
        return self

    def server(self, message, stream=None):
        entry = {"from": "server", "message": message}
        if stream:
            entry["stream"] = stream
        self.entries.append(entry)
        return self

    def request(self, id, method, params, caps=None):
        params = dict(params)
        if self.protocol == "2026-07-28":
            params["_meta"] = {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": self.caps if caps is None else caps,
            }
        return self.client({"jsonrpc": "2.0", "id": id, "method": method, "params": params})

    def call(self, id, responses=None, state=None, arguments=None, caps=None):
        """tools/call get_weather; with `responses`/`state`: a retry."""
        params = {"name": "get_weather", "arguments": arguments or {"location": "New York"}}
        message = None
        if self.protocol == "sep-2322-draft":
            self.request(id, "tools/call", params, caps)
            message = self.entries[-1]["message"]
            if responses is not None:
                message["input_responses"] = {k: {"result": v} for k, v in responses.items()}
            if state is not None:
                message["request_state"] = state
            return self
        if responses is not None:
            params["inputResponses"] = responses
        if state is not None:
            params["requestState"] = state
        return self.request(id, "tools/call", params, caps)

    def input_required(self, id, requests=None, state=None, **extra):
        if self.protocol == "sep-2322-draft":
            message = {"jsonrpc": "2.0", "id": id}
            if requests is not None:
                message["input_requests"] = requests
            if state is not None:
                message["request_state"] = state
            return self.server(message, f"post:{id}")
        result = {"resultType": "input_required", **extra}
        if requests is not None:
            result["inputRequests"] = requests
        if state is not None:
            result["requestState"] = state
        return self.server({"jsonrpc": "2.0", "id": id, "result": result}, f"post:{id}")

    def complete(self, id, result=None):
        result = dict(DONE if result is None else result)
        if self.protocol != "sep-2322-draft":
            result["resultType"] = "complete"
        return self.server({"jsonrpc": "2.0", "id": id, "result": result}, f"post:{id}")

    def error(self, id, code, message, data=None):
        error = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        return self.server({"jsonrpc": "2.0", "id": id, "error": error}, f"post:{id}")


def with_(request, **params):
    """An input request with some params changed (`None` drops one)."""
    request = copy.deepcopy(request)
    for key, value in params.items():
        if value is None:
            request["params"].pop(key, None)
        else:
            request["params"][key] = value
    return request


def case(name, protocol, rules, description, talk, violations):
    suffix = SUFFIX[protocol]
    return {
        "id": f"one-fault/{name}-{suffix}",
        "rules": rules,
        "description": description,
        "op": "check",
        "input": {"transcript": talk.entries, "config": {"protocol": protocol}},
        "expect": {"violations": [{"rule": r, "index": i} for r, i in violations]},
    }


BAD_SAMPLING = with_(SAMPLING, maxTokens=None)


def server_faults(p):
    """A result with a fault in its content, then the client's honest continuation."""
    yield case(
        "input-request-invalid-then-retry",
        p,
        ["input-request-invalid", "input-responses-unsolicited", "retry-missing-input-response"],
        f"RULES.md input-request-invalid ({p}): one of two input requests is a sampling request without "
        "maxTokens; the round still opens, so the retry that answers both keys and echoes the state pairs "
        "with it and the final result ends the call.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM, "summary": BAD_SAMPLING}, "s1")
        .call(2, {"github_login": ACCEPT, "summary": SAMPLED}, "s1")
        .complete(2),
        [("input-request-invalid", 1)],
    )
    yield case(
        "input-request-invalid-left-unanswered",
        p,
        ["input-request-invalid", "retry-missing-input-response"],
        f"RULES.md input-request-invalid ({p}): a client that cannot read an invalid input request leaves "
        "it unanswered; that is not a second fault (the reading of one-fault/README: an invalid request "
        "needs no answer).",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM, "summary": BAD_SAMPLING}, "s1")
        .call(2, {"github_login": ACCEPT}, "s1")
        .complete(2),
        [("input-request-invalid", 1)],
    )
    yield case(
        "request-state-invalid-echoed",
        p,
        ["request-state-invalid", "retry-request-state-mismatch", "retry-request-state-unexpected"],
        f"RULES.md request-state-invalid ({p}): the server sends a number as requestState; the client "
        "echoes it exactly, as 001 \"Client Behavior\" asks. The fault is the server's, reported once.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM}, 42)
        .call(2, {"github_login": ACCEPT}, 42)
        .complete(2),
        [("request-state-invalid", 1)],
    )
    yield case(
        "retry-request-state-invalid-then-next-round",
        p,
        ["request-state-invalid", "retry-missing-input-response", "retry-request-state-mismatch"],
        f"RULES.md request-state-invalid ({p}): the client's retry carries a number as requestState; it "
        "is still the retry of its round, the server answers it with a second round, and the client's "
        "honest answer to that round pairs with it.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM}, "s1")
        .call(2, {"github_login": ACCEPT}, 7)
        .input_required(2, {"confirm": CONFIRM}, "s2")
        .call(3, {"confirm": CONFIRMED}, "s2")
        .complete(3),
        [("request-state-invalid", 2)],
    )
    yield case(
        "input-responses-malformed-then-next-round",
        p,
        ["input-responses-malformed", "retry-missing-input-response", "input-responses-unsolicited"],
        f"RULES.md input-responses-malformed ({p}): the retry's answer is a bare string; the server asks "
        "again and the client's corrected retry pairs with the new round.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM}, "s1")
        .call(2, {"github_login": "octocat"}, "s1")
        .input_required(2, {"github_login": FORM}, "s2")
        .call(3, {"github_login": ACCEPT}, "s2")
        .complete(3),
        [("input-responses-malformed", 2)],
    )


def retry_faults(p):
    """A retry that breaks a retry rule, the server's answer, and the client's corrected retry."""
    yield case(
        "retry-missing-input-response-then-next-round",
        p,
        ["retry-missing-input-response", "input-responses-unsolicited"],
        f"RULES.md retry-missing-input-response ({p}): the retry answers one of two keys; the server asks "
        "for the other in a second round, which the client answers.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM, "confirm": CONFIRM}, "s1")
        .call(2, {"github_login": ACCEPT}, "s1")
        .input_required(2, {"confirm": CONFIRM}, "s2")
        .call(3, {"confirm": CONFIRMED}, "s2")
        .complete(3),
        [("retry-missing-input-response", 2)],
    )
    yield case(
        "retry-input-response-invalid-then-next-round",
        p,
        ["retry-input-response-invalid", "input-responses-unsolicited"],
        f"RULES.md retry-input-response-invalid ({p}): the answer gives a number for a string property; "
        "the server asks again, the client answers right.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM}, "s1")
        .call(2, {"github_login": {"action": "accept", "content": {"name": 5}}}, "s1")
        .input_required(2, {"github_login": FORM}, "s2")
        .call(3, {"github_login": ACCEPT}, "s2")
        .complete(3),
        [("retry-input-response-invalid", 2)],
    )
    yield case(
        "retry-request-state-mismatch-then-corrected",
        p,
        ["retry-request-state-mismatch", "input-responses-unsolicited"],
        f"RULES.md retry-request-state-mismatch ({p}): the retry changes the state; the server refuses it "
        "(-32602) and the round stays open, so the client's corrected retry pairs with it.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM}, "s1")
        .call(2, {"github_login": ACCEPT}, "s1-edited")
        .error(2, -32602, "Invalid requestState")
        .call(3, {"github_login": ACCEPT}, "s1")
        .complete(3),
        [("retry-request-state-mismatch", 2)],
    )
    yield case(
        "retry-request-changed-then-fresh-call",
        p,
        ["retry-request-changed", "input-responses-unsolicited"],
        f"RULES.md retry-request-changed ({p}): the retry changes the arguments and the server answers it; "
        "the client's next call starts afresh.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM}, "s1")
        .call(2, {"github_login": ACCEPT}, "s1", arguments={"location": "Boston"})
        .complete(2)
        .call(3)
        .complete(3),
        [("retry-request-changed", 2)],
    )


def only_2026():
    p = "2026-07-28"
    yield case(
        "url-elicitation-id-then-retry",
        p,
        ["input-request-invalid", "input-responses-unsolicited"],
        "RULES.md input-request-invalid (2026-07-28: URL-mode elicitation has no elicitationId), as an "
        "rmcp 3.11 server sends every URL-mode ask (\"elicitationId\": \"\"); the client answers it and "
        "the call completes.",
        Talk(p, {"elicitation": {"form": {}, "url": {}}})
        .call(1)
        .input_required(
            1,
            {
                "authorize": {
                    "method": "elicitation/create",
                    "params": {
                        "mode": "url",
                        "message": "Sign in",
                        "url": "https://example.com/auth",
                        "elicitationId": "",
                    },
                }
            },
            "s1",
        )
        .call(2, {"authorize": {"action": "accept"}}, "s1")
        .complete(2),
        [("input-request-invalid", 1)],
    )
    yield case(
        "two-faults-in-one-result",
        p,
        ["input-request-invalid", "input-request-capability-missing", "input-responses-unsolicited"],
        "RULES.md input-request-invalid and input-request-capability-missing (2026-07-28): one result "
        "holds an invalid form (a property without a type) and a sampling request the client, which "
        "declared only elicitation, cannot serve: two independent faults, each reported once; the "
        "retry then pairs.",
        Talk(p, {"elicitation": {}})
        .call(1)
        .input_required(
            1,
            {"github_login": with_(FORM, requestedSchema={"type": "object", "properties": {"name": {}}}), "summary": SAMPLING},
            "s1",
        )
        .call(2, {"github_login": ACCEPT, "summary": SAMPLED}, "s1")
        .complete(2),
        [("input-request-invalid", 1), ("input-request-capability-missing", 1)],
    )
    yield case(
        "capability-missing-then-retry",
        p,
        ["input-request-capability-missing", "input-responses-unsolicited"],
        "RULES.md input-request-capability-missing (2026-07-28): the server asks for sampling the client "
        "did not declare; the client answers anyway and the call completes.",
        Talk(p, {"elicitation": {}}).call(1).input_required(1, {"summary": SAMPLING}, "s1").call(2, {"summary": SAMPLED}, "s1").complete(2),
        [("input-request-capability-missing", 1)],
    )
    yield case(
        "cache-hint-then-retry",
        p,
        ["input-required-cache-hint", "input-responses-unsolicited"],
        "RULES.md input-required-cache-hint (2026-07-28 server/utilities/caching): an input_required "
        "result with ttlMs; the retry pairs and completes.",
        Talk(p).call(1).input_required(1, {"github_login": FORM}, "s1", ttlMs=60000).call(2, {"github_login": ACCEPT}, "s1").complete(2),
        [("input-required-cache-hint", 1)],
    )
    yield case(
        "input-required-empty-then-fresh-call",
        p,
        ["input-required-empty", "input-responses-unsolicited"],
        "schema 2026-07-28 InputRequiredResult: at least one of inputRequests, requestState; with "
        "neither there is nothing to answer, so the client calls again afresh.",
        Talk(p).call(1).input_required(1).call(2).complete(2),
        [("input-required-empty", 1)],
    )
    yield case(
        "result-type-unknown-then-fresh-call",
        p,
        ["result-type-unknown"],
        "RULES.md result-type-unknown: \"partial\" is not a resultType; the client calls again afresh.",
        Talk(p)
        .call(1)
        .server({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "partial", **DONE}}, "post:1")
        .call(2)
        .complete(2),
        [("result-type-unknown", 1)],
    )
    yield case(
        "result-type-missing-then-next-call",
        p,
        ["result-type-missing"],
        "schema 2026-07-28 Result.resultType: a final result without resultType; the next call is "
        "answered right.",
        Talk(p).call(1).server({"jsonrpc": "2.0", "id": 1, "result": DONE}, "post:1").call(2).complete(2),
        [("result-type-missing", 1)],
    )
    yield case(
        "message-after-input-required-then-retry",
        p,
        ["message-after-input-required", "input-responses-unsolicited"],
        "001 \"Protocol Requirements for Ephemeral Workflow\" (2026-07-28): a notification on the stream "
        "after its input_required result; the retry on its own stream completes.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM}, "s1")
        .server({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "late"}}, "post:1")
        .call(2, {"github_login": ACCEPT}, "s1")
        .complete(2),
        [("message-after-input-required", 2)],
    )
    yield case(
        "method-not-allowed-then-fresh-list",
        p,
        ["input-required-method-not-allowed", "input-responses-unsolicited"],
        "001 \"Server-Initiated Request Support for Client Requests\" (2026-07-28): tools/list is not "
        "answered with input_required; the client lists again afresh.",
        Talk(p)
        .request(1, "tools/list", {})
        .input_required(1, {"github_login": FORM}, "s1")
        .request(2, "tools/list", {})
        .server({"jsonrpc": "2.0", "id": 2, "result": {"resultType": "complete", "tools": []}}, "post:2"),
        [("input-required-method-not-allowed", 1)],
    )
    yield case(
        "jsonrpc-invalid-result-then-fresh-call",
        p,
        ["jsonrpc-invalid", "input-responses-unsolicited"],
        "RULES.md jsonrpc-invalid: a response whose result is an array is no JSON-RPC response; the "
        "client calls again afresh and is answered.",
        Talk(p).call(1).server({"jsonrpc": "2.0", "id": 1, "result": []}, "post:1").call(2).complete(2),
        [("jsonrpc-invalid", 1)],
    )
    yield case(
        "meta-missing-then-next-round",
        p,
        ["request-meta-missing", "input-responses-unsolicited", "retry-request-changed"],
        "RULES.md request-meta-missing (2026-07-28): a retry without _meta is still the retry of its "
        "round (_meta is no part of the comparison); the next round's retry pairs.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM}, "s1")
        .client(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {
                    "name": "get_weather",
                    "arguments": {"location": "New York"},
                    "inputResponses": {"github_login": ACCEPT},
                    "requestState": "s1",
                },
            }
        )
        .input_required(2, {"confirm": CONFIRM}, "s2")
        .call(3, {"confirm": CONFIRMED}, "s2")
        .complete(3),
        [("request-meta-missing", 2)],
    )
    yield case(
        "refusal-without-data-then-retry",
        p,
        ["request-capability-missing"],
        "RULES.md request-capability-missing (2026-07-28 schema MissingRequiredClientCapabilityError): a "
        "-32021 without data.requiredCapabilities; the client calls again declaring sampling and is served.",
        Talk(p, {})
        .call(1)
        .error(1, -32021, "Missing required client capability")
        .call(2, caps={"sampling": {}})
        .complete(2),
        [("request-capability-missing", 1)],
    )


TASKS_CAPS = {**ALL_CAPS, "extensions": {"io.modelcontextprotocol/tasks": {}}}


def task(id, status, result_type="complete", **extra):
    """A task result of the Tasks extension (2026-07-28) answering request `id`."""
    body = {"resultType": result_type, "taskId": "task-1", "status": status, "createdAt": "2026-07-28T10:00:00Z",
            "lastUpdatedAt": "2026-07-28T10:00:05Z", "ttlMs": 600000, "pollIntervalMs": 1000, **extra}
    return {"jsonrpc": "2.0", "id": id, "result": body}


def more_faults():
    """The rules of retries, server requests and tasks, each fault followed by an honest continuation."""
    p = "2026-07-28"
    yield case(
        "retry-id-reused-then-next-round",
        p,
        ["retry-id-reused", "input-responses-unsolicited"],
        "001 \"Ephemeral Tool Workflow\" (2026-07-28): the retry reuses its original's id; it is still the retry "
        "of its round, answered with a second round, whose honest retry pairs.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM}, "s1")
        .call(1, {"github_login": ACCEPT}, "s1")
        .input_required(1, {"confirm": CONFIRM}, "s2")
        .call(3, {"confirm": CONFIRMED}, "s2")
        .complete(3),
        [("retry-id-reused", 2)],
    )
    yield case(
        "unsolicited-then-round",
        p,
        ["input-responses-unsolicited", "retry-missing-input-response"],
        "RULES.md input-responses-unsolicited: a first call carrying inputResponses; the server asks and the "
        "client's retry of that round pairs.",
        Talk(p)
        .call(1, {"github_login": ACCEPT})
        .input_required(1, {"github_login": FORM}, "s1")
        .call(2, {"github_login": ACCEPT}, "s1")
        .complete(2),
        [("input-responses-unsolicited", 0)],
    )
    yield case(
        "state-unexpected-then-next-round",
        p,
        ["retry-request-state-unexpected", "input-responses-unsolicited"],
        "001 \"Client Behavior\" (2026-07-28): the round had no requestState and the retry carries one; the "
        "server asks again and the client's next retry, without state, pairs.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM})
        .call(2, {"github_login": ACCEPT}, "invented")
        .input_required(2, {"confirm": CONFIRM})
        .call(3, {"confirm": CONFIRMED})
        .complete(3),
        [("retry-request-state-unexpected", 2)],
    )
    exceeded = case(
        "rounds-exceeded-then-fresh-call",
        p,
        ["retry-rounds-exceeded", "input-responses-unsolicited"],
        "RULES.md retry-rounds-exceeded: with maxRounds 1 the second retry is one too many (reported once); "
        "the server completes it and the client's next call starts afresh.",
        Talk(p)
        .call(1)
        .input_required(1, {"github_login": FORM}, "s1")
        .call(2, {"github_login": ACCEPT}, "s1")
        .input_required(2, {"confirm": CONFIRM}, "s2")
        .call(3, {"confirm": CONFIRMED}, "s2")
        .complete(3)
        .call(4)
        .complete(4),
        [("retry-rounds-exceeded", 4)],
    )
    exceeded["input"]["config"]["maxRounds"] = 1
    yield exceeded
    yield case(
        "server-request-on-stream-then-retry",
        p,
        ["server-request-on-stream", "input-responses-unsolicited"],
        "RULES.md server-request-on-stream (2026-07-28): the server sends an elicitation request on the call's "
        "stream; it then asks as it should, and the retry pairs.",
        Talk(p)
        .call(1)
        .server({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": FORM["params"]}, "post:1")
        .input_required(1, {"github_login": FORM}, "s1")
        .call(2, {"github_login": ACCEPT}, "s1")
        .complete(2),
        [("server-request-on-stream", 1)],
    )
    legacy = "2025-11-25"
    yield case(
        "server-request-unassociated-then-call",
        legacy,
        ["server-request-unassociated"],
        "004 SEP-2260 (2025-11-25): an elicitation request on the standalone stream, outside any call; the "
        "client declines it, and its next call is asked on its own stream and answered.",
        Talk(legacy)
        .server({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": FORM["params"]}, "get")
        .client({"jsonrpc": "2.0", "id": 0, "result": {"action": "decline"}})
        .call(1)
        .server({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": FORM["params"]}, "post:1")
        .client({"jsonrpc": "2.0", "id": 1, "result": ACCEPT})
        .complete(1),
        [("server-request-unassociated", 0)],
    )
    tasks = Talk(p, TASKS_CAPS)
    yield case(
        "task-status-invalid-then-completed",
        p,
        ["task-status-invalid", "task-unknown", "task-transition-invalid"],
        "schema ext-tasks TaskStatus: \"paused\" is not a status; the task still exists, and its next status, "
        "completed, is a transition from working.",
        tasks.call(1)
        .server(task(1, "working", "task"))
        .request(2, "tasks/get", {"taskId": "task-1"})
        .server(task(2, "paused"))
        .request(3, "tasks/get", {"taskId": "task-1"})
        .server(task(3, "completed", result=DONE)),
        [("task-status-invalid", 3)],
    )
    tasks = Talk(p, TASKS_CAPS)
    yield case(
        "task-unknown-then-known",
        p,
        ["task-unknown"],
        "RULES.md task-unknown: tasks/get for an id no result created; the client then polls its own task.",
        tasks.request(1, "tasks/get", {"taskId": "task-nope"})
        .error(1, -32602, "Unknown task")
        .call(2)
        .server(task(2, "working", "task"))
        .request(3, "tasks/get", {"taskId": "task-1"})
        .server(task(3, "completed", result=DONE)),
        [("task-unknown", 0)],
    )
    tasks = Talk(p, TASKS_CAPS)
    yield case(
        "task-transition-invalid-then-polled",
        p,
        ["task-transition-invalid", "task-status-invalid"],
        "RULES.md task-transition-invalid: no transition out of completed; reported once, and a later poll "
        "answered completed again is none.",
        tasks.call(1)
        .server(task(1, "working", "task"))
        .request(2, "tasks/get", {"taskId": "task-1"})
        .server(task(2, "completed", result=DONE))
        .request(3, "tasks/get", {"taskId": "task-1"})
        .server(task(3, "working"))
        .request(4, "tasks/get", {"taskId": "task-1"})
        .server(task(4, "completed", result=DONE)),
        [("task-transition-invalid", 5)],
    )


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    cases = [c for p in PROTOCOLS for c in [*server_faults(p), *retry_faults(p)]] + list(only_2026()) + list(more_faults())
    for c in cases:
        path = ROOT / (c["id"].split("/", 1)[1] + ".json")
        path.write_text(json.dumps(c, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {len(cases)} cases to {ROOT}")


if __name__ == "__main__":
    main()
