"""The exceptions: ``MrtrError`` and one subclass per area of the core's catalogue, made at import from the
core's table of areas (``ProtocolError``, ``RetryError``, …); a failure is raised as the class of its rule's
area, as the core says (``Rule.area``): nothing here maps a rule to a class. Each carries ``.rule`` (a
``Rule``), ``.code`` (the JSON-RPC code a peer answers with, or ``None``) and ``.message``. The type stub
``_errors.pyi`` is generated from the same table (``mrtr-gen``).

``UsageError`` (a misuse of mrtr's API: a value that is no JSON, a handle no ``Client`` issued, a response to
nothing in flight) is also a ``TypeError``, Python's exception for a call its callee cannot take, so that
``except TypeError`` sees it as it sees the interpreter's own argument checks. ``PanicError``
(``internal-panic``) is a bug in mrtr, caught at the boundary.
"""

from __future__ import annotations

from json import loads
from typing import Any, Dict, Optional, Tuple, Type, Union

from ._enums import _CATALOGUE, Area, Rule


class MrtrError(Exception):
    """A core failure: ``rule``, ``code``, ``message``, and ``data``: what the JSON-RPC error's ``data`` of a
    refusal carries for the peer to act on (-32021's ``requiredCapabilities``, -32022's ``supported`` and
    ``requested``), or ``None``."""

    rule: Rule
    code: Optional[int]
    message: str
    data: Optional[Dict[str, Any]]

    def __init__(
        self, rule: Union[Rule, str], code: Optional[int], message: str, data: Optional[Dict[str, Any]] = None
    ) -> None:
        rule = Rule(rule)
        super().__init__(rule, code, message)
        self.rule = rule
        self.code = code
        self.message = message
        self.data = data

    def __str__(self) -> str:
        return f"{self.rule.value}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.rule.value!r}, {self.code!r}, {self.message!r})"


def _area_class(area: Dict[str, str]) -> Type[MrtrError]:
    bases: Tuple[type, ...] = (MrtrError, TypeError) if area["name"] == Area.USAGE else (MrtrError,)
    name = area["title"] + "Error"
    return type(name, bases, {"__doc__": area["summary"], "__module__": __name__, "__qualname__": name})


_BY_AREA: Dict[str, Type[MrtrError]] = {a["name"]: _area_class(a) for a in _CATALOGUE["areas"]}
globals().update({cls.__name__: cls for cls in _BY_AREA.values()})


def error_class(rule: Union[Rule, str]) -> Type[MrtrError]:
    """The exception class of ``rule``'s area."""
    return _BY_AREA[Rule(rule).area.value]


def _from_native(rule: str, area: str, code: Optional[int], message: str, data: Optional[str] = None) -> MrtrError:
    """Called by the native module to make the exception of a core error (``data`` as JSON text)."""
    return _BY_AREA[area](rule, code, message, None if data is None else loads(data))


__all__ = ["MrtrError", *(cls.__name__ for cls in _BY_AREA.values()), "error_class"]
