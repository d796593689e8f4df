"""Type stubs of the native module ``mrtr._mrtr`` (pyo3)."""

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Literal, final

from ._enums import Kind
from ._types import Event, Handle, Limits, Opened, Resumed, Round, TokenInfo, Violation

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

@final
class Checker:
    """The incremental checker: ``handle`` one entry at a time."""

    def __new__(
        cls,
        protocol: str | None = None,
        max_rounds: int | None = None,
        limits: Limits | None = None,
        transport: str | None = None,
    ) -> Checker: ...
    def handle(self, entry: _JsonIn) -> list[Violation]: ...
    @property
    def violations(self) -> list[Violation]: ...

# mrtr-gen: functions
@final
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

@final
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

@final
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

@final
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

@final
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
        max_rounds: int | None = None,
    ) -> SealedRounds:
        """``max_rounds``: how many rounds an await-style tool may take (``ToolReplay``, ``run_tool``; the
        core's default 10); one more is ``retry-rounds-exceeded``."""
    @property
    def protocol(self) -> str:
        """The protocol these rounds are sealed for."""
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

@final
class ToolReplay:
    """One replay of an await-style tool on one request (``run_tool`` drives it): each ``ask`` is answered from
    the sealed state or the request's ``inputResponses`` (keys in the order of asking, each answer pinned to a
    digest of the exact question), or is missing (``None``: the tool stops there); then ``input_required``
    asks every missing question, or ``complete`` answers with the tool's result. With a ``guard``, a state
    used before is ``state-replayed``."""

    def __new__(
        cls,
        rounds: SealedRounds,
        request: _JsonIn,
        *,
        subject: str | None = None,
        anonymous: bool = False,
        now: int,
        guard: _Guard | None = None,
    ) -> ToolReplay: ...
    def ask(self, question: _JsonIn, key: str | None = None) -> dict[str, Any] | None:
        """The answer to ``question`` (an input request), under the key of its order (``q1``, ``q2``, …) or
        ``key``; ``None`` when it has none yet."""
    @property
    def round(self) -> int:
        """How many ``input_required`` rounds came before this request."""
    @property
    def missing(self) -> list[str]:
        """The keys asked and not answered, in order."""
    @property
    def data(self) -> Any:
        """The data the tool kept at the last round (``None`` without)."""
    @property
    def state(self) -> dict[str, Any] | None:
        """The state the request carried: ``{"stateId", "expiry"}``, or ``None``."""
    def input_required(self, data: Any = None) -> dict[str, Any]:
        """The ``input_required`` response asking every missing question, sealing the answers so far and
        ``data``; past the round cap ``retry-rounds-exceeded``, with nothing missing ``usage-out-of-turn``."""
    def complete(self, result: _JsonIn) -> dict[str, Any]:
        """The final response with ``result`` (``resultType: "complete"``; ``ttlMs: 0`` on a retry)."""
    def run(self) -> ToolRun:
        """The run of the tool over this replay (``ToolRun``), which takes what the replay holds: this one is
        released."""

@final
class ToolRun:
    """One run of an await-style tool on one request (``run_tool`` and ``Context`` drive it): the tool's asks,
    each answered or ``None`` (the tool stops there); then ``respond`` (the tool returned, or stopped at an
    unanswered ask) or ``refused`` (it raised its own exception). A refusal at an ask raises there and is
    recorded: the run ends with it, whatever the tool does next."""

    def __new__(
        cls,
        rounds: SealedRounds,
        request: _JsonIn,
        *,
        subject: str | None = None,
        anonymous: bool = False,
        now: int,
        guard: _Guard | None = None,
    ) -> ToolRun: ...
    def ask(self, question: _JsonIn, key: str | None = None) -> dict[str, Any] | None:
        """The answer to ``question`` (an input request), under the key of its order or ``key``; ``None``: the
        tool stops here. A refusal raises, and the run ends with it."""
    def ask_elicit(
        self, message: str, requested_schema: Mapping[str, Any] | str | bytes, key: str | None = None
    ) -> dict[str, Any] | None:
        """The form elicitation's answer, or ``None``, in one call; a schema that is no JSON raises, unrecorded."""
    def arguments(self) -> dict[str, Any] | None:
        """The request's ``params.arguments`` (an empty dict when not an object); ``None`` for a bridge's run."""
    @property
    def round(self) -> int:
        """How many ``input_required`` rounds came before this request."""
    @property
    def state(self) -> dict[str, Any] | None:
        """The state the request carried: ``{"stateId", "expiry"}``, or ``None``."""
    @property
    def data(self) -> Any:
        """The data the next round gets: what the tool set, else the last round's (``None`` without)."""
    def set_data(self, data: Any) -> None:
        """The tool keeps ``data`` (``None``: nothing) for the next round, in place of the last round's."""
    def stop(self) -> None:
        """The tool was stopped at an unanswered ask: every later ask asks nothing and gives ``None``."""
    def respond(self, result: Any = None, *, stopped: bool = False) -> dict[str, Any]:
        """Ends the run: the tool returned ``result`` (or, ``stopped``, stopped at an unanswered ask). The
        ``input_required`` response when an ask went unanswered, else the ``complete`` one; raises the refusal."""
    def _respond_bytes(self, result: Any = None, *, stopped: bool = False) -> bytes:
        """``respond`` as the UTF-8 bytes of its JSON text."""
    def refused(self) -> None:
        """Ends the run when the tool raised its own exception: raises the refusal recorded at an ask, which wins
        over it; returns when there is none."""
    def refusal_response(
        self, *, error_codes: Literal["released", "draft"] | None = None
    ) -> tuple[dict[str, Any], int] | None:
        """The refusal the run ended with, as the JSON-RPC error response and its HTTP status, or ``None``."""

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

def params_digest(params: _JsonIn) -> bytes:
    """SHA-256 of the canonical JSON of a request's params (every param but ``inputResponses``,
    ``requestState``, ``_meta``): a ``dict``, or JSON text read as given."""

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
