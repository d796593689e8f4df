//! `mrtr proxy`: the checking reverse proxy for MCP Streamable HTTP, or for a
//! stdio server it starts (`-- COMMAND ARGS…`), run in this process on a
//! tokio runtime (the proxy itself is the `mrtr-proxy` library: hyper, tokio,
//! one `mrtr::check::Audit`).
//!
//! Exit status: 0 after SIGINT/SIGTERM (whatever the violations: they are on
//! stdout and in the summary line), 2 on bad usage or when it cannot listen;
//! for a stdio server, the server's.

use crate::options;
use mrtr::check::CheckConfig;
use mrtr::http::Mode;
use mrtr::Protocol;
use mrtr_proxy::{Config, Monitor, Output, Proxy, StdioServer};
use std::ffi::OsString;
use std::process::ExitCode;

/// `mrtr proxy --help`.
pub(crate) const USAGE: &str = concat!(
    "usage: mrtr proxy --listen HOST:PORT --upstream http://HOST:PORT/PATH [options]
       mrtr proxy [options] -- COMMAND [ARGS...]

Forwards every request to the upstream MCP server and every response back,
bytes unchanged, SSE streams as they arrive, and checks the conversation as it
flows: each violation, each finished multi-round operation, and on Ctrl-C or
SIGTERM a summary, on stdout. Exit status: 0 when stopped, 2 on bad usage or
when it cannot listen.

With `-- COMMAND ARGS`, a stdio server: the client starts `mrtr proxy ... --
COMMAND ARGS` in the server's place; the proxy starts the server and relays
each newline-delimited JSON-RPC message both ways, checked, the server's
stderr passed through. Reports and the summary go to stderr (stdout is the
conversation). When the server exits the proxy does too, with the server's
exit status, its stdout closed (even while the client keeps stdin open). On
Ctrl-C or SIGTERM the server's stdin is closed and it is sent SIGTERM.

  --listen     where the proxy listens; point the client at it, with the upstream's path
  --upstream   the MCP server's endpoint (http:// or https://); the proxy serves its path
               (and the paths beneath it, and /.well-known/): another path is answered 404

options:
  --record FILE    append every HTTP entry (request; response head, JSON body, each SSE
                   block, end) to FILE as JSON Lines, for `mrtr check FILE` (with the
                   same --protocol/--transport)
  --record-max-bytes N
                   once the record holds N bytes it is renamed FILE.1 (replacing the one
                   before) and begun again (default 268435456: 256 MiB)
  --har FILE       also write the exchanges to FILE as an HTTP Archive (HAR 1.2), one entry
                   per exchange when its response ends (FILE replaced; `mrtr check` reads it)
  --upstream-ca FILE
                   PEM certificate authorities an https:// upstream may chain to, besides
                   the system's
  --protocol P     the protocol the conversation is checked under: 2026-07-28 (default),
                   sep-2322, sep-2322-draft or 2025-11-25
  --transport T    also check the rules of a multi-turn SSE transport: sep-1858 or sep-1335
                   (default: plain Streamable HTTP)
  --timeout SECS   how long a client may take to send a request's head and body, the
                   upstream to answer with its head, and a client to take any of a response
                   (past it the connection is closed, and upstream's response with it) (default 30); under stdio, how long the
                   server may take to exit once asked to stop before it is killed
  --max-message-bytes N
                   bytes of one message (request body, response body, event): past it a request
                   is 413 (default 16777216: 16 MiB). Memory grows with it (docs/cli.md, Memory)
  --repair NAME    make a repair for the clients (repeatable; none by default: each changes
                   what a client sees; on JSON responses, docs/RULES.md \"Gateway repairs\"):
                   state-only-retry  retry a state-only input_required (load shedding) for
                                     the client, with a backoff, up to 10 rounds; the client
                                     gets the final result (the Go SDK 1.8 client, tower-mcp
                                     and mcp-go do not retry, or stop)
                   final-fields      remove a final result's fields (content, isError, …)
                                     from an input_required (clients that read it as final)
",
    options::connections_usage!(),
    "  --ui HOST:PORT   also serve a live page there: one row per multi-round operation, its
                   rounds on a time axis, each violation where it happened, a click away
                   from the messages (no network access needed); GET only, under the same
                   Host and Origin rules
",
    options::web_usage!(),
    "  --json           one JSON object per report line on stdout instead of text
  -h, --help       this text"
);

/// What `mrtr proxy` runs.
enum Run {
    /// A Streamable HTTP proxy.
    Http(Config),
    /// A stdio server started and relayed; its record file.
    Stdio(StdioServer, Config),
}

/// The arguments after `proxy`; `Ok(None)`: `--help`.
fn parse_args(argv: impl Iterator<Item = OsString>) -> Result<Option<Run>, String> {
    // Everything after `--` is the stdio server's command line.
    let (argv, command) = options::split_command(argv.collect());
    let Some(config) = parse_options(argv.into_iter(), command.is_some())? else { return Ok(None) };
    let Some(command) = command else { return Ok(Some(Run::Http(config))) };
    let mut command: Vec<OsString> = command;
    if command.is_empty() {
        return Err("no server command after --".into());
    }
    let program = command.remove(0);
    Ok(Some(Run::Stdio(StdioServer { command: program, args: command, grace: config.timeout }, config)))
}

/// The options; `stdio`: a server command follows, so `--listen` and
/// `--upstream` have no place.
fn parse_options(argv: impl Iterator<Item = OsString>, stdio: bool) -> Result<Option<Config>, String> {
    use lexopt::prelude::*;
    let (mut listen, mut upstream, mut record, mut protocol, mut json) = (None, None, None, Protocol::default(), false);
    let (mut transport, mut timeout, mut max_connections, mut per_peer) = (None, 30u64, None, None);
    let (mut upstream_ca, mut har, mut record_max_bytes) = (None, None, mrtr_proxy::RECORD_MAX_BYTES);
    let (mut ui, mut allow_origins, mut allow_hosts) = (None, Vec::new(), Vec::new());
    let mut max_message_bytes = mrtr::Limits::DEFAULT.max_message_bytes;
    let mut repairs = Vec::new();
    let mut parser = lexopt::Parser::from_args(argv);
    let p = &mut parser;
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("listen") => listen = Some(options::parsed(p, "--listen")?),
            Long("upstream") => upstream = Some(options::parsed(p, "--upstream")?),
            Long("record") => record = Some(options::path(p)?),
            Long("record-max-bytes") => record_max_bytes = options::at_least_one(p, "--record-max-bytes", "")?,
            Long("har") => har = Some(options::path(p)?),
            Long("upstream-ca") => upstream_ca = Some(options::path(p)?),
            Long("protocol") | Short('p') => {
                let v = options::text(p)?;
                protocol = Protocol::parse(&v).map_err(|e| e.message().to_string())?;
            }
            Long("transport") => {
                let v = options::text(p)?;
                transport = Some(Mode::from_name(&v).map_err(|e| e.message().to_string())?);
            }
            Long("timeout") => timeout = options::at_least_one(p, "--timeout", "whole seconds, ")?,
            Long("ui") => ui = Some(options::parsed(p, "--ui")?),
            Long("max-connections") => max_connections = Some(options::at_least_one(p, "--max-connections", "")?),
            Long("max-connections-per-peer") => {
                per_peer = Some(options::at_least_one(p, "--max-connections-per-peer", "")?);
            }
            Long("max-message-bytes") => max_message_bytes = options::at_least_one(p, "--max-message-bytes", "")?,
            Long("repair") => {
                let repair =
                    mrtr::gateway::Repair::from_name(&options::text(p)?).map_err(|e| e.message().to_string())?;
                if !repairs.contains(&repair) {
                    repairs.push(repair);
                }
            }
            Long("json") => json = true,
            Long("allow-origin") => allow_origins.push(options::text(p)?),
            Long("allow-host") => allow_hosts.push(options::text(p)?),
            Short('h') | Long("help") => return Ok(None),
            other => return Err(other.unexpected().to_string()),
        }
    }
    if stdio {
        let web = !allow_origins.is_empty() || !allow_hosts.is_empty();
        let http_only =
            [upstream_ca.is_some(), transport.is_some(), har.is_some(), ui.is_some(), web, !repairs.is_empty()];
        if listen.is_some() || upstream.is_some() || http_only.contains(&true) {
            let options =
                "--listen, --upstream, --upstream-ca, --transport, --har, --ui, --allow-origin, --allow-host and --repair";
            return Err(format!("{options} are for Streamable HTTP, not a stdio server"));
        }
        // Not used: a stdio server has neither.
        listen = Some(([127, 0, 0, 1], 0).into());
        upstream = Some("http://stdio".parse().map_err(|e| format!("{e}"))?);
    }
    let listen = listen.ok_or("--listen is required (or a stdio server's command after --)")?;
    let upstream = upstream.ok_or("--upstream is required")?;
    let output = if json { Output::Json } else { Output::Text };
    let timeout = std::time::Duration::from_secs(timeout);
    Ok(Some(Config {
        listen,
        upstream,
        upstream_ca,
        record,
        record_max_bytes,
        har,
        protocol,
        transport,
        output,
        timeout,
        max_connections: max_connections.unwrap_or_else(mrtr_proxy::net::default_max_connections),
        max_connections_per_peer: per_peer,
        ui,
        allow_origins,
        allow_hosts,
        max_message_bytes,
        repairs,
    }))
}

