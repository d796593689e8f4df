//! `mrtr-proxy --listen ADDR --upstream URL [--record FILE] [--protocol P] [--transport T] [--json]`:
//! a checking reverse proxy for MCP Streamable HTTP (see the crate's README).
//!
//! Exit status: 0 after SIGINT/SIGTERM (whatever the violations: they are on
//! stdout and in the summary line), 2 on bad usage or when it cannot listen.

use mrtr::http::Mode;
use mrtr::Protocol;
use mrtr_proxy::{Config, Output, Proxy};
use std::process::ExitCode;

const USAGE: &str = "usage: mrtr-proxy --listen HOST:PORT --upstream http://HOST:PORT/PATH [--record FILE] \
[--protocol 2026-07-28|sep-2322|sep-2322-draft|2025-11-25] [--transport sep-1858|sep-1335] [--json]
  --listen     where the proxy listens; point the client at it, with the upstream's path
  --upstream   the MCP server's endpoint (http:// only); requests keep their own path and query
  --record     append every HTTP entry (request; response head, JSON body, each SSE block, end)
               to FILE as JSON Lines, for `mrtr check FILE` (with the same --protocol/--transport)
  --protocol   the protocol the conversation is checked under (default 2026-07-28)
  --transport  also check the rules of a multi-turn SSE transport (default: plain Streamable HTTP)
  --json       one JSON object per report line on stdout instead of text";

fn parse_args() -> Result<Config, String> {
    use lexopt::prelude::*;
    let (mut listen, mut upstream, mut record, mut protocol, mut json) = (None, None, None, Protocol::default(), false);
    let mut transport = None;
    let mut parser = lexopt::Parser::from_env();
    let text = |v: std::ffi::OsString| v.into_string().map_err(|_| "an argument is not UTF-8".to_string());
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
            Long("protocol") => {
                let v = text(parser.value().map_err(|e| e.to_string())?)?;
                protocol = Protocol::from_name(&v).ok_or(format!("unknown protocol {v}"))?;
            }
            Long("transport") => {
                let v = text(parser.value().map_err(|e| e.to_string())?)?;
                transport = Some(Mode::from_name(&v).map_err(|_| format!("unknown transport {v}"))?);
            }
            Long("json") => json = true,
            Short('h') | Long("help") => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    let listen = listen.ok_or("--listen is required")?;
    let upstream = upstream.ok_or("--upstream is required")?;
    let output = if json { Output::Json } else { Output::Text };
    Ok(Config { listen, upstream, record, protocol, transport, output })
}

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

#[tokio::main]
async fn main() -> ExitCode {
    let config = match parse_args() {
        Ok(c) => c,
        Err(why) => {
            eprintln!("mrtr-proxy: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let json = config.output == Output::Json;
    let upstream = config.upstream.clone();
    let proxy = match Proxy::bind(config).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("mrtr-proxy: {e}");
            return ExitCode::from(2);
        }
    };
    match proxy.local_addr() {
        Ok(addr) => eprintln!("mrtr-proxy: listening on {addr}, forwarding to {upstream}"),
        Err(e) => eprintln!("mrtr-proxy: {e}"),
    }
    let summary = proxy.serve(shutdown_signal()).await;
    if json {
        println!("{}", summary.to_json());
    } else {
        println!("{}", summary.line());
    }
    ExitCode::SUCCESS
}
