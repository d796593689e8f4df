//! `mrtr check`: checks a recorded MCP conversation against the MRTR rules.
//!
//! Input, from a file or `-` (stdin); without a file, a bundled example:
//! - JSON Lines, one entry `{"from":"client"|"server","message":{…},"stream":"post:<id>"|"get"}` per line,
//!   or an HTTP entry `{"from","at","http":{…}}` (recorded exchanges; `--transport sep-1858|sep-1335`
//!   checks the multi-turn SSE rules on them);
//! - or an HTTP Archive (HAR 1.2, as browsers and proxies export it: a JSON object
//!   with a `log` key, or a file named `*.har`), read by the core's [`mrtr::har::read_har_lines`]:
//!   request bodies are client messages, JSON and event-stream responses server ones; a body
//!   that is no JSON is an entry carrying it, reported where it is (as the proxy did live).
//!
//! The input is read as bytes, so that a file that is not UTF-8 gets the core's
//! error (`jsonrpc-parse-error`, with its line) rather than an I/O error.
//! Exit status: 0 compliant, 1 violations, 2 unreadable input or bad usage.
//! Interop warnings (`mrtr::check::Interop`: what breaks no rule but fails a
//! peer's users, naming the client) are printed beside the violations and
//! never change the exit status.

use lexopt::prelude::*;
use mrtr::check::{read_jsonl_bytes, Audit, CheckConfig, InteropWarning, Line, Side, Violation};
use mrtr::har::read_har_lines;
use mrtr::http::Mode;
use mrtr::{Limits, Protocol};
use mrtr_proxy::page::{self, Timeline};
use serde_json::json;
use std::ffi::OsString;
use std::io::Read;
use std::process::ExitCode;

const EXAMPLE: &str = include_str!("../examples/weather.jsonl");

/// `mrtr check --help`.
pub(crate) const USAGE: &str = "usage: mrtr check [FILE|-] [options]