/// Binds, serves until a signal, prints the summary.
async fn serve_http(config: Config) -> ExitCode {
    let json = config.output == Output::Json;
    let upstream = config.upstream.clone();
    let proxy = match Proxy::bind(config).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("mrtr proxy: {e}");
            return ExitCode::from(2);
        }
    };
    match proxy.local_addr() {
        Ok(addr) => {
            let path = mrtr_proxy::Endpoint::of(&upstream).path().to_string();
            eprintln!(
                "mrtr proxy: listening on {addr}, forwarding to {upstream} (the client's URL: http://{addr}{path})"
            )
        }
        Err(e) => eprintln!("mrtr proxy: {e}"),
    }
    if let Some(ui) = proxy.ui_addr() {
        eprintln!("mrtr proxy: the live page is at http://{ui}/");
    }
    let summary = proxy.serve(options::shutdown_signal()).await;
    if json {
        println!("{}", summary.to_json());
    } else {
        println!("{}", summary.line());
    }
    ExitCode::SUCCESS
}

/// Starts the stdio server, relays until it exits (or a signal: its stdin
/// closed), prints the summary on stderr; the exit status is the server's.
async fn run_stdio(server: StdioServer, config: Config) -> ExitCode {
    let record = match config.record.as_deref().map(mrtr_proxy::open_record).transpose() {
        Ok(record) => record,
        Err(e) => {
            eprintln!("mrtr proxy: the record file: {e}");
            return ExitCode::from(2);
        }
    };
    let check = CheckConfig::default().with_protocol(config.protocol);
    let mut monitor = Monitor::new(check, record, config.output).reporting_on_stderr();
    if let Some(path) = &config.record {
        monitor = monitor.rotating(path.clone(), config.record_max_bytes);
    }
    let status =
        mrtr_proxy::serve_stdio(&server, &monitor, tokio::io::stdin(), tokio::io::stdout(), options::shutdown_signal())
            .await;
    monitor.flush();
    monitor.print(&monitor.summary().to_output(config.output));
    match status {
        Ok(status) => exit_code(status),
        Err(e) => {
            eprintln!("mrtr proxy: cannot run {}: {e}", server.command.to_string_lossy());
            ExitCode::from(2)
        }
    }
}

