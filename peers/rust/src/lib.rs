//! What every peer here shares, whatever its SDK: the command lines, the answers a client
//! gives, and the checks of what a client gets back. The MCP code lives in `src/bin/`.

use std::future::Future;
use std::process::ExitCode;

/// The protocol of multi round-trip requests.
pub const MRTR: &str = "2026-07-28";
/// The protocol of server requests on the POST's stream.
pub const LEGACY: &str = "2025-11-25";

/// The answer a client gives to a form asking for `key`.
pub fn answer(key: &str) -> Option<&'static str> {
    match key {
        "units" => Some("celsius"),
        "date" => Some("2026-12-01"),
        "seat" => Some("12A"),
        "focus" => Some("tests"),
        "topic" => Some("mrtr"),
        _ => None,
    }
}

/// A form's answer: `{key: answer}` for each key of the requested schema's properties.
pub fn form_answer<'a>(
    keys: impl IntoIterator<Item = &'a String>,
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    keys.into_iter()
        .map(|k| answer(k).map(|a| (k.clone(), a.into())).ok_or_else(|| format!("no answer for the form field {k}")))
        .collect()
}

/// Where `sign_in` sends the user (a URL-mode elicitation, "Sign in").
pub const SIGN_IN_URL: &str = "https://example.com/sign-in";
pub const SIGN_IN_MESSAGE: &str = "Sign in";

/// Whether the pairing runs `scenario`, one of those after the first ones (`reserve`, `sign_in`,
/// `no_capability`, `form_only`): peers/run lists them in PEER_SCENARIOS; all when it is unset.
pub fn runs(scenario: &str) -> bool {
    match std::env::var("PEER_SCENARIOS") {
        Ok(list) => list.split(',').any(|s| s == scenario),
        Err(_) => true,
    }
}

/// The sampling answer, the model, and the roots a client gives.
pub const SAMPLED: &str = "short";
pub const MODEL: &str = "m-1";
pub const ROOT_URI: &str = "file:///work";
pub const ROOT_NAME: &str = "work";

/// `PROGRAM PORT`.
pub fn server_port() -> u16 {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).and_then(|p| p.parse().ok()) {
        Some(port) if args.len() == 2 => port,
        _ => {
            eprintln!("usage: {} PORT", args[0]);
            std::process::exit(2)
        }
    }
}

/// A client's command line: `PROGRAM URL PROTOCOL [--break request-state]`.
pub struct ClientArgs {
    pub url: String,
    pub protocol: String,
    pub broken: bool,
}

impl ClientArgs {
    pub fn parse() -> Self {
        let args: Vec<String> = std::env::args().collect();
        let broken = args.len() == 5 && args[3] == "--break" && args[4] == "request-state";
        let ok = (args.len() == 3 || broken) && (args[2] == MRTR || (args[2] == LEGACY && !broken));
        if !ok {
            eprintln!("usage: {} URL 2026-07-28|2025-11-25 [--break request-state (2026-07-28 only)]", args[0]);
            std::process::exit(2)
        }
        Self { url: args[1].clone(), protocol: args[2].clone(), broken }
    }

    pub fn mrtr(&self) -> bool {
        self.protocol == MRTR
    }
}

/// The checks of a client's scenarios: each one names what it got and what it wanted.
#[derive(Default)]
pub struct Checks {
    failures: Vec<String>,
}

impl Checks {
    pub fn equal(&mut self, what: &str, got: impl AsRef<str>, want: &str) {
        if got.as_ref() != want {
            self.failures.push(format!("{what}: got {:?}, want {want:?}", got.as_ref()));
        }
    }

    pub fn contains(&mut self, what: &str, got: impl AsRef<str>, part: &str) {
        if !got.as_ref().contains(part) {
            self.failures.push(format!("{what}: got {:?}, want it to contain {part:?}", got.as_ref()));
        }
    }

    /// The call must have been refused with -32021, its `data.requiredCapabilities` naming `capability`.
    pub fn refused(&mut self, what: &str, code: Option<i64>, data: Option<&serde_json::Value>, capability: &str) {
        if code != Some(-32021) {
            self.failures.push(format!("{what}: expected error -32021, got code {code:?} ({data:?})"));
        } else if data.and_then(|d| d.pointer(&format!("/requiredCapabilities/{capability}"))).is_none() {
            self.failures.push(format!("{what}: data.requiredCapabilities does not name {capability}: {data:?}"));
        }
    }

    pub fn fail(&mut self, what: &str, error: impl std::fmt::Display) {
        self.failures.push(format!("{what}: {error}"));
    }

    /// Exit 0 when every check held, 1 with each failure on stderr otherwise.
    pub fn exit(self) -> ExitCode {
        if self.failures.is_empty() {
            return ExitCode::SUCCESS;
        }
        for failure in &self.failures {
            eprintln!("{failure}");
        }
        ExitCode::FAILURE
    }
}

/// A key that signs request states for this process's life: 32 bytes from the OS's random source.
pub fn process_key() -> Vec<u8> {
    let mut key = vec![0; 32];
    getrandom::fill(&mut key).expect("the OS gives random bytes");
    key
}

/// A client's scenarios, given a minute: their checks' exit status, or a failure on timeout.
pub async fn within_a_minute(run: impl Future<Output = Checks>) -> ExitCode {
    match tokio::time::timeout(std::time::Duration::from_secs(60), run).await {
        Ok(checks) => checks.exit(),
        Err(_) => {
            eprintln!("timed out after 60 s");
            ExitCode::FAILURE
        }
    }
}

/// The arguments of the servers' tools, and what `book_trip` carries between its rounds.
pub mod args {
    use schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Location {
        pub location: String,
    }
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Destination {
        pub destination: String,
    }
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Text {
        pub text: String,
    }
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct NoArguments {}
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Table {
        pub table: String,
    }

    /// What `reserve` hands over when it sheds load (sealed in the requestState).
    #[derive(Debug, Serialize, Deserialize)]
    pub struct Held {
        pub table: String,
    }

    /// What `book_trip` remembers between its two rounds (sealed in the requestState).
    #[derive(Debug, Serialize, Deserialize)]
    pub struct Trip {
        pub date: String,
    }
}
