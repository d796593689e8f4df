"""The exceptions: ``MrtrError`` and one subclass per area of the catalogue.

Every core failure is raised as the subclass of its rule's area, chosen from
the rule id's prefix (``state-…`` is a ``StateError``, ``task-…`` a
``TaskError``, …), and carries ``.rule`` (a ``Rule``), ``.code`` (the JSON-RPC
error code a peer answers with, or ``None``) and ``.message`` (one sentence).
A test checks that every rule of ``Rule`` falls in exactly one area.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple, Type, Union

from ._enums import _RULE_BY_NAME, Rule


class MrtrError(Exception):
    """A core failure: ``rule``, ``code`` and ``message``."""

    rule: Rule
    code: Optional[int]
    message: str

    def __init__(self, rule: Union[Rule, str], code: Optional[int], message: str) -> None:
        rule = Rule(rule)
        super().__init__(rule, code, message)
        self.rule = rule
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.rule.value}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.rule.value!r}, {self.code!r}, {self.message!r})"


class ProtocolError(MrtrError):
    """A message breaks the protocol: ``jsonrpc-*``, ``request-*``, ``result-type-*``,
    ``input-required-*``, ``input-request-*``, ``message-after-*``, ``sse-*``, ``limit-exceeded``."""


class RetryError(MrtrError):
    """A retry, or its input responses, is wrong: ``retry-*``, ``input-responses-*``."""


class StateError(MrtrError):
    """A ``requestState`` does not open: ``state-*``."""


class TaskError(MrtrError):
    """A task's status or input is wrong: ``task-*``."""


class AssociationError(MrtrError):
    """A server request outside what MRTR allows: ``server-request-*``."""


# Areas by rule id prefix, most specific first.
_AREAS: Tuple[Tuple[str, Type[MrtrError]], ...] = (
    ("retry-", RetryError),
    ("input-responses-", RetryError),
    ("state-", StateError),
    ("task-", TaskError),
    ("server-request-", AssociationError),
    ("jsonrpc-", ProtocolError),
    ("request-", ProtocolError),
    ("result-type-", ProtocolError),
    ("input-required-", ProtocolError),
    ("input-request-", ProtocolError),
    ("message-after-", ProtocolError),
    ("sse-", ProtocolError),
    ("limit-", ProtocolError),
)


def error_class(rule: Union[Rule, str]) -> Type[MrtrError]:
    """The exception class of ``rule``'s area (``MrtrError`` itself for a rule of no known area)."""
    name = Rule(rule).value
    for prefix, cls in _AREAS:
        if name.startswith(prefix):
            return cls
    return MrtrError


_CLASS_BY_NAME: Dict[str, Type[MrtrError]] = {r.value: error_class(r) for r in Rule}


def _from_native(name: str, code: Optional[int], message: str) -> MrtrError:
    """Called by the native module to make the exception of a core error."""
    # Rule is generated from the same native table: every name is a member.
    return _CLASS_BY_NAME[name](_RULE_BY_NAME[name], code, message)


__all__ = [
    "MrtrError",
    "ProtocolError",
    "RetryError",
    "StateError",
    "TaskError",
    "AssociationError",
    "error_class",
]
