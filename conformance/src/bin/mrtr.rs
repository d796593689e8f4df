//! `mrtr check`: checks a recorded MCP conversation against the MRTR rules.
//!
//! Input: JSON Lines, one entry `{"from":"client"|"server","message":{…},"stream":"post:<id>"|"get"}`
//! per line, from a file or `-` (stdin); without a file, a bundled example.
//! Exit status: 0 compliant, 1 violations, 2 unreadable input or bad usage.

use lexopt::prelude::*;
use mrtr::check::{check, CheckConfig};
use mrtr::Protocol;
use mrtr_conformance::transcript::read_jsonl;
use serde_json::json;
use std::io::Read;
use std::process::ExitCode;

const EXAMPLE: &str = include_str!("../../examples/weather.jsonl");

const USAGE: &str =
    "usage: mrtr check [FILE|-] [--protocol 2026-07-28|sep-2322|sep-2322-draft|2025-11-25] [--max-rounds N] [--json]";

struct Args {
    input: Option<String>,
    protocol: Protocol,
    max_rounds: u32,
    json: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut parser = lexopt::Parser::from_env();
    let mut args = Args { input: None, protocol: Protocol::default(), max_rounds: 10, json: false };
    let mut command = None;
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("protocol") | Short('p') => {
                let name = parser.value().map_err(|e| e.to_string())?.string().map_err(|_| "bad protocol")?;
                args.protocol = Protocol::from_name(&name).ok_or(format!("unknown protocol {name:?}"))?;
            }
            Long("max-rounds") => {
                args.max_rounds = parser.value().map_err(|e| e.to_string())?.parse().map_err(|e| e.to_string())?;
            }
            Long("json") => args.json = true,
            Long("help") | Short('h') => return Err(String::new()),
            Value(v) if command.is_none() => command = Some(v.string().map_err(|_| "bad command")?),
            Value(v) if args.input.is_none() => args.input = Some(v.string().map_err(|_| "bad file name")?),
            other => return Err(other.unexpected().to_string()),
        }
    }
    match command.as_deref() {
        Some("check") => Ok(args),
        Some(other) => Err(format!("unknown command {other:?}")),
        None => Err("no command".into()),
    }
}

fn read_input(input: Option<&str>) -> Result<(String, String), String> {
    match input {
        None => Ok(("the bundled example (weather flow)".into(), EXAMPLE.into())),
        Some("-") => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text).map_err(|e| format!("stdin: {e}"))?;
            Ok(("stdin".into(), text))
        }
        Some(path) => std::fs::read_to_string(path).map(|t| (path.into(), t)).map_err(|e| format!("{path}: {e}")),
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(why) => {
            if !why.is_empty() {
                eprintln!("mrtr: {why}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let (name, text) = match read_input(args.input.as_deref()) {
        Ok(t) => t,
        Err(why) => {
            eprintln!("mrtr: {why}");
            return ExitCode::from(2);
        }
    };
    let entries = match read_jsonl(&text) {
        Ok(e) => e,
        Err((line, why)) => {
            eprintln!("mrtr: {name}, line {line}: not a conversation entry: {why}");
            return ExitCode::from(2);
        }
    };
    let config = CheckConfig { protocol: args.protocol, max_rounds: args.max_rounds, ..Default::default() };
    let messages: Vec<_> = entries.iter().map(|(_, e)| e.clone()).collect();
    let violations = check(&messages, config);
    if args.json {
        let list: Vec<_> = violations
            .iter()
            .map(|v| json!({"rule": v.rule.name(), "index": v.index, "line": entries[v.index].0, "message": v.message}))
            .collect();
        println!(
            "{}",
            json!({"input": name, "protocol": args.protocol.name(), "entries": entries.len(), "violations": list})
        );
    } else {
        println!("Checking {name}: {} messages under protocol {}", entries.len(), args.protocol);
        for v in &violations {
            println!("  entry {} (line {}): {}: {}", v.index, entries[v.index].0, v.rule, v.message);
        }
        match violations.len() {
            0 => println!("compliant: no violation"),
            n => println!("{n} violation{}", if n == 1 { "" } else { "s" }),
        }
    }
    if violations.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
