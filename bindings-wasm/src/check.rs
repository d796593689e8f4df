//! `check`: a whole recorded conversation, or one entry at a time (`Checker`).

use crate::convert::{self, LimitsInput};
use crate::errors::{self, Result};
use mrtr::check::{CheckConfig, Entry, Side, Violation};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

/// Settings of a check, as JSON text `{protocol?, maxRounds?, limits?}`.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct CheckConfigInput {
    protocol: Option<String>,
    max_rounds: Option<u32>,
    limits: Option<LimitsInput>,
}

fn config(text: Option<String>) -> Result<CheckConfig> {
    let input: CheckConfigInput = convert::settings(text)?.unwrap_or_default();
    let d = CheckConfig::default();
    Ok(CheckConfig {
        protocol: convert::protocol(input.protocol.as_deref())?,
        max_rounds: input.max_rounds.unwrap_or(d.max_rounds),
        limits: convert::limits(input.limits),
    })
}

/// One entry `{from: "client"|"server", message, stream?}`.
fn entry(value: Value) -> Result<Entry> {
    let Value::Object(mut o) = value else { return Err(errors::arg("an entry is an object")) };
    let from = match o.get("from").and_then(Value::as_str) {
        Some("client") => Side::Client,
        Some("server") => Side::Server,
        _ => return Err(errors::arg("an entry's \"from\" is \"client\" or \"server\"")),
    };
    let message = o.remove("message").ok_or_else(|| errors::arg("an entry needs a \"message\""))?;
    let stream = match o.remove("stream") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(_) => return Err(errors::arg("an entry's \"stream\" is a string")),
    };
    Ok(Entry { from, message, stream })
}

fn violations(v: &[Violation]) -> String {
    let list: Vec<Value> =
        v.iter().map(|v| json!({"rule": v.rule.name(), "index": v.index, "message": v.message})).collect();
    convert::text(&Value::Array(list))
}

/// Bounds on a transcript's text: no byte bound of its own (it holds many
/// messages), and each message may nest as deep as one message may, inside
/// the array and its entry object.
fn transcript_limits(config: &CheckConfig) -> mrtr::Limits {
    mrtr::Limits { max_message_bytes: usize::MAX, max_depth: config.limits.max_depth + 2, ..config.limits }
}

/// `check::check`: the violations of `transcript` (JSON text of an array of
/// entries) under `config` (JSON text), as JSON text `[{rule, index, message}, …]`.
#[wasm_bindgen(js_name = "check")]
pub fn check(transcript: &JsValue, config: Option<String>) -> Result<String> {
    let config = self::config(config)?;
    let Value::Array(items) = convert::parse_js(transcript, &transcript_limits(&config))? else {
        return Err(errors::arg("a transcript is an array of entries"));
    };
    let entries = items.into_iter().map(entry).collect::<Result<Vec<_>>>()?;
    Ok(violations(&mrtr::check::check(&entries, config)))
}

/// The incremental checker: `check::Checker`.
#[wasm_bindgen(js_name = "NativeChecker")]
pub struct Checker {
    inner: mrtr::check::Checker,
    limits: mrtr::Limits,
}

#[wasm_bindgen(js_class = "NativeChecker")]
impl Checker {
    /// A checker with `config` (JSON text).
    #[wasm_bindgen(constructor)]
    pub fn new(config: Option<String>) -> Result<Checker> {
        let config = self::config(config)?;
        Ok(Checker { inner: mrtr::check::Checker::new(config), limits: transcript_limits(&config) })
    }

    /// Checks the next entry (JSON text of one entry).
    pub fn handle(&mut self, entry: &JsValue) -> Result<()> {
        let entry = self::entry(convert::parse_js(entry, &self.limits)?)?;
        self.inner.handle(&entry);
        Ok(())
    }

    /// The violations so far, as JSON text.
    pub fn violations(&self) -> String {
        violations(self.inner.violations())
    }
}
