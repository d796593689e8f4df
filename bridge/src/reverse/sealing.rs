//! The `requestState` the reverse bridge hands its MRTR clients: sealed with
//! mrtr's key ring, naming this bridge instance and the parked call.
//!
//! The state is not the call (the call lives here, parked on its open
//! upstream stream): it is a claim ticket. Sealing it (XAES-256-GCM,
//! bound to the request's method, target and params and to an expiry, under
//! the deployment label [`CONTEXT`]) means a client can neither read which
//! call it names nor forge one that names another client's call; the core
//! decides every refusal of a bad token (`state-tampered`, `state-expired`,
//! `state-wrong-request`, …), and its replay guard makes each state single
//! use (`state-replayed`).
//!
//! The payload is `{"i": instance, "c": call key, "r": round}`: the
//! instance, so that a retry a load balancer sent to another instance that
//! shares the key is told where its call is parked, and not mistaken for an
//! unknown one; the round, so that only the state of the round the call
//! waits on is taken.

use mrtr::state::{Algorithm, Binding, Key, KeyRing, MemoryGuard, Subject};
use mrtr::{Error, Protocol, RuleId};
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// The deployment label every token of the reverse bridge is sealed under:
/// another mrtr deployment that happens to share the secret never opens them.
const CONTEXT: &[u8] = b"mrtr-bridge reverse v1";

/// What a state names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Claim {
    /// The instance that sealed it.
    pub(crate) instance: String,
    /// The parked call's key there.
    pub(crate) call: String,
    /// The round it answers.
    pub(crate) round: u32,
}

/// The key ring, this instance's name, and the single-use guard.
pub(crate) struct Sealer {
    ring: KeyRing,
    guard: Mutex<MemoryGuard>,
    pub(crate) instance: String,
}

/// Seconds since the Unix epoch.
fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The binding of a request's state: no principal (the bridge authenticates
/// nobody, so it binds the explicit anonymous subject), the request itself.
fn binding(request: &Value) -> Result<Binding<'_>, Error> {
    Binding::for_request(request, Subject::Anonymous, Protocol::V2026_07_28)
}

impl Sealer {
    /// A ring from `key_file` (the same file on every instance behind one
    /// load balancer), or from 32 random bytes under a random key id (so
    /// that a restarted instance calls its predecessor's tokens
    /// `state-unknown-key` rather than tampered). Says which on stderr.
    pub(crate) fn new(key_file: Option<&Path>, instance: Option<String>) -> std::io::Result<Sealer> {
        let key = match key_file {
            Some(path) => key_from_file(path)?,
            None => random_key()?,
        };
        let mut ring = KeyRing::new(key);
        ring.set_context(CONTEXT).map_err(invalid)?;
        let instance = match instance {
            Some(name) if !name.is_empty() => name,
            Some(_) => return Err(invalid_text("--instance names the instance: it cannot be empty")),
            None => crate::sessions::random_id().ok_or_else(|| invalid_text("no randomness from the OS"))?,
        };
        match key_file {
            Some(path) => {
                eprintln!("mrtr bridge: instance {instance}, requestState sealed with the key of {}", path.display())
            }
            None => eprintln!(
                "mrtr bridge: instance {instance}, requestState sealed with a random key made at start \
                 (other instances cannot open it; give every instance --state-key-file to share one)"
            ),
        }
        Ok(Sealer { ring, guard: Mutex::new(MemoryGuard::new()), instance })
    }

    /// Seals the claim on `call`'s `round`, bound to `request`, valid for `ttl` seconds.
    pub(crate) fn seal(&self, request: &Value, call: &str, round: u32, ttl: u32) -> Result<String, Error> {
        let payload = json!({"i": self.instance, "c": call, "r": round}).to_string();
        self.ring.seal_os(&binding(request)?, now(), ttl, payload.as_bytes())
    }

    /// Opens the state `token` a retry of `request` carries, once: the core's
    /// refusal of a bad token, else what it claims.
    pub(crate) fn open(&self, request: &Value, token: &str) -> Result<Claim, Error> {
        let now = now();
        let mut guard = self.guard.lock().unwrap_or_else(|p| p.into_inner());
        guard.prune(now);
        let opened = self.ring.open_once(token, &binding(request)?, now, &mut *guard)?;
        let payload: Value = serde_json::from_slice(&opened.payload).unwrap_or(Value::Null);
        let text = |k: &str| payload.get(k).and_then(Value::as_str).map(String::from);
        let round = payload.get("r").and_then(Value::as_u64).and_then(|r| u32::try_from(r).ok());
        match (text("i"), text("c"), round) {
            (Some(instance), Some(call), Some(round)) => Ok(Claim { instance, call, round }),
            // Sealed by a key of this deployment, yet not a claim of ours.
            _ => Err(Error::with(RuleId::StateMalformed, "requestState names no parked call".into())),
        }
    }
}

