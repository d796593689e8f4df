//! Layer: readers: the strict reader, the rule engine's read trait, lenient views, event streams.
//!
//! A module here imports only from its own layer and the layers below
//! (`scripts/layers` checks it); `lib.rs` re-exports each at the crate root.

pub mod json;
#[cfg(feature = "alloc")]
pub mod sse;
pub mod validate;
#[cfg(feature = "alloc")]
pub mod view;
