"""The package's plain values: frozen dataclasses whose fields are those of the core's wire shape
(``mrtr::wire``), in order, made by the native module from the core's own serialization; and ``Limits``,
whose defaults are the core's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Union

from ._enums import _CATALOGUE, Algorithm, Rule

#: A JSON object as plain Python.
JsonObject = Dict[str, Any]
#: A JSON object, or its raw JSON text.
JsonInput = Union[Dict[str, Any], str, bytes]
#: A transcript: entry dicts, or JSON Lines text.
Transcript = Union[List[Dict[str, Any]], str, bytes]

_DEFAULT_LIMITS: Dict[str, int] = _CATALOGUE["defaultLimits"]


@dataclass(frozen=True)
class Limits:
    """Bounds on what the core reads (``mrtr::Limits``, read by the core); over one: ``limit-exceeded``."""

    max_message_bytes: int = _DEFAULT_LIMITS["maxMessageBytes"]
    max_depth: int = _DEFAULT_LIMITS["maxDepth"]
    max_input_requests: int = _DEFAULT_LIMITS["maxInputRequests"]
    max_request_state_bytes: int = _DEFAULT_LIMITS["maxRequestStateBytes"]


@dataclass(frozen=True)
class Violation:
    """A rule broken by the transcript entry at ``index``."""

    rule: Rule
    index: int
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "rule", Rule(self.rule))


@dataclass(frozen=True)
class Resumed:
    """What a server learns from a request: the answers to needed keys (in the order of ``needs``), the needed
    keys still ``missing``, those answered but not needed (``ignored``), the echoed ``request_state``."""

    responses: Dict[str, Any]
    missing: List[str]
    ignored: List[str]
    request_state: Optional[str]

    @property
    def complete(self) -> bool:
        """Whether every needed answer is there."""
        return not self.missing


@dataclass(frozen=True)
class Round:
    """What a server knows after a request with sealed rounds: every needed answer so far (this request's and
    earlier rounds', each re-validated and pinned to its question), the needed keys still ``missing``, those
    ``ignored``, the tool's ``data`` of the last round, how many ``input_required`` rounds came before
    (``round``, 0 on a first request), and the state the request carried (``state_id``, lowercase hex, and its
    ``expiry``, seconds since the epoch; ``None`` without one)."""

    answers: Dict[str, Any]
    missing: List[str]
    ignored: List[str]
    data: Any = None
    round: int = 0
    state_id: Optional[str] = None
    expiry: Optional[int] = None

    @property
    def complete(self) -> bool:
        """Whether every needed answer is there."""
        return not self.missing


@dataclass(frozen=True)
class Opened:
    """A sealed state that opened: its ``payload``, its ``state_id`` (lowercase hex: the key of a single-use
    store) and its ``expiry`` (seconds since the epoch: when the store may forget it)."""

    payload: bytes
    state_id: str
    expiry: int


@dataclass(frozen=True)
class TokenInfo:
    """What anyone can read off a token without a key (``inspect``); none of it is authenticated until the
    token opens."""

    state_id: str
    key_id: int
    algorithm: Algorithm
    expiry: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "algorithm", Algorithm(self.algorithm))


__all__ = [
    "JsonInput",
    "JsonObject",
    "Limits",
    "Opened",
    "Resumed",
    "Round",
    "TokenInfo",
    "Transcript",
    "Violation",
]
