"""The ``str`` enums of the façade, generated at import from the core's tables.

``Rule`` comes from ``mrtr::rules::RULES``, ``Protocol`` from
``mrtr::protocol::PROTOCOLS``, ``TaskStatus`` from ``mrtr::tasks``, ``Kind``
from what ``classify`` tells apart, ``Algorithm`` from ``mrtr::state``: the
native module exports each table, so the enums cannot drift from the core.
(``_enums.pyi`` lists the members for type checkers; a test checks that it
matches.)
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Dict, Optional

from . import _mrtr


class _StrEnum(str, Enum):
    """A ``str`` enum whose ``str()`` and ``format()`` are its value."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


def _ident(name: str) -> str:
    ident = name.upper().replace("-", "_").replace("/", "_")
    return "V" + ident if ident[0].isdigit() else ident


_RULE_INFO: Dict[str, Any] = {name: (number, code, source) for name, number, code, source in _mrtr.RULES}


class _RuleBase(_StrEnum):
    @property
    def number(self) -> int:
        """The rule's stable number (the C ABI's error code)."""
        return int(_RULE_INFO[self.value][0])

    @property
    def code(self) -> Optional[int]:
        """The JSON-RPC error code a peer answers this rule's failure with, if any."""
        code = _RULE_INFO[self.value][1]
        return None if code is None else int(code)

    @property
    def source(self) -> str:
        """Where the rule comes from."""
        return str(_RULE_INFO[self.value][2])


class _ProtocolBase(_StrEnum):
    def allows_input_required(self, method: str) -> bool:
        """Whether a server may answer ``method`` with ``input_required`` in this protocol."""
        return bool(_mrtr.allows_input_required(self.value, method))


_TERMINAL: Dict[str, bool] = dict(_mrtr.TASK_STATUSES)


class _TaskStatusBase(_StrEnum):
    @property
    def is_terminal(self) -> bool:
        """Whether nothing may follow this status."""
        return _TERMINAL[self.value]

    def may_become(self, next: str) -> bool:
        """Whether a task may go from this status to ``next``."""
        return bool(_mrtr.task_may_become(self.value, str(next)))

    def transition(self, next: str) -> Any:
        """``TaskStatus(next)`` if allowed, else ``TaskError`` (``task-transition-invalid``)."""
        return type(self)(_mrtr.task_transition(self.value, str(next)))


def _make(base: Any, name: str, values: Any) -> Any:
    return base(name, [(_ident(v), v) for v in values], module=__name__, qualname=name)


Rule = _make(_RuleBase, "Rule", (r[0] for r in _mrtr.RULES))
Protocol = _make(_ProtocolBase, "Protocol", _mrtr.PROTOCOLS)
TaskStatus = _make(_TaskStatusBase, "TaskStatus", (s[0] for s in _mrtr.TASK_STATUSES))
Kind = _make(_StrEnum, "Kind", _mrtr.KINDS)
Algorithm = _make(_StrEnum, "Algorithm", _mrtr.ALGORITHMS)

DEFAULT_PROTOCOL = Protocol(_mrtr.DEFAULT_PROTOCOL)

# Looked up by the native module when it hands out a Rule or a Kind.
_RULE_BY_NAME: Dict[str, Any] = {m.value: m for m in Rule}
_KIND_BY_NAME: Dict[str, Any] = {m.value: m for m in Kind}

__all__ = ["Rule", "Protocol", "TaskStatus", "Kind", "Algorithm", "DEFAULT_PROTOCOL"]
