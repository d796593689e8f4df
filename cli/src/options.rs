//! What the long-running commands (`proxy`, `bridge`) read alike: option
//! values, and the signals that stop them.

use std::ffi::OsString;
use std::path::PathBuf;
use std::str::FromStr;

/// The web rules' options (`--allow-origin`, `--allow-host`), as the
/// usage texts of both gateways list them: one text for the flags both
/// parse alike.
macro_rules! web_usage {
    () => {
        "  --allow-origin ORIGIN
                   a browser origin allowed to call (repeatable; `*`: any). By default a request
                   with an Origin header is refused (403, http-origin-refused) unless the origin
                   is on this machine (listening on loopback) or names the listen address
  --allow-host HOST
                   a Host name allowed (repeatable; `*`: any). By default, listening on loopback
                   only loopback names (localhost, 127.0.0.0/8, [::1]) are answered, on a
                   specific address that address, on 0.0.0.0 or [::] any; another Host is 403
                   (DNS rebinding). A POST that is not application/json is 415
                   (http-content-type-unsupported)
"
    };
}
pub(crate) use web_usage;

/// The connection caps' options (`--max-connections`,
/// `--max-connections-per-peer`), which both gateways take alike.
macro_rules! connections_usage {
    () => {
        "  --max-connections N
                   client connections served at once; past it 503 (default: what the
                   descriptor limit allows, raised to the hard limit at start: half of it
                   less 32, at most 16384; a higher N is lowered to that, with a warning)
  --max-connections-per-peer N
                   client connections served at once from one IP address; past it 503
                   (default: a quarter of --max-connections, at least 8; behind a load
                   balancer, where all clients share its address, give --max-connections)
"
    };
}
pub(crate) use connections_usage;

/// The next value as text (`--flag VALUE`).
pub(crate) fn text(parser: &mut lexopt::Parser) -> Result<String, String> {
    let value = parser.value().map_err(|e| e.to_string())?;
    value.into_string().map_err(|_| "an argument is not UTF-8".to_string())
}

/// The next value as a path.
pub(crate) fn path(parser: &mut lexopt::Parser) -> Result<PathBuf, String> {
    parser.value().map(PathBuf::from).map_err(|e| e.to_string())
}

/// The next value parsed as `T` (an address, a URL); the error names `flag`.
pub(crate) fn parsed<T: FromStr>(parser: &mut lexopt::Parser, flag: &str) -> Result<T, String>
where
    T::Err: std::fmt::Display,
{
    let v = text(parser)?;
    v.parse().map_err(|e| format!("{flag} {v}: {e}"))
}

/// The next value as a whole number of at least 1 (`what`: its unit, for the error).
pub(crate) fn at_least_one<T: FromStr + PartialOrd + From<u8>>(
    parser: &mut lexopt::Parser,
    flag: &str,
    what: &str,
) -> Result<T, String> {
    let v = text(parser)?;
    v.parse().ok().filter(|n| *n >= T::from(1)).ok_or(format!("{flag} {v}: {what}at least 1"))
}

/// Resolves on SIGINT (Ctrl-C) or, on Unix, SIGTERM. The handlers are in
/// place when this returns (inside the runtime), not at the first poll: a
/// signal that comes before the future is first polled is not lost, and
/// does not end the process by its default action (which would leave a
/// stdio server behind).
pub(crate) fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let handlers = signal(SignalKind::interrupt()).and_then(|int| Ok((int, signal(SignalKind::terminate())?)));
        async move {
            match handlers {
                Ok((mut int, mut term)) => {
                    tokio::select! {
                        _ = int.recv() => {}
                        _ = term.recv() => {}
                    }
                }
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Splits off what follows `--` (a command line of its own).
pub(crate) fn split_command(mut argv: Vec<OsString>) -> (Vec<OsString>, Option<Vec<OsString>>) {
    let command = argv.iter().position(|a| a == "--").map(|at| argv.split_off(at).into_iter().skip(1).collect());
    (argv, command)
}
