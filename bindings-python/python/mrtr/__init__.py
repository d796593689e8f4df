"""mrtr: MCP Multi Round-Trip Requests (SEP-2322, MCP ``2026-07-28``), in Rust.

A thin façade over the native module ``mrtr._mrtr``, which converts and calls the core; the core decides.
``classify`` one message, ``check`` a conversation; client: ``retry``, ``task_update``, the ``Client`` machine;
server: ``respond``, ``resume``, ``complete``, ``discover``, ``check_request``, ``check_headers``, ``missing_capabilities``,
``require_capabilities``, ``require_declared``, ``task_created``, ``task_get_response``; sealed
``requestState``: ``KeyRing``, ``binding_for``, ``SealedRounds``, ``inspect``; await-style tools without
server state: ``run_tool`` (``run_tool_bytes``: bytes in, bytes out), ``Context``, ``Questions``,
``error_response`` (over ``ToolRun``, one run, and ``ToolReplay``), and the same tools served to ``2025-11-25`` clients:
``BridgedCall`` (over ``ToolBridge``); the transports over HTTP (Streamable HTTP, SEP-1858, SEP-1335):
``Operation`` (one call to its final response, every round and mode) with its driver ``run_operation`` /
``call`` (asyncio, httpx2 or httpx), ``HttpCall`` (the client machine of one exchange sequence), ``SseDecoder`` /
``sse_encode``, ``ServerStream``, ``read_http_request``, ``stream_url``, ``unassociated_reply``, ``mirrored_fields``.
Every failure is an ``MrtrError`` (``.rule``, ``.code``, ``.message``, ``.data``) of the class of the rule's
area (``ProtocolError``, ``RetryError``, …, ``UsageError``, ``PanicError``). The protocol is the caller's choice.
"""

from __future__ import annotations

from . import _client, _enums, _errors, _tools, _types
from ._client import *  # noqa: F403 - run_operation, call, OnInput
from ._enums import *  # noqa: F403 - Rule, Area, Protocol, TaskStatus, Kind, Algorithm, catalogue
from ._errors import *  # noqa: F403 - MrtrError and one class per area
from ._mrtr import (
    Checker,
    Classified,
    Client,
    HttpCall,
    KeyRing,
    Operation,
    ServerStream,
    Session,
    SseDecoder,
    ToolBridge,
    ToolReplay,
    ToolRun,
    __version__,
    check,
    check_headers,
    check_request,
    classify,
    complete,
    discover,
    inspect,
    mirrored_fields,
    missing_capabilities,
    params_digest,
    read_http_request,
    require_capabilities,
    require_declared,
    respond,
    resume,
    retry,
    sse_encode,
    stream_url,
    task_created,
    task_get_response,
    task_update,
    unassociated_reply,
    unsealed_decode,
    unsealed_encode,
)
from ._tools import *  # noqa: F403 - SealedRounds, binding_for, run_tool, Context, Questions, error_response, Tool, Question, Answer
from ._types import *  # noqa: F403 - Limits, Violation, Resumed, Round, Opened, TokenInfo, JSON types

__all__ = [
    *_client.__all__,
    *_enums.__all__,
    *_errors.__all__,
    *_tools.__all__,
    *_types.__all__,
    "Checker",
    "Classified",
    "Client",
    "HttpCall",
    "KeyRing",
    "Operation",
    "ServerStream",
    "Session",
    "SseDecoder",
    "ToolBridge",
    "ToolReplay",
    "ToolRun",
    "__version__",
    "check",
    "check_headers",
    "check_request",
    "classify",
    "complete",
    "discover",
    "inspect",
    "mirrored_fields",
    "missing_capabilities",
    "params_digest",
    "read_http_request",
    "require_capabilities",
    "require_declared",
    "respond",
    "resume",
    "retry",
    "sse_encode",
    "stream_url",
    "task_created",
    "task_get_response",
    "task_update",
    "unassociated_reply",
    "unsealed_decode",
    "unsealed_encode",
]
