//! Names and tables: the rule catalogue with each rule's area, the names of
//! protocols, the default limits, the version (a key ring names its
//! algorithm by name).

use crate::args;
use crate::status::{guard, mrtr_status, usage, MRTR_OK};
use crate::tables::{self, mrtr_area, mrtr_protocol};
use crate::types::mrtr_limits;
use mrtr::rules::RULES;
use mrtr::{Area, Limits, Protocol, RuleId};
use std::ffi::{c_char, CStr};

/// The name of a status: the rule id (`"state-expired"`) for a rule number,
/// `"ok"` for 0, `"unknown"` otherwise. Static: never freed, never NULL.
#[no_mangle]
pub extern "C" fn mrtr_rule_str(code: mrtr_status) -> *const c_char {
    let name = match code {
        MRTR_OK => c"ok",
        _ => tables::RULES.iter().find(|r| r.0 == code).map_or(c"unknown", |r| r.1),
    };
    name.as_ptr()
}

/// The rule number of a rule id (`"state-expired"` -> 33), or 0 when the id
/// is unknown or `name` is not UTF-8.
///
/// # Safety
/// `name` is NULL or points to `name_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn mrtr_rule_code(name: *const c_char, name_len: usize) -> mrtr_status {
    let mut code = MRTR_OK;
    guard(|| {
        // SAFETY: the caller promises `name` is NULL or valid for `name_len` bytes.
        let name = unsafe { args::text(name, name_len, "name") }?;
        code = RuleId::from_name(name).map_or(MRTR_OK, |r| mrtr_status::from(r as u16));
        Ok(())
    });
    code
}

/// The area of a status (`MRTR_AREA_NONE` for `MRTR_OK` or a number of no rule):
/// branch on it to treat a whole family of failures alike, as the other
/// languages' error classes do.
#[no_mangle]
pub extern "C" fn mrtr_rule_area(code: mrtr_status) -> mrtr_area {
    let rule = u16::try_from(code).ok().and_then(RuleId::from_u16);
    // `MRTR_AREA_*` numbers an area by its place in `Area::ALL`, from 1.
    let place = rule.and_then(|r| Area::ALL.iter().position(|a| *a == r.area()));
    place.map_or(tables::MRTR_AREA_NONE, |i| i as mrtr_area + 1)
}

/// The name of an area (`"protocol"`, `"retry"`, …, `"none"` for
/// `MRTR_AREA_NONE`), or `"unknown"`. Static.
#[no_mangle]
pub extern "C" fn mrtr_area_str(area: mrtr_area) -> *const c_char {
    usize::try_from(area).ok().and_then(|i| tables::AREAS.get(i)).map_or(c"unknown", |n| n).as_ptr()
}

/// One row of the rule catalogue. The strings are static: never freed.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mrtr_rule_info {
    /// The stable rule number (the status code).
    pub code: mrtr_status,
    /// The kebab-case rule id, as in docs/RULES.md.
    pub name: *const c_char,
    /// Where the rule comes from (a spec section).
    pub source: *const c_char,
    /// The JSON-RPC error code a peer answers with, or 0 when the rule has none.
    pub jsonrpc_code: i32,
    /// The rule's area (`mrtr_rule_area(code)`).
    pub area: mrtr_area,
}

/// The number of rules in the catalogue (rows for `mrtr_rule_at`).
#[no_mangle]
pub extern "C" fn mrtr_rule_count() -> usize {
    RULES.len()
}

/// Writes row `index` (0-based, below `mrtr_rule_count()`) of the catalogue
/// to `*out`; `usage-invalid-argument` past the end.
///
/// # Safety
/// `out` is NULL or points to writable memory for one `mrtr_rule_info`.
#[no_mangle]
pub unsafe extern "C" fn mrtr_rule_at(index: usize, out: *mut mrtr_rule_info) -> mrtr_status {
    guard(|| {
        let (rule, (code, name, source)) =
            RULES.get(index).zip(tables::RULES.get(index)).ok_or_else(|| usage(format!("no rule at index {index}")))?;
        let jsonrpc_code = rule.code.unwrap_or(0);
        let info = mrtr_rule_info {
            code: *code,
            name: name.as_ptr(),
            source: source.as_ptr(),
            jsonrpc_code,
            area: mrtr_rule_area(*code),
        };
        // SAFETY: the caller promises `out` is NULL or writable for one `mrtr_rule_info`.
        unsafe { args::write(out, info, "out") }
    })
}

/// The protocol with this name (`"2026-07-28"`, `"sep-2322"`,
/// `"sep-2322-draft"`, `"2025-11-25"`) into `*out`. An unknown name is
/// `jsonrpc-invalid` ("unknown protocol", the core's decision).
///
/// # Safety
/// `name` is valid for `name_len` bytes; `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn mrtr_protocol_from_name(
    name: *const c_char,
    name_len: usize,
    out: *mut mrtr_protocol,
) -> mrtr_status {
    guard(|| {
        // SAFETY: the caller promises `name` is valid for `name_len` bytes.
        let protocol = Protocol::parse(unsafe { args::text(name, name_len, "name") }?)?;
        let number = Protocol::ALL.iter().position(|p| *p == protocol).unwrap_or_default() as mrtr_protocol;
        // SAFETY: the caller promises `out` is writable.
        unsafe { args::write(out, number, "out") }
    })
}

/// The name of a protocol number (static), or NULL for an unknown number.
#[no_mangle]
pub extern "C" fn mrtr_protocol_name(protocol_number: mrtr_protocol) -> *const c_char {
    let name = usize::try_from(protocol_number).ok().and_then(|i| tables::PROTOCOLS.get(i));
    name.map_or(std::ptr::null(), |n| n.as_ptr())
}

/// The default limits, to adjust and pass by pointer.
#[no_mangle]
pub extern "C" fn mrtr_limits_default() -> mrtr_limits {
    Limits::DEFAULT.into()
}

/// The library's version (`"X.Y.Z"`): a header of the same release has it as
/// `MRTR_VERSION`. Static.
#[no_mangle]
pub extern "C" fn mrtr_version() -> *const c_char {
    const VERSION: &CStr = match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => c"unknown",
    };
    VERSION.as_ptr()
}

/// Whether this build catches double frees and stale handles
/// (`usage-unknown-handle`): 1 in debug builds, 0 in release builds.
#[no_mangle]
pub extern "C" fn mrtr_debug_checks() -> i32 {
    i32::from(cfg!(debug_assertions))
}
