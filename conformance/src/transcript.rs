//! Conversations as the corpus and `mrtr check` write them: entries
//! `{"from": "client"|"server", "message": …, "stream": …}`. The readers are
//! the core's ([`mrtr::check::Entry::from_value`], [`mrtr::check::read_jsonl`]).

use mrtr::check::{Entry, Line};
use serde_json::Value;

/// Reads one ENTRY object (a message entry).
pub fn entry(value: &Value) -> Result<Entry, String> {
    Entry::from_value(value).map_err(|e| e.message().to_string())
}

/// Reads one transcript line: a message entry or an HTTP entry.
pub fn line(value: &Value) -> Result<Line, String> {
    Line::from_value(value).map_err(|e| e.message().to_string())
}

/// Reads JSON Lines: one entry per non-blank line. Errors name the line (1-based).
pub fn read_jsonl(text: &str) -> Result<Vec<(usize, Line)>, (usize, String)> {
    mrtr::check::read_jsonl(text, &mrtr::Limits::default()).map_err(|(line, e)| (line, e.to_string()))
}
