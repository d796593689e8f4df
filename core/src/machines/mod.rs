//! Layer: machines: the client, the server's builders, HTTP in every transport.
//!
//! A module here imports only from its own layer and the layers below
//! (`scripts/layers` checks it); `lib.rs` re-exports each at the crate root.

#[cfg(feature = "alloc")]
pub mod client;
#[cfg(feature = "alloc")]
pub mod gateway;
#[cfg(feature = "alloc")]
pub mod http;
#[cfg(feature = "alloc")]
pub mod server;
