//! Layer: one message: classify and parse, with and without an allocator.
//!
//! A module here imports only from its own layer and the layers below
//! (`scripts/layers` checks it); `lib.rs` re-exports each at the crate root.

pub mod bare;
#[cfg(feature = "alloc")]
pub mod envelope;
