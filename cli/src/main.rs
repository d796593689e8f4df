//! `mrtr`: the command of the mrtr project.
//!
//! - `mrtr check`: checks a recorded MCP conversation (JSON Lines or a HAR)
//!   against the MRTR rules, offline ([`check`]).
//! - `mrtr proxy`: a checking reverse proxy for MCP Streamable HTTP: forwards
//!   every byte and reports each broken rule as it happens ([`proxy`], over the
//!   `mrtr-proxy` library).
//! - `mrtr bridge`: serves `2025-11-25` clients from an MRTR server, both
//!   sides checked live ([`bridge`], over the `mrtr-bridge` library).
//!
//! The protocol decisions are the core's (`mrtr`); this crate reads arguments
//! and files, prints, and owns the process (exit status, signals). Exit status
//! of every subcommand: 2 on bad usage or unreadable input.

mod bridge;
mod check;
mod options;
mod proxy;

use std::ffi::OsString;
use std::process::ExitCode;

const USAGE: &str = "usage: mrtr <command> [options]

commands:
  check   check a recorded MCP conversation (JSON Lines or HAR) against the MRTR rules
  proxy   a checking reverse proxy for MCP Streamable HTTP, live reports and a record
  bridge  serve 2025-11-25 clients from an MRTR (2026-07-28) server, both sides checked live
  help    this text, or a command's: `mrtr help check`

options:
  -h, --help      this text
  -V, --version   the version, and the protocols it checks (after any command too)";

/// `mrtr --version`: the package's version and the protocols it speaks, the
/// first the default.
fn version() -> String {
    let protocols: Vec<&str> = mrtr::Protocol::ALL.iter().map(|p| p.name()).collect();
    format!("mrtr {} (protocols: {})", env!("CARGO_PKG_VERSION"), protocols.join(", "))
}

/// A usage error: why, the usage text, exit status 2.
pub(crate) fn usage_error(command: &str, why: &str, usage: &str) -> ExitCode {
    eprintln!("{command}: {why}\n{usage}");
    ExitCode::from(2)
}

/// `mrtr help [COMMAND]`.
fn help(command: Option<OsString>) -> ExitCode {
    match command.as_ref().map(|c| c.to_string_lossy()).as_deref() {
        None => println!("{USAGE}"),
        Some("check") => println!("{}", check::USAGE),
        Some("proxy") => println!("{}", proxy::USAGE),
        Some("bridge") => println!("{}", bridge::USAGE),
        Some(other) => return usage_error("mrtr help", &format!("unknown command {other:?}"), USAGE),
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let command = args.next();
    let rest: Vec<OsString> = args.collect();
    // `--version` works on every command, as on `mrtr` itself.
    let asks_version = rest.iter().any(|a| a == "--version" || a == "-V");
    let mut args = rest.into_iter();
    match command.as_ref().map(|c| c.to_string_lossy()).as_deref() {
        Some("check" | "proxy" | "bridge") if asks_version => {
            println!("{}", version());
            ExitCode::SUCCESS
        }
        Some("check") => check::main(args),
        Some("proxy") => proxy::main(args),
        Some("bridge") => bridge::main(args),
        Some("help") => help(args.next()),
        Some("-h" | "--help") => help(None),
        Some("-V" | "--version") => {
            println!("{}", version());
            ExitCode::SUCCESS
        }
        Some(other) => usage_error("mrtr", &format!("unknown command {other:?}"), USAGE),
        None => usage_error("mrtr", "no command", USAGE),
    }
}
