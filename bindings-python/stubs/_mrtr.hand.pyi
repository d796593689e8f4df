"""Type stubs of the native module ``mrtr._mrtr`` (pyo3)."""

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Literal, final

from ._enums import Kind
from ._types import Limits, Opened, Resumed, TokenInfo, Violation

# A JSON object or message: plain Python, or its raw JSON text (str / bytes).
_JsonIn = dict[str, Any] | str | bytes | bytearray
# A transcript: entry dicts, or JSON Lines text.
_TranscriptIn = Iterable[dict[str, Any]] | str | bytes | bytearray
#: HTTP header fields: names to values, or (name, value) pairs (a field sent twice stays twice).
_HeaderFields = Mapping[str, str] | Iterable[tuple[str, str]]

__version__: Final[str]
DEFAULT_PROTOCOL: Final[str]

def catalogue() -> str: ...
def allows_input_required(protocol: str, method: str) -> bool: ...
def task_may_become(current: str, next: str) -> bool: ...
def task_is_terminal(name: str) -> bool: ...
def task_transition(current: str, next: str) -> str: ...
def _panic_for_tests() -> None: ...

@final
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
    transcript: _TranscriptIn,
    protocol: str | None = None,
    max_rounds: int | None = None,
    limits: Limits | None = None,
    transport: str | None = None,
) -> list[Violation]:
    """Checks a whole conversation (message entries and HTTP entries); the violations in transcript order
    (empty: compliant). ``transport``: ``"sep-1858"`` or ``"sep-1335"`` (``None``: plain Streamable HTTP)."""

# mrtr-gen: functions
@final
class Session:
    """A client's session: what it declares once (the protocol it asks for first, its capabilities, its
    name), and the requests it makes from that, each under a fresh id with the ``_meta`` its protocol wants
    on every request (in ``2026-07-28``: the protocol version, the capabilities, the client's name)."""

    @property
    def protocol(self) -> str: ...
    # mrtr-gen: members Session

def resume(request: _JsonIn, needs: _JsonIn, protocol: str | None = None, limits: Limits | None = None) -> Resumed:
    """Reads the MRTR fields of ``request`` against what this server ``needs``."""

def check_headers(
    request: _JsonIn, headers: _HeaderFields, protocol: str | None = None, limits: Limits | None = None
) -> None:
    """Checks a request's HTTP header fields (``MCP-Protocol-Version``, ``Mcp-Method``, ``Mcp-Name``, any case)
    against its body; a mismatch or a missing field raises ``ProtocolError`` (``request-header-mismatch``,
    -32020)."""

def check_request(
    request: _JsonIn,
    supported: Sequence[str],
    headers: _HeaderFields | None = None,
    protocol: str | None = None,
    limits: Limits | None = None,
) -> None:
    """What every request must pass before a server acts on it: its ``_meta`` (``request-meta-missing``), its
    HTTP header fields when given (``request-header-mismatch``), then a protocol version among ``supported``
    (``ProtocolError`` ``protocol-version-unsupported``, -32022, its ``.data`` holding ``supported`` and
    ``requested``)."""

#: A replay guard: records ``state_id`` (lowercase hex) atomically, and returns ``True`` on its first use,
#: ``False`` after; it may forget the id after ``expiry`` (seconds since the epoch).
_Guard = Callable[[str, int], bool]

def _error_response(
    id: int | str | None,
    rule: str,
    message: str,
    data: Mapping[str, Any] | None = None,
    error_codes: Literal["released", "draft"] | None = None,
) -> dict[str, Any]:
    """``{"response", "status"}``: the JSON-RPC error response to ``id`` for ``rule`` (with the members of
    ``data``), and its HTTP status, under ``error_codes`` (``"released"``, the default, or ``"draft"``)."""

def inspect(token: str | bytes) -> TokenInfo:
    """The public part of a token (state id, key id, algorithm, expiry), read without a key."""

def unsealed_encode(payload: bytes) -> str: ...
def unsealed_decode(token: str, max_bytes: int = 65536) -> bytes: ...

# --- the transports over HTTP (Streamable HTTP, SEP-1858, SEP-1335) -------------------------------------------

#: Header fields (names to values, or pairs); ``None`` for none.
_Headers = _HeaderFields | None
#: Bytes as they arrive (a str is taken as its UTF-8).
_Chunk = bytes | bytearray | str

@final
class SseDecoder:
    """The incremental event-stream decoder. ``feed`` bytes split anywhere, ``finish`` at the end of the body,
    then take each block with ``poll_event`` or by iterating: a ``dict`` of the fields its lines set (``event``,
    ``data``, ``id``: ``str``; ``retry``: ``int``). A block the decoder cannot read (a line that is no UTF-8, a
    block over ``max_message_bytes``) raises its ``MrtrError`` in its place; the decoder goes on after it."""

    def __iter__(self) -> SseDecoder: ...
    def __next__(self) -> dict[str, Any]: ...
    # mrtr-gen: members SseDecoder

# mrtr-gen: classes
def read_http_request(
    mode: str,
    method: str,
    url: str,
    headers: _Headers = None,
    body: _JsonIn | None = None,
    protocol: str | None = None,
    limits: Limits | None = None,
) -> dict[str, Any]:
    """What an incoming HTTP request asks: ``{"type": "call", "message"}``, ``{"type": "messages",
    "messages"}``, ``{"type": "answers", "key", "responses"}`` or ``{"type": "resume", "key",
    "lastEventId"}``."""
