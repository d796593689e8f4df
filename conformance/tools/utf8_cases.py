"""Writes conformance/cases/utf8/: invalid UTF-8 in every place a message can hold a string.

JSON text exchanged between systems is UTF-8 (RFC 8259 §8.1), all of it, not
only the strings a rule reads: a gateway that validates with mrtr and forwards
the bytes to a stricter parser must never see bytes mrtr let through. Each
place (a tool name, an argument key or value, a result's text, ...) gets one
malformed sequence (the kinds rotate: a lone continuation byte, 0xFF, an
overlong encoding, an encoded surrogate, a truncated sequence, a code point
above U+10FFFF), expected to be refused with `jsonrpc-parse-error`; and a near
miss with valid multi-byte UTF-8 in the same place, expected to classify.
The cases use the `classify` op's `hex` input (conformance/FORMAT.md).

Run from the repository root: python3 conformance/tools/utf8_cases.py
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "cases" / "utf8"
MARK = "\u0000MARK\u0000"  # where the bytes go, inside a string of the message

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}

# (name, byte sequence, what it is): each is invalid UTF-8 (RFC 3629 §3-4).
INVALID = [
    ("continuation", b"\x80", "a lone continuation byte 0x80"),
    ("ff", b"\xff", "the byte 0xFF, which never occurs in UTF-8"),
    ("overlong", b"\xc0\xaf", "an overlong encoding of '/' (C0 AF)"),
    ("surrogate", b"\xed\xa0\x80", "an encoded surrogate U+D800 (ED A0 80)"),
    ("truncated", b"\xe2\x82", "a three-byte sequence cut after two bytes (E2 82)"),
    ("above-max", b"\xf4\x90\x80\x80", "a code point above U+10FFFF (F4 90 80 80)"),
]
# Valid multi-byte UTF-8 for the near misses: 2, 3 and 4 bytes, and the largest code point.
VALID = [
    ("2-byte", "\u00e9", "U+00E9 (two bytes)"),
    ("3-byte", "\u20ac", "U+20AC (three bytes)"),
    ("4-byte", "\U0001f600", "U+1F600 (four bytes)"),
    ("max", "\U0010ffff", "U+10FFFF (the largest code point)"),
]


def request(method: str, params: dict) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}


ELICIT = {"method": "elicitation/create", "params": {"message": "GitHub user?",
          "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}

# (place, message with MARK in one string or key, expected kind, id, method; MARK in
# an expected id or method stands for the near miss's character).
PLACES = [
    ("request-id", {"jsonrpc": "2.0", "id": "r" + MARK, "method": "tools/list", "params": {"_meta": META}},
     "request", "r" + MARK, "tools/list"),
    ("method", {"jsonrpc": "2.0", "id": 1, "method": "tools/call" + MARK, "params": {"_meta": META}},
     "request", 1, "tools/call" + MARK),
    ("jsonrpc-version", {"jsonrpc": "2.0" + MARK, "id": 1, "method": "tools/list"}, None, None, None),
    ("tool-name", request("tools/call", {"name": "get_weather" + MARK, "arguments": {}}), "request", 1, "tools/call"),
    ("argument-value", request("tools/call", {"name": "get_weather", "arguments": {"location": "NYC" + MARK}}),
     "request", 1, "tools/call"),
    ("argument-key", request("tools/call", {"name": "get_weather", "arguments": {"loc" + MARK: "NYC"}}),
     "request", 1, "tools/call"),
    ("argument-nested", request("tools/call", {"name": "t", "arguments": {"a": [{"b": ["x", "y" + MARK]}]}}),
     "request", 1, "tools/call"),
    ("params-key", request("tools/call", {"name": "t", "x" + MARK: 1}), "request", 1, "tools/call"),
    ("meta-value", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "_meta": {
        **META, "io.modelcontextprotocol/protocolVersion": "2026-07-28" + MARK}}}, "request", 1, "tools/call"),
    ("resource-uri", request("resources/read", {"uri": "file:///a" + MARK}), "request", 1, "resources/read"),
    ("prompt-argument", request("prompts/get", {"name": "review", "arguments": {"code": "fn main() {}" + MARK}}),
     "request", 1, "prompts/get"),
    ("retry-request-state", request("tools/call", {"name": "t", "requestState": "s1" + MARK,
     "inputResponses": {"login": {"action": "accept", "content": {"name": "octocat"}}}}), "request", 1, "tools/call"),
    ("retry-response-content", request("tools/call", {"name": "t", "requestState": "s1",
     "inputResponses": {"login": {"action": "accept", "content": {"name": "octo" + MARK}}}}), "request", 1, "tools/call"),
    ("retry-response-key", request("tools/call", {"name": "t", "requestState": "s1",
     "inputResponses": {"login" + MARK: {"action": "accept", "content": {"name": "octocat"}}}}), "request", 1, "tools/call"),
    ("result-text", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete",
     "content": [{"type": "text", "text": "sunny" + MARK}]}}, "result", 1, None),
    ("input-request-key", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
     "inputRequests": {"login" + MARK: ELICIT}, "requestState": "s1"}}, "input_required", 1, None),
    ("input-request-message", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
     "inputRequests": {"login": {**ELICIT, "params": {**ELICIT["params"], "message": "GitHub user?" + MARK}}},
     "requestState": "s1"}}, "input_required", 1, None),
    ("input-required-state", {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required",
     "inputRequests": {"login": ELICIT}, "requestState": "s1" + MARK}}, "input_required", 1, None),
    ("error-message", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad" + MARK}}, "error", 1, None),
    ("error-data", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad", "data": {"why": "x" + MARK}}},
     "error", 1, None),
    ("notification", {"jsonrpc": "2.0", "method": "notifications/message",
     "params": {"level": "info", "data": "log" + MARK}}, "notification", None, "notifications/message"),
]


def encode(message: dict, insert: bytes) -> bytes:
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    before, after = text.split(json.dumps(MARK)[1:-1].replace("\\u0000", "\\u0000"), 1)
    return before.encode() + insert + after.encode()


def fill(expected: object, good: str) -> object:
    return expected.replace(MARK, good) if isinstance(expected, str) else expected


def write(case: dict) -> None:
    path = OUT / (case["id"].split("/", 1)[1] + ".json")
    path.write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> None:
    for old in OUT.glob("*.json"):
        old.unlink()
    for n, (place, message, kind, id_, method) in enumerate(PLACES):
        name, bad, what = INVALID[n % len(INVALID)]
        write({
            "id": f"utf8/{place}-{name}",
            "rules": ["jsonrpc-parse-error"],
            "description": f"RFC 8259 §8.1 (JSON text between systems is UTF-8) and RULES.md jsonrpc-parse-error "
                           f"(\"not UTF-8\"): {what} in the {place.replace('-', ' ')}, where no other rule reads, "
                           "is refused, never passed on.",
            "op": "classify",
            "input": {"hex": encode(message, bad).hex()},
            "expect": {"error": "jsonrpc-parse-error"},
        })
        if kind is None:
            continue
        vname, good, vwhat = VALID[n % len(VALID)]
        write({
            "id": f"utf8/{place}-valid-{vname}",
            "rules": ["jsonrpc-parse-error"],
            "description": f"RFC 3629 and RULES.md jsonrpc-parse-error, near miss: {vwhat} in the "
                           f"{place.replace('-', ' ')}, raw in the bytes, is valid UTF-8 and classifies.",
            "op": "classify",
            "input": {"hex": encode(message, good.encode()).hex()},
            "expect": {"kind": kind, "id": fill(id_, good), "method": fill(method, good)},
        })
    # The message cut inside a multi-byte sequence, and a bad byte outside any string.
    whole = json.dumps(request("tools/call", {"name": "caf\u00e9"}), ensure_ascii=False, separators=(",", ":")).encode()
    cut = whole[: whole.index("\u00e9".encode()) + 1]
    write({"id": "utf8/cut-inside-sequence", "rules": ["jsonrpc-parse-error"],
           "description": "RFC 8259 §8.1 and RULES.md jsonrpc-parse-error: bytes that end inside a two-byte "
                          "sequence are neither UTF-8 nor one JSON value.",
           "op": "classify", "input": {"hex": cut.hex()}, "expect": {"error": "jsonrpc-parse-error"}})
    outside = b'{"jsonrpc":"2.0",\xa0"id":1,"method":"tools/list"}'
    write({"id": "utf8/between-tokens", "rules": ["jsonrpc-parse-error"],
           "description": "RFC 8259 §2 and §8.1, RULES.md jsonrpc-parse-error: a byte 0xA0 between tokens is "
                          "neither whitespace nor UTF-8.",
           "op": "classify", "input": {"hex": outside.hex()}, "expect": {"error": "jsonrpc-parse-error"}})
    for protocol in ("2025-11-25", "sep-2322", "sep-2322-draft"):
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_weather" + MARK}}
        write({"id": f"utf8/tool-name-surrogate-{protocol.replace('-', '')}", "rules": ["jsonrpc-parse-error"],
               "description": f"RFC 8259 §8.1 and RULES.md jsonrpc-parse-error under {protocol}: an encoded "
                              "surrogate (ED A0 80) in a tool name is refused under every protocol.",
               "op": "classify", "input": {"hex": encode(message, b"\xed\xa0\x80").hex(), "protocol": protocol},
               "expect": {"error": "jsonrpc-parse-error"}})


if __name__ == "__main__":
    main()
