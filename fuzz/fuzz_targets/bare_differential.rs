//! Any bytes, under every protocol and two sets of limits: the no-allocator
//! path (`mrtr::bare::classify`), the allocating one (`mrtr::classify`) and
//! the `Value` path (`mrtr::parse`, then `mrtr::classify_value` through the
//! views) give the same verdict: the same kind, id, method and result type,
//! or the same rule. The comparison is the core's differential tests' own
//! (`core/tests/bare_common`), whose one allowance is a bare failure at a
//! documented fixed capacity.
#![no_main]

#[path = "../../core/tests/bare_common/mod.rs"]
mod bare_common;

use libfuzzer_sys::fuzz_target;
use mrtr::Protocol;

fuzz_target!(|data: &[u8]| {
    for limits in bare_common::limit_sets() {
        for protocol in Protocol::ALL {
            if let Some(difference) = bare_common::differ(data, protocol, &limits) {
                panic!("the paths disagree: {difference}");
            }
        }
    }
});
