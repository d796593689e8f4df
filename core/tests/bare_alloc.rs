//! `mrtr::bare::classify` allocates nothing: a counting global allocator sees
//! no allocation on this thread while it classifies requests, notifications,
//! results, `input_required` results and errors, nor while it refuses bad input.
//!
//! (The crate is built with `alloc` here, since tests link std; the bare path
//! must not use it. The `--no-default-features` builds show it compiles without.)

use mrtr::{bare, Limits, Protocol};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: the slot may be gone while the thread shuts down.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

const MESSAGES: &[(&str, &str)] = &[
    (
        "request",
        r#"{"jsonrpc":"2.0","id":"r\u00e9-1","method":"tools/call","params":{"name":"w","arguments":{"a":[1,2.5,{"b":null}]},"inputResponses":{"k":{"action":"accept","content":{"x":1}}},"requestState":"s"}}"#,
    ),
    ("notification", r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1e-3}}"#),
    (
        "result",
        r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"\ud83d\ude00"}]}}"#,
    ),
    (
        "input_required",
        r#"{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","requestState":"opaque","inputRequests":{"f":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"string","format":"email"},"t":{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}},"required":["n"]}}},"s":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"x"}}],"maxTokens":1.0}},"r":{"method":"roots/list"}}}}"#,
    ),
    ("error", r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600.0,"message":"Invalid Request"}}"#),
    ("float edge", r#"{"jsonrpc":"2.0","id":4,"error":{"code":0.99999999999999999999,"message":"m"}}"#),
    ("range edge", r#"{"jsonrpc":"2.0","id":4,"error":{"code":1.7976931348623157e308,"message":"m"}}"#),
    ("parse error", r#"{"jsonrpc":"2.0","id":01}"#),
    ("duplicate key", r#"{"jsonrpc":"2.0","method":"m","x":{"a":1,"a":2}}"#),
    (
        "invalid input request",
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"x","params":{}}}}}"#,
    ),
];

#[test]
fn classify_allocates_nothing() {
    // Warm up the thread-local slot and anything lazily set up by the harness.
    let _ = allocations_during(|| {});
    for protocol in Protocol::ALL {
        for (name, msg) in MESSAGES {
            let mut outcome = None;
            let n = allocations_during(|| {
                let result = bare::classify(msg.as_bytes(), protocol, &Limits::default());
                outcome = Some(result.as_ref().map(|c| c.kind).map_err(|e| e.rule()));
                drop(result);
            });
            assert_eq!(n, 0, "{name} under {protocol}: {n} allocations ({outcome:?})");
        }
    }
    // The counter does see allocations, the allocating path's among them (so a
    // zero above means something).
    assert!(allocations_during(|| drop(std::hint::black_box(vec![1u8; 16]))) > 0);
    let msg = MESSAGES[3].1.as_bytes();
    assert!(allocations_during(|| drop(mrtr::classify(msg, Protocol::default(), &Limits::default()))) > 0);
}

#[test]
fn the_three_kinds_are_classified() {
    let kinds: Vec<_> = MESSAGES[..5]
        .iter()
        .map(|(_, m)| bare::classify(m.as_bytes(), Protocol::default(), &Limits::default()).unwrap().kind)
        .collect();
    use bare::Kind::*;
    assert_eq!(kinds, [Request, Notification, Result, InputRequired, Error]);
}
