//! Status codes, the thread-local last error, the panic boundary, and the rule table.

use mrtr::rules::RULES;
use mrtr::RuleId;
use std::borrow::Cow;
use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{self, AssertUnwindSafe};
use std::sync::OnceLock;

/// What a call did: `MRTR_OK` (0), a rule's stable number (> 0), or a misuse
/// of the binding (< 0). Never reused.
pub type mrtr_status = i32;

/// Success.
pub const MRTR_OK: mrtr_status = 0;

// The rules of the core's catalogue, by their stable `RuleId` numbers. A test
// checks that this list and `mrtr::rules::RULES` agree, both ways.

/// `jsonrpc-parse-error`: not one JSON value, or not UTF-8.
pub const MRTR_ERR_JSONRPC_PARSE_ERROR: mrtr_status = 1;
/// `jsonrpc-invalid`: not a JSON-RPC 2.0 message (also: a duplicate key, an unknown protocol name).
pub const MRTR_ERR_JSONRPC_INVALID: mrtr_status = 2;
/// `request-meta-missing`.
pub const MRTR_ERR_REQUEST_META_MISSING: mrtr_status = 3;
/// `result-type-unknown`.
pub const MRTR_ERR_RESULT_TYPE_UNKNOWN: mrtr_status = 10;
/// `result-type-missing`.
pub const MRTR_ERR_RESULT_TYPE_MISSING: mrtr_status = 11;
/// `input-required-method-not-allowed`.
pub const MRTR_ERR_INPUT_REQUIRED_METHOD_NOT_ALLOWED: mrtr_status = 12;
/// `input-required-empty`.
pub const MRTR_ERR_INPUT_REQUIRED_EMPTY: mrtr_status = 13;
/// `input-request-invalid`.
pub const MRTR_ERR_INPUT_REQUEST_INVALID: mrtr_status = 14;
/// `input-request-capability-missing`.
pub const MRTR_ERR_INPUT_REQUEST_CAPABILITY_MISSING: mrtr_status = 15;
/// `request-state-invalid`.
pub const MRTR_ERR_REQUEST_STATE_INVALID: mrtr_status = 16;
/// `message-after-input-required`.
pub const MRTR_ERR_MESSAGE_AFTER_INPUT_REQUIRED: mrtr_status = 17;
/// `retry-id-reused`.
pub const MRTR_ERR_RETRY_ID_REUSED: mrtr_status = 20;
/// `retry-request-changed`.
pub const MRTR_ERR_RETRY_REQUEST_CHANGED: mrtr_status = 21;
/// `retry-missing-input-response`.
pub const MRTR_ERR_RETRY_MISSING_INPUT_RESPONSE: mrtr_status = 22;
/// `retry-input-response-invalid`.
pub const MRTR_ERR_RETRY_INPUT_RESPONSE_INVALID: mrtr_status = 23;
/// `retry-request-state-mismatch`.
pub const MRTR_ERR_RETRY_REQUEST_STATE_MISMATCH: mrtr_status = 24;
/// `retry-request-state-unexpected`.
pub const MRTR_ERR_RETRY_REQUEST_STATE_UNEXPECTED: mrtr_status = 25;
/// `input-responses-unsolicited`.
pub const MRTR_ERR_INPUT_RESPONSES_UNSOLICITED: mrtr_status = 26;
/// `retry-rounds-exceeded`.
pub const MRTR_ERR_RETRY_ROUNDS_EXCEEDED: mrtr_status = 27;
/// `input-responses-malformed`.
pub const MRTR_ERR_INPUT_RESPONSES_MALFORMED: mrtr_status = 30;
/// `state-malformed`.
pub const MRTR_ERR_STATE_MALFORMED: mrtr_status = 31;
/// `state-tampered`.
pub const MRTR_ERR_STATE_TAMPERED: mrtr_status = 32;
/// `state-expired`.
pub const MRTR_ERR_STATE_EXPIRED: mrtr_status = 33;
/// `state-wrong-subject`.
pub const MRTR_ERR_STATE_WRONG_SUBJECT: mrtr_status = 34;
/// `state-wrong-request`.
pub const MRTR_ERR_STATE_WRONG_REQUEST: mrtr_status = 35;
/// `state-unknown-key`.
pub const MRTR_ERR_STATE_UNKNOWN_KEY: mrtr_status = 36;
/// `state-too-large`.
pub const MRTR_ERR_STATE_TOO_LARGE: mrtr_status = 37;
/// `task-status-invalid`.
pub const MRTR_ERR_TASK_STATUS_INVALID: mrtr_status = 40;
/// `task-transition-invalid`.
pub const MRTR_ERR_TASK_TRANSITION_INVALID: mrtr_status = 41;
/// `task-input-requests-missing`.
pub const MRTR_ERR_TASK_INPUT_REQUESTS_MISSING: mrtr_status = 42;
/// `task-input-response-without-task`.
pub const MRTR_ERR_TASK_INPUT_RESPONSE_WITHOUT_TASK: mrtr_status = 43;
/// `task-unknown`.
pub const MRTR_ERR_TASK_UNKNOWN: mrtr_status = 44;
/// `task-input-key-reused`.
pub const MRTR_ERR_TASK_INPUT_KEY_REUSED: mrtr_status = 45;
/// `server-request-unassociated`.
pub const MRTR_ERR_SERVER_REQUEST_UNASSOCIATED: mrtr_status = 50;
/// `server-request-on-stream`.
pub const MRTR_ERR_SERVER_REQUEST_ON_STREAM: mrtr_status = 51;
/// `sse-response-not-buffered`.
pub const MRTR_ERR_SSE_RESPONSE_NOT_BUFFERED: mrtr_status = 60;
/// `sse-reconnected-after-input-required`.
pub const MRTR_ERR_SSE_RECONNECTED_AFTER_INPUT_REQUIRED: mrtr_status = 61;
/// `sse-last-event-id-missing`.
pub const MRTR_ERR_SSE_LAST_EVENT_ID_MISSING: mrtr_status = 62;
/// `sse-stream-url-cross-origin`.
pub const MRTR_ERR_SSE_STREAM_URL_CROSS_ORIGIN: mrtr_status = 63;
/// `sse-retry-ignored`.
pub const MRTR_ERR_SSE_RETRY_IGNORED: mrtr_status = 64;
/// `sse-buffered-post-target`.
pub const MRTR_ERR_SSE_BUFFERED_POST_TARGET: mrtr_status = 65;
/// `limit-exceeded`: a message over a bound of `mrtr_limits`.
pub const MRTR_ERR_LIMIT_EXCEEDED: mrtr_status = 70;

