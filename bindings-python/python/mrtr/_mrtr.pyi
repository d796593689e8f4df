"""Type stubs of the native module ``mrtr._mrtr`` (pyo3)."""

from collections.abc import Callable, Iterable
from typing import Any, Final

from ._enums import Kind
from ._types import Event, Handle, Limits, Opened, Resumed, Round, TokenInfo, Violation

# A JSON object or message: plain Python, or its raw JSON text (str / bytes).
_JsonIn = dict[str, Any] | str | bytes | bytearray
# A transcript: entry dicts, or JSON Lines text.
_TranscriptIn = Iterable[dict[str, Any]] | str | bytes | bytearray

__version__: Final[str]
DEFAULT_PROTOCOL: Final[str]

def catalogue() -> str: ...
def allows_input_required(protocol: str, method: str) -> bool: ...
def task_may_become(current: str, next: str) -> bool: ...
def task_is_terminal(name: str) -> bool: ...
def task_transition(current: str, next: str) -> str: ...
def _panic_for_tests() -> None: ...

class Classified:
    """What ``classify`` found; attributes are made into Python objects when read."""

    @property
    def kind(self) -> Kind: ...
    @property
    def id(self) -> int | str | None: ...
    @property
    def method(self) -> str | None: ...
    @property
    def result_type(self) -> str | None: ...
    @property
    def result_type_present(self) -> bool: ...

def classify(message: _JsonIn, protocol: str | None = None, limits: Limits | None = None) -> Classified:
    """Classifies and validates one message; raises the ``MrtrError`` of the rule it breaks."""

def check(
    transcript: _TranscriptIn, protocol: str | None = None, max_rounds: int | None = None, limits: Limits | None = None
) -> list[Violation]:
    """Checks a whole conversation; the violations in transcript order (empty: compliant)."""

class Checker:
    """The incremental checker: ``handle`` one entry at a time."""

    def __new__(cls, protocol: str | None = None, max_rounds: int | None = None, limits: Limits | None = None) -> Checker: ...
    def handle(self, entry: dict[str, Any]) -> list[Violation]: ...
    @property
    def violations(self) -> list[Violation]: ...

def retry(
    request: _JsonIn,
    result: _JsonIn,
    input_responses: _JsonIn,
    id: int | str,
    protocol: str | None = None,
    limits: Limits | None = None,
) -> dict[str, Any]:
    """The retry of ``request`` answering ``result`` with ``input_responses``, under the new ``id``."""

def task_update(
    get_request: _JsonIn, get_response: _JsonIn, input_responses: _JsonIn, id: int | str, limits: Limits | None = None
) -> dict[str, Any]:
    """The ``tasks/update`` request answering an ``input_required`` task (``2026-07-28``)."""

class Client:
    """The client's retry machine (sans-IO)."""

    def __new__(cls, protocol: str | None = None, max_rounds: int | None = None, limits: Limits | None = None) -> Client: ...
    def send(self, request: _JsonIn) -> Handle: ...
    def handle_response(self, response: _JsonIn) -> None: ...
    def answer(self, handle: Handle, input_responses: _JsonIn, id: int | str) -> None: ...
    def abandon(self, handle: Handle) -> None: ...
    def poll_transmit(self) -> dict[str, Any] | None: ...
    def poll_event(self) -> Event | None: ...
    def drain_transmits(self) -> list[dict[str, Any]]: ...
    def drain_events(self) -> list[Event]: ...

def respond(
    request: _JsonIn,
    input_requests: _JsonIn | None = None,
    request_state: str | None = None,
    protocol: str | None = None,
    limits: Limits | None = None,
) -> dict[str, Any]:
    """The ``input_required`` answer to ``request``."""

def resume(request: _JsonIn, needs: _JsonIn, protocol: str | None = None, limits: Limits | None = None) -> Resumed:
    """Reads the MRTR fields of ``request`` against what this server ``needs``."""

class Key:
    """A sealing key: id, algorithm, and secret material that stays in Rust."""

    def __new__(cls, id: int, algorithm: str, secret: bytes) -> Key: ...
    @staticmethod
    def derive(id: int, algorithm: str, master: bytes) -> Key:
        """A key derived from a master secret of at least 32 uniformly random bytes (not a password); shorter raises UsageError."""
    @property
    def id(self) -> int: ...
    @property
    def algorithm(self) -> str: ...

