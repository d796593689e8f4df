//! Sealed state: mrtr's seal + open side by side with the floor, the bare
//! `aes-gcm` crate plus `base64` on the same bytes (no binding, no header).
//!
//! `KeyRing` with a `Binding` computes the binding tags at the seal and again
//! at the open; with a `Bound` (what a server resuming a request holds: it
//! opens the request's state and seals the next under one binding) once. Each
//! algorithm is timed the second way.

use aes_gcm::{
    aead::{AeadInOut, KeyInit},
    Aes256Gcm,
};
use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mrtr::state::{params_digest, Algorithm, Binding, Bound, Key, KeyRing, SeedRng, Subject};
use mrtr::Millis;
use mrtr::Protocol;
use serde_json::json;
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let ring = KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &[7; 32]));
    let bare = Aes256Gcm::new_from_slice(&[7; 32]).expect("a 32-byte key");
    let params = json!({"name": "get_weather", "arguments": {"location": "New York"}});
    let binding = Binding {
        subject: Subject::Principal("alice"),
        protocol: Protocol::default(),
        method: "tools/call",
        target: "get_weather",
        params_digest: params_digest(&params),
    };
    let nonce = [3u8; 12];
    for size in [512usize, 16 << 10] {
        let payload = vec![b'x'; size];
        let mut group = c.benchmark_group(format!("seal+open {size} B"));
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(BenchmarkId::new("mrtr KeyRing", size), |b| {
            b.iter(|| {
                let token = ring
                    .seal(&binding, Millis::from_secs(1000), 60, black_box(&payload), &mut SeedRng::Bytes(&[3; 24]))
                    .unwrap();
                black_box(ring.open(&token, &binding, Millis::from_secs(1001)).unwrap())
            })
        });
        for alg in Algorithm::ALL {
            let ring = KeyRing::new(Key::new(1, alg, &[7; 32]));
            group.bench_function(BenchmarkId::new(format!("mrtr KeyRing, Bound, {}", alg.name()), size), |b| {
                b.iter(|| {
                    let bound = Bound::new(binding.clone());
                    let rng = &mut SeedRng::Bytes(&[3; 24]);
                    let token = ring.seal(&bound, Millis::from_secs(1000), 60, black_box(&payload), rng).unwrap();
                    black_box(ring.open(&token, &bound, Millis::from_secs(1001)).unwrap())
                })
            });
        }
        group.bench_function(BenchmarkId::new("aes-gcm + base64", size), |b| {
            b.iter(|| {
                let mut buf = black_box(&payload).clone();
                bare.encrypt_in_place((&nonce).into(), b"", &mut buf).unwrap();
                let text = URL_SAFE_NO_PAD.encode(&buf);
                let mut back = URL_SAFE_NO_PAD.decode(&text).unwrap();
                bare.decrypt_in_place((&nonce).into(), b"", &mut back).unwrap();
                black_box(back)
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
