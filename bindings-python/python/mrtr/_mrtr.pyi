"""Type stubs of the native module ``mrtr._mrtr`` (pyo3)."""

from collections.abc import Iterable
from typing import Any, ClassVar, Final

from ._enums import Kind, Rule

# A JSON object or message: plain Python, or its raw JSON text (str / bytes).
_JsonIn = dict[str, Any] | str | bytes | bytearray
# A transcript: entry dicts, or JSON Lines text.
_TranscriptIn = Iterable[dict[str, Any]] | str | bytes | bytearray

__version__: Final[str]
RULES: Final[list[tuple[str, int, int | None, str]]]
PROTOCOLS: Final[list[str]]
DEFAULT_PROTOCOL: Final[str]
TASK_STATUSES: Final[list[tuple[str, bool]]]
KINDS: Final[list[str]]
ALGORITHMS: Final[list[str]]

class PanicException(BaseException): ...

class Limits:
    """Bounds on what the core reads; over one: ``limit-exceeded`` (or ``state-too-large``)."""

    def __new__(
        cls,
        *,
        max_message_bytes: int | None = None,
        max_depth: int | None = None,
        max_input_requests: int | None = None,
        max_request_state_bytes: int | None = None,
    ) -> Limits: ...
    @property
    def max_message_bytes(self) -> int: ...
    @property
    def max_depth(self) -> int: ...
    @property
    def max_input_requests(self) -> int: ...
    @property
    def max_request_state_bytes(self) -> int: ...

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

class Violation:
    """A rule broken by the transcript entry at ``index``."""

    __match_args__: ClassVar[tuple[str, str, str]]
    @property
    def rule(self) -> Rule: ...
    @property
    def index(self) -> int: ...
    @property
    def message(self) -> str: ...

def check(
    transcript: _TranscriptIn, protocol: str | None = None, max_rounds: int = 10, limits: Limits | None = None
) -> list[Violation]:
    """Checks a whole conversation; the violations in transcript order (empty: compliant)."""

class Checker:
    """The incremental checker: ``handle`` one entry at a time."""

    def __new__(cls, protocol: str | None = None, max_rounds: int = 10, limits: Limits | None = None) -> Checker: ...
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
    get_request: _JsonIn,
    get_response: _JsonIn,
    input_responses: _JsonIn,
    id: int | str,
    limits: Limits | None = None,
) -> dict[str, Any]:
    """The ``tasks/update`` request answering an ``input_required`` task (``2026-07-28``)."""

class Handle:
    """A request started with ``Client.send``."""

    @property
    def value(self) -> int: ...
    def __hash__(self) -> int: ...
    def __lt__(self, other: Handle) -> bool: ...
    def __le__(self, other: Handle) -> bool: ...
    def __gt__(self, other: Handle) -> bool: ...
    def __ge__(self, other: Handle) -> bool: ...

class InputRequired:
    """The server needs input: fulfil ``input_requests``, then ``Client.answer``."""

    __match_args__: ClassVar[tuple[str, str, str]]
    @property
    def handle(self) -> Handle: ...
    @property
    def input_requests(self) -> dict[str, Any]: ...
    @property
    def round(self) -> int: ...

class RetryNow:
    """The server shed load: ``Client.answer`` at once with no responses."""

    __match_args__: ClassVar[tuple[str]]
    @property
    def handle(self) -> Handle: ...

class Done:
    """The request is finished: ``response`` is the final response message."""

    __match_args__: ClassVar[tuple[str, str]]
    @property
    def handle(self) -> Handle: ...
    @property
    def response(self) -> dict[str, Any]: ...

class Client:
    """The client's retry machine (sans-IO)."""

    def __new__(cls, protocol: str | None = None, max_rounds: int = 10, limits: Limits | None = None) -> Client: ...
    def send(self, request: _JsonIn) -> Handle: ...
    def handle_response(self, response: _JsonIn) -> None: ...
    def answer(self, handle: Handle, input_responses: _JsonIn, id: int | str) -> None: ...
    def abandon(self, handle: Handle) -> None: ...
    def poll_transmit(self) -> dict[str, Any] | None: ...
    def poll_event(self) -> InputRequired | RetryNow | Done | None: ...
    def drain_transmits(self) -> list[dict[str, Any]]: ...
    def drain_events(self) -> list[InputRequired | RetryNow | Done]: ...

