//! Layer: server rounds: sealed rounds, await-style replay, the 2025-11-25 bridge.
//!
//! A module here imports only from its own layer and the layers below
//! (`scripts/layers` checks it); `lib.rs` re-exports each at the crate root.

#[cfg(feature = "state")]
pub mod round;
