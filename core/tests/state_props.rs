//! Property tests of sealed state: any damage to a token is refused with the
//! right rule and never panics; a token opens only for the principal, the
//! request and the time it was sealed for.
#![cfg(feature = "state")]

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use mrtr::state::{overhead, params_digest, Algorithm, Binding, Key, KeyRing, SeedRng, Subject};
use mrtr::Millis;
use mrtr::{Protocol, RuleId};
use proptest::prelude::*;
use serde_json::json;

const NOW: u64 = 1_700_000_000;
const TTL: u32 = 300;

fn ring(alg: Algorithm) -> KeyRing {
    KeyRing::new(Key::new(1, alg, &[42; 32]))
}

fn binding<'a>(subject: &'a str, target: &'a str, args: &serde_json::Value) -> Binding<'a> {
    let args = json!({"name": target, "arguments": args});
    let args = &args;
    Binding {
        subject: Subject::Principal(subject),
        protocol: Protocol::default(),
        method: "tools/call",
        target,
        params_digest: params_digest(args),
    }
}

fn seal(ring: &KeyRing, _alg: Algorithm, b: &Binding<'_>, payload: &[u8], nonce_seed: u8) -> Vec<u8> {
    let token = ring.seal(b, Millis::from_secs(NOW), TTL, payload, &mut SeedRng::Bytes(&[nonce_seed; 24])).unwrap();
    URL_SAFE_NO_PAD.decode(token).unwrap()
}

fn algs() -> impl Strategy<Value = Algorithm> {
    prop_oneof![Just(Algorithm::Aes256Gcm), Just(Algorithm::XChaCha20Poly1305)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn round_trips_any_payload(alg in algs(), payload in proptest::collection::vec(any::<u8>(), 0..2048), seed in any::<u8>()) {
        let r = ring(alg);
        let b = binding("alice", "t", &json!({"a": 1}));
        let raw = seal(&r, alg, &b, &payload, seed);
        prop_assert_eq!(raw.len(), payload.len() + overhead(alg));
        prop_assert_eq!(r.open(URL_SAFE_NO_PAD.encode(&raw), &b, Millis::from_secs(NOW)).unwrap().payload, payload);
    }

    #[test]
    fn any_single_bit_flip_is_refused_with_the_rule_of_its_field(alg in algs(), payload in proptest::collection::vec(any::<u8>(), 0..256), bit in any::<prop::sample::Index>()) {
        let r = ring(alg);
        let b = binding("alice", "t", &json!({}));
        let mut raw = seal(&r, alg, &b, &payload, 7);
        let bit = bit.index(raw.len() * 8);
        raw[bit / 8] ^= 1 << (bit % 8);
        let rule = r.open(URL_SAFE_NO_PAD.encode(&raw), &b, Millis::from_secs(NOW)).unwrap_err().rule();
        let want = match bit / 8 {
            0 if bit % 8 >= 4 => vec![RuleId::StateMalformed],           // the format version
            0 => vec![RuleId::StateMalformed, RuleId::StateTampered],     // the algorithm: unknown, or not the key's
            1 => vec![RuleId::StateUnknownKey],                           // the key id
            _ => vec![RuleId::StateTampered],                             // everything the AEAD authenticates
        };
        prop_assert!(want.contains(&rule), "bit {} gave {:?}", bit, rule);
    }

    #[test]
    fn truncation_extension_and_garbage_are_refused(alg in algs(), cut in 0usize..80, extra in proptest::collection::vec(any::<u8>(), 1..8), garbage in ".{0,200}") {
        let r = ring(alg);
        let b = binding("alice", "t", &json!({}));
        let raw = seal(&r, alg, &b, b"payload", 3);
        let short = &raw[..cut.min(raw.len() - 1)];
        let rule = r.open(URL_SAFE_NO_PAD.encode(short), &b, Millis::from_secs(NOW)).unwrap_err().rule();
        prop_assert!(matches!(rule, RuleId::StateMalformed | RuleId::StateTampered), "{:?}", rule);
        let mut long = raw.clone();
        long.extend(&extra);
        prop_assert_eq!(r.open(URL_SAFE_NO_PAD.encode(&long), &b, Millis::from_secs(NOW)).unwrap_err().rule(), RuleId::StateTampered);
        let err = r.open(&garbage, &b, Millis::from_secs(NOW)).unwrap_err();
        prop_assert!(err.rule().name().starts_with("state-"));
        prop_assert_eq!(err.code(), Some(-32602));
    }

    #[test]
    fn re_encoding_is_refused(alg in algs()) {
        let r = ring(alg);
        let b = binding("alice", "t", &json!({}));
        let raw = seal(&r, alg, &b, b"payload", 9);
        let standard = base64::engine::general_purpose::STANDARD.encode(&raw);
        let padded = base64::engine::general_purpose::URL_SAFE.encode(&raw);
        for other in [standard, padded] {
            let opened = r.open(&other, &b, Millis::from_secs(NOW));
            prop_assert!(opened.is_ok() == (other == URL_SAFE_NO_PAD.encode(&raw)));
        }
    }

    #[test]
    fn opens_only_for_its_subject_tool_arguments_and_time(alg in algs(), a in "[a-z]{1,12}", b_ in "[a-z]{1,12}", x in any::<i64>(), y in any::<i64>(), late in 0u64..10_000) {
        let r = ring(alg);
        let (args_a, args_b) = (json!({"n": x}), json!({"n": y}));
        let sealed = URL_SAFE_NO_PAD.encode(seal(&r, alg, &binding(&a, "tool-x", &args_a), b"p", 1));
        let rule = |b: Binding<'_>, now| r.open(&sealed, &b, now).map(|_| ()).map_err(|e| e.rule());
        prop_assert_eq!(rule(binding(&a, "tool-x", &args_a), Millis::from_secs(NOW)), Ok(()));
        if a != b_ {
            prop_assert_eq!(rule(binding(&b_, "tool-x", &args_a), Millis::from_secs(NOW)), Err(RuleId::StateWrongSubject));
        }
        prop_assert_eq!(rule(binding(&a, "tool-y", &args_a), Millis::from_secs(NOW)), Err(RuleId::StateWrongRequest));
        if x != y {
            prop_assert_eq!(rule(binding(&a, "tool-x", &args_b), Millis::from_secs(NOW)), Err(RuleId::StateWrongRequest));
        }
        let at = NOW + u64::from(TTL);
        prop_assert_eq!(rule(binding(&a, "tool-x", &args_a), Millis::from_secs(at - 1)), Ok(()));
        prop_assert_eq!(rule(binding(&a, "tool-x", &args_a), Millis::from_secs(at + late)), Err(RuleId::StateExpired));
    }
}

/// Any JSON a `serde_json::Value` holds exactly: integers in i64/u64, finite
/// floats, strings with any code point, nested arrays and objects.
fn json_values() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(|b| json!(b)),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        "\\PC{0,12}".prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            proptest::collection::btree_map("\\PC{0,8}", inner, 0..6)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn the_exact_digest_of_a_request_text_equals_the_digest_of_its_value(params in json_values(), pretty in any::<bool>()) {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": params}});
        let text = if pretty { serde_json::to_string_pretty(&request) } else { serde_json::to_string(&request) }.unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        prop_assert_eq!(mrtr::state::params_digest_text(text.as_bytes()).unwrap(), params_digest(&parsed["params"]));
    }
}