/// The server's exit status as the proxy's: its code, or 128 + the signal
/// that ended it (as a shell reports it).
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return ExitCode::from(u8::try_from(128 + signal).unwrap_or(255));
        }
    }
    ExitCode::from(status.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(1))
}

/// `mrtr proxy ARGS…`.
pub(crate) fn main(argv: impl Iterator<Item = OsString>) -> ExitCode {
    let run = match parse_args(argv) {
        Ok(Some(r)) => r,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(why) => return crate::usage_error("mrtr proxy", &why, USAGE),
    };
    match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => match run {
            Run::Http(config) => runtime.block_on(serve_http(config)),
            Run::Stdio(server, config) => {
                let code = runtime.block_on(run_stdio(server, config));
                // Not waiting for the blocking read of stdin: the client keeps
                // its end open until the proxy exits, which it would wait for
                // (review L11). What the server wrote is flushed by now; the
                // exit closes stdout.
                runtime.shutdown_background();
                code
            }
        },
        Err(e) => {
            eprintln!("mrtr proxy: cannot start the runtime: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(list: &[&str]) -> Result<Config, String> {
        match parse_args(list.iter().map(OsString::from))? {
            Some(Run::Http(config) | Run::Stdio(_, config)) => Ok(config),
            None => Err("help".into()),
        }
    }

    /// The connection caps: given, or the default that follows the
    /// descriptor limit (the per-peer one left to the proxy); 0 refused.
    #[test]
    fn connection_caps_are_read() {
        let base = ["--listen", "127.0.0.1:9000", "--upstream", "http://127.0.0.1:8000/mcp"];
        let given = config(&[&base[..], &["--max-connections", "40", "--max-connections-per-peer", "5"]].concat());
        let given = given.unwrap();
        assert_eq!((given.max_connections, given.max_connections_per_peer), (40, Some(5)));
        let plain = config(&base).unwrap();
        assert_eq!(plain.max_connections, mrtr_proxy::net::default_max_connections());
        assert_eq!(plain.max_connections_per_peer, None);
        let zero = config(&[&base[..], &["--max-connections-per-peer", "0"]].concat());
        assert!(zero.unwrap_err().contains("--max-connections-per-peer 0"));
    }
}