class Binding:
    """What a sealed token is bound to: the subject (a principal, or anonymous by explicit choice), the
    protocol, the method, the target, and a digest of the request's params (every param but
    ``inputResponses``, ``requestState`` and ``_meta``). Params are a ``dict``, or their JSON text, read as
    given so that every number stays exact; there is no default."""

    def __new__(cls, subject: str, method: str, target: str, params: _JsonIn, protocol: str | None = None) -> Binding:
        """A binding for the authenticated principal ``subject`` (non-empty)."""
    @staticmethod
    def anonymous(method: str, target: str, params: _JsonIn, protocol: str | None = None) -> Binding:
        """A binding for no principal: its token opens for any anonymous caller."""
    @staticmethod
    def for_request(
        request: _JsonIn, subject: str | None = None, *, anonymous: bool = False, protocol: str | None = None
    ) -> Binding:
        """The binding of ``request`` for ``subject``, or for no principal with ``anonymous=True`` (exactly one)."""
    @staticmethod
    def from_json(binding: _JsonIn) -> Binding:
        """A binding in the core's JSON form: ``{"subject" | "anonymous": true, "protocol", "method", "target",
        "params" | "paramsDigest"}``."""
    @property
    def subject(self) -> str | None:
        """The principal; ``None`` for an anonymous binding."""
    @property
    def protocol(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def params_digest(self) -> bytes: ...

#: A replay guard: records ``state_id`` (lowercase hex) atomically, and returns ``True`` on its first use,
#: ``False`` after; it may forget the id after ``expiry`` (seconds since the epoch).
_Guard = Callable[[str, int], bool]

class KeyRing:
    """Keys by id: seals with the current one, opens with any."""

    def __new__(
        cls,
        current: Key,
        *others: Key,
        max_token_bytes: int | None = None,
        context: str | bytes | None = None,
        seal_budget: int | None = None,
    ) -> KeyRing: ...
    def add(self, key: Key) -> None: ...
    def set_current(self, id: int) -> bool: ...
    def remove(self, id: int) -> bool: ...
    def set_max_token_bytes(self, max: int) -> None: ...
    def set_context(self, context: str | bytes) -> None:
        """Labels the deployment (at most 64 bytes): tokens of another label do not open (``state-tampered``)."""
    def set_seal_budget(self, seals: int) -> None:
        """This instance's share of each key's seals; past it, ``usage-seal-budget-spent``."""
    def seals(self, key_id: int) -> int | None:
        """Seals the key ``key_id`` made in this process; ``None`` if the ring lacks it."""
    def seal(self, binding: Binding, now: int, ttl: int, payload: bytes) -> str:
        """Seals ``payload`` for ``binding``, expiring ``ttl`` seconds after ``now``; the nonce is the OS's."""
    def open(self, token: str | bytes, binding: Binding, now: int, guard: _Guard | None = None) -> Opened:
        """Opens ``token`` for ``binding`` at ``now``; with ``guard``, a second use is ``state-replayed`` (a guard
        that raises refuses the state, and its exception is re-raised)."""

class SealedRounds:
    """A server's rounds whose answers travel in sealed ``requestState``: a deployment's settings (``ttl``
    default 300 s, ``pin_answers`` default on), built once; the principal and the clock come with each call."""

    def __new__(
        cls,
        ring: KeyRing,
        ttl: int | None = None,
        protocol: str | None = None,
        limits: Limits | None = None,
        pin_answers: bool | None = None,
    ) -> SealedRounds: ...
    def resume(
        self,
        request: _JsonIn,
        needs: _JsonIn,
        *,
        subject: str | None = None,
        anonymous: bool = False,
        now: int,
        guard: _Guard | None = None,
    ) -> Round: ...
    def respond(
        self,
        request: _JsonIn,
        round: Round,
        needs: _JsonIn,
        data: Any = None,
        *,
        subject: str | None = None,
        anonymous: bool = False,
        now: int,
    ) -> dict[str, Any]: ...

def inspect(token: str | bytes) -> TokenInfo:
    """The public part of a token (state id, key id, algorithm, expiry), read without a key."""

def params_digest(params: _JsonIn) -> bytes:
    """SHA-256 of the canonical JSON of a request's params (every param but ``inputResponses``,
    ``requestState``, ``_meta``): a ``dict``, or JSON text read as given."""

def unsealed_encode(payload: bytes) -> str: ...
def unsealed_decode(token: str, max_bytes: int = 65536) -> bytes: ...
