#!/usr/bin/env python3
"""Writes conformance/cases/revision/: what the next revision (due 2026-12-15) adds that touches MRTR.

SEP-3221 Secure Parameters (an extension, `io.modelcontextprotocol/secure-params`): a
`tools/call` carries the host's `secureArguments` beside the model's `arguments`, and "a client
MUST re-send `secureArguments` unchanged on an MRTR retry". So they are part of what a retry
repeats (RULES.md retry-request-changed: params apart from `inputResponses`, `requestState`,
`_meta`), and the retry builder keeps them as it keeps `arguments`.

The draft error registry's cases are in refusals/ (`state-refused-draft-registry`), where the
refusals mrtr's builders make are rebuilt and checked.
"""

import json
import pathlib
import shutil

from one_fault_cases import ACCEPT, FORM, Talk

ROOT = pathlib.Path(__file__).resolve().parents[1] / "cases" / "revision"
P = "2026-07-28"
SECURE = {"tenant_id": "t-42", "instance": "db-eu-1"}
CAPS = {"elicitation": {}, "extensions": {"io.modelcontextprotocol/secure-params": {}}}


def secure_call(talk, id, secure, responses=None, state=None):
    talk.call(id, responses, state, caps=CAPS)
    if secure is not None:
        talk.entries[-1]["message"]["params"]["secureArguments"] = secure
    return talk


def check(name, rules, description, talk, violations):
    return {
        "id": f"revision/{name}",
        "rules": rules,
        "description": description,
        "op": "check",
        "input": {"transcript": talk.entries, "config": {"protocol": P}},
        "expect": {"violations": [{"rule": r, "index": i} for r, i in violations]},
    }


def flow(retry_secure):
    talk = secure_call(Talk(P, CAPS), 1, SECURE).input_required(1, {"github_login": FORM}, "s1")
    return secure_call(talk, 2, retry_secure, {"github_login": ACCEPT}, "s1").complete(2)


def cases():
    yield check(
        "secure-arguments-kept",
        ["retry-request-changed"],
        "SEP-3221 Secure Parameters: \"a client MUST re-send secureArguments unchanged on an MRTR retry\"; "
        "the retry does, and is compliant.",
        flow(SECURE),
        [],
    )
    yield check(
        "secure-arguments-changed",
        ["retry-request-changed"],
        "SEP-3221 Secure Parameters: the retry re-sends secureArguments with another tenant: the request "
        "changed (RULES.md retry-request-changed).",
        flow({**SECURE, "tenant_id": "t-43"}),
        [("retry-request-changed", 2)],
    )
    yield check(
        "secure-arguments-dropped",
        ["retry-request-changed"],
        "SEP-3221 Secure Parameters: the retry leaves secureArguments out: the request changed "
        "(RULES.md retry-request-changed).",
        flow(None),
        [("retry-request-changed", 2)],
    )
    request = secure_call(Talk(P, CAPS), 1, SECURE).entries[0]["message"]
    result = Talk(P).input_required(1, {"github_login": FORM}, "s1").entries[0]["message"]
    retry = json.loads(json.dumps(request))
    retry["id"] = 2
    retry["params"]["inputResponses"] = {"github_login": ACCEPT}
    retry["params"]["requestState"] = "s1"
    yield {
        "id": "revision/retry-keeps-secure-arguments",
        "rules": ["retry-request-changed"],
        "description": "SEP-3221 Secure Parameters: the retry builder re-sends secureArguments unchanged, as "
        "it keeps every param but inputResponses and requestState (CONFORMANCE.md \"retry\").",
        "op": "retry",
        "input": {"protocol": P, "request": request, "result": result,
                  "inputResponses": {"github_login": ACCEPT}, "id": 2},
        "expect": {"request": retry},
    }


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    written = list(cases())
    for c in written:
        (ROOT / (c["id"].split("/", 1)[1] + ".json")).write_text(json.dumps(c, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {len(written)} cases to {ROOT}")


if __name__ == "__main__":
    main()