Checks a recorded MCP conversation against the MRTR rules and prints each
violation (entry, line or HAR entry, rule id, a sentence) and a summary, and
each interop warning (what breaks no rule but fails a peer's users: a client
that never retries a state-only round or gives up on them, leaves an ask
unanswered or declines faster than a person reads; an input_required carrying
a final result's fields), naming the client. Warnings never change the exit
status: 0 compliant, 1 violations, 2 unreadable input or bad usage.

  FILE  JSON Lines, one entry a line: {\"from\",\"message\",\"stream\"} (JSON-RPC
        messages) or {\"from\",\"at\",\"http\"} (HTTP exchanges, as `mrtr proxy
        --record` writes them); or a HAR (HTTP Archive 1.2). `-`: standard
        input. Without FILE: a bundled example (a compliant weather flow).

options:
  -p, --protocol P   2026-07-28 (default), sep-2322, sep-2322-draft or 2025-11-25
      --transport T  also check the rules of the multi-turn SSE transport T
                     (sep-1858 or sep-1335) on HTTP entries
      --max-rounds N the most rounds one operation may take (default 10)
      --ask-window S warn of an ask left unanswered S seconds (default 300;
                     HTTP entries' \"at\" is the clock; unanswered at the end of
                     the recording is warned of whatever the time)
      --human-ms MS  warn of an elicitation declined or cancelled sooner than
                     MS milliseconds after its ask (default 300)
      --json         one JSON object on stdout instead of text
      --html OUT     also write the conversation as a page to OUT: one row per
                     multi-round operation, its rounds on a time axis, each
                     violation and warning where it happened, a click away from
                     the messages
                     (self-contained: no network access)
  -h, --help         this text";

struct Args {
    input: Option<String>,
    protocol: Protocol,
    max_rounds: u32,
    transport: Option<Mode>,
    ask_window_ms: u64,
    human_ms: u64,
    json: bool,
    html: Option<std::path::PathBuf>,
}

/// The arguments after `check`; `Ok(None)`: `--help`.
fn parse_args(argv: impl Iterator<Item = OsString>) -> Result<Option<Args>, String> {
    let mut parser = lexopt::Parser::from_args(argv);
    let mut args = Args {
        input: None,
        protocol: Protocol::default(),
        max_rounds: mrtr::DEFAULT_MAX_ROUNDS,
        transport: None,
        ask_window_ms: mrtr::check::ASK_WINDOW_MS,
        human_ms: mrtr::check::HUMAN_MS,
        json: false,
        html: None,
    };
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("protocol") | Short('p') => {
                let name = parser.value().map_err(|e| e.to_string())?.string().map_err(|_| "bad protocol")?;
                args.protocol = Protocol::parse(&name).map_err(|e| e.message().to_string())?;
            }
            Long("transport") => {
                let name = parser.value().map_err(|e| e.to_string())?.string().map_err(|_| "bad transport")?;
                args.transport = Some(Mode::from_name(&name).map_err(|e| e.message().to_string())?);
            }
            Long("max-rounds") => {
                args.max_rounds = parser.value().map_err(|e| e.to_string())?.parse().map_err(|e| e.to_string())?;
            }
            Long("ask-window") => {
                let secs: u64 = parser.value().map_err(|e| e.to_string())?.parse().map_err(|e| e.to_string())?;
                args.ask_window_ms = secs.saturating_mul(1000);
            }
            Long("human-ms") => {
                args.human_ms = parser.value().map_err(|e| e.to_string())?.parse().map_err(|e| e.to_string())?;
            }
            Long("json") => args.json = true,
            Long("html") => args.html = Some(parser.value().map_err(|e| e.to_string())?.into()),
            Long("help") | Short('h') => return Ok(None),
            Value(v) if args.input.is_none() => args.input = Some(v.string().map_err(|_| "bad file name")?),
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(Some(args))
}

fn read_input(input: Option<&str>) -> Result<(String, Vec<u8>), String> {
    match input {
        None => Ok(("the bundled example (weather flow)".into(), EXAMPLE.into())),
        Some("-") => {
            let mut bytes = Vec::new();
            std::io::stdin().read_to_end(&mut bytes).map_err(|e| format!("stdin: {e}"))?;
            Ok(("stdin".into(), bytes))
        }
        Some(path) => std::fs::read(path).map(|b| (path.into(), b)).map_err(|e| format!("{path}: {e}")),
    }
}

/// Entries, each with its line or HAR entry (1-based).
type Numbered = Vec<(usize, Line)>;

/// The entries of the input, and what their numbers count ("line" or "HAR entry").
fn read_entries(name: &str, bytes: &[u8]) -> Result<(&'static str, Numbered), String> {
    let limits = Limits::default();
    if name.to_ascii_lowercase().ends_with(".har") || mrtr::har::is_har(bytes) {
        return read_har_lines(bytes, &limits).map(|e| ("HAR entry", e)).map_err(|(entry, why)| match entry {
            0 => format!("{name}: not a HAR: {why}"),
            n => format!("{name}, HAR entry {n}: not a conversation: {why}"),
        });
    }
    read_jsonl_bytes(bytes, &limits)
        .map(|e| ("line", e))
        .map_err(|(line, why)| format!("{name}, line {line}: not a conversation entry: {why}"))
}

/// What a check found: the violations and the interop warnings.
type Found = (Vec<Violation>, Vec<InteropWarning>);

/// Checks the entries in order, then ends the conversation: the violations,
/// the interop warnings, and the page's timeline (entries, finished
/// operations, violations with who sent them, warnings with their client).
fn check_entries(entries: &Numbered, config: CheckConfig, name: &str) -> (Found, Timeline) {
    let mut audit = Audit::new(config);
    let mut timeline = Timeline::new(format!("mrtr check {name}"));
    for (index, (_, line)) in entries.iter().enumerate() {
        timeline.entry(index, line);
        audit.handle(line);
        for op in audit.checker().take_operations() {
            timeline.operation(&op);
        }
    }
    audit.finish();
    let warnings = audit.checker().take_warnings();
    let violations = audit.into_violations();
    for v in &violations {
        timeline.checked(v, entries.get(v.index).map(|(_, line)| from(line)));
    }
    for w in &warnings {
        timeline.warned(w);
    }
    ((violations, warnings), timeline)
}

/// Who sent an entry.
fn from(line: &Line) -> Side {
    match line {
        Line::Message(e) => e.from,
        Line::Http(h) => h.from,
    }
}

/// Who sent an entry, in words.
fn side(line: &Line) -> &'static str {
    match from(line) {
        Side::Client => "client",
        Side::Server => "server",
    }
}

/// A warning when the recording declares a known protocol other than
/// `protocol` (the first entry that does): checked under the wrong one, it
/// shows violations that are not there, and misses others.
fn protocol_warning(entries: &Numbered, place: &str, protocol: Protocol) -> Option<String> {
    let (number, declared) = entries
        .iter()
        .filter_map(|(number, line)| Some((number, line.declared_version()?)))
        .find(|(_, v)| Protocol::from_name(v).is_some_and(|p| p != protocol))?;
    Some(format!(
        "the recording declares protocol {declared} ({place} {number}), checked under {protocol}: \
         pass --protocol {declared} if that is what the peers spoke"
    ))
}

/// `mrtr check ARGS…`.
pub(crate) fn main(argv: impl Iterator<Item = OsString>) -> ExitCode {
    let args = match parse_args(argv) {
        Ok(Some(a)) => a,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(why) => return crate::usage_error("mrtr check", &why, USAGE),
    };
    let (name, bytes) = match read_input(args.input.as_deref()) {
        Ok(t) => t,
        Err(why) => {
            eprintln!("mrtr check: {why}");
            return ExitCode::from(2);
        }
    };
    let (place, entries) = match read_entries(&name, &bytes) {
        Ok(e) => e,
        Err(why) => {
            eprintln!("mrtr check: {why}");
            return ExitCode::from(2);
        }
    };
    let config = CheckConfig::default()
        .with_protocol(args.protocol)
        .with_max_rounds(args.max_rounds)
        .with_transport(args.transport)
        .with_ask_window_ms(args.ask_window_ms)
        .with_human_ms(args.human_ms);
    let ((violations, interop), timeline) = check_entries(&entries, config, &name);
    if let Some(out) = &args.html {
        if let Err(e) = std::fs::write(out, page::html(&timeline.to_json(), false)) {
            eprintln!("mrtr check: {}: {e}", out.display());
            return ExitCode::from(2);
        }
    }
    let warnings = protocol_warning(&entries, place, args.protocol).into_iter().collect::<Vec<_>>();
    if args.json {
        let list: Vec<_> = violations
            .iter()
            .map(|v| {
                let from = side(&entries[v.index].1);
                let mut item = json!({"rule": v.rule.name(), "index": v.index, "from": from, "message": v.message});
                // Where the entry comes from: its line, or its HAR entry.
                let key = if place == "line" { "line" } else { "harEntry" };
                item[key] = json!(entries[v.index].0);
                item
            })
            .collect();
        let interop: Vec<_> = interop
            .iter()
            .map(|w| json!({"warning": w.kind.name(), "index": w.index, "client": w.client, "message": w.message}))
            .collect();
        println!(
            "{}",
            json!({"input": name, "protocol": args.protocol.name(), "entries": entries.len(), "warnings": warnings,
                "violations": list, "interop": interop})
        );
    } else {
        println!("Checking {name}: {} entries under protocol {}", entries.len(), args.protocol);
        for warning in &warnings {
            println!("  warning: {warning}");
        }
        for v in &violations {
            let (number, line) = &entries[v.index];
            println!("  entry {} ({place} {number}, from the {}): {}: {}", v.index, side(line), v.rule, v.message);
        }
        for w in &interop {
            let number = entries[w.index].0;
            let client = w.client.as_deref().map(|c| format!(", client {c}")).unwrap_or_default();
            println!("  interop warning, entry {} ({place} {number}{client}): {}: {}", w.index, w.kind, w.message);
        }
        match violations.len() {
            0 => println!("compliant: no violation"),
            n => println!("{n} violation{}", if n == 1 { "" } else { "s" }),
        }
        if !interop.is_empty() {
            let n = interop.len();
            println!("{n} interop warning{} (the exit status does not count them)", if n == 1 { "" } else { "s" });
        }
    }
    if violations.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
