//! Conversations as the corpus and `mrtr check` write them: entries
//! `{"from": "client"|"server", "message": …, "stream": …}`. The readers are
//! the core's ([`mrtr::check::Entry::from_value`], [`mrtr::check::read_jsonl`]).

use mrtr::check::Entry;
use serde_json::Value;

/// Reads one ENTRY object.
pub fn entry(value: &Value) -> Result<Entry, String> {
    Entry::from_value(value).map_err(|e| e.message().to_string())
}

/// Reads JSON Lines: one entry per non-blank line. Errors name the line (1-based).
pub fn read_jsonl(text: &str) -> Result<Vec<(usize, Entry)>, (usize, String)> {
    mrtr::check::read_jsonl(text, &mrtr::Limits::default()).map_err(|(line, e)| (line, e.to_string()))
}
