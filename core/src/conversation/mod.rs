//! Layer: conversation checker: messages, HTTP entries, HTTP Archives.
//!
//! A module here imports only from its own layer and the layers below
//! (`scripts/layers` checks it); `lib.rs` re-exports each at the crate root.

#[cfg(feature = "alloc")]
pub mod check;
#[cfg(feature = "state")]
pub mod har;
