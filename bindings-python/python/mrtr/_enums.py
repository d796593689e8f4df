"""The ``str`` enums of the package, made at import from the core's catalogue
(``mrtr._mrtr.catalogue()``, the tables of ``mrtr_facade::catalogue``):
``Rule`` (with its area, number, JSON-RPC code and source), ``Area``,
``Protocol``, ``TaskStatus``, ``Kind`` and ``Algorithm``. Nothing here lists a
member: a new rule of the core is a new ``Rule`` at once. The type stub
``_enums.pyi`` is generated from the same tables (``mrtr-gen``).
"""

from __future__ import annotations

import json
from enum import Enum
from typing import Any, Dict, Iterable

from . import _mrtr

_CATALOGUE: Dict[str, Any] = json.loads(_mrtr.catalogue())
_RULES: Dict[str, Dict[str, Any]] = {r["id"]: r for r in _CATALOGUE["rules"]}


def catalogue() -> Dict[str, Any]:
    """The core's tables: ``rules`` (``id``, ``number``, ``area``, ``code``, ``source``), ``areas``, ``protocols``,
    ``kinds``, ``resultTypes``, ``taskStatuses``, ``algorithms``, ``defaultLimits``, ``version``."""
    return json.loads(_mrtr.catalogue())  # type: ignore[no-any-return]


class _StrEnum(str, Enum):
    """A ``str`` enum whose ``str()`` and ``format()`` are its value."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


def _ident(name: str) -> str:
    ident = name.upper().replace("-", "_").replace("/", "_")
    return "V" + ident if ident[0].isdigit() else ident


def _make(base: Any, name: str, values: Iterable[str]) -> Any:
    return base(name, [(_ident(v), v) for v in values], module=__name__, qualname=name)


def _values(table: str) -> Iterable[str]:
    return (row["value"] for row in _CATALOGUE[table])


def _row(key: str, doc: str) -> Any:
    """A property reading the rule's row of the catalogue."""
    return property(lambda self: _RULES[self.value][key], doc=doc)


class _RuleBase(_StrEnum):
    number = _row("number", "The rule's stable number (the C ABI's error code).")
    code = _row("code", "The JSON-RPC error code a peer answers this rule's failure with, or ``None``.")
    source = _row("source", "Where the rule comes from.")
    area = property(lambda self: Area(_RULES[self.value]["area"]), doc="The rule's ``Area``: its exception class.")


class _ProtocolBase(_StrEnum):
    def allows_input_required(self, method: str) -> bool:
        """Whether a server may answer ``method`` with ``input_required`` in this protocol."""
        return bool(_mrtr.allows_input_required(self.value, method))


class _TaskStatusBase(_StrEnum):
    @property
    def is_terminal(self) -> bool:
        """Whether nothing may follow this status."""
        return bool(_mrtr.task_is_terminal(self.value))

    def may_become(self, next: str) -> bool:
        """Whether a task may go from this status to ``next``."""
        return bool(_mrtr.task_may_become(self.value, str(next)))

    def transition(self, next: str) -> Any:
        """``TaskStatus(next)`` if allowed, else ``TaskError`` (``task-transition-invalid``)."""
        return type(self)(_mrtr.task_transition(self.value, str(next)))


Area = _make(_StrEnum, "Area", (a["name"] for a in _CATALOGUE["areas"]))
Rule = _make(_RuleBase, "Rule", _RULES)
Protocol = _make(_ProtocolBase, "Protocol", _values("protocols"))
TaskStatus = _make(_TaskStatusBase, "TaskStatus", _values("taskStatuses"))
Kind = _make(_StrEnum, "Kind", _values("kinds"))
Algorithm = _make(_StrEnum, "Algorithm", _values("algorithms"))

DEFAULT_PROTOCOL = Protocol(_mrtr.DEFAULT_PROTOCOL)

__all__ = ["Rule", "Area", "Protocol", "TaskStatus", "Kind", "Algorithm", "DEFAULT_PROTOCOL", "catalogue"]
