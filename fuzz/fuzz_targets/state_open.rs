//! Opening attacker-controlled `requestState`: any bytes, as a token or as a
//! sealed token with damage, must be refused with a `state-*` rule, never panic.
#![no_main]

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use libfuzzer_sys::fuzz_target;
use mrtr::state::{params_digest, Algorithm, Binding, Key, KeyRing, MemoryGuard, SeedRng, Subject};
use mrtr::{Millis, Protocol};

fuzz_target!(|data: &[u8]| {
    let mut ring = KeyRing::new(Key::new(1, Algorithm::Aes256Gcm, &[1; 32]));
    ring.add(Key::new(2, Algorithm::XChaCha20Poly1305, &[2; 32]));
    let params = serde_json::json!({"name": "t", "arguments": {"q": 1}});
    let binding = Binding {
        subject: Subject::Principal("s"),
        protocol: Protocol::default(),
        method: "tools/call",
        target: "t",
        params_digest: params_digest(&params),
    };
    // The bytes as a token.
    if let Ok(text) = core::str::from_utf8(data) {
        if let Err(e) = ring.open(text, &binding, Millis::from_secs(10)) {
            assert!(e.rule().name().starts_with("state-"));
        }
    }
    // A valid token with the bytes spliced in: XOR over its decoded form.
    let nonce_len = if data.first().is_some_and(|b| b & 1 == 1) { 24 } else { 12 };
    if nonce_len == 24 {
        ring.set_current(2);
    }
    let Ok(token) = ring.seal(&binding, Millis(0), 100, b"payload", &mut SeedRng::Bytes(&[7; 24])) else { return };
    let Ok(mut raw) = URL_SAFE_NO_PAD.decode(&token) else { return };
    let len = raw.len().max(1);
    for (i, b) in data.iter().enumerate().skip(1) {
        if let Some(slot) = raw.get_mut(i % len) {
            *slot ^= b;
        }
    }
    let damaged = URL_SAFE_NO_PAD.encode(&raw);
    // Under a replay guard: a damaged token never reaches the guard, the intact one once.
    let mut guard = MemoryGuard::new();
    for _ in 0..2 {
        match ring.open_once(&damaged, &binding, Millis::from_secs(10), &mut guard) {
            Ok(opened) => assert!(damaged == token && opened.payload == b"payload" && guard.len() == 1),
            Err(e) => assert!(e.rule().name().starts_with("state-")),
        }
    }
    assert!(guard.len() <= 1 && (guard.is_empty() || damaged == token));
});
