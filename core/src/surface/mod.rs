//! Layer: host surfaces: one JSON shape for every output (the bindings' facade is the crate
//! `mrtr-facade`, above this one).
//!
//! A module here imports only from its own layer and the layers below
//! (`scripts/layers` checks it); `lib.rs` re-exports each at the crate root.

#[cfg(feature = "serde")]
pub mod wire;
