//! The kinds a value crosses a binding as, named as types.
//!
//! An exported function's signature is its row of the export table
//! ([`crate::exports`]): the build script reads each parameter's kind from
//! the type written there. Several kinds are the same Rust type (`&[u8]` is
//! JSON text, raw bytes or header fields), and a binding converts each
//! differently, so each kind has its own name here; the names are aliases,
//! so a caller in Rust passes the plain type.

use mrtr::state::ReplayGuard;

/// JSON text (or its UTF-8 bytes) the facade reads ([`crate::exports::Arg::Text`]).
pub type JsonText<'a> = &'a [u8];
/// JSON text that may be absent ([`crate::exports::Arg::OptText`]).
pub type OptJsonText<'a> = Option<&'a [u8]>;
/// A JSON value, such as an id: JSON text at the native level, a language's
/// own value in its idiom ([`crate::exports::Arg::Value`]).
pub type JsonValue<'a> = &'a [u8];
/// A JSON value that may be absent ([`crate::exports::Arg::OptValue`]).
pub type OptJsonValue<'a> = Option<&'a [u8]>;
/// Header fields as a JSON object of names to strings, empty for none
/// ([`crate::exports::Arg::Headers`]): a language's map in its idiom.
pub type HeaderFields<'a> = &'a [u8];
/// Raw bytes, not read as JSON (a body chunk, a token, a label)
/// ([`crate::exports::Arg::Bytes`]).
pub type RawBytes<'a> = &'a [u8];
/// Raw bytes that may be absent (a key's secret) ([`crate::exports::Arg::OptBytes`]).
pub type OptRawBytes<'a> = Option<&'a [u8]>;
/// JSON text where none is the empty text (a machine's settings)
/// ([`crate::exports::Arg::OrEmpty`]).
pub type JsonOrEmpty<'a> = &'a [u8];
/// A time in milliseconds, an exchange number or a count: a whole number
/// below 2^53, which every language's numbers hold ([`crate::exports::Arg::Whole`]).
pub type Whole = u64;
/// A key's id, 0–255 (a larger id names no key) ([`crate::exports::Arg::KeyId`]).
pub type KeyId = u64;
/// An HTTP status ([`crate::exports::Arg::Status`]).
pub type Status = u16;
/// A handle a machine gave out ([`crate::exports::Arg::Handle`]).
pub type Handle = u64;
/// The host's replay guard, or none ([`crate::exports::Arg::Guard`]).
pub type Guard<'a> = Option<&'a mut dyn ReplayGuard>;

/// JSON text the facade wrote: a language's own value in its idiom
/// ([`crate::exports::Ret::Json`]); a plain `String` is text that is no JSON.
pub type JsonString = alloc::string::String;
/// A small count ([`crate::exports::Ret::Count`]).
pub type Count = u32;
/// A time in milliseconds, or none ([`crate::exports::Ret::OptMillis`]).
pub type OptMillis = Option<u64>;
/// A whole number, or none ([`crate::exports::Ret::OptWhole`]).
pub type OptWhole = Option<u64>;
/// A SHA-256 digest ([`crate::exports::Ret::Bytes`]).
pub type Digest = [u8; 32];
