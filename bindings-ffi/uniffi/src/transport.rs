//! The transports over the façade (`mrtr_facade`): the event-stream decoder
//! and encoder, the client machine of one call over HTTP, the server's
//! response stream and what an incoming HTTP request asks.
//!
//! Messages cross as JSON text, header fields as maps (names in any case on
//! the way in, lower-case on the way out), bodies and stream bytes as bytes.
//! Modes are named as in a call's configuration: `2026-07-28`, `2025-11-25`,
//! `sep-1858`, `sep-1335`.

use crate::error::{guard, Result};
use mrtr_facade as facade;
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// Header fields as the façade reads them: a JSON object (names sorted, so
/// that the text is the same whatever the host map's order).
pub(crate) fn headers_json(headers: HashMap<String, String>) -> Vec<u8> {
    let sorted: BTreeMap<String, String> = headers.into_iter().collect();
    // A map of strings always serializes.
    serde_json::to_vec(&sorted).unwrap_or_default()
}

/// A digest as the façade's JSON spells it, 64 hex digits (`#[serde(with)]` of
/// a record's bytes): written as lowercase hex, read back from any hex.
pub(crate) mod hex {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        let digit = |c: u8| (c as char).to_digit(16).map(|v| v as u8).ok_or_else(|| D::Error::custom("not hex"));
        text.as_bytes().chunks(2).map(|p| Ok(digit(p[0])? << 4 | digit(*p.get(1).unwrap_or(&b'x'))?)).collect()
    }
}

/// A record as the JSON text the façade reads (its fields are strings and numbers: it always serializes).
pub(crate) fn json_of<T: Serialize>(record: &T) -> Vec<u8> {
    serde_json::to_vec(record).unwrap_or_default()
}

/// An optional JSON value of the façade's output as JSON text.
pub(crate) fn json_text_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Option::<serde_json::Value>::deserialize(d).map(|v| v.map(|v| v.to_string()))
}

/// A JSON array of the façade's output as one JSON text per element.
pub(crate) fn json_texts<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Vec::<serde_json::Value>::deserialize(d).map(|vs| vs.iter().map(serde_json::Value::to_string).collect())
}

/// The incremental event-stream (`text/event-stream`) decoder: [`feed`](SseDecoder::feed)
/// bytes in any chunking, [`finish`](SseDecoder::finish) at the end of the
/// stream, and take the blocks with [`poll_event`](SseDecoder::poll_event).
#[derive(uniffi::Object)]
pub struct SseDecoder {
    pub(crate) inner: Mutex<facade::SseDecoder>,
}

#[uniffi::export]
impl SseDecoder {
    /// A decoder bounding each block by `max_block_bytes` (line bytes; absent:
    /// the core's 16 MiB bound of a message).
    #[uniffi::constructor(default(max_block_bytes = None))]
    pub fn new(max_block_bytes: Option<i64>) -> Result<Arc<SseDecoder>> {
        guard(|| {
            let mut o = facade::Options::default();
            if let Some(n) = crate::ints::unsigned_opt::<u64>(max_block_bytes, "max_block_bytes")? {
                o.limits.max_message_bytes = usize::try_from(n).unwrap_or(usize::MAX);
            }
            Ok(Arc::new(SseDecoder { inner: Mutex::new(facade::SseDecoder::new(&o)) }))
        })
    }
}
