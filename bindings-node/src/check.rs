//! `check`: a whole recorded conversation, or one entry at a time (`Checker`).

use crate::convert::{self, LimitsInput};
use crate::errors::{self, guard, Result};
use mrtr::check::{CheckConfig, Entry, Side, Violation};
use napi::bindgen_prelude::Either;
use napi_derive::napi;
use serde_json::{json, Value};

/// Settings of a check.
#[napi(object)]
#[derive(Clone, Debug, Default)]
pub struct CheckConfigInput {
    /// The protocol of the conversation (default `2026-07-28`).
    pub protocol: Option<String>,
    /// Retries allowed per request (default 10).
    pub max_rounds: Option<u32>,
    /// Bounds on each message.
    pub limits: Option<LimitsInput>,
}

fn config(input: Option<CheckConfigInput>) -> Result<CheckConfig> {
    let input = input.unwrap_or_default();
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

/// `check::check`: the violations of `transcript` (JSON text of an array of
/// entries), as JSON text `[{rule, index, message}, …]`.
#[napi(js_name = "check")]
pub fn check(transcript: Either<String, &[u8]>, config: Option<CheckConfigInput>) -> Result<String> {
    guard(|| {
        let config = self::config(config)?;
        let Value::Array(items) = convert::parse(convert::bytes(&transcript), &transcript_limits(&config))? else {
            return Err(errors::arg("a transcript is an array of entries"));
        };
        let entries = items.into_iter().map(entry).collect::<Result<Vec<_>>>()?;
        Ok(violations(&mrtr::check::check(&entries, config)))
    })
}

/// Bounds on a transcript's text: no byte bound of its own (it holds many
/// messages), and each message may nest as deep as one message may, inside
/// the array and its entry object.
fn transcript_limits(config: &CheckConfig) -> mrtr::Limits {
    mrtr::Limits { max_message_bytes: usize::MAX, max_depth: config.limits.max_depth + 2, ..config.limits }
}

/// The incremental checker: `check::Checker`.
#[napi(js_name = "NativeChecker")]
pub struct Checker {
    inner: mrtr::check::Checker,
    limits: mrtr::Limits,
}

#[napi]
impl Checker {
    /// A checker with `config`.
    #[napi(constructor)]
    pub fn new(config: Option<CheckConfigInput>) -> Result<Checker> {
        guard(|| {
            let config = self::config(config)?;
            Ok(Checker { inner: mrtr::check::Checker::new(config), limits: transcript_limits(&config) })
        })
    }

    /// Checks the next entry (JSON text of one entry).
    #[napi]
    pub fn handle(&mut self, entry: Either<String, &[u8]>) -> Result<()> {
        guard(|| {
            let entry = self::entry(convert::parse(convert::bytes(&entry), &self.limits)?)?;
            self.inner.handle(&entry);
            Ok(())
        })
    }

    /// The violations so far, as JSON text.
    #[napi]
    pub fn violations(&self) -> Result<String> {
        guard(|| Ok(violations(self.inner.violations())))
    }
}
