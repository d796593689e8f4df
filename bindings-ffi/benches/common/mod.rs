//! The core's three benchmark messages (`core/benches/shared/messages.rs`, the same
//! bytes the core's `validate` bench measures), and a notification.

#[path = "../../../core/benches/shared/messages.rs"]
mod messages;

pub use messages::{input_required_large, input_required_small, retry_request};
use serde_json::{json, Value};

/// A ~50-byte notification: there the fixed cost of a call shows.
pub fn notification() -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
}
