#!/usr/bin/env python3
"""Writes conformance/cases/legacy-answers/: a client's answers to server requests (2025-11-25).

Before MRTR, a server asks on the stream of the call (elicitation/create, sampling/createMessage,
roots/list as JSON-RPC requests) and the client answers each with a JSON-RPC result. That result is
the same object an MRTR retry carries in `inputResponses` (ElicitResult, CreateMessageResult,
ListRootsResult), so it must fit its request the same way (RULES.md retry-input-response-invalid;
2025-11-25 schema ElicitResult: "content … Omitted for out-of-band mode responses"). mrtr's
legacy bridge refuses an answer that does not fit; the checker reports it with the same rule.

Reading taken here: the answer to a server request that is itself invalid is not judged by it.
"""

import json
import pathlib
import shutil

ROOT = pathlib.Path(__file__).resolve().parents[1] / "cases" / "legacy-answers"
P = "2025-11-25"
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather", "arguments": {"location": "Oslo"}}}
FORM = {"mode": "form", "message": "Which units?",
        "requestedSchema": {"type": "object", "properties": {"units": {"type": "string"}}, "required": ["units"]}}
URL = {"mode": "url", "message": "Sign in", "url": "https://example.com/sign-in", "elicitationId": "e-1"}
DONE = {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "Oslo: 22 degrees celsius"}]}}


def talk(method, params, answer):
    asked = {"jsonrpc": "2.0", "id": 0, "method": method}
    if params is not None:
        asked["params"] = params
    return [
        {"from": "client", "message": CALL},
        {"from": "server", "message": asked, "stream": "post:1"},
        {"from": "client", "message": {"jsonrpc": "2.0", "id": 0, "result": answer}},
        {"from": "server", "message": DONE, "stream": "post:1"},
    ]


def case(name, description, transcript, violations):
    return {
        "id": f"legacy-answers/{name}",
        "rules": ["retry-input-response-invalid"],
        "description": description,
        "op": "check",
        "input": {"transcript": transcript, "config": {"protocol": P}},
        "expect": {"violations": [{"rule": "retry-input-response-invalid", "index": i} for i in violations]},
    }


def cases():
    yield case("form-answer-fits",
               "RULES.md retry-input-response-invalid (2025-11-25, an answer to a server request): the near miss, "
               "a form answered as its schema asks.",
               talk("elicitation/create", FORM, {"action": "accept", "content": {"units": "celsius"}}), [])
    yield case("form-answer-wrong-type",
               "RULES.md retry-input-response-invalid (2025-11-25, an answer to a server request): a number for a "
               "string property.",
               talk("elicitation/create", FORM, {"action": "accept", "content": {"units": 5}}), [2])
    yield case("url-answer-without-content",
               "schema 2025-11-25 ElicitResult: content is \"Omitted for out-of-band mode responses\"; the near miss.",
               talk("elicitation/create", URL, {"action": "accept"}), [])
    yield case("url-answer-with-content",
               "schema 2025-11-25 ElicitResult: content is \"Omitted for out-of-band mode responses\"; a URL-mode "
               "answer with content (as turbomcp 4.0.0-alpha.5 answers) does not fit.",
               talk("elicitation/create", URL, {"action": "accept", "content": {}}), [2])
    yield case("sampling-answer-without-model",
               "RULES.md retry-input-response-invalid (2025-11-25): a CreateMessageResult names its model.",
               talk("sampling/createMessage", {"messages": [{"role": "user", "content": {"type": "text", "text": "Hi"}}],
                                               "maxTokens": 10},
                    {"role": "assistant", "content": {"type": "text", "text": "Hello"}}), [2])
    yield case("roots-answer-fits",
               "RULES.md retry-input-response-invalid (2025-11-25): the near miss, roots/list without params answered "
               "with file:// roots.",
               talk("roots/list", None, {"roots": [{"uri": "file:///work", "name": "work"}]}), [])
    yield case("answer-to-an-invalid-request",
               "RULES.md retry-input-response-invalid (2025-11-25), the reading of legacy_answer_cases.py: the answer to "
               "a server request that is itself invalid (a form property nesting an object) is not judged by it.",
               talk("elicitation/create", {"mode": "form", "message": "Where?", "requestedSchema": {
                   "type": "object", "properties": {"place": {"type": "object"}}}},
                    {"action": "accept", "content": {"place": 5}}), [])


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    written = list(cases())
    for c in written:
        (ROOT / (c["id"].split("/", 1)[1] + ".json")).write_text(json.dumps(c, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {len(written)} cases to {ROOT}")


if __name__ == "__main__":
    main()
