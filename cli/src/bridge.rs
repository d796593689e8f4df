//! `mrtr bridge`: lets `2025-11-25` MCP clients use an MRTR (`2026-07-28`)
//! server, checking both conversations live; run in this process on a tokio
//! runtime (the bridge itself is the `mrtr-bridge` library).
//!
//! Exit status: 0 after SIGINT/SIGTERM (whatever the violations: they are on
//! stdout and in the summary lines), 2 on bad usage or when it cannot listen.

use crate::options;
use mrtr_bridge::{Bridge, Config, Output};
use std::ffi::OsString;
use std::process::ExitCode;

/// `mrtr bridge --help`.
pub(crate) const USAGE: &str = concat!(
    "usage: mrtr bridge --listen HOST:PORT --upstream http://HOST:PORT/PATH [options]
       mrtr bridge --listen HOST:PORT --upstream NAME=URL --upstream NAME=URL... [options]

Serves MCP 2025-11-25 clients (Streamable HTTP: initialize, Mcp-Session-Id, server
requests on the POST's event stream) from an MRTR server (2026-07-28): each
input_required round of a tools/call, prompts/get or resources/read becomes server
requests on the client's stream, and the client's answers become the retry. Both
conversations are checked as they flow: each violation and finished multi-round
operation on stdout, tagged `client:` (checked under 2025-11-25) or `upstream:`
(2026-07-28), and on Ctrl-C or SIGTERM a summary line for each side. GET on the
endpoint is 405 (no standalone stream). Exit status: 0 when stopped, 2 on bad usage
or when it cannot listen.

  --listen     where the bridge listens; point the 2025-11-25 client at any path there
  --upstream   the MRTR server's endpoint (http:// or https://); or NAME=URL, two or more
               times: several MRTR servers served as one (NAME: 1-32 of A-Za-z0-9_-, unique).
               Then initialize discovers them all (capabilities united, instructions joined
               as NAME: ..., serverInfo the bridge's); tools/list and prompts/list are merged
               with names NAME__original (at most 16 pages each, one page to the client),
               tools/call and prompts/get go to NAME; resources keep their URIs and
               resources/read goes to the first upstream, in the order given, that listed
               the URI or has a template whose prefix starts it (so a later upstream cannot
               take over an earlier one's URIs: give the most trusted first); an unknown
               name or URI is refused (usage-unknown-handle); every other request goes to
               the first upstream.
               An upstream down at initialize is left out (said on stderr)

options:
  --record-client FILE    append the client side's HTTP entries to FILE, for
                          `mrtr check --protocol 2025-11-25 FILE`
  --record-upstream FILE  append the upstream side's HTTP entries to FILE, for `mrtr check FILE`
  --timeout SECS   how long a client may take to send a request, the upstream to answer
                   with its head, and the client to answer a round's questions (past it the
                   call ends with a JSON-RPC error) or to take any of a response (past it
                   the client is dropped and the upstream exchange feeding it closed); a
                   client that stops reading stops the bridge reading upstream (default 30)
  --max-sessions N sessions held at once (default 1024); an initialize past it takes the place
                   of the least recently used session with no call under way (one that never
                   made a call first), or is answered 503 when every session has a call under way
  --max-message-bytes N
                   bytes of one message (request body, response body, event): past it a request
                   is 413, an upstream message ends its call (default 16777216: 16 MiB); memory
                   grows with it (docs/cli.md, Memory)
  --max-sessions-per-peer N
                   sessions one client address may hold, the same eviction among its own
                   (default: a quarter of --max-sessions, at least 16 or --max-sessions)
",
    options::connections_usage!(),
    "  --upstream-ca FILE
                   PEM certificate authorities an https:// upstream may chain to, besides
                   the system's
  --ui HOST:PORT   also serve a live page per side there (/: the client's, /upstream/: the
                   upstream's): its operations' rounds on a time axis, each violation
  --json           one JSON object per report line on stdout (with \"side\") instead of text
",
    options::web_usage!(),
    "  -h, --help       this text

the other direction, --upstream-protocol 2025-11-25: MRTR clients (2026-07-28) in front of a
server that speaks only 2025-11-25. Towards the client a stateless 2026-07-28 server
(server/discover from upstream's initialize, _meta and header fields checked). Upstream, a
2025-11-25 session belongs to one client: to the credential it presents (Authorization,
forwarded upstream), else to the one request, ended with it. When upstream asks on a
call's stream, the client gets input_required with the questions and a sealed requestState
naming this instance and the call, which stays parked on its open upstream stream; the retry's
inputResponses go upstream as the answers. A retry on another instance, for a call gone, or
with a bad state is refused with its rule. Reports are tagged `client:` (2026-07-28) and
`upstream:` (2025-11-25).

  --upstream-protocol P  2026-07-28 (default: 2025-11-25 clients to an MRTR server) or
                   2025-11-25 (MRTR clients to a 2025-11-25 server)
  --state-key-file FILE  (2025-11-25 upstream) the key sealing requestState: 64 or more hex
                   digits (`openssl rand -hex 32`) or at least 32 random bytes (`head -c 32
                   /dev/urandom`); text that is not hex (a passphrase) or bytes of few distinct
                   values are refused, a file readable by group or others is warned about; the
                   same file on every instance behind one load balancer (default: a random key
                   made at start, said on stderr)
  --share-upstream-sessions
                   (2025-11-25 upstream) clients without a credential that declare the same
                   capabilities + clientInfo share one upstream session: only for a server that
                   keeps nothing per session (otherwise one client reads another's state)
  --instance NAME  (2025-11-25 upstream) this instance's name in the states it seals (default:
                   random, said on stderr)
  there, --timeout also bounds how long upstream may take to ask or answer and how long a
  parked call waits for its retry (then it is dropped and its upstream stream closed), and
  --max-sessions bounds the calls under way and the upstream sessions (past it: 503)"
);

/// The arguments after `bridge`; `Ok(None)`: `--help`.
fn parse_args(argv: impl Iterator<Item = OsString>) -> Result<Option<Config>, String> {
    use lexopt::prelude::*;
    let (mut listen, mut record_client, mut record_upstream) = (None, None, None);
    let mut upstream_values = Vec::new();
    let (mut json, mut timeout, mut max_sessions) = (false, 30u64, 1024usize);
    let (mut upstream_ca, mut ui, mut max_connections, mut per_peer) = (None, None, None, None);
    let (mut allow_origins, mut allow_hosts, mut max_sessions_per_peer) = (Vec::new(), Vec::new(), None);
    let mut share_upstream_sessions = false;
    let mut max_message_bytes = mrtr::Limits::DEFAULT.max_message_bytes;
    let (mut upstream_protocol, mut state_key_file, mut instance) = (mrtr::Protocol::V2026_07_28, None, None);
    let mut parser = lexopt::Parser::from_args(argv);
    let p = &mut parser;
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("listen") => listen = Some(options::parsed(p, "--listen")?),
            Long("upstream") => upstream_values.push(options::text(p)?),
            Long("record-client") => record_client = Some(options::path(p)?),
            Long("record-upstream") => record_upstream = Some(options::path(p)?),
            Long("timeout") => timeout = options::at_least_one(p, "--timeout", "whole seconds, ")?,
            Long("upstream-ca") => upstream_ca = Some(options::path(p)?),
            Long("ui") => ui = Some(options::parsed(p, "--ui")?),
            Long("max-sessions") => max_sessions = options::at_least_one(p, "--max-sessions", "")?,
            Long("max-connections") => max_connections = Some(options::at_least_one(p, "--max-connections", "")?),
            Long("max-connections-per-peer") => {
                per_peer = Some(options::at_least_one(p, "--max-connections-per-peer", "")?);
            }
            Long("json") => json = true,
            Long("allow-origin") => allow_origins.push(options::text(p)?),
            Long("allow-host") => allow_hosts.push(options::text(p)?),
            Long("max-sessions-per-peer") => {
                max_sessions_per_peer = Some(options::at_least_one(p, "--max-sessions-per-peer", "")?)
            }
            Long("upstream-protocol") => upstream_protocol = bridged_protocol(&options::text(p)?)?,
            Long("state-key-file") => state_key_file = Some(options::path(p)?),
            Long("instance") => instance = Some(options::text(p)?),
            Long("share-upstream-sessions") => share_upstream_sessions = true,
            Long("max-message-bytes") => max_message_bytes = options::at_least_one(p, "--max-message-bytes", "")?,
            Short('h') | Long("help") => return Ok(None),
            other => return Err(other.unexpected().to_string()),
        }
    }
    let listen = listen.ok_or("--listen is required")?;
    let (upstream, upstreams) = upstreams_of(&upstream_values)?;
    let defaults = Config::new(listen, upstream);
    let config = Config {
        max_connections: max_connections.unwrap_or(defaults.max_connections),
        max_connections_per_peer: per_peer,
        record_client,
        record_upstream,
        output: if json { Output::Json } else { Output::Text },
        timeout: std::time::Duration::from_secs(timeout),
        max_sessions,
        max_sessions_per_peer,
        share_upstream_sessions,
        max_message_bytes,
        allow_origins,
        allow_hosts,
        upstream_ca,
        ui,
        upstream_protocol,
        state_key_file,
        instance,
        upstreams,
        ..defaults
    };
    Ok(Some(config))
}

/// The `--upstream` values: one plain `URL` (one upstream), or two or more
/// `NAME=URL` (several, served as one; the first is also `upstream`). A value
/// that starts with `http://` or `https://` is plain; mixing is an error.
fn upstreams_of(values: &[String]) -> Result<(mrtr_bridge::Uri, Vec<(String, mrtr_bridge::Uri)>), String> {
    let url = |v: &str| v.parse::<mrtr_bridge::Uri>().map_err(|e| format!("--upstream {v}: {e}"));
    let plain = |v: &&String| v.starts_with("http://") || v.starts_with("https://");
    match (values, values.iter().filter(plain).count()) {
        ([], _) => Err("--upstream is required".into()),
        ([one], 1) => Ok((url(one)?, Vec::new())),
        (_, 0) => {
            let named = values
                .iter()
                .map(|v| {
                    let (name, rest) = v.split_once('=').ok_or(format!("--upstream {v}: URL or NAME=URL"))?;
                    Ok((name.to_string(), url(rest)?))
                })
                .collect::<Result<Vec<_>, String>>()?;
            mrtr_bridge::check_upstreams(&named).map_err(|e| format!("--upstream: {e}"))?;
            Ok((named[0].1.clone(), named))
        }
        _ => Err("--upstream is one URL, or NAME=URL two or more times (not both, not a URL twice)".into()),
    }
}

/// The protocol of `--upstream-protocol`: one of the two a bridge joins.
fn bridged_protocol(name: &str) -> Result<mrtr::Protocol, String> {
    match mrtr::Protocol::from_name(name) {
        Some(p @ (mrtr::Protocol::V2026_07_28 | mrtr::Protocol::V2025_11_25)) => Ok(p),
        _ => Err(format!("--upstream-protocol is 2026-07-28 or 2025-11-25, not {name:?}")),
    }
}

/// Binds, serves until a signal, prints a summary line per side.
async fn run(config: Config) -> ExitCode {
    let upstream = match config.upstreams.as_slice() {
        [] => config.upstream.to_string(),
        several => several.iter().map(|(n, u)| format!("{n}={u}")).collect::<Vec<_>>().join(", "),
    };
    let (theirs, ours) = match config.upstream_protocol {
        mrtr::Protocol::V2025_11_25 => ("2025-11-25", "2026-07-28"),
        _ => ("2026-07-28", "2025-11-25"),
    };
    let bridge = match Bridge::bind(config).await {
        Ok(b) => b,
        Err(e) => {
            eprintln!("mrtr bridge: {e}");
            return ExitCode::from(2);
        }
    };
    match bridge.local_addr() {
        Ok(addr) => eprintln!("mrtr bridge: listening on {addr} ({ours}), bridging to {upstream} ({theirs})"),
        Err(e) => eprintln!("mrtr bridge: {e}"),
    }
    if let Some(ui) = bridge.ui_addr() {
        eprintln!("mrtr bridge: the live pages are at http://{ui}/ (client) and http://{ui}/upstream/");
    }
    let (client, upstream) = (bridge.client_side(), bridge.upstream_side());
    bridge.serve(options::shutdown_signal()).await;
    println!("{}", client.summary_line());
    println!("{}", upstream.summary_line());
    ExitCode::SUCCESS
}

/// `mrtr bridge ARGS…`.
pub(crate) fn main(argv: impl Iterator<Item = OsString>) -> ExitCode {
    let config = match parse_args(argv) {
        Ok(Some(c)) => c,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(why) => return crate::usage_error("mrtr bridge", &why, USAGE),
    };
    match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime.block_on(run(config)),
        Err(e) => {
            eprintln!("mrtr bridge: cannot start the runtime: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mrtr_proxy_default() -> usize {
        mrtr_bridge::Config::new(([127, 0, 0, 1], 0).into(), "http://h/".parse().unwrap()).max_connections
    }

    fn args(list: &[&str]) -> Result<Option<Config>, String> {
        parse_args(list.iter().map(OsString::from))
    }

    /// Every option lands in the config; the required ones are required.
    #[test]
    fn options_are_read() {
        let config = args(&[
            "--listen",
            "127.0.0.1:9000",
            "--upstream",
            "http://127.0.0.1:8000/mcp",
            "--record-client",
            "c.jsonl",
            "--record-upstream",
            "u.jsonl",
            "--timeout",
            "5",
            "--max-sessions",
            "3",
            "--max-connections",
            "40",
            "--max-connections-per-peer",
            "5",
            "--json",
        ])
        .unwrap()
        .unwrap();
        assert_eq!((config.max_connections, config.max_connections_per_peer), (40, Some(5)));
        let plain = args(&["--listen", "127.0.0.1:9000", "--upstream", "http://h/mcp"]).unwrap().unwrap();
        assert_eq!(plain.max_connections, mrtr_proxy_default(), "the default follows the descriptor limit");
        assert_eq!(plain.max_connections_per_peer, None);
        let zero = args(&["--listen", "127.0.0.1:1", "--upstream", "http://h/", "--max-connections-per-peer", "0"]);
        assert!(zero.unwrap_err().contains("--max-connections-per-peer"));
        assert_eq!(config.listen.port(), 9000);
        assert_eq!(config.upstream.path(), "/mcp");
        assert_eq!(config.record_client.as_deref(), Some(std::path::Path::new("c.jsonl")));
        assert_eq!(config.record_upstream.as_deref(), Some(std::path::Path::new("u.jsonl")));
        assert_eq!((config.timeout.as_secs(), config.max_sessions, config.output), (5, 3, Output::Json));
        assert!(args(&["--listen", "127.0.0.1:9000"]).unwrap_err().contains("--upstream"));
        assert!(args(&["--listen", "x", "--upstream", "http://h/mcp"]).is_err());
        assert!(args(&["--listen", "127.0.0.1:1", "--upstream", "http://h/", "--max-sessions", "0"]).is_err());
        assert!(args(&["--help"]).unwrap().is_none());
        assert_eq!(config.upstream_protocol, mrtr::Protocol::V2026_07_28);
        let reverse = args(&[
            "--listen",
            "127.0.0.1:9000",
            "--upstream",
            "http://h/mcp",
            "--upstream-protocol",
            "2025-11-25",
            "--state-key-file",
            "k",
            "--instance",
            "b1",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(reverse.upstream_protocol, mrtr::Protocol::V2025_11_25);
        assert_eq!(reverse.state_key_file.as_deref(), Some(std::path::Path::new("k")));
        assert_eq!(reverse.instance.as_deref(), Some("b1"));
        let other = args(&["--listen", "127.0.0.1:1", "--upstream", "http://h/", "--upstream-protocol", "sep-2322"]);
        assert!(other.unwrap_err().contains("--upstream-protocol"));
        assert!(config.upstreams.is_empty(), "one plain --upstream: one upstream");
    }

    /// `--upstream NAME=URL` twice or more: several upstreams, the first
    /// also `upstream`; a bad name, a duplicate, one alone and a mix refused.
    #[test]
    fn named_upstreams_are_read() {
        let with = |values: &[&str]| {
            let mut list = vec!["--listen", "127.0.0.1:9000"];
            values.iter().for_each(|v| list.extend(["--upstream", v]));
            args(&list)
        };
        let config = with(&["a=http://127.0.0.1:1/mcp", "b-2=https://h:2/x"]).unwrap().unwrap();
        let names: Vec<&str> = config.upstreams.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a", "b-2"]);
        assert_eq!((config.upstream.port_u16(), config.upstreams[1].1.path()), (Some(1), "/x"));
        for bad in [
            &["a=http://h/", "a=http://g/"][..],
            &["a=http://h/"],
            &["a=http://h/", "http://g/"],
            &["http://h/", "http://g/"],
            &["a.b=http://h/", "c=http://g/"],
            &["a=http://h/", "c"],
            &["a=ftp://h/", "c=http://g/"],
        ] {
            assert!(with(bad).unwrap_err().contains("--upstream"), "{bad:?}");
        }
    }
}
