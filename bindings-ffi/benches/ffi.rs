//! The FFI overhead per call: `classify` of the core's three benchmark
//! messages (built as `core/benches/validate.rs` builds them), and of a
//! ~50-byte notification where the fixed cost of a call shows, through the C
//! API against the Rust core directly, side by side in one run:
//!
//! - `rust_core`: `mrtr::classify` (no binding);
//! - `c_api`: `mrtr_classify` through an `extern "C"` function pointer (the
//!   panic boundary, the thread-local last error, the C struct out);
//! - `c_api_json`: `mrtr_classify_json` and `mrtr_buf_free` (the JSON out,
//!   allocated and freed).
//!
//! After criterion's groups it prints a Markdown table measured the other way
//! round: the variants interleaved in many short batches, each keeping its
//! fastest batch, so that a busy machine (other builds on two cores) slows
//! them alike and the difference is the binding's own cost.
//!
//! Run: `cargo bench -p mrtr-ffi --bench ffi -- --warm-up-time 1 --measurement-time 3`;
//! only the table: `MRTR_FFI_TABLE_ONLY=1 cargo bench -p mrtr-ffi --bench ffi`.

// Calling the C ABI is what this bench measures.
#![allow(unsafe_code)]

mod common;

use common::{input_required_large, input_required_small, notification, retry_request};
use criterion::{Criterion, Throughput};
use mrtr::{classify, Kind, Limits, Protocol};
use mrtr_ffi::buf::{mrtr_buf, mrtr_buf_free};
use mrtr_ffi::ops::{mrtr_classify, mrtr_classify_json};
use mrtr_ffi::status::{mrtr_status, MRTR_OK};
use mrtr_ffi::tables::mrtr_protocol;
use mrtr_ffi::types::{mrtr_classified, mrtr_limits};
use serde_json::Value;
use std::ffi::c_char;
use std::hint::black_box;
use std::time::Instant;

type Classify =
    unsafe extern "C" fn(*const c_char, usize, mrtr_protocol, *const mrtr_limits, *mut mrtr_classified) -> mrtr_status;
type ClassifyJson =
    unsafe extern "C" fn(*const c_char, usize, mrtr_protocol, *const mrtr_limits, *mut mrtr_buf) -> mrtr_status;

fn bench_message(c: &mut Criterion, name: &str, message: &Value, expected: Kind) {
    let bytes = serde_json::to_vec(message).expect("serializes");
    let limits = Limits::default();
    let protocol = Protocol::V2026_07_28;
    assert_eq!(classify(&bytes, protocol, &limits).expect("classifies").kind, expected, "{name}");
    // Through a function pointer the optimiser cannot see through, as a C caller calls.
    let c_classify: Classify = black_box(mrtr_classify);
    let c_classify_json: ClassifyJson = black_box(mrtr_classify_json);
    let mut out =
        mrtr_classified { kind: 0, result_type: 0, result_type_present: false, id_type: 0, id_int: 0, id_uint: 0 };
    // SAFETY: `bytes` is valid for its length; `out` is writable; NULL limits are the defaults.
    let status = unsafe { c_classify(bytes.as_ptr().cast(), bytes.len(), 0, std::ptr::null(), &mut out) };
    assert_eq!(status, MRTR_OK, "{name}");
    eprintln!("{name}: {} bytes", bytes.len());

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("rust_core", |b| {
        b.iter(|| classify(black_box(&bytes), black_box(protocol), black_box(&limits)).map(|c| c.kind))
    });
    group.bench_function("c_api", |b| {
        b.iter(|| {
            let bytes = black_box(&bytes);
            // SAFETY: as above.
            let status = unsafe { c_classify(bytes.as_ptr().cast(), bytes.len(), 0, std::ptr::null(), &mut out) };
            (status, out.kind)
        })
    });
    group.bench_function("c_api_json", |b| {
        b.iter(|| {
            let bytes = black_box(&bytes);
            let mut buf = mrtr_buf::EMPTY;
            // SAFETY: as above; `buf` is writable, then freed exactly as returned.
            unsafe {
                let status = c_classify_json(bytes.as_ptr().cast(), bytes.len(), 0, std::ptr::null(), &mut buf);
                let len = buf.len;
                mrtr_buf_free(&mut buf);
                (status, len)
            }
        })
    });
    group.finish();
}

