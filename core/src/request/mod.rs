//! Layer: request rules: input requests, forms, retries, capabilities, dialects.
//!
//! A module here imports only from its own layer and the layers below
//! (`scripts/layers` checks it); `lib.rs` re-exports each at the crate root.

#[cfg(feature = "alloc")]
pub mod dialect;
#[cfg(feature = "alloc")]
pub mod form;
#[cfg(feature = "alloc")]
pub mod input;
#[cfg(feature = "alloc")]
pub mod message;
#[cfg(feature = "alloc")]
pub mod retry;
