//! Conversations as the corpus and `mrtr check` write them: entries
//! `{"from": "client"|"server", "message": …, "stream": …}`.

use mrtr::check::{Entry, Side};
use serde_json::Value;

/// Reads one ENTRY object.
pub fn entry(value: &Value) -> Result<Entry, String> {
    let from = match value.get("from").and_then(Value::as_str) {
        Some("client") => Side::Client,
        Some("server") => Side::Server,
        _ => return Err("\"from\" must be \"client\" or \"server\"".into()),
    };
    let message = value.get("message").cloned().ok_or("an entry needs a \"message\"")?;
    let stream = match value.get("stream") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err("\"stream\" must be a string".into()),
    };
    Ok(Entry { from, message, stream })
}

/// Reads JSON Lines: one entry per non-blank line. Errors name the line (1-based).
pub fn read_jsonl(text: &str) -> Result<Vec<(usize, Entry)>, (usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).map_err(|e| (i + 1, e.to_string()))?;
        out.push((i + 1, entry(&value).map_err(|e| (i + 1, e))?));
    }
    Ok(out)
}