/// `classify` through the core, the C API, and the C API with JSON out.
struct Variants {
    bytes: Vec<u8>,
    c_classify: Classify,
    c_classify_json: ClassifyJson,
}

impl Variants {
    fn run(&self, variant: usize) -> usize {
        let bytes = black_box(&self.bytes);
        match variant {
            0 => classify(bytes, Protocol::V2026_07_28, &Limits::DEFAULT).map_or(0, |c| c.kind as usize),
            1 => {
                let mut out = mrtr_classified {
                    kind: 0,
                    result_type: 0,
                    result_type_present: false,
                    id_type: 0,
                    id_int: 0,
                    id_uint: 0,
                };
                // SAFETY: `bytes` is valid for its length; `out` is writable; NULL limits are the defaults.
                let status =
                    unsafe { (self.c_classify)(bytes.as_ptr().cast(), bytes.len(), 0, std::ptr::null(), &mut out) };
                status as usize + out.kind as usize
            }
            _ => {
                let mut buf = mrtr_buf::EMPTY;
                // SAFETY: as above; `buf` is writable, then freed exactly as returned.
                unsafe {
                    let status =
                        (self.c_classify_json)(bytes.as_ptr().cast(), bytes.len(), 0, std::ptr::null(), &mut buf);
                    let len = buf.len;
                    mrtr_buf_free(&mut buf);
                    status as usize + len
                }
            }
        }
    }

    /// Seconds per call over a batch of `n` calls.
    fn batch(&self, variant: usize, n: u32) -> f64 {
        let start = Instant::now();
        for _ in 0..n {
            black_box(self.run(variant));
        }
        start.elapsed().as_secs_f64() / f64::from(n)
    }
}

fn duration(seconds: f64) -> String {
    if seconds < 1e-6 {
        format!("{:.0} ns", seconds * 1e9)
    } else {
        format!("{:.2} µs", seconds * 1e6)
    }
}

/// The interleaved table: 300 rounds of ~1 ms batches per variant, in rotating order; the fastest batch of each.
fn overhead_table(messages: &[(&str, Value)]) {
    println!();
    println!("| message | bytes | Rust core `mrtr::classify` | C API `mrtr_classify` | overhead | C API `mrtr_classify_json` + `mrtr_buf_free` | overhead |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, message) in messages {
        let v = Variants {
            bytes: serde_json::to_vec(message).expect("serializes"),
            c_classify: black_box(mrtr_classify),
            c_classify_json: black_box(mrtr_classify_json),
        };
        let n = ((1e-3 / v.batch(0, 50).max(1e-9)) as u32).clamp(1, 1_000_000);
        let mut best = [f64::MAX; 3];
        for round in 0..300 {
            for k in 0..3 {
                let variant = (round + k) % 3;
                best[variant] = best[variant].min(v.batch(variant, n));
            }
        }
        let over = |t: f64| format!("{:+.0} ns ({:+.1}%)", (t - best[0]) * 1e9, (t / best[0] - 1.0) * 100.0);
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} |",
            v.bytes.len(),
            duration(best[0]),
            duration(best[1]),
            over(best[1]),
            duration(best[2]),
            over(best[2])
        );
    }
}

fn main() {
    let messages = [
        ("notification", notification(), Kind::Notification),
        ("retry_request", retry_request(), Kind::Request),
        ("input_required_small", input_required_small(), Kind::InputRequired),
        ("input_required_large", input_required_large(), Kind::InputRequired),
    ];
    let args: Vec<String> = std::env::args().collect();
    if std::env::var_os("MRTR_FFI_TABLE_ONLY").is_none() {
        let mut c = Criterion::default().configure_from_args();
        for (name, message, kind) in &messages {
            bench_message(&mut c, name, message, *kind);
        }
        c.final_summary();
    }
    // `cargo test --benches` runs each bench once in test mode: no table then.
    if !args.iter().any(|a| a == "--test" || a == "--list") {
        let messages: Vec<(&str, Value)> = messages.into_iter().map(|(n, m, _)| (n, m)).collect();
        overhead_table(&messages);
    }
}
