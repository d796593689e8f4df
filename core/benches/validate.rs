//! `mrtr::classify` and the no-allocator `mrtr::bare::classify` (one reader,
//! one set of rules; the allocating one also notes where large containers
//! end) against a plain `serde_json::Value` parse, side by side, on three
//! representative MRTR messages built deterministically at startup:
//!
//! - `retry_request` (~0.6 KB): a `tools/call` retry with `_meta`, `arguments`,
//!   two `inputResponses` and a `requestState`;
//! - `input_required_small` (~1 KB): an `input_required` result with a form
//!   elicitation, a sampling request and a roots request;
//! - `input_required_large` (~34 KB): 64 mixed input requests and a 16 KiB
//!   `requestState`.
//!
//! The goal is `classify` ≤ 0.8× the `Value` parse on each message (`bare` has
//! no speed goal: it is measured for the embedded figures).
//!
//! Run: `cargo bench -p mrtr --bench validate -- --warm-up-time 1 --measurement-time 3`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mrtr::{classify, Kind, Limits, Protocol};
use serde_json::Value;
use std::hint::black_box;

#[path = "shared/messages.rs"]
mod messages;
use messages::{input_required_large, input_required_small, retry_request};

fn bench_message(c: &mut Criterion, name: &str, message: &Value, expected: Kind) {
    let bytes = serde_json::to_vec(message).expect("serializes");
    let limits = Limits::default();
    let protocol = Protocol::V2026_07_28;
    // Outside the timed loop: the message is what it claims to be.
    let classified = classify(&bytes, protocol, &limits).unwrap_or_else(|e| panic!("{name}: classify failed: {e}"));
    assert_eq!(classified.kind, expected, "{name}");
    serde_json::from_slice::<Value>(&bytes).expect("parses");
    eprintln!("{name}: {} bytes", bytes.len());

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("classify", |b| {
        b.iter(|| classify(black_box(&bytes), black_box(protocol), black_box(&limits)).map(|c| c.kind))
    });
    group.bench_function("bare_classify", |b| {
        b.iter(|| mrtr::bare::classify(black_box(&bytes), black_box(protocol), black_box(&limits)).map(|c| c.kind))
    });
    group.bench_function("serde_json_value", |b| b.iter(|| serde_json::from_slice::<Value>(black_box(&bytes))));
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_message(c, "retry_request", &retry_request(), Kind::Request);
    bench_message(c, "input_required_small", &input_required_small(), Kind::InputRequired);
    bench_message(c, "input_required_large", &input_required_large(), Kind::InputRequired);
}

criterion_group!(validate, benches);
criterion_main!(validate);
