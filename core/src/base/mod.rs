//! Layer: base: ids, errors, bounds, the protocol and task tables.
//!
//! A module here imports only from its own layer and the layers below
//! (`scripts/layers` checks it); `lib.rs` re-exports each at the crate root.

pub mod error;
pub mod kind;
pub mod limits;
pub mod protocol;
pub mod rules;
pub mod settings;
pub mod tasks;
pub mod time;