fn invalid(e: Error) -> std::io::Error {
    invalid_text(&e.to_string())
}

fn invalid_text(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, what.to_string())
}

/// The key of `path`: at least 32 secret bytes (64 hex digits, or raw
/// bytes), from which the key of id 1 is derived.
fn key_from_file(path: &Path) -> std::io::Result<Key> {
    let bytes = std::fs::read(path)
        .map_err(|e| std::io::Error::new(e.kind(), format!("the state key file {}: {e}", path.display())))?;
    let text = std::str::from_utf8(&bytes).map(str::trim).unwrap_or("");
    let secret = match hex(text) {
        Some(decoded) => decoded,
        None => bytes,
    };
    Key::derive(1, Algorithm::Xaes256Gcm, &secret).map_err(|e| {
        invalid_text(&format!("{}: a state key is at least 32 random bytes (or 64 hex digits): {e}", path.display()))
    })
}

/// `text` as hex digits, when it is only that (and at least 64 of them).
fn hex(text: &str) -> Option<Vec<u8>> {
    if text.len() < 64 || text.len() % 2 != 0 {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

/// 32 random bytes under a random key id (2 to 255: never the key file's 1,
/// so a state sealed under a shared key is `state-unknown-key` to an
/// instance that was started without it).
fn random_key() -> std::io::Result<Key> {
    let mut secret = [0u8; 33];
    getrandom::fill(&mut secret).map_err(|e| invalid_text(&format!("no randomness from the OS: {e}")))?;
    let id = secret[32] % 254 + 2;
    let key: [u8; 32] = secret[..32].try_into().unwrap_or([0; 32]);
    Ok(Key::new(id, Algorithm::Xaes256Gcm, &key))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(arguments: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t", "arguments": arguments}})
    }

    /// A claim opens once for its request; a replay, another request's state
    /// and a changed byte are each refused with the core's rule.
    #[test]
    fn claims_open_once_for_their_request() {
        let sealer = Sealer::new(None, Some("a".into())).unwrap();
        let token = sealer.seal(&request(json!({"x": 1})), "k", 2, 60).unwrap();
        let claim = sealer.open(&request(json!({"x": 1})), &token).unwrap();
        assert_eq!(claim, Claim { instance: "a".into(), call: "k".into(), round: 2 });
        assert_eq!(sealer.open(&request(json!({"x": 1})), &token).unwrap_err().rule(), RuleId::StateReplayed);
        let other = sealer.seal(&request(json!({"x": 1})), "k", 3, 60).unwrap();
        assert_eq!(sealer.open(&request(json!({"x": 2})), &other).unwrap_err().rule(), RuleId::StateWrongRequest);
        let mut bytes = other.into_bytes();
        // A character inside (the nonce): the last one may carry only padding bits.
        bytes[20] = if bytes[20] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(bytes).unwrap();
        assert_eq!(sealer.open(&request(json!({"x": 1})), &tampered).unwrap_err().rule(), RuleId::StateTampered);
    }

    /// Two instances with one key file open each other's states (and see
    /// whose they are); a key file too short is refused at start.
    #[test]
    fn a_key_file_is_shared_and_checked() {
        let dir = std::env::temp_dir().join(format!("mrtr-sealing-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (good, short) = (dir.join("good"), dir.join("short"));
        std::fs::write(&good, "ab".repeat(32)).unwrap();
        std::fs::write(&short, "abcd").unwrap();
        let (a, b) = (Sealer::new(Some(&good), Some("a".into())).unwrap(), Sealer::new(Some(&good), None).unwrap());
        let token = a.seal(&request(json!({})), "k", 1, 60).unwrap();
        assert_eq!(b.open(&request(json!({})), &token).unwrap().instance, "a");
        assert!(Sealer::new(Some(&short), None).is_err());
        assert!(Sealer::new(None, Some(String::new())).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
