#!/usr/bin/env python3
"""Writes conformance/cases/refusals/: every refusal mrtr's server builders make, checked.

Each case is a `check` transcript: a request, the refusal a server built with
mrtr sends for it (`server::error_response` of the builder's error), then the
client's honest next step and the server's answer. The expectation comes from
the spec, not from mrtr: a refusal of the right code with the `data` the
schema asks for is no violation, so a case expects none, except where the
client's request itself broke a rule (then exactly that one). The test
`conformance/tests/refusals.rs` rebuilds every refusal here from its request
with the builder the case names and holds the code and `data` equal: the
corpus checks what the builders really send.

Sources:
  - 2026-07-28 schema MissingRequiredClientCapabilityError (-32021,
    data.requiredCapabilities) and UnsupportedProtocolVersionError (-32022,
    data.supported, data.requested);
  - RULES.md request-meta-missing (-32602) and "Client retry": a refused retry
    leaves its round open; a request with neither MRTR field starts afresh;
  - mrtr's `error_response`: `data.rule` names the rule, beside the schema's
    members (extra members are allowed by the schema's `data: unknown`).
"""

import json
import pathlib
import shutil

from one_fault_cases import ACCEPT, FORM, SAMPLED, SAMPLING, Talk

ROOT = pathlib.Path(__file__).resolve().parents[1] / "cases" / "refusals"
P = "2026-07-28"
TASKS = {"io.modelcontextprotocol/tasks": {}}


def refusal(talk, id, code, message, data):
    return talk.error(id, code, message, data)


RULES = {
    "respond": ["request-capability-missing", "input-request-capability-missing"],
    "require_capabilities": ["request-capability-missing"],
    "require_declared": ["request-capability-missing"],
    "check_version": ["protocol-version-unsupported"],
    "check_request": ["request-meta-missing"],
    "resume": ["state-malformed", "input-responses-unsolicited"],
}


def case(name, builder, description, talk, violations=()):
    return {
        "id": f"refusals/{name}",
        "rules": RULES[builder],
        "description": f"{description} Built by mrtr's server::{builder}.",
        "op": "check",
        "input": {"transcript": talk.entries, "config": {"protocol": P}},
        "expect": {"violations": [{"rule": r, "index": i} for r, i in violations]},
    }


def cases():
    yield case(
        "tool-asks-undeclared-capability",
        "respond",
        "2026-07-28 schema MissingRequiredClientCapabilityError: a tool asks for sampling, which the "
        "request did not declare; the server refuses with -32021 naming it, the client calls again "
        "declaring sampling and the call runs its round.",
        refusal(
            Talk(P, {"elicitation": {}}).call(1),
            1,
            -32021,
            "the request needs the client capabilities sampling",
            {"requiredCapabilities": {"sampling": {}}, "rule": "request-capability-missing"},
        )
        .call(2, caps={"elicitation": {}, "sampling": {}})
        .input_required(2, {"summary": SAMPLING}, "s1")
        .call(3, {"summary": SAMPLED}, "s1", caps={"elicitation": {}, "sampling": {}})
        .complete(3),
    )
    yield case(
        "tool-requires-merged-capabilities",
        "require_capabilities",
        "2026-07-28 schema MissingRequiredClientCapabilityError: a tool that cannot work without a URL "
        "elicitation and roots names both, merged into one ClientCapabilities object.",
        refusal(
            Talk(P, {"elicitation": {}}).call(1),
            1,
            -32021,
            "the request needs the client capabilities elicitation, roots",
            {"requiredCapabilities": {"elicitation": {"url": {}}, "roots": {}}, "rule": "request-capability-missing"},
        )
        .call(2, caps={"elicitation": {"form": {}, "url": {}}, "roots": {}})
        .complete(2),
    )
    yield case(
        "extension-required",
        "require_declared",
        "2026-07-28 schema MissingRequiredClientCapabilityError: a tool that runs only as a task needs "
        "the Tasks extension declared.",
        refusal(
            Talk(P).call(1),
            1,
            -32021,
            "the request needs the client capabilities extensions",
            {"requiredCapabilities": {"extensions": TASKS}, "rule": "request-capability-missing"},
        )
        .call(2, caps={"elicitation": {}, "sampling": {}, "roots": {}, "extensions": TASKS})
        .complete(2),
    )
    yield case(
        "version-unsupported",
        "check_version",
        "2026-07-28 schema UnsupportedProtocolVersionError: a request at a version the server does not "
        "serve is refused with -32022 listing what it serves and repeating the request's; the client "
        "calls again at a served one.",
        refusal(
            with_version(Talk(P).call(1), "2099-01-01"),
            1,
            -32022,
            'protocol version "2099-01-01" is not served here',
            {"supported": ["2026-07-28"], "requested": "2099-01-01", "rule": "protocol-version-unsupported"},
        )
        .call(2)
        .complete(2),
    )
    yield case(
        "meta-missing",
        "check_request",
        "RULES.md request-meta-missing (-32602): a request without _meta is the client's fault (reported "
        "at it); the server's refusal is none, and the corrected call is served.",
        refusal(
            Talk(P).client(
                {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather", "arguments": {"location": "New York"}}}
            ),
            1,
            -32602,
            "a 2026-07-28 request carries _meta io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities",
            {"rule": "request-meta-missing"},
        )
        .call(2)
        .complete(2),
        [("request-meta-missing", 0)],
    )
    yield case(
        "state-refused-then-fresh-call",
        "resume",
        "RULES.md \"Client retry\": a server that cannot open the state it is given (here a plain string "
        "where it seals its state) refuses the retry with -32602; the round stays open, and the client "
        "starts afresh and the call runs again.",
        refusal(
            Talk(P).call(1).input_required(1, {"github_login": FORM}, "s1").call(2, {"github_login": ACCEPT}, "s1"),
            2,
            -32602,
            "requestState is not a sealed token",
            {"rule": "state-malformed"},
        )
        .call(3)
        .input_required(3, {"github_login": FORM}, "s2")
        .call(4, {"github_login": ACCEPT}, "s2")
        .complete(4),
    )
    yield case(
        "state-refused-draft-registry",
        "resume",
        "The next revision's draft error registry (Transports WG): a refused requestState is -32026 "
        "StaleState with data {kind: \"request_state\", reason}, in place of -32602; the checker accepts "
        "either; the client starts afresh. mrtr's servers send it with errorCodes: draft.",
        refusal(
            Talk(P).call(1).input_required(1, {"github_login": FORM}, "s1").call(2, {"github_login": ACCEPT}, "s1"),
            2,
            -32026,
            "requestState is not a sealed token",
            {"kind": "request_state", "reason": "malformed", "rule": "state-malformed"},
        )
        .call(3)
        .input_required(3, {"github_login": FORM}, "s2")
        .call(4, {"github_login": ACCEPT}, "s2")
        .complete(4),
    )


def with_version(talk, version):
    """The last request of `talk`, naming `version` in its _meta."""
    meta = talk.entries[-1]["message"]["params"]["_meta"]
    meta["io.modelcontextprotocol/protocolVersion"] = version
    return talk


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    written = list(cases())
    for c in written:
        path = ROOT / (c["id"].split("/", 1)[1] + ".json")
        path.write_text(json.dumps(c, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {len(written)} cases to {ROOT}")


if __name__ == "__main__":
    main()
