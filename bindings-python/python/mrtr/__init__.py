"""mrtr: MCP Multi Round-Trip Requests (SEP-2322, MCP ``2026-07-28``), in Rust.

A thin façade over the native module ``mrtr._mrtr``:

- ``classify(message)``: what one message is, validated (raw ``bytes``/``str``
  are read straight from their bytes; ``dict`` works too).
- ``check(transcript)``: every rule a recorded conversation breaks.
- client: ``retry`` builds the retry answering ``input_required``;
  ``Client`` is the retry machine (``send``, ``handle_response``, ``answer``,
  ``poll_transmit``, ``poll_event``); ``task_update`` answers a task.
- server: ``respond`` answers with ``input_required``; ``resume`` reads the retry.
- sealed ``requestState``: ``Key``, ``KeyRing``, ``Binding``, ``SealedRounds``.

Every failure is an ``MrtrError`` (``ProtocolError``, ``RetryError``,
``StateError``, ``TaskError``, ``AssociationError``) with ``.rule``, ``.code``
and ``.message``. The protocol is always the caller's choice (``Protocol``,
default ``2026-07-28``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Union

from ._enums import DEFAULT_PROTOCOL, Algorithm, Kind, Protocol, Rule, TaskStatus
from ._errors import AssociationError, MrtrError, ProtocolError, RetryError, StateError, TaskError, error_class
from ._mrtr import (
    Binding,
    Checker,
    Classified,
    Client,
    Done,
    Handle,
    InputRequired,
    Key,
    KeyRing,
    Limits,
    Resumed,
    RetryNow,
    Round,
    SealedRounds,
    Violation,
    __version__,
    check,
    classify,
    params_digest,
    respond,
    resume,
    retry,
    task_update,
    unsealed_decode,
    unsealed_encode,
)

#: What the client machine tells the host.
Event = Union[InputRequired, RetryNow, Done]
#: A JSON object as plain Python.
JsonObject = Dict[str, Any]
#: A JSON object, or its raw JSON text.
JsonInput = Union[Dict[str, Any], str, bytes]
#: A transcript: entry dicts, or JSON Lines text.
Transcript = Union[List[Dict[str, Any]], str, bytes]

__all__ = [
    "DEFAULT_PROTOCOL",
    "Algorithm",
    "AssociationError",
    "Binding",
    "Checker",
    "Classified",
    "Client",
    "Done",
    "Event",
    "Handle",
    "InputRequired",
    "JsonInput",
    "JsonObject",
    "Key",
    "KeyRing",
    "Kind",
    "Limits",
    "MrtrError",
    "Protocol",
    "ProtocolError",
    "Resumed",
    "RetryError",
    "RetryNow",
    "Round",
    "Rule",
    "SealedRounds",
    "StateError",
    "TaskError",
    "TaskStatus",
    "Transcript",
    "Violation",
    "__version__",
    "check",
    "classify",
    "error_class",
    "params_digest",
    "respond",
    "resume",
    "retry",
    "task_update",
    "unsealed_decode",
    "unsealed_encode",
]
