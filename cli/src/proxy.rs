//! `mrtr proxy`: the checking reverse proxy for MCP Streamable HTTP, run in
//! this process on a tokio runtime (the proxy itself is the `mrtr-proxy`
//! library: hyper, tokio, one `mrtr::check::Audit`).
//!
//! Exit status: 0 after SIGINT/SIGTERM (whatever the violations: they are on
//! stdout and in the summary line), 2 on bad usage or when it cannot listen.

use mrtr::http::Mode;
use mrtr::Protocol;
use mrtr_proxy::{Config, Output, Proxy};
use std::ffi::OsString;
use std::process::ExitCode;

/// `mrtr proxy --help`.
pub(crate) const USAGE: &str = "usage: mrtr proxy --listen HOST:PORT --upstream http://HOST:PORT/PATH [options]

Forwards every request to the upstream MCP server and every response back,
bytes unchanged, SSE streams as they arrive, and checks the conversation as it
flows: each violation, each finished multi-round operation, and on Ctrl-C or
SIGTERM a summary, on stdout. Exit status: 0 when stopped, 2 on bad usage or
when it cannot listen.

  --listen     where the proxy listens; point the client at it, with the upstream's path
  --upstream   the MCP server's endpoint (http:// only); requests keep their own path and query

options:
  --record FILE    append every HTTP entry (request; response head, JSON body, each SSE
                   block, end) to FILE as JSON Lines, for `mrtr check FILE` (with the
                   same --protocol/--transport)
  --protocol P     the protocol the conversation is checked under: 2026-07-28 (default),
                   sep-2322, sep-2322-draft or 2025-11-25
  --transport T    also check the rules of a multi-turn SSE transport: sep-1858 or sep-1335
                   (default: plain Streamable HTTP)
  --timeout SECS   how long a client may take to send a request's head and body, and the
                   upstream to answer with its head (default 30)
  --max-connections N
                   client connections served at once; past it 503 (default 1024)
  --json           one JSON object per report line on stdout instead of text
  -h, --help       this text";

/// The arguments after `proxy`; `Ok(None)`: `--help`.
fn parse_args(argv: impl Iterator<Item = OsString>) -> Result<Option<Config>, String> {
    use lexopt::prelude::*;
    let (mut listen, mut upstream, mut record, mut protocol, mut json) = (None, None, None, Protocol::default(), false);
    let (mut transport, mut timeout, mut max_connections) = (None, 30u64, 1024usize);
    let mut parser = lexopt::Parser::from_args(argv);
    let text = |v: OsString| v.into_string().map_err(|_| "an argument is not UTF-8".to_string());
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Long("listen") => {
                let v = text(parser.value().map_err(|e| e.to_string())?)?;
                listen = Some(v.parse().map_err(|e| format!("--listen {v}: {e}"))?);
            }
            Long("upstream") => {
                let v = text(parser.value().map_err(|e| e.to_string())?)?;
                upstream = Some(v.parse().map_err(|e| format!("--upstream {v}: {e}"))?);
            }
            Long("record") => record = Some(parser.value().map_err(|e| e.to_string())?.into()),
            Long("protocol") | Short('p') => {
                let v = text(parser.value().map_err(|e| e.to_string())?)?;
                protocol = Protocol::from_name(&v).ok_or(format!("unknown protocol {v}"))?;
            }
            Long("transport") => {
                let v = text(parser.value().map_err(|e| e.to_string())?)?;
                transport = Some(Mode::from_name(&v).map_err(|_| format!("unknown transport {v}"))?);
            }
            Long("timeout") => {
                let v = text(parser.value().map_err(|e| e.to_string())?)?;
                timeout =
                    v.parse().ok().filter(|&s| s > 0).ok_or(format!("--timeout {v}: whole seconds, at least 1"))?;
            }
            Long("max-connections") => {
                let v = text(parser.value().map_err(|e| e.to_string())?)?;
                max_connections =
                    v.parse().ok().filter(|&n| n > 0).ok_or(format!("--max-connections {v}: at least 1"))?;
            }
            Long("json") => json = true,
            Short('h') | Long("help") => return Ok(None),
            other => return Err(other.unexpected().to_string()),
        }
    }
    let listen = listen.ok_or("--listen is required")?;
    let upstream = upstream.ok_or("--upstream is required")?;
    let output = if json { Output::Json } else { Output::Text };
    let timeout = std::time::Duration::from_secs(timeout);
    Ok(Some(Config { listen, upstream, record, protocol, transport, output, timeout, max_connections }))
}

/// Resolves on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Binds, serves until a signal, prints the summary.
async fn run(config: Config) -> ExitCode {
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
        Ok(addr) => eprintln!("mrtr proxy: listening on {addr}, forwarding to {upstream}"),
        Err(e) => eprintln!("mrtr proxy: {e}"),
    }
    let summary = proxy.serve(shutdown_signal()).await;
    if json {
        println!("{}", summary.to_json());
    } else {
        println!("{}", summary.line());
    }
    ExitCode::SUCCESS
}

/// `mrtr proxy ARGS…`.
pub(crate) fn main(argv: impl Iterator<Item = OsString>) -> ExitCode {
    let config = match parse_args(argv) {
        Ok(Some(c)) => c,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(why) => return crate::usage_error("mrtr proxy", &why, USAGE),
    };
    match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime.block_on(run(config)),
        Err(e) => {
            eprintln!("mrtr proxy: cannot start the runtime: {e}");
            ExitCode::from(2)
        }
    }
}
