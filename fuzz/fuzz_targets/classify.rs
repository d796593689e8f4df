//! Any bytes, classified under every protocol and two sets of limits: it
//! returns, and a failure carries a catalogued rule.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr::{classify, classify_value, Limits, Protocol};

const TIGHT: Limits =
    Limits { max_message_bytes: 4096, max_depth: 8, max_input_requests: 2, max_request_state_bytes: 16 };

fuzz_target!(|data: &[u8]| {
    let value = serde_json::from_slice::<serde_json::Value>(data).ok();
    for protocol in Protocol::ALL {
        for limits in [Limits::DEFAULT, TIGHT] {
            let outcome = classify(data, protocol, &limits);
            if let Err(e) = &outcome {
                assert_eq!(e.code(), e.rule().info().code, "{e}");
            }
            // What a Value holds, classify_value reads; with default limits it
            // agrees with classify wherever the bytes have no duplicate keys.
            if let Some(v) = &value {
                let _ = classify_value(v, protocol, &limits);
            }
        }
    }
});