// Misuses of the binding: negative, so they can never meet a rule number
// (rule numbers are `uint16_t`).

/// A required pointer argument was NULL.
pub const MRTR_ERR_NULL_POINTER: mrtr_status = -1;
/// A text argument that is not JSON (a subject, a name) was not UTF-8.
pub const MRTR_ERR_INVALID_UTF8: mrtr_status = -2;
/// An argument out of its range: an unknown protocol or algorithm number, a
/// secret that is not 32 bytes, a length over `PTRDIFF_MAX`, a malformed
/// transcript entry or round.
pub const MRTR_ERR_INVALID_ARGUMENT: mrtr_status = -3;
/// The library panicked (a bug): the call did nothing useful; free the handle it was given.
pub const MRTR_ERR_PANIC: mrtr_status = -4;
/// Debug builds only: a handle or buffer already freed, or not from this library.
pub const MRTR_ERR_INVALID_HANDLE: mrtr_status = -5;

/// The binding's own codes, with their names for `mrtr_rule_str`.
pub(crate) const FFI_CODES: [(mrtr_status, &CStr); 5] = [
    (MRTR_ERR_NULL_POINTER, c"ffi-null-pointer"),
    (MRTR_ERR_INVALID_UTF8, c"ffi-invalid-utf8"),
    (MRTR_ERR_INVALID_ARGUMENT, c"ffi-invalid-argument"),
    (MRTR_ERR_PANIC, c"ffi-panic"),
    (MRTR_ERR_INVALID_HANDLE, c"ffi-invalid-handle"),
];

/// Why a call failed: a code and one sentence.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) code: mrtr_status,
    pub(crate) message: Cow<'static, str>,
}

impl Failure {
    pub(crate) fn new(code: mrtr_status, message: impl Into<Cow<'static, str>>) -> Failure {
        Failure { code, message: message.into() }
    }

    pub(crate) fn null(what: &'static str) -> Failure {
        Failure::new(MRTR_ERR_NULL_POINTER, format!("{what} is NULL"))
    }