def respond(
    request: _JsonIn,
    input_requests: _JsonIn | None = None,
    request_state: str | None = None,
    protocol: str | None = None,
    limits: Limits | None = None,
) -> dict[str, Any]:
    """The ``input_required`` answer to ``request``."""

class Resumed:
    """What a server learns from an incoming request."""

    __match_args__: ClassVar[tuple[str, str, str, str]]
    @property
    def responses(self) -> dict[str, Any]: ...
    @property
    def missing(self) -> list[str]: ...
    @property
    def ignored(self) -> list[str]: ...
    @property
    def request_state(self) -> str | None: ...
    @property
    def complete(self) -> bool: ...

def resume(request: _JsonIn, needs: _JsonIn, protocol: str | None = None, limits: Limits | None = None) -> Resumed:
    """Reads the MRTR fields of ``request`` against what this server ``needs``."""

class Key:
    """A sealing key: id, algorithm, and secret material that stays in Rust."""

    def __new__(cls, id: int, algorithm: str, secret: bytes) -> Key: ...
    @staticmethod
    def derive(id: int, algorithm: str, master: bytes) -> Key: ...
    @property
    def id(self) -> int: ...
    @property
    def algorithm(self) -> str: ...

class Binding:
    """What a sealed token is bound to."""

    def __new__(
        cls,
        subject: str,
        method: str,
        target: str,
        arguments: _JsonIn | None = None,
        protocol: str | None = None,
    ) -> Binding: ...
    @staticmethod
    def for_request(request: _JsonIn, subject: str = "", protocol: str | None = None) -> Binding: ...
    @property
    def subject(self) -> str: ...
    @property
    def protocol(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def target(self) -> str: ...
    @property
    def params_digest(self) -> bytes: ...

class KeyRing:
    """Keys by id: seals with the current one, opens with any."""

    def __new__(cls, current: Key, *others: Key, max_token_bytes: int | None = None) -> KeyRing: ...
    def add(self, key: Key) -> None: ...
    def set_current(self, id: int) -> bool: ...
    def remove(self, id: int) -> bool: ...
    def set_max_token_bytes(self, max: int) -> None: ...
    def seal(self, binding: Binding, now: int, ttl: int, payload: bytes) -> str: ...
    def seal_with_nonce(self, binding: Binding, now: int, ttl: int, payload: bytes, nonce: bytes) -> str: ...
    def open(self, token: str, binding: Binding, now: int) -> bytes: ...

class Round:
    """What a server knows after reading a request with sealed rounds."""

    @property
    def answers(self) -> dict[str, Any]: ...
    @property
    def missing(self) -> list[str]: ...
    @property
    def ignored(self) -> list[str]: ...
    @property
    def data(self) -> Any: ...
    @property
    def complete(self) -> bool: ...

class SealedRounds:
    """A server's rounds whose answers travel in sealed ``requestState``."""

    def __new__(
        cls,
        ring: KeyRing,
        subject: str,
        now: int,
        ttl: int,
        protocol: str | None = None,
        limits: Limits | None = None,
    ) -> SealedRounds: ...
    def resume(self, request: _JsonIn, needs: _JsonIn) -> Round: ...
    def respond(self, request: _JsonIn, round: Round, needs: _JsonIn, data: Any = None) -> dict[str, Any]: ...

def params_digest(salient: _JsonIn) -> bytes: ...
def unsealed_encode(payload: bytes) -> str: ...
def unsealed_decode(token: str, max_bytes: int = 65536) -> bytes: ...
def allows_input_required(protocol: str, method: str) -> bool: ...
def task_may_become(current: str, next: str) -> bool: ...
def task_transition(current: str, next: str) -> str: ...
def task_status(name: str) -> str: ...
def _panic_for_tests() -> None: ...
