//! The C ABI of the no-allocator path, called as C calls it (the corpus runs
//! through it on the board and the host: `scripts/conformance embedded`,
//! `scripts/tests/45-embedded.sh`).
#![allow(unsafe_code)]

use core::ptr;
use mrtr::{bare, Limits, Protocol};
use mrtr_ffi_bare::tables::*;
use mrtr_ffi_bare::*;
use std::ffi::CStr;
use std::mem::MaybeUninit;

fn classify(msg: &[u8], protocol: mrtr_bare_protocol) -> mrtr_bare_classified {
    let mut out = MaybeUninit::<mrtr_bare_classified>::uninit();
    // SAFETY: a live slice, and room for the struct the call writes whole.
    let s = unsafe { mrtr_bare_classify(msg.as_ptr(), msg.len(), protocol, ptr::null(), out.as_mut_ptr()) };
    // SAFETY: written by the call (its `out` was not NULL).
    let out = unsafe { out.assume_init() };
    assert_eq!(s, out.rule);
    out
}

fn text(name: *const std::ffi::c_char) -> &'static str {
    // SAFETY: the library's names are static C strings.
    unsafe { CStr::from_ptr(name) }.to_str().unwrap()
}

#[test]
fn a_request_its_id_and_method() {
    let c = classify(br#"{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{}}"#, 0);
    assert_eq!(
        (c.rule, c.kind, c.id_type, c.has_method),
        (MRTR_BARE_OK, MRTR_BARE_KIND_REQUEST, MRTR_BARE_ID_STRING, true)
    );
    assert_eq!(&c.id_str[..c.id_str_len], b"a\"b");
    assert_eq!(&c.method[..c.method_len], b"tools/call");
    let result =
        br#"{"jsonrpc":"2.0","id":18446744073709551615,"result":{"resultType":"input_required","requestState":"s"}}"#;
    let c = classify(result, 0);
    assert_eq!((c.kind, c.id_type, c.id_uint), (MRTR_BARE_KIND_INPUT_REQUIRED, MRTR_BARE_ID_UINT, u64::MAX));
    assert_eq!(
        (c.result_type, c.result_type_present, c.has_method),
        (MRTR_BARE_RESULT_TYPE_INPUT_REQUIRED, true, false)
    );
}

#[test]
fn a_failure_is_its_rule_and_nothing_else() {
    let c = classify(br#"{"jsonrpc":"2.0","id":1"#, 0);
    assert_eq!(
        (c.rule, c.kind, c.id_type, c.has_method, c.id_str_len),
        (MRTR_BARE_ERR_JSONRPC_PARSE_ERROR, 0, 0, false, 0)
    );
    assert!(c.id_str.iter().chain(&c.method).all(|b| *b == 0));
    assert_eq!(text(mrtr_bare_rule_str(c.rule)), "jsonrpc-parse-error");
    assert_eq!(classify(b"", 0).rule, MRTR_BARE_ERR_JSONRPC_PARSE_ERROR);
    assert_eq!(classify(b"{}", 4).rule, MRTR_BARE_ERR_USAGE_INVALID_ARGUMENT);
    let long = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{}"}}"#, "m".repeat(65));
    assert_eq!(classify(long.as_bytes(), 0).rule, MRTR_BARE_ERR_LIMIT_EXCEEDED);
    let mut out = classify(b"{}", 0);
    // SAFETY: NULL with a length is refused before any read.
    let s = unsafe { mrtr_bare_classify(ptr::null(), 3, 0, ptr::null(), &mut out) };
    assert_eq!((s, out.rule), (MRTR_BARE_ERR_USAGE_INVALID_ARGUMENT, s));
    // SAFETY: a NULL `out` is refused before any write.
    let s = unsafe { mrtr_bare_classify(b"{}".as_ptr(), 2, 0, ptr::null(), ptr::null_mut()) };
    assert_eq!(s, MRTR_BARE_ERR_USAGE_INVALID_ARGUMENT);
    let tight = mrtr_bare_limits { max_message_bytes: 4, ..mrtr_bare_limits_default() };
    // SAFETY: a live slice, limits and struct.
    let s = unsafe { mrtr_bare_classify(b"{ }  ".as_ptr(), 5, 0, &tight, &mut out) };
    assert_eq!(s, MRTR_BARE_ERR_LIMIT_EXCEEDED);
}

#[test]
fn protocols_by_name_and_the_default() {
    let parse = |name: Option<&str>| {
        let mut p = -1;
        let (ptr, len) = name.map_or((ptr::null(), 0), |n| (n.as_ptr().cast(), n.len()));
        // SAFETY: a live string or NULL, and a live out.
        (unsafe { mrtr_bare_protocol_parse(ptr, len, &mut p) }, p)
    };
    assert_eq!(parse(None), (MRTR_BARE_OK, MRTR_BARE_PROTOCOL_2026_07_28));
    assert_eq!(parse(Some("sep-2322-draft")), (MRTR_BARE_OK, MRTR_BARE_PROTOCOL_SEP_2322_DRAFT));
    assert_eq!(parse(Some("2024-11-05")), (MRTR_BARE_ERR_JSONRPC_INVALID, -1));
    let mut p = -1;
    // SAFETY: one live byte, and a live out.
    let s = unsafe { mrtr_bare_protocol_parse([0xffu8].as_ptr().cast(), 1, &mut p) };
    assert_eq!((s, p), (MRTR_BARE_ERR_USAGE_INVALID_ARGUMENT, -1));
    for (i, p) in Protocol::ALL.iter().enumerate() {
        assert_eq!(parse(Some(p.name())), (MRTR_BARE_OK, i as mrtr_bare_protocol));
    }
}

#[test]
fn every_rule_and_kind_has_its_name() {
    for r in mrtr::rules::RULES {
        assert_eq!(text(mrtr_bare_rule_str(r.id as u16 as mrtr_bare_status)), r.name);
    }
    let rule = |c| text(mrtr_bare_rule_str(c));
    assert_eq!((rule(0), rule(-1), rule(9999)), ("ok", "unknown", "unknown"));
    let kind = |k| text(mrtr_bare_kind_str(k));
    assert_eq!((kind(0), kind(6), kind(-1)), ("none", "unknown", "unknown"));
    let messages: [&[u8]; 5] = [
        br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        br#"{"jsonrpc":"2.0","method":"ping"}"#,
        br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
        br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}"#,
        br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"m"}}"#,
    ];
    for m in messages {
        let core = bare::classify(m, Protocol::default(), &Limits::DEFAULT).unwrap();
        assert_eq!(kind(classify(m, 0).kind), core.kind.name());
    }
    assert_eq!(mrtr_bare_limits_default().max_depth, Limits::DEFAULT.max_depth);
}