    pub(crate) fn invalid(message: impl Into<Cow<'static, str>>) -> Failure {
        Failure::new(MRTR_ERR_INVALID_ARGUMENT, message)
    }
}

impl From<mrtr::Error> for Failure {
    fn from(e: mrtr::Error) -> Failure {
        Failure::new(rule_code(e.rule()), e.message().to_owned())
    }
}

/// The stable number of a rule.
pub(crate) fn rule_code(rule: RuleId) -> mrtr_status {
    mrtr_status::from(rule as u16)
}

pub(crate) type Outcome = Result<(), Failure>;

struct LastError {
    code: mrtr_status,
    message: Option<CString>,
}

thread_local! {
    static LAST: RefCell<LastError> = const { RefCell::new(LastError { code: MRTR_OK, message: None }) };
}

fn record(outcome: Outcome) -> mrtr_status {
    let (code, message) = match outcome {
        Ok(()) => (MRTR_OK, None),
        Err(f) => {
            let text = f.message.replace('\0', "\\0");
            (f.code, Some(CString::new(text).unwrap_or_default()))
        }
    };
    // `try_with`: during thread teardown the slot may be gone; the code still returns.
    let _ = LAST.try_with(|last| {
        if let Ok(mut last) = last.try_borrow_mut() {
            if code != MRTR_OK || last.code != MRTR_OK {
                *last = LastError { code, message };
            }
        }
    });
    code
}

/// The panic boundary every export runs in: `f`'s outcome becomes a status
/// and the thread's last error; a panic becomes `MRTR_ERR_PANIC`.
pub(crate) fn guard(f: impl FnOnce() -> Outcome) -> mrtr_status {
    let outcome = panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_owned());
        Err(Failure::new(MRTR_ERR_PANIC, format!("mrtr panicked (a bug, please report it): {what}")))
    });
    record(outcome)
}

/// The status of the last call into the library on this thread that
/// returned one (`MRTR_OK` after a success).
#[no_mangle]
pub extern "C" fn mrtr_last_error_code() -> mrtr_status {
    LAST.try_with(|l| l.try_borrow().map(|l| l.code).unwrap_or(MRTR_OK)).unwrap_or(MRTR_OK)
}

/// One sentence on why the last failing call on this thread failed (`""`
/// after a success). The string belongs to the library: it stays valid until
/// the next call into the library on this thread; copy it to keep it. It
/// never contains key material.
#[no_mangle]
pub extern "C" fn mrtr_last_error_message() -> *const c_char {
    let ptr = LAST.try_with(|l| l.try_borrow().ok().and_then(|l| l.message.as_ref().map(|m| m.as_ptr())));
    ptr.ok().flatten().unwrap_or(c"".as_ptr())
}

struct RuleText {
    name: CString,
    source: CString,
}

fn rule_texts() -> &'static [RuleText] {
    static TEXTS: OnceLock<Vec<RuleText>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        RULES
            .iter()
            .map(|r| RuleText {
                name: CString::new(r.name).unwrap_or_default(),
                source: CString::new(r.source).unwrap_or_default(),
            })
            .collect()
    })
}

/// The name of a status: the rule id (`"state-expired"`) for a rule number,
/// `"ok"` for 0, `"ffi-null-pointer"`, `"ffi-invalid-utf8"`,
/// `"ffi-invalid-argument"`, `"ffi-panic"`, `"ffi-invalid-handle"` for the
/// binding's own codes, `"unknown"` otherwise. Static: never freed, never NULL.
#[no_mangle]
pub extern "C" fn mrtr_rule_str(code: mrtr_status) -> *const c_char {
    let name = panic::catch_unwind(|| {
        if code == MRTR_OK {
            return c"ok".as_ptr();
        }
        if let Some((_, name)) = FFI_CODES.iter().find(|(c, _)| *c == code) {
            return name.as_ptr();
        }
        let index = u16::try_from(code).ok().and_then(|n| RULES.iter().position(|r| r.id as u16 == n));
        match index {
            Some(i) => rule_texts()[i].name.as_ptr(),
            None => c"unknown".as_ptr(),
        }
    });
    name.unwrap_or(c"unknown".as_ptr())
}

