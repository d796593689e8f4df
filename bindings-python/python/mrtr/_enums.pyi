"""Type stubs of the generated enums (a test checks them against the runtime tables)."""

from enum import Enum
from typing import Any

class _StrEnum(str, Enum):  # type: ignore[misc]  # a base without members
    def __str__(self) -> str: ...
    def __format__(self, spec: str) -> str: ...

class Rule(_StrEnum):
    """A rule of the core's catalogue; the value is its kebab-case id."""

    JSONRPC_PARSE_ERROR = "jsonrpc-parse-error"
    JSONRPC_INVALID = "jsonrpc-invalid"
    REQUEST_META_MISSING = "request-meta-missing"
    RESULT_TYPE_UNKNOWN = "result-type-unknown"
    RESULT_TYPE_MISSING = "result-type-missing"
    INPUT_REQUIRED_METHOD_NOT_ALLOWED = "input-required-method-not-allowed"
    INPUT_REQUIRED_EMPTY = "input-required-empty"
    INPUT_REQUEST_INVALID = "input-request-invalid"
    INPUT_REQUEST_CAPABILITY_MISSING = "input-request-capability-missing"
    REQUEST_STATE_INVALID = "request-state-invalid"
    MESSAGE_AFTER_INPUT_REQUIRED = "message-after-input-required"
    RETRY_ID_REUSED = "retry-id-reused"
    RETRY_REQUEST_CHANGED = "retry-request-changed"
    RETRY_MISSING_INPUT_RESPONSE = "retry-missing-input-response"
    RETRY_INPUT_RESPONSE_INVALID = "retry-input-response-invalid"
    RETRY_REQUEST_STATE_MISMATCH = "retry-request-state-mismatch"
    RETRY_REQUEST_STATE_UNEXPECTED = "retry-request-state-unexpected"
    INPUT_RESPONSES_UNSOLICITED = "input-responses-unsolicited"
    RETRY_ROUNDS_EXCEEDED = "retry-rounds-exceeded"
    INPUT_RESPONSES_MALFORMED = "input-responses-malformed"
    STATE_MALFORMED = "state-malformed"
    STATE_TAMPERED = "state-tampered"
    STATE_EXPIRED = "state-expired"
    STATE_WRONG_SUBJECT = "state-wrong-subject"
    STATE_WRONG_REQUEST = "state-wrong-request"
    STATE_UNKNOWN_KEY = "state-unknown-key"
    STATE_TOO_LARGE = "state-too-large"
    TASK_STATUS_INVALID = "task-status-invalid"
    TASK_TRANSITION_INVALID = "task-transition-invalid"
    TASK_INPUT_REQUESTS_MISSING = "task-input-requests-missing"
    TASK_INPUT_RESPONSE_WITHOUT_TASK = "task-input-response-without-task"
    TASK_UNKNOWN = "task-unknown"
    TASK_INPUT_KEY_REUSED = "task-input-key-reused"
    SERVER_REQUEST_UNASSOCIATED = "server-request-unassociated"
    SERVER_REQUEST_ON_STREAM = "server-request-on-stream"
    SSE_RESPONSE_NOT_BUFFERED = "sse-response-not-buffered"
    SSE_RECONNECTED_AFTER_INPUT_REQUIRED = "sse-reconnected-after-input-required"
    SSE_LAST_EVENT_ID_MISSING = "sse-last-event-id-missing"
    SSE_STREAM_URL_CROSS_ORIGIN = "sse-stream-url-cross-origin"
    SSE_RETRY_IGNORED = "sse-retry-ignored"
    SSE_BUFFERED_POST_TARGET = "sse-buffered-post-target"
    LIMIT_EXCEEDED = "limit-exceeded"
    @property
    def number(self) -> int: ...
    @property
    def code(self) -> int | None: ...
    @property
    def source(self) -> str: ...

class Protocol(_StrEnum):
    """A protocol the core speaks; the value is the name callers use."""

    V2026_07_28 = "2026-07-28"
    SEP_2322 = "sep-2322"
    SEP_2322_DRAFT = "sep-2322-draft"
    V2025_11_25 = "2025-11-25"
    def allows_input_required(self, method: str) -> bool: ...

class TaskStatus(_StrEnum):
    """A task's status (both Tasks workflows)."""

    WORKING = "working"
    INPUT_REQUIRED = "input_required"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    @property
    def is_terminal(self) -> bool: ...
    def may_become(self, next: str) -> bool: ...
    def transition(self, next: str) -> TaskStatus: ...

class Kind(_StrEnum):
    """What a message is, as ``classify`` tells."""

    REQUEST = "request"
    NOTIFICATION = "notification"
    RESULT = "result"
    INPUT_REQUIRED = "input_required"
    ERROR = "error"

class Algorithm(_StrEnum):
    """The AEAD a sealing key uses."""

    AES_256_GCM = "aes-256-gcm"
    XCHACHA20_POLY1305 = "xchacha20-poly1305"

DEFAULT_PROTOCOL: Protocol
_RULE_BY_NAME: dict[str, Rule]
_KIND_BY_NAME: dict[str, Kind]
_TERMINAL: dict[str, bool]
_RULE_INFO: dict[str, Any]

__all__ = ["Rule", "Protocol", "TaskStatus", "Kind", "Algorithm", "DEFAULT_PROTOCOL"]
