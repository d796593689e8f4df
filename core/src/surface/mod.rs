//! Layer: host surfaces: one JSON shape, the bindings' facade.
//!
//! A module here imports only from its own layer and the layers below
//! (`scripts/layers` checks it); `lib.rs` re-exports each at the crate root.

#[cfg(feature = "facade")]
pub mod facade;
#[cfg(feature = "serde")]
pub mod wire;
