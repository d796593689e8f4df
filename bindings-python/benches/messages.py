"""The three benchmark messages of the core issue, built as core/benches/validate.rs builds them.

- ``retry_request`` (~0.6 KB): a ``tools/call`` retry with ``_meta``, ``arguments``,
  two ``inputResponses`` and a ``requestState``;
- ``input_required_small`` (~1 KB): an ``input_required`` result with a form
  elicitation, a sampling request and a roots request;
- ``input_required_large`` (~34 KB): 64 mixed input requests and a 16 KiB ``requestState``.
"""

from __future__ import annotations

import json
from typing import Any, Dict

ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
MASK = (1 << 64) - 1


def opaque_state(length: int, seed: int) -> str:
    """A deterministic, base64-looking opaque state of exactly ``length`` bytes (xorshift64)."""
    x = ((seed * 0x9E3779B97F4A7C15) & MASK) | 1
    out = bytearray()
    for _ in range(length):
        x ^= (x << 13) & MASK
        x ^= x >> 7
        x ^= (x << 17) & MASK
        out.append(ALPHABET[x % 64])
    return out.decode()


def meta() -> Dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}, "url": {}},
            "sampling": {},
            "roots": {"listChanged": True},
        },
        "progressToken": "p-7",
    }


def form_elicitation(message: str) -> Dict[str, Any]:
    return {
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "resolution": {
                        "type": "string",
                        "title": "Resolution",
                        "enum": ["fixed", "wontfix", "duplicate", "by-design"],
                    },
                    "reason": {"type": "string", "minLength": 1, "maxLength": 500},
                    "hours": {"type": "number", "minimum": 0, "maximum": 1000},
                    "notify": {"type": "boolean", "default": True},
                    "due": {"type": "string", "format": "date"},
                },
                "required": ["resolution", "reason"],
            },
        },
    }


def sampling(question: str) -> Dict[str, Any]:
    return {
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": question}}],
            "modelPreferences": {
                "hints": [{"name": "claude-3-sonnet"}],
                "intelligencePriority": 0.8,
                "speedPriority": 0.5,
            },
            "systemPrompt": "You are a helpful assistant.",
            "maxTokens": 100,
        },
    }


def url_elicitation(i: int) -> Dict[str, Any]:
    return {
        "method": "elicitation/create",
        "params": {
            "mode": "url",
            "message": "Please sign in to Azure DevOps so that the tool can update work items for you",
            "url": f"https://auth.example.com/authorize?session={i:04}",
        },
    }


def roots() -> Dict[str, Any]:
    return {"method": "roots/list", "params": {}}


def retry_request() -> Dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {
            "name": "update_work_item",
            "arguments": {"id": 4711, "state": "Resolved", "project": "contoso"},
            "_meta": meta(),
            "inputResponses": {
                "resolution": {
                    "action": "accept",
                    "content": {"resolution": "fixed", "reason": "Patched in build 2026.7.3", "notify": True},
                },
                "summary": {
                    "role": "assistant",
                    "content": {"type": "text", "text": "The capital of France is Paris."},
                    "model": "claude-3-sonnet-20240307",
                    "stopReason": "endTurn",
                },
            },
            "requestState": opaque_state(96, 1),
        },
    }


def input_required_small() -> Dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "resultType": "input_required",
            "inputRequests": {
                "resolution": form_elicitation("Resolving a Bug needs a resolution and a reason"),
                "summary": sampling("Summarise the linked pull request in one sentence."),
                "workspace": roots(),
            },
            "requestState": opaque_state(160, 2),
        },
    }


def input_required_large() -> Dict[str, Any]:
    requests: Dict[str, Any] = {}
    for i in range(64):
        builders = (
            lambda: form_elicitation(f"Field group {i} needs your input"),
            lambda: sampling(f"Question {i}: what is the capital of France?"),
            lambda: url_elicitation(i),
            roots,
        )
        requests[f"input_{i:02}"] = builders[i % 4]()
    return {
        "jsonrpc": "2.0",
        "id": "req-9f2c",
        "result": {"resultType": "input_required", "inputRequests": requests, "requestState": opaque_state(16 << 10, 3)},
    }


def wire(message: Dict[str, Any]) -> bytes:
    """Compact JSON, as serde_json writes it."""
    return json.dumps(message, separators=(",", ":")).encode()


MESSAGES = {
    "retry_request": wire(retry_request()),
    "input_required_small": wire(input_required_small()),
    "input_required_large": wire(input_required_large()),
}