/// The rule number of a rule id (`"state-expired"` -> 33), or 0 when the id
/// is unknown or `name` is NULL or not UTF-8.
///
/// # Safety
/// `name` is NULL or points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_rule_code(name: *const c_char, name_len: usize) -> mrtr_status {
    let mut code = MRTR_OK;
    let status = guard(|| {
        // SAFETY: the caller promises `name` is NULL or valid for `name_len` bytes.
        let name = unsafe { crate::args::text(name, name_len, "name") }?;
        code = RuleId::from_name(name).map_or(MRTR_OK, rule_code);
        Ok(())
    });
    if status == MRTR_OK {
        code
    } else {
        MRTR_OK
    }
}

/// One row of the rule catalogue. The strings are static: never freed.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_rule_info {
    /// The stable rule number (the status code).
    pub code: mrtr_status,
    /// The kebab-case rule id, as in RULES.md.
    pub name: *const c_char,
    /// Where the rule comes from (a spec section).
    pub source: *const c_char,
    /// The JSON-RPC error code a peer answers with (-32700, -32600, -32602), or 0 when the rule has none.
    pub jsonrpc_code: i32,
}

/// The number of rules in the catalogue (rows for `mrtr_rule_at`).
#[no_mangle]
pub extern "C" fn mrtr_rule_count() -> usize {
    RULES.len()
}

/// Writes row `index` (0-based, below `mrtr_rule_count()`) of the catalogue
/// to `*out`. `MRTR_ERR_INVALID_ARGUMENT` past the end.
///
/// # Safety
/// `out` is NULL or points to writable memory for one `mrtr_rule_info`.
#[no_mangle]
pub unsafe extern "C" fn mrtr_rule_at(index: usize, out: *mut mrtr_rule_info) -> mrtr_status {
    guard(|| {
        let rule = RULES.get(index).ok_or_else(|| Failure::invalid(format!("no rule at index {index}")))?;
        let text = &rule_texts()[index];
        let info = mrtr_rule_info {
            code: rule_code(rule.id),
            name: text.name.as_ptr(),
            source: text.source.as_ptr(),
            jsonrpc_code: rule.code.unwrap_or(0),
        };
        // SAFETY: the caller promises `out` is NULL or writable for one `mrtr_rule_info`.
        unsafe { crate::args::write(out, info, "out") }
    })
}

/// The library's version, e.g. `"0.1.0"`. Static.
#[no_mangle]
pub extern "C" fn mrtr_version() -> *const c_char {
    static VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => c"unknown",
    };
    VERSION.as_ptr()
}

/// Whether this build catches double frees and stale handles
/// (`MRTR_ERR_INVALID_HANDLE`): 1 in debug builds, 0 in release builds.
#[no_mangle]
pub extern "C" fn mrtr_debug_checks() -> i32 {
    i32::from(cfg!(debug_assertions))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule of the core has its constant, with its number, and no constant is extra.
    #[test]
    fn the_constants_are_the_catalogue() {
        let constants: &[(mrtr_status, &str)] = &[
            (MRTR_ERR_JSONRPC_PARSE_ERROR, "jsonrpc-parse-error"),
            (MRTR_ERR_JSONRPC_INVALID, "jsonrpc-invalid"),
            (MRTR_ERR_REQUEST_META_MISSING, "request-meta-missing"),
            (MRTR_ERR_RESULT_TYPE_UNKNOWN, "result-type-unknown"),
            (MRTR_ERR_RESULT_TYPE_MISSING, "result-type-missing"),
            (MRTR_ERR_INPUT_REQUIRED_METHOD_NOT_ALLOWED, "input-required-method-not-allowed"),
            (MRTR_ERR_INPUT_REQUIRED_EMPTY, "input-required-empty"),
            (MRTR_ERR_INPUT_REQUEST_INVALID, "input-request-invalid"),
            (MRTR_ERR_INPUT_REQUEST_CAPABILITY_MISSING, "input-request-capability-missing"),
            (MRTR_ERR_REQUEST_STATE_INVALID, "request-state-invalid"),
            (MRTR_ERR_MESSAGE_AFTER_INPUT_REQUIRED, "message-after-input-required"),
            (MRTR_ERR_RETRY_ID_REUSED, "retry-id-reused"),
            (MRTR_ERR_RETRY_REQUEST_CHANGED, "retry-request-changed"),
            (MRTR_ERR_RETRY_MISSING_INPUT_RESPONSE, "retry-missing-input-response"),
            (MRTR_ERR_RETRY_INPUT_RESPONSE_INVALID, "retry-input-response-invalid"),
            (MRTR_ERR_RETRY_REQUEST_STATE_MISMATCH, "retry-request-state-mismatch"),
            (MRTR_ERR_RETRY_REQUEST_STATE_UNEXPECTED, "retry-request-state-unexpected"),
            (MRTR_ERR_INPUT_RESPONSES_UNSOLICITED, "input-responses-unsolicited"),
            (MRTR_ERR_RETRY_ROUNDS_EXCEEDED, "retry-rounds-exceeded"),
            (MRTR_ERR_INPUT_RESPONSES_MALFORMED, "input-responses-malformed"),
            (MRTR_ERR_STATE_MALFORMED, "state-malformed"),
            (MRTR_ERR_STATE_TAMPERED, "state-tampered"),
            (MRTR_ERR_STATE_EXPIRED, "state-expired"),
            (MRTR_ERR_STATE_WRONG_SUBJECT, "state-wrong-subject"),
            (MRTR_ERR_STATE_WRONG_REQUEST, "state-wrong-request"),
            (MRTR_ERR_STATE_UNKNOWN_KEY, "state-unknown-key"),
            (MRTR_ERR_STATE_TOO_LARGE, "state-too-large"),
            (MRTR_ERR_TASK_STATUS_INVALID, "task-status-invalid"),
            (MRTR_ERR_TASK_TRANSITION_INVALID, "task-transition-invalid"),
            (MRTR_ERR_TASK_INPUT_REQUESTS_MISSING, "task-input-requests-missing"),
            (MRTR_ERR_TASK_INPUT_RESPONSE_WITHOUT_TASK, "task-input-response-without-task"),
            (MRTR_ERR_TASK_UNKNOWN, "task-unknown"),
            (MRTR_ERR_TASK_INPUT_KEY_REUSED, "task-input-key-reused"),
            (MRTR_ERR_SERVER_REQUEST_UNASSOCIATED, "server-request-unassociated"),
            (MRTR_ERR_SERVER_REQUEST_ON_STREAM, "server-request-on-stream"),
            (MRTR_ERR_SSE_RESPONSE_NOT_BUFFERED, "sse-response-not-buffered"),
            (MRTR_ERR_SSE_RECONNECTED_AFTER_INPUT_REQUIRED, "sse-reconnected-after-input-required"),
            (MRTR_ERR_SSE_LAST_EVENT_ID_MISSING, "sse-last-event-id-missing"),
            (MRTR_ERR_SSE_STREAM_URL_CROSS_ORIGIN, "sse-stream-url-cross-origin"),
            (MRTR_ERR_SSE_RETRY_IGNORED, "sse-retry-ignored"),
            (MRTR_ERR_SSE_BUFFERED_POST_TARGET, "sse-buffered-post-target"),
            (MRTR_ERR_LIMIT_EXCEEDED, "limit-exceeded"),
        ];
        assert_eq!(constants.len(), RULES.len(), "a rule was added to the core: add its MRTR_ERR_ constant");
        for (code, name) in constants {
            let rule = RuleId::from_name(name).unwrap_or_else(|| panic!("{name} is not in the core's catalogue"));
            assert_eq!(rule_code(rule), *code, "{name}");
            // SAFETY: mrtr_rule_str returns a static NUL-terminated string.
            let back = unsafe { CStr::from_ptr(mrtr_rule_str(*code)) };
            assert_eq!(back.to_str(), Ok(*name));
        }
        for (code, _) in FFI_CODES {
            assert!(code < 0);
        }
    }

    #[test]
    fn a_panic_becomes_a_status_and_a_message() {
        let status = guard(|| panic!("boom"));
        assert_eq!(status, MRTR_ERR_PANIC);
        assert_eq!(mrtr_last_error_code(), MRTR_ERR_PANIC);
        // SAFETY: the message pointer is valid until the next call on this thread.
        let message = unsafe { CStr::from_ptr(mrtr_last_error_message()) }.to_string_lossy().into_owned();
        assert!(message.contains("boom"), "{message}");
        assert_eq!(guard(|| Ok(())), MRTR_OK);
        // SAFETY: as above.
        assert_eq!(unsafe { CStr::from_ptr(mrtr_last_error_message()) }.to_bytes(), b"");
    }
}
